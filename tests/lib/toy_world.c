/*
 * toy_world.c - the synthetic experiment of toy_world.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>

#include "mtc/error.h"
#include "sim/world.h"
#include "sim/rng.h"
#include "toy_world.h"

#define NCOHORT 2
#define NCA 2
#define NSIGNER 3
#define TOY_KIND_BROWSER 16
#define TOY_KIND_CA 17

typedef struct toy toy;

typedef struct toy_src {
    sim_event ev;
    sim_stream st;
    toy *w;
    int index;
} toy_src;

struct toy {
    const toy_config *c;
    sim_engine *eng;
    sim_rng *rng;
    sim_metrics *m;
    sim_metric *full, *sless, *auth, *base_c, *base_m, *today, *isa, *ilm, *sigs,
        *cpu, *storage;
    toy_src browsers[NCOHORT], cas[NCA], clock;
    double lag_h[NCOHORT];
};

static double exp_delay(gsl_rng *r, double mean_s)
{
    return gsl_ran_exponential(r, mean_s);
}

static void on_handshake(sim_engine *e, sim_event *ev)
{
    toy_src *s = ev->arg;
    toy *w = s->w;
    gsl_rng *r = sim_rng_use(w->rng, &s->st);
    double t_h = sim_time_to_sec(sim_now(e)) / 3600.0;
    double p = 1 - exp(-t_h / (w->c->landmark_hours + w->lag_h[s->index]));
    int sl = gsl_rng_uniform(r) < p;
    sim_counter_add(w->full, (size_t)s->index, 1);
    if (sl)
        sim_counter_add(w->sless, (size_t)s->index, 1);
    double bytes = sl ? 700 + gsl_ran_gaussian(r, 40)
                      : 3900 + gsl_ran_gaussian(r, 150);
    sim_hist_observe(w->auth, (size_t)s->index, bytes);
    sim_hist_observe(w->base_c, (size_t)s->index,
                     4200 + gsl_ran_gaussian(r, 120));
    sim_hist_observe(w->base_m, (size_t)s->index,
                     17000 + gsl_ran_gaussian(r, 300));
    sim_hist_observe(w->today, (size_t)s->index, 1260); /* no draw: streams unchanged */
    sim_schedule_in(e, ev,
                    sim_time_from_sec(exp_delay(r, 1 / w->c->handshake_rate)));
}

static void on_issue(sim_engine *e, sim_event *ev)
{
    toy_src *s = ev->arg;
    toy *w = s->w;
    gsl_rng *r = sim_rng_use(w->rng, &s->st);
    sim_hist_observe(w->isa, (size_t)s->index, exp_delay(r, 60));
    sim_hist_observe(w->ilm, (size_t)s->index,
                     gsl_rng_uniform(r) * w->c->landmark_hours * 3600 +
                         exp_delay(r, 60));
    sim_schedule_in(e, ev, sim_time_from_sec(exp_delay(r, 120)));
}

static void on_checkpoint(sim_engine *e, sim_event *ev)
{
    toy_src *s = ev->arg;
    toy *w = s->w;
    gsl_rng *r = sim_rng_use(w->rng, &s->st);
    for (size_t i = 0; i < NSIGNER; i++) {
        sim_counter_add(w->sigs, i, 1 + (i == 0));
        sim_counter_add(w->cpu, i, 50 + (int64_t)gsl_rng_uniform_int(r, 20));
    }
    sim_gauge_add(w->storage, 0, 1000 + 10 * gsl_rng_uniform(r));
    sim_gauge_add(w->storage, 1, 800 + 10 * gsl_rng_uniform(r));
    sim_schedule_in(e, ev, SIM_HOUR);
}

static int stop_pred(sim_engine *e, void *arg)
{
    (void)e;
    const toy_config *c = arg;
    return c->stop && *c->stop;
}

static int toy_setup(toy *w, const toy_config *c)
{
    static const char *const cohorts[NCOHORT] = {"early", "late"};
    static const char *const cas[NCA] = {"ca-a", "ca-b"};
    static const char *const signers[NSIGNER] = {"ca-a", "ca-b", "witness-1"};
    sim_metrics_config mc = {0, 0, c->grid_step, 0};
    int rc;
    memset(w, 0, sizeof *w);
    w->c = c;
    w->lag_h[0] = 0.5;
    w->lag_h[1] = 6;
    if ((rc = sim_engine_create(&w->eng, NULL)) ||
        (rc = sim_rng_create(&w->rng, c->seed, (uint64_t)c->replication)) ||
        (rc = sim_metrics_create(&w->m, &mc, sim_engine_clock(w->eng))))
        return rc;
    sim_metrics *m = w->m;
    if ((rc = sim_metrics_counter(m, "handshake_full", "handshakes", NCOHORT,
                                  SIM_METRIC_SERIES, &w->full)) ||
        (rc = sim_metrics_counter(m, "handshake_signatureless", "handshakes",
                                  NCOHORT, SIM_METRIC_SERIES, &w->sless)) ||
        (rc = sim_metrics_histogram(m, "auth_bytes", "bytes", NCOHORT, 0, 100,
                                    1e6, 50, &w->auth)) ||
        (rc = sim_metrics_histogram(m, "auth_bytes_baseline_classical",
                                    "bytes", NCOHORT, 0, 100, 1e6, 50,
                                    &w->base_c)) ||
        (rc = sim_metrics_histogram(m, "auth_bytes_baseline_mldsa44", "bytes",
                                    NCOHORT, 0, 100, 1e6, 50, &w->base_m)) ||
        (rc = sim_metrics_histogram(m, "auth_bytes_today_classical", "bytes",
                                    NCOHORT, 0, 100, 1e6, 50, &w->today)) ||
        (rc = sim_metrics_histogram(m, "issuance_delay_standalone", "s", NCA,
                                    SIM_METRIC_REPLICATED, 0.1, 1e6, 20,
                                    &w->isa)) ||
        (rc = sim_metrics_histogram(m, "issuance_delay_landmark", "s", NCA,
                                    SIM_METRIC_REPLICATED, 0.1, 1e6, 20,
                                    &w->ilm)) ||
        (rc = sim_metrics_counter(m, "signatures", "signatures", NSIGNER,
                                  SIM_METRIC_SERIES | SIM_METRIC_REPLICATED,
                                  &w->sigs)) ||
        (rc = sim_metrics_counter(m, "sign_cpu_us", "us", NSIGNER,
                                  SIM_METRIC_SERIES | SIM_METRIC_REPLICATED,
                                  &w->cpu)) ||
        (rc = sim_metrics_gauge(m, "log_storage_bytes", "bytes", NCA,
                                SIM_METRIC_SERIES | SIM_METRIC_REPLICATED,
                                &w->storage)))
        return rc;
    if ((rc = sim_metric_set_cohort_labels(w->full, cohorts, NCOHORT)) ||
        (rc = sim_metric_set_cohort_labels(w->sless, cohorts, NCOHORT)) ||
        (rc = sim_metric_set_cohort_labels(w->auth, cohorts, NCOHORT)) ||
        (rc = sim_metric_set_cohort_labels(w->isa, cas, NCA)) ||
        (rc = sim_metric_set_cohort_labels(w->ilm, cas, NCA)) ||
        (rc = sim_metric_set_cohort_labels(w->sigs, signers, NSIGNER)) ||
        (rc = sim_metric_set_cohort_labels(w->cpu, signers, NSIGNER)) ||
        (rc = sim_metric_set_cohort_labels(w->storage, cas, NCA)))
        return rc;
    for (int i = 0; i < NCOHORT; i++) {
        toy_src *s = &w->browsers[i];
        s->w = w;
        s->index = i;
        sim_stream_init(&s->st, TOY_KIND_BROWSER, (uint64_t)i);
        sim_event_init(&s->ev, on_handshake, s);
        if ((rc = sim_schedule(w->eng, &s->ev, 0)))
            return rc;
    }
    for (int i = 0; i < NCA; i++) {
        toy_src *s = &w->cas[i];
        s->w = w;
        s->index = i;
        sim_stream_init(&s->st, TOY_KIND_CA, (uint64_t)i);
        sim_event_init(&s->ev, on_issue, s);
        if ((rc = sim_schedule(w->eng, &s->ev, 0)))
            return rc;
    }
    w->clock.w = w;
    sim_stream_init(&w->clock.st, TOY_KIND_CA, 99);
    sim_event_init(&w->clock.ev, on_checkpoint, &w->clock);
    if ((rc = sim_schedule(w->eng, &w->clock.ev, SIM_HOUR)))
        return rc;
    sim_engine_set_stop_predicate(w->eng, stop_pred, (void *)c);
    return MTC_OK;
}

static void toy_free(toy *w)
{
    sim_metrics_destroy(w->m);
    sim_rng_destroy(w->rng);
    sim_engine_destroy(w->eng);
}

void toy_defaults(toy_config *c)
{
    memset(c, 0, sizeof *c);
    c->duration = 2 * SIM_DAY;
    c->grid_step = SIM_HOUR;
    c->landmark_hours = 1;
    c->handshake_rate = 0.05;
    c->seed = 1;
    c->flushed_fd = -1;
}

/* Runs to the end (or the stop flag), storing after each chunk when
 * asked. Returns 1 when stopped by the flag, 0 at the end, or an error. */
static int toy_drive(toy *w, sim_results *db, int64_t run_id)
{
    const toy_config *c = w->c;
    sim_time chunk = c->flush_every > 0 ? c->flush_every : c->duration;
    int flushed = 0;
    for (;;) {
        sim_time now = sim_now(w->eng);
        sim_time stop = now > c->duration - chunk ? c->duration : now + chunk;
        sim_engine_set_stop_time(w->eng, stop);
        int reason = sim_engine_run(w->eng);
        if (reason < 0)
            return reason;
        if (reason == SIM_RUN_PREDICATE)
            return 1;
        if (stop >= c->duration)
            return 0;
        if (db && c->flush_every > 0) {
            int rc = sim_results_store_metrics(db, run_id, w->m);
            if (rc)
                return rc;
            if (!flushed && c->flushed_fd >= 0) {
                char b = 'f';
                if (write(c->flushed_fd, &b, 1) != 1)
                    return MTC_ERR_IO;
            }
            flushed = 1;
        }
    }
}

int toy_simulate(const toy_config *c, sim_metrics **out, sim_time *reached,
                 uint64_t *events)
{
    toy w;
    int rc = toy_setup(&w, c);
    if (rc == MTC_OK)
        rc = toy_drive(&w, NULL, 0);
    if (rc >= 0) {
        sim_metrics_finish(w.m, sim_now(w.eng));
        *reached = sim_now(w.eng);
        *events = sim_engine_events_executed(w.eng);
        *out = w.m;
        w.m = NULL;
        rc = MTC_OK;
    }
    toy_free(&w);
    return rc;
}

int toy_record_run(sim_results *db, int64_t exp, const toy_config *c,
                   int64_t *run_id)
{
    toy w;
    char v[64];
    sim_run_info ri = {exp, c->sweep_point, c->replication, c->seed, NULL,
                       NULL, "toy-1", 0, c->duration};
    int rc = toy_setup(&w, c);
    if (rc)
        goto done;
    if ((rc = sim_results_run_begin(db, &ri, run_id)))
        goto done;
    snprintf(v, sizeof v, "%.17g", c->landmark_hours * 3600);
    if ((rc = sim_results_add_param(db, *run_id, "ca", "ca-a",
                                    "landmark_interval", v)) ||
        (rc = sim_results_add_param(db, *run_id, "ca", "ca-b",
                                    "landmark_interval", v)) ||
        (rc = sim_results_mark_swept(db, *run_id, "ca", "ca-a",
                                     "landmark_interval")))
        goto done;
    snprintf(v, sizeof v, "%.17g", c->handshake_rate);
    if ((rc = sim_results_add_param(db, *run_id, "browsers", "early",
                                    "handshake_rate", v)) ||
        (rc = sim_results_add_param(db, *run_id, "browsers", "late",
                                    "handshake_rate", v)) ||
        (rc = sim_results_add_attr(db, *run_id, "model", "toy_world")))
        goto done;
    int how = toy_drive(&w, db, *run_id);
    if (how < 0) {
        sim_results_run_end(db, *run_id, SIM_RUN_FAILED, sim_now(w.eng),
                            sim_engine_events_executed(w.eng),
                            sim_strerror(how));
        rc = how;
        goto done;
    }
    sim_metrics_finish(w.m, sim_now(w.eng));
    int status = how ? SIM_RUN_INTERRUPTED : SIM_RUN_COMPLETED;
    if ((rc = sim_results_store_metrics(db, *run_id, w.m)) ||
        (rc = sim_results_run_end(db, *run_id, status, sim_now(w.eng),
                                  sim_engine_events_executed(w.eng), NULL)))
        goto done;
    rc = status;
done:
    toy_free(&w);
    return rc;
}

int toy_record_sweep(sim_results *db, int npoints, int reps, int64_t *exp)
{
    sim_experiment_info ei = {"toy-sweep", "toy_record_sweep", npoints, reps};
    int rc = sim_results_experiment_begin(db, &ei, exp);
    double l = 1;
    for (int p = 0; p < npoints && rc == MTC_OK; p++, l *= 4) {
        for (int r = 0; r < reps && rc == MTC_OK; r++) {
            toy_config c;
            int64_t run;
            toy_defaults(&c);
            c.landmark_hours = l;
            c.sweep_point = p;
            c.replication = r;
            c.seed = 7;
            rc = toy_record_run(db, *exp, &c, &run);
            if (rc == SIM_RUN_COMPLETED)
                rc = MTC_OK;
            else if (rc >= 0)
                rc = MTC_ERR_CALLBACK;
        }
        if (rc == MTC_OK)
            rc = sim_results_summarize(db, *exp, p, 0.95);
    }
    return rc;
}
