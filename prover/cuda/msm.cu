/* Pippenger MSM on G1 and G2 on the GPU. Scalars (canonical, reduced mod r here) are cut
 * into W = ceil(256/c) signed c-bit digits, so each window has 2^(c-1) buckets. The
 * (window, bucket, point) triples are sorted by bucket with a counting sort (histogram,
 * scan, scatter, the scatter in two steps over precomputed bases, msm_group.h; the lanes
 * of a warp that share a bucket take one atomic between them, since a witness of 0s and
 * 1s sends half the points to one bucket); then the sorted
 * array is cut into chunks of MSM_CHUNK positions, a thread sums a chunk with mixed XYZZ
 * additions (so a bucket of a million points, as such a witness makes, is spread over
 * many threads), the parts of buckets that cross chunks are combined by a segmented tree
 * reduction, buckets are reduced per window (segment running sums, then merges of
 * segments in shared memory), and the W window sums are combined on the host (Horner),
 * where one thread is faster than one GPU thread. Bases stay on the device between calls.
 * This file holds the host side; the digits and the sort are msm_sort.cuh, included here,
 * and the bucket stage is msm_kernels.cuh, compiled once per group in msm_g1.cu and
 * msm_g2.cu (msm_int.cuh joins them). */
#include <stdlib.h>
#include <string.h>

#include "msm_int.cuh"
#include "msm_sort.cuh"
#include "ps_curves.cuh"
#include "psc_wins.h"

extern "C" {
#include "../curve.h"
#include "../tune.h"
}
#include "../msm.h" /* MSM_MAX_WINDOW */

/* ---- the scalars' sample (msm_window_for) ---- */

/* Counts, among m scalars spaced `stride` apart, those other than 0 and 1 (msm_window_for):
 * block sums, one atomic a block. */
__global__ void msm_sample_dense(uint32_t *out, const fr_t *__restrict__ s, size_t stride, unsigned m) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  int dense = 0;
  if (t < m) {
    const fr_t x = s[(size_t)t * stride];
    uint32_t hi = 0;
    for (int j = 1; j < 8; j++) hi |= x.v[j];
    dense = hi != 0 || x.v[0] > 1;
  }
  const int c = __syncthreads_count(dense);
  if (threadIdx.x == 0 && c) atomicAdd(out, (uint32_t)c);
}

/* ---- host side ---- */
#include <stdio.h>

/* msm_gpu_window (msm.h) says why. */
extern "C" unsigned psc_msm_default_window(int g2, size_t n) { return msm_gpu_window(g2, n); }

extern "C" int psc_bases_upload(psc_dev *d, int g2, const void *head, size_t nhead, const void *bases, size_t n,
                                psc_bases **out, ps_err *e) {
  int rc = PS_OK;
  size_t sz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  psc_bases *b = (psc_bases *)xcalloc(1, sizeof *b);
  *out = NULL;
  if (n + nhead >= 0x80000000u) {
    rc = ps_fail(e, PS_EINPUT, "MSM of %zu points: at most 2^31 - 1 points per call", n + nhead);
    goto fail;
  }
  b->dev = d;
  b->g2 = g2;
  b->n = nhead + n;
  PSC_CHECK(cudaSetDevice(d->ordinal));
  if ((rc = psc__alloc(d, &b->d_bases, b->n * sz, g2 ? "MSM bases (G2)" : "MSM bases (G1)", e))) goto fail;
  if (nhead) PSC_CHECK(cudaMemcpy(b->d_bases, head, nhead * sz, cudaMemcpyHostToDevice));
  PSC_CHECK(cudaMemcpy((char *)b->d_bases + nhead * sz, bases, n * sz, cudaMemcpyHostToDevice));
  *out = b;
  return PS_OK;
fail:
  if (b->d_bases) cudaFree(b->d_bases);
  free(b);
  return rc;
}

extern "C" int psc_bases_precompute(psc_bases *b, unsigned c, ps_err *e) {
  int rc = PS_OK;
  psc_dev *d = b->dev;
  const unsigned nwin = (256 + c - 1) / c;
  const size_t sz = b->g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  if (c < 2 || c > MSM_MAX_WINDOW)
    return ps_fail(e, PS_EINPUT, "MSM precomputation window %u: expected 2..%d bits", c, MSM_MAX_WINDOW);
  if ((size_t)nwin * b->n >= 0x80000000u)
    return ps_fail(e, PS_EINPUT, "MSM precomputation: %u tables of %zu points exceed 2^31 - 1 points", nwin, b->n);
  PSC_CHECK(cudaSetDevice(d->ordinal));
  cudaFree(b->d_pre);
  b->d_pre = NULL;
  b->pre_c = b->pre_nwin = 0;
  if ((rc = psc__alloc(d, &b->d_pre, (size_t)nwin * b->n * sz, "precomputed MSM bases", e))) return rc;
  PSC_CHECK(cudaMemcpyAsync(b->d_pre, b->d_bases, b->n * sz, cudaMemcpyDeviceToDevice, d->stream));
  if ((rc = (b->g2 ? g2_msm_precompute : g1_msm_precompute)(d, b, c, nwin, e))) goto fail;
  b->pre_c = c;
  b->pre_nwin = nwin;
  return PS_OK;
fail:
  cudaFree(b->d_pre);
  b->d_pre = NULL;
  return rc;
}

extern "C" void psc_bases_free(psc_bases *b) {
  if (!b) return;
  cudaSetDevice(b->dev->ordinal);
  cudaFree(b->d_pre);
  cudaFree(b->d_bases);
  free(b);
}

extern "C" size_t psc_bases_count(const psc_bases *b) { return b->n; }

/* log2 of the segments per window of 2^log_nb buckets in the bucket reduction, a thread
 * each: 2^10, or 2^16 when one set of buckets serves every window (precomputed bases: few
 * windows of buckets but many buckets); above 2^15 buckets per window, segments of 32
 * buckets (windows over 16 bits: 2^10 segments of 2^(c-11) buckets left too few threads
 * running too long serial chains); from 2^13 to 2^15 buckets, segments of 8. At 16-bit
 * windows, 2^10 segments of 32 buckets made G2's segment sums 2^14 threads long enough to
 * take 7.5 ms in some processes and 9.2 ms in others on the H200; 2^12 segments of 8 take
 * 4.9 ms in every run (docs/data/kernels/seg/). prover/groth16.c's msm_slots mirrors it. */
static unsigned msm_log_segments(unsigned log_nb, int merged) {
  const unsigned lmax = merged ? 16 : log_nb > 15 ? log_nb - 5 : log_nb > 12 ? log_nb - 3 : 10;
  return log_nb < lmax ? log_nb : lmax;
}

/* Host scalars of an MSM of at least MSM_UPLOAD_MIN_N points go up in pieces, each
 * piece's digits beside the next piece's copy (msm_enqueue): MSM_UPLOAD_CHUNKS, or from
 * MSM_UPLOAD_BIG_N points MSM_UPLOAD_CHUNKS_BIG, so that the last piece's work, which
 * nothing hides, is smaller. On the H200 (docs/performance.md, "The second step in bigger
 * blocks"), MSM G1 over precomputed bases took 99.5 ms at 2^24 (window 22) in 16 pieces
 * against 99.9 in 8, but 9.45 ms at 2^20 (window 16) against 9.25; over plain bases 2^20 to
 * 2^22 the two were level. PSC_MSM_PIECES overrides. */
#define MSM_UPLOAD_CHUNKS 8
#define MSM_UPLOAD_CHUNKS_BIG 16
#define MSM_UPLOAD_BIG_N ((size_t)1 << 23)
#define MSM_UPLOAD_MIN_N ((size_t)1 << 20)

/* The grouped sort's second step a block at a time (msm_group_place_agg, blocks of
 * MSM_AGG_THREADS_DEFAULT threads, groups of 2^12 keys), not a point at a time: on the H200
 * MSM G1 2^24 over bases precomputed for window 22 took 99.9 ms against 101.6 (blocks of
 * 512; 100.4 with 256, 100.2 with 1,024; docs/performance.md, "The second step in bigger
 * blocks"). */
#define MSM_PLACE_AGG_DEFAULT 1
#define MSM_AGG_THREADS_DEFAULT 512

/* Work-buffer slots of psc_dev used by the MSM. */
enum { WS_SCALARS, WS_DIGIT, WS_SORTED, WS_COUNT, WS_START, WS_CURSOR, WS_PART, WS_BUCKETS,
       WS_SEG_ACC, WS_SEG_SUM, WS_PARTS, WS_HEAD };
/* The batch-affine bucket sums' buffer: the last slot, which psc_int.cuh leaves free. */
#define WS_AFFINE (PSC_WS_SLOTS - 1)

/* The batch-affine bucket sums (msm_affine.h) by default: 0 never; else for G1 MSMs of at
 * least MSM_AFFINE_MIN_N points over plain bases, 1 whatever the scalars, 2 when most of
 * them are other than 0 and 1. PSC_MSM_AFFINE (msm_env_affine) overrides it. Never, as
 * measured on the H200 (docs/performance.md, "Batch-affine bucket sums"): G1 2^24 took
 * 204.2 ms against 152.7 with XYZZ, 2^26 720.5 against 543.4, and a 2^26 partition 1.378 s
 * of GPU time with the H MSM affine against 1.203 s. psc_msm_work_bytes counts the
 * affine buffer only when this is on. */
#define MSM_AFFINE_DEFAULT 0
#define MSM_AFFINE_MIN_N ((size_t)1 << 22)

/* The words of the scan's slot: the scan's parts, then the grouped sort's counts, run
 * starts and cursors of `pieces` pieces of ngroups groups, and its run table. */
static size_t msm_part_words(unsigned pieces, unsigned ngroups) {
  return SCAN_CHUNKS + 4 * (size_t)pieces * ngroups + 1;
}

/* The grouped sort's groups (msm_group.h) over plain bases at window c, by default (one
 * set of buckets, over precomputed bases, has fewer). */
static unsigned msm_ngroups(unsigned c) {
  const size_t nkeys = (size_t)((256 + c - 1) / c) << (c - 1);
  return msm_group_count(nkeys, msm_group_shift_default(nkeys, MSM_PLACE_AGG_DEFAULT));
}

/* msm_enqueue's slots for n points of psz bytes in buckets at window c (plain bases):
 * digits and sorted digits, counts/offsets/cursors, buckets, segments, bucket parts. */
static void msm_slot_bytes(size_t n, unsigned c, size_t psz, size_t out[5]) {
  const unsigned nwin = (256 + c - 1) / c, nb = 1u << (c - 1), log_nb = c - 1;
  const size_t nkeys = (size_t)nwin * nb, nchunks = (n * nwin + MSM_CHUNK - 1) / MSM_CHUNK;
  const size_t nseg = (size_t)1 << msm_log_segments(log_nb, 0);
  out[0] = 2 * n * nwin * sizeof(uint32_t);
  out[1] = 3 * nkeys * sizeof(uint32_t);
  out[2] = nkeys * psz;
  out[3] = 4 * nwin * nseg * psz;
  out[4] = nchunks * (psz + sizeof(uint32_t));
}

/* The work buffers msm_enqueue keeps in d's slots after MSMs of up to n device-resident
 * scalars in G2 with window c and in G1 with window c or G1's own for n points (dense
 * scalars: msm_window), no precomputed bases: each slot at the larger of what the two
 * ask psc__ws for. */
extern "C" size_t psc_msm_work_bytes(size_t n, unsigned c) {
  const unsigned c1 = psc_msm_default_window(0, n), ga = msm_ngroups(c), gb = msm_ngroups(c1);
  size_t a[5], b[5], sum = msm_part_words(1, ga > gb ? ga : gb) * sizeof(uint32_t);
  msm_slot_bytes(n, c, sizeof(g2_xyzz_t), a);
  msm_slot_bytes(n, c1, sizeof(g1_xyzz_t), b);
  for (int i = 0; i < 5; i++) sum += a[i] > b[i] ? a[i] : b[i];
  if (MSM_AFFINE_DEFAULT && n >= MSM_AFFINE_MIN_N) {
    sum += g1_msm_affine_bytes(n, (256 + c1 - 1) / c1, 1u << (c1 - 1));
  }
  return sum;
}

/* The sort's settings: grouped (msm_group.h) or straight from the digits (msm_scatter),
 * and log2 of the grouped sort's groups (at least). */
typedef struct {
  int grouped;
  int log_groups; /* PSC_MSM_LOG_GROUPS, or -1: msm_group_shift_default */
  int agg;              /* the second step a block at a time (msm_group_place_agg) */
  unsigned agg_threads; /* its block size: 256, 512 or 1024 */
  unsigned pieces;      /* the pieces host scalars go up in, or 0: by their number */
  int seg_staged;       /* not the sort's: the reduction's segment sums staged (PSC_MSM_SEGSUM) */
} msm_sort_opts;

/* The sort's settings for an MSM (merged: one set of buckets over precomputed bases): the
 * grouped sort over precomputed bases, whose 2^(c-1) buckets it sorts into faster (at c =
 * 22 and 2^24 points in 5.6 ms against 12.2), the direct one over plain bases (at c = 17
 * the two take 7.1 ms, and a 2^26 partition's GPU time was 0.5% more grouped), as measured
 * on the H200 (docs/performance.md, "The MSM's sort in two steps"); for tuning,
 * PSC_MSM_SORT (auto, grouped or direct), PSC_MSM_LOG_GROUPS (log2 of the groups, at
 * least), PSC_MSM_PLACE (agg: the second step a block at a time, the default; point: a
 * point at a time), PSC_MSM_AGG_THREADS (its block: 256, 512 or 1024 threads) and
 * PSC_MSM_PIECES (the pieces host scalars go up in, 1 to 64). */
static int msm_env_sort(int merged, msm_sort_opts *o, ps_err *e) {
  ps_tune t;
  const int rc = ps_tune_read(&t, e);
  o->grouped = t.msm_sort < 0 ? merged : t.msm_sort;
  o->log_groups = t.msm_log_groups;
  o->agg = t.msm_place < 0 ? MSM_PLACE_AGG_DEFAULT : t.msm_place;
  o->agg_threads = t.msm_agg_threads ? (unsigned)t.msm_agg_threads : MSM_AGG_THREADS_DEFAULT;
  o->pieces = (unsigned)t.msm_pieces;
  o->seg_staged = t.msm_segsum == 1;
  return rc;
}

/* Queues one MSM (n > 0) on d's stream, up to the copy of its window sums into win (host
 * memory with room for ceil(256/c) windows); *nwin_out = the windows copied. scalars:
 * host memory (uploaded here) or, with on_dev, device memory. sorted: the digits, counts
 * and sorted array in d's slots are those of the same device scalars, n, window and bucket
 * layout (psc_sort_key: msm_wins), so they serve this one as they are, and the upload,
 * digits, scan and scatter are skipped. Otherwise the sort made here becomes d->sort's
 * with key (gen 0, or key NULL: one no later batch may take). ph (NULL, or 8 events)
 * marks the phase boundaries for PSC_MSM_PROFILE. */
static int msm_enqueue(psc_dev *d, psc_bases *b, const fr_t *scalars, int on_dev, int sorted, const psc_sort_key *key,
                       int affine, size_t n, unsigned c, void *win, unsigned *nwin_out, cudaEvent_t *ph, ps_err *e) {
  int rc = PS_OK;
  msm_bufs m;
  const int g2 = b->g2;
  const size_t psz = g2 ? sizeof(g2_xyzz_t) : sizeof(g1_xyzz_t);
  const unsigned nwin = (256 + c - 1) / c, nb = 1u << (c - 1);
  /* Precomputed bases for this window: every window's digits go to one set of buckets. */
  const int merged = b->d_pre && b->pre_c == c;
  const unsigned nwin_b = merged ? 1 : nwin; /* windows of buckets */
  const size_t nkeys = (size_t)nwin_b * nb;
  /* Chunks over the largest possible sorted array (every digit nonzero). */
  const size_t nchunks = (n * nwin + MSM_CHUNK - 1) / MSM_CHUNK;
  const unsigned log_nb = c - 1, log_nseg = msm_log_segments(log_nb, merged);
  const unsigned nseg = 1u << log_nseg, log_lseg = log_nb - log_nseg;
  const int aff = affine && !g2 && !merged; /* batch-affine bucket sums (msm_affine.h) */
  void *final_acc = NULL;
  m.aff = NULL;
  /* Host scalars go up on the copy stream in pieces (MSM_UPLOAD_CHUNKS), and each piece's
   * digits and first sort step run as soon as it has landed, beside the next pieces'
   * copies (the profile's "digits" then includes the upload). */
  msm_sort_opts so;
  if ((rc = msm_env_sort(merged, &so, e))) return rc;
  const msm_shape shape = {nwin_b, nb, log_nseg, log_lseg, nkeys, nchunks, so.seg_staged};
  const int grouped = so.grouped;
  const unsigned pieces = on_dev || n < MSM_UPLOAD_MIN_N ? 1
                         : so.pieces                   ? so.pieces
                         : n >= MSM_UPLOAD_BIG_N       ? MSM_UPLOAD_CHUNKS_BIG
                                                       : MSM_UPLOAD_CHUNKS;
  const unsigned gshift = so.log_groups >= 0 ? msm_group_shift(nkeys, (unsigned)so.log_groups)
                                             : msm_group_shift_default(nkeys, so.agg),
                 ngroups = msm_group_count(nkeys, gshift);
  cudaEvent_t *landed = NULL;
  /* The grouped sort's small arrays (msm_group.h), after the scan's parts (m.part, set
   * below): each piece's counts of the groups, its runs' starts and cursors, then the run
   * table; the low bits of the keys in m.parts, free until the bucket sums (3 bytes or more
   * a digit). */
  uint32_t *gcnt = NULL, *gstart = NULL, *gcur = NULL, *gtab = NULL;
  uint16_t *klo = NULL;
  const size_t gshm = grouped ? ngroups * sizeof(uint32_t) : 0;
  if (!sorted) d->sort.gen = 0; /* the slots below are this MSM's now; its key once the scatter is queued */
#define PH(i) \
  if (ph) PSC_CHECK(cudaEventRecord(ph[i], d->stream))
  PSC_CHECK(cudaSetDevice(d->ordinal));
  if (on_dev) m.scalars = (fr_t *)scalars;
  else if ((rc = psc__ws(d, WS_SCALARS, n * sizeof(fr_t), "MSM scalars", (void **)&m.scalars, e))) goto fail;
  if ((rc = psc__ws(d, WS_DIGIT, n * nwin * sizeof(uint32_t), "MSM digits", (void **)&m.digit, e))) goto fail;
  if ((rc = psc__ws(d, WS_SORTED, n * nwin * sizeof(uint32_t), "MSM sorted digits", (void **)&m.sorted, e))) goto fail;
  if ((rc = psc__ws(d, WS_COUNT, nkeys * sizeof(uint32_t), "MSM bucket counts", (void **)&m.count, e))) goto fail;
  if ((rc = psc__ws(d, WS_START, nkeys * sizeof(uint32_t), "MSM bucket offsets", (void **)&m.start, e))) goto fail;
  if ((rc = psc__ws(d, WS_CURSOR, nkeys * sizeof(uint32_t), "MSM bucket cursors", (void **)&m.cursor, e))) goto fail;
  /* The scan's parts, then the grouped sort's counts, run starts, cursors and run table. */
  if ((rc = psc__ws(d, WS_PART, msm_part_words(pieces, ngroups) * sizeof(uint32_t), "MSM scan", (void **)&m.part, e)))
    goto fail;
  if ((rc = psc__ws(d, WS_BUCKETS, nkeys * psz, "MSM buckets", &m.buckets, e))) goto fail;
  if ((rc = psc__ws(d, WS_SEG_ACC, 2 * (size_t)nwin_b * nseg * psz, "MSM segments", &m.seg_acc, e))) goto fail;
  if ((rc = psc__ws(d, WS_SEG_SUM, 2 * (size_t)nwin_b * nseg * psz, "MSM segments", &m.seg_sum, e))) goto fail;
  if ((rc = psc__ws(d, WS_PARTS, nchunks * psz, "MSM bucket parts", &m.parts, e))) goto fail;
  if ((rc = psc__ws(d, WS_HEAD, nchunks * sizeof(uint32_t), "MSM bucket part keys", (void **)&m.head, e)))
    goto fail;
  if (aff && (rc = psc__ws(d, WS_AFFINE, g1_msm_affine_bytes(n, nwin, nb), "MSM batch-affine bucket sums", &m.aff, e)))
    goto fail;
  gcnt = m.part + SCAN_CHUNKS, gstart = gcnt + (size_t)pieces * ngroups, gcur = gstart + (size_t)pieces * ngroups;
  gtab = gcur + (size_t)pieces * ngroups;
  klo = (uint16_t *)m.parts;

  PH(0);
  if (!sorted && grouped) PSC_CHECK(cudaMemsetAsync(gcnt, 0, (size_t)pieces * ngroups * sizeof(uint32_t), d->stream));
  if (!sorted && !on_dev) {
    /* All pieces go up at once on the copy stream, after d's earlier work (which may
     * still read the slot); landed[q] marks piece q's arrival, landed[pieces] the start. */
    landed = (cudaEvent_t *)xcalloc(pieces + 1, sizeof *landed);
    for (unsigned q = 0; q <= pieces; q++) PSC_CHECK(cudaEventCreateWithFlags(&landed[q], cudaEventDisableTiming));
    PSC_CHECK(cudaEventRecord(landed[pieces], d->stream));
    PSC_CHECK(cudaStreamWaitEvent(d->copy_stream, landed[pieces], 0));
    for (unsigned q = 0; q < pieces; q++) {
      const size_t lo = n * q / pieces, hi = n * (q + 1) / pieces;
      PSC_CHECK(cudaMemcpyAsync(m.scalars + lo, scalars + lo, (hi - lo) * sizeof(fr_t), cudaMemcpyHostToDevice,
                                d->copy_stream));
      PSC_CHECK(cudaEventRecord(landed[q], d->copy_stream));
    }
  }
  if (!sorted) { /* digits, counts, sorted array */
    PSC_CHECK(cudaMemsetAsync(m.count, 0, nkeys * sizeof(uint32_t), d->stream));
    PH(1);
    for (unsigned q = 0; q < pieces; q++) {
      const size_t lo = n * q / pieces, hi = n * (q + 1) / pieces;
      const unsigned blocks = psc__blocks(hi - lo, 256);
      if (landed) PSC_CHECK(cudaStreamWaitEvent(d->stream, landed[q], 0));
      uint32_t *qcnt = gcnt + (size_t)q * ngroups;
      msm_digits<<<blocks, 256, gshm, d->stream>>>(grouped ? NULL : m.digit, m.count, grouped ? qcnt : NULL,
                                                   m.scalars, lo, hi, n, c, nwin, merged, gshift, ngroups);
      if (grouped) {
        msm_group_scan<<<1, 32, 0, d->stream>>>(gstart + (size_t)q * ngroups, gcur + (size_t)q * ngroups, qcnt,
                                                ngroups, 1, (uint32_t)(lo * nwin), 0);
        msm_group_stage<<<blocks, 256, gshm, d->stream>>>(m.digit, klo, gcur + (size_t)q * ngroups, m.scalars, lo,
                                                          hi, c, nwin, merged, merged ? b->n : 0, gshift, ngroups);
      }
    }
    PSC_CHECK_LAUNCH();
    PH(2);
    {
      size_t chunk = (nkeys + SCAN_CHUNKS - 1) / SCAN_CHUNKS;
      scan_chunk_sums<<<SCAN_CHUNKS / 256, 256, 0, d->stream>>>(m.part, m.count, nkeys, chunk);
      PSC_CHECK_LAUNCH();
      scan_parts<<<1, SCAN_THREADS, 0, d->stream>>>(m.part);
      PSC_CHECK_LAUNCH();
      scan_apply<<<SCAN_CHUNKS / 256, 256, 0, d->stream>>>(m.start, m.cursor, m.count, m.part, nkeys, chunk);
      PSC_CHECK_LAUNCH();
    }
    PH(3);
    if (grouped && so.agg) { /* the run table, then the second step a block at a time */
      msm_group_scan<<<1, 32, 0, d->stream>>>(gtab, NULL, gcnt, pieces * ngroups, pieces, 0, 1);
      msm_agg_launch(so.agg_threads, n * nwin, d->stream, m.sorted, m.cursor, m.digit, klo, gtab, gstart, pieces, ngroups,
                     gshift);
    } else if (grouped) { /* the run table, then the second step */
      msm_group_scan<<<1, 32, 0, d->stream>>>(gtab, NULL, gcnt, pieces * ngroups, pieces, 0, 1);
      msm_group_place<<<psc__blocks(n * nwin, 256), 256, 0, d->stream>>>(m.sorted, m.cursor, m.digit, klo, gtab,
                                                                          gstart, pieces, ngroups, gshift, n * nwin);
    } else {
      msm_scatter<<<psc__blocks(n * nwin, 256), 256, 0, d->stream>>>(m.sorted, m.cursor, m.digit, n, nb, nwin,
                                                                      merged ? b->n : 0);
    }
    PSC_CHECK_LAUNCH();
    if (key) d->sort = *key;
  }
  PH(4);
  if (aff) rc = g1_msm_buckets_affine(d, &m, &shape, n, b->d_bases, &final_acc, ph ? &ph[5] : NULL, e);
  else
    rc = (g2 ? g2_msm_buckets : g1_msm_buckets)(d, &m, &shape, merged ? b->d_pre : b->d_bases, &final_acc,
                                                ph ? &ph[5] : NULL, e);
  if (rc) goto fail;
  PH(7);
  PSC_CHECK(cudaMemcpyAsync(win, final_acc, nwin_b * psz, cudaMemcpyDeviceToHost, d->stream));
  *nwin_out = nwin_b;
#undef PH
fail:
  if (landed) { /* each released once its waits are met */
    for (unsigned q = 0; q <= pieces; q++)
      if (landed[q]) cudaEventDestroy(landed[q]);
    free(landed);
  }
  return rc;
}

/* out = sum_w 2^(c w) win[w] (Horner), on the host, where one thread is faster than one
 * GPU thread. */
static void msm_horner(int g2, const void *win, unsigned nwin_b, unsigned c, void *out) {
  if (!g2) {
    g1_xyzz_t acc;
    const g1_xyzz_t *ws = (const g1_xyzz_t *)win;
    g1_xyzz_set_inf(&acc);
    for (int w = (int)nwin_b - 1; w >= 0; w--) {
      for (unsigned i = 0; i < c && w != (int)nwin_b - 1; i++) g1_xyzz_dbl(&acc, &acc);
      g1_xyzz_add(&acc, &acc, &ws[w]);
    }
    *(g1_xyzz_t *)out = acc;
  } else {
    g2_xyzz_t acc;
    const g2_xyzz_t *ws = (const g2_xyzz_t *)win;
    g2_xyzz_set_inf(&acc);
    for (int w = (int)nwin_b - 1; w >= 0; w--) {
      for (unsigned i = 0; i < c && w != (int)nwin_b - 1; i++) g2_xyzz_dbl(&acc, &acc);
      g2_xyzz_add(&acc, &acc, &ws[w]);
    }
    *(g2_xyzz_t *)out = acc;
  }
}

static void msm_set_inf(int g2, void *out) {
  if (g2) g2_xyzz_set_inf((g2_xyzz_t *)out);
  else g1_xyzz_set_inf((g1_xyzz_t *)out);
}

/* One MSM over host scalars, synchronously. */
static int msm_run(psc_dev *d, psc_bases *b, const fr_t *scalars, size_t n, unsigned c, int affine, void *out,
                   ps_err *e) {
  int rc = PS_OK;
  const size_t psz = b->g2 ? sizeof(g2_xyzz_t) : sizeof(g1_xyzz_t);
  unsigned nwin_b = 0;
  /* PSC_MSM_PROFILE=1 in the environment prints the time of each phase to stderr. */
  static const char *ph_name[] = {"upload", "digits", "scan", "scatter", "buckets", "segments", "merges"};
  cudaEvent_t ph[8] = {0};
  ps_tune tune;
  ps_tune_read(&tune, NULL); /* a bad value was refused when the device was opened */
  int prof = tune.msm_profile;
  void *win = NULL;
  if (n == 0) {
    msm_set_inf(b->g2, out);
    return PS_OK;
  }
  if (prof)
    for (int i = 0; i < 8; i++) PSC_CHECK(cudaEventCreate(&ph[i]));
  win = xmalloc(((256 + c - 1) / c) * psz);
  if ((rc = msm_enqueue(d, b, scalars, 0, 0, NULL, affine, n, c, win, &nwin_b, prof ? ph : NULL, e))) goto fail;
  PSC_CHECK(cudaStreamSynchronize(d->stream));
  {
    double t_host0 = ps_now();
    msm_horner(b->g2, win, nwin_b, c, out);
    if (prof) {
      fprintf(stderr, "[msm profile] n=%zu c=%u g%d%s:", n, c, b->g2 + 1, affine && !b->g2 && !b->d_pre ? " affine" : "");
      for (int i = 0; i < 7; i++) {
        float t = 0;
        PSC_CHECK(cudaEventElapsedTime(&t, ph[i], ph[i + 1]));
        fprintf(stderr, " %s %.3f", ph_name[i], t);
      }
      fprintf(stderr, " horner(host) %.3f ms\n", (ps_now() - t_host0) * 1e3);
    }
  }
fail:
  for (int i = 0; i < 8; i++)
    if (ph[i]) cudaEventDestroy(ph[i]);
  free(win);
  return rc;
}

/* The window an MSM over b of n points uses when asked for `window` (0 = automatic). For
 * tuning, PSC_MSM_WINDOW=C in the environment replaces the automatic choice over plain
 * bases (the prover's MSMs, whose window no option sets); work-buffer estimates
 * (psc_msm_work_bytes, g16_worker_bytes) do not follow it. The automatic window of a
 * large MSM follows the scalars: a 0 costs nothing and a 1 one mixed addition whatever
 * the window, so only the other scalars gain from a wider window, while the wider
 * window's buckets cost the same to reduce. Where psc_msm_default_window would pick a
 * wider window for n points than for 2^20, `dense` (a sample's estimate of the scalars
 * other than 0 and 1, see msm_window_for) takes n's place: a Groth16 witness (about 10% of
 * 2^26 other than 0 and 1) keeps 16 bits, which the H MSM's random scalars leave for 20
 * (with all five MSMs at 20 bits a 2^26 partition took 88 ms more than at 16). */
static unsigned msm_window(const psc_bases *b, size_t n, unsigned window, unsigned env_c, size_t dense) {
  if (window) return window;
  if (b->d_pre) return b->pre_c;
  if (env_c) return env_c;
  const size_t floor_n = n < ((size_t)1 << 20) ? n : (size_t)1 << 20;
  return psc_msm_default_window(b->g2, dense > floor_n ? dense : floor_n);
}

/* Whether msm_window needs the count of scalars other than 0 and 1 (else any will do). */
static int msm_window_sampled(const psc_bases *b, size_t n, unsigned window, unsigned env_c) {
  if (window || b->d_pre || env_c || n <= ((size_t)1 << 20)) return 0;
  return psc_msm_default_window(b->g2, n) != psc_msm_default_window(b->g2, (size_t)1 << 20);
}

/* PSC_MSM_WINDOW's window in *c, 0 when it is not set. */
static int msm_env_window(unsigned *c, ps_err *e) {
  ps_tune t;
  const int rc = ps_tune_read(&t, e);
  *c = (unsigned)t.msm_window;
  return rc;
}

/* PSC_MSM_AFFINE's mode in *mode (msm_affine_of), -1 when it is not set. */
static int msm_env_affine(int *mode, ps_err *e) {
  ps_tune t;
  const int rc = ps_tune_read(&t, e);
  *mode = t.msm_affine;
  return rc;
}

/* Whether an MSM of n points over b takes the batch-affine bucket sums under mode (-1: the
 * default, MSM_AFFINE_DEFAULT from MSM_AFFINE_MIN_N points), given the estimated count of
 * scalars other than 0 and 1 (dense). msm_enqueue leaves G2 and precomputed bases out. */
static int msm_affine_of(int mode, const psc_bases *b, size_t n, size_t dense) {
  if (b->g2 || b->d_pre) return 0;
  if (mode < 0) {
    if (n < MSM_AFFINE_MIN_N) return 0;
    mode = MSM_AFFINE_DEFAULT;
  }
  return mode == 1 || (mode == 2 && 2 * dense > n);
}

#define MSM_SAMPLE 65536u     /* scalars sampled for the window on the device */
#define MSM_SAMPLE_HOST 4096u  /* and in host memory, where each is a cache miss */

/* The estimated count of scalars other than 0 and 1 among n: n times their share of
 * MSM_SAMPLE scalars evenly spaced (MSM_SAMPLE_HOST in host memory: the window needs the
 * share to a few percent, and 4,096 give it to about 1.6% at worst); host memory, or
 * device memory (then on d's stream, after the work queued there, and synchronously). */
static int msm_dense_estimate(psc_dev *d, const fr_t *scalars, int on_dev, size_t n, size_t *dense, ps_err *e) {
  int rc = PS_OK;
  const unsigned cap = on_dev ? MSM_SAMPLE : MSM_SAMPLE_HOST;
  const unsigned m = n < cap ? (unsigned)n : cap;
  const size_t stride = n / m;
  uint32_t cnt = 0;
  if (!on_dev) {
    for (unsigned t = 0; t < m; t++) {
      const fr_t *x = &scalars[(size_t)t * stride];
      uint32_t hi = 0;
      for (int j = 1; j < 8; j++) hi |= x->v[j];
      cnt += hi != 0 || x->v[0] > 1;
    }
  } else {
    uint32_t *dcnt = NULL;
    /* The scan's slot, not the counts': psc_dev.sort may hold those for a later MSM. */
    if ((rc = psc__ws(d, WS_PART, sizeof(uint32_t), "MSM scan", (void **)&dcnt, e))) return rc;
    PSC_CHECK(cudaMemsetAsync(dcnt, 0, sizeof(uint32_t), d->stream));
    msm_sample_dense<<<(m + 255) / 256, 256, 0, d->stream>>>(dcnt, scalars, stride, m);
    PSC_CHECK_LAUNCH();
    PSC_CHECK(cudaMemcpyAsync(&cnt, dcnt, sizeof cnt, cudaMemcpyDeviceToHost, d->stream));
    PSC_CHECK(cudaStreamSynchronize(d->stream));
  }
  *dense = (size_t)((double)n * cnt / m);
fail:
  return rc;
}

/* msm_window for an MSM over scalars (host or device memory), sampling them when the
 * window depends on them. */
static int msm_window_for(psc_dev *d, const psc_bases *b, const fr_t *scalars, int on_dev, size_t n,
                          unsigned window, unsigned *c, int aff_mode, int *affine, ps_err *e) {
  size_t dense = n;
  unsigned env_c;
  int rc;
  if ((rc = msm_env_window(&env_c, e))) return rc;
  const int aff_mode_n = aff_mode >= 0 ? aff_mode : n >= MSM_AFFINE_MIN_N ? MSM_AFFINE_DEFAULT : 0;
  const int want_dense = aff_mode_n == 2 && !b->g2 && !b->d_pre;
  if ((msm_window_sampled(b, n, window, env_c) || want_dense) &&
      (rc = msm_dense_estimate(d, scalars, on_dev, n, &dense, e)))
    return rc;
  *c = msm_window(b, n, window, env_c, dense);
  *affine = msm_affine_of(aff_mode, b, n, dense);
  return PS_OK;
}

/* What a sort of n scalars at s for bases b at window c is made from (psc_sort_key): the
 * bucket layout is one set of buckets for all windows over tables b->n points apart (bases
 * precomputed for c), or a set per window. */
static psc_sort_key msm_sort_key(uint64_t gen, const psc_bases *b, const fr_t *s, size_t n, unsigned c) {
  psc_sort_key k = {gen, s, n, b->d_pre && b->pre_c == c ? b->n : 0, c};
  return k;
}

static int msm_key_eq(const psc_sort_key *x, const psc_sort_key *y) {
  return x->gen == y->gen && x->scalars == y->scalars && x->n == y->n && x->stride == y->stride && x->c == y->c;
}

/* psc_msm_wins_dev, with gen the generation of the psc_vec that holds every MSM's scalars
 * (0: raw device pointers). With a generation, an MSM takes the sort d holds whenever it
 * was made from the same scalars of the same generation: the MSM before it in the batch,
 * or one of an earlier batch with no other sort made on d since; without one, only the
 * MSM just before it in the batch with the same key (Groth16's A and B_G1 take the same
 * witness), and its sorts are for nobody else. */
static int msm_wins(psc_dev *d, int count, psc_bases *const *bases, const fr_t *const *scalars, const size_t *n,
                    unsigned window, uint64_t gen, psc_msm_wins *w, ps_err *e) {
  int rc = PS_OK, aff_mode;
  size_t need = 0;
  int *aff = NULL;
  memset(w, 0, sizeof *w);
  if (count < 1) return ps_fail(e, PS_EINPUT, "MSM batch of %d: expected at least 1 MSM", count);
  if ((rc = msm_env_affine(&aff_mode, e))) return rc; /* once per batch */
  aff = (int *)xcalloc((size_t)count, sizeof *aff);
  w->count = count;
  w->g2 = (int *)xcalloc((size_t)count, sizeof *w->g2);
  w->c = (unsigned *)xcalloc((size_t)count, sizeof *w->c);
  w->nwin = (unsigned *)xcalloc((size_t)count, sizeof *w->nwin);
  w->at = (size_t *)xcalloc((size_t)count, sizeof *w->at);
  for (int i = 0; i < count; i++) {
    if (n[i] > bases[i]->n) {
      rc = ps_fail(e, PS_EINPUT, "MSM of %zu scalars over %zu uploaded bases: too few bases", n[i], bases[i]->n);
      goto fail;
    }
    w->g2[i] = bases[i]->g2;
    if (i > 0 && scalars[i] == scalars[i - 1] && n[i] == n[i - 1] && bases[i]->g2 == bases[i - 1]->g2 &&
        !bases[i]->d_pre && !bases[i - 1]->d_pre)
      w->c[i] = w->c[i - 1], aff[i] = aff[i - 1]; /* the same scalars: the same estimate */
    else if ((rc = msm_window_for(d, bases[i], scalars[i], 1, n[i], window, &w->c[i], aff_mode, &aff[i], e)))
      goto fail;
    if (w->c[i] < 2 || w->c[i] > 24) {
      rc = ps_fail(e, PS_EINPUT, "MSM window %u: expected 2..24 bits", w->c[i]);
      goto fail;
    }
    w->at[i] = need;
    need += ((256 + w->c[i] - 1) / w->c[i]) * (bases[i]->g2 ? sizeof(g2_xyzz_t) : sizeof(g1_xyzz_t));
  }
  PSC_CHECK(cudaSetDevice(d->ordinal));
  if (d->hwin_cap < need) {
    if (d->hwin) cudaFreeHost(d->hwin);
    d->hwin = NULL;
    d->hwin_cap = 0;
    PSC_CHECK(cudaHostAlloc(&d->hwin, need, cudaHostAllocDefault));
    d->hwin_cap = need;
  }
  {
    psc_sort_key prev = {0}; /* the MSM just before, when it was queued (raw pointers) */
    int have_prev = 0;
    for (int i = 0; i < count; i++) {
      if (n[i] == 0) {
        have_prev = 0;
        continue;
      }
      const psc_sort_key key = msm_sort_key(gen, bases[i], scalars[i], n[i], w->c[i]);
      const int sorted = gen ? d->sort.gen != 0 && msm_key_eq(&d->sort, &key) : have_prev && msm_key_eq(&prev, &key);
      if ((rc = msm_enqueue(d, bases[i], scalars[i], 1, sorted, gen ? &key : NULL, aff[i], n[i], w->c[i],
                            (char *)d->hwin + w->at[i], &w->nwin[i], NULL, e)))
        goto fail;
      prev = key, have_prev = 1;
    }
  }
  PSC_CHECK(cudaStreamSynchronize(d->stream));
  w->buf = (unsigned char *)xmalloc(need ? need : 1);
  memcpy(w->buf, d->hwin, need);
  free(aff);
  return PS_OK;
fail:
  free(aff);
  psc_msm_wins_free(w);
  return rc;
}

extern "C" int psc_msm_wins_dev(psc_dev *d, int count, psc_bases *const *bases, const fr_t *const *scalars,
                                const size_t *n, unsigned window, psc_msm_wins *w, ps_err *e) {
  return msm_wins(d, count, bases, scalars, n, window, 0, w, e);
}

extern "C" int psc_msm_vec_wins(psc_dev *d, int count, psc_bases *const *bases, psc_vec *v, const size_t *off,
                                const size_t *n, unsigned window, psc_msm_wins *w, ps_err *e) {
  const fr_t **sp = (const fr_t **)xcalloc((size_t)(count > 0 ? count : 1), sizeof *sp);
  for (int i = 0; i < count; i++) {
    if (off[i] + n[i] > v->cap) {
      free(sp);
      memset(w, 0, sizeof *w);
      return ps_fail(e, PS_EINPUT, "MSM: scalars %zu..%zu of a device vector of %zu", off[i], off[i] + n[i], v->cap);
    }
    sp[i] = v->p + off[i];
  }
  int rc = msm_wins(d, count, bases, sp, n, window, v->gen, w, e);
  free(sp);
  return rc;
}

extern "C" void psc_msm_wins_point(const psc_msm_wins *w, int i, void *out_xyzz) {
  if (w->nwin[i] == 0) msm_set_inf(w->g2[i], out_xyzz);
  else msm_horner(w->g2[i], w->buf + w->at[i], w->nwin[i], w->c[i], out_xyzz);
}

extern "C" void psc_msm_wins_free(psc_msm_wins *w) {
  if (!w) return;
  free(w->g2), free(w->c), free(w->nwin), free(w->at), free(w->buf);
  memset(w, 0, sizeof *w);
}


extern "C" int psc_msm(psc_dev *d, psc_bases *b, const fr_t *scalars, size_t n, unsigned window,
                       void *out_xyzz, ps_err *e) {
  if (n > b->n)
    return ps_fail(e, PS_EINPUT, "MSM of %zu scalars over %zu uploaded bases: too few bases", n, b->n);
  int aff_mode, affine = 0;
  int rc = msm_env_affine(&aff_mode, e);
  if (rc) return rc;
  if ((rc = msm_window_for(d, b, scalars, 0, n, window, &window, aff_mode, &affine, e))) return rc;
  if (window < 2 || window > 24)
    return ps_fail(e, PS_EINPUT, "MSM window %u: expected 2..24 bits", window);
  return msm_run(d, b, scalars, n, window, affine, out_xyzz, e);
}


static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

extern "C" int psc_bench_msm(psc_dev *d, psc_bases *b, const fr_t *scalars, size_t n, unsigned window,
                             int reps, double *median_ms, ps_err *e) {
  int rc = PS_OK;
  double *ms = (double *)xcalloc((size_t)reps + 1, sizeof(double));
  g2_xyzz_t out; /* large enough for either group */
  if ((rc = psc_msm(d, b, scalars, n, window, &out, e))) goto out; /* warm-up */
  for (int r = 0; r < reps; r++) {
    double t0 = ps_now();
    if ((rc = psc_msm(d, b, scalars, n, window, &out, e))) goto out;
    ms[r] = (ps_now() - t0) * 1e3;
  }
  qsort(ms, (size_t)reps, sizeof(double), cmp_double);
  *median_ms = ms[reps / 2];
out:
  free(ms);
  return rc;
}
