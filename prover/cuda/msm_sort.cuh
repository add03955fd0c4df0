/* The MSM's digits and sort on the device, included once by msm.cu (whose host side
 * launches them): signed digits of the scalars, the counts of each bucket and their
 * scan, and the sort of the point words into bucket order, straight from the digits
 * (msm_scatter) or in two steps through groups of buckets (msm_group_stage, then
 * msm_group_place or msm_group_place_agg; the index arithmetic is msm_group.h's). The
 * bucket sums that read the sorted array are msm_kernels.cuh. */
#ifndef PROVESIM_MSM_SORT_CUH
#define PROVESIM_MSM_SORT_CUH

#include "msm_group.h"
#include "ps_curves.cuh"

/* ---- scalars to digits ---- */

/* Canonical scalars < 2^256 reduced mod r (r > 2^254, so at most two subtractions). */
__device__ __forceinline__ void msm_reduce_scalar(uint32_t *k) {
  for (int rep = 0; rep < 2; rep++) psf_reduce_once_8(k, k, c_fr_r.v);
}

__device__ __forceinline__ uint32_t msm_bits(const uint32_t *k, unsigned pos, unsigned c) {
  unsigned limb = pos >> 5, sh = pos & 31;
  uint64_t w = k[limb];
  if (limb + 1 < 8) w |= (uint64_t)k[limb + 1] << 32;
  return (uint32_t)(w >> sh) & ((1u << c) - 1);
}

/* Adds 1 to ctr[key] for each lane of the warp with `want` set and returns that lane's
 * old value of the counter, so the lanes of one key get consecutive values. All 32 lanes
 * call it. The lanes that share a key with the lowest waiting lane take one atomicAdd
 * between them, for up to 4 keys; the rest, and all lanes once a round finds a key held
 * by one lane only (distinct keys, as random scalars give), add one each. A Groth16
 * witness is mostly 0s and 1s, so about half the threads of an MSM add to the counter
 * of bucket 1 of window 0: one atomic per lane made 2^26 scalars take 26 ms in the
 * digits and as long in the scatter, 9 and 12 ms this way (docs/performance.md, "Witness
 * scalars: counts per warp, a compact combine tree"). */
__device__ __forceinline__ uint32_t msm_warp_inc(uint32_t *ctr, size_t key, bool want) {
  const unsigned lane = threadIdx.x & 31;
  unsigned left = __ballot_sync(0xffffffffu, want);
  uint32_t pos = 0;
  for (int round = 0; round < 4 && left; round++) {
    const unsigned lead = __ffs(left) - 1;
    const size_t k0 = __shfl_sync(0xffffffffu, key, lead);
    const unsigned same = __ballot_sync(0xffffffffu, want && key == k0) & left;
    uint32_t base = 0;
    if (lane == lead) base = atomicAdd(&ctr[k0], (uint32_t)__popc(same));
    base = __shfl_sync(0xffffffffu, base, lead);
    if ((same >> lane) & 1) pos = base + __popc(same & ((1u << lane) - 1));
    left &= ~same;
    if (__popc(same) == 1) break;
  }
  if ((left >> lane) & 1) pos = atomicAdd(&ctr[key], 1u);
  return pos;
}

/* msm_warp_inc for the counts only, where no lane needs its position: the same
 * aggregation, but the atomics return nothing (reductions that do not wait for the
 * memory's answer; the witness's rounds waited for it one after another). */
__device__ __forceinline__ void msm_warp_add(uint32_t *ctr, size_t key, bool want) {
  const unsigned lane = threadIdx.x & 31;
  unsigned left = __ballot_sync(0xffffffffu, want);
  for (int round = 0; round < 4 && left; round++) {
    const unsigned lead = __ffs(left) - 1;
    const size_t k0 = __shfl_sync(0xffffffffu, key, lead);
    const unsigned same = __ballot_sync(0xffffffffu, want && key == k0) & left;
    if (lane == lead) atomicAdd(&ctr[k0], (uint32_t)__popc(same));
    left &= ~same;
    if (__popc(same) == 1) break;
  }
  if ((left >> lane) & 1) atomicAdd(&ctr[key], 1u);
}

/* The signed c-bit digits of a reduced scalar, window by window: msm_digit_next gives
 * window w's (bucket | sign << 31, bucket 0 = no point) given the carry out of w - 1. */
__device__ __forceinline__ uint32_t msm_digit_next(const uint32_t *k, unsigned w, unsigned c, uint32_t *carry) {
  const uint32_t half = 1u << (c - 1);
  const unsigned pos = w * c;
  uint32_t raw = (pos < 256 ? msm_bits(k, pos, c) : 0) + *carry;
  if (raw > half) {
    *carry = 1;
    return ((1u << c) - raw) | 0x80000000u;
  }
  *carry = 0;
  return raw;
}

/* Scalar i of lo <= i < hi, reduced, in *s; 0 for a thread past hi. */
__device__ __forceinline__ bool msm_load_scalar(fr_t *s, const fr_t *__restrict__ scalars, size_t i, size_t hi) {
  if (i < hi) {
    *s = scalars[i];
    msm_reduce_scalar(s->v);
    return true;
  }
  memset(s, 0, sizeof *s);
  return false;
}

/* The sorted array's key of window w's digit with bucket b >= 1: merged windows share
 * one set of nb buckets (precomputed bases), else window w has its own. */
__device__ __forceinline__ size_t msm_key(unsigned w, uint32_t b, unsigned nb, int merged) {
  return (merged ? 0 : (size_t)w * nb) + b - 1;
}

/* The point word the sorted array holds: the point's index in the tables (merged: table w
 * of `stride` points) or among the bases, and the digit's sign in bit 31. */
__device__ __forceinline__ uint32_t msm_point_word(uint32_t d, unsigned w, size_t i, size_t stride) {
  return (uint32_t)(stride ? stride * w + i : i) | (d & 0x80000000u);
}

/* Thread per scalar i of lo <= i < hi (of n): signed digits for all windows; count[key]
 * += 1 for each nonzero digit; with digit, digit[w*n+i] = the digit; with gcnt (this
 * piece's counts of the sort's groups, msm_group.h; ngroups words of dynamic shared
 * memory), gcnt[key >> gshift] += 1. Blocks are whole warps and every lane stays to the
 * end (msm_warp_add). */
__global__ void msm_digits(uint32_t *digit, uint32_t *count, uint32_t *gcnt, const fr_t *__restrict__ scalars,
                           size_t lo, size_t hi, size_t n, unsigned c, unsigned nwin, int merged, unsigned gshift,
                           unsigned ngroups) {
  extern __shared__ uint32_t s_grp[];
  if (gcnt) {
    for (unsigned g = threadIdx.x; g < ngroups; g += blockDim.x) s_grp[g] = 0;
    __syncthreads();
  }
  const size_t i = lo + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  fr_t s;
  const bool in = msm_load_scalar(&s, scalars, i, hi);
  const unsigned nb = 1u << (c - 1);
  uint32_t carry = 0;
  for (unsigned w = 0; w < nwin; w++) {
    const uint32_t out = msm_digit_next(s.v, w, c, &carry), b = out & 0x7fffffffu;
    if (in && digit) digit[(size_t)w * n + i] = out;
    const size_t key = b ? msm_key(w, b, nb, merged) : 0;
    msm_warp_add(count, key, b != 0);
    if (gcnt) msm_warp_add(s_grp, key >> gshift, b != 0);
  }
  if (gcnt) {
    __syncthreads();
    for (unsigned g = threadIdx.x; g < ngroups; g += blockDim.x)
      if (s_grp[g]) atomicAdd(&gcnt[g], s_grp[g]);
  }
}

/* Scatter of point indices into bucket order straight from the digits (n * nwin of them).
 * With merged windows (precomputed bases, `stride` points per table) the point of window
 * w is stride * w + i in the tables. Every lane stays to the end (msm_warp_inc). */
__global__ void msm_scatter(uint32_t *sorted, uint32_t *cursor, const uint32_t *__restrict__ digit,
                            size_t n, unsigned nb, unsigned nwin, size_t stride) {
  size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const bool in = id < n * nwin;
  size_t w = in ? id / n : 0, i = in ? id % n : 0;
  uint32_t d = in ? digit[id] : 0, b = d & 0x7fffffffu;
  uint32_t pos = msm_warp_inc(cursor, b ? msm_key((unsigned)w, b, nb, stride != 0) : 0, b != 0);
  if (b) sorted[pos] = msm_point_word(d, (unsigned)w, i, stride);
}

/* One warp: out[j] = base + the sum of the run lengths before j (msm_group_run_len over
 * `pieces` pieces of m / pieces groups; pieces 1: in[0..m) in order), out2 (if any) the
 * same, and with_total out[m] = base + the sum of all m. */
__global__ void msm_group_scan(uint32_t *out, uint32_t *out2, const uint32_t *__restrict__ in, unsigned m,
                               unsigned pieces, uint32_t base, int with_total) {
  const unsigned lane = threadIdx.x, per = (m + 31) / 32, a = lane * per, z = a + per < m ? a + per : m;
  const unsigned ng = m / pieces;
  uint32_t sum = 0;
  for (unsigned j = a; j < z; j++) sum += msm_group_run_len(in, j, pieces, ng);
  uint32_t run = sum;
  for (unsigned d = 1; d < 32; d <<= 1) {
    const uint32_t v = __shfl_up_sync(0xffffffffu, run, d);
    if (lane >= d) run += v;
  }
  const uint32_t total = __shfl_sync(0xffffffffu, run, 31);
  run = base + run - sum; /* exclusive */
  for (unsigned j = a; j < z; j++) {
    out[j] = run;
    if (out2) out2[j] = run;
    run += msm_group_run_len(in, j, pieces, ng);
  }
  if (with_total && lane == 0) out[m] = base + total;
}

/* The sort's first step (msm_group.h) for scalars lo <= i < hi, thread per scalar: each
 * nonzero digit's point word to stage[], its key's low gshift bits to klo[], at its
 * group's cursor gcur[key >> gshift] (this piece's, from msm_group_scan), the block
 * taking one range of each group between its threads. ngroups words of dynamic shared
 * memory. Every lane stays to the end (msm_warp_add, msm_warp_inc). */
__global__ void msm_group_stage(uint32_t *stage, uint16_t *klo, uint32_t *gcur, const fr_t *__restrict__ scalars,
                                size_t lo, size_t hi, unsigned c, unsigned nwin, int merged, size_t stride,
                                unsigned gshift, unsigned ngroups) {
  extern __shared__ uint32_t s_grp[];
  for (unsigned g = threadIdx.x; g < ngroups; g += blockDim.x) s_grp[g] = 0;
  __syncthreads();
  const size_t i = lo + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  fr_t s;
  msm_load_scalar(&s, scalars, i, hi);
  const unsigned nb = 1u << (c - 1);
  uint32_t carry = 0;
  for (unsigned w = 0; w < nwin; w++) { /* the block's count of each group */
    const uint32_t b = msm_digit_next(s.v, w, c, &carry) & 0x7fffffffu;
    msm_warp_add(s_grp, b ? msm_key(w, b, nb, merged) >> gshift : 0, b != 0);
  }
  __syncthreads();
  for (unsigned g = threadIdx.x; g < ngroups; g += blockDim.x)
    if (s_grp[g]) s_grp[g] = atomicAdd(&gcur[g], s_grp[g]); /* the block's range of group g */
  __syncthreads();
  carry = 0;
  for (unsigned w = 0; w < nwin; w++) {
    const uint32_t d = msm_digit_next(s.v, w, c, &carry), b = d & 0x7fffffffu;
    const size_t key = b ? msm_key(w, b, nb, merged) : 0;
    const uint32_t pos = msm_warp_inc(s_grp, key >> gshift, b != 0);
    if (b) {
      stage[pos] = msm_point_word(d, w, i, stride);
      klo[pos] = (uint16_t)(key & ((1u << gshift) - 1));
    }
  }
}

/* The sort's second step, thread per staged point t in run order (tab: nruns + 1 starts,
 * msm_group_scan, searched once a block; start: each run's first staged position,
 * piece-major like the counts):
 * sorted[cursor[key]++] = its word. `limit` threads at most; those from tab[nruns] on
 * only keep the warp whole (msm_warp_inc). */
__global__ void msm_group_place(uint32_t *sorted, uint32_t *cursor, const uint32_t *__restrict__ stage,
                                const uint16_t *__restrict__ klo, const uint32_t *__restrict__ tab,
                                const uint32_t *__restrict__ start, unsigned pieces, unsigned ngroups,
                                unsigned gshift, size_t limit) {
  __shared__ unsigned s_run;
  const size_t t0 = (size_t)blockIdx.x * blockDim.x, t = t0 + threadIdx.x;
  const unsigned nruns = pieces * ngroups;
  const size_t total = tab[nruns];
  const bool in = t < limit && t < total;
  if (threadIdx.x == 0) s_run = t0 < total ? msm_group_run(tab, nruns, (uint32_t)t0) : 0;
  __syncthreads();
  uint32_t word = 0;
  size_t key = 0;
  if (in) {
    const unsigned r = msm_group_run_from(tab, s_run, (uint32_t)t), g = r / pieces;
    const size_t at = msm_group_run_at(tab, start, r, pieces, ngroups, t);
    word = stage[at];
    key = ((size_t)g << gshift) | klo[at];
  }
  const uint32_t pos = msm_warp_inc(cursor, key, in);
  if (in) sorted[pos] = word;
}

/* The sort's second step a block at a time (msm_group.h, msm_agg_span): a block of T
 * threads takes MSM_AGG_PER * T consecutive positions of the run order, ranks its points
 * per key on CAP counters in shared memory, takes each key's places with one atomic on its
 * global cursor, and writes each point at its key's base plus its rank. With narrow groups
 * a key has several points in a block, so the global atomics are fewer and each key's
 * points land side by side. A block whose positions span more keys than CAP places its
 * points one at a time on the global cursors. Every lane stays to the end
 * (msm_warp_inc). msm_agg_launch picks the instance for a block size. */
#define MSM_AGG_PER 16
template <unsigned T, unsigned CAP>
__global__ void __launch_bounds__(T)
    msm_group_place_agg(uint32_t *sorted, uint32_t *cursor, const uint32_t *__restrict__ stage,
                        const uint16_t *__restrict__ klo, const uint32_t *__restrict__ tab,
                        const uint32_t *__restrict__ start, unsigned pieces, unsigned ngroups, unsigned gshift) {
  __shared__ uint32_t s_cnt[CAP];
  __shared__ unsigned s_r0, s_r1;
  const unsigned nruns = pieces * ngroups;
  const size_t total = tab[nruns], t0 = (size_t)blockIdx.x * (T * MSM_AGG_PER);
  if (t0 >= total) return; /* the whole block */
  const size_t t1 = t0 + T * MSM_AGG_PER < total ? t0 + T * MSM_AGG_PER : total;
  if (threadIdx.x == 0) {
    s_r0 = msm_group_run(tab, nruns, (uint32_t)t0);
    s_r1 = msm_group_run_in(tab, s_r0, nruns - 1, (uint32_t)(t1 - 1));
  }
  __syncthreads();
  const unsigned r0 = s_r0, r1 = s_r1, g0 = r0 / pieces;
  const size_t span = msm_agg_span(r0, r1, pieces, gshift);
  const bool agg = span <= CAP;
  uint32_t word[MSM_AGG_PER], lk[MSM_AGG_PER], rank[MSM_AGG_PER];
  if (agg) {
    for (size_t j = threadIdx.x; j < span; j += T) s_cnt[j] = 0;
    __syncthreads();
  }
#pragma unroll
  for (unsigned i = 0; i < MSM_AGG_PER; i++) {
    const size_t t = t0 + i * T + threadIdx.x;
    const bool in = t < t1;
    word[i] = 0, lk[i] = 0;
    size_t key = 0;
    if (in) {
      const unsigned r = msm_group_run_in(tab, r0, r1, (uint32_t)t), g = r / pieces;
      const size_t at = msm_group_run_at(tab, start, r, pieces, ngroups, t);
      word[i] = stage[at];
      lk[i] = ((g - g0) << gshift) | klo[at];
      key = ((size_t)g << gshift) | klo[at];
    }
    if (agg) {
      rank[i] = msm_warp_inc(s_cnt, lk[i], in);
    } else {
      const uint32_t pos = msm_warp_inc(cursor, key, in);
      if (in) sorted[pos] = word[i];
    }
  }
  if (!agg) return; /* the whole block */
  __syncthreads();
  for (size_t j = threadIdx.x; j < span; j += T) {
    const uint32_t c = s_cnt[j];
    if (c) s_cnt[j] = atomicAdd(&cursor[((size_t)g0 << gshift) + j], c);
  }
  __syncthreads();
#pragma unroll
  for (unsigned i = 0; i < MSM_AGG_PER; i++)
    if (t0 + i * T + threadIdx.x < t1) sorted[s_cnt[lk[i]] + rank[i]] = word[i];
}

/* Queues msm_group_place_agg for n positions with blocks of `threads` (256: 4,096
 * counters; 512 or 1,024: 8,192). */
static void msm_agg_launch(unsigned threads, size_t n, cudaStream_t st, uint32_t *sorted, uint32_t *cursor,
                           const uint32_t *stage, const uint16_t *klo, const uint32_t *tab, const uint32_t *start,
                           unsigned pieces, unsigned ngroups, unsigned gshift) {
  const unsigned blocks = (unsigned)((n + (size_t)threads * MSM_AGG_PER - 1) / ((size_t)threads * MSM_AGG_PER));
  if (threads == 1024)
    msm_group_place_agg<1024, 8192><<<blocks, 1024, 0, st>>>(sorted, cursor, stage, klo, tab, start, pieces, ngroups,
                                                            gshift);
  else if (threads == 512)
    msm_group_place_agg<512, 8192><<<blocks, 512, 0, st>>>(sorted, cursor, stage, klo, tab, start, pieces, ngroups,
                                                          gshift);
  else
    msm_group_place_agg<256, 4096><<<blocks, 256, 0, st>>>(sorted, cursor, stage, klo, tab, start, pieces, ngroups,
                                                          gshift);
}

/* Exclusive scan of m counts in three steps: per-thread chunk sums, a one-block scan of
 * those, per-thread chunk rescans. */
#define SCAN_THREADS 1024
#define SCAN_CHUNKS (64 * SCAN_THREADS)
__global__ void scan_chunk_sums(uint32_t *part, const uint32_t *in, size_t m, size_t chunk) {
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= SCAN_CHUNKS) return;
  uint32_t s = 0;
  for (size_t i = t * chunk; i < (t + 1) * chunk && i < m; i++) s += in[i];
  part[t] = s;
}
__global__ void scan_parts(uint32_t *part) {
  __shared__ uint32_t sh[SCAN_THREADS];
  const unsigned per = SCAN_CHUNKS / SCAN_THREADS, t = threadIdx.x;
  uint32_t s = 0;
  for (unsigned i = 0; i < per; i++) s += part[t * per + i];
  sh[t] = s;
  __syncthreads();
  for (unsigned d = 1; d < SCAN_THREADS; d <<= 1) {
    uint32_t v = t >= d ? sh[t - d] : 0;
    __syncthreads();
    sh[t] += v;
    __syncthreads();
  }
  uint32_t run = sh[t] - s; /* exclusive */
  for (unsigned i = 0; i < per; i++) {
    uint32_t x = part[t * per + i];
    part[t * per + i] = run;
    run += x;
  }
}
__global__ void scan_apply(uint32_t *out, uint32_t *out2, const uint32_t *in, const uint32_t *part,
                           size_t m, size_t chunk) {
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= SCAN_CHUNKS) return;
  uint32_t run = part[t];
  for (size_t i = t * chunk; i < (t + 1) * chunk && i < m; i++) {
    out[i] = run;
    out2[i] = run;
    run += in[i];
  }
}

#endif
