/* The run-to-run spread of the host's CPU speed (calib.h, calib_host), from calibration
 * runs made more than once with the same settings.
 *
 * Each file is one run. Read as a stream (twice: the first pass ranks each worker's calls,
 * to leave the warm-up out as calib_model does), it gives the run's cpu time per partition
 * T = sum over cpu phases p of mean(d / k) (d a span's duration, k its call's partitions),
 * and the sampling variance of log T from the spans' own spread, v = sum_p var_p / n_p / T^2
 * (the phases taken as independent). Runs are grouped by their settings: the threads of
 * each cpu phase, the largest call, the number of workers and, when the header gives them,
 * the cores (a run on 4 cores at 3 threads is not a repeat of one on 16: its phases beside
 * the GPU's host threads run slower). Over the groups of two runs
 * or more, with y = log T:
 *   raw = sum_g sum_j (y_j - mean_g y)^2 / sum_g (n_g - 1),
 *   sd^2 = raw - mean of v over those runs (at least 0),
 * the spread of a run's speed that the spans within the run do not explain: what a host
 * that runs the same work at another speed from one run to the next adds. */
#include "calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spans.h"

#define HOST_NPH 32 /* cpu phases told apart per run; more are refused */

typedef struct host_ph {
  char name[64];
  int threads; /* -1: the phase ran at several thread counts in this run */
  size_t n;
  double mean, m2; /* Welford, of d / k */
} host_ph;

typedef struct host_run {
  calib__ranks rk;
  int pass2;
  host_ph ph[HOST_NPH];
  int nph, maxk, too_many, cores; /* cores: the header's cpu_cores, 0 when not given */
  double steal;                   /* the header's host_steal, -1 when not given */
  double steal_k;                 /* calib_read.steal_exponent */
  strtab workers;
  char key[512];  /* the settings */
  double y, v;    /* log T and its sampling variance */
  int ok;
} host_run;

static int host_hdr(void *ctx, const span_header *hd) {
  ((host_run *)ctx)->cores = hd->cpu_cores;
  ((host_run *)ctx)->steal = spans_header_steal(hd);
  return 0;
}

static int host_cb(void *ctx, const span_rec *r) {
  host_run *h = ctx;
  if (r->kind != SPAN_PHASE || r->worker < 0) return 0;
  if (!h->pass2) {
    calib__ranks_add(&h->rk, r->rep, r->gpu, r->worker, r->call);
    return 0;
  }
  if (!r->resource || strcmp(r->resource, "cpu") || !r->phase) return 0;
  if (!calib__ranks_kept(&h->rk, r->rep, r->gpu, r->worker, r->call)) return 0;
  char w[48];
  snprintf(w, sizeof w, "%d %d", r->gpu, r->worker);
  strtab_id(&h->workers, w, 1u << 20);
  int k = r->npartitions > 0 ? r->npartitions : 1;
  if (k > h->maxk) h->maxk = k;
  int p = 0;
  while (p < h->nph && strcmp(h->ph[p].name, r->phase)) p++;
  if (p == h->nph) {
    if (h->nph == HOST_NPH) {
      h->too_many = 1;
      return 0;
    }
    snprintf(h->ph[p].name, sizeof h->ph[p].name, "%s", r->phase);
    h->ph[p].threads = r->threads;
    h->nph++;
  }
  host_ph *q = &h->ph[p];
  if (q->threads != r->threads) q->threads = -1;
  double x = (r->t1 - r->t0) * calib__steal_factor(h->steal, h->steal_k) / k, dx = x - q->mean;
  q->n++;
  q->mean += dx / (double)q->n;
  q->m2 += dx * (x - q->mean);
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const host_ph *)a)->name, ((const host_ph *)b)->name);
}

/* One file: its settings key, log T and v; ok = 0 when it has no cpu phase spans left
 * after the warm-up, or a phase at several thread counts (its speed is not one setting's). */
static int host_file(const char *path, const calib_read *rd, host_run *h, ps_err *e) {
  memset(h, 0, sizeof *h);
  h->rk.skip = rd->skip_calls;
  h->steal_k = rd->steal_exponent;
  int rc = spans_read(path, host_hdr, host_cb, h, e);
  if (rc == PS_OK) {
    h->pass2 = 1;
    rc = spans_read(path, NULL, host_cb, h, e);
  }
  calib__ranks_free(&h->rk);
  if (rc != PS_OK) {
    strtab_free(&h->workers);
    return rc;
  }
  qsort(h->ph, (size_t)h->nph, sizeof *h->ph, by_name);
  double T = 0, var = 0;
  int ok = h->nph > 0 && !h->too_many;
  size_t len = (size_t)snprintf(h->key, sizeof h->key, "workers %zu, batch %d, cores %d:", h->workers.n, h->maxk, h->cores);
  for (int p = 0; p < h->nph && ok; p++) {
    const host_ph *q = &h->ph[p];
    if (q->threads < 0 || q->n < 2) ok = 0;
    T += q->mean;
    var += q->n > 1 ? q->m2 / (double)(q->n - 1) / (double)q->n : 0;
    if (len < sizeof h->key)
      len += (size_t)snprintf(h->key + len, sizeof h->key - len, " %s@%d", q->name, q->threads);
  }
  if (len >= sizeof h->key) ok = 0; /* settings too long to tell apart: not grouped */
  h->ok = ok && T > 0;
  if (h->ok) {
    h->y = log(T);
    h->v = var / (T * T);
  }
  strtab_free(&h->workers);
  return PS_OK;
}

/* calib_header_steal: the header alone (the first record stops the reading). */
static int steal_hdr(void *ctx, const span_header *hd) {
  *(double *)ctx = spans_header_steal(hd);
  return 0;
}
static int stop_at_record(void *ctx, const span_rec *r) {
  (void)ctx, (void)r;
  return 1;
}

int calib_header_steal(const char *path, double *steal, ps_err *e) {
  *steal = -1;
  int rc = spans_read(path, steal_hdr, stop_at_record, steal, e);
  return rc == 1 ? PS_OK : rc;
}

int calib_host(const char *const *files, int nfiles, const calib_read *rd, calib_host_report *out, ps_err *e) {
  memset(out, 0, sizeof *out);
  if (nfiles <= 0) return PS_OK;
  host_run *runs = xcalloc((size_t)nfiles, sizeof *runs);
  int rc = PS_OK;
  for (int i = 0; i < nfiles && rc == PS_OK; i++) rc = host_file(files[i], rd, &runs[i], e);
  if (rc != PS_OK) {
    free(runs);
    return rc;
  }
  out->steal_max_file = -1;
  for (int i = 0; i < nfiles; i++) {
    if (runs[i].steal < 0) continue;
    out->steal_runs++;
    out->steal_over += runs[i].steal > SPANS_STEAL_WARN;
    if (out->steal_max_file < 0 || runs[i].steal > out->steal_max) out->steal_max = runs[i].steal, out->steal_max_file = i;
  }
  int *done = xcalloc((size_t)nfiles, sizeof *done);
  double ss = 0, vsum = 0;
  for (int i = 0; i < nfiles; i++) {
    if (!runs[i].ok || done[i]) continue;
    out->nruns++;
    double sum = runs[i].y, vs = runs[i].v;
    int n = 1;
    for (int j = i + 1; j < nfiles; j++)
      if (runs[j].ok && !done[j] && !strcmp(runs[j].key, runs[i].key)) {
        sum += runs[j].y;
        vs += runs[j].v;
        n++;
      }
    done[i] = 1;
    if (n < 2) continue;
    double mean = sum / n;
    ss += (runs[i].y - mean) * (runs[i].y - mean);
    for (int j = i + 1; j < nfiles; j++)
      if (runs[j].ok && !done[j] && !strcmp(runs[j].key, runs[i].key)) {
        ss += (runs[j].y - mean) * (runs[j].y - mean);
        done[j] = 1;
        out->nruns++;
      }
    out->ngroups++;
    out->df += n - 1;
    out->nrepeated += n;
    vsum += vs;
  }
  if (out->df > 0) {
    out->raw_sd = sqrt(ss / out->df);
    out->within_sd = sqrt(vsum / out->nrepeated);
    double s2 = ss / out->df - vsum / out->nrepeated;
    out->sd = s2 > 0 ? sqrt(s2) : 0;
    out->identified = 1;
  }
  free(done);
  free(runs);
  return PS_OK;
}
