/*
 * test_steady_start.c - a run starts from the deployed system (world
 * start = "steady", the default) unless it asks for a cold start.
 *
 * The same small world (one CA, 7-day certificates, hourly landmarks, one
 * update service, sites and browsers) is measured over the same half-day
 * window after a steady warm-up and after a cold one. The steady window
 * must show the draft's plateaus: relying-party state of 2 x (lifetime /
 * landmark interval + 1) subtree hashes (exactly, at this rate), log
 * storage of entries from a whole lifetime, and every site holding a
 * landmark-relative certificate that fresh clients accept. The cold start
 * shows none of the plateaus. A warm-up shorter than the history is
 * refused.
 */
#include <stdio.h>
#include <string.h>

#include "lib/world_fixture.h"
#include "mtc/error.h"
#include "test.h"

#define DAY 86400.0
#define RATE 0.5  /* entries/s: a small CA, so the test stays fast */

static void build(wfx *f)
{
    void *m = wfx_cfg("cosigner", "mirror");
    wfx_str("cosigner", m, "role", "mirror");
    wfx_str("cosigner", m, "algorithm", "ed25519");
    wfx_const("cosigner", m, "latency", 2);
    wfx_add(f, "cosigner", m);
    void *c = wfx_cfg("ca", "ca");
    wfx_str("ca", c, "algorithm", "ed25519");
    wfx_num("ca", c, "rate", RATE);
    wfx_num("ca", c, "lifetime", 7 * DAY);
    wfx_num("ca", c, "landmark_interval", 3600);
    wfx_num("ca", c, "checkpoint_interval", 60);
    wfx_item("ca", c, "cosigners", "mirror");
    wfx_num("ca", c, "quorum", 1);
    wfx_add(f, "ca", c);
    void *us = wfx_cfg("update_service", "us");
    wfx_num("update_service", us, "fetch_interval", 600);
    wfx_const("update_service", us, "publication_delay", 600);
    wfx_add(f, "update_service", us);
    void *s = wfx_cfg("sites", "sites");
    wfx_num("sites", s, "count", 60);
    wfx_str("sites", s, "key_alg", "ed25519");
    wfx_add(f, "sites", s);
    void *b = wfx_cfg("browsers", "b");
    wfx_num("browsers", b, "count", 60 * test_scale() < 20 ? 20 : 60 * test_scale());
    wfx_add(f, "browsers", b);
}

static double gauge(wfx *f, const char *name)
{
    return sim_gauge_value(sim_metrics_find(f->m, name), SIM_ALL_COHORTS);
}

static int64_t ctr(wfx *f, const char *name)
{
    return sim_counter_value(sim_metrics_find(f->m, name), SIM_ALL_COHORTS);
}

/* history = lifetime + landmark interval + fetch interval + mean
 * publication delay + ACME Retry-After (600 s by default) */
static const double HISTORY = 7 * DAY + 3600 + 600 + 600 + 600;

TEST(short_warmup_is_refused)
{
    wfx f;
    ASSERT_OK(wfx_init_start(&f, 5, 0, HISTORY + DAY, HISTORY - 1, 3600, 0, 1,
                             "steady"));
    build(&f);
    char why[384];
    ASSERT_EQ(sim_world_steady_history(f.w, why, sizeof why),
              sim_time_from_sec(HISTORY));
    ASSERT_EQ(sim_world_start(f.w, f.err, sizeof f.err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(f.err, "warmup: a steady start needs at least") != NULL);
    ASSERT_TRUE(strstr(f.err, "CA ca: lifetime 7 d + landmark interval 1 h") != NULL);
    wfx_free(&f);
    /* a cold start asks for no history */
    ASSERT_OK(wfx_init_start(&f, 5, 0, DAY, 0, 3600, 0, 1, "empty"));
    build(&f);
    ASSERT_OK(sim_world_start(f.w, f.err, sizeof f.err));
    wfx_free(&f);
}

TEST(steady_window_shows_the_plateaus)
{
    double window = 0.5 * DAY;
    wfx st, cold;
    ASSERT_OK(wfx_init_start(&st, 7, 0, HISTORY + window, HISTORY, 3600, 0, 1,
                             "steady"));
    build(&st);
    ASSERT_OK(wfx_run(&st));
    ASSERT_OK(wfx_init_start(&cold, 7, 0, 0.25 * DAY + window, 0.25 * DAY,
                             3600, 0, 1, "empty"));
    build(&cold);
    /* the cold start's sites need their first requests spread */
    ASSERT_OK(wfx_run(&cold));

    /* Relying-party state: 169 active landmarks of 7-day certificates with
     * hourly landmarks, each adding at most 2 subtree hashes of 32 bytes. */
    double rp = gauge(&st, "rp_state_bytes"), rp_cold = gauge(&cold, "rp_state_bytes");
    double plateau = 2.0 * 169 * 32;
    fprintf(stderr, "rp state: steady %.0f B, cold %.0f B, 2 x 169 hashes %.0f B\n",
            rp, rp_cold, plateau);
    ASSERT_TRUE(rp >= 0.97 * plateau && rp <= plateau + 64);
    ASSERT_TRUE(rp_cold < 0.2 * plateau);

    /* Log storage holds a whole lifetime of entries: 7 days against the
     * cold start's 18 hours. */
    double live = gauge(&st, "log_storage_bytes");
    double live_cold = gauge(&cold, "log_storage_bytes");
    fprintf(stderr, "log storage: steady %.0f B, cold %.0f B\n", live, live_cold);
    ASSERT_TRUE(live_cold < 0.2 * live);

    /* Signatureless in steady state: clients are fresh, every site holds a
     * landmark-relative certificate. */
    int64_t full = ctr(&st, "handshake_full"), sl = ctr(&st, "handshake_signatureless");
    int64_t full_c = ctr(&cold, "handshake_full"), sl_c = ctr(&cold, "handshake_signatureless");
    fprintf(stderr, "signatureless: steady %lld/%lld, cold %lld/%lld\n",
            (long long)sl, (long long)full, (long long)sl_c, (long long)full_c);
    ASSERT_TRUE(full > 100);
    ASSERT_TRUE((double)sl >= 0.98 * (double)full);
    ASSERT_EQ(ctr(&st, "handshake_no_cert"), 0);
    wfx_free(&st);
    wfx_free(&cold);
}

static const test_case cases[] = {
    {"short_warmup_is_refused", short_warmup_is_refused},
    {"steady_window_shows_the_plateaus", steady_window_shows_the_plateaus},
};

TEST_MAIN(cases)
