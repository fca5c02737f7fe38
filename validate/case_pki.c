/*
 * validate/case_pki.c - cases on small PKI worlds (one CA, Ed25519
 * signers: no case here depends on the signature algorithm, and real
 * ML-DSA-44 signatures would dominate the run time): 2b the coverage of
 * the 95 % intervals of the mean delay to a standalone certificate, 2c
 * the transient detector on the CA's issuance series, 6b conservation
 * laws in a controlled world with sites and clients. Derivations in
 * docs/validation.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/sig.h"
#include "sim/transient.h"
#include "vcases.h"
#include "vworld.h"

/* A CA named `name` (Ed25519) asking the listed witnesses, quorum
 * `quorum`, background `rate` per second. */
static void add_ca(wfx *f, const char *name, double rate, double ckpt, int ncos,
                   int quorum, double lifetime, double landmark)
{
    char w[16];
    void *ca = wfx_cfg("ca", name);
    wfx_str("ca", ca, "algorithm", "ed25519");
    wfx_num("ca", ca, "rate", rate);
    wfx_num("ca", ca, "checkpoint_interval", ckpt);
    wfx_num("ca", ca, "lifetime", lifetime);
    wfx_num("ca", ca, "landmark_interval", landmark);
    for (int i = 0; i < ncos; i++) {
        snprintf(w, sizeof w, "w%d", i + 1);
        wfx_item("ca", ca, "cosigners", w);
    }
    wfx_num("ca", ca, "quorum", quorum);
    wfx_add(f, "ca", ca);
}

/* `ncos` Ed25519 witnesses answering after exactly `latency` s. */
static void add_witnesses(wfx *f, int ncos, double latency)
{
    char name[16];
    for (int i = 0; i < ncos; i++) {
        snprintf(name, sizeof name, "w%d", i + 1);
        void *w = wfx_cfg("cosigner", name);
        wfx_str("cosigner", w, "algorithm", "ed25519");
        wfx_const("cosigner", w, "latency", latency);
        wfx_add(f, "cosigner", w);
    }
}

/* The binomial row of a rate (coverage, alarms, detections): the Wilson
 * 95 % interval, and the 99.9 % binomial band as tolerance. */
static void rate_row(vctx *c, const char *name, unsigned hits, unsigned K,
                     double expected, double exp_unc)
{
    unsigned lo, hi;
    v_binom_band(K, expected, 0.999, &lo, &hi);
    double p = (double)hits / K, z = 1.959964;
    double d = 1 + z * z / K, mid = (p + z * z / (2 * K)) / d;
    double hw = z * sqrt(p * (1 - p) / K + z * z / (4.0 * K * K)) / d;
    double tol = exp_unc + fmax(expected - (double)lo / K, (double)hi / K - expected);
    v_row(c, name, "", 3, expected, exp_unc, p, fmax(0, mid - hw), fmin(1, mid + hw),
          (int)K, tol);
}

/* ---- 2b ---- */

int case_2b(vctx *c)
{
    /* Poisson arrivals, checkpoints every c, one witness answering after
     * exactly d: the delay to the standalone certificate is uniform on
     * (d, c + d], mean c/2 + d (docs/model-pki.md). A replication is one
     * CA's hour: each world holds 25 CAs, whose arrival streams are
     * independent (keyed by CA), so one world gives 5 experiments of 5
     * replications, each a 95 % Student-t interval of the mean. */
    const double ck = 600, d = 2, rate = 0.5;
    const unsigned W = 40, per = 25, n = 5, K = W * per / n;
    const double truth = ck / 2 + d;
    unsigned covered = 0;
    int64_t ex = vw_experiment(c, "delay", W, 1);
    for (unsigned k = 0; k < W; k++) {
        wfx f;
        if (wfx_init_start(&f, 2000 + k, 0, 3600, 0, 0, 0, 1, "empty") != MTC_OK)
            return -1;
        add_witnesses(&f, 1, d);
        for (unsigned i = 0; i < per; i++) {
            char name[16];
            snprintf(name, sizeof name, "ca%u", i);
            add_ca(&f, name, rate, ck, 1, 1, 7 * 86400.0, 3600);
        }
        if (vw_run(c, &f, ex, k, 2000 + k, 0) != MTC_OK) {
            wfx_free(&f);
            return -1;
        }
        sim_metric *h = sim_metrics_find(f.m, "issuance_delay_standalone");
        for (unsigned g = 0; g < per / n; g++) {
            double x[8];
            for (unsigned r = 0; r < n; r++) {
                size_t ca = g * n + r;
                x[r] = sim_hist_sum(h, ca) / (double)sim_hist_count(h, ca);
            }
            sim_ci ci;
            if (sim_ci_student(x, n, 0.95, &ci) == MTC_OK && ci.lo <= truth &&
                truth <= ci.hi)
                covered++;
        }
        wfx_free(&f);
    }
    rate_row(c, "coverage, 200 intervals of 5 runs", covered, K, 0.95, 0);
    return 0;
}

/* ---- 2c ---- */

typedef struct planted {
    wfx *f;
    double base, a, tau;    /* rate = base (1 + a exp(-t / tau)) */
    double step;            /* the rate changes every step seconds */
    unsigned nca;           /* CAs p0..p(nca-1) follow it */
    int k;
} planted;

static double planted_rate(const planted *p, int k)
{
    /* the rate over step k: the exponential at the step's middle */
    return p->base * (1 + p->a * exp(-((k + 0.5) * p->step) / p->tau));
}

static void planted_fire(sim_engine *sim, void *arg)
{
    planted *p = arg;
    char err[128], name[16];
    for (unsigned i = 0; i < p->nca; i++) {
        snprintf(name, sizeof name, "p%u", i);
        if (sim_world_set(p->f->w, name, "rate", planted_rate(p, p->k), err,
                          sizeof err) != MTC_OK)
            fprintf(stderr, "validate: 2c: %s\n", err);
    }
    p->k++;
    if (p->k * p->step < 24 * p->tau)
        sim_call_at(sim, sim_time_from_sec(p->k * p->step), planted_fire, p);
}

int case_2c(vctx *c)
{
    /* The CA's entries per hour (log_entries), a real output series of
     * the simulator: Poisson counts, stationary from the first hour with a
     * constant rate (a cold start is right here: the mechanism is the
     * arrival process, not the deployed state). Planted: CAs whose rate
     * starts raised by a factor 1 + a and decays with a 6-hour time
     * constant (live rate changes every 10 minutes), a of the size,
     * relative to the noise, of the unit test's cold-start transient (35
     * standard deviations of an hourly point). Each world holds 10
     * stationary CAs (s0..s9) and 10 planted ones (p0..p9), independent
     * streams; 100 series of each kind. */
    const unsigned W = 10, per = 10, K = W * per;
    const size_t H = 96;
    const double rate = 0.02, tau = 6 * 3600.0;
    const double sd = sqrt(rate * 3600), a = 35 * sd / (rate * 3600);
    unsigned alarms = 0, found = 0, past = 0;
    int64_t ex = vw_experiment(c, "issuance-series", W, 1);
    for (unsigned k = 0; k < W; k++) {
        wfx f;
        if (wfx_init_start(&f, 700 + k, 0, H * 3600.0, 0, 3600, 0, 1, "empty") != MTC_OK)
            return -1;
        planted p = {&f, rate, a, tau, 600, per, 1};
        char name[16];
        /* no cosigner: the CA's own signature completes a checkpoint */
        for (unsigned i = 0; i < per; i++) {
            snprintf(name, sizeof name, "s%u", i);
            add_ca(&f, name, rate, 3600, 0, 0, 7 * 86400.0, 3600);
        }
        for (unsigned i = 0; i < per; i++) {
            snprintf(name, sizeof name, "p%u", i);
            add_ca(&f, name, planted_rate(&p, 0), 3600, 0, 0, 7 * 86400.0, 3600);
        }
        if (vw_start(&f) != MTC_OK ||
            sim_call_at(f.eng, sim_time_from_sec(p.step), planted_fire, &p) != MTC_OK ||
            vw_complete(c, &f, ex, k, 700 + k, 0) != MTC_OK) {
            wfx_free(&f);
            return -1;
        }
        sim_metric *m = sim_metrics_find(f.m, "log_entries");
        for (unsigned ca = 0; ca < 2 * per; ca++) {
            double x[96];
            for (size_t h = 0; h < H; h++)
                x[h] = sim_metric_series_value(m, ca, h + 1) -
                       sim_metric_series_value(m, ca, h);
            sim_transient tr;
            if (sim_mser5(x, H, &tr) != MTC_OK) {
                wfx_free(&f);
                return -1;
            }
            if (ca < per) {
                alarms += tr.transient != 0;
                continue;
            }
            found += tr.transient != 0;
            /* the planted excess of the first hour kept: below 5 % of the
             * first hour's (the unit test's criterion) */
            double excess = 0, first = 0;
            for (int s = 0; s < 6; s++) {
                excess += (planted_rate(&p, (int)tr.truncate * 6 + s) - rate) * 600;
                first += (planted_rate(&p, s) - rate) * 600;
            }
            past += excess < 0.05 * first;
        }
        wfx_free(&f);
    }
    rate_row(c, "stationary series flagged", alarms, K, 0.04, 0);
    rate_row(c, "planted transient detected", found, K, 0.995, 0);
    rate_row(c, "planted transient cut past 95 %", past, K, 0.95, 0.05);
    return 0;
}

/* ---- 6b ---- */

int case_6b(vctx *c)
{
    /* A controlled world (cold start: identities hold from the first
     * event): one CA with background issuance and probe requests, 50
     * sites, two cohorts of always-online clients checking for updates
     * every 60 s exactly, an update service fetching every 600 s and
     * publishing 330 s later (never at a check instant). The window runs
     * from 2 h to 8 h, both on fetch boundaries: every publication in it
     * is fetched by every client inside it. */
    const double warm = 7200, dur = 8 * 3600.0, rate = 0.2, visits = 6, every = 120;
    const int N = 100;
    wfx f;
    if (wfx_init_start(&f, 91, 0, dur, warm, 3600, 0, 1, "empty") != MTC_OK)
        return -1;
    add_witnesses(&f, 1, 1);
    add_ca(&f, "ca", rate, 60, 1, 1, 7 * 86400.0, 3600);
    void *us = wfx_cfg("update_service", "updates");
    wfx_num("update_service", us, "fetch_interval", 600);
    wfx_const("update_service", us, "publication_delay", 330);
    wfx_add(&f, "update_service", us);
    void *s = wfx_cfg("sites", "sites");
    wfx_num("sites", s, "count", 50);
    wfx_add(&f, "sites", s);
    const char *co[2] = {"a", "b"};
    for (int k = 0; k < 2; k++) {
        void *b = wfx_cfg("browsers", co[k]);
        wfx_num("browsers", b, "count", N);
        wfx_num("browsers", b, "sessions_per_day", 0);
        wfx_num("browsers", b, "visits_per_hour", visits);
        wfx_const("browsers", b, "update_interval", 60);
        wfx_num("browsers", b, "update_fail_prob", 0);
        wfx_num("browsers", b, "ticket_lifetime", 3600);
        wfx_add(&f, "browsers", b);
    }
    vw_probe p;
    if (vw_start(&f) != MTC_OK || vw_probe_init(&p, &f, 0, MTC_SIG_ECDSA_P256) != MTC_OK) {
        wfx_free(&f);
        return -1;
    }
    /* sampled requests in the window only (the sites request at 0) */
    vw_probe_schedule(&p, warm, dur, every, 0.5);
    if (vw_complete(c, &f, vw_experiment(c, "conservation", 1, 1), 0, 91, 0) != MTC_OK) {
        vw_probe_free(&p);
        wfx_free(&f);
        return -1;
    }
    double T = dur - warm;
    /* entries appended = sampled + background */
    double entries = (double)vw_counter(&f, "log_entries", NULL);
    double sampled = (double)p.requests, bg = entries - sampled;
    v_row(c, "background entries (appended - sampled)", "entries", 0, rate * T, 0, bg, bg, bg,
          0, v_zquant(0.9995) * sqrt(rate * T));
    /* bytes fetched = fetches x publication sizes: each client fetches
     * each publication of the window once */
    sim_metric *pb = sim_metrics_find(f.m, "update_publication_bytes");
    double pubs = sim_hist_sum(pb, SIM_ALL_COHORTS);
    double ub = (double)vw_counter(&f, "update_bytes", NULL);
    v_row(c, "update bytes = clients x publication bytes", "bytes", 0, 2 * N * pubs, 0, ub, ub,
          ub, 0, 0);
    double fetches = (double)vw_counter(&f, "update_fetch", NULL);
    v_row(c, "fetches = clients x window / 60 s", "fetches", 0, 2 * N * T / 60, 0, fetches,
          fetches, fetches, 0, 2 * N);
    /* handshakes = full + resumed (+ visits to sites without a
     * certificate): every visit is one, Poisson(N v T) in all */
    double hs = (double)(vw_counter(&f, "handshake_full", NULL) +
                         vw_counter(&f, "handshake_resumed", NULL) +
                         vw_counter(&f, "handshake_no_cert", NULL));
    double eh = 2 * N * visits * T / 3600;
    v_row(c, "visits = full + resumed + no certificate", "handshakes", 0, eh, 0, hs, hs, hs, 0,
          v_zquant(0.9995) * sqrt(eh));
    /* per-cohort sums of the two cohorts */
    const char *names[] = {"handshake_full", "handshake_signatureless", "handshake_resumed",
                           "update_bytes", "update_fetch"};
    int ok = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        ok += vw_counter(&f, names[i], NULL) ==
              vw_counter(&f, names[i], "a") + vw_counter(&f, names[i], "b");
    v_row(c, "cohort counters sum to the total", "metrics", 0,
          (double)(sizeof names / sizeof names[0]), 0, ok, ok, ok, 0, 0);
    vw_probe_free(&p);
    wfx_free(&f);
    return 0;
}
