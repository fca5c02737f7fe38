/*
 * test_web_update.c - the client update model (docs/model.md, "Web side:
 * the client update model") against closed forms, on the real-mtc-core
 * PKI fixture:
 *  - update_interval means what it says: checks every 3 days with 3
 *    sessions a day give 1 / (3 d + the wait for a session) checks a day,
 *    not one per session; update_on_start = "always"
 *    gives one per session, as Chrome's component updater;
 *  - absences: away_prob = 1 stretches every gap by away_duration;
 *  - random phase: an always-online cohort with a constant interval
 *    checks evenly over the hours, not in lockstep (update_phase "start"
 *    keeps the lockstep, as documented);
 *  - the share of online clients lacking the latest landmark, exactly where
 *    the phase makes it a closed form;
 *  - a policy delay lowers the signatureless fraction against the same
 *    population without it (common random numbers: the same handshakes),
 *    by the closed form of test_web_closed_form.c shifted by the delay;
 *  - time from a landmark's first publication to each client holding it:
 *    uniform on [D, D + interval] for clients in random phase, censored
 *    at the end of the run, bin by bin;
 *  - fetches closer than D/31 join one install: at most D/31 late;
 *  - new installs arrive over arrival_spread holding their installer's
 *    state.
 */
#include <math.h>
#include <string.h>

#include "lib/web_run.h"
#include "mtc/error.h"
#include "test.h"

/* A cohort of n clients with no visits, no failures, no resumption. */
static web_browsers_config *cohort(const char *name, size_t n)
{
    web_browsers_config *c = wrun_browsers_new();
    snprintf(c->name, sizeof c->name, "%s", name);
    c->count = (int64_t)n;
    c->visits_per_hour = 0;
    c->update_fail_prob = 0;
    c->ticket_lifetime = 0;
    return c;
}

static void set_const(sim_dist **d, double v)
{
    sim_dist_destroy(*d);
    *d = NULL;
    sim_dist_const(d, v);
}

static web_sites_config *one_site(void)
{
    web_sites_config *s = wrun_sites_new();
    s->count = 1;
    s->issue_spread = SIM_HOUR;
    return s;
}

static void flat_profile(web_browsers_config *c)
{
    for (int h = 0; h < SIM_PROFILE_HOURS; h++)
        c->online_profile[h] = 1.0;
}

static double cohort_counter(const wrun *r, const char *name, size_t k)
{
    sim_metric *m = sim_metrics_find(r->metrics, name);
    return m ? (double)sim_counter_value(m, k) : -1;
}

/*
 * Checks a day. Sessions start as a Poisson process of rate lambda (flat
 * profile), last d; a check falls due I after the previous one. Due while
 * online (probability d / (d + 1/lambda)) it runs at once; due while
 * offline it waits for the next start (1/lambda on average, memoryless)
 * plus the start-up delay. So a check every I + (1/lambda + delta) / (1 +
 * lambda d). Three sessions a day of 1 h, I = 3 d, delta = 60 s:
 * 0.3033 a day. The same clients with update_on_start = "always" check at
 * every start: one session every d + 1/lambda, 2.667 a day. Before the
 * update model every session start checked: 2.667 a day whatever I.
 */
TEST(interval_of_three_days_checks_every_three_days)
{
    const double lam = 3.0 / 86400, d = 3600, I = 3 * 86400.0, delta = 60;
    const double want = 86400 / (I + (1 / lam + delta) / (1 + lam * d));
    size_t n = test_scaled(2000);
    web_browsers_config *co[2];
    for (int k = 0; k < 2; k++) {
        co[k] = cohort(k ? "always" : "if_due", n);
        co[k]->sessions_per_day = 3;
        flat_profile(co[k]);
        set_const(&co[k]->session_duration, d);
        set_const(&co[k]->update_interval, I);
        co[k]->update_first_delay = (sim_time)delta * SIM_SEC;
        co[k]->update_on_start = k ? WEB_START_ALWAYS : WEB_START_IF_DUE;
    }
    web_sites_config *site = one_site();
    wfx_config pc;
    wfx_defaults(&pc);
    wrun r;
    const double days = 60, warm = 0; /* the warm start is stationary */
    ASSERT_OK(wrun_create(&r, &pc, 5, 0, 0, 1, (sim_time)warm * SIM_DAY, 0,
                          (const web_sites_config *const *)&site, 1,
                          (const web_browsers_config *const *)co, 2));
    wrun_until(&r, (sim_time)(warm + days) * SIM_DAY);
    double per_day[2];
    for (int k = 0; k < 2; k++)
        per_day[k] = cohort_counter(&r, "update_fetch", (size_t)k) / (double)n / days;
    if (getenv("WEB_TEST_VERBOSE"))
        fprintf(stderr, "checks a day: if_due %.4f (closed form %.4f), always %.4f (%.4f)\n",
                per_day[0], want, per_day[1], 86400 / (d + 1 / lam));
    ASSERT_NEAR(want, 0.3033, 0.0005);
    ASSERT_NEAR(per_day[0], want, 0.02 * want);
    ASSERT_NEAR(per_day[1], 86400 / (d + 1 / lam), 0.02 * 86400 / (d + 1 / lam));
    wrun_free(&r);
    for (int k = 0; k < 2; k++)
        sim_param_config_free(&sim_browsers_schema, co[k]);
    sim_param_config_free(&sim_sites_schema, site);
}

/*
 * Absences: with away_prob = 1 every session end starts an absence of A;
 * the next session follows after the usual exponential gap. With
 * update_on_start = "always", one check per session: 1 / (d + A + 1/lambda)
 * a day.
 */
TEST(absences_stretch_the_gaps)
{
    const double lam = 3.0 / 86400, d = 3600, A = 5 * 86400.0;
    size_t n = test_scaled(2000);
    web_browsers_config *co = cohort("away", n);
    co->sessions_per_day = 3;
    flat_profile(co);
    set_const(&co->session_duration, d);
    co->update_on_start = WEB_START_ALWAYS;
    co->away_prob = 1;
    set_const(&co->away_duration, A);
    web_sites_config *site = one_site();
    wfx_config pc;
    wfx_defaults(&pc);
    wrun r;
    const double days = 90, warm = 0; /* the warm start is stationary */
    ASSERT_OK(wrun_create(&r, &pc, 6, 0, 0, 1, (sim_time)warm * SIM_DAY, 0,
                          (const web_sites_config *const *)&site, 1,
                          (const web_browsers_config *const *)&co, 1));
    wrun_until(&r, (sim_time)(warm + days) * SIM_DAY);
    double per_day = cohort_counter(&r, "update_fetch", 0) / (double)n / days;
    double want = 86400 / (d + A + 1 / lam);
    if (getenv("WEB_TEST_VERBOSE"))
        fprintf(stderr, "away: checks a day %.4f, closed form %.4f\n", per_day, want);
    ASSERT_NEAR(per_day, want, 0.03 * want);
    wrun_free(&r);
    sim_param_config_free(&sim_browsers_schema, co);
    sim_param_config_free(&sim_sites_schema, site);
    /* away_prob needs a duration and sessions */
    web_browsers_config *b = wrun_browsers_new();
    char err[200];
    b->away_prob = 0.5;
    ASSERT_NE(sim_browsers_schema.validate(b, err, sizeof err), MTC_OK);
    ASSERT_TRUE(strstr(err, "away_duration") != NULL);
    sim_param_config_free(&sim_browsers_schema, b);
}

/*
 * Random phase: n always-online clients checking every 5 h (constant).
 * Each checks once in every 5 h, at its own phase, so each hour holds
 * about n / 5 checks (binomial). With update_phase = "start" all check
 * in the same hour (the former lockstep, kept as an option).
 */
TEST(random_phase_no_lockstep)
{
    size_t n = test_scaled(2000);
    for (int start = 0; start <= 1; start++) {
        web_browsers_config *co = cohort("main", n);
        co->sessions_per_day = 0;
        co->update_first_delay = 0;
        set_const(&co->update_interval, 5 * 3600.0);
        co->update_phase = start ? WEB_PHASE_START : WEB_PHASE_RANDOM;
        web_sites_config *site = one_site();
        wfx_config pc;
        wfx_defaults(&pc);
        wrun r;
        ASSERT_OK(wrun_create(&r, &pc, 7, 0, 0, 1, 0, 0,
                              (const web_sites_config *const *)&site, 1,
                              (const web_browsers_config *const *)&co, 1));
        wrun_until(&r, 30 * SIM_HOUR + SIM_HOUR / 2);
        const sim_metric *f = sim_metrics_find(r.metrics, "update_fetch");
        ASSERT_TRUE(f != NULL);
        ASSERT_TRUE(sim_metric_series_len(f) >= 30);
        double p = 0.2, sd = sqrt((double)n * p * (1 - p));
        size_t busy = 0;
        for (size_t h = 1; h <= 30; h++) {
            double c = sim_metric_series_value(f, 0, h) - sim_metric_series_value(f, 0, h - 1);
            if (!start)
                ASSERT_TRUE(fabs(c - (double)n * p) < 5 * sd);
            busy += c > 0;
        }
        if (start) /* checks at 0, 5 h, ... exactly: in 6 of the 30 hours */
            ASSERT_EQ(busy, 6);
        else
            ASSERT_EQ(busy, 30);
        wrun_free(&r);
        sim_param_config_free(&sim_browsers_schema, co);
        sim_param_config_free(&sim_sites_schema, site);
    }
}

/*
 * Share of online clients lacking the latest landmark. Landmarks every
 * hour, published 10 min later; n always-online clients checking every
 * 5 h at random phases. At each full hour g the latest landmark was
 * published 50 min ago, and a client lacks it iff it has not checked
 * since: probability 1 - 50/300 = 5/6 at every grid point.
 */
TEST(lacking_latest_landmark_share)
{
    size_t n = test_scaled(2000);
    web_browsers_config *co = cohort("main", n);
    co->sessions_per_day = 0;
    co->update_first_delay = 0;
    set_const(&co->update_interval, 5 * 3600.0);
    web_sites_config *site = one_site();
    wfx_config pc;
    wfx_defaults(&pc);
    pc.pub_delay = 10 * SIM_MIN;
    pc.background = 8;
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 8, 0, 0, 1, 0, 0,
                          (const web_sites_config *const *)&site, 1,
                          (const web_browsers_config *const *)&co, 1));
    wrun_until(&r, 24 * SIM_HOUR);
    const sim_metric *on = sim_metrics_find(r.metrics, "clients_online");
    const sim_metric *lack = sim_metrics_find(r.metrics, "clients_lacking_latest_landmark");
    ASSERT_TRUE(on != NULL && lack != NULL);
    ASSERT_TRUE(sim_metric_series_len(lack) >= 24);
    double p = 5.0 / 6, sd = sqrt(p * (1 - p) / (double)n);
    /* before the first publication (1 h 10 min) nothing is lacking */
    ASSERT_NEAR(sim_metric_series_value(lack, 0, 1), 0, 0);
    for (size_t h = 2; h <= 24; h++) {
        ASSERT_NEAR(sim_metric_series_value(on, 0, h), (double)n, 0);
        double share = sim_metric_series_value(lack, 0, h) / (double)n;
        ASSERT_NEAR(share, p, 5 * sd);
    }
    wrun_free(&r);
    sim_param_config_free(&sim_browsers_schema, co);
    sim_param_config_free(&sim_sites_schema, site);
}

/* The formula of test_web_closed_form.c (docs/model.md). */
static double formula(double mu, double L, int m, double t0, double T)
{
    double s = 0;
    for (int k = 1; k <= m; k++)
        s += exp(-mu * (t0 - k * L));
    return 1 - s / m * (1 - exp(-mu * T)) / (mu * T);
}

/*
 * Policy delay, common random numbers. The closed-form configuration of
 * test_web_closed_form.c (always online, Poisson checks of rate mu,
 * landmarks every L, certificates issued over [0, mL)), run twice per
 * replication on the same streams: without a delay and with
 * update_apply_delay = D. The delay is drawn from a stream of its own, so
 * both runs make the same handshakes at the same times; a client with the
 * delay holds at t what it fetched by t - D, never more than without it.
 * A handshake at t to a site whose landmark was published at P is
 * signatureless iff the client checked in [P, t - D]: the formula with t0
 * replaced by t0 - D.
 */
TEST(apply_delay_lowers_signatureless_fraction)
{
    const double L = 3600, mu = 1.0 / (6 * 3600.0), D = 2 * 3600.0;
    const int m = 6;
    const double t0 = 9 * 3600.0 + 60, t1 = 15 * 3600.0 + 60;
    const size_t R = 8;
    size_t clients = test_scaled(1500);
    double frac[2][16];
    for (size_t rep = 0; rep < R; rep++) {
        int64_t full[2];
        for (int delay = 0; delay <= 1; delay++) {
            wfx_config pc;
            wfx_defaults(&pc);
            pc.landmark_interval = (sim_time)L * SIM_SEC;
            web_sites_config *site = wrun_sites_new();
            site->count = 60;
            site->issue_spread = (sim_time)(m * L) * SIM_SEC;
            site->retry_after = SIM_SEC;
            web_browsers_config *co = cohort("main", clients);
            co->sessions_per_day = 0;
            co->visits_per_hour = 3;
            co->zipf_exponent = 0;
            co->update_first_delay = 0;
            sim_dist_destroy(co->update_interval);
            sim_dist_exponential(&co->update_interval, 1 / mu);
            if (delay)
                sim_dist_const(&co->update_apply_delay, D);
            wrun r;
            ASSERT_OK(wrun_create(&r, &pc, 77, rep, 0, 1, (sim_time)t0 * SIM_SEC, 0,
                                  (const web_sites_config *const *)&site, 1,
                                  (const web_browsers_config *const *)&co, 1));
            wrun_until(&r, (sim_time)t1 * SIM_SEC);
            full[delay] = wrun_counter(&r, "handshake_full");
            ASSERT_TRUE(full[delay] > 1000 * test_scale());
            frac[delay][rep] =
                (double)wrun_counter(&r, "handshake_signatureless") / (double)full[delay];
            web_stats st;
            web_get_stats(r.wb, &st);
            /* joined installs (fetches within D/31 = 4 min of each
             * other, at most 4 min late) are too rare to matter here */
            ASSERT_TRUE(st.apply_merged * 50 <= st.update_fetches);
            wrun_free(&r);
            sim_param_config_free(&sim_sites_schema, site);
            sim_param_config_free(&sim_browsers_schema, co);
        }
        /* the same handshakes; with the delay, never more signatureless */
        ASSERT_EQ(full[0], full[1]);
        ASSERT_TRUE(frac[1][rep] < frac[0][rep]);
    }
    sim_ci ci[2];
    double f[2] = {formula(mu, L, m, t0, t1 - t0), formula(mu, L, m, t0 - D, t1 - t0)};
    for (int k = 0; k < 2; k++) {
        ASSERT_OK(sim_ci_student(frac[k], R, 0.99, &ci[k]));
        if (getenv("WEB_TEST_VERBOSE"))
            fprintf(stderr, "delay %d: formula %.4f  ci [%.4f, %.4f]\n", k, f[k],
                    ci[k].lo, ci[k].hi);
        ASSERT_TRUE(ci[k].lo <= f[k] && f[k] <= ci[k].hi);
        ASSERT_TRUE(ci[k].half_width < 0.04);
    }
    /* the effect is measurable: the intervals are apart */
    ASSERT_TRUE(f[0] - f[1] > 0.1);
    ASSERT_TRUE(ci[1].hi < ci[0].lo);
}

/*
 * Time from a landmark's first publication to each client holding it.
 * Landmarks every hour (k = 1, 2, ...), published pd later; always-online
 * clients checking every I (constant) at random phases, installing D
 * after the check. A landmark published at P_k is held at P_k + U + D,
 * U uniform on [0, I) (the time to the client's next check); the run ends
 * at T, so only holdings by T are observed. Expected observations with
 * time <= a, per client: sum_k clamp((min(a, T - P_k) - D) / I, 0, 1).
 * Compared bin edge by bin edge with the histogram.
 */
TEST(time_to_holding_closed_form)
{
    const double I = 5 * 3600.0, pd = 600, T = 3 * 86400.0;
    const double Ds[2] = {0, 5400};
    size_t n = test_scaled(1000);
    web_browsers_config *co[2];
    for (int k = 0; k < 2; k++) {
        co[k] = cohort(k ? "delayed" : "prompt", n);
        co[k]->sessions_per_day = 0;
        co[k]->update_first_delay = 0;
        set_const(&co[k]->update_interval, I);
        if (Ds[k] > 0)
            set_const(&co[k]->update_apply_delay, Ds[k]);
    }
    web_sites_config *site = one_site();
    wfx_config pc;
    wfx_defaults(&pc);
    pc.pub_delay = (sim_time)pd * SIM_SEC;
    pc.background = 8;
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 9, 0, 0, 1, 0, 0,
                          (const web_sites_config *const *)&site, 1,
                          (const web_browsers_config *const *)co, 2));
    wrun_until(&r, (sim_time)T * SIM_SEC);
    ASSERT_TRUE(wfx_landmarks(r.pki, 0) >= 70);
    const sim_metric *h = sim_metrics_find(r.metrics, "landmark_time_to_holding");
    ASSERT_TRUE(h != NULL);
    for (int k = 0; k < 2; k++) {
        double D = Ds[k];
        double total = 0;
        for (int j = 1; j * 3600.0 + pd < T; j++)
            total += fmin(1, fmax(0, (T - (j * 3600.0 + pd) - D) / I));
        uint64_t cnt = sim_hist_count(h, (size_t)k);
        /* the count: one per (client, landmark) held by the end */
        ASSERT_NEAR((double)cnt / (double)n, total, 0.02 * total);
        ASSERT_TRUE(sim_hist_min(h, (size_t)k) >= D);
        ASSERT_TRUE(sim_hist_max(h, (size_t)k) <= D + I + 1); /* installs round up to the second */
        size_t checked = 0;
        uint64_t below = sim_hist_bin(h, (size_t)k, 0);
        for (size_t i = 1; i <= sim_hist_nbins(h); i++) {
            below += sim_hist_bin(h, (size_t)k, i);
            double a = sim_hist_edge(h, i); /* the bin's upper edge */
            if (a <= D + 60 || a >= D + I - 60)
                continue;
            double want = 0;
            for (int j = 1; j * 3600.0 + pd < T; j++)
                want += fmin(1, fmax(0, (fmin(a, T - (j * 3600.0 + pd)) - D) / I));
            ASSERT_NEAR((double)below / (double)cnt, want / total, 0.03);
            checked++;
        }
        ASSERT_TRUE(checked >= 5);
    }
    wrun_free(&r);
    for (int k = 0; k < 2; k++)
        sim_param_config_free(&sim_browsers_schema, co[k]);
    sim_param_config_free(&sim_sites_schema, site);
}

/*
 * Fetches closer than D/31 join one install. Landmarks every 5 minutes,
 * clients checking every minute with an install delay of 4 hours: a new
 * publication every 5 minutes, 48 within one delay, more than the queue's
 * 32. Every other fetch joins the previous one's install, at most D/31
 * (7.7 min) late and never early: a landmark published at P is held
 * between P + D and P + 60 s (the next check) + D + D/31 (+1 s: installs
 * round up to the second).
 */
TEST(close_fetches_join_one_install)
{
    const double D = 4 * 3600.0;
    size_t n = test_scaled(200);
    web_browsers_config *co = cohort("busy", n);
    co->sessions_per_day = 0;
    co->update_first_delay = 0;
    set_const(&co->update_interval, 60);
    set_const(&co->update_apply_delay, D);
    web_sites_config *site = one_site();
    wfx_config pc;
    wfx_defaults(&pc);
    pc.background = 8;
    pc.landmark_interval = 5 * SIM_MIN;
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 11, 0, 0, 1, 0, 0,
                          (const web_sites_config *const *)&site, 1,
                          (const web_browsers_config *const *)&co, 1));
    wrun_until(&r, 12 * SIM_HOUR);
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_TRUE(st.apply_merged > 0);
    ASSERT_EQ((double)st.apply_merged, cohort_counter(&r, "update_installs_merged", 0));
    const sim_metric *h = sim_metrics_find(r.metrics, "landmark_time_to_holding");
    if (getenv("WEB_TEST_VERBOSE"))
        fprintf(stderr, "joined installs: %llu merged, %llu holdings, min %.0f max %.0f s\n",
                (unsigned long long)st.apply_merged, (unsigned long long)sim_hist_count(h, 0),
                sim_hist_min(h, 0), sim_hist_max(h, 0));
    ASSERT_TRUE(sim_hist_count(h, 0) > 5 * n);
    ASSERT_TRUE(sim_hist_min(h, 0) >= D);
    ASSERT_TRUE(sim_hist_max(h, 0) <= D + 60 + D / 31 + 1);
    /* a later one than D + 60 s: some were late (so the bound is tested) */
    ASSERT_TRUE(sim_hist_max(h, 0) > D + 60 + 1);
    wrun_free(&r);
    sim_param_config_free(&sim_browsers_schema, co);
    sim_param_config_free(&sim_sites_schema, site);
}

/*
 * New installs: clients arrive uniformly over 10 h and hold the
 * publication that was latest 3 h before (their installer's). Frozen
 * ones keep it: every handshake sees a newest landmark at least 3 h old,
 * and the online count grows as n * t / 10 h. Without installer_age they
 * arrive with no landmark: no age is observed at all.
 */
TEST(new_installs_with_installer_state)
{
    size_t n = test_scaled(1000);
    web_browsers_config *co[2];
    for (int k = 0; k < 2; k++) {
        co[k] = cohort(k ? "empty" : "installer", n);
        co[k]->sessions_per_day = 0;
        co[k]->visits_per_hour = 2;
        co[k]->never_updates = 1;
        co[k]->arrival_spread = 10 * SIM_HOUR;
        if (!k)
            set_const(&co[k]->installer_age, 3 * 3600.0);
    }
    web_sites_config *site = wrun_sites_new();
    site->count = 20;
    site->issue_spread = SIM_HOUR;
    site->retry_after = SIM_SEC;
    wfx_config pc;
    wfx_defaults(&pc);
    pc.background = 8;
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 10, 0, 0, 1, 0, 1,
                          (const web_sites_config *const *)&site, 1,
                          (const web_browsers_config *const *)co, 2));
    wrun_until(&r, 12 * SIM_HOUR);
    const sim_metric *on = sim_metrics_find(r.metrics, "clients_online");
    for (size_t h = 1; h <= 12; h++) {
        double want = (double)n * fmin(1, (double)h / 10);
        double sd = sqrt((double)n * fmin(1, h / 10.0) * (1 - fmin(1, h / 10.0)));
        ASSERT_NEAR(sim_metric_series_value(on, 0, h), want, 5 * sd + 1e-9);
    }
    const sim_metric *age = sim_metrics_find(r.metrics, "landmark_age_at_handshake");
    ASSERT_TRUE(sim_hist_count(age, 0) > 100 * test_scale());
    ASSERT_TRUE(sim_hist_min(age, 0) >= 3 * 3600.0);
    ASSERT_EQ(sim_hist_count(age, 1), 0);
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_EQ(st.invariant_violations, 0);
    ASSERT_EQ(st.update_fetches, 0);
    wrun_free(&r);
    for (int k = 0; k < 2; k++)
        sim_param_config_free(&sim_browsers_schema, co[k]);
    sim_param_config_free(&sim_sites_schema, site);
}

static const test_case tests[] = {
    {"interval_of_three_days_checks_every_three_days", interval_of_three_days_checks_every_three_days},
    {"absences_stretch_the_gaps", absences_stretch_the_gaps},
    {"random_phase_no_lockstep", random_phase_no_lockstep},
    {"lacking_latest_landmark_share", lacking_latest_landmark_share},
    {"apply_delay_lowers_signatureless_fraction", apply_delay_lowers_signatureless_fraction},
    {"time_to_holding_closed_form", time_to_holding_closed_form},
    {"close_fetches_join_one_install", close_fetches_join_one_install},
    {"new_installs_with_installer_state", new_installs_with_installer_state},
};
TEST_MAIN(tests)
