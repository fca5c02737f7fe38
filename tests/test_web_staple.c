/*
 * test_web_staple.c - learning from full certificates (a what-if:
 * docs/model.md "Learning from full certificates") against a closed form.
 *
 * World: one CA that staples; every site requests its certificate at
 * time ~0, so landmark 1 (allocated and published at L) covers them all
 * and no later landmark is allocated (no background issuance). Clients
 * are always online with Poisson visits of rate v to uniformly chosen
 * sites, no resumption. Handshakes are counted on [t0, t0 + T], t0 > L.
 *
 * A never-updating client that learns from staples holds landmark 1 from
 * its first handshake after L on (a standalone certificate with the
 * staple of landmark 1), so a handshake in the window is standalone iff
 * it is the client's first since L:
 *   f_staple = 1 - exp(-v (t0 - L)) (1 - exp(-v T)) / (v T).
 * A client that also checks for updates (Poisson rate mu) holds it from
 * the first of a handshake or a check since L:
 *   f_both = 1 - exp(-(v+mu)(t0 - L)) v/(v+mu) (1 - exp(-(v+mu) T)) / (v T).
 * A never-updating client that does not learn never gets one: f = 0.
 *
 * R replications; each formula must lie in the 99 % Student-t interval of
 * the per-replication fractions, which must exclude the other formulas
 * (the check has power). check_invariants is on in the first
 * replication: every memoized verification against a staple-learned state
 * is re-run directly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/web_run.h"
#include "mtc/error.h"
#include "mtc/staple.h"
#include "test.h"

static double f_staple(double v, double a, double T)
{
    return 1 - exp(-v * a) * (1 - exp(-v * T)) / (v * T);
}

static double f_both(double v, double mu, double a, double T)
{
    double w = v + mu;
    return 1 - exp(-w * a) * (v / w) * (1 - exp(-w * T)) / (v * T);
}

static double f_updates(double mu, double a, double T)
{
    return 1 - exp(-mu * a) * (1 - exp(-mu * T)) / (mu * T);
}

enum { LEARN_ONLY = 0, NO_LEARN = 1, BOTH = 2, UPDATES_ONLY = 3, NCO = 4 };

TEST(signatureless_share_matches_closed_form)
{
    const double L = 3600, v = 1.0 / 3600, mu = 1.0 / 7200;
    const double t0 = L + 1800, T = 2 * 3600.0;
    const size_t R = 8;
    size_t clients = (size_t)(1500 * test_scale());
    if (clients < 600)
        clients = 600; /* the sanitized build's scale: intervals stay useful */
    double frac[NCO][16];
    for (size_t rep = 0; rep < R; rep++) {
        wfx_config pc;
        wfx_defaults(&pc);
        pc.landmark_interval = (sim_time)L * SIM_SEC;
        pc.staple = 1;
        pc.witnesses = 1;
        web_sites_config *site = wrun_sites_new();
        site->count = 40;
        site->issue_spread = SIM_SEC;
        site->retry_after = SIM_SEC;
        web_browsers_config *co[NCO];
        const char *names[NCO] = {"learn", "nolearn", "both", "updates"};
        for (int k = 0; k < NCO; k++) {
            co[k] = wrun_browsers_new();
            snprintf(co[k]->name, sizeof co[k]->name, "%s", names[k]);
            co[k]->count = (int64_t)clients;
            co[k]->sessions_per_day = 0;
            co[k]->visits_per_hour = v * 3600;
            co[k]->zipf_exponent = 0;
            co[k]->update_first_delay = 0;
            co[k]->update_fail_prob = 0;
            co[k]->ticket_lifetime = 0;
            co[k]->never_updates = k == LEARN_ONLY || k == NO_LEARN;
            co[k]->learn_staples = k != NO_LEARN && k != UPDATES_ONLY;
            sim_dist_destroy(co[k]->update_interval);
            sim_dist_exponential(&co[k]->update_interval, 1 / mu);
        }
        wrun r;
        /* the invariants in the first replication: it re-verifies every
         * memoized verification directly (thousands of handshakes, most of
         * the test's time), the other replications only add samples */
        ASSERT_OK(wrun_create(&r, &pc, 91, rep, 0, 1, (sim_time)t0 * SIM_SEC, rep == 0,
                              (const web_sites_config *const *)&site, 1,
                              (const web_browsers_config *const *)co, NCO));
        wrun_until(&r, (sim_time)(t0 + T) * SIM_SEC);
        for (int k = 0; k < NCO; k++) {
            double full = (double)wrun_cell(&r, "handshake_full", (size_t)k);
            double sl = (double)wrun_cell(&r, "handshake_signatureless", (size_t)k);
            ASSERT_TRUE(full > 0.5 * (double)clients);
            frac[k][rep] = sl / full;
        }
        web_stats st;
        web_get_stats(r.wb, &st);
        ASSERT_EQ(st.invariant_violations, 0);
        /* the first full handshake of a client is never signatureless
         * without an update, and every learning client learned once */
        ASSERT_EQ(wrun_cell(&r, "staple_signatureless_by_visit", LEARN_ONLY * 16), 0);
        ASSERT_TRUE(wrun_cell(&r, "staple_full_by_visit", LEARN_ONLY * 16) > 0);
        ASSERT_TRUE(wrun_cell(&r, "staple_learned", LEARN_ONLY) <= (int64_t)clients);
        ASSERT_TRUE(wrun_cell(&r, "staple_learned", LEARN_ONLY) > (int64_t)clients / 2);
        ASSERT_EQ(wrun_cell(&r, "staple_learned", NO_LEARN), 0);
        ASSERT_EQ(wrun_cell(&r, "staple_refused", LEARN_ONLY), 0);
        wrun_free(&r);
        sim_param_config_free(&sim_sites_schema, site);
        for (int k = 0; k < NCO; k++)
            sim_param_config_free(&sim_browsers_schema, co[k]);
    }
    double a = t0 - L;
    double want[NCO] = {f_staple(v, a, T), 0, f_both(v, mu, a, T), f_updates(mu, a, T)};
    for (int k = 0; k < NCO; k++) {
        if (k == NO_LEARN) {
            for (size_t rep = 0; rep < R; rep++)
                ASSERT_EQ(frac[k][rep], 0.0);
            continue;
        }
        sim_ci ci;
        ASSERT_OK(sim_ci_student(frac[k], R, 0.99, &ci));
        if (getenv("WEB_TEST_VERBOSE"))
            fprintf(stderr, "cohort %d formula %.4f ci [%.4f, %.4f]\n", k, want[k],
                    ci.lo, ci.hi);
        ASSERT_TRUE(ci.lo <= want[k] && want[k] <= ci.hi);
        ASSERT_TRUE(ci.half_width < (clients < 1500 ? 0.07 : 0.04));
        for (int j = 0; j < NCO; j++)
            if (j != k && j != NO_LEARN)
                ASSERT_TRUE(want[j] < ci.lo || want[j] > ci.hi);
    }
}

TEST(staple_bytes_are_the_encoding)
{
    /* One client, one site: its first handshake after L carries the
     * fixture's staple (4 + its length bytes), its second does not. */
    wfx_config pc;
    wfx_defaults(&pc);
    pc.staple = 1;
    pc.witnesses = 2;
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
    co->learn_staples = 1;
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 5, 0, 0, 1, 3600 * SIM_SEC + 1, 1,
                          (const web_sites_config *const *)&site, 1,
                          (const web_browsers_config *const *)&co, 1));
    wrun_until(&r, 2 * 3600 * SIM_SEC);
    const web_pki *pki = wfx_pki(r.pki);
    const sim_ca_staple *s = pki->staple(pki->ctx, 0);
    ASSERT_TRUE(s != NULL);
    mtc_staple *dec;
    ASSERT_OK(mtc_staple_decode(s->bytes, s->len, &dec));
    ASSERT_EQ(dec->n_cosigs, 3);
    mtc_staple_free(dec);
    sim_metric *h = sim_metrics_find(r.metrics, "staple_bytes");
    ASSERT_TRUE(h != NULL);
    ASSERT_EQ(sim_hist_count(h, 0), 1);
    ASSERT_NEAR(sim_hist_sum(h, 0), 4.0 + (double)s->len, 1e-9);
    ASSERT_EQ(wrun_cell(&r, "staple_learned", 0), 1);
    ASSERT_TRUE(wrun_cell(&r, "handshake_signatureless", 0) >= 30);
    wrun_free(&r);
    sim_param_config_free(&sim_sites_schema, site);
    sim_param_config_free(&sim_browsers_schema, co);
}

static const test_case tests[] = {
    {"signatureless_share_matches_closed_form", signatureless_share_matches_closed_form},
    {"staple_bytes_are_the_encoding", staple_bytes_are_the_encoding},
};

TEST_MAIN(tests)
