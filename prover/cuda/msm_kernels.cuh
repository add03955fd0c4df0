/* The group-specific MSM kernels, written once and included by msm.cu for G1 and for G2
 * with MK_AFF / MK_XYZZ (point types), MK_EC(x) (the point functions of ps_curves.cuh),
 * MK_FN(op) (the field's functions) and MK_K(x) (the kernel name prefix) set. */

/* Bucket accumulation, load-balanced whatever the scalars: the sorted array (all windows'
 * buckets one after another; sorted[] holds point indices with bit 31 set when the digit
 * was negative, bucket `key` at start[key] .. start[key] + count[key]) is cut into chunks
 * of L positions, and a thread sums one chunk, so no thread adds more than L points even
 * when one bucket holds most of them. Per chunk and per bucket it touches: a bucket that
 * begins in the chunk is written to buckets[key] by that chunk (its owner); the part of a
 * bucket that began in an earlier chunk (at most one per chunk, the chunk's "head") goes
 * to part[chunk], with head[chunk] = key (else PSC_MSM_NO_HEAD). Buckets no chunk touches
 * stay at infinity (bucket_init). Zero digits are not in sorted[], so they cost nothing. */
#ifndef PSC_MSM_NO_HEAD
#define PSC_MSM_NO_HEAD 0xffffffffu
#endif

__global__ void MK_K(bucket_init)(MK_XYZZ *buckets, size_t nkeys) {
  size_t key = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (key < nkeys) MK_EC(set_inf)(&buckets[key]);
}

/* The last key whose range holds position p, given that key k's range ends at p (so
 * p < total): key k + 1 when it is not empty (the usual case), else a binary search over
 * the keys after k, since runs of empty buckets can be long (2^(c-1) - 1 of them when all
 * scalars are equal) and a walk over them would stall its warp. */
__device__ __forceinline__ size_t MK_K(next_key)(const uint32_t *__restrict__ start,
                                                 const uint32_t *__restrict__ count, size_t k,
                                                 size_t nkeys, uint32_t p) {
  if (count[k + 1] != 0) return k + 1;
  size_t lo = k + 1, hi = nkeys; /* start[lo] <= p (= p, empty); find the last such */
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (start[mid] <= p) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* Asks for the lines of a base point to be brought into L2 (no registers held): the
 * bucket sums fetch their next point while adding the current one, since the bases are
 * read in random order from HBM, far beyond L2. With MK_PREFETCH set (G1: 1% faster at
 * 2^24 and 2^26; on G2 it was measured only together with a change to the squares that
 * made G2 9% slower, docs/performance.md, so G2 runs without it). */
__device__ __forceinline__ void MK_K(prefetch_l2)(const MK_AFF *a) {
  const char *c = (const char *)a;
#pragma unroll
  for (unsigned o = 0; o < sizeof(MK_AFF); o += 128) asm volatile("prefetch.global.L2 [%0];" ::"l"(c + o));
  asm volatile("prefetch.global.L2 [%0];" ::"l"(c + sizeof(MK_AFF) - 1));
}

/* One flat loop over the chunk's positions, the same instruction stream in every lane of
 * a full chunk: each step does one mixed addition into a running accumulator; when the
 * position is the first of a new bucket, the accumulator is first flushed (to the bucket,
 * or to part[] when the bucket began in an earlier chunk) and restarted. Only that short
 * flush is predicated, so lanes no longer wait for each other's longer buckets (the
 * nested loop per bucket made a warp run the longest lane's bucket each time). */
#ifdef MK_BUCKET_MINB /* blocks of 64 threads a multiprocessor the bucket sums are built for */
#define MK_BUCKET_BOUNDS __launch_bounds__(64, MK_BUCKET_MINB)
#else
#define MK_BUCKET_BOUNDS
#endif
__global__ void MK_BUCKET_BOUNDS MK_K(bucket_chunks)(MK_XYZZ *buckets, MK_XYZZ *part, uint32_t *head,
                                    const uint32_t *__restrict__ sorted, const uint32_t *__restrict__ start,
                                    const uint32_t *__restrict__ count, const MK_AFF *__restrict__ bases,
                                    size_t nkeys, size_t nchunks, unsigned L) {
  size_t ch = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (ch >= nchunks) return;
  const uint32_t total = start[nkeys - 1] + count[nkeys - 1];
  const uint64_t p0w = (uint64_t)ch * L;
  uint32_t hk = PSC_MSM_NO_HEAD;
  if (p0w < total) {
    const uint32_t p0 = (uint32_t)p0w, p1 = (uint32_t)(p0w + L < total ? p0w + L : total);
    /* The last key whose start is <= p0 holds position p0 (start[0] = 0). */
    size_t lo = 0, hi = nkeys;
    while (hi - lo > 1) {
      size_t mid = (lo + hi) / 2;
      if (start[mid] <= p0) lo = mid;
      else hi = mid;
    }
    size_t k = lo;
    uint32_t s = start[k], end = s + count[k];
    MK_XYZZ acc;
    MK_EC(set_inf)(&acc);
    for (uint32_t p = p0; p < p1; p++) {
      if (p == end) { /* bucket k ends before p: flush, move to the bucket holding p */
        if (s < p0) {
          psf_st(&part[ch], &acc);
          hk = (uint32_t)k;
        } else {
          psf_st(&buckets[k], &acc);
        }
        MK_EC(set_inf)(&acc);
        k = MK_K(next_key)(start, count, k, nkeys, p);
        s = start[k];
        end = s + count[k];
      }
      uint32_t v = sorted[p];
#ifdef MK_PREFETCH
      if (p + 1 < p1) MK_K(prefetch_l2)(&bases[sorted[p + 1] & 0x7fffffffu]);
#endif
      MK_AFF a;
      psf_ldg(&a, &bases[v & 0x7fffffffu]);
      if (!MK_EC(aff_is_inf)(&a)) {
        if (v >> 31) MK_FN(neg)(&a.y, &a.y);
        MK_EC(madd)(&acc, &a.x, &a.y);
      }
    }
    if (s < p0) { /* the last bucket touched, complete or cut at p1 */
      psf_st(&part[ch], &acc);
      hk = (uint32_t)k;
    } else {
      psf_st(&buckets[k], &acc);
    }
  }
  head[ch] = hk;
}


/* The head parts of a bucket k lie in the chunks a .. b (a = start[k]/L + 1, b = (start[k] +
 * count[k] - 1)/L, every one of them with head = k); they are added up by a segmented tree
 * over aligned blocks of chunks. After the step of stride s (1, 2, 4, ..), in each aligned
 * block of 2s chunks every run of chunks with one key has its sum at the run's first chunk.
 * The step joins the halves [B, B+s) and [B+s, B+2s) of a block: only the run that crosses
 * B+s changes, and its first chunk is max(B, a). A thread per block, so the adds of a step
 * sit in few warps with their lanes busy (a thread per chunk, testing whether its chunk
 * was a left end at this stride, kept 1 lane in 2s working, so the steps at 2^26 random
 * scalars cost 14 ms to 10 ms each). Chunks from `used` on (past the sorted positions)
 * have no head. */
__global__ void MK_K(bucket_combine)(MK_XYZZ *part, const uint32_t *__restrict__ head,
                                     const uint32_t *__restrict__ start, const uint32_t *__restrict__ count,
                                     size_t nkeys, size_t nblk, size_t s) {
  const size_t used = ((size_t)start[nkeys - 1] + count[nkeys - 1] + MSM_CHUNK - 1) / MSM_CHUNK;
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < nblk; t += (size_t)gridDim.x * blockDim.x) {
    const size_t B = 2 * s * t, r = B + s;
    if (r >= used) return;
    const uint32_t k = head[r];
    if (k == PSC_MSM_NO_HEAD || head[r - 1] != k) continue;
    const size_t a = (size_t)start[k] / MSM_CHUNK + 1, dst = a > B ? a : B;
    MK_XYZZ x = part[r];
    MK_XYZZ y = part[dst];
    MK_EC(add)(&y, &x);
    part[dst] = y;
  }
}

/* Thread per bucket: adds the bucket's combined continuation (part[a]) to what its owner
 * chunk wrote. */
__global__ void MK_K(bucket_finish)(MK_XYZZ *buckets, const MK_XYZZ *part, const uint32_t *__restrict__ start,
                                    const uint32_t *__restrict__ count, size_t nkeys) {
  size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nkeys || count[k] == 0) return;
  const size_t a = (size_t)start[k] / MSM_CHUNK + 1, b = ((size_t)start[k] + count[k] - 1) / MSM_CHUNK;
  if (b < a) return;
  MK_XYZZ x = part[a];
  MK_XYZZ y = buckets[k];
  MK_EC(add)(&y, &x);
  buckets[k] = y;
}

/* Segment sums: the buckets of each window in nseg segments of lseg buckets; for segment
 * j (buckets j*lseg+1 .. (j+1)*lseg, local weights 1..lseg) out_acc = sum of local weight
 * times bucket, out_sum = sum of the buckets. Thread per (window, segment). */
__global__ void MK_K(segment_sum)(MK_XYZZ *out_acc, MK_XYZZ *out_sum, const MK_XYZZ *buckets,
                                  unsigned nb, unsigned nseg, unsigned lseg, unsigned nwin) {
  size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= (size_t)nwin * nseg) return;
  size_t w = id / nseg, j = id % nseg;
  const MK_XYZZ *b = buckets + w * nb + j * lseg;
  MK_XYZZ run, acc;
  MK_EC(set_inf)(&run);
  MK_EC(set_inf)(&acc);
  for (int i = (int)lseg - 1; i >= 0; i--) {
    MK_XYZZ x = b[i];
    MK_EC(add)(&run, &x);
    MK_EC(add)(&acc, &run);
  }
  out_acc[id] = acc;
  out_sum[id] = run;
}

/* segment_sum with the block's buckets of each step copied into shared memory together
 * first (msm_seg.h): the same sums, in the same order, each thread's neighbours reading
 * neighbouring words. Dynamic shared memory: blockDim.x points. */
__global__ void MK_K(segment_sum_staged)(MK_XYZZ *out_acc, MK_XYZZ *out_sum, const MK_XYZZ *buckets, unsigned nb,
                                         unsigned log_nseg, unsigned log_lseg, unsigned nwin) {
  static_assert(sizeof(MK_XYZZ) % 16 == 0, "a point is whole 16-byte words");
  extern __shared__ unsigned char mk_sh_raw[];
  MK_XYZZ *sh = (MK_XYZZ *)mk_sh_raw;
  const unsigned W = sizeof(MK_XYZZ) / 16, T = blockDim.x;
  const size_t total = (size_t)nwin << log_nseg, id0 = (size_t)blockIdx.x * T, id = id0 + threadIdx.x;
  const uint4 *src = (const uint4 *)buckets;
  uint4 *dst = (uint4 *)mk_sh_raw;
  MK_XYZZ run, acc;
  MK_EC(set_inf)(&run);
  MK_EC(set_inf)(&acc);
  for (int i = (1 << log_lseg) - 1; i >= 0; i--) {
    for (unsigned q = threadIdx.x; q < T * W; q += T) {
      long long b = msm_seg_src(q, W, id0, total, nb, log_nseg, log_lseg, (unsigned)i);
      if (b >= 0) dst[q] = src[(size_t)b * W + q % W];
    }
    __syncthreads();
    if (id < total) { /* the bucket read from shared memory as the sum needs it: no copy held */
      MK_EC(add)(&run, &sh[threadIdx.x]);
      MK_EC(add)(&acc, &run);
    }
    __syncthreads();
  }
  if (id < total) {
    out_acc[id] = acc;
    out_sum[id] = run;
  }
}

/* Merges groups of g consecutive segments (each of lseg buckets) into one: block per
 * group, g threads. acc' = sum_j acc_j + lseg * sum_j j * S_j, S' = sum_j S_j, using
 * sum_j j S_j = sum_{m>=1} (suffix sum from m), a Hillis-Steele suffix scan and a tree.
 * lseg is a power of two (log2 given). Dynamic shared memory: g points. */
__global__ void MK_K(segment_merge)(MK_XYZZ *acc_out, MK_XYZZ *sum_out, const MK_XYZZ *acc,
                                    const MK_XYZZ *sum, unsigned g, unsigned log_lseg) {
  extern __shared__ unsigned char mk_sh_raw[];
  MK_XYZZ *sh = (MK_XYZZ *)mk_sh_raw;
  unsigned j = threadIdx.x;
  size_t id = (size_t)blockIdx.x * g + j;
  MK_XYZZ v = sum[id], t;
  sh[j] = v;
  __syncthreads();
  for (unsigned d = 1; d < g; d <<= 1) {
    int have = j + d < g;
    if (have) t = sh[j + d];
    __syncthreads();
    if (have) {
      MK_EC(add)(&v, &t);
      sh[j] = v;
    }
    __syncthreads();
  }
  /* v = suffix sum from j; sh[0] = S'. */
  MK_XYZZ total = sh[0];
  if (j == 0) MK_EC(set_inf)(&v);
  for (unsigned i = 0; i < log_lseg; i++) MK_EC(dbl)(&v);
  t = acc[id];
  MK_EC(add)(&v, &t);
  __syncthreads();
  sh[j] = v;
  __syncthreads();
  for (unsigned d = 1; d < g; d <<= 1) {
    if ((j & (2 * d - 1)) == 0 && j + d < g) {
      t = sh[j + d];
      MK_EC(add)(&v, &t);
      sh[j] = v;
    }
    __syncthreads();
  }
  if (j == 0) {
    acc_out[blockIdx.x] = v;
    sum_out[blockIdx.x] = total;
  }
}

static int MK_K(msm_reduce)(psc_dev *d, const msm_bufs *m, const msm_shape *sh, void **win, cudaEvent_t *ev,
                            ps_err *e);

/* The launch sequence of the bucket stage (msm_int.cuh, MK_K(msm_buckets)). */
int MK_K(msm_buckets)(psc_dev *d, const msm_bufs *m, const msm_shape *sh, const void *bases, void **win,
                      cudaEvent_t *ev, ps_err *e) {
  int rc = PS_OK;
  const size_t nkeys = sh->nkeys, nchunks = sh->nchunks;
  MK_K(bucket_init)<<<psc__blocks(nkeys, 128), 128, 0, d->stream>>>((MK_XYZZ *)m->buckets, nkeys);
  PSC_CHECK_LAUNCH();
  MK_K(bucket_chunks)<<<psc__blocks(nchunks, 64), 64, 0, d->stream>>>(
      (MK_XYZZ *)m->buckets, (MK_XYZZ *)m->parts, m->head, m->sorted, m->start, m->count, (const MK_AFF *)bases,
      nkeys, nchunks, MSM_CHUNK);
  PSC_CHECK_LAUNCH();
  /* One launch per stride, a thread per block of 2s chunks (at most 2^16 blocks of 128
   * threads, looping); a step past the sorted positions returns at once. */
  for (size_t s = 1; s < nchunks; s <<= 1) {
    const size_t nblk = (nchunks - s + 2 * s - 1) / (2 * s), blocks = psc__blocks(nblk, 128);
    MK_K(bucket_combine)<<<blocks < 65536 ? blocks : 65536, 128, 0, d->stream>>>(
        (MK_XYZZ *)m->parts, m->head, m->start, m->count, nkeys, nblk, s);
    PSC_CHECK_LAUNCH();
  }
  MK_K(bucket_finish)<<<psc__blocks(nkeys, 128), 128, 0, d->stream>>>(
      (MK_XYZZ *)m->buckets, (const MK_XYZZ *)m->parts, m->start, m->count, nkeys);
  PSC_CHECK_LAUNCH();
  if (ev) PSC_CHECK(cudaEventRecord(ev[0], d->stream));
  rc = MK_K(msm_reduce)(d, m, sh, win, ev, e);
fail:
  return rc;
}

/* The bucket reduction: each window's buckets (m->buckets, XYZZ) to its sum. */
static int MK_K(msm_reduce)(psc_dev *d, const msm_bufs *m, const msm_shape *sh, void **win, cudaEvent_t *ev,
                            ps_err *e) {
  int rc = PS_OK;
  const unsigned nwin = sh->nwin, nseg = 1u << sh->log_nseg, nseg_all = nwin * nseg;
  if (sh->seg_staged)
    MK_K(segment_sum_staged)<<<psc__blocks(nseg_all, 64), 64, 64 * sizeof(MK_XYZZ), d->stream>>>(
        (MK_XYZZ *)m->seg_acc, (MK_XYZZ *)m->seg_sum, (const MK_XYZZ *)m->buckets, sh->nb, sh->log_nseg,
        sh->log_lseg, nwin);
  else
    MK_K(segment_sum)<<<psc__blocks(nseg_all, 64), 64, 0, d->stream>>>(
        (MK_XYZZ *)m->seg_acc, (MK_XYZZ *)m->seg_sum, (const MK_XYZZ *)m->buckets, sh->nb, nseg,
        1u << sh->log_lseg, nwin);
  PSC_CHECK_LAUNCH();
  if (ev) PSC_CHECK(cudaEventRecord(ev[1], d->stream));
  {
    /* Merge segments: groups of 2^lg consecutive segments (never across windows, since
     * each window has 2^left segments and groups are powers of two). */
    unsigned log_l = sh->log_lseg, left = sh->log_nseg;
    size_t half = (size_t)nseg_all * sizeof(MK_XYZZ);
    char *acc_in = (char *)m->seg_acc, *sum_in = (char *)m->seg_sum;
    char *acc_out = acc_in + half, *sum_out = sum_in + half;
    while (left > 0) {
      unsigned lg = left < MSM_MERGE_LOG_G ? left : MSM_MERGE_LOG_G, g = 1u << lg;
      unsigned groups = (nwin << left) >> lg;
      MK_K(segment_merge)<<<groups, g, g * sizeof(MK_XYZZ), d->stream>>>(
          (MK_XYZZ *)acc_out, (MK_XYZZ *)sum_out, (const MK_XYZZ *)acc_in, (const MK_XYZZ *)sum_in, g, log_l);
      PSC_CHECK_LAUNCH();
      char *t;
      t = acc_in, acc_in = acc_out, acc_out = t;
      t = sum_in, sum_in = sum_out, sum_out = t;
      log_l += lg;
      left -= lg;
    }
    *win = acc_in;
  }
fail:
  return rc;
}

/* One table of the precomputed bases: dst[i] = 2^c src[i] in affine form (the point at
 * infinity stays itself). XYZZ -> affine: with w = 1/ZZZ, 1/Z = ZZ w and 1/ZZ = (1/Z)^2. */
__global__ void MK_K(precomp_level)(MK_AFF *dst, const MK_AFF *__restrict__ src, size_t n, unsigned c) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  MK_AFF a = src[i];
  if (MK_EC(aff_is_inf)(&a)) {
    dst[i] = a;
    return;
  }
  MK_XYZZ p;
  MK_EC(mdbl)(&p, &a.x, &a.y);
#pragma unroll 1
  for (unsigned k = 1; k < c; k++) MK_EC(dbl)(&p);
  decltype(p.x) w, iz, izz;
  MK_FN(inv)(&w, &p.zzz);
  MK_FN(mul)(&iz, &p.zz, &w);
  MK_FN(mul)(&izz, &iz, &iz);
  MK_FN(mul)(&a.x, &p.x, &izz);
  MK_FN(mul)(&a.y, &p.y, &w);
  dst[i] = a;
}

int MK_K(msm_precompute)(psc_dev *d, psc_bases *b, unsigned c, unsigned nwin, ps_err *e) {
  int rc = PS_OK;
  MK_AFF *t = (MK_AFF *)b->d_pre;
  for (unsigned j = 1; j < nwin; j++) {
    MK_K(precomp_level)<<<psc__blocks(b->n, 128), 128, 0, d->stream>>>(t + j * b->n, t + (j - 1) * b->n, b->n, c);
    PSC_CHECK_LAUNCH();
  }
  PSC_CHECK(cudaStreamSynchronize(d->stream));
fail:
  return rc;
}

#ifdef MK_AFFINE
/* Batch-affine bucket sums (msm_affine.h, which says how the tree of additions and the
 * shared inversions are laid out), G1 only: the kernels are thin wrappers around the
 * per-thread functions that tests/test_msm_affine.c runs on the CPU. */
#define MSA_F fp_t
#define MSA_FINL static __device__ __forceinline__
#define MSA_MUL(r, a, b) fp_mul_d(r, a, b)
#define MSA_ADD(r, a, b) fp_add_d(r, a, b)
#define MSA_SUB(r, a, b) fp_sub_d(r, a, b)
#define MSA_EQ(a, b) fp_eq_d(a, b)
#define MSA_IS_ZERO(a) fp_is_zero_d(a)
#define MSA_SET_ONE(r) fp_set_one_d(r)
#define MSA_SET_ZERO(r) fp_set_zero_d(r)
#define MSA_NEG(r, a) fp_neg_d(r, a)
#define MSA_INV(r, a) fp_inv_d(r, a)
#define MSA_AFF g1_affine_t
#define MSA_NAME(x) g1_msa_##x
#include "msm_affine.h"

#define MSA_TID ((size_t)blockIdx.x * blockDim.x + threadIdx.x)

__global__ void g1_msa_k_level1_prod(size_t nthr, const uint32_t *__restrict__ sorted,
                                     const uint32_t *__restrict__ start, const uint32_t *__restrict__ count,
                                     const g1_affine_t *__restrict__ bases, size_t key0, size_t key1, fp_t *pre,
                                     fp_t *tot) {
  const size_t t = MSA_TID;
  if (t < nthr) g1_msa_level1_prod(t, nthr, sorted, start, count, bases, key0, key1, pre, tot);
}

__global__ void g1_msa_k_level1_sum(size_t nthr, const uint32_t *__restrict__ sorted,
                                    const uint32_t *__restrict__ start, const uint32_t *__restrict__ count,
                                    const g1_affine_t *__restrict__ bases, size_t key0, size_t key1,
                                    const fp_t *pre, const fp_t *tot, g1_affine_t *slots, uint32_t *keys) {
  const size_t t = MSA_TID;
  if (t < nthr) g1_msa_level1_sum(t, nthr, sorted, start, count, bases, key0, key1, pre, tot, slots, keys);
}

__global__ void g1_msa_k_step_prod(size_t nthr, size_t s, size_t ns, const uint32_t *keys,
                                   const uint32_t *__restrict__ start, size_t key0, const g1_affine_t *slots,
                                   fp_t *pre, fp_t *tot) {
  const size_t t = MSA_TID;
  if (t < nthr) g1_msa_step_prod(t, nthr, s, ns, keys, start, key0, slots, pre, tot);
}

__global__ void g1_msa_k_step_sum(size_t nthr, size_t s, size_t ns, const uint32_t *keys,
                                  const uint32_t *__restrict__ start, size_t key0, g1_affine_t *slots,
                                  const fp_t *pre, const fp_t *tot) {
  const size_t t = MSA_TID;
  if (t < nthr) g1_msa_step_sum(t, nthr, s, ns, keys, start, key0, slots, pre, tot);
}

__global__ void g1_msa_k_invert(size_t ntot, fp_t *tot) {
  const size_t u = MSA_TID;
  if (u < msa_invert_threads(ntot)) g1_msa_invert(u, ntot, tot);
}

/* Thread per bucket of the group: its sum (at its first slot) as an XYZZ bucket. */
__global__ void g1_msa_k_finish(g1_xyzz_t *buckets, const g1_affine_t *slots, const uint32_t *__restrict__ start,
                                const uint32_t *__restrict__ count, size_t key0, size_t key1) {
  const size_t k = key0 + MSA_TID;
  if (k >= key1) return;
  g1_xyzz_t b;
  g1_set_inf_d(&b);
  if (count[k] != 0) {
    const g1_affine_t a = slots[msa_slot_base(start[k], start[key0], k, key0)];
    if (!g1_aff_is_inf_d(&a)) {
      b.x = a.x;
      b.y = a.y;
      fp_set_one_d(&b.zz);
      fp_set_one_d(&b.zzz);
    }
  }
  buckets[k] = b;
}

#define MSA_BLOCK 128 /* threads a block in the batch-affine kernels */

int g1_msm_buckets_affine(psc_dev *d, const msm_bufs *m, const msm_shape *sh, size_t n, const void *bases,
                          void **win, cudaEvent_t *ev, ps_err *e) {
  int rc = PS_OK;
  const unsigned nwin = sh->nwin, nb = sh->nb, gw = msa_group_windows(n, nwin);
  msa_layout L;
  msa_layout_of(&L, n, gw, nb, sizeof(g1_affine_t), sizeof(fp_t));
  g1_affine_t *slots = (g1_affine_t *)m->aff;
  uint32_t *keys = (uint32_t *)((char *)m->aff + L.off_keys);
  fp_t *pre = (fp_t *)((char *)m->aff + L.off_pre), *tot = (fp_t *)((char *)m->aff + L.off_tot);
  const g1_affine_t *B = (const g1_affine_t *)bases;
  for (unsigned w0 = 0; w0 < nwin; w0 += gw) {
    const unsigned g = nwin - w0 < gw ? nwin - w0 : gw;
    const size_t key0 = (size_t)w0 * nb, key1 = key0 + (size_t)g * nb;
    msa_layout G;
    msa_layout_of(&G, n, g, nb, sizeof(g1_affine_t), sizeof(fp_t));
    PSC_CHECK(cudaMemsetAsync(keys, 0xff, G.ns * sizeof(uint32_t), d->stream));
    size_t nthr = msa_level1_threads((size_t)g * n);
    g1_msa_k_level1_prod<<<psc__blocks(nthr, MSA_BLOCK), MSA_BLOCK, 0, d->stream>>>(
        nthr, m->sorted, m->start, m->count, B, key0, key1, pre, tot);
    PSC_CHECK_LAUNCH();
    g1_msa_k_invert<<<psc__blocks(msa_invert_threads(nthr), MSA_BLOCK), MSA_BLOCK, 0,
                      d->stream>>>(nthr, tot);
    PSC_CHECK_LAUNCH();
    g1_msa_k_level1_sum<<<psc__blocks(nthr, MSA_BLOCK), MSA_BLOCK, 0, d->stream>>>(
        nthr, m->sorted, m->start, m->count, B, key0, key1, pre, tot, slots, keys);
    PSC_CHECK_LAUNCH();
    for (size_t s = 1; s < G.ns; s <<= 1) {
      nthr = msa_step_threads(G.ns, s);
      if (!nthr) break;
      g1_msa_k_step_prod<<<psc__blocks(nthr, MSA_BLOCK), MSA_BLOCK, 0, d->stream>>>(nthr, s, G.ns, keys, m->start,
                                                                                     key0, slots, pre, tot);
      PSC_CHECK_LAUNCH();
      g1_msa_k_invert<<<psc__blocks(msa_invert_threads(nthr), MSA_BLOCK), MSA_BLOCK, 0,
                        d->stream>>>(nthr, tot);
      PSC_CHECK_LAUNCH();
      g1_msa_k_step_sum<<<psc__blocks(nthr, MSA_BLOCK), MSA_BLOCK, 0, d->stream>>>(nthr, s, G.ns, keys, m->start,
                                                                                    key0, slots, pre, tot);
      PSC_CHECK_LAUNCH();
    }
    g1_msa_k_finish<<<psc__blocks(key1 - key0, MSA_BLOCK), MSA_BLOCK, 0, d->stream>>>(
        (g1_xyzz_t *)m->buckets, slots, m->start, m->count, key0, key1);
    PSC_CHECK_LAUNCH();
  }
  if (ev) PSC_CHECK(cudaEventRecord(ev[0], d->stream));
  rc = g1_msm_reduce(d, m, sh, win, ev, e);
fail:
  return rc;
}

size_t g1_msm_affine_bytes(size_t n, unsigned nwin, unsigned nb) {
  msa_layout L;
  msa_layout_of(&L, n, msa_group_windows(n, nwin), nb, sizeof(g1_affine_t), sizeof(fp_t));
  return L.bytes;
}
#endif
