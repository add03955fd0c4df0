/* The R1CS circuits the Groth16 prover proves: a family of constraint systems of any
 * power-of-two size whose witness is computed on the CPU by real code. A circuit is the
 * sparse matrices A, B, C (constraint i holds when <A_i, z> * <B_i, z> = <C_i, z>) over
 * the variables z = (1, public inputs, private witness), plus the code that computes z
 * for one instance. The one circuit so far, "mimc", is a MiMC-style hash chain (x^5
 * rounds over Fr) that absorbs range-checked message words bit by bit, so that most
 * witness values are 0/1 as in Filecoin's circuits; see r1cs.c and docs/prover.md. */
#ifndef PROVESIM_R1CS_H
#define PROVESIM_R1CS_H

#include <stdint.h>

#include "util.h"
#include "bls12_381.h"

#ifdef __cplusplus
extern "C" {
#endif

#define R1CS_DEFAULT_CIRCUIT "mimc"
#define R1CS_DEFAULT_BOOLEAN_FRACTION 0.9
#define R1CS_MIN_LOG_N 6
#define R1CS_MAX_LOG_N 27

/* One nonzero entry of a row: coefficient coefs[coef] on variable var. */
typedef struct r1cs_term {
  uint32_t var;
  uint32_t coef;
} r1cs_term;

/* A sparse matrix in compressed rows: row i is terms[row[i]] .. terms[row[i+1]-1]. */
typedef struct r1cs_matrix {
  uint64_t *row; /* nrows + 1 */
  r1cs_term *terms;
} r1cs_matrix;

typedef struct r1cs {
  char circuit[32];
  unsigned log_n;        /* the NTT domain is 2^log_n; every one of its rows is a constraint */
  int64_t nrows;         /* = 2^log_n */
  int64_t nvars;         /* z[0] = 1, z[1..npub] public, the rest private */
  int npub;              /* public inputs, not counting the constant 1 */
  int bits_per_block;    /* message bits absorbed per round */
  int64_t nblocks;       /* hash rounds */
  int64_t nextra;        /* leftover rows, each a lone boolean check */
  double boolean_fraction; /* share of private witness values that are 0/1, as built */
  fr_t *coefs;           /* Montgomery form; coefs[0] = 1 */
  uint32_t ncoefs;
  r1cs_matrix a, b, c;
} r1cs;

/* Builds circuit (NULL = the default) with 2^ceil(log2(constraints)) constraints and the
 * given share of boolean witness values (< 0 = the default). PS_EINPUT with e filled for
 * an unknown circuit, a size outside 2^R1CS_MIN_LOG_N..2^R1CS_MAX_LOG_N or a fraction
 * outside [0, 0.98]. Caller frees with r1cs_free (NULL ok). */
int r1cs_new(const char *circuit, int64_t constraints, double boolean_fraction, r1cs **out, ps_err *e);
void r1cs_free(r1cs *cs);

/* The names of the circuits, comma separated (for messages). */
const char *r1cs_circuits(void);

/* Computes the witness of the instance picked by instance_seed: z (nvars elements,
 * Montgomery form), z[1..npub] being its public inputs. */
void r1cs_witness(const r1cs *cs, uint64_t instance_seed, fr_t *z);

/* az[i] = <A_i, z>, bz, cz likewise, for every row; threads = 0 uses every CPU. */
void r1cs_eval(const r1cs *cs, const fr_t *z, fr_t *az, fr_t *bz, fr_t *cz, unsigned threads);

/* The first row z does not satisfy, or -1 when it satisfies all. */
int64_t r1cs_check(const r1cs *cs, const fr_t *z);

/* Counts of the terms in the three matrices. */
uint64_t r1cs_terms(const r1cs *cs);

/* For prover-bench: the median wall time (ms), over reps runs after one not timed, of
 * groth16's synth phase on the CPU for one instance of the default circuit with 2^log_n
 * constraints: its witness, then A·z, B·z and C·z on threads threads (0: every CPU).
 * PS_EINPUT with e filled for log_n outside R1CS_MIN_LOG_N..R1CS_MAX_LOG_N. */
int r1cs_bench(int log_n, unsigned threads, int reps, double *median_ms, ps_err *e);

#ifdef __cplusplus
}
#endif

#endif
