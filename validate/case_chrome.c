/*
 * validate/case_chrome.c - case 5: Chrome's MTC field experiment,
 * predicted from its published inputs and mtcsim's documented defaults
 * alone, before any result is looked up (docs/validation.md, 5). Every
 * row is a prediction (shown, not judged), except the two that follow
 * exactly from the draft (the relying party's state, the proof bound).
 *
 * Inputs: about 1,000 domains served by one CA that issues only for them;
 * 7-day certificates renewed at 75 % with the old one kept; landmarks
 * every hour; the CA's and one mirror's ML-DSA-44 cosignatures
 * ([crqp-cosign]); half of the clients receive landmarks through the
 * component updater (first check a minute after start, then every 5 h
 * while running: [chrome-updater]), the other half never does (the
 * control arm); mtcsim's default online pattern (3 sessions a day on the
 * default day/night profile, lognormal sessions of median 1 h, 20 page
 * visits an hour, Zipf site choice, 1 % failed checks, 1-day tickets).
 *
 * Staleness, three ways: a closed form (a renewal argument over the
 * client's fetch gaps, with a flat online profile); the client update
 * model's metrics (clients_lacking_latest_landmark over clients_online,
 * landmark_time_to_holding, landmark_age_at_handshake); and, for every
 * client rather than the online ones, revocation_exposure in a second
 * run: revocations of unused serials planted every hour ride the
 * publications and time their delivery, uncensored.
 *
 * Handshake latency: the landmark arm again, on the scenario library's
 * client platforms (scenarios/lib/platform.lua: network paths from
 * docs/sources.md [path-model], 30 % desktops, 70 % phones verifying 3
 * times slower than the development machine [mobile-cpu]) and half of
 * its clients on each transport, in ten replications (three when the
 * prediction was first recorded): p50 and p90 of handshake_ms per transport against the same handshakes with today's
 * chain (handshake_ms_today, today's chain and key, when the model has
 * it; else the "classical" baseline: the chain profile each site drew from
 * today's mix, around the site's own key).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "mtc/error.h"
#include "vcases.h"
#include "vworld.h"

#define SESSIONS 3.0        /* per day (browsers default) */
#define CHECK_T 18000.0     /* 5 h */
#define FIRST 60.0
#define LM 3600.0

/* ---- closed form ---- */

/* Over session lengths S ~ lognormal(ln 3600, 1): calls f(S, w) with
 * quadrature weights w (summing to 1). */
#define NS 4000
static void s_grid(double *s, double *w)
{
    /* uniform in probability: S = exp(ln 3600 + z), z at the midpoints */
    for (int i = 0; i < NS; i++) {
        double z = gsl_cdf_ugaussian_Pinv((i + 0.5) / NS);
        s[i] = exp(log(3600.0) + z);
        w[i] = 1.0 / NS;
    }
}

/* P(E > x): E the time from a publication to a client's next fetch, over
 * all clients and times. For a stationary fetch process with gaps G,
 * P(E > x) = E[(G - x)+] / E[G]; per session cycle (a session, then an
 * offline wait W ~ Exp(3/day)), the gaps are k - 1 within the session
 * (k checks, at 60 s and every 5 h) of 5 h each, and one gap A + W + 60
 * across to the next session, A = (S - 60) mod 5 h. */
static double p_exceed(double x, const double *s, const double *w)
{
    double lam = SESSIONS / 86400, sum = 0, cyc = 0;
    for (int i = 0; i < NS; i++) {
        double S = s[i];
        cyc += w[i] * (S + 1 / lam);
        if (S <= FIRST) /* no check: the gap runs on (rare: 2e-5) */
            continue;
        double k = floor((S - FIRST) / CHECK_T) + 1, A = fmod(S - FIRST, CHECK_T);
        double y = x - A - FIRST;
        double cross = y >= 0 ? exp(-lam * y) / lam : 1 / lam - y;
        sum += w[i] * ((k - 1) * fmax(CHECK_T - x, 0) + cross);
    }
    return sum / cyc;
}

/* For a client online at a random time: P(B > a), B the time since its
 * last fetch; before the first check of a session (60 s) it counts as
 * stale. */
static double p_online_stale(double a, const double *s, const double *w)
{
    double stale = 0, es = 0;
    for (int i = 0; i < NS; i++) {
        double S = s[i];
        es += w[i] * S;
        double u = fmin(S, FIRST);
        if (S > FIRST) {
            double m = floor((S - FIRST) / CHECK_T), r = fmod(S - FIRST, CHECK_T);
            u += m * (CHECK_T - a) + fmax(r - a, 0);
        }
        stale += w[i] * u;
    }
    return stale / es;
}

/* x with P(E > x) = p, by bisection (P decreasing). */
static double quantile(double p, const double *s, const double *w)
{
    double lo = 0, hi = 30 * 86400.0;
    for (int it = 0; it < 60; it++) {
        double mid = (lo + hi) / 2;
        if (p_exceed(mid, s, w) > p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* ---- simulation ---- */

static void add_world(wfx *f, const char *alg, int control, int arm)
{
    void *m = wfx_cfg("cosigner", "mirror");
    wfx_str("cosigner", m, "role", "mirror");
    wfx_str("cosigner", m, "algorithm", alg);
    wfx_add(f, "cosigner", m);
    void *ca = wfx_cfg("ca", "ca");
    wfx_str("ca", ca, "algorithm", alg);
    wfx_num("ca", ca, "rate", 0); /* only the experiment's domains */
    wfx_item("ca", ca, "cosigners", "mirror");
    wfx_num("ca", ca, "quorum", 1);
    wfx_add(f, "ca", ca);
    wfx_add(f, "update_service", wfx_cfg("update_service", "updater"));
    void *s = wfx_cfg("sites", "domains");
    wfx_num("sites", s, "count", 1000);
    wfx_add(f, "sites", s);
    if (arm) {
        void *b = wfx_cfg("browsers", "landmarks");
        wfx_num("browsers", b, "count", 2000);
        /* the component updater: a check a minute after every start, then
         * every 5 hours while running ([chrome-updater]) */
        wfx_str("browsers", b, "update_on_start", "always");
        wfx_add(f, "browsers", b);
    }
    if (control) {
        void *k = wfx_cfg("browsers", "control");
        wfx_num("browsers", k, "count", 2000);
        wfx_num("browsers", k, "never_updates", 1);
        wfx_add(f, "browsers", k);
    }
}

/* The latency run's landmark arm: per transport 300 desktop and 700
 * mobile clients on the platforms of the scenario library
 * (scenarios/lib/platform.lua): the paths of docs/sources.md
 * [path-model] and the verification speed of [mobile-cpu] (a phone 3
 * times slower than the development machine, a desktop as fast); the
 * component updater's behaviour as the plain arm's (tests/sh_scenarios.sh
 * checks that dev[] agrees with the Lua platforms). Cohorts in the order
 * desktop-tcp, mobile-tcp, desktop-quic, mobile-quic. */
static void add_latency_arm(wfx *f)
{
    static const char *const tr[] = {"tcp", "quic"};
    static const struct {
        const char *name;
        int count;
        double rtt, rtt_sigma, bw, cpu_slowdown;
    } dev[] = {{"desktop", 300, 74.0, 0.38, 107.5e6, 1.0},
               {"mobile", 700, 113.0, 0.43, 55.1e6, 3.0}};
    for (int t = 0; t < 2; t++)
        for (int d = 0; d < 2; d++) {
            char name[32];
            snprintf(name, sizeof name, "%s-%s", dev[d].name, tr[t]);
            void *b = wfx_cfg("browsers", name);
            wfx_num("browsers", b, "count", dev[d].count);
            wfx_str("browsers", b, "update_on_start", "always");
            wfx_str("browsers", b, "transport", tr[t]);
            wfx_lognormal("browsers", b, "rtt", dev[d].rtt, dev[d].rtt_sigma);
            wfx_lognormal("browsers", b, "bandwidth", dev[d].bw, 1.0);
            wfx_num("browsers", b, "cpu_slowdown", dev[d].cpu_slowdown);
            wfx_add(f, "browsers", b);
        }
}

/* The q-quantile of histogram h over cohorts k[0..nk), read from the
 * merged bins as sim_hist_quantile reads one cohort's (geometric inside
 * a bin); NAN when empty. */
static double merged_quantile(const sim_metric *h, const size_t *k, size_t nk, double q)
{
    size_t nb = sim_hist_nbins(h);
    double n = 0;
    for (size_t j = 0; j < nk; j++)
        n += (double)sim_hist_count(h, k[j]);
    if (!(n > 0))
        return NAN;
    double rank = q * n, cum = 0;
    for (size_t i = 0; i < nb + 2; i++) {
        double c = 0;
        for (size_t j = 0; j < nk; j++)
            c += (double)sim_hist_bin(h, k[j], i);
        if (c == 0 || cum + c < rank) {
            cum += c;
            continue;
        }
        if (i == 0)
            return sim_hist_edge(h, 0);
        if (i == nb + 1)
            return sim_hist_edge(h, nb);
        double a = sim_hist_edge(h, i - 1), b = sim_hist_edge(h, i);
        return a * pow(b / a, (rank - cum) / c);
    }
    return sim_hist_edge(h, nb);
}

#define LAT_REPS 10

/* Per transport (0 TCP, 1 QUIC), per replication: p50 and p90 of the
 * landmark arm's handshakes and of the same handshakes with today's chain.
 * *today: 1 when the model has handshake_ms_today. */
static int latency_runs(vctx *c, double history, double window,
                        double x[2][4][LAT_REPS], int *today)
{
    int64_t ex = vw_experiment(c, "latency", 1, LAT_REPS);
    for (int rep = 0; rep < LAT_REPS; rep++) {
        wfx f;
        if (wfx_init_start(&f, 83, (uint64_t)rep, history + window, history, 3600, 0, 1,
                           "steady") != MTC_OK)
            return -1;
        /* the landmark arm with paths alone: cohorts 0-3 */
        add_world(&f, "ml-dsa-44", 0, 0);
        add_latency_arm(&f);
        if (vw_run(c, &f, ex, 0, 83, (uint64_t)rep) != MTC_OK) {
            wfx_free(&f);
            return -1;
        }
        const sim_metric *h = sim_metrics_find(f.m, "handshake_ms");
        const sim_metric *b = sim_metrics_find(f.m, "handshake_ms_today");
        *today = b != NULL;
        if (!b)
            b = sim_metrics_find(f.m, "handshake_ms_baseline_classical");
        if (!h || !b) {
            wfx_free(&f);
            return -1;
        }
        for (int t = 0; t < 2; t++) {
            size_t k[2] = {2 * (size_t)t, 2 * (size_t)t + 1};
            x[t][0][rep] = merged_quantile(h, k, 2, 0.5);
            x[t][1][rep] = merged_quantile(h, k, 2, 0.9);
            x[t][2][rep] = merged_quantile(b, k, 2, 0.5);
            x[t][3][rep] = merged_quantile(b, k, 2, 0.9);
        }
        wfx_free(&f);
    }
    return 0;
}

typedef struct revoker {
    wfx *f;
    uint64_t next;
} revoker;

static void revoke_fire(sim_engine *sim, void *arg)
{
    (void)sim;
    revoker *r = arg;
    /* an unused serial far above the log's size: no certificate changes */
    double args[2] = {(double)((UINT64_C(1) << 40) + r->next),
                      (double)((UINT64_C(1) << 40) + r->next)};
    r->next++;
    if (sim_world_act(r->f->w, "revoke_range", "ca", args, 2, r->f->err, sizeof r->f->err) !=
        MTC_OK)
        fprintf(stderr, "validate: 5: %s\n", r->f->err);
}

/* P(E > x) from the revocation_exposure histogram of `clients` clients
 * and `nrev` revocations; pairs never delivered count as E = infinity. */
static double hist_exceed(const sim_metric *h, double x, double pairs)
{
    double below = (double)sim_hist_bin(h, SIM_ALL_COHORTS, 0);
    size_t nb = sim_hist_nbins(h);
    for (size_t i = 1; i <= nb; i++) {
        double lo = sim_hist_edge(h, i - 1), hi = sim_hist_edge(h, i);
        double n = (double)sim_hist_bin(h, SIM_ALL_COHORTS, i);
        if (hi <= x) {
            below += n;
        } else {
            if (lo < x) /* geometric interpolation inside the bin */
                below += n * log(x / lo) / log(hi / lo);
            break;
        }
    }
    return 1 - below / pairs;
}

int case_5(vctx *c)
{
    static double s[NS], w[NS];
    s_grid(s, w);
    const double history = 7 * 86400.0 + LM + 600 + 600 + 600, window = 2 * 86400.0;
    /* the experiment: ML-DSA-44 CA and mirror */
    wfx f;
    /* a 12-minute grid: five phases an hour, the midpoints of the fifths
     * of the hour after a publication (20 minutes past) */
    if (wfx_init_start(&f, 81, 0, history + window, history, 720, 0, 1, "steady") != MTC_OK)
        return -1;
    add_world(&f, "ml-dsa-44", 1, 1);
    if (vw_run(c, &f, vw_experiment(c, "experiment", 1, 1), 0, 81, 0) != MTC_OK) {
        wfx_free(&f);
        return -1;
    }
    double full = (double)vw_counter(&f, "handshake_full", "landmarks");
    double sl = (double)vw_counter(&f, "handshake_signatureless", "landmarks");
    sim_metric *ab = sim_metrics_find(f.m, "auth_bytes");
    sim_metric *cl = sim_metrics_find(f.m, "auth_bytes_baseline_classical");
    sim_metric *pq = sim_metrics_find(f.m, "auth_bytes_baseline_mldsa44");
    size_t lm_k = 0, ct_k = 1;
    double a_lm = sim_hist_mean(ab, lm_k), a_ct = sim_hist_mean(ab, ct_k);
    double a_cl = sim_hist_mean(cl, SIM_ALL_COHORTS), a_pq = sim_hist_mean(pq, SIM_ALL_COHORTS);
    sim_metric *ls = sim_metrics_find(f.m, "landmark_subtree_size");
    sim_metric *sp = sim_metrics_find(f.m, "standalone_proof_bytes");
    double lmax = sim_hist_max(ls, SIM_ALL_COHORTS);
    double rp = vw_gauge(&f, "rp_state_bytes", NULL);
    double mean_lm = (double)vw_counter(&f, "log_entries", NULL) / (window / 3600);
    double sp_max = sim_hist_max(sp, SIM_ALL_COHORTS);
    /* the client update model's metrics (docs/metrics.md): the share of
     * online clients lacking the latest landmark at each grid point (whole
     * hours), the age of the newest landmark at each full handshake, the
     * time from a landmark's publication to each client holding it */
    sim_metric *on = sim_metrics_find(f.m, "clients_online");
    sim_metric *lk = sim_metrics_find(f.m, "clients_lacking_latest_landmark");
    double lack_on = 0, lack_hour = 0;
    int npts = 0, nhour = 0;
    for (size_t k = 0; on && lk && k < sim_metric_series_len(on); k++) {
        double o = sim_metric_series_value(on, lm_k, k);
        sim_time t = sim_metrics_grid_time(f.m, k);
        if (t >= sim_time_from_sec(history) && o > 0) {
            double sh = sim_metric_series_value(lk, lm_k, k) / o;
            lack_on += sh;
            npts++;
            if (t % SIM_HOUR == 0) {
                lack_hour += sh;
                nhour++;
            }
        }
    }
    lack_on = npts ? lack_on / npts : NAN;
    lack_hour = nhour ? lack_hour / nhour : NAN;
    sim_metric *age = sim_metrics_find(f.m, "landmark_age_at_handshake");
    double age50 = age ? sim_hist_quantile(age, lm_k, 0.5) / 3600 : NAN;
    double agemean = age ? sim_hist_mean(age, lm_k) / 3600 : NAN;
    sim_metric *th = sim_metrics_find(f.m, "landmark_time_to_holding");
    double th50 = th ? sim_hist_quantile(th, lm_k, 0.5) / 3600 : NAN;
    wfx_free(&f);

    /* the probe run: the same world, Ed25519 signers (delivery times do
     * not depend on them), no control arm, a revocation every hour of the
     * first day of the window, measured to the end of a 3-day window */
    const double w2 = 3 * 86400.0;
    if (wfx_init_start(&f, 82, 0, history + w2, history, 3600, 0, 1, "steady") != MTC_OK)
        return -1;
    add_world(&f, "ed25519", 0, 1);
    revoker rv = {&f, 0};
    int nrev = 24;
    if (vw_start(&f) != MTC_OK) {
        wfx_free(&f);
        return -1;
    }
    for (int k = 0; k < nrev; k++)
        sim_call_at(f.eng, sim_time_from_sec(history + 1800 + k * 3600.0), revoke_fire, &rv);
    if (vw_complete(c, &f, vw_experiment(c, "staleness-probe", 1, 1), 0, 82, 0) != MTC_OK) {
        wfx_free(&f);
        return -1;
    }
    sim_metric *ex = sim_metrics_find(f.m, "revocation_exposure");
    double pairs = 2000.0 * nrev;
    double delivered = (double)sim_hist_count(ex, SIM_ALL_COHORTS) / pairs;
    double stale_sim = 0;
    for (int i = 0; i < 360; i++)
        stale_sim += hist_exceed(ex, (i + 0.5) * LM / 360, pairs) / 360;
    double stale_2400 = hist_exceed(ex, 2400, pairs), q50 = 0, q90 = 0;
    for (double x = 1; x < w2; x *= 1.01) {
        if (!q50 && hist_exceed(ex, x, pairs) <= 0.5)
            q50 = x;
        if (!q90 && hist_exceed(ex, x, pairs) <= 0.1)
            q90 = x;
    }
    wfx_free(&f);

    /* the closed forms */
    double stale_cf = 0, stale_on = 0;
    for (int i = 0; i < 360; i++) {
        double a = (i + 0.5) * LM / 360;
        stale_cf += p_exceed(a, s, w) / 360;
        stale_on += p_online_stale(a, s, w) / 360;
    }
    v_info(c, "share of all clients lacking the latest landmark", "", 3, stale_cf, stale_sim);
    v_info(c, "share of online clients lacking it", "", 3, stale_on, lack_on);
    /* at whole hours: the latest landmark was published 40 minutes before
     * (allocated on the hour, fetched 10 and published 20 minutes past) */
    v_info(c, "same, at whole hours (40 min after a publication)", "", 3,
           p_online_stale(2400, s, w), lack_hour);
    v_info(c, "all clients lacking it, at whole hours", "", 3, p_exceed(2400, s, w),
           stale_2400);
    v_info(c, "hours until half the clients hold a landmark", "h", 2,
           quantile(0.5, s, w) / 3600, q50 / 3600);
    v_info(c, "hours until 90 % hold it", "h", 1, quantile(0.1, s, w) / 3600, q90 / 3600);
    v_info(c, "same median, landmark_time_to_holding (censored)", "h", 2,
           quantile(0.5, s, w) / 3600, th50);
    v_info(c, "age of the newest landmark at a handshake, median", "h", 2, NAN, age50);
    v_info(c, "age of the newest landmark at a handshake, mean", "h", 2, NAN, agemean);
    v_info(c, "publications delivered within the window", "", 3, NAN, delivered);
    /* the draft: 2 hashes per active landmark, 169 of them, + 32 bytes of
     * framing; at about 8 entries an hour a landmark of a single entry has
     * one subtree: P(n = 1 | n >= 1) for n ~ Poisson(1000 / 126) */
    double lam = 1000 / 126.0, p1 = lam * exp(-lam) / (1 - exp(-lam));
    v_info(c, "relying-party state (mean over landmark sizes)", "bytes", 0,
           32 + 32 * 169 * (2 - p1), rp);
    v_info(c, "entries per hour (1,000 domains / 126 h)", "1/h", 2, 1000 / 126.0, mean_lm);
    /* the largest landmark subtree seen: ceil(log2) hashes */
    v_info(c, "largest landmark-relative proof", "hashes", 0, 4, ceil(log2(lmax)));
    v_info(c, "largest standalone MTCProof (2 ML-DSA-44 sigs)", "bytes", 0, NAN, sp_max);
    v_info(c, "signatureless share of full handshakes, landmark arm", "", 4, NAN,
           full > 0 ? sl / full : NAN);
    v_info(c, "auth bytes per full handshake, landmark arm", "bytes", 0, NAN, a_lm);
    v_info(c, "auth bytes per full handshake, control arm", "bytes", 0, NAN, a_ct);
    v_info(c, "change in auth bytes (landmark - control)", "bytes", 0, NAN, a_lm - a_ct);
    v_info(c, "classical X.509 chain with SCTs, same handshakes", "bytes", 0, NAN, a_cl);
    v_info(c, "ML-DSA-44 X.509 chain with SCTs, same handshakes", "bytes", 0, NAN, a_pq);

    /* handshake latency, per transport: the landmark arm against today's
     * chain on the same connections */
    double x[2][4][LAT_REPS];
    int today = 0;
    if (latency_runs(c, history, 86400.0, x, &today) != 0)
        return -1;
    const char *chain = today ? "today's chain and key" : "today's chain, same key";
    static const char *const tname[] = {"TCP", "QUIC"};
    for (int t = 0; t < 2; t++)
        for (int qi = 0; qi < 2; qi++) {
            const char *qn = qi ? "p90" : "p50";
            double d[LAT_REPS];
            for (int r = 0; r < LAT_REPS; r++)
                d[r] = 100.0 * (x[t][qi][r] / x[t][2 + qi][r] - 1.0);
            vstat a, b, ch;
            v_stat(x[t][qi], LAT_REPS, &a);
            v_stat(x[t][2 + qi], LAT_REPS, &b);
            v_stat(d, LAT_REPS, &ch);
            char name[96];
            snprintf(name, sizeof name, "%s handshake %s, landmark arm", tname[t], qn);
            v_info_ci(c, name, "ms", 1, NAN, &a);
            snprintf(name, sizeof name, "%s handshake %s, %s", tname[t], qn, chain);
            v_info_ci(c, name, "ms", 1, NAN, &b);
            snprintf(name, sizeof name, "%s change of %s (landmark arm / chain - 1)", tname[t], qn);
            v_info_ci(c, name, "%", 1, NAN, &ch);
        }
    return 0;
}
