/*
 * test_chain_mix.c - the default chain_mix of a site group against the
 * chain sizes measured on the web (docs/sources.md [web-chains]: p5 / p50
 * / p95 of 2,308 / 4,032 / 5,609 bytes, and 1,619 / 3,243 / 3,821 with
 * zstd), computed from real encodings the way the source measured them:
 * the certificates' DER concatenated, compressed with zstd at the
 * parameters the source names for its "TLS Cert Compression" row (level
 * 22, chain, search and hash logs of 30, target length 6,000, the
 * maximum window forced; zstd_as_measured below).
 *
 * p5 and p50 must be within 5 % (uncompressed) and 10 % (compressed) of
 * the measurement. The mix's p95 falls short of the measured one
 * (docs/model.md "Web side: today's chains" explains why: the tail of the measured
 * population is chains larger than any profile of the mix); the test
 * holds it to the shortfall documented there, so that a change which
 * moves it is seen.
 */
/* ZSTD_c_forceMaxWindow is an experimental parameter */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "mtc/chain.h"
#include "mtc/error.h"
#include "sim/world.h"
#include "sim/web.h"
#include "test.h"

struct obs {
    double v, w;
};

static int cmp_obs(const void *a, const void *b)
{
    double x = ((const struct obs *)a)->v, y = ((const struct obs *)b)->v;
    return (x > y) - (x < y);
}

/* The smallest value whose cumulative weight reaches q of the total. */
static double wpct(struct obs *o, size_t n, double q)
{
    qsort(o, n, sizeof *o, cmp_obs);
    double tot = 0, c = 0;
    for (size_t i = 0; i < n; i++)
        tot += o[i].w;
    for (size_t i = 0; i < n; i++) {
        c += o[i].w;
        if (c >= q * tot - 1e-9)
            return o[i].v;
    }
    return o[n - 1].v;
}

static int within(double v, double target, double tol)
{
    return v >= target * (1 - tol) && v <= target * (1 + tol);
}

/* in compressed with the source's parameters into out (cap bytes): its
 * length, or a zstd error code. The level alone would not do: its
 * defaults at level 22 differ from the source's logs and target length. */
static size_t zstd_as_measured(void *out, size_t cap, const void *in, size_t len)
{
    ZSTD_CCtx *cx = ZSTD_createCCtx();
    if (!cx)
        return (size_t)-1;
    static const struct {
        ZSTD_cParameter p;
        int v;
    } set[] = {
        {ZSTD_c_compressionLevel, 22}, {ZSTD_c_chainLog, 30},
        {ZSTD_c_searchLog, 30},        {ZSTD_c_hashLog, 30},
        {ZSTD_c_targetLength, 6000},   {ZSTD_c_forceMaxWindow, 1},
    };
    size_t r = 0;
    for (size_t i = 0; i < sizeof set / sizeof set[0] && !ZSTD_isError(r); i++)
        r = ZSTD_CCtx_setParameter(cx, set[i].p, set[i].v);
    if (!ZSTD_isError(r))
        r = ZSTD_compress2(cx, out, cap, in, len);
    ZSTD_freeCCtx(cx);
    return r;
}

TEST(default_mix_reproduces_web_chain_sizes)
{
    web_sites_config *c = NULL;
    ASSERT_OK(sim_param_config_new(&sim_sites_schema, (void **)&c));
    ASSERT_TRUE(c->chain_mix.count >= 5);
    struct obs raw[SIM_PARAM_LIST_MAX], zst[SIM_PARAM_LIST_MAX];
    mtc_chain *ch = malloc(sizeof *ch);
    uint8_t *cat = malloc(MTC_CHAIN_BUF), *z = malloc(2 * MTC_CHAIN_BUF);
    ASSERT_TRUE(ch && cat && z);
    size_t n = c->chain_mix.count;
    for (size_t i = 0; i < n; i++) {
        char name[64];
        const char *colon = strrchr(c->chain_mix.item[i], ':');
        ASSERT_TRUE(colon != NULL);
        snprintf(name, sizeof name, "%.*s", (int)(colon - c->chain_mix.item[i]),
                 c->chain_mix.item[i]);
        const mtc_chain_profile *p = mtc_chain_profile_by_name(name);
        ASSERT_TRUE(p != NULL);
        mtc_chain_opts o = {"example.com", 1767225600, 90 * 86400, 0, 0, 0};
        ASSERT_OK(mtc_chain_build(p, &o, ch));
        size_t len = mtc_chain_der_len(ch);
        memcpy(cat, ch->buf, len); /* the certificates are back to back */
        size_t zl = zstd_as_measured(z, 2 * MTC_CHAIN_BUF, cat, len);
        ASSERT_FALSE(ZSTD_isError(zl));
        /* the compressed chain is the chain */
        ASSERT_EQ(ZSTD_decompress(cat, MTC_CHAIN_BUF, z, zl), len);
        ASSERT_MEM_EQ(cat, ch->buf, len);
        if (getenv("WEB_TEST_VERBOSE"))
            fprintf(stderr, "%s %zu %zu\n", name, len, zl);
        raw[i].v = (double)len;
        zst[i].v = (double)zl;
        raw[i].w = zst[i].w = atof(colon + 1);
    }
    double r5 = wpct(raw, n, 0.05), r50 = wpct(raw, n, 0.50), r95 = wpct(raw, n, 0.95);
    double z5 = wpct(zst, n, 0.05), z50 = wpct(zst, n, 0.50), z95 = wpct(zst, n, 0.95);
    if (getenv("WEB_TEST_VERBOSE"))
        fprintf(stderr, "raw %.0f %.0f %.0f (web 2308 4032 5609); zstd %.0f %.0f %.0f "
                        "(web 1619 3243 3821)\n", r5, r50, r95, z5, z50, z95);
    ASSERT_TRUE(within(r5, 2308, 0.05));
    ASSERT_TRUE(within(r50, 4032, 0.05));
    ASSERT_TRUE(within(z5, 1619, 0.10));
    ASSERT_TRUE(within(z50, 3243, 0.10));
    /* the documented shortfall of the tail: 14 % uncompressed and
     * compressed (docs/model.md "Web side: today's chains") */
    ASSERT_TRUE(r95 < 5609 && within(r95, 5609, 0.15));
    ASSERT_TRUE(z95 < 3821 && within(z95, 3821, 0.15));
    free(ch);
    free(cat);
    free(z);
    sim_param_config_free(&sim_sites_schema, c);
}

static const test_case tests[] = {
    {"default_mix_reproduces_web_chain_sizes", default_mix_reproduces_web_chain_sizes},
};

TEST_MAIN(tests)
