/*
 * test_chain_cache.c - the cache of built chains (mtc/chain_cache.h):
 *  - a chain from the cache equals a freshly built one, field by field and
 *    byte by byte, for every profile and several options, on the call
 *    that builds it and on the calls that find it;
 *  - options that differ in one field (the name's bytes at equal length,
 *    not_before, lifetime, leaf and CA keys, drop_cross) or only in the
 *    profile never share an entry;
 *  - the cap: past it chains are built and returned but not kept, and
 *    what is kept stays served;
 *  - a failed build is returned as failed and not kept;
 *  - a profile outside the library's table is built every time;
 *  - a miss lends the CA certificates of a kept chain only when they are
 *    the same (profile, not_before, CA key types), and the chain so made
 *    equals one built whole, for every profile;
 *  - worlds that borrow a cache (cold or warm) record exactly the metrics
 *    of a world that builds its own chains.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/metrics_eq.h"
#include "lib/web_run.h"
#include "mtc/chain.h"
#include "mtc/chain_cache.h"
#include "mtc/error.h"
#include "test.h"

#define NB 1767225600 /* 2026-01-01 */

/* 1 when a and b hold the same chain: every field and every certificate
 * byte (the rest of buf is unspecified). */
static int same_chain(const mtc_chain *a, const mtc_chain *b)
{
    if (a->ncerts != b->ncerts || a->ncerts == 0 || a->ncerts > MTC_CHAIN_CERTS_MAX ||
        a->handshake_sig_len != b->handshake_sig_len || a->sct_list_len != b->sct_list_len ||
        a->nverif != b->nverif || a->nverif > MTC_CHAIN_VERIF_MAX)
        return 0;
    for (size_t i = 0; i < a->ncerts; i++)
        if (a->off[i] != b->off[i] || a->len[i] != b->len[i] ||
            memcmp(a->buf + a->off[i], b->buf + b->off[i], a->len[i]) != 0)
            return 0;
    for (size_t i = 0; i < a->nverif; i++)
        if (a->verif[i].role != b->verif[i].role || a->verif[i].alg != b->verif[i].alg ||
            a->verif[i].flags != b->verif[i].flags)
            return 0;
    return 1;
}

static mtc_chain *new_chain(void)
{
    mtc_chain *c = malloc(sizeof *c);
    if (c)
        memset(c, 0xA5, sizeof *c); /* what a hit does not write stays visible */
    return c;
}

static mtc_chain_cache_stats stats(const mtc_chain_cache *c)
{
    mtc_chain_cache_stats s;
    mtc_chain_cache_get_stats(c, &s);
    return s;
}

TEST(cached_equals_built)
{
    size_t np;
    const mtc_chain_profile *p = mtc_chain_profiles(&np);
    mtc_chain_cache *cc = NULL;
    ASSERT_OK(mtc_chain_cache_create(MTC_CHAIN_CACHE_CAP_DEFAULT, &cc));
    mtc_chain *fresh = new_chain(), *got = new_chain();
    ASSERT_TRUE(fresh && got);
    /* the chains built without the cache, in the order asked */
    enum { KINDS_MAX = 64 };
    mtc_chain *want[KINDS_MAX] = {0};
    /* every profile as served, and the web side's two comparison arms */
    const mtc_chain_opts opts[3] = {
        {"s12.example.com", NB, 7 * 86400, MTC_CHAIN_ALG_NONE, MTC_CHAIN_ALG_NONE, 0},
        {"s7.example.org", NB, 7 * 86400, MTC_CHAIN_ALG_ED25519, MTC_CHAIN_ALG_NONE, 0},
        {"s7.example.org", NB, 7 * 86400, MTC_CHAIN_ALG_ED25519, MTC_CHAIN_ALG_MLDSA44, 1},
    };
    size_t kinds = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t at = 0;
        for (size_t i = 0; i < np; i++)
            for (size_t k = 0; k < 3; k++) {
                /* the ML-DSA arm on a few profiles only: it is the slow one */
                if (k == 2 && i % 4 != 0)
                    continue;
                ASSERT_TRUE(at < KINDS_MAX);
                if (pass == 0) {
                    want[at] = new_chain();
                    ASSERT_TRUE(want[at] != NULL);
                    ASSERT_OK(mtc_chain_build(&p[i], &opts[k], want[at]));
                    kinds = at + 1;
                }
                memset(got, 0xA5, sizeof *got);
                ASSERT_OK(mtc_chain_cache_build(cc, &p[i], &opts[k], got));
                if (!same_chain(got, want[at]))
                    TEST_FAIL_("%s, options %zu, pass %d: the cache's chain differs", p[i].name,
                               k, pass);
                at++;
            }
    }
    mtc_chain_cache_stats s = stats(cc);
    ASSERT_EQ(s.entries, kinds);
    ASSERT_EQ(s.builds, kinds);  /* the first pass built each once */
    ASSERT_EQ(s.hits, kinds);    /* the second found each */
    ASSERT_EQ(s.unkept, 0);
    ASSERT_TRUE(s.bytes > 0 && s.bytes <= MTC_CHAIN_CACHE_CAP_DEFAULT);
    /* no cache: mtc_chain_build itself */
    ASSERT_OK(mtc_chain_cache_build(NULL, &p[0], &opts[0], got));
    ASSERT_OK(mtc_chain_build(&p[0], &opts[0], fresh));
    ASSERT_TRUE(same_chain(got, fresh));
    mtc_chain_cache_destroy(cc);
    mtc_chain_cache_destroy(NULL);
    for (size_t i = 0; i < kinds; i++)
        free(want[i]);
    free(fresh);
    free(got);
}

/* Options one field apart (and a profile apart), each a chain of its own:
 * a key that left a field out would hand the earlier chain back. */
TEST(differing_options_never_collide)
{
    const mtc_chain_profile *p = mtc_chain_profile_by_name("le-ecdsa-cross");
    const mtc_chain_profile *q = mtc_chain_profile_by_name("le-ecdsa");
    ASSERT_TRUE(p && q);
    const mtc_chain_opts base = {"a.example.com", NB, 86400, MTC_CHAIN_ALG_NONE,
                                 MTC_CHAIN_ALG_NONE, 0};
    enum { NV = 8 };
    mtc_chain_opts v[NV];
    const mtc_chain_profile *vp[NV];
    const char *what[NV] = {"base", "dns_name (same length)", "not_before", "lifetime",
                            "leaf_alg", "ca_alg", "drop_cross", "profile"};
    for (int i = 0; i < NV; i++) {
        v[i] = base;
        vp[i] = p;
    }
    v[1].dns_name = "b.example.com";
    v[2].not_before = NB + 1;
    v[3].lifetime = 86401;
    v[4].leaf_alg = MTC_CHAIN_ALG_ED25519;
    v[5].ca_alg = MTC_CHAIN_ALG_ECDSA_P256;
    v[6].drop_cross = 1;
    vp[7] = q;
    mtc_chain *fresh[NV] = {0};
    mtc_chain *got = new_chain();
    mtc_chain_cache *cc = NULL;
    ASSERT_OK(mtc_chain_cache_create(MTC_CHAIN_CACHE_CAP_DEFAULT, &cc));
    ASSERT_TRUE(got != NULL);
    for (int i = 0; i < NV; i++) {
        fresh[i] = new_chain();
        ASSERT_TRUE(fresh[i] != NULL);
        ASSERT_OK(mtc_chain_build(vp[i], &v[i], fresh[i]));
        /* each field matters: otherwise this test could not fail */
        if (i > 0 && same_chain(fresh[i], fresh[0]))
            TEST_FAIL_("%s: the same chain as the base", what[i]);
    }
    /* twice over, in both orders: first each is built, then each is found */
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < NV; j++) {
            int i = pass ? NV - 1 - j : j;
            ASSERT_OK(mtc_chain_cache_build(cc, vp[i], &v[i], got));
            if (!same_chain(got, fresh[i]))
                TEST_FAIL_("%s (pass %d): the cache returned another chain", what[i], pass);
            if (pass == 0)
                ASSERT_EQ(stats(cc).entries, (size_t)i + 1);
        }
    mtc_chain_cache_stats s = stats(cc);
    ASSERT_EQ(s.entries, NV);
    ASSERT_EQ(s.builds, NV);
    ASSERT_EQ(s.hits, NV);
    /* the name is the caller's: the cache keeps its own copy */
    char name[] = "c.example.com";
    mtc_chain_opts o = base;
    o.dns_name = name;
    ASSERT_OK(mtc_chain_cache_build(cc, p, &o, got));
    name[0] = 'a';
    ASSERT_OK(mtc_chain_cache_build(cc, p, &o, got));
    ASSERT_TRUE(same_chain(got, fresh[0]));
    for (int i = 0; i < NV; i++)
        free(fresh[i]);
    free(got);
    mtc_chain_cache_destroy(cc);
}

TEST(cap_stops_keeping)
{
    const mtc_chain_profile *p = mtc_chain_profile_by_name("le-rsa");
    ASSERT_TRUE(p != NULL);
    mtc_chain_opts a = {"a.example.com", NB, 86400, MTC_CHAIN_ALG_NONE, MTC_CHAIN_ALG_NONE, 0};
    mtc_chain_opts b = a;
    b.dns_name = "b.example.com";
    mtc_chain *fa = new_chain(), *fb = new_chain(), *got = new_chain();
    ASSERT_TRUE(fa && fb && got);
    ASSERT_OK(mtc_chain_build(p, &a, fa));
    ASSERT_OK(mtc_chain_build(p, &b, fb));
    /* what one entry costs */
    mtc_chain_cache *big = NULL;
    ASSERT_OK(mtc_chain_cache_create(SIZE_MAX, &big));
    ASSERT_OK(mtc_chain_cache_build(big, p, &a, got));
    size_t one = stats(big).bytes;
    /* an entry holds the used bytes, not the whole buffer */
    ASSERT_TRUE(one > mtc_chain_der_len(fa) && one < mtc_chain_der_len(fa) + 4096);
    mtc_chain_cache_destroy(big);
    /* room for one: a is kept, b is built every time, a stays served */
    mtc_chain_cache *cc = NULL;
    ASSERT_OK(mtc_chain_cache_create(one, &cc));
    ASSERT_OK(mtc_chain_cache_build(cc, p, &a, got));
    ASSERT_TRUE(same_chain(got, fa));
    for (int k = 0; k < 2; k++) {
        ASSERT_OK(mtc_chain_cache_build(cc, p, &b, got));
        ASSERT_TRUE(same_chain(got, fb));
    }
    ASSERT_OK(mtc_chain_cache_build(cc, p, &a, got));
    ASSERT_TRUE(same_chain(got, fa));
    mtc_chain_cache_stats s = stats(cc);
    ASSERT_EQ(s.entries, 1);
    ASSERT_TRUE(s.bytes <= one);
    ASSERT_EQ(s.builds, 3);
    ASSERT_EQ(s.unkept, 2);
    ASSERT_EQ(s.hits, 1);
    mtc_chain_cache_destroy(cc);
    /* no room at all: a cache that keeps nothing and answers everything */
    ASSERT_OK(mtc_chain_cache_create(0, &cc));
    for (int k = 0; k < 2; k++) {
        ASSERT_OK(mtc_chain_cache_build(cc, p, &a, got));
        ASSERT_TRUE(same_chain(got, fa));
    }
    s = stats(cc);
    ASSERT_EQ(s.entries, 0);
    ASSERT_EQ(s.bytes, 0);
    ASSERT_EQ(s.builds, 2);
    ASSERT_EQ(s.unkept, 2);
    mtc_chain_cache_destroy(cc);
    free(fa);
    free(fb);
    free(got);
}

TEST(failed_build_not_cached)
{
    const mtc_chain_profile *p = mtc_chain_profile_by_name("le-ecdsa");
    ASSERT_TRUE(p != NULL);
    char longname[260];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    const mtc_chain_opts bad[4] = {
        {"", NB, 86400, MTC_CHAIN_ALG_NONE, MTC_CHAIN_ALG_NONE, 0},
        {longname, NB, 86400, MTC_CHAIN_ALG_NONE, MTC_CHAIN_ALG_NONE, 0},
        {"a.example.com", NB, 0, MTC_CHAIN_ALG_NONE, MTC_CHAIN_ALG_NONE, 0},
        {"a.example.com", NB, 86400, (mtc_chain_alg)99, MTC_CHAIN_ALG_NONE, 0},
    };
    const int want[4] = {MTC_ERR_ARG, MTC_ERR_ARG, MTC_ERR_ARG, MTC_ERR_UNSUPPORTED};
    mtc_chain_cache *cc = NULL;
    ASSERT_OK(mtc_chain_cache_create(MTC_CHAIN_CACHE_CAP_DEFAULT, &cc));
    mtc_chain *got = new_chain();
    ASSERT_TRUE(got != NULL);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 4; i++) {
            got->ncerts = 3;
            ASSERT_EQ(mtc_chain_cache_build(cc, p, &bad[i], got), want[i]);
            ASSERT_EQ(got->ncerts, 0);
        }
    ASSERT_EQ(mtc_chain_cache_build(cc, p, NULL, got), MTC_ERR_ARG);
    ASSERT_EQ(mtc_chain_cache_build(cc, NULL, &bad[2], got), MTC_ERR_ARG);
    mtc_chain_cache_stats s = stats(cc);
    ASSERT_EQ(s.entries, 0);
    ASSERT_EQ(s.hits, 0);
    ASSERT_EQ(s.builds, 10);
    ASSERT_EQ(s.unkept, 0);
    /* the same key made valid is built and kept */
    mtc_chain_opts ok = bad[2];
    ok.lifetime = 86400;
    ASSERT_OK(mtc_chain_cache_build(cc, p, &ok, got));
    ASSERT_EQ(stats(cc).entries, 1);
    mtc_chain_cache_destroy(cc);
    free(got);
}

/* A profile of the caller's own may change between calls: never kept. */
TEST(foreign_profile_built_every_time)
{
    const mtc_chain_profile *p = mtc_chain_profile_by_name("le-ecdsa");
    ASSERT_TRUE(p != NULL);
    mtc_chain_profile mine = *p;
    mtc_chain_opts o = {"a.example.com", NB, 86400, MTC_CHAIN_ALG_NONE, MTC_CHAIN_ALG_NONE, 0};
    mtc_chain *fresh = new_chain(), *got = new_chain();
    ASSERT_TRUE(fresh && got);
    mtc_chain_cache *cc = NULL;
    ASSERT_OK(mtc_chain_cache_create(MTC_CHAIN_CACHE_CAP_DEFAULT, &cc));
    ASSERT_OK(mtc_chain_build(p, &o, fresh));
    ASSERT_OK(mtc_chain_cache_build(cc, &mine, &o, got));
    ASSERT_TRUE(same_chain(got, fresh));
    mine.sans = 3;
    ASSERT_OK(mtc_chain_build(&mine, &o, fresh));
    ASSERT_OK(mtc_chain_cache_build(cc, &mine, &o, got));
    ASSERT_TRUE(same_chain(got, fresh));
    ASSERT_TRUE(got->len[0] > 0);
    mtc_chain_cache_stats s = stats(cc);
    ASSERT_EQ(s.entries, 0);
    ASSERT_EQ(s.builds, 2);
    ASSERT_EQ(s.unkept, 2);
    mtc_chain_cache_destroy(cc);
    free(fresh);
    free(got);
}

/* A miss copies the CA certificates of a kept chain of the same profile,
 * not_before and CA key types, and signs the leaf alone: for every
 * profile, a chain so made equals one built whole, whatever differs in
 * the leaf (name, name length, key, lifetime); and no chain lends its CA
 * certificates across a not_before, ca_alg or drop_cross. */
TEST(ca_certificates_reused_only_when_equal)
{
    size_t np;
    const mtc_chain_profile *p = mtc_chain_profiles(&np);
    const mtc_chain_opts donor = {"s1.example.com", NB, 7 * 86400, MTC_CHAIN_ALG_NONE,
                                  MTC_CHAIN_ALG_NONE, 0};
    /* the same CA certificates as the donor's */
    mtc_chain_opts same[3] = {donor, donor, donor};
    same[0].dns_name = "s204.other-example.net";
    same[1].leaf_alg = MTC_CHAIN_ALG_MLDSA44;
    same[2].lifetime = 90 * 86400;
    same[2].dns_name = "s2.example.com";
    /* other CA certificates (for a profile without cross-signs,
     * drop_cross changes nothing, and may share) */
    mtc_chain_opts other[3] = {donor, donor, donor};
    other[0].not_before = NB + 86400;
    other[1].ca_alg = MTC_CHAIN_ALG_ED25519; /* no profile's CA key type */
    other[1].dns_name = "s3.example.com";
    other[2].drop_cross = 1;
    other[2].dns_name = "s4.example.com";
    mtc_chain *fresh = new_chain(), *got = new_chain();
    ASSERT_TRUE(fresh && got);
    ASSERT_TRUE(np >= 10);
    for (size_t i = 0; i < np; i++) {
        for (int k = 0; k < 3; k++) {
            /* a cache that holds the donor alone, so that it lends */
            mtc_chain_cache *one = NULL;
            ASSERT_OK(mtc_chain_cache_create(MTC_CHAIN_CACHE_CAP_DEFAULT, &one));
            ASSERT_OK(mtc_chain_cache_build(one, &p[i], &donor, got));
            ASSERT_EQ(stats(one).reused, 0);
            ASSERT_OK(mtc_chain_build(&p[i], &same[k], fresh));
            memset(got, 0xA5, sizeof *got);
            ASSERT_OK(mtc_chain_cache_build(one, &p[i], &same[k], got));
            if (!same_chain(got, fresh))
                TEST_FAIL_("%s, leaf variant %d: the chain with lent CA certificates differs",
                           p[i].name, k);
            if (stats(one).reused != 1)
                TEST_FAIL_("%s, leaf variant %d: no CA certificates lent", p[i].name, k);
            mtc_chain_cache_destroy(one);
            /* drop_cross also drops a root sent */
            int drop_noop = k == 2 && !p[i].cross_key && !p[i].send_root;
            ASSERT_OK(mtc_chain_cache_create(MTC_CHAIN_CACHE_CAP_DEFAULT, &one));
            ASSERT_OK(mtc_chain_cache_build(one, &p[i], &donor, got));
            ASSERT_OK(mtc_chain_build(&p[i], &other[k], fresh));
            memset(got, 0xA5, sizeof *got);
            ASSERT_OK(mtc_chain_cache_build(one, &p[i], &other[k], got));
            if (!same_chain(got, fresh))
                TEST_FAIL_("%s, CA variant %d: the cache's chain differs", p[i].name, k);
            if (stats(one).reused != (drop_noop ? 1u : 0u))
                TEST_FAIL_("%s, CA variant %d: lent CA certificates: %" PRIu64, p[i].name, k,
                           stats(one).reused);
            mtc_chain_cache_destroy(one);
        }
    }
    free(fresh);
    free(got);
}

/* ---- worlds ---- */

static web_sites_config *sites(const char *name, const char *key, size_t n)
{
    web_sites_config *s = wrun_sites_new();
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->dns_suffix, sizeof s->dns_suffix, "%s.example", name);
    s->count = (int64_t)n;
    s->issue_spread = 2 * SIM_HOUR;
    const sim_param_desc *d = sim_param_find(&sim_sites_schema, "key_alg");
    char err[200];
    if (!d || sim_param_set_string(d, s, key, err, sizeof err) != MTC_OK)
        s->count = -1; /* refused by web_create: the test fails */
    s->cert_compression.count = 2;
    snprintf(s->cert_compression.item[0], sizeof s->cert_compression.item[0], "brotli");
    snprintf(s->cert_compression.item[1], sizeof s->cert_compression.item[1], "zstd");
    return s;
}

static web_browsers_config *cohort(const char *name, const char *comp)
{
    web_browsers_config *c = wrun_browsers_new();
    snprintf(c->name, sizeof c->name, "%s", name);
    c->count = (int64_t)test_scaled(150);
    c->sessions_per_day = 0;
    c->visits_per_hour = 4;
    c->cert_compression.count = comp ? 1 : 0;
    if (comp)
        snprintf(c->cert_compression.item[0], sizeof c->cert_compression.item[0], "%s", comp);
    return c;
}

/* Two site groups (every profile of the default mix, two key types, two
 * name suffixes) and three cohorts (no compression, brotli, zstd). */
static int run_world(wrun *r, mtc_chain_cache *cc, web_sites_config **s,
                     web_browsers_config **c)
{
    wfx_config pc;
    wfx_defaults(&pc);
    pc.alg = MTC_SIG_MLDSA44;
    int rc = wrun_create_chains(r, cc, SIM_QUEUE_DEFAULT, &pc, 5, 0, 0, 1, SIM_HOUR, 0,
                                (const web_sites_config *const *)s, 2,
                                (const web_browsers_config *const *)c, 3);
    if (rc == MTC_OK)
        wrun_until(r, 4 * SIM_HOUR);
    return rc;
}

TEST(worlds_identical_with_and_without)
{
    web_sites_config *s[2] = {sites("ed", "ed25519", 40), sites("pq", "ml-dsa-44", 40)};
    web_browsers_config *c[3] = {cohort("plain", NULL), cohort("br", "brotli"),
                                 cohort("zs", "zstd")};
    mtc_chain_cache *cc = NULL;
    ASSERT_OK(mtc_chain_cache_create(MTC_CHAIN_CACHE_CAP_DEFAULT, &cc));
    wrun own, cold, warm;
    ASSERT_OK(run_world(&own, NULL, s, c));
    ASSERT_OK(run_world(&cold, cc, s, c));
    mtc_chain_cache_stats s1 = stats(cc);
    ASSERT_OK(run_world(&warm, cc, s, c));
    mtc_chain_cache_stats s2 = stats(cc);
    /* the cold world built and kept its chains; the warm one built none */
    ASSERT_TRUE(s1.entries >= 10);
    ASSERT_EQ(s1.hits, 0);
    ASSERT_EQ(s2.builds, s1.builds);
    ASSERT_EQ(s2.entries, s1.entries);
    ASSERT_EQ(s2.hits, s1.entries);
    ASSERT_TRUE(wrun_counter(&own, "handshake_full") > 100 * test_scale());
    ASSERT_TRUE(wrun_counter(&own, "cert_message_bytes_compressed") > 0);
    ASSERT_TRUE(metrics_equal(own.metrics, cold.metrics, NULL));
    ASSERT_TRUE(metrics_equal(own.metrics, warm.metrics, NULL));
    web_stats a, b;
    web_get_stats(own.wb, &a);
    web_get_stats(warm.wb, &b);
    ASSERT_EQ_U64(a.auth_bytes_sum, b.auth_bytes_sum);
    wrun_free(&own);
    wrun_free(&cold);
    wrun_free(&warm);
    mtc_chain_cache_destroy(cc);
    for (int i = 0; i < 2; i++)
        sim_param_config_free(&sim_sites_schema, s[i]);
    for (int i = 0; i < 3; i++)
        sim_param_config_free(&sim_browsers_schema, c[i]);
}

static const test_case cases[] = {
    {"cached_equals_built", cached_equals_built},
    {"differing_options_never_collide", differing_options_never_collide},
    {"cap_stops_keeping", cap_stops_keeping},
    {"failed_build_not_cached", failed_build_not_cached},
    {"foreign_profile_built_every_time", foreign_profile_built_every_time},
    {"ca_certificates_reused_only_when_equal", ca_certificates_reused_only_when_equal},
    {"worlds_identical_with_and_without", worlds_identical_with_and_without},
};

TEST_MAIN(cases)
