/*
 * test_pki_update.c - the update service and the world as a whole:
 * verification before publication (a corrupted cosignature is caught),
 * outages, update sizes from real encodings, determinism (same seed, same
 * metrics), identical PKI replay on every shard (metrics merge), and the
 * registry's errors that name the offending entity and parameter.
 */
#include <stdio.h>
#include <string.h>

#include "../sim/pki/pki_internal.h"
#include "lib/metrics_eq.h"
#include "lib/world_fixture.h"
#include "mtc/error.h"
#include "sim/status.h"
#include "test.h"

static void world(wfx *f, int include_proofs, const char *alg)
{
    for (int i = 0; i < 2; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "w%d", i);
        void *c = wfx_cfg("cosigner", nm);
        wfx_str("cosigner", c, "algorithm", alg);
        wfx_exp("cosigner", c, "latency", 1.0);
        wfx_add(f, "cosigner", c);
    }
    const char *names[] = {"a", "b"};
    for (int k = 0; k < 2; k++) {
        void *ca = wfx_cfg("ca", names[k]);
        wfx_str("ca", ca, "algorithm", alg);
        wfx_num("ca", ca, "rate", 5 + 3 * k);
        wfx_num("ca", ca, "checkpoint_interval", 30);
        wfx_num("ca", ca, "landmark_interval", 600);
        wfx_num("ca", ca, "lifetime", 3 * 3600);
        wfx_num("ca", ca, "prune_interval", 900);
        wfx_item("ca", ca, "cosigners", "w0");
        wfx_item("ca", ca, "cosigners", "w1");
        wfx_num("ca", ca, "quorum", 1);
        wfx_add(f, "ca", ca);
    }
    void *us = wfx_cfg("update_service", "vendor");
    wfx_num("update_service", us, "fetch_interval", 300);
    wfx_exp("update_service", us, "publication_delay", 120);
    wfx_num("update_service", us, "include_proofs", include_proofs);
    wfx_add(f, "update_service", us);
}

static void publications_and_update_sizes(test_ctx *tc_, wfx *f, wfx *g)
{
    uint32_t p = sim_pki_pub_latest(f->w, 0);
    ASSERT_TRUE(p > 20);
    ASSERT_EQ(sim_pki_pub_latest(g->w, 0), p);
    size_t nsub = 0;
    for (size_t ca = 0; ca < 2; ca++) {
        const sim_ca_view *v = sim_pki_pub_view(f->w, 0, p, ca);
        nsub += v->nsubtrees;
        /* 3 h lifetime, 10 min landmarks: max_active 19, <= 38 subtrees */
        ASSERT_TRUE(v->nsubtrees > 20 && v->nsubtrees <= 38);
        ASSERT_EQ(v->state_bytes, 32 * v->nsubtrees + 16 * v->nrevoked + 16 * v->nlogs);
        ASSERT_TRUE(v->revoked[0].first == 0 && v->revoked[0].last > 0); /* minSerial */
    }
    /* A full snapshot carries every subtree (52 bytes each) plus headers;
     * a one-step delta far less; proofs make updates bigger. */
    size_t snap = sim_pki_update_bytes(f->w, 0, 0, p);
    size_t delta = sim_pki_update_bytes(f->w, 0, p - 1, p);
    ASSERT_TRUE(snap >= 52 * nsub && snap < 52 * nsub + 400);
    fprintf(stderr, "snapshot %zu B, last delta %zu B, %zu subtrees\n", snap, delta, nsub);
    ASSERT_TRUE(delta > 0 && delta < snap / 4);
    ASSERT_EQ(sim_pki_update_bytes(f->w, 0, p - 1, p), delta); /* memoized */
    ASSERT_EQ(sim_pki_update_bytes(f->w, 0, p, p), 0);
    ASSERT_TRUE(sim_pki_update_bytes(g->w, 0, 0, p) > snap + 1000);
    ASSERT_TRUE(sim_pki_update_bytes(g->w, 0, p - 1, p) > delta);
    sim_metric *h = sim_metrics_find(f->m, "update_publication_bytes");
    ASSERT_EQ(sim_hist_count(h, 0), p);
    /* Publication times are increasing. A landmark is allocated ~1 s after
     * a 600 s boundary, the service fetches on the 300 s grid, so it waits
     * ~299 s, then the publication delay (exponential, mean 120 s). */
    for (uint32_t k = 1; k <= p; k++)
        ASSERT_TRUE(sim_pki_pub_time(f->w, 0, k) >= sim_pki_pub_time(f->w, 0, k - 1));
    double lmd = sim_hist_mean(sim_metrics_find(f->m, "landmark_publication_delay"), 0);
    ASSERT_TRUE(lmd > 299 + 60 && lmd < 299 + 240);
}

/* The update's parts are its encoding's fields: they add up to its
 * length; a snapshot's subtree hashes are 52 bytes per subtree (landmark,
 * start, end, hash); without proofs there are no checkpoints, signatures
 * or proofs, with them each reference checkpoint is 54 bytes (log, size,
 * timestamp, root, the signatures' length) besides its signatures (an
 * Ed25519 cosignature: its ID and the 64-byte signature with their
 * lengths), and only the proofs differ between the two proof forms. */
static void update_parts_are_the_encoding(test_ctx *tc_, wfx *f, wfx *g)
{
    uint32_t p = sim_pki_pub_latest(f->w, 0);
    size_t nsub = 0;
    for (size_t ca = 0; ca < 2; ca++)
        nsub += sim_pki_pub_view(f->w, 0, p, ca)->nsubtrees;
    for (int k = 0; k < 2; k++) {
        wfx *x = k ? g : f;
        for (uint32_t a = 0; a < p; a += 3) {
            sim_update_parts pp;
            size_t n = sim_pki_update_parts(x->w, 0, a, p, &pp);
            ASSERT_EQ(n, sim_pki_update_bytes(x->w, 0, a, p));
            ASSERT_EQ((size_t)pp.framing + pp.subtree_hashes + pp.revocations +
                          pp.ref_checkpoints + pp.cosignatures + pp.proofs,
                      n);
            ASSERT_EQ(pp.subtree_hashes % 52, 0);
            ASSERT_EQ(pp.revocations % 16, 0);
            if (!k) {
                ASSERT_EQ(pp.ref_checkpoints + pp.cosignatures + pp.proofs, 0);
            } else {
                ASSERT_TRUE(pp.ref_checkpoints > 0 && pp.ref_checkpoints % 54 == 0);
                ASSERT_TRUE(pp.cosignatures > 0 && pp.proofs > 0);
            }
        }
        sim_update_parts snap;
        sim_pki_update_parts(x->w, 0, 0, p, &snap);
        ASSERT_EQ(snap.subtree_hashes, 52 * nsub);
    }
    sim_update_parts none;
    ASSERT_EQ(sim_pki_update_parts(f->w, 0, p, p, &none), 0);
    ASSERT_EQ(none.framing + none.subtree_hashes + none.proofs, 0);
}

/* Both read the same two 8-hour worlds (updates without and with proofs),
 * made once: neither changes what the other reads. */
TEST(publications_update_sizes_and_parts)
{
    wfx f, g;
    ASSERT_OK(wfx_init(&f, 31, 0, 8 * 3600, 0, 600, 0, 1));
    world(&f, 0, "ed25519");
    ASSERT_OK(wfx_run(&f));
    ASSERT_OK(wfx_init(&g, 31, 0, 8 * 3600, 0, 600, 0, 1));
    world(&g, 1, "ed25519");
    ASSERT_OK(wfx_run(&g));
    publications_and_update_sizes(tc_, &f, &g);
    update_parts_are_the_encoding(tc_, &f, &g);
    wfx_free(&f);
    wfx_free(&g);
}

static void corrupt(sim_engine *sim, void *arg)
{
    (void)sim;
    pki_log *l = pki_ca_current(&pki_state_of(arg)->ca[0]);
    /* signatures are made when first read: make it, then break it */
    if (l->nref_sigs && pki_sig_ready(&l->ref_sigs[0]) == MTC_OK)
        l->ref_sigs[0].bytes[3] ^= 0x40;
}

TEST(update_service_rejects_bad_cosignature)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 32, 0, 3 * 3600, 0, 600, 0, 1));
    world(&f, 0, "ed25519");
    ASSERT_OK(sim_world_start(f.w, f.err, sizeof f.err));
    /* Corrupt the reference checkpoint's CA signature right before the
     * fetch at 3900 s, which sees the landmark allocated at ~3601 s. */
    ASSERT_OK(sim_call_at(f.eng, 3899 * SIM_SEC, corrupt, f.w));
    sim_engine_set_stop_time(f.eng, 3 * 3600 * SIM_SEC);
    ASSERT_TRUE(sim_engine_run(f.eng) >= 0);
    sim_world_finish(f.w);
    ASSERT_EQ(sim_counter_value(sim_metrics_find(f.m, "update_verify_failures"), 0), 1);
    ASSERT_EQ(sim_counter_value(sim_metrics_find(f.m, "update_verify_failures"), 1), 0);
    /* and the landmark came through at the next fetch */
    const sim_ca_view *v = sim_pki_pub_view(f.w, 0, sim_pki_pub_latest(f.w, 0), 0);
    ASSERT_TRUE(v->log[0].last_landmark >= 17);
    wfx_free(&f);
}

TEST(update_outage_stops_publications)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 33, 0, 4 * 3600, 0, 600, 0, 1));
    world(&f, 0, "ed25519");
    ASSERT_OK(sim_world_start(f.w, f.err, sizeof f.err));
    sim_engine_set_stop_time(f.eng, 3600 * SIM_SEC);
    sim_engine_run(f.eng);
    double d = 3600;
    ASSERT_OK(sim_world_act(f.w, "update_outage", "vendor", &d, 1, f.err, sizeof f.err));
    ASSERT_EQ(sim_pki_pub_available(f.w, 0), 0);
    uint32_t p0 = sim_pki_pub_latest(f.w, 0);
    sim_engine_set_stop_time(f.eng, 7199 * SIM_SEC);
    sim_engine_run(f.eng);
    ASSERT_EQ(sim_pki_pub_latest(f.w, 0), p0);
    sim_engine_set_stop_time(f.eng, 4 * 3600 * SIM_SEC);
    sim_engine_run(f.eng);
    ASSERT_EQ(sim_pki_pub_available(f.w, 0), 1);
    ASSERT_TRUE(sim_pki_pub_latest(f.w, 0) > p0 + 3);
    sim_world_finish(f.w);
    wfx_free(&f);
}

/* 10^5 revocations in one fetch interval reach the next version whole, in
 * order, and its relying party holds each once. The service used to
 * append them to its list, and hand them to the relying party, one entry
 * at a time, each growing an array by one: under the sanitizers (whose
 * realloc always moves) that copied 10^5 growing lists, minutes for this
 * test; a few seconds now. */
TEST(many_revocations_reach_the_view)
{
    enum { NREV = 100000 };
    wfx f;
    ASSERT_EQ(wfx_init(&f, 9, 0, 2 * 3600, 0, 600, 0, 1), 0);
    world(&f, 0, "ed25519");
    ASSERT_OK(sim_world_start(f.w, f.err, sizeof f.err));
    sim_engine_set_stop_time(f.eng, 1800 * SIM_SEC);
    sim_engine_run(f.eng);
    uint32_t p0 = sim_pki_pub_latest(f.w, 0);
    const sim_ca_view *v0 = sim_pki_pub_view(f.w, 0, p0, 0);
    ASSERT_EQ(v0->nrevocations, 0);
    for (int i = 0; i < NREV; i++) {
        double r[2] = {i, i};
        ASSERT_OK(sim_world_act(f.w, "revoke_range", "a", r, 2, f.err, sizeof f.err));
    }
    sim_engine_set_stop_time(f.eng, 2 * 3600 * SIM_SEC);
    sim_engine_run(f.eng);
    uint32_t p = sim_pki_pub_latest(f.w, 0);
    ASSERT_TRUE(p > p0);
    const sim_ca_view *v = sim_pki_pub_view(f.w, 0, p, 0);
    ASSERT_EQ(v->nrevocations, NREV);
    ASSERT_EQ(v->nrevoked, (size_t)NREV + 1);   /* minSerial's range first */
    ASSERT_TRUE(v->revoked[0].first == 0 && v->revoked[0].last > 0);
    uint64_t s0 = v->revoked[1].first;
    for (size_t i = 0; i < NREV; i++)
        ASSERT_TRUE(v->revoked[1 + i].first == s0 + i && v->revoked[1 + i].last == s0 + i);
    ASSERT_EQ(mtc_rp_ca_revoked_count(v->rp), v->nrevoked);
    ASSERT_EQ(v->state_bytes, 32 * v->nsubtrees + 16 * v->nrevoked + 16 * v->nlogs);
    /* the other CA's view is untouched */
    ASSERT_EQ(sim_pki_pub_view(f.w, 0, p, 1)->nrevocations, 0);
    sim_world_finish(f.w);
    wfx_free(&f);
}

/* Runs the reference scenario; sums every metric number into a digest. */
/* eager: every signature made when due (else only when read). */
static int digest_run_eager(uint64_t seed, uint32_t shard, uint32_t nshards,
                            wfx *out, const char *alg, int eager)
{
    if (wfx_init_history(out, seed, 0, 2 * 3600, 600, 600, shard, nshards, "empty",
                         eager))
        return -1;
    world(out, 1, alg);
    double d = 900;
    if (sim_world_start(out->w, out->err, sizeof out->err))
        return -1;
    sim_engine_set_stop_time(out->eng, 1800 * SIM_SEC);
    sim_engine_run(out->eng);
    sim_world_act(out->w, "cosigner_outage", "w0", &d, 1, out->err, sizeof out->err);
    double r[2] = {10, 20};
    sim_world_act(out->w, "revoke_range", "a", r, 2, out->err, sizeof out->err);
    sim_engine_set_stop_time(out->eng, 2 * 3600 * SIM_SEC);
    sim_engine_run(out->eng);
    sim_world_finish(out->w);
    return 0;
}

static int digest_run(uint64_t seed, uint32_t shard, uint32_t nshards,
                      wfx *out, const char *alg)
{
    return digest_run_eager(seed, shard, nshards, out, alg, 0);
}

/* 1 when every metric except sign_cpu_us (CPU time, measured) has
 * identical values. */
static int same_metrics(const sim_metrics *a, const sim_metrics *b)
{
    return metrics_equal(a, b, "sign_cpu_us");
}

TEST(same_seed_same_metrics)
{
    wfx a, b, c;
    /* a makes every signature when due, b only those something reads:
     * the same results */
    ASSERT_OK(digest_run_eager(41, 0, 1, &a, "ml-dsa-44", 1));
    ASSERT_OK(digest_run(41, 0, 1, &b, "ml-dsa-44"));
    ASSERT_OK(digest_run(42, 0, 1, &c, "ml-dsa-44"));
    ASSERT_TRUE(same_metrics(a.m, b.m));
    ASSERT_FALSE(same_metrics(a.m, c.m));
    /* ML-DSA-44 signatures were really made and timed (every one in a;
     * fewer in b) */
    ASSERT_TRUE(sim_counter_value(sim_metrics_find(b.m, "sign_cpu_us"), 0) <
                sim_counter_value(sim_metrics_find(a.m, "sign_cpu_us"), 0));
    sim_metric *cpu = sim_metrics_find(a.m, "sign_cpu_us");
    sim_metric *sig = sim_metrics_find(a.m, "signatures");
    ASSERT_TRUE(sim_counter_value(sig, 0) > 100);
    ASSERT_TRUE(sim_counter_value(cpu, 0) > sim_counter_value(sig, 0) * 10);
    /* and ML-DSA-44 standalone proofs carry 2 x 2420-byte signatures */
    ASSERT_TRUE(sim_hist_min(sim_metrics_find(a.m, "standalone_proof_bytes"), 0) > 2 * 2420);
    wfx_free(&a);
    wfx_free(&b);
    wfx_free(&c);
}

TEST(every_shard_replays_the_same_pki)
{
    wfx s0, s1, one;
    ASSERT_OK(digest_run(43, 0, 2, &s0, "ed25519"));
    ASSERT_OK(digest_run(43, 1, 2, &s1, "ed25519"));
    ASSERT_OK(digest_run(43, 0, 1, &one, "ed25519"));
    /* Replicated metrics agree, so the merge keeps one copy; CPU time is
     * recorded by shard 0 only, so the merged total is shard 0's. */
    ASSERT_EQ(sim_counter_value(sim_metrics_find(s1.m, "sign_cpu_us"), SIM_ALL_COHORTS), 0);
    ASSERT_OK(sim_metrics_merge(s0.m, s1.m));
    ASSERT_TRUE(same_metrics(s0.m, one.m));
    wfx_free(&s0);
    wfx_free(&s1);
    wfx_free(&one);
}

TEST(configuration_errors_name_the_problem)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 1, 0, 3600, 0, 600, 0, 1));
    size_t n;
    n = sim_world_kind_count();
    ASSERT_TRUE(n >= 4);
    ASSERT_STR_EQ(sim_world_kind(0)->kind, "world");
    ASSERT_TRUE(sim_world_kind(n) == NULL);
    ASSERT_TRUE(sim_world_schema("ca") == &sim_ca_schema);
    ASSERT_TRUE(sim_world_schema("nope") == NULL);
    void *c = wfx_cfg("ca", "x");
    ASSERT_EQ(sim_world_add(f.w, "nope", c, f.err, sizeof f.err), SIM_ERR_CONFIG);
    sim_param_config_free(&sim_ca_schema, c);
    ASSERT_TRUE(strstr(f.err, "nope") != NULL);
    c = wfx_cfg("ca", "x");
    wfx_item("ca", c, "cosigners", "ghost");
    ASSERT_EQ(wfx_add(&f, "ca", c), 0);
    c = wfx_cfg("cosigner", "x");
    ASSERT_EQ(sim_world_add(f.w, "cosigner", c, f.err, sizeof f.err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(f.err, "name") != NULL);
    c = wfx_cfg("ca", "y");
    wfx_num("ca", c, "quorum", 2);
    ASSERT_EQ(sim_world_add(f.w, "ca", c, f.err, sizeof f.err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(f.err, "quorum") != NULL);
    ASSERT_EQ(sim_world_act(f.w, "log_failure", "x", NULL, 0, f.err, sizeof f.err),
              SIM_ERR_STATE);
    ASSERT_EQ(sim_world_start(f.w, f.err, sizeof f.err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(f.err, "cosigners") && strstr(f.err, "ghost"));
    wfx_free(&f);

    ASSERT_OK(wfx_init(&f, 1, 0, 3600, 0, 600, 0, 1));
    c = wfx_cfg("ca", "x");
    wfx_str("ca", c, "algorithm", "ed25519");
    wfx_add(&f, "ca", c);
    ASSERT_OK(sim_world_start(f.w, f.err, sizeof f.err));
    ASSERT_EQ(sim_world_act(f.w, "frobnicate", "x", NULL, 0, f.err, sizeof f.err), SIM_ERR_CONFIG);
    ASSERT_EQ(sim_world_act(f.w, "cosigner_down", "x", NULL, 0, f.err, sizeof f.err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(f.err, "is a ca") != NULL);
    ASSERT_EQ(sim_world_act(f.w, "split_view", "x", NULL, 0, f.err, sizeof f.err), SIM_ERR_CONFIG);
    ASSERT_EQ(sim_world_set(f.w, "x", "lifetime", 100, f.err, sizeof f.err), SIM_ERR_CONFIG);
    ASSERT_TRUE(strstr(f.err, "live") != NULL);
    ASSERT_EQ(sim_world_set(f.w, "x", "landmark_interval", -5, f.err, sizeof f.err), SIM_ERR_CONFIG);
    ASSERT_OK(sim_world_set(f.w, "x", "checkpoint_interval", 5, f.err, sizeof f.err));
    ASSERT_OK(sim_world_set(f.w, "x", "landmark_interval", 120, f.err, sizeof f.err));
    wfx_free(&f);
}

/* What is live and what is plausible is said once, by the descriptor:
 * sim_world_set accepts a PKI parameter exactly when its descriptor has
 * SIM_PARAM_LIVE (the module applies every live one), and every plausible
 * range lies inside the parameter's legal range. */
TEST(live_flags_and_plausible_ranges_come_from_descriptors)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 7, 0, 4 * 3600, 0, 600, 0, 1));
    void *c = wfx_cfg("cosigner", "w0");
    wfx_add(&f, "cosigner", c);
    c = wfx_cfg("ca", "x");
    wfx_str("ca", c, "algorithm", "ed25519");
    wfx_item("ca", c, "cosigners", "w0");
    wfx_add(&f, "ca", c);
    c = wfx_cfg("update_service", "u");
    wfx_add(&f, "update_service", c);
    ASSERT_OK(sim_world_start(f.w, f.err, sizeof f.err));
    static const struct { const char *kind, *entity; } ents[] = {
        {"ca", "x"}, {"cosigner", "w0"}, {"update_service", "u"}};
    size_t nlive = 0;
    for (size_t e = 0; e < sizeof ents / sizeof ents[0]; e++) {
        const sim_param_schema *s = sim_world_schema(ents[e].kind);
        ASSERT_TRUE(s != NULL);
        const void *cfg = sim_world_entity_config(f.w, ents[e].kind, 0);
        for (size_t i = 0; i < s->count; i++) {
            const sim_param_desc *d = &s->params[i];
            if (d->plaus_hi > 0) {
                ASSERT_TRUE(d->plaus_lo > 0 && d->plaus_lo < d->plaus_hi);
                ASSERT_TRUE(d->plaus_what && d->plaus_what[0]);
                if (d->type != SIM_PARAM_DIST)
                    ASSERT_TRUE(d->plaus_lo >= d->min && d->plaus_hi <= d->max);
            }
            if (d->type != SIM_PARAM_INT && d->type != SIM_PARAM_REAL &&
                d->type != SIM_PARAM_DURATION && d->type != SIM_PARAM_BOOL)
                continue;
            /* the current value, set again: legal whatever the range */
            const char *fp = (const char *)cfg + d->offset;
            double v = d->type == SIM_PARAM_DURATION ? sim_time_to_sec(*(const sim_time *)fp)
                     : d->type == SIM_PARAM_REAL ? *(const double *)fp
                     : d->type == SIM_PARAM_INT ? (double)*(const int64_t *)fp
                     : (double)*(const int *)fp;
            int rc = sim_world_set(f.w, ents[e].entity, d->name, v, f.err, sizeof f.err);
            if (d->flags & SIM_PARAM_LIVE) {
                if (rc != SIM_OK)
                    fprintf(stderr, "%s.%s: %s\n", ents[e].kind, d->name, f.err);
                ASSERT_EQ(rc, SIM_OK);
                nlive++;
            } else {
                ASSERT_EQ(rc, SIM_ERR_CONFIG);
                ASSERT_TRUE(strstr(f.err, "not a live parameter") != NULL);
            }
        }
    }
    ASSERT_EQ(nlive, 4);  /* ca: checkpoint_interval, landmark_interval, rate; update_service: fetch_interval */
    wfx_free(&f);
}

static const test_case cases[] = {
    {"many_revocations_reach_the_view", many_revocations_reach_the_view},
    {"live_flags_and_plausible_ranges_come_from_descriptors",
     live_flags_and_plausible_ranges_come_from_descriptors},
    {"publications_update_sizes_and_parts", publications_update_sizes_and_parts},
    {"update_service_rejects_bad_cosignature", update_service_rejects_bad_cosignature},
    {"update_outage_stops_publications", update_outage_stops_publications},
    {"same_seed_same_metrics", same_seed_same_metrics},
    {"every_shard_replays_the_same_pki", every_shard_replays_the_same_pki},
    {"configuration_errors_name_the_problem", configuration_errors_name_the_problem},
};

TEST_MAIN(cases)
