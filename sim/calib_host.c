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
 * that runs the same work at another speed from one run to the next adds. raw has
 * df = sum_g (n_g - 1) degrees of freedom, so its 95% interval is
 * [df raw / chi2_0.975(df), df raw / chi2_0.025(df)]; less the same mean of v, it bounds
 * sd^2 (sd_lo, sd_hi). Three settings run three times give df = 6, and sd within a factor
 * of about 0.6 to 2.2 of its estimate.
 *
 * The same per-run reading gives the GPU phases' host load (calib_host_load, at the end):
 * two one-worker runs whose settings differ in the cores alone, and the cpu phase beside a
 * GPU phase, slower on the fewer cores by more than the host threads fitted from cpu_s
 * explain. */
#include "calib.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe.h"
#include "scn.h"
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
  host_ph gph[HOST_NPH]; /* the gpu phases (calib_host's modes), threads unused */
  int nph, ngph, maxk, too_many, cores; /* cores: the header's cpu_cores, 0 when not given */
  double steal;                   /* the header's host_steal, -1 when not given */
  double steal_k;                 /* calib_read.steal_exponent */
  strtab workers;
  size_t nworkers; /* the workers seen (host_file) */
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
  if (!r->resource || !r->phase) return 0;
  int cpu = !strcmp(r->resource, "cpu");
  if (!cpu && strcmp(r->resource, "gpu")) return 0;
  if (!calib__ranks_kept(&h->rk, r->rep, r->gpu, r->worker, r->call)) return 0;
  char w[48];
  snprintf(w, sizeof w, "%d %d", r->gpu, r->worker);
  strtab_id(&h->workers, w, 1u << 20);
  int k = r->npartitions > 0 ? r->npartitions : 1;
  if (k > h->maxk) h->maxk = k;
  if (!cpu) { /* a gpu phase: its mean length a partition, for the modes */
    int g = 0;
    while (g < h->ngph && strcmp(h->gph[g].name, r->phase)) g++;
    if (g == HOST_NPH) return 0;
    if (g == h->ngph) snprintf(h->gph[h->ngph++].name, sizeof h->gph[g].name, "%s", r->phase);
    host_ph *q = &h->gph[g];
    double x = (r->t1 - r->t0) / k;
    q->n++;
    q->mean += (x - q->mean) / (double)q->n;
    return 0;
  }
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
  h->nworkers = h->workers.n;
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

/* Otsu's split of the sorted x[0..n), n >= 2: the k in [1, n) whose classes x[0..k) and
 * x[k..n) have the most variance between them. */
static int otsu_split(const double *x, int n) {
  double tot = 0, pre = 0, best = -1;
  int at = 1;
  for (int i = 0; i < n; i++) tot += x[i];
  for (int k = 1; k < n; k++) {
    pre += x[k - 1];
    double m0 = pre / k, m1 = (tot - pre) / (n - k), b = (double)k * (n - k) * (m0 - m1) * (m0 - m1);
    if (b > best) best = b, at = k;
  }
  return at;
}

/* A gpu phase's two modes by run (calib.h, calib_gpu_modes): over the runs of one worker
 * and calls of one partition, each run's mean length a partition, split by Otsu's rule;
 * the phases in order of first sight. */
static void gpu_modes(const host_run *runs, int nfiles, calib_host_report *out) {
  strtab names = {0};
  for (int i = 0; i < nfiles; i++)
    for (int h = 0; h < runs[i].ngph; h++) strtab_id(&names, runs[i].gph[h].name, 1u << 20);
  double *x = xcalloc((size_t)nfiles, sizeof *x);
  for (int id = 0; id < (int)names.n && out->nmodes < CALIB_MODES_MAX; id++) {
    const char *name = strtab_name(&names, id);
    int n = 0;
    for (int i = 0; i < nfiles; i++) {
      if (runs[i].nworkers != 1 || runs[i].maxk != 1) continue;
      for (int h = 0; h < runs[i].ngph; h++)
        if (!strcmp(runs[i].gph[h].name, name) && runs[i].gph[h].n > 0) x[n++] = runs[i].gph[h].mean;
    }
    if (n < CALIB_MODES_RUNS) continue;
    qsort(x, (size_t)n, sizeof *x, ps_cmp_double);
    int at = otsu_split(x, n);
    double m0 = 0, m1 = 0, ss = 0;
    for (int i = 0; i < at; i++) m0 += x[i] / at;
    for (int i = at; i < n; i++) m1 += x[i] / (n - at);
    for (int i = 0; i < n; i++) ss += (x[i] - (i < at ? m0 : m1)) * (x[i] - (i < at ? m0 : m1));
    double sw = n > 2 ? sqrt(ss / (n - 2)) : 0;
    if (at < 2 || n - at < 2 || m1 < CALIB_MODES_RATIO * m0 || m1 - m0 < CALIB_MODES_SEP * sw) continue;
    calib_gpu_mode *o = &out->modes[out->nmodes++];
    snprintf(o->phase, sizeof o->phase, "%s", name);
    o->nruns = n;
    o->nslow = n - at;
    o->fast = m0;
    o->slow = m1;
    o->cut = (x[at - 1] + x[at]) / 2;
  }
  free(x);
  strtab_free(&names);
}

int calib_run_modes(model *m, const calib_host_report *hr) {
  int set = 0;
  for (int k = 0; k < hr->nmodes; k++) {
    const calib_gpu_mode *g = &hr->modes[k];
    const int p = scn_phase_index(m, g->phase);
    if (p < 0 || m->phases[p].resource != RES_GPU || !(g->fast > 0 && g->slow <= 10 * g->fast))
      continue; /* run_mode.scale is at most 10 */
    phase *ph = &m->phases[p];
    ph->mode_share = (double)g->nslow / g->nruns;
    ph->mode_scale = g->slow / g->fast;
    const double c = 1 / phase_mode_mean(ph);
    dist_scale(&ph->time, c);
    if (ph->has_fixed) dist_scale(&ph->fixed, c);
    set++;
  }
  return set;
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
    double raw2 = ss / out->df, within2 = vsum / out->nrepeated, s2 = raw2 - within2;
    out->sd = s2 > 0 ? sqrt(s2) : 0;
    double lo2 = out->df * raw2 / gsl_cdf_chisq_Pinv(0.975, out->df) - within2;
    double hi2 = out->df * raw2 / gsl_cdf_chisq_Pinv(0.025, out->df) - within2;
    out->sd_lo = lo2 > 0 ? sqrt(lo2) : 0;
    out->sd_hi = hi2 > 0 ? sqrt(hi2) : 0;
    out->identified = 1;
  }
  free(done);
  gpu_modes(runs, nfiles, out);
  free(runs);
  return PS_OK;
}

/* ---- the GPU phases' host load from a pair of runs on fewer and more cores ---- */

/* Whether phase b runs after phase a at any depth of the model's after lists (a search
 * from b over its predecessors, each phase visited once). */
static int reaches(const model *m, int a, int b) {
  int *seen = xcalloc((size_t)m->nphases, sizeof *seen), *stack = xmalloc((size_t)m->nphases * sizeof *stack);
  int n = 0, found = 0;
  stack[n++] = b, seen[b] = 1;
  while (n && !found) {
    const phase *q = &m->phases[stack[--n]];
    for (int i = 0; i < q->nafter; i++) {
      int x = q->after[i];
      if (x == a) found = 1;
      if (!seen[x]) seen[x] = 1, stack[n++] = x;
    }
  }
  free(seen);
  free(stack);
  return found || a == b;
}

/* The mean duration of one phase in a simulated replication, each worker's first `skip`
 * calls left out. */
typedef struct load_acc {
  const char *phase;
  int skip;
  double sum;
  size_t n;
} load_acc;

static void load_span(void *ctx, const sim_span *sp) {
  load_acc *a = ctx;
  if (sp->call < a->skip || strcmp(sp->phase, a->phase)) return;
  a->sum += sp->t1 - sp->t0;
  a->n++;
}

/* P's mean on the scenario at `cores` with every GPU phase holding h host threads. */
static int load_sim(scenario *s, int cores, double h, const char *name, double *mean, ps_err *e) {
  for (int i = 0; i < s->model->nphases; i++)
    if (s->model->phases[i].resource == RES_GPU) s->model->phases[i].host_threads = h;
  s->cpu_cores = cores;
  load_acc a = {.phase = name, .skip = 3};
  sim_metrics mt = {0};
  int rc = sim_run_rep(s, 0, load_span, &a, &mt, e);
  sim_metrics_free(&mt);
  if (rc != PS_OK) return rc;
  if (!a.n) return ps_fail(e, PS_EINPUT, "host load: the simulation ran no %s span", name);
  *mean = a.sum / (double)a.n;
  return PS_OK;
}

/* P's mean on `small` cores over its mean on `large`, every GPU phase holding h. */
static int load_ratio(scenario *s, int small, int large, double h, const char *name, double *ratio, ps_err *e) {
  double ms = 0, ml = 0;
  int rc = load_sim(s, small, h, name, &ms, e);
  if (rc == PS_OK) rc = load_sim(s, large, h, name, &ml, e);
  if (rc == PS_OK) *ratio = ms / ml;
  return rc;
}

int calib_host_load(model *m, const char *const *files, int nfiles, const calib_read *rd, calib_load_report *out,
                    ps_err *e) {
  memset(out, 0, sizeof *out);
  out->small = out->large = -1;
  if (nfiles < 2) return PS_OK;
  host_run *runs = xcalloc((size_t)nfiles, sizeof *runs);
  int rc = PS_OK;
  for (int i = 0; i < nfiles && rc == PS_OK; i++) rc = host_file(files[i], rd, &runs[i], e);
  /* The pair: one worker, one partition a call, each cpu phase at one thread count, the
   * same in both, on fewer and more cores (the first such pair in file order). */
  for (int i = 0; i < nfiles && rc == PS_OK && out->small < 0; i++)
    for (int j = 0; j < nfiles && out->small < 0; j++) {
      const host_run *a = &runs[i], *b = &runs[j];
      if (!a->ok || !b->ok || a->nworkers != 1 || b->nworkers != 1 || a->maxk != 1 || b->maxk != 1 ||
          a->cores <= 0 || b->cores <= a->cores || a->nph != b->nph)
        continue;
      const char *ka = strchr(a->key, ':'), *kb = strchr(b->key, ':');
      if (ka && kb && !strcmp(ka, kb)) out->small = i, out->large = j;
    }
  /* The cpu phase that runs beside a GPU phase (neither after the other), in both runs. */
  int P = -1, pi = -1;
  for (int p = 0; p < m->nphases && P < 0 && out->small >= 0; p++) {
    if (m->phases[p].resource != RES_CPU) continue;
    for (int g = 0; g < m->nphases && P < 0; g++)
      if (m->phases[g].resource == RES_GPU && !reaches(m, p, g) && !reaches(m, g, p))
        for (int k = 0; k < runs[out->small].nph; k++)
          if (!strcmp(runs[out->small].ph[k].name, m->phases[p].name)) P = p, pi = k;
  }
  if (rc != PS_OK || P < 0) goto done;
  const host_run *sm = &runs[out->small], *lg = &runs[out->large];
  out->phase = m->phases[P].name;
  out->threads = sm->ph[pi].threads;
  out->cores_small = sm->cores, out->cores_large = lg->cores;
  out->measured = sm->ph[pi].mean / lg->ph[pi].mean;
  /* The model as fitted so far, in a scenario of the pair's settings (no lock: one worker
   * never waits for it), simulated at both core counts. */
  const char *tmp = getenv("TMPDIR");
  char *dir = xasprintf("%s/provesim-load.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    rc = ps_fail(e, PS_ERR, "host load: cannot make a temporary folder in %.400s: %s", tmp && *tmp ? tmp : "/tmp",
                 strerror(errno));
    free(dir);
    goto done;
  }
  char *mp = xasprintf("%s/model.yaml", dir), *sp = xasprintf("%s/scn.yaml", dir);
  ps_buf b = {0};
  calib_model_yaml(&b, m);
  rc = ps_write_file_atomic(mp, b.p, b.len, e);
  free(b.p);
  b = (ps_buf){0};
  ps_buf_printf(&b, "scenario: host-load\nmodel: model.yaml\nsystem:\n  gpus: 1\n  workers_per_gpu: 1\n  cpu_cores: %d\n"
                "  batch: 1\n  mutex: none\n  threads: {per_worker: %d}\nworkload:\n  partitions: 400\n"
                "run:\n  warmup: 3\n  cooldown: 1\n  replications: 1\n  seed: 1\n", lg->cores, out->threads);
  if (rc == PS_OK) rc = ps_write_file_atomic(sp, b.p, b.len, e);
  free(b.p);
  scenario *s = NULL;
  if (rc == PS_OK) rc = scn_load(sp, NULL, 0, &s, e);
  remove(mp), remove(sp), rmdir(dir);
  free(mp), free(sp), free(dir);
  if (rc != PS_OK) goto done;
  double h0 = 0; /* the GPU phases' host threads as fitted so far (the largest) */
  for (int i = 0; i < m->nphases; i++)
    if (m->phases[i].resource == RES_GPU && m->phases[i].host_threads > h0) h0 = m->phases[i].host_threads;
  double lo = h0, hi = CALIB_LOAD_MAX, r = 0;
  rc = load_ratio(s, sm->cores, lg->cores, h0, out->phase, &r, e);
  if (rc == PS_OK && r >= out->measured) { /* the host threads as fitted explain it */
    out->h = h0, out->simulated = r, out->fitted = 1;
  } else if (rc == PS_OK) {
    for (int it = 0; it < 24 && rc == PS_OK && hi - lo > 1e-3; it++) {
      double mid = (lo + hi) / 2;
      rc = load_ratio(s, sm->cores, lg->cores, mid, out->phase, &r, e);
      if (rc == PS_OK && r < out->measured) lo = mid;
      else hi = mid;
    }
    out->h = (lo + hi) / 2;
    if (rc == PS_OK) rc = load_ratio(s, sm->cores, lg->cores, out->h, out->phase, &out->simulated, e);
    out->fitted = rc == PS_OK;
  }
  scn_free(s);
  if (rc == PS_OK && out->fitted)
    for (int i = 0; i < m->nphases; i++)
      if (m->phases[i].resource == RES_GPU) m->phases[i].host_threads = out->h;
done:
  free(runs);
  return rc;
}
