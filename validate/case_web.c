/*
 * validate/case_web.c - the cases on the web side over the test PKI
 * (tests/lib/web_pki_fixture.h, timing simple enough for closed forms):
 * 1a the signatureless fraction against its closed form, 2a the coverage
 * of the 95 % intervals of that fraction. Derivations: docs/validation.md and docs/model.md
 * ("Web side: signatureless fraction, closed form").
 *
 * (The PKI-world cases live in other files: tests/lib's two fixtures both
 * name their handle `wfx` and cannot share a translation unit.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/web_run.h"
#include "mtc/error.h"
#include "vcase.h"
#include "vcases.h"

/* The closed form (docs/model.md): landmarks every L, published at once;
 * m site intervals; Poisson checks of rate mu; window [t0, t0 + T]. */
static double formula(double mu, double L, int m, double t0, double T)
{
    double s = 0;
    for (int k = 1; k <= m; k++)
        s += exp(-mu * (t0 - k * L));
    return 1 - s / m * (1 - exp(-mu * T)) / (mu * T);
}

typedef struct wcase {
    const char *label;
    double L;           /* landmark interval, s */
    int m;              /* first requests spread over m * L */
    double mu;          /* update checks per second */
    double t0, T;       /* window */
    int clients, sites;
    double visits;      /* per client-hour */
    double lifetime;    /* certificate lifetime (0: 7 days) */
    double renew;       /* renew_fraction */
} wcase;

static void record(vctx *c, int64_t exp, int64_t point, uint64_t seed, uint64_t rep,
                   wrun *r, const web_sites_config *s, const web_browsers_config *b,
                   const wfx_config *pc, sim_time stop)
{
    if (!c->db || !exp)
        return;
    sim_run_info ri;
    memset(&ri, 0, sizeof ri);
    ri.experiment_id = exp;
    ri.sweep_point = point;
    ri.replication = (int64_t)rep;
    ri.seed = seed;
    ri.program_version = "validate";
    ri.sim_stop = stop;
    int64_t run;
    if (sim_results_run_begin(c->db, &ri, &run) != MTC_OK)
        return;
    sim_results_add_params(c->db, run, &sim_sites_schema, s->name, s);
    sim_results_add_params(c->db, run, &sim_browsers_schema, b->name, b);
    char v[64];
    snprintf(v, sizeof v, "%.0f", sim_time_to_sec(pc->landmark_interval));
    sim_results_add_param(c->db, run, "test_pki", "fixture", "landmark_interval", v);
    snprintf(v, sizeof v, "%.0f", sim_time_to_sec(pc->pub_delay));
    sim_results_add_param(c->db, run, "test_pki", "fixture", "pub_delay", v);
    snprintf(v, sizeof v, "%.0f", sim_time_to_sec(pc->lifetime));
    sim_results_add_param(c->db, run, "test_pki", "fixture", "lifetime", v);
    sim_results_add_attr(c->db, run, "validation_case", c->case_id);
    sim_results_add_attr(c->db, run, "model", "web side on tests/lib/web_pki_fixture");
    sim_results_store_metrics(c->db, run, r->metrics);
    sim_results_run_end(c->db, run, SIM_RUN_COMPLETED, sim_now(r->sim),
                        sim_engine_events_executed(r->sim), NULL);
}

/* One run; returns the signatureless fraction of the window, and the
 * per-hour series of the fraction in series[0..*nser) when asked. */
static double run_one(vctx *c, const wcase *w, int64_t exp, int64_t point,
                      uint64_t seed, uint64_t rep, double *series, size_t *nser)
{
    wfx_config pc;
    wfx_defaults(&pc);
    pc.landmark_interval = sim_time_from_sec(w->L);
    if (w->lifetime > 0)
        pc.lifetime = sim_time_from_sec(w->lifetime);
    /* The deliberately wrong model: landmarks reach clients one interval
     * late (the publication follows the allocation by L). */
    if (c->wrong == V_WRONG_LATE_LANDMARKS)
        pc.pub_delay = sim_time_from_sec(w->L);
    web_sites_config *site = wrun_sites_new();
    snprintf(site->name, sizeof site->name, "sites");
    site->count = w->sites;
    site->issue_spread = sim_time_from_sec(w->m * w->L);
    site->retry_after = SIM_SEC;
    if (w->renew > 0)
        site->renew_fraction = w->renew;
    web_browsers_config *co = wrun_browsers_new();
    snprintf(co->name, sizeof co->name, "clients");
    co->count = w->clients;
    co->sessions_per_day = 0;
    co->visits_per_hour = w->visits;
    co->zipf_exponent = 0;
    co->update_first_delay = 0;
    co->update_fail_prob = 0;
    co->ticket_lifetime = 0;
    sim_dist_destroy(co->update_interval);
    sim_dist_exponential(&co->update_interval, 1 / w->mu);
    wrun r;
    double f = NAN;
    sim_time t0 = sim_time_from_sec(w->t0), t1 = sim_time_from_sec(w->t0 + w->T);
    if (wrun_create(&r, &pc, seed, rep, 0, 1, t0, 0,
                    (const web_sites_config *const *)&site, 1,
                    (const web_browsers_config *const *)&co, 1) == MTC_OK) {
        wrun_until(&r, t1);
        double full = (double)wrun_counter(&r, "handshake_full");
        double sl = (double)wrun_counter(&r, "handshake_signatureless");
        f = full > 0 ? sl / full : NAN;
        if (series) {
            sim_metric *mf = sim_metrics_find(r.metrics, "handshake_full");
            sim_metric *ms = sim_metrics_find(r.metrics, "handshake_signatureless");
            size_t len = sim_metric_series_len(mf), n = 0;
            for (size_t k = 1; k < len; k++) {
                double df = sim_metric_series_value(mf, SIM_ALL_COHORTS, k) -
                            sim_metric_series_value(mf, SIM_ALL_COHORTS, k - 1);
                double ds = sim_metric_series_value(ms, SIM_ALL_COHORTS, k) -
                            sim_metric_series_value(ms, SIM_ALL_COHORTS, k - 1);
                if (df > 0)
                    series[n++] = ds / df;
            }
            *nser = n;
        }
        record(c, exp, point, seed, rep, &r, site, co, &pc, t1);
    } else {
        fprintf(stderr, "validate: web run: %s\n", r.err);
    }
    wrun_free(&r);
    sim_param_config_free(&sim_sites_schema, site);
    sim_param_config_free(&sim_browsers_schema, co);
    return f;
}

/* ---- 1a ---- */

static const wcase sets_1a[] = {
    {"L 1h, m 6, 1/mu 6h", 3600, 6, 1 / 21600.0, 7 * 3600 + 60, 6 * 3600, 1500, 60, 3, 0, 0},
    {"L 30min, m 8, 1/mu 2h", 1800, 8, 1 / 7200.0, 4 * 3600 + 60, 4 * 3600, 1500, 60, 3, 0, 0},
    {"L 2h, m 3, 1/mu 12h", 7200, 3, 1 / 43200.0, 6 * 3600 + 60, 8 * 3600, 1500, 60, 3, 0, 0},
};

int case_1a(vctx *c)
{
    const size_t R = 10;
    for (size_t k = 0; k < sizeof sets_1a / sizeof sets_1a[0]; k++) {
        const wcase *w = &sets_1a[k];
        int64_t exp = 0;
        if (c->db) {
            sim_experiment_info info = {"validate-1a", "build/validate --case 1a", 1, (int64_t)R};
            sim_results_experiment_begin(c->db, &info, &exp);
        }
        double x[16];
        for (size_t r = 0; r < R; r++)
            x[r] = run_one(c, w, exp, 0, 77, r, NULL, NULL);
        vstat s;
        v_stat(x, R, &s);
        char name[96];
        snprintf(name, sizeof name, "signatureless, %s", w->label);
        v_row(c, name, "", 4, formula(w->mu, w->L, w->m, w->t0, w->T), 0, s.mean,
              s.lo95, s.hi95, (int)R, s.tol);
    }
    return 0;
}

/* ---- 2a ---- */

int case_2a(vctx *c)
{
    /* K experiments of n replications each, every one a 95 % Student-t
     * interval of the fraction (as the run summary computes it). A
     * smaller world than 1a: the intervals are wider, coverage is the
     * same question. */
    const wcase w = {"L=1h m=6 1/mu=6h", 3600, 6, 1 / 21600.0, 7 * 3600 + 60,
                     6 * 3600, 300, 60, 3, 0, 0};
    const unsigned K = 200, n = 5;
    double truth = formula(w.mu, w.L, w.m, w.t0, w.T);
    unsigned covered = 0;
    int64_t exp = 0;
    if (c->db) {
        sim_experiment_info info = {"validate-2a", "build/validate --case 2a", K, n};
        sim_results_experiment_begin(c->db, &info, &exp);
    }
    for (unsigned k = 0; k < K; k++) {
        double x[8];
        for (unsigned r = 0; r < n; r++)
            x[r] = run_one(c, &w, exp, k, 1000 + k, r, NULL, NULL);
        sim_ci ci;
        if (sim_ci_student(x, n, 0.95, &ci) == MTC_OK && ci.lo <= truth && truth <= ci.hi)
            covered++;
    }
    unsigned lo, hi;
    v_binom_band(K, 0.95, 0.999, &lo, &hi);
    double p = (double)covered / K, z = 1.959964;
    /* Wilson 95 % interval of the coverage */
    double d = 1 + z * z / K, mid = (p + z * z / (2 * K)) / d;
    double hw = z * sqrt(p * (1 - p) / K + z * z / (4.0 * K * K)) / d;
    double tol = fmax(0.95 - (double)lo / K, (double)hi / K - 0.95);
    v_row(c, "coverage, 200 intervals of 5 runs", "", 3, 0.95, 0, p,
          mid - hw, mid + hw, (int)K, tol);
    return 0;
}
