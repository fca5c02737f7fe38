/*
 * test_web_closed_form.c - the simulated signatureless fraction against a
 * formula derived for a simple configuration (docs/model.md, "Web side:
 * signatureless fraction, closed form").
 *
 * Configuration: landmarks every L (allocated at k*L, published at once);
 * each of the sites requests its certificate at a time s uniform on
 * [0, S), S = m*L, checkpointed at once; clients always online, update
 * checks a Poisson process of rate mu from time 0 (no failures); visits
 * Poisson, sites uniform; no resumption; handshakes counted on [t0, t1],
 * t0 > S (every site has its landmark-relative certificate).
 *
 * A handshake at t to a site whose covering landmark was published at
 * P = ceil(s/L)*L is signatureless iff the client checked in [P, t]:
 * probability 1 - exp(-mu (t - P)). P takes the values k*L, k = 1..m,
 * each with probability 1/m; t is uniform on [t0, t1] (T = t1 - t0):
 *
 *   f = 1 - (1/m) sum_{k=1..m} exp(-mu (t0 - k L)) (1 - exp(-mu T)) / (mu T)
 *
 * The test runs R replications (sim_rng replication r) and checks f lies
 * in the 99 % Student-t interval of the per-replication fractions, that
 * the interval is narrow enough to matter, and that it excludes the
 * formula with a wrong rate (2 mu) - the check has power.
 */
#include <math.h>

#include "lib/web_run.h"
#include "mtc/error.h"
#include "test.h"

static double formula(double mu, double L, int m, double t0, double T)
{
    double s = 0;
    for (int k = 1; k <= m; k++)
        s += exp(-mu * (t0 - k * L));
    return 1 - s / m * (1 - exp(-mu * T)) / (mu * T);
}

TEST(signatureless_fraction_matches_formula)
{
    const double L = 3600, mu = 1.0 / (6 * 3600.0);
    const int m = 6;
    const double t0 = 7 * 3600.0 + 60, t1 = 13 * 3600.0 + 60;
    const size_t R = 10;
    size_t clients = (size_t)(1500 * test_scale());
    double frac[16];
    for (size_t rep = 0; rep < R; rep++) {
        wfx_config pc;
        wfx_defaults(&pc);
        pc.landmark_interval = (sim_time)L * SIM_SEC;
        web_sites_config *site = wrun_sites_new();
        site->count = 60;
        site->issue_spread = (sim_time)(m * L) * SIM_SEC;
        site->retry_after = SIM_SEC;
        web_browsers_config *co = wrun_browsers_new();
        co->count = (int64_t)clients;
        co->sessions_per_day = 0;
        co->visits_per_hour = 3;
        co->zipf_exponent = 0;
        co->update_first_delay = 0;
        co->update_fail_prob = 0;
        co->ticket_lifetime = 0;
        sim_dist_destroy(co->update_interval);
        sim_dist_exponential(&co->update_interval, 1 / mu);
        wrun r;
        ASSERT_OK(wrun_create(&r, &pc, 77, rep, 0, 1, (sim_time)t0 * SIM_SEC, 0,
                              (const web_sites_config *const *)&site, 1,
                              (const web_browsers_config *const *)&co, 1));
        wrun_until(&r, (sim_time)t1 * SIM_SEC);
        double full = (double)wrun_counter(&r, "handshake_full");
        double sl = (double)wrun_counter(&r, "handshake_signatureless");
        ASSERT_TRUE(full > 1000 * test_scale());
        frac[rep] = sl / full;
        wrun_free(&r);
        sim_param_config_free(&sim_sites_schema, site);
        sim_param_config_free(&sim_browsers_schema, co);
    }
    sim_ci ci;
    ASSERT_OK(sim_ci_student(frac, R, 0.99, &ci));
    double f = formula(mu, L, m, t0, t1 - t0);
    double wrong = formula(2 * mu, L, m, t0, t1 - t0);
    if (getenv("WEB_TEST_VERBOSE"))
        fprintf(stderr, "formula %.4f  ci [%.4f, %.4f] mean %.4f  wrong-rate %.4f\n",
                f, ci.lo, ci.hi, ci.mean, wrong);
    ASSERT_TRUE(f > 0.5 && f < 0.75); /* a regime where both terms matter */
    ASSERT_TRUE(ci.lo <= f && f <= ci.hi);
    ASSERT_TRUE(ci.half_width < 0.04);
    ASSERT_TRUE(wrong < ci.lo || wrong > ci.hi);
}

TEST(formula_limits)
{
    /* mu -> infinity: every client fresh, f -> 1; mu -> 0: f -> 0. */
    ASSERT_NEAR(formula(1e3, 3600, 6, 7 * 3600.0, 6 * 3600.0), 1.0, 1e-9);
    ASSERT_NEAR(formula(1e-12, 3600, 6, 7 * 3600.0, 6 * 3600.0), 0.0, 1e-6);
    /* One site interval, t0 = L, T small: 1 - exp(-mu * 0) ... = 0. */
    ASSERT_NEAR(formula(1.0 / 3600, 3600, 1, 3600, 1e-6), 0.0, 1e-6);
}

static const test_case tests[] = {
    {"signatureless_fraction_matches_formula", signatureless_fraction_matches_formula},
    {"formula_limits", formula_limits},
};
TEST_MAIN(tests)
