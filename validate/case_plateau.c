/*
 * validate/case_plateau.c - closed forms of the deployed system (steady
 * start): 1c the relying-party state plateau (2 x max_active subtree
 * hashes), the retained log (rate x lifetime entries) and signatures per
 * hour per signer (checkpoint cadence, batch sizes, quorum, an outage);
 * 1d Little's law on the update channel (fetch rate x bytes per fetch).
 * Ed25519 signers throughout: none of these quantities depends on the
 * signature algorithm (the update bytes do not carry signatures here).
 * Derivations in docs/validation.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "../sim/pki/pki_internal.h"
#include "mtc/error.h"
#include "mtc/taid.h"
#include "sim/web.h"
#include "vcases.h"
#include "vworld.h"

/* ---- 1c ---- */

typedef struct pcase {
    const char *label;
    double life, L, ckpt, rate;
    int nwit, quorum;
    double outage;      /* hours of a w<nwit> outage in the window (0: none) */
} pcase;

static const pcase sets_1c[] = {
    {"7d/1h/5min", 7 * 86400.0, 3600, 300, 0.5, 2, 1, 0},
    {"47d/4h/20min, w3 down 6 h", 47 * 86400.0, 4 * 3600.0, 1200, 0.05, 3, 2, 6},
    {"2d/30min/1min, 0.02/s", 2 * 86400.0, 1800, 60, 0.02, 2, 2, 0},
};

typedef struct retained {
    wfx *f;
    double sum;
    unsigned n;
} retained;

/* Entries the CA still holds above minSerial: its log size (through
 * pki_log_size, which reads either store, hashed or synthetic) minus the
 * index of minSerial (pki internals: the test-only view of the CA). */
static void retained_probe(sim_engine *sim, void *arg)
{
    (void)sim;
    retained *r = arg;
    pki_ca *ca = &pki_state_of(r->f->w)->ca[0];
    uint64_t size = pki_log_size(pki_ca_current(ca));
    uint64_t ms = ca->min_serial & ((UINT64_C(1) << 48) - 1);
    r->sum += (double)(size - ms);
    r->n++;
}

/* Expected signatures per checkpoint tick by one signer: the checkpoint
 * and one or two covering subtrees of a batch of n >= 1 entries (n = 1:
 * one subtree), nothing for an empty batch; n ~ Poisson(lambda). */
static void sigs_per_tick(double lambda, double *mean, double *var)
{
    double p0 = exp(-lambda), p1 = lambda * exp(-lambda), p2 = 1 - p0 - p1;
    *mean = 2 * p1 + 3 * p2;
    *var = 4 * p1 + 9 * p2 - *mean * *mean;
}

int case_1c(vctx *c)
{
    int64_t ex = vw_experiment(c, "plateau", sizeof sets_1c / sizeof sets_1c[0], 1);
    for (size_t k = 0; k < sizeof sets_1c / sizeof sets_1c[0]; k++) {
        const pcase *p = &sets_1c[k];
        const double F = 600, D = 600, window = 86400;
        double history = p->life + p->L + F + D;
        wfx f;
        if (wfx_init_start(&f, 41, 0, history + window, history, 3600, 0, 1, "steady") !=
            MTC_OK)
            return -1;
        char name[16];
        for (int i = 0; i < p->nwit; i++) {
            snprintf(name, sizeof name, "w%d", i + 1);
            void *w = wfx_cfg("cosigner", name);
            wfx_str("cosigner", w, "algorithm", "ed25519");
            wfx_const("cosigner", w, "latency", 1);
            wfx_add(&f, "cosigner", w);
        }
        void *ca = wfx_cfg("ca", "ca");
        wfx_str("ca", ca, "algorithm", "ed25519");
        wfx_num("ca", ca, "rate", p->rate);
        wfx_num("ca", ca, "lifetime", p->life);
        wfx_num("ca", ca, "landmark_interval", p->L);
        wfx_num("ca", ca, "checkpoint_interval", p->ckpt);
        for (int i = 0; i < p->nwit; i++) {
            snprintf(name, sizeof name, "w%d", i + 1);
            wfx_item("ca", ca, "cosigners", name);
        }
        wfx_num("ca", ca, "quorum", p->quorum);
        wfx_add(&f, "ca", ca);
        void *us = wfx_cfg("update_service", "updates");
        wfx_num("update_service", us, "fetch_interval", F);
        wfx_const("update_service", us, "publication_delay", D);
        wfx_add(&f, "update_service", us);
        if (vw_start(&f) != MTC_OK) {
            wfx_free(&f);
            return -1;
        }
        /* just after each pruning (every hour on the hour) in the window */
        retained ret = {&f, 0, 0};
        for (double t = history; t < history + window; t += 3600)
            sim_call_at(f.eng, sim_time_from_sec(ceil(t / 3600) * 3600 + 1),
                        retained_probe, &ret);
        if (p->outage > 0) {
            double args[1] = {p->outage * 3600};
            /* an outage starting two hours into the window */
            sim_engine_set_stop_time(f.eng, sim_time_from_sec(history + 7200));
            sim_engine_run(f.eng);
            snprintf(name, sizeof name, "w%d", p->nwit);
            if (sim_world_act(f.w, "cosigner_outage", name, args, 1, f.err,
                              sizeof f.err) != MTC_OK) {
                fprintf(stderr, "validate: 1c: %s\n", f.err);
                wfx_free(&f);
                return -1;
            }
            sim_engine_set_stop_time(f.eng, sim_time_from_sec(history + window));
        }
        if (vw_complete(c, &f, ex, (int64_t)k, 41, 0) != MTC_OK) {
            wfx_free(&f);
            return -1;
        }
        char row[112];
        /* relying-party state: 2 subtree hashes per active landmark, plus
         * 16 bytes for minSerial's revoked range and 16 for the log header */
        double M = ceil(p->life / p->L) + 1, rp = 64 * M + 32;
        sim_metric *g = sim_metrics_find(f.m, "rp_state_bytes");
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < sim_metric_series_len(g); i++)
            if (sim_metrics_grid_time(f.m, i) >= sim_time_from_sec(history)) {
                double v = sim_metric_series_value(g, SIM_ALL_COHORTS, i);
                lo = fmin(lo, v);
                hi = fmax(hi, v);
            }
        snprintf(row, sizeof row, "RP state, lowest, %s", p->label);
        v_row(c, row, "bytes", 0, rp, 0, lo, lo, lo, 0, 0);
        snprintf(row, sizeof row, "RP state, highest, %s", p->label);
        v_row(c, row, "bytes", 0, rp, 0, hi, hi, hi, 0, 0);
        /* retained log: arrivals in (t - lifetime, t], Poisson */
        double mean_ret = ret.sum / ret.n, expect = p->rate * p->life;
        snprintf(row, sizeof row, "retained log entries, %s", p->label);
        v_row(c, row, "entries", 0, expect, 0, mean_ret, mean_ret, mean_ret, 0,
              v_zquant(0.9995) * sqrt(expect));
        /* signatures per hour per signer */
        double m1, var1, ticks = window / p->ckpt;
        sigs_per_tick(p->rate * p->ckpt, &m1, &var1);
        double per_h = m1 * 3600 / p->ckpt;
        /* +- one checkpoint at each edge of the window (and of an outage) */
        double edge = 3 * 2 * (p->outage > 0 ? 2 : 1) / (window / 3600);
        double tol = v_zquant(0.9995) * sqrt(var1 * ticks) / (window / 3600) + edge;
        sim_metric *sg = sim_metrics_find(f.m, "signatures");
        for (size_t s = 0; s < sim_metric_cohorts(sg); s++) {
            const char *who = sim_metric_cohort_label(sg, s);
            snprintf(name, sizeof name, "w%d", p->nwit);
            int down = p->outage > 0 && !strcmp(who, name);
            double e = per_h * (down ? (window / 3600 - p->outage) / (window / 3600) : 1);
            double got = (double)sim_counter_value(sg, s) / (window / 3600);
            snprintf(row, sizeof row, "signatures/h, %s, %s", who, p->label);
            v_row(c, row, "1/h", 2, e, 0, got, got, got, 0, tol);
        }
        wfx_free(&f);
    }
    return 0;
}

/* ---- 1d ---- */

int case_1d(vctx *c)
{
    const double life = 2 * 86400.0, L = 3600, F = 600, D = 600, window = 2 * 86400.0;
    const double T_poisson = 3 * 3600.0, T_chrome = 5 * 3600.0, first = 60;
    const double sessions = 3, fail = 0.01;
    const int N = 1000;
    const unsigned R = 10;
    const char *id = "32473.1";
    double history = life + L + F + D;
    double fe[2][10], by[2][10];
    int64_t ex = vw_experiment(c, "update-channel", 1, R);
    for (unsigned r = 0; r < R; r++) {
        wfx f;
        if (wfx_init_start(&f, 51, r, history + window, history, 3600, 0, 1, "steady") !=
            MTC_OK)
            return -1;
        void *ca = wfx_cfg("ca", "ca");
        wfx_str("ca", ca, "id", id);
        wfx_str("ca", ca, "algorithm", "ed25519");
        wfx_num("ca", ca, "rate", 0.2);
        wfx_num("ca", ca, "lifetime", life);
        wfx_num("ca", ca, "landmark_interval", L);
        wfx_num("ca", ca, "checkpoint_interval", 600);
        /* no pruning: minSerial never moves, so a publication is made
         * exactly when a landmark is (once per L) */
        wfx_num("ca", ca, "prune_interval", 4e7);
        wfx_add(&f, "ca", ca);
        void *us = wfx_cfg("update_service", "updates");
        wfx_num("update_service", us, "fetch_interval", F);
        wfx_const("update_service", us, "publication_delay", D);
        wfx_add(&f, "update_service", us);
        void *a = wfx_cfg("browsers", "online");
        wfx_num("browsers", a, "count", N);
        wfx_num("browsers", a, "sessions_per_day", 0);
        wfx_exp("browsers", a, "update_interval", T_poisson);
        wfx_num("browsers", a, "update_fail_prob", 0);
        wfx_add(&f, "browsers", a);
        void *b = wfx_cfg("browsers", "sessions");
        wfx_num("browsers", b, "count", N);
        wfx_num("browsers", b, "sessions_per_day", sessions);
        for (int h = 0; h < SIM_PROFILE_HOURS; h++) /* flat */
            ((web_browsers_config *)b)->online_profile[h] = 1;
        /* the derivation below: a check 60 s after every session start
         * (Chrome's component updater), then every 5 h while online */
        wfx_str("browsers", b, "update_on_start", "always");
        wfx_add(&f, "browsers", b);
        if (vw_run(c, &f, ex, 0, 51, r) != MTC_OK) {
            wfx_free(&f);
            return -1;
        }
        const char *co[2] = {"online", "sessions"};
        for (int k = 0; k < 2; k++) {
            fe[k][r] = (double)vw_counter(&f, "update_fetch", co[k]) / N / (window / 3600);
            by[k][r] = (double)vw_counter(&f, "update_bytes", co[k]) / N / (window / 3600);
        }
        wfx_free(&f);
    }
    /* The update from publication a to b (sim/pki/pki_update_encode.c):
     * 12 bytes of header, and for the changed CA its ID (1 + len),
     * minSerial (8), the log list (2 + 22 per log), 52 bytes per new
     * subtree, an empty revocation list (4). Two subtrees per landmark. */
    mtc_taid t;
    mtc_taid_from_text(id, strlen(id), &t);
    double fixed = 12 + 1 + t.len + 8 + 2 + 22 + 4, per_lm = 2 * 52;
    /* Poisson checks: fetch rate mu; a fetch brings something iff a
     * publication (hourly, fixed phase) fell in its Exp(mu) gap:
     * E[min(G / L, 1)] = (1 - exp(-mu L)) / (mu L). */
    double mu = 3600 / T_poisson;           /* per hour */
    double rate_a = mu, bytes_a = fixed * (1 - exp(-mu)) + per_lm;
    /* Sessions (flat profile): a cycle is a session S ~ lognormal(ln
     * 3600, 1) plus an offline wait Exp(3/day); checks at 60 s after the
     * start, then every 5 h while online; successful with 1 - p. */
    double ES = exp(log(3600.0) + 0.5), cycle = ES + 86400 / sessions, checks = 0;
    for (int k = 0; k < 100; k++)
        checks += gsl_cdf_ugaussian_Q(log((first + k * T_chrome) / 3600.0));
    double rate_b = (1 - fail) * checks / cycle * 3600;
    /* share of fetches that bring something: within a session (gap 5 h)
     * always; the first of a session follows an offline wait W >= Exp(3/d)
     * and brings something with probability in [E min(W/L, 1), 1] */
    double lamL = sessions / 24.0, p_first = (1 - exp(-lamL)) / lamL;
    double share_first = 1 / checks;        /* of the successful checks */
    double lo_new = 1 - share_first * (1 - p_first);
    double bytes_b = fixed * rate_b * (1 + lo_new) / 2 + per_lm;
    double unc_b = fixed * rate_b * (1 - lo_new) / 2;
    vstat s;
    v_stat(fe[0], R, &s);
    v_row(c, "fetches/client-h, online, Poisson 3 h", "1/h", 4, rate_a, 0,
          s.mean, s.lo95, s.hi95, (int)R, s.tol);
    v_stat(by[0], R, &s);
    v_row(c, "update bytes/client-h, online", "bytes/h", 2, bytes_a, 0,
          s.mean, s.lo95, s.hi95, (int)R, s.tol);
    v_stat(fe[1], R, &s);
    v_row(c, "fetches/client-h, sessions, 60 s + 5 h", "1/h", 4, rate_b,
          0, s.mean, s.lo95, s.hi95, (int)R, s.tol);
    v_stat(by[1], R, &s);
    v_row(c, "update bytes/client-h, sessions", "bytes/h", 2, bytes_b, unc_b, s.mean,
          s.lo95, s.hi95, (int)R, s.tol + unc_b);
    return 0;
}
