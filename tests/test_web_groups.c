/*
 * test_web_groups.c - timestamped multi-CA landmark groups in a small
 * world whose answers are known in closed form: the real PKI (three CAs,
 * an update service with group_cas of all three) and the web side built
 * on it with check_invariants (every handshake's negotiation redone from
 * real bytes, group versions decoded and matched by mtc/lmgroup.h).
 *
 * Closed forms (CA IDs 32473.1..3, one log each, landmark numbers < 128,
 * group ID 44363.48.1, versions < 128):
 *   - ClientHello trust_anchors, single-log groups: 2 (type) + 2 (length)
 *     + 2 (list length) + 3 x (1 + 7) bytes (ID 32473.c.2.1.L: 4 + 3 arcs
 *     of one byte) = 30; with the group: 6 + 1 + 6 (44363.48.1.k) = 13;
 *     a client holding no version lists the three CA IDs: 6 + 3 x 5 = 21.
 *   - One CA unreachable from the start: its landmarks never reach the
 *     update service, so no group version is ever held: no handshake is
 *     signatureless, for any CA, and every ClientHello carries 21 bytes.
 *     With single-log groups only that CA's handshakes lose: its
 *     signatureless count is 0, the others' are not.
 *   - Group versions: version k is made at k * group_interval and its
 *     ranges are the CAs' own landmark sequences then: its last landmark
 *     is ceil-of-allocations, checked against each CA's landmark count.
 */
#include <stdio.h>
#include <string.h>

#include "lib/chains_fixture.h"
#include "lib/world_fixture.h"
#include "mtc/error.h"
#include "mtc/lmgroup.h"
#include "sim/web.h"
#include "test.h"

typedef struct gw {
    wfx f;
    sim_metrics *m;             /* the web side's own registry */
    web_pki pki;
    web *wb;
    void *site_cfg, *co_cfg;
} gw;

static const char *CAS[3] = {"a", "b", "c"};

/* grouped: group_cas = all three; unreachable: CA "c" from time 0 on. */
static int gw_run(gw *g, int grouped, int unreachable, double hours)
{
    memset(g, 0, sizeof *g);
    wfx *f = &g->f;
    if (wfx_init(f, 71, 0, hours * 3600, 0, 3600, 0, 1))
        return -1;
    for (int k = 0; k < 3; k++) {
        void *c = wfx_cfg("ca", CAS[k]);
        char id[32];
        snprintf(id, sizeof id, "32473.%d", k + 1);
        wfx_str("ca", c, "id", id);
        /* Ed25519 checkpoints: the closed forms are of IDs and versions,
         * not of signatures, and ML-DSA signing was most of this test's
         * time (60-s checkpoints of three CAs) */
        wfx_str("ca", c, "algorithm", "ed25519");
        wfx_num("ca", c, "rate", 1);
        wfx_num("ca", c, "lifetime", 86400);
        wfx_num("ca", c, "landmark_interval", 3600);
        wfx_num("ca", c, "checkpoint_interval", 60);
        wfx_add(f, "ca", c);
    }
    void *us = wfx_cfg("update_service", "vendor");
    wfx_num("update_service", us, "fetch_interval", 300);
    wfx_const("update_service", us, "publication_delay", 60);
    if (grouped)
        for (int k = 0; k < 3; k++)
            wfx_item("update_service", us, "group_cas", CAS[k]);
    wfx_add(f, "update_service", us);
    if (sim_world_start(f->w, f->err, sizeof f->err))
        return -1;
    if (unreachable) {
        double d = hours * 3600 + 1;
        if (sim_world_act(f->w, "ca_unreachable", "c", &d, 1, f->err, sizeof f->err))
            return -1;
    }
    /* the web side on this world, with its own metrics (warm-up: 4 h, by
     * which every site holds a landmark-relative certificate and every
     * updating client a version) */
    sim_metrics_config mc = {4 * 3600 * SIM_SEC, 0, SIM_HOUR, 0};
    if (sim_metrics_create(&g->m, &mc, sim_engine_clock(f->eng)))
        return -1;
    web_pki_from_world(&g->pki, f->w);
    g->site_cfg = wfx_cfg("sites", "web");
    wfx_num("sites", g->site_cfg, "count", 30);
    wfx_num("sites", g->site_cfg, "issue_spread", 600);
    g->co_cfg = wfx_cfg("browsers", "chrome");
    wfx_num("browsers", g->co_cfg, "count", 100 * test_scale() + 20);
    wfx_num("browsers", g->co_cfg, "sessions_per_day", 0);
    wfx_num("browsers", g->co_cfg, "visits_per_hour", 4);
    wfx_const("browsers", g->co_cfg, "update_interval", 600);
    web_env env;
    memset(&env, 0, sizeof env);
    env.engine = f->eng;
    env.metrics = g->m;
    env.rng = f->rng;
    env.shard = 0;
    env.nshards = 1;
    env.pki = &g->pki;
    web_tls_config_defaults(&env.tls);
    env.tls.epoch = sim_world_get_config(f->w)->epoch;
    env.check_invariants = 1;
    env.chains = fixture_chains();
    const web_sites_config *s = g->site_cfg;
    const web_browsers_config *b = g->co_cfg;
    if (web_create(&g->wb, &env, &s, 1, &b, 1, f->err, sizeof f->err) ||
        web_start(g->wb, f->err, sizeof f->err))
        return -1;
    sim_engine_set_stop_time(f->eng, (sim_time)(hours * 3600) * SIM_SEC);
    sim_engine_run(f->eng);
    sim_metrics_finish(g->m, (sim_time)(hours * 3600) * SIM_SEC);
    return 0;
}

static void gw_free(gw *g)
{
    web_destroy(g->wb);
    sim_metrics_destroy(g->m);
    sim_param_config_free(&sim_sites_schema, g->site_cfg);
    sim_param_config_free(&sim_browsers_schema, g->co_cfg);
    wfx_free(&g->f);
}

static int64_t ctr(gw *g, const char *name, size_t cell)
{
    return sim_counter_value(sim_metrics_find(g->m, name), cell);
}

static void ch_bytes(gw *g, uint64_t *count, double *sum)
{
    sim_metric *h = sim_metrics_find(g->m, "clienthello_trust_anchors_bytes");
    *count = sim_hist_count(h, SIM_ALL_COHORTS);
    *sum = sim_hist_sum(h, SIM_ALL_COHORTS);
}

TEST(clienthello_bytes_single_log_vs_group)
{
    gw s, gr;
    uint64_t n;
    double sum;
    ASSERT_OK(gw_run(&s, 0, 0, 10));
    ch_bytes(&s, &n, &sum);
    ASSERT_TRUE(n > 100);
    ASSERT_TRUE(sum == 30.0 * (double)n);
    web_stats st;
    web_get_stats(s.wb, &st);
    ASSERT_EQ_U64(st.invariant_violations, 0);
    int64_t sl_single = ctr(&s, "handshake_signatureless", SIM_ALL_COHORTS);
    ASSERT_OK(gw_run(&gr, 1, 0, 10));
    ch_bytes(&gr, &n, &sum);
    ASSERT_TRUE(n > 100);
    ASSERT_TRUE(sum == 13.0 * (double)n);
    web_get_stats(gr.wb, &st);
    ASSERT_EQ_U64(st.invariant_violations, 0);
    ASSERT_EQ_U64(st.lr_unadvertised, 0);
    ASSERT_EQ_U64(st.retries, 0);
    int64_t sl_group = ctr(&gr, "handshake_signatureless", SIM_ALL_COHORTS);
    int64_t full = ctr(&gr, "handshake_full", SIM_ALL_COHORTS);
    fprintf(stderr, "signatureless: single-log %lld, group %lld of %lld\n",
            (long long)sl_single, (long long)sl_group, (long long)full);
    /* all CAs reachable: the group lags the single-log state by at most a
     * version, so it still gets most handshakes signatureless */
    ASSERT_TRUE(sl_group > full / 2);
    ASSERT_TRUE(sl_group <= sl_single + full / 10);
    gw_free(&s);
    gw_free(&gr);
}

TEST(unreachable_ca_stalls_the_group_for_every_member)
{
    gw s, gr;
    uint64_t n;
    double sum;
    ASSERT_OK(gw_run(&gr, 1, 1, 10));
    ch_bytes(&gr, &n, &sum);
    ASSERT_TRUE(n > 100);
    ASSERT_TRUE(sum == 21.0 * (double)n); /* three CA IDs, no version */
    ASSERT_EQ(ctr(&gr, "handshake_signatureless", SIM_ALL_COHORTS), 0);
    web_stats st;
    web_get_stats(gr.wb, &st);
    ASSERT_EQ_U64(st.invariant_violations, 0);
    /* versions were made all the same: the publisher does not wait */
    const sim_lmgroup *lg = sim_pki_us_group(gr.f.w, 0);
    ASSERT_TRUE(lg != NULL && lg->nversions >= 9);
    ASSERT_OK(gw_run(&s, 0, 1, 10));
    ASSERT_EQ(ctr(&s, "handshake_signatureless_by_ca", 2), 0);
    ASSERT_TRUE(ctr(&s, "handshake_signatureless_by_ca", 0) > 0);
    ASSERT_TRUE(ctr(&s, "handshake_signatureless_by_ca", 1) > 0);
    web_get_stats(s.wb, &st);
    ASSERT_EQ_U64(st.invariant_violations, 0);
    gw_free(&s);
    gw_free(&gr);
}

/* Version k is made at k hours and holds each CA's landmarks then: with
 * hourly landmarks from a cold start, the last is the CA's landmark count
 * at that time, and its real encoding decodes to the same ranges. */
TEST(versions_follow_time_and_encode_for_real)
{
    gw g;
    ASSERT_OK(gw_run(&g, 1, 0, 6));
    const sim_lmgroup *lg = sim_pki_us_group(g.f.w, 0);
    ASSERT_TRUE(lg != NULL);
    ASSERT_TRUE(lg->nversions >= 5);
    mtc_lmgroup_member mem[8];
    for (size_t i = 0; i < lg->nversions; i++) {
        const sim_lmgroup_version *v = &lg->v[i];
        ASSERT_EQ_U64((uint64_t)v->time, v->number * 3600 * (uint64_t)SIM_SEC);
        mtc_lmgroup d;
        ASSERT_OK(mtc_lmgroup_decode(v->enc, v->enc_len, &d, mem, 8));
        ASSERT_EQ_U64(d.version, v->number);
        ASSERT_EQ(d.nmembers, v->n);
        ASSERT_EQ(v->n, 3);
        for (size_t j = 0; j < v->n; j++) {
            const sim_lmgroup_entry *e = &lg->e[v->first + j];
            ASSERT_EQ_U64(d.members[j].last_landmark, e->last);
            ASSERT_EQ_U64(d.members[j].first_landmark, e->first);
            /* landmarks are allocated once per hour: by hour k, k or k-1 */
            ASSERT_TRUE(e->last <= v->number && e->last + 1 >= v->number);
            ASSERT_EQ_U64(e->first, 1);
        }
        if (i > 0)
            ASSERT_EQ_U64(v->number, lg->v[i - 1].number + 1);
    }
    gw_free(&g);
}

static const test_case cases[] = {
    {"clienthello_bytes_single_log_vs_group", clienthello_bytes_single_log_vs_group},
    {"unreachable_ca_stalls_the_group_for_every_member",
     unreachable_ca_stalls_the_group_for_every_member},
    {"versions_follow_time_and_encode_for_real", versions_follow_time_and_encode_for_real},
};

TEST_MAIN(cases)
