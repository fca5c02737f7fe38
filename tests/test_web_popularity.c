/*
 * test_web_popularity.c - site choice over the full-size world's ranks and
 * the start-up burst, on the real-mtc-core PKI fixture:
 *  - what a client revisits and resumes does not depend on the sample:
 *    the same clients with 20 or 100 sites standing in for 2,000 make
 *    exactly the same full and resumed handshakes (their rank sequences
 *    and tickets are the full-size world's); drawing among the 20 sites
 *    themselves (the old model) resumes far more often;
 *  - a browser start empties the session cache unless keep_tickets;
 *  - a start-up burst of k hosts makes k connections per browser start,
 *    to distinct hosts (fewer when there are fewer sites), and none
 *    without one.
 */
#include <string.h>

#include "lib/web_run.h"
#include "mtc/error.h"
#include "test.h"

/* Browsers with three sessions a day, none started in the first hour of a
 * day (every site holds its first certificate by then, so no connection
 * finds a site without one), visiting 1-10 hosts at Zipf 1.2, 1-day
 * tickets. */
static web_browsers_config *browsers(size_t n)
{
    web_browsers_config *c = wrun_browsers_new();
    snprintf(c->name, sizeof c->name, "main");
    c->count = (int64_t)n;
    c->sessions_per_day = 3;
    c->online_profile[0] = 0;
    c->update_phase = WEB_PHASE_START;
    c->visits_per_hour = 20;
    c->zipf_exponent = 1.2;
    c->ticket_lifetime = 86400 * SIM_SEC;
    sim_dist_destroy(c->hosts_per_visit);
    const double v[] = {1, 3, 6, 10}, w[] = {3, 3, 3, 1};
    sim_dist_empirical(&c->hosts_per_visit, v, w, 4);
    return c;
}

typedef struct outcome {
    web_stats st;
    int64_t resumed, full;
} outcome;

static int run(size_t sites, int64_t represents, web_browsers_config *co,
               sim_time until, outcome *out)
{
    wfx_config pc;
    wfx_defaults(&pc);
    web_sites_config *s = wrun_sites_new();
    s->count = (int64_t)sites;
    s->represents = represents;
    s->retry_after = SIM_SEC;
    wrun r;
    int rc = wrun_create(&r, &pc, 7, 0, 0, 1, 0, 0,
                         (const web_sites_config *const *)&s, 1,
                         (const web_browsers_config *const *)&co, 1);
    if (rc == 0) {
        wrun_until(&r, until);
        web_get_stats(r.wb, &out->st);
        out->resumed = wrun_counter(&r, "handshake_resumed");
        out->full = wrun_counter(&r, "handshake_full");
        wrun_free(&r);
    }
    sim_param_config_free(&sim_sites_schema, s);
    return rc;
}

TEST(resumption_independent_of_sample)
{
    web_browsers_config *co = browsers(test_scaled(400));
    outcome a, b, old;
    ASSERT_OK(run(20, 2000, co, 2 * SIM_DAY, &a));
    ASSERT_OK(run(100, 2000, co, 2 * SIM_DAY, &b));
    /* the precondition: every connection found its site's certificate */
    ASSERT_EQ(a.st.no_cert, 0);
    ASSERT_EQ(b.st.no_cert, 0);
    ASSERT_EQ(a.st.failures, 0);
    ASSERT_EQ(b.st.failures, 0);
    ASSERT_TRUE(a.full > 1000 * test_scale());
    ASSERT_TRUE(a.resumed > 100 * test_scale());
    /* the same clients, the same ranks, the same tickets */
    ASSERT_EQ(a.resumed, b.resumed);
    ASSERT_EQ(a.full, b.full);
    ASSERT_EQ(a.st.resumed, b.st.resumed);
    /* Power: the 20 sites as the whole world revisit far more often. */
    ASSERT_OK(run(20, 0, co, 2 * SIM_DAY, &old));
    ASSERT_EQ(old.st.no_cert, 0);
    double sa = (double)a.resumed / (double)(a.resumed + a.full);
    double so = (double)old.resumed / (double)(old.resumed + old.full);
    ASSERT_TRUE(so > sa + 0.05);
    sim_param_config_free(&sim_browsers_schema, co);
}

TEST(startup_burst_connects_k_hosts_per_start)
{
    /* No page visits: every connection is a burst's. Without tickets each
     * is a full handshake, and a burst of 7 distinct hosts makes 7. */
    web_browsers_config *co = browsers(test_scaled(200));
    co->visits_per_hour = 0;
    co->ticket_lifetime = 0;
    outcome none, burst;
    ASSERT_OK(run(30, 0, co, 2 * SIM_DAY, &none));
    ASSERT_EQ(none.full + none.resumed + (int64_t)none.st.no_cert, 0);
    ASSERT_OK(sim_dist_const(&co->startup_hosts, 7));
    ASSERT_OK(run(30, 0, co, 2 * SIM_DAY, &burst));
    ASSERT_EQ(burst.st.no_cert, 0);
    ASSERT_TRUE(burst.full > 100 * test_scale());
    ASSERT_EQ(burst.full % 7, 0);
    /* with two sites only, a burst of 7 distinct hosts is cut to 2 */
    outcome two;
    ASSERT_OK(run(2, 0, co, 2 * SIM_DAY, &two));
    ASSERT_TRUE(two.full > 0);
    ASSERT_EQ(two.full % 2, 0);
    ASSERT_TRUE(two.full < burst.full);
    sim_param_config_free(&sim_browsers_schema, co);
}

TEST(browser_start_empties_the_session_cache)
{
    /* Only start-up bursts, of 5 distinct hosts among 30 (Zipf 1.2: the
     * same popular ones again and again), 1-day tickets, browser starts
     * hours apart: a session cache emptied at each start never resumes;
     * one kept across starts (keep_tickets) resumes often. */
    web_browsers_config *co = browsers(test_scaled(200));
    co->visits_per_hour = 0;
    ASSERT_OK(sim_dist_const(&co->startup_hosts, 5));
    outcome fresh, kept;
    ASSERT_OK(run(30, 0, co, 2 * SIM_DAY, &fresh));
    ASSERT_TRUE(fresh.full > 100 * test_scale());
    ASSERT_EQ(fresh.resumed, 0);
    co->keep_tickets = 1;
    ASSERT_OK(run(30, 0, co, 2 * SIM_DAY, &kept));
    ASSERT_TRUE(kept.resumed > kept.full / 10);
    /* the same connections either way: only their kind differs */
    ASSERT_EQ(kept.resumed + kept.full, fresh.full);
    sim_param_config_free(&sim_browsers_schema, co);
}

static const test_case tests[] = {
    {"resumption_independent_of_sample", resumption_independent_of_sample},
    {"startup_burst_connects_k_hosts_per_start", startup_burst_connects_k_hosts_per_start},
    {"browser_start_empties_the_session_cache", browser_start_empties_the_session_cache},
};

TEST_MAIN(tests)
