/* The group-specific MSM kernels, written once and included by msm.cu for G1 and for G2
 * with MK_AFF / MK_XYZZ (point types), MK_EC(x) (the point functions of ps_curves.cuh),
 * MK_FN(op) (the field's functions) and MK_K(x) (the kernel name prefix) set. */

/* Sums the points of each bucket: thread per (window, bucket); sorted[] holds, bucket by
 * bucket, point indices with bit 31 set when the digit was negative. */
__global__ void MK_K(bucket_sum)(MK_XYZZ *buckets, const uint32_t *__restrict__ sorted,
                                 const uint32_t *__restrict__ start, const uint32_t *__restrict__ count,
                                 const MK_AFF *__restrict__ bases, size_t nkeys) {
  size_t key = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (key >= nkeys) return;
  MK_XYZZ acc;
  MK_EC(set_inf)(&acc);
  uint32_t s = start[key], cnt = count[key];
  for (uint32_t i = 0; i < cnt; i++) {
    uint32_t v = sorted[s + i];
    MK_AFF a = bases[v & 0x7fffffffu];
    if (MK_EC(aff_is_inf)(&a)) continue;
    if (v >> 31) MK_FN(neg)(&a.y, &a.y);
    MK_EC(madd)(&acc, &a.x, &a.y);
  }
  buckets[key] = acc;
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
