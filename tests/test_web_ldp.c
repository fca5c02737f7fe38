/*
 * test_web_ldp.c - fetching a missing landmark on demand from the Landmark
 * Distribution Points a certificate names (web_ldp.c; docs/model.md
 * "Landmark fetching on demand") against closed forms.
 *
 * World (as test_web_staple.c): one CA whose certificates name a
 * distribution point; every site requests its certificate at time ~0, so
 * landmark 1 (allocated and published at L) covers them all and no later
 * landmark is allocated. Never-updating clients (they hold no landmark),
 * always online, Poisson visits of rate v to uniformly chosen sites, no
 * resumption; handshakes counted on [t0, t0 + T], t0 > L.
 *
 * A client with ldp = "fetch" is sent the landmark-relative certificate
 * at every handshake after L; it fetches landmark 1's proof set until a
 * fetch succeeds (each fails independently with probability p) and then
 * holds it. A handshake at time t is standalone iff it and every earlier
 * one since L failed: probability p exp(-v (1 - p) (t - L)). So
 *   f_fetch = 1 - p exp(-v (1-p) a) (1 - exp(-v (1-p) T)) / ((1-p) v T),
 * a = t0 - L; with ldp = "retry" or "off" no handshake is signatureless.
 * R replications; the formula must lie in the 99 % Student-t interval of
 * the per-replication fractions, which must exclude the formula for other
 * failure probabilities (the check has power).
 *
 * Fetch latency: on a loss-free path of fixed RTT and no serialization, a
 * proof set of one landmark fits TCP's initial window, so a fetch is the
 * TCP set-up and one request-response round: exactly 2 RTT.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/web_run.h"
#include "mtc/error.h"
#include "mtc/staple.h"
#include "test.h"

static double f_fetch(double v, double p, double a, double T)
{
    double w = v * (1 - p);
    return 1 - p * exp(-w * a) * (1 - exp(-w * T)) / (w * T);
}

enum { FETCH = 0, RETRY = 1, OFF = 2, NCO = 3 };

TEST(signatureless_share_matches_closed_form)
{
    const double L = 3600, v = 1.0 / 3600, p = 0.5;
    const double t0 = L + 1800, T = 2 * 3600.0;
    const size_t R = 8;
    size_t clients = (size_t)(1500 * test_scale());
    if (clients < 600)
        clients = 600;
    double frac[16];
    for (size_t rep = 0; rep < R; rep++) {
        wfx_config pc;
        wfx_defaults(&pc);
        pc.landmark_interval = (sim_time)L * SIM_SEC;
        pc.staple = 1;
        pc.witnesses = 1;
        pc.ldp = 1;
        pc.ldp_fail_prob = p;
        web_sites_config *site = wrun_sites_new();
        site->count = 40;
        site->issue_spread = SIM_SEC;
        site->retry_after = SIM_SEC;
        web_browsers_config *co[NCO];
        const char *names[NCO] = {"fetch", "retry", "off"};
        for (int k = 0; k < NCO; k++) {
            co[k] = wrun_browsers_new();
            snprintf(co[k]->name, sizeof co[k]->name, "%s", names[k]);
            co[k]->count = (int64_t)clients;
            co[k]->sessions_per_day = 0;
            co[k]->visits_per_hour = v * 3600;
            co[k]->zipf_exponent = 0;
            co[k]->ticket_lifetime = 0;
            co[k]->never_updates = 1;
            co[k]->ldp = k == FETCH ? WEB_LDP_FETCH : k == RETRY ? WEB_LDP_RETRY : WEB_LDP_OFF;
        }
        wrun r;
        ASSERT_OK(wrun_create(&r, &pc, 93, rep, 0, 1, (sim_time)t0 * SIM_SEC, rep == 0,
                              (const web_sites_config *const *)&site, 1,
                              (const web_browsers_config *const *)co, NCO));
        wrun_until(&r, (sim_time)(t0 + T) * SIM_SEC);
        double full = (double)wrun_cell(&r, "handshake_full", FETCH);
        double sl = (double)wrun_cell(&r, "handshake_signatureless", FETCH);
        ASSERT_TRUE(full > 0.5 * (double)clients);
        frac[rep] = sl / full;
        /* every signatureless handshake came from a fetch in it or a
         * proof set the client held; every other one retried */
        ASSERT_EQ(wrun_cell(&r, "ldp_signatureless_fetched", FETCH) +
                      wrun_cell(&r, "ldp_signatureless_cached", FETCH),
                  (int64_t)sl);
        ASSERT_EQ(wrun_cell(&r, "ldp_fallback_retries", FETCH), (int64_t)(full - sl));
        ASSERT_EQ(wrun_cell(&r, "ldp_fetches", FETCH),
                  wrun_cell(&r, "ldp_fetch_failed", FETCH) +
                      wrun_cell(&r, "ldp_signatureless_fetched", FETCH));
        /* a successful fetch happens once per client */
        ASSERT_TRUE(wrun_cell(&r, "ldp_signatureless_fetched", FETCH) <= (int64_t)clients);
        /* the retry and off cohorts: never signatureless; retry is sent the
         * landmark-relative certificate and retries every time, off never */
        for (int k = RETRY; k <= OFF; k++)
            ASSERT_EQ(wrun_cell(&r, "handshake_signatureless", (size_t)k), 0);
        ASSERT_EQ(wrun_cell(&r, "ldp_fallback_retries", RETRY), wrun_cell(&r, "handshake_full", RETRY));
        ASSERT_EQ(wrun_cell(&r, "handshake_retry", OFF), 0);
        ASSERT_EQ(wrun_cell(&r, "ldp_fetches", RETRY), 0);
        ASSERT_EQ(wrun_cell(&r, "ldp_fetches", OFF), 0);
        /* every request reaches the CA's distribution point */
        ASSERT_EQ(wrun_cell(&r, "ldp_requests_ca", 0), wrun_cell(&r, "ldp_fetches", FETCH));
        web_stats st;
        web_get_stats(r.wb, &st);
        ASSERT_EQ(st.invariant_violations, 0);
        wrun_free(&r);
        sim_param_config_free(&sim_sites_schema, site);
        for (int k = 0; k < NCO; k++)
            sim_param_config_free(&sim_browsers_schema, co[k]);
    }
    double a = t0 - L;
    double want = f_fetch(v, p, a, T);
    sim_ci ci;
    ASSERT_OK(sim_ci_student(frac, R, 0.99, &ci));
    if (getenv("WEB_TEST_VERBOSE"))
        fprintf(stderr, "fetch: formula %.4f ci [%.4f, %.4f]\n", want, ci.lo, ci.hi);
    ASSERT_TRUE(ci.lo <= want && want <= ci.hi);
    ASSERT_TRUE(ci.half_width < (clients < 1500 ? 0.07 : 0.04));
    /* power: the formula for other failure probabilities is excluded */
    ASSERT_TRUE(f_fetch(v, 0.3, a, T) > ci.hi);
    ASSERT_TRUE(f_fetch(v, 0.7, a, T) < ci.lo);
}

TEST(fetch_is_two_round_trips_and_its_bytes)
{
    /* One client on a loss-free 50 ms path, every handshake after L
     * fetches (the distribution point always fails, so nothing is kept):
     * each fetch costs exactly 2 RTT, and each answer is the error. Then
     * with no failures: one fetch, answered with the proof set's bytes. */
    for (int ok = 0; ok < 2; ok++) {
        wfx_config pc;
        wfx_defaults(&pc);
        pc.staple = 1;
        pc.witnesses = 2;
        pc.ldp = 1;
        pc.ldp_fail_prob = ok ? 0.0 : 1.0;
        web_sites_config *site = wrun_sites_new();
        site->count = 3;
        site->issue_spread = SIM_SEC;
        site->retry_after = SIM_SEC;
        web_browsers_config *co = wrun_browsers_new();
        co->count = 1;
        co->sessions_per_day = 0;
        co->visits_per_hour = 60;
        co->ticket_lifetime = 0;
        co->never_updates = 1;
        co->ldp = WEB_LDP_FETCH;
        ASSERT_OK(sim_dist_const(&co->rtt, 50.0));
        wrun r;
        ASSERT_OK(wrun_create(&r, &pc, 5, 0, 0, 1, 3600 * SIM_SEC + 1, 1,
                              (const web_sites_config *const *)&site, 1,
                              (const web_browsers_config *const *)&co, 1));
        wrun_until(&r, 2 * 3600 * SIM_SEC);
        sim_metric *h = sim_metrics_find(r.metrics, "ldp_fetch_ms");
        sim_metric *b = sim_metrics_find(r.metrics, "ldp_response_bytes");
        ASSERT_TRUE(h != NULL && b != NULL);
        int64_t n = wrun_cell(&r, "ldp_fetches", 0);
        ASSERT_EQ(sim_hist_count(h, 0), (uint64_t)n);
        ASSERT_NEAR(sim_hist_sum(h, 0), 100.0 * (double)n, 1e-6);
        const web_pki *pki = wfx_pki(r.pki);
        const sim_ca_proof_set *ps = pki->proof_set(pki->ctx, 0, 1, 1);
        ASSERT_TRUE(ps != NULL);
        mtc_staple *dec;
        ASSERT_OK(mtc_staple_decode(ps->bytes, ps->len, &dec));
        ASSERT_EQ(dec->n_cosigs, 3);
        ASSERT_TRUE(dec->n_subtrees >= 1 && dec->n_subtrees <= 2);
        mtc_staple_free(dec);
        if (ok) {
            ASSERT_EQ(n, 1);
            ASSERT_EQ(wrun_cell(&r, "ldp_fetch_failed", 0), 0);
            /* the proof set plus an HTTP header of less than 200 bytes */
            ASSERT_TRUE(sim_hist_sum(b, 0) > (double)ps->len);
            ASSERT_TRUE(sim_hist_sum(b, 0) < (double)ps->len + 200);
            ASSERT_EQ(wrun_cell(&r, "handshake_signatureless", 0), wrun_cell(&r, "handshake_full", 0));
            ASSERT_EQ(wrun_cell(&r, "ldp_cache_hits", 0), wrun_cell(&r, "handshake_full", 0) - 1);
            /* one client, one day: one client-day, one (CA, landmark) pair */
            ASSERT_EQ(wrun_cell(&r, "ldp_reveal_client_days", 0), 1);
            ASSERT_EQ(wrun_cell(&r, "ldp_reveal_pairs", 0), 1);
        } else {
            ASSERT_TRUE(n >= 30);
            ASSERT_EQ(wrun_cell(&r, "ldp_fetch_failed", 0), n);
            ASSERT_EQ(wrun_cell(&r, "handshake_signatureless", 0), 0);
            ASSERT_EQ(wrun_cell(&r, "handshake_retry", 0), n);
            /* the error answer, the same every time and short */
            ASSERT_TRUE(sim_hist_sum(b, 0) < 100.0 * (double)n);
            ASSERT_EQ(wrun_cell(&r, "ldp_reveal_pairs", 0), 1);
        }
        web_stats st;
        web_get_stats(r.wb, &st);
        ASSERT_EQ(st.invariant_violations, 0);
        wrun_free(&r);
        sim_param_config_free(&sim_sites_schema, site);
        sim_param_config_free(&sim_browsers_schema, co);
    }
}

static const test_case tests[] = {
    {"signatureless_share_matches_closed_form", signatureless_share_matches_closed_form},
    {"fetch_is_two_round_trips_and_its_bytes", fetch_is_two_round_trips_and_its_bytes},
};

TEST_MAIN(tests)
