/* The "mimc" circuit family and the sparse R1CS machinery around it.
 *
 * Variables: z[0] = 1, z[1] = x_in and z[2] = x_out (the public inputs), then per round k
 * the message bits b_0..b_{nb-1}, t, t2, t4 and y (the last round's y is x_out itself),
 * then nextra lone bits. Rows, in order:
 *   - one input row per public variable (z_i * 0 = 0, A = z_i), which makes the public
 *     parts of the QAP linearly independent, as in bellman;
 *   - per round k, with x the previous round's y (x_in for the first):
 *       b_j * b_j = b_j                                  (nb range checks)
 *       (x + c_k + sum_j 2^j b_j) * 1 = t                (absorb the message word)
 *       t * t = t2,  t2 * t2 = t4,  t4 * t = y           (y = t^5, the MiMC round)
 *   - nextra rows b * b = b filling the domain.
 * The message words and x_in come from the instance seed; the round constants c_k are
 * fixed. nb = 4f / (1 - f) bits per round makes the share of boolean private values f. */
#include "r1cs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fr.h"
#include "par.h"
#include "seed.h"

#define R1CS_NPUB 2
#define R1CS_MAX_BITS 196 /* f <= 0.98 */

const char *r1cs_circuits(void) { return "mimc"; }

typedef struct builder {
  uint64_t *row;
  r1cs_term *terms;
  uint64_t nterms, cap, nrows;
} builder;

static void b_term(builder *b, uint32_t var, uint32_t coef) {
  if (b->nterms == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 1024;
    b->terms = xrealloc(b->terms, b->cap * sizeof *b->terms);
  }
  b->terms[b->nterms++] = (r1cs_term){var, coef};
}

/* Closes the current row. */
static void b_end(builder *b) { b->row[++b->nrows] = b->nterms; }

static void b_init(builder *b, int64_t nrows) {
  memset(b, 0, sizeof *b);
  b->row = xcalloc((size_t)nrows + 1, sizeof *b->row);
}

static void b_finish(builder *b, r1cs_matrix *m) {
  m->row = b->row;
  m->terms = xrealloc(b->terms, (b->nterms ? b->nterms : 1) * sizeof *b->terms);
}

/* Layout helpers. */
static int64_t blk_base(const r1cs *cs, int64_t k) { return 3 + k * (cs->bits_per_block + 4); }
static int64_t blk_y(const r1cs *cs, int64_t k) {
  return k == cs->nblocks - 1 ? 2 : blk_base(cs, k) + cs->bits_per_block + 3;
}
static int64_t extra_base(const r1cs *cs) { return blk_base(cs, cs->nblocks) - 1; }

int r1cs_new(const char *circuit, int64_t constraints, double f, r1cs **out, ps_err *e) {
  *out = NULL;
  if (!circuit) circuit = R1CS_DEFAULT_CIRCUIT;
  if (strcmp(circuit, "mimc"))
    return ps_fail(e, PS_EINPUT, "circuit '%s': expected one of %s", circuit, r1cs_circuits());
  if (f < 0) f = R1CS_DEFAULT_BOOLEAN_FRACTION;
  if (!(f >= 0 && f <= 0.98))
    return ps_fail(e, PS_EINPUT, "boolean fraction %g: expected a number in [0, 0.98]", f);
  unsigned log_n = 0;
  while (log_n < 63 && ((int64_t)1 << log_n) < constraints) log_n++;
  if (constraints < 1 || log_n > R1CS_MAX_LOG_N)
    return ps_fail(e, PS_EINPUT, "constraints %lld: expected 1 .. 2^%d",
                   (long long)constraints, R1CS_MAX_LOG_N);
  if (log_n < R1CS_MIN_LOG_N) log_n = R1CS_MIN_LOG_N;
  int nb = (int)lround(4 * f / (1 - f));
  if (nb > R1CS_MAX_BITS) nb = R1CS_MAX_BITS;
  int64_t n = (int64_t)1 << log_n;
  int64_t avail = n - (R1CS_NPUB + 1);
  if (avail < nb + 4)
    return ps_fail(e, PS_EINPUT,
                   "constraints %lld: a boolean fraction of %g needs rounds of %d rows; expected at "
                   "least 2^%u constraints",
                   (long long)constraints, f, nb + 4, (unsigned)ceil(log2((double)(nb + 7))));

  r1cs *cs = xcalloc(1, sizeof *cs);
  snprintf(cs->circuit, sizeof cs->circuit, "%s", circuit);
  cs->log_n = log_n;
  cs->nrows = n;
  cs->npub = R1CS_NPUB;
  cs->bits_per_block = nb;
  cs->nblocks = avail / (nb + 4);
  cs->nextra = avail - cs->nblocks * (nb + 4);
  cs->nvars = extra_base(cs) + cs->nextra;
  int64_t priv = cs->nvars - 1 - cs->npub;
  cs->boolean_fraction = (double)(cs->nblocks * nb + cs->nextra) / (double)priv;

  /* Coefficients: 2^j at index j (so 1 at 0), then the round constants. */
  cs->ncoefs = (uint32_t)(nb > 1 ? nb : 1) + (uint32_t)cs->nblocks;
  cs->coefs = xmalloc(cs->ncoefs * sizeof *cs->coefs);
  fr_one(&cs->coefs[0]);
  for (int j = 1; j < nb; j++) fr_dbl(&cs->coefs[j], &cs->coefs[j - 1]);
  uint32_t cbase = (uint32_t)(nb > 1 ? nb : 1);
  uint64_t st = 0x6d696d63ull; /* "mimc": the round constants are part of the circuit */
  for (int64_t k = 0; k < cs->nblocks; k++) fr_random(&cs->coefs[cbase + k], ps_splitmix64, &st);

  builder A, B, C;
  b_init(&A, n);
  b_init(&B, n);
  b_init(&C, n);
  for (int i = 0; i <= cs->npub; i++) {
    b_term(&A, (uint32_t)i, 0);
    b_end(&A), b_end(&B), b_end(&C);
  }
  for (int64_t k = 0; k < cs->nblocks; k++) {
    uint32_t base = (uint32_t)blk_base(cs, k);
    uint32_t t = base + nb, t2 = t + 1, t4 = t + 2, y = (uint32_t)blk_y(cs, k);
    uint32_t x = k == 0 ? 1 : (uint32_t)blk_y(cs, k - 1);
    for (int j = 0; j < nb; j++) {
      b_term(&A, base + j, 0), b_term(&B, base + j, 0), b_term(&C, base + j, 0);
      b_end(&A), b_end(&B), b_end(&C);
    }
    b_term(&A, x, 0);
    b_term(&A, 0, cbase + (uint32_t)k);
    for (int j = 0; j < nb; j++) b_term(&A, base + j, (uint32_t)j);
    b_term(&B, 0, 0);
    b_term(&C, t, 0);
    b_end(&A), b_end(&B), b_end(&C);
    b_term(&A, t, 0), b_term(&B, t, 0), b_term(&C, t2, 0);
    b_end(&A), b_end(&B), b_end(&C);
    b_term(&A, t2, 0), b_term(&B, t2, 0), b_term(&C, t4, 0);
    b_end(&A), b_end(&B), b_end(&C);
    b_term(&A, t4, 0), b_term(&B, t, 0), b_term(&C, y, 0);
    b_end(&A), b_end(&B), b_end(&C);
  }
  for (int64_t i = 0; i < cs->nextra; i++) {
    uint32_t v = (uint32_t)(extra_base(cs) + i);
    b_term(&A, v, 0), b_term(&B, v, 0), b_term(&C, v, 0);
    b_end(&A), b_end(&B), b_end(&C);
  }
  PS_ASSERT(A.nrows == (uint64_t)n && B.nrows == (uint64_t)n && C.nrows == (uint64_t)n);
  b_finish(&A, &cs->a);
  b_finish(&B, &cs->b);
  b_finish(&C, &cs->c);
  *out = cs;
  return PS_OK;
}

void r1cs_free(r1cs *cs) {
  if (!cs) return;
  free(cs->coefs);
  free(cs->a.row), free(cs->a.terms);
  free(cs->b.row), free(cs->b.terms);
  free(cs->c.row), free(cs->c.terms);
  free(cs);
}

uint64_t r1cs_terms(const r1cs *cs) {
  return cs->a.row[cs->nrows] + cs->b.row[cs->nrows] + cs->c.row[cs->nrows];
}

void r1cs_witness(const r1cs *cs, uint64_t instance_seed, fr_t *z) {
  uint64_t st = instance_seed ^ 0x1a5ce5eedull;
  int nb = cs->bits_per_block;
  fr_t one, x;
  fr_one(&one);
  z[0] = one;
  fr_random(&x, ps_splitmix64, &st);
  z[1] = x;
  uint32_t cbase = (uint32_t)(nb > 1 ? nb : 1);
  for (int64_t k = 0; k < cs->nblocks; k++) {
    int64_t base = blk_base(cs, k);
    fr_t t = x;
    fr_add(&t, &t, &cs->coefs[cbase + k]);
    uint64_t word = 0;
    for (int j = 0; j < nb; j++) {
      if (j % 64 == 0) word = ps_splitmix64(&st);
      int bit = (int)((word >> (j % 64)) & 1);
      if (bit) {
        z[base + j] = one;
        fr_add(&t, &t, &cs->coefs[j]);
      } else {
        fr_zero(&z[base + j]);
      }
    }
    fr_t t2, t4, y;
    fr_sqr(&t2, &t);
    fr_sqr(&t4, &t2);
    fr_mul(&y, &t4, &t);
    z[base + nb] = t;
    z[base + nb + 1] = t2;
    z[base + nb + 2] = t4;
    z[blk_y(cs, k)] = y;
    x = y;
  }
  uint64_t word = 0;
  for (int64_t i = 0; i < cs->nextra; i++) {
    if (i % 64 == 0) word = ps_splitmix64(&st);
    if ((word >> (i % 64)) & 1) z[extra_base(cs) + i] = one;
    else fr_zero(&z[extra_base(cs) + i]);
  }
}

static void row_dot(const r1cs *cs, const r1cs_matrix *m, int64_t i, const fr_t *z, fr_t *out) {
  fr_t acc, t;
  fr_zero(&acc);
  for (uint64_t p = m->row[i]; p < m->row[i + 1]; p++) {
    const r1cs_term *tm = &m->terms[p];
    if (tm->coef == 0) {
      fr_add(&acc, &acc, &z[tm->var]);
    } else {
      fr_mul(&t, &cs->coefs[tm->coef], &z[tm->var]);
      fr_add(&acc, &acc, &t);
    }
  }
  *out = acc;
}

typedef struct eval_ctx {
  const r1cs *cs;
  const fr_t *z;
  fr_t *az, *bz, *cz;
} eval_ctx;

static void eval_range(void *p, size_t lo, size_t hi) {
  const eval_ctx *t = p;
  for (int64_t i = (int64_t)lo; i < (int64_t)hi; i++) {
    row_dot(t->cs, &t->cs->a, i, t->z, &t->az[i]);
    row_dot(t->cs, &t->cs->b, i, t->z, &t->bz[i]);
    row_dot(t->cs, &t->cs->c, i, t->z, &t->cz[i]);
  }
}

void r1cs_eval(const r1cs *cs, const fr_t *z, fr_t *az, fr_t *bz, fr_t *cz, unsigned threads) {
  eval_ctx c = {cs, z, az, bz, cz};
  /* Each row is computed alone, so the chunks do not change the result. */
  int t = cs->nrows < 4096 ? 1 : threads > 256 ? 256 : (int)threads;
  par_for((size_t)cs->nrows, 1024, t, eval_range, &c, NULL, NULL);
}

int64_t r1cs_check(const r1cs *cs, const fr_t *z) {
  for (int64_t i = 0; i < cs->nrows; i++) {
    fr_t a, b, c, ab;
    row_dot(cs, &cs->a, i, z, &a);
    row_dot(cs, &cs->b, i, z, &b);
    row_dot(cs, &cs->c, i, z, &c);
    fr_mul(&ab, &a, &b);
    if (!fr_eq(&ab, &c)) return i;
  }
  return -1;
}

int r1cs_bench(int log_n, unsigned threads, int reps, double *median_ms, ps_err *e) {
  r1cs *cs = NULL;
  if (log_n < R1CS_MIN_LOG_N || log_n > R1CS_MAX_LOG_N) /* r1cs_new would round a small one up */
    return ps_fail(e, PS_EINPUT, "synth of 2^%d constraints: expected 2^%d to 2^%d", log_n, R1CS_MIN_LOG_N,
                   R1CS_MAX_LOG_N);
  int rc = r1cs_new(NULL, (int64_t)1 << log_n, -1, &cs, e);
  if (rc) return rc;
  if (reps < 1) reps = 1;
  fr_t *z = xmalloc((size_t)cs->nvars * sizeof *z), *abc = xmalloc((size_t)cs->nrows * 3 * sizeof *abc);
  double *ms = xcalloc((size_t)reps, sizeof *ms);
  for (int r = -1; r < reps; r++) { /* r = -1: the warm-up, which faults the pages in */
    double t0 = ps_now();
    r1cs_witness(cs, (uint64_t)r + 2, z);
    r1cs_eval(cs, z, abc, abc + cs->nrows, abc + 2 * cs->nrows, threads);
    if (r >= 0) ms[r] = (ps_now() - t0) * 1e3;
  }
  *median_ms = ps_sort_median(ms, (size_t)reps);
  free(ms);
  free(abc);
  free(z);
  r1cs_free(cs);
  return PS_OK;
}
