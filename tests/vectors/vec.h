/* A reader for tests/vectors/bls12_381.txt (written by gen_vectors.py from py_ecc), shared
 * by the BLS12-381 test suites: lines split into tokens, and tokens parsed into field
 * elements and points of the reference backend. Header-only, for tests. */
#ifndef PROVESIM_TESTS_VEC_H
#define PROVESIM_TESTS_VEC_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"

#define VEC_MAX_TOK 16

typedef struct {
  char **lines;
  size_t n;
} vec_file;

/* Loads the vectors; the path comes from PROVESIM_SRC (set by ctest), else the current
 * directory's tests/vectors. Returns NULL (after printing why) when it cannot be read. */
static inline vec_file *vec_load(void) {
  const char *src = getenv("PROVESIM_SRC");
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/vectors/bls12_381.txt", src ? src : ".");
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s: cannot open the test vectors (set PROVESIM_SRC)\n", path);
    return NULL;
  }
  vec_file *v = calloc(1, sizeof *v);
  size_t cap = 0;
  char *line = NULL;
  size_t lcap = 0;
  ssize_t len;
  while ((len = getline(&line, &lcap, f)) > 0) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (len == 0 || line[0] == '#') continue;
    if (v->n == cap) {
      cap = cap ? 2 * cap : 1024;
      v->lines = realloc(v->lines, cap * sizeof *v->lines);
    }
    v->lines[v->n++] = strdup(line);
  }
  free(line);
  fclose(f);
  return v;
}

static inline void vec_free(vec_file *v) {
  if (!v) return;
  for (size_t i = 0; i < v->n; i++) free(v->lines[i]);
  free(v->lines);
  free(v);
}

/* Splits a copy of line into at most max tokens; returns the count. buf must hold the line. */
static inline int vec_split(const char *line, char *buf, size_t bufsz, char **tok, int max) {
  snprintf(buf, bufsz, "%s", line);
  int n = 0;
  for (char *s = strtok(buf, " "); s && n < max; s = strtok(NULL, " ")) tok[n++] = s;
  return n;
}

/* Big-endian hex -> n little-endian 32-bit limbs. Returns 0, or -1 if it does not fit. */
static inline int vec_hex_limbs(const char *hex, uint32_t *limbs, int n) {
  memset(limbs, 0, (size_t)n * sizeof *limbs);
  size_t len = strlen(hex);
  for (size_t i = 0; i < len; i++) {
    char ch = hex[len - 1 - i];
    uint32_t d;
    if (ch >= '0' && ch <= '9') d = (uint32_t)(ch - '0');
    else if (ch >= 'a' && ch <= 'f') d = (uint32_t)(ch - 'a' + 10);
    else if (ch >= 'A' && ch <= 'F') d = (uint32_t)(ch - 'A' + 10);
    else return -1;
    if (i / 8 >= (size_t)n) {
      if (d) return -1;
      continue;
    }
    limbs[i / 8] |= d << (4 * (i % 8));
  }
  return 0;
}

/* Hex bytes -> bytes; returns the byte count, or -1. */
static inline int vec_hex_bytes(const char *hex, uint8_t *out, size_t cap) {
  size_t len = strlen(hex);
  if (len % 2 || len / 2 > cap) return -1;
  for (size_t i = 0; i < len / 2; i++) {
    unsigned x;
    if (sscanf(hex + 2 * i, "%2x", &x) != 1) return -1;
    out[i] = (uint8_t)x;
  }
  return (int)(len / 2);
}

static inline void vec_fp(const char *hex, fp_t *r) {
  fp_t c;
  if (vec_hex_limbs(hex, c.v, BLS_FP_LIMBS) != 0) abort();
  fp_from_canon(r, &c);
}

static inline void vec_fr(const char *hex, fr_t *r) {
  fr_t c;
  if (vec_hex_limbs(hex, c.v, BLS_FR_LIMBS) != 0) abort();
  fr_from_canon(r, &c);
}

/* A canonical scalar (any integer < 2^256), not converted. */
static inline void vec_scalar(const char *hex, fr_t *k) {
  if (vec_hex_limbs(hex, k->v, BLS_FR_LIMBS) != 0) abort();
}

static inline void vec_fp2(char **tok, fp2_t *r) {
  vec_fp(tok[0], &r->c0);
  vec_fp(tok[1], &r->c1);
}

/* Parses a G1 point at tok (2 tokens, or "inf"); returns the tokens used. */
static inline int vec_g1(char **tok, g1_affine_t *p) {
  if (strcmp(tok[0], "inf") == 0) {
    g1_affine_set_inf(p);
    return 1;
  }
  vec_fp(tok[0], &p->x);
  vec_fp(tok[1], &p->y);
  return 2;
}

static inline int vec_g2(char **tok, g2_affine_t *p) {
  if (strcmp(tok[0], "inf") == 0) {
    g2_affine_set_inf(p);
    return 1;
  }
  vec_fp2(tok, &p->x);
  vec_fp2(tok + 2, &p->y);
  return 4;
}

/* A deterministic 64-bit generator for tests (splitmix64). */
static inline uint64_t vec_rng(void *state) {
  uint64_t z = (*(uint64_t *)state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

#endif
