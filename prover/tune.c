/* The cuda backend's tuning variables: one table of names, ranges or words, and the
 * messages their bad values get (tune.h). */
#include "tune.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/msm_group.h" /* MSM_GROUP_LOG_MAX */
#include "msm.h"            /* MSM_MAX_WINDOW */

#define TUNE_WORDS 4

/* A variable: an integer in lo..hi, or (words[0] set) one of the words, read as the value
 * beside it; `unset` when it is unset or empty; `expect` ends its message. */
typedef struct tune_var {
  const char *name;
  size_t off;
  int unset;
  long lo, hi;
  const char *words[TUNE_WORDS];
  int vals[TUNE_WORDS];
  const char *expect;
} tune_var;

#define OFF(f) offsetof(ps_tune, f)
#define STR_(x) #x
#define STR(x) STR_(x)
static const tune_var vars[] = {
    {"PSC_CUDA_SYNC", OFF(cuda_sync), 0, 0, 0, {"auto", "spin", "yield", "block"}, {0, 1, 2, 3},
     "auto, spin, yield or block"},
    {"PSC_MSM_WINDOW", OFF(msm_window), 0, 2, MSM_MAX_WINDOW, {0}, {0},
     "a window of 2 to " STR(MSM_MAX_WINDOW) " bits"},
    {"PSC_MSM_AFFINE", OFF(msm_affine), -1, 0, 2, {0}, {0},
     "0 (XYZZ bucket sums), 1 (batch-affine for G1 over plain bases) or 2 (batch-affine where most scalars are "
     "other than 0 and 1)"},
    {"PSC_MSM_SORT", OFF(msm_sort), -1, 0, 0, {"auto", "grouped", "direct"}, {-1, 1, 0}, "auto, grouped or direct"},
    {"PSC_MSM_LOG_GROUPS", OFF(msm_log_groups), -1, 0, MSM_GROUP_LOG_MAX, {0}, {0},
     "0 to " STR(MSM_GROUP_LOG_MAX)},
    {"PSC_MSM_PLACE", OFF(msm_place), -1, 0, 0, {"agg", "point"}, {1, 0}, "agg or point"},
    {"PSC_MSM_AGG_THREADS", OFF(msm_agg_threads), 0, 0, 0, {"256", "512", "1024"}, {256, 512, 1024},
     "256, 512 or 1024"},
    {"PSC_MSM_PIECES", OFF(msm_pieces), 0, 1, 64, {0}, {0}, "1 to 64"},
    {"PSC_NTT_RADIX", OFF(ntt_radix), 0, 0, 0, {"2", "4"}, {2, 4}, "2 or 4"},
    {"PSC_NTT_MAX_K", OFF(ntt_max_k), 0, 0, 12, {0}, {0}, "0 to 12"},
    {"PSC_NTT_LOG_BLOCK", OFF(ntt_log_block), 0, 7, 11, {0}, {0}, "7 to 11"},
    {"PSC_NTT_TILES", OFF(ntt_tiles), -1, 0, 1024, {0}, {0}, "0 to 1024"},
    {"PSC_NTT_MUL", OFF(ntt_mul), 0, 0, 0, {"montgomery", "karatsuba", "fp64", "mixed"}, {0, 1, 2, 3},
     "montgomery, karatsuba, fp64 or mixed"},
    {"PSC_NTT_REGS", OFF(ntt_regs), 0, 0, 0, {"96", "128"}, {96, 128}, "96 or 128"},
    {"PSC_NTT_TW", OFF(ntt_tw), 0, 0, 0, {"global", "shared"}, {0, 1}, "global or shared"},
    {"PSC_NTT_REDUCE", OFF(ntt_reduce), -1, 0, 0, {"full", "lazy"}, {0, 1}, "full or lazy"},
    {"PSC_MSM_SEGSUM", OFF(msm_segsum), 0, 0, 0, {"thread", "staged"}, {0, 1}, "thread or staged"},
    {"PSC_NTT_LAUNCH", OFF(ntt_launch), -1, 0, 0, {"stream", "pdl"}, {0, 1}, "stream or pdl"},
    {"PSC_NTT_SPLIT", OFF(ntt_split), 0, 0, 0, {"balanced", "even"}, {0, 1}, "balanced or even"},
    {"PSC_NTT_CARVEOUT", OFF(ntt_carveout), -1, 0, 100, {0}, {0}, "0 to 100"},
    {"PSC_CUDA_LMEM", OFF(cuda_lmem), 0, 0, 0, {"lazy", "early", "max"}, {0, 1, 2}, "lazy, early or max"},
};

/* v as the variable's value into *out; -1 when it is not one. */
static int tune_parse(const tune_var *t, const char *v, int *out) {
  if (!t->words[0]) return ps_parse_int(v, t->lo, t->hi, out);
  for (int i = 0; i < TUNE_WORDS && t->words[i]; i++)
    if (!strcmp(v, t->words[i])) return *out = t->vals[i], 0;
  return -1;
}

int ps_tune_read(ps_tune *t, ps_err *e) {
  int rc = PS_OK;
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    int *f = (int *)((char *)t + vars[i].off);
    const char *v = getenv(vars[i].name);
    *f = vars[i].unset;
    if (!v || !*v || !tune_parse(&vars[i], v, f)) continue;
    if (rc == PS_OK) rc = ps_fail(e, PS_EINPUT, "%s=\"%.64s\": expected %s", vars[i].name, v, vars[i].expect);
  }
  t->msm_profile = getenv("PSC_MSM_PROFILE") != NULL;
  /* the staged twiddles are fr_t's, the Montgomery product's form (ntt.cu) */
  if (rc == PS_OK && t->ntt_tw == 1 && t->ntt_mul != 0)
    rc = ps_fail(e, PS_EINPUT, "PSC_NTT_TW=shared: expected PSC_NTT_MUL unset or montgomery, not \"%.32s\"",
                 getenv("PSC_NTT_MUL"));
  /* the lazy product is the Montgomery one's sequence without its subtraction (ntt.cu) */
  if (rc == PS_OK && t->ntt_reduce == 1 && t->ntt_mul != 0)
    rc = ps_fail(e, PS_EINPUT, "PSC_NTT_REDUCE=lazy: expected PSC_NTT_MUL unset or montgomery, not \"%.32s\"",
                 getenv("PSC_NTT_MUL"));
  /* the passes with the dependents' wait are the lazily reduced Montgomery ones (ntt.cu) */
  if (rc == PS_OK && t->ntt_launch == 1 && (t->ntt_mul != 0 || t->ntt_reduce == 0 || t->ntt_tw == 1))
    rc = ps_fail(e, PS_EINPUT, "PSC_NTT_LAUNCH=pdl: expected the default passes (PSC_NTT_MUL, PSC_NTT_REDUCE and "
                 "PSC_NTT_TW unset or at their defaults)");
  return rc;
}

int ps_tune_ntt_lazy(const ps_tune *t, int lazy_default) {
  if (t->ntt_reduce >= 0) return t->ntt_reduce;
  return t->ntt_mul == 0 ? lazy_default : 0;
}

int ps_tune_ntt_pdl(const ps_tune *t, int lazy, int pdl_default) {
  if (t->ntt_launch >= 0) return t->ntt_launch;
  return lazy && t->ntt_tw != 1 ? pdl_default : 0;
}
