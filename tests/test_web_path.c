/*
 * test_web_path.c - handshake latency inside the web model (web_path.c):
 * a cohort without rtt changes nothing and creates no latency metric; a
 * cohort with a path leaves every other figure as it was (the path has
 * its own stream) and prices every full and resumed handshake; a constant
 * loss-free path gives the closed form's floor, and a retry a second
 * handshake.
 */
#include <math.h>
#include <string.h>

#include "lib/web_run.h"
#include "mtc/error.h"
#include "test.h"

static size_t scaled(size_t n)
{
    size_t v = (size_t)((double)n * test_scale());
    return v ? v : 1;
}

static web_browsers_config *cohort(const char *name, size_t n)
{
    web_browsers_config *c = wrun_browsers_new();
    snprintf(c->name, sizeof c->name, "%s", name);
    c->count = (int64_t)n;
    c->sessions_per_day = 0;
    c->visits_per_hour = 4;
    c->update_first_delay = 0;
    c->update_fail_prob = 0;
    c->ticket_lifetime = 2 * SIM_HOUR;
    sim_dist_destroy(c->update_interval);
    sim_dist_const(&c->update_interval, 1800);
    return c;
}

static web_sites_config *sites(size_t n)
{
    web_sites_config *s = wrun_sites_new();
    s->count = (int64_t)n;
    s->issue_spread = 2 * SIM_HOUR;
    s->retry_after = SIM_SEC;
    return s;
}

typedef struct outcome {
    web_stats st;
    double auth_sum;
    int has_lat;
    uint64_t lat_n[2], res_n[2];
    double lat_min[2], lat_max[2], base_p50[2], lat_p50[2];
} outcome;

/* Two cohorts; `path` gives both a path (cohort 1 mis-signals: retries). */
static void run(int path, double loss, outcome *o, test_ctx *tc_)
{
    wfx_config pc;
    wfx_defaults(&pc);
    web_sites_config *s = sites(10);
    web_browsers_config *c[2] = {cohort("a", scaled(200)), cohort("b", scaled(200))};
    c[1]->missignal_prob = 0.3;
    for (int i = 0; path && i < 2; i++) {
        ASSERT_OK(sim_dist_const(&c[i]->rtt, 100.0));
        c[i]->loss_prob = loss;
        if (loss > 0) {
            ASSERT_OK(sim_dist_exponential(&c[i]->rtt_jitter, 10.0));
            ASSERT_OK(sim_dist_const(&c[i]->bandwidth, 5e6));
        }
    }
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 21, 0, 0, 1, 0, 1, (const web_sites_config *const *)&s, 1,
                          (const web_browsers_config *const *)c, 2));
    wrun_until(&r, 8 * SIM_HOUR);
    memset(o, 0, sizeof *o);
    web_get_stats(r.wb, &o->st);
    o->auth_sum = sim_hist_sum(sim_metrics_find(r.metrics, "auth_bytes"), SIM_ALL_COHORTS);
    sim_metric *lat = sim_metrics_find(r.metrics, "handshake_ms");
    sim_metric *res = sim_metrics_find(r.metrics, "handshake_ms_resumed");
    sim_metric *base = sim_metrics_find(r.metrics, "handshake_ms_baseline_mldsa44");
    o->has_lat = lat != NULL;
    for (size_t k = 0; lat && k < 2; k++) {
        o->lat_n[k] = sim_hist_count(lat, k);
        o->res_n[k] = sim_hist_count(res, k);
        o->lat_min[k] = sim_hist_min(lat, k);
        o->lat_max[k] = sim_hist_max(lat, k);
        o->lat_p50[k] = sim_hist_quantile(lat, k, 0.5);
        o->base_p50[k] = sim_hist_quantile(base, k, 0.5);
    }
    wrun_free(&r);
    sim_param_config_free(&sim_sites_schema, s);
    for (int i = 0; i < 2; i++)
        sim_param_config_free(&sim_browsers_schema, c[i]);
}

TEST(path_is_opt_in_and_changes_nothing_else)
{
    outcome off, on;
    run(0, 0, &off, tc_);
    run(1, 0.02, &on, tc_);
    ASSERT_FALSE(off.has_lat);
    ASSERT_TRUE(on.has_lat);
    /* the path's draws come from a stream of their own */
    ASSERT_EQ(off.st.full, on.st.full);
    ASSERT_EQ(off.st.signatureless, on.st.signatureless);
    ASSERT_EQ(off.st.resumed, on.st.resumed);
    ASSERT_EQ(off.st.retries, on.st.retries);
    ASSERT_EQ(off.st.update_fetches, on.st.update_fetches);
    ASSERT_TRUE(off.auth_sum == on.auth_sum);
    /* every full and resumed handshake is priced */
    ASSERT_TRUE(on.st.full > 0 && on.st.resumed > 0 && on.st.retries > 0);
    ASSERT_EQ_U64(on.lat_n[0] + on.lat_n[1], on.st.full);
    ASSERT_EQ_U64(on.res_n[0] + on.res_n[1], on.st.resumed);
}

TEST(constant_path_floor_and_retry)
{
    outcome o;
    run(1, 0, &o, tc_);
    /* TCP: 1 RTT set-up + at least 1 RTT of flight, plus signing time */
    for (int k = 0; k < 2; k++) {
        ASSERT_TRUE(o.lat_min[k] >= 200.0);
        ASSERT_TRUE(o.lat_min[k] < 200.0 * 1.05); /* one bin of the histogram */
    }
    /* the mis-signalling cohort's retries are second handshakes */
    ASSERT_TRUE(o.st.retries > 0);
    ASSERT_TRUE(o.lat_max[1] >= 400.0);
    /* the ML-DSA-44 chain is never faster than MTC on the same path */
    ASSERT_TRUE(o.base_p50[0] >= o.lat_p50[0] * 0.98);
}

static const test_case tests[] = {
    {"path_is_opt_in_and_changes_nothing_else", path_is_opt_in_and_changes_nothing_else},
    {"constant_path_floor_and_retry", constant_path_floor_and_retry},
};
TEST_MAIN(tests)
