/* The cuda backend's tuning variables (docs/prover.md, "Tuning variables of the cuda
 * backend"), read from the environment in one place. Plain C, so that the cpu build's
 * tests check every range and message (tests/test_backend.c) though the kernels that use
 * the values build only with CUDA. A variable unset or empty reads as "unset" (below), and
 * each kernel applies its own measured default to it; a value out of range is bad input. */
#ifndef PROVESIM_TUNE_H
#define PROVESIM_TUNE_H

#include "util.h"

typedef struct ps_tune {
  int cuda_sync;       /* PSC_CUDA_SYNC: 0 auto (unset), 1 spin, 2 yield, 3 block */
  int msm_window;      /* PSC_MSM_WINDOW: 2..MSM_MAX_WINDOW, 0 unset */
  int msm_affine;      /* PSC_MSM_AFFINE: 0..2, -1 unset */
  int msm_sort;        /* PSC_MSM_SORT: 0 direct, 1 grouped, -1 auto (unset) */
  int msm_log_groups;  /* PSC_MSM_LOG_GROUPS: 0..MSM_GROUP_LOG_MAX, -1 unset */
  int msm_place;       /* PSC_MSM_PLACE: 1 agg, 0 point, -1 unset */
  int msm_agg_threads; /* PSC_MSM_AGG_THREADS: 256, 512 or 1024, 0 unset */
  int msm_pieces;      /* PSC_MSM_PIECES: 1..64, 0 unset */
  int msm_profile;     /* PSC_MSM_PROFILE: 1 when set (to anything), else 0 */
  int ntt_radix;       /* PSC_NTT_RADIX: 2 or 4, 0 unset */
  int ntt_max_k;       /* PSC_NTT_MAX_K: 0..12, 0 unset */
  int ntt_log_block;   /* PSC_NTT_LOG_BLOCK: 7..11, 0 unset */
  int ntt_tiles;       /* PSC_NTT_TILES: 0..1024, -1 unset */
  int ntt_mul;         /* PSC_NTT_MUL: 0 montgomery (unset), 1 karatsuba, 2 fp64, 3 mixed (ntt.cu's NTT_MUL_*) */
  int ntt_regs;        /* PSC_NTT_REGS: 96 or 128, 0 unset (96) */
  int ntt_tw;          /* PSC_NTT_TW: 0 global (unset), 1 shared (a tile's twiddles staged in shared memory) */
  int ntt_reduce;      /* PSC_NTT_REDUCE: 0 full, 1 lazy (values in [0, 2r) within the transform), -1 unset
                        * (ps_tune_ntt_lazy) */
  int msm_segsum;      /* PSC_MSM_SEGSUM: 0 thread (unset: each thread reads its segment), 1 staged (msm_seg.h) */
  int ntt_launch;      /* PSC_NTT_LAUNCH: 0 stream, 1 pdl (a transform's passes after its first launched as
                        * programmatic dependents of the one before, ntt.cu), -1 unset (ps_tune_ntt_pdl) */
  int ntt_split;       /* PSC_NTT_SPLIT: 0 balanced (unset), 1 even (ntt_r4.h's ntt_pass_layout_split) */
  int ntt_carveout;    /* PSC_NTT_CARVEOUT: the radix-4 passes' shared memory carveout hint, a percentage of the
                        * most shared memory (cudaFuncAttributePreferredSharedMemoryCarveout), -1 unset (no hint) */
  int cuda_lmem;       /* PSC_CUDA_LMEM: 0 lazy (unset: CUDA's default, the local memory that spilling kernels
                        * need allocated at their first launch), 1 early (allocated when the device opens,
                        * PSC_LMEM_EARLY_BYTES a thread, before any buffer), 2 max (cudaDeviceLmemResizeToMax:
                        * never shrunk once grown) */
} ps_tune;

/* Reads every variable into *t. Returns PS_OK, or PS_EINPUT with a message naming the
 * first bad one (NAME="value": expected ...); the bad ones read as unset. */
int ps_tune_read(ps_tune *t, ps_err *e);

/* Whether the NTT's radix-4 passes reduce lazily: PSC_NTT_REDUCE where set, else
 * LAZY_DEFAULT (ntt.cu's NTT_LAZY) with the Montgomery product and full reduction with the
 * others, whose kernels have no lazy instance. */
int ps_tune_ntt_lazy(const ps_tune *t, int lazy_default);

/* Whether the NTT's passes launch as programmatic dependents: PSC_NTT_LAUNCH where set,
 * else PDL_DEFAULT (ntt.cu's NTT_PDL) where the passes are the lazily reduced ones (lazy,
 * ps_tune_ntt_lazy's answer) reading their twiddles from global memory, the only passes
 * with the dependents' wait, and stream launches otherwise. */
int ps_tune_ntt_pdl(const ps_tune *t, int lazy, int pdl_default);

#endif
