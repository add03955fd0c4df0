/* Running a scenario to a precision (run.precision, docs/model.md): replications are added
 * in fixed rounds until the 95% confidence half-width of every chosen metric is at most
 * the target times its mean, or the cap is reached. Built on sim_run and sim_run_rep, so
 * replication i is the same run as in sim_run, and the replications used are a function of
 * the scenario and the seed alone (never of the thread count). */
#ifndef PROVESIM_PRECISION_H
#define PROVESIM_PRECISION_H

#include "metrics.h"
#include "model.h"
#include "pipe.h"
#include "util.h"

/* The widest relative 95% half-width, over the metrics of s->prec_metrics, of the n
 * replications reps: half-width / |mean| (0 when both are 0; +inf for n < 2 or a mean of
 * 0 with a spread). */
double prec_reached(const scenario *s, const sim_metrics *reps, int n);

/* sim_run, to s's run.precision when it has one: the first round is run.replications
 * (at least 2) through sim_run, which also chooses a run.warmup: auto warm-up; then rounds
 * of s->prec_batch replications (the last one cut to the cap) while prec_reached exceeds
 * s->prec_target and fewer than s->prec_max replications have run. The result is what
 * sim_run gives with replications set to the number used, plus precision and
 * precision_reached. With o->on_span the added rounds run on the calling thread, so spans
 * still come in replication order. o->progress sees the first round only. Ownership and
 * errors as sim_run. Without run.precision this is sim_run. */
int prec_run(const scenario *s, const sim_opts *o, sim_result **out, ps_err *e);

#endif
