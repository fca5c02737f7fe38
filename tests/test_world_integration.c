/*
 * test_world_integration.c - the real PKI module and the real web module
 * in one world: 2 CAs (ML-DSA-44) sharing witnesses, an update service,
 * sites and two browser cohorts (one updating, one frozen), 2 days.
 * Asserts the web invariants end to end: every verification the model
 * made succeeded, no retry without mis-signalling, updating clients get
 * signatureless handshakes, frozen ones never do, update bytes are those
 * of the PKI's real encodings, and splitting the browsers over two shards
 * merges to exactly the single-process run.
 */
#include <stdio.h>
#include <string.h>

#include "lib/world_fixture.h"
#include "mtc/error.h"
#include "test.h"

static void build(wfx *f)
{
    const char *w[] = {"wa", "wb", "wc"};
    for (int i = 0; i < 3; i++) {
        void *c = wfx_cfg("cosigner", w[i]);
        wfx_exp("cosigner", c, "latency", 1.0);
        wfx_add(f, "cosigner", c);
    }
    const char *cas[] = {"le", "other"};
    for (int k = 0; k < 2; k++) {
        void *c = wfx_cfg("ca", cas[k]);
        wfx_num("ca", c, "rate", k ? 2 : 10);
        wfx_num("ca", c, "lifetime", 2 * 86400);
        wfx_num("ca", c, "landmark_interval", 3600);
        wfx_num("ca", c, "checkpoint_interval", 300);
        for (int i = 0; i < 3; i++)
            wfx_item("ca", c, "cosigners", w[i]);
        wfx_num("ca", c, "quorum", 2);
        wfx_add(f, "ca", c);
    }
    void *us = wfx_cfg("update_service", "vendor");
    wfx_add(f, "update_service", us);
    void *s = wfx_cfg("sites", "web");
    wfx_num("sites", s, "count", 30);
    wfx_num("sites", s, "issue_spread", 3600);
    wfx_add(f, "sites", s);
    void *b = wfx_cfg("browsers", "chrome");
    wfx_num("browsers", b, "count", 150 * test_scale());
    wfx_add(f, "browsers", b);
    b = wfx_cfg("browsers", "frozen");
    wfx_num("browsers", b, "count", 50 * test_scale());
    wfx_num("browsers", b, "never_updates", 1);
    wfx_add(f, "browsers", b);
}

static int64_t ctr(wfx *f, const char *name, size_t cohort)
{
    sim_metric *m = sim_metrics_find(f->m, name);
    return m ? sim_counter_value(m, cohort) : -1;
}

TEST(pki_and_web_end_to_end)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 61, 0, 2 * 86400, 0, 3600, 0, 1));
    build(&f);
    ASSERT_OK(wfx_run(&f));
    int64_t full0 = ctr(&f, "handshake_full", 0), full1 = ctr(&f, "handshake_full", 1);
    int64_t sl0 = ctr(&f, "handshake_signatureless", 0);
    int64_t sl1 = ctr(&f, "handshake_signatureless", 1);
    fprintf(stderr, "full %lld/%lld, signatureless %lld/%lld, updates %lld B\n",
            (long long)full0, (long long)full1, (long long)sl0, (long long)sl1,
            (long long)ctr(&f, "update_bytes", SIM_ALL_COHORTS));
    ASSERT_TRUE(full0 > 500 && full1 > 50);
    ASSERT_TRUE(sl0 > full0 / 4);       /* updating clients use landmarks */
    ASSERT_EQ(sl1, 0);                  /* frozen clients never can */
    ASSERT_EQ(ctr(&f, "handshake_retry", SIM_ALL_COHORTS), 0);
    sim_metric *v = sim_metrics_find(f.m, "verify_outcome");
    ASSERT_TRUE(sim_counter_value(v, 0) > 0); /* "ok" */
    ASSERT_EQ(sim_counter_value(v, SIM_ALL_COHORTS), sim_counter_value(v, 0));
    ASSERT_TRUE(ctr(&f, "update_bytes", 0) > 0);
    ASSERT_EQ(ctr(&f, "update_bytes", 1), 0);
    /* the PKI side ran for real underneath */
    ASSERT_TRUE(ctr(&f, "landmarks_allocated", 0) >= 47);
    ASSERT_TRUE(sim_hist_count(sim_metrics_find(f.m, "standalone_proof_bytes"), 0) > 30);
    wfx_free(&f);
}

TEST(two_shards_merge_to_one)
{
    wfx one, s0, s1;
    double T = 86400 * (test_scale() < 1 ? 0.1 : 0.25);
    ASSERT_OK(wfx_init(&one, 62, 0, T, 0, 3600, 0, 1));
    build(&one);
    ASSERT_OK(wfx_run(&one));
    ASSERT_OK(wfx_init(&s0, 62, 0, T, 0, 3600, 0, 2));
    build(&s0);
    ASSERT_OK(wfx_run(&s0));
    ASSERT_OK(wfx_init(&s1, 62, 0, T, 0, 3600, 1, 2));
    build(&s1);
    ASSERT_OK(wfx_run(&s1));
    ASSERT_OK(sim_metrics_merge(s0.m, s1.m));
    const char *names[] = {"handshake_full", "handshake_signatureless", "update_bytes",
                           "log_entries", "signatures", "cosign_quorum_failures"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        ASSERT_EQ(ctr(&s0, names[i], SIM_ALL_COHORTS), ctr(&one, names[i], SIM_ALL_COHORTS));
    sim_metric *a = sim_metrics_find(s0.m, "auth_bytes");
    sim_metric *b = sim_metrics_find(one.m, "auth_bytes");
    ASSERT_EQ_U64(sim_hist_count(a, SIM_ALL_COHORTS), sim_hist_count(b, SIM_ALL_COHORTS));
    ASSERT_TRUE(sim_hist_sum(a, SIM_ALL_COHORTS) == sim_hist_sum(b, SIM_ALL_COHORTS));
    wfx_free(&one);
    wfx_free(&s0);
    wfx_free(&s1);
}

static const test_case cases[] = {
    {"pki_and_web_end_to_end", pki_and_web_end_to_end},
    {"two_shards_merge_to_one", two_shards_merge_to_one},
};

TEST_MAIN(cases)
