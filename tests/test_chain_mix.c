/*
 * test_chain_mix.c - the default chain_mix of a site group against the
 * chain sizes measured on the web (docs/sources.md [web-chains]: p5 / p50
 * / p95 of 2,308 / 4,032 / 5,609 bytes, and 1,619 / 3,243 / 3,821 with
 * zstd), computed from real encodings the way the source measured them
 * (tests/lib/chain_mix_sizes.h: the certificates' DER concatenated,
 * compressed with zstd at the source's parameters, each compression
 * decompressed and compared with the chain).
 *
 * Every percentile must be within 5 % of the measurement uncompressed
 * and within 10 % compressed (docs/validation.md case 4d).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "lib/chain_mix_sizes.h"
#include "mtc/chain.h"
#include "mtc/error.h"
#include "sim/web.h"
#include "sim/world.h"
#include "test.h"

static int within(double v, double target, double tol)
{
    return v >= target * (1 - tol) && v <= target * (1 + tol);
}

/* The index of the mix's item of profile `name` among s[0..n), n when
 * the mix has none. */
static size_t item_of(const mix_size *s, size_t n, const char *name)
{
    size_t i = 0;
    while (i < n && strcmp(s[i].profile, name))
        i++;
    return i;
}

TEST(default_mix_reproduces_web_chain_sizes)
{
    web_sites_config *c = NULL;
    ASSERT_OK(sim_param_config_new(&sim_sites_schema, (void **)&c));
    ASSERT_TRUE(c->chain_mix.count >= 5);
    mix_size s[SIM_PARAM_LIST_MAX];
    size_t n = 0;
    ASSERT_OK(mix_sizes(&c->chain_mix, "example.com", s, SIM_PARAM_LIST_MAX, &n));
    ASSERT_EQ(n, c->chain_mix.count);
    double r5 = mix_quantile(s, n, MIX_DER, 0.05), r50 = mix_quantile(s, n, MIX_DER, 0.50),
           r95 = mix_quantile(s, n, MIX_DER, 0.95);
    double z5 = mix_quantile(s, n, MIX_ZSTD, 0.05), z50 = mix_quantile(s, n, MIX_ZSTD, 0.50),
           z95 = mix_quantile(s, n, MIX_ZSTD, 0.95);
    if (getenv("WEB_TEST_VERBOSE"))
        fprintf(stderr, "raw %.0f %.0f %.0f (web 2308 4032 5609); zstd %.0f %.0f %.0f "
                        "(web 1619 3243 3821)\n", r5, r50, r95, z5, z50, z95);
    ASSERT_TRUE(within(r5, 2308, 0.05));
    ASSERT_TRUE(within(r50, 4032, 0.05));
    ASSERT_TRUE(within(z5, 1619, 0.10));
    ASSERT_TRUE(within(z50, 3243, 0.10));
    ASSERT_TRUE(within(r95, 5609, 0.05));
    ASSERT_TRUE(within(z95, 3821, 0.10));
    sim_param_config_free(&sim_sites_schema, c);
}

/* The compression is the source's, not zstd's default: level 3 leaves
 * the same chain larger (by 62 bytes for this profile when this was
 * written); and the chain comes back intact. */
TEST(compression_as_measured_beats_the_default_level)
{
    const mtc_chain_profile *p = mtc_chain_profile_by_name("sectigo-rsa-cross");
    ASSERT_TRUE(p != NULL);
    mtc_chain *ch = malloc(sizeof *ch);
    uint8_t *z = malloc(2 * MTC_CHAIN_BUF);
    ASSERT_TRUE(ch && z);
    mtc_chain_opts o = {"example.com", 1767225600, 90 * 86400, 0, 0, 0};
    ASSERT_OK(mtc_chain_build(p, &o, ch));
    size_t len = mtc_chain_der_len(ch);
    size_t l3 = ZSTD_compress(z, 2 * MTC_CHAIN_BUF, ch->buf, len, 3);
    ASSERT_FALSE(ZSTD_isError(l3));
    size_t lm = mix_zstd_as_measured(ch->buf, len, z, 2 * MTC_CHAIN_BUF);
    ASSERT_TRUE(lm > 0 && lm + 20 < l3);
    /* too small an output: 0, not a partial length */
    ASSERT_EQ(mix_zstd_as_measured(ch->buf, len, z, 16), 0);
    free(ch);
    free(z);
}

/* A malformed mix is refused, and nothing is counted. */
TEST(malformed_mix_refused)
{
    sim_param_list one = {0};
    one.count = 1;
    mix_size s;
    size_t n = 7;
    const char *bad[] = {"no-such-profile:1", "le-rsa", "le-rsa:x", "le-rsa:0", "le-rsa:1x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(one.item[0], sizeof one.item[0], "%s", bad[i]);
        ASSERT_EQ(mix_sizes(&one, "example.com", &s, 1, &n), MTC_ERR_ARG);
        ASSERT_EQ(n, 0);
    }
    snprintf(one.item[0], sizeof one.item[0], "le-rsa:1");
    ASSERT_EQ(mix_sizes(&one, "example.com", &s, 0, &n), MTC_ERR_ARG);
    ASSERT_OK(mix_sizes(&one, "example.com", &s, 1, &n));
    ASSERT_EQ(n, 1);
    ASSERT_TRUE(s.zstd < s.der && s.leaf < s.der);
}

/* The RSA leaves of the default mix: each "-4096" profile is its base
 * profile (the name without the suffix) with a 4,096-bit subscriber key
 * and nothing else changed, its chain that chain plus the longer key (256
 * more bytes of modulus, give or take the few bytes by which the SCTs'
 * ECDSA signatures vary), and the mix gives it 7.2 % of its family's RSA
 * weight: 8,067 of the 112,421 RSA leaves of top sites scanned in 2021
 * had 4,096 bits (docs/sources.md [tranco-scan-2021]). */
TEST(rsa4096_leaves_are_the_sourced_share)
{
    web_sites_config *c = NULL;
    ASSERT_OK(sim_param_config_new(&sim_sites_schema, (void **)&c));
    static mix_size s[SIM_PARAM_LIST_MAX];
    size_t n = 0, pairs = 0;
    ASSERT_OK(mix_sizes(&c->chain_mix, "example.com", s, SIM_PARAM_LIST_MAX, &n));
    double rsa2k = 0, rsa4k = 0;
    for (size_t i = 0; i < n; i++) {
        const mtc_chain_profile *p = mtc_chain_profile_by_name(s[i].profile);
        ASSERT_TRUE(p != NULL);
        rsa2k += p->leaf_key == MTC_CHAIN_ALG_RSA2048 ? s[i].weight : 0;
        rsa4k += p->leaf_key == MTC_CHAIN_ALG_RSA4096 ? s[i].weight : 0;
        char base[sizeof s[i].profile];
        if (!mix_rsa4096_base(s[i].profile, base, sizeof base))
            continue;
        const mtc_chain_profile *b = mtc_chain_profile_by_name(base);
        size_t j = item_of(s, n, base);
        ASSERT_TRUE(b != NULL && j < n);
        ASSERT_EQ(p->leaf_key, MTC_CHAIN_ALG_RSA4096);
        ASSERT_EQ(b->leaf_key, MTC_CHAIN_ALG_RSA2048);
        ASSERT_TRUE(p->issuer_key == b->issuer_key && p->root_key == b->root_key &&
                    p->cross_key == b->cross_key && p->cross2_key == b->cross2_key &&
                    p->sans == b->sans && p->scts == b->scts && p->ov == b->ov &&
                    p->ocsp == b->ocsp);
        ASSERT_STR_EQ(p->inter_cn, b->inter_cn);
        ASSERT_STR_EQ(p->aia_url, b->aia_url);
        ASSERT_STR_EQ(p->inter_crl_url, b->inter_crl_url);
        ASSERT_TRUE(s[i].der - s[j].der >= 248 && s[i].der - s[j].der <= 264);
        ASSERT_TRUE(s[i].leaf - s[j].leaf >= 248 && s[i].leaf - s[j].leaf <= 264);
        /* a key is random bytes: compression keeps nearly all of them */
        ASSERT_TRUE(s[i].zstd - s[j].zstd >= 200);
        /* the mix's items print 6 significant digits */
        ASSERT_TRUE(fabs(s[i].weight / (s[i].weight + s[j].weight) - 8067.0 / 112421.0) <
                    1e-5);
        pairs++;
    }
    /* every RSA family of the mix is split, and the whole mix's RSA leaves
     * have the sourced share */
    ASSERT_EQ(pairs, 8);
    ASSERT_TRUE(fabs(rsa4k / (rsa2k + rsa4k) - 8067.0 / 112421.0) < 1e-5);
    sim_param_config_free(&sim_sites_schema, c);
}

/* The "-4096" naming convention is read in one place: the suffix alone,
 * a name that merely contains 4096 and a weight are left as they are. */
TEST(rsa4096_names_map_to_their_base)
{
    char base[48] = "untouched";
    ASSERT_EQ(mix_rsa4096_base("le-rsa-cross-4096", base, sizeof base), 1);
    ASSERT_STR_EQ(base, "le-rsa-cross");
    ASSERT_EQ(mix_rsa4096_base("le-rsa4096", base, sizeof base), 0);
    ASSERT_EQ(mix_rsa4096_base("-4096", base, sizeof base), 0);
    ASSERT_EQ(mix_rsa4096_base("le-rsa-cross", base, sizeof base), 0);
    ASSERT_STR_EQ(base, "le-rsa-cross");
    static sim_param_list mix, out;
    mix.count = 3;
    snprintf(mix.item[0], sizeof mix.item[0], "le-rsa-cross-4096:1.8");
    snprintf(mix.item[1], sizeof mix.item[1], "le-rsa4096:2");
    snprintf(mix.item[2], sizeof mix.item[2], "le-ecdsa-cross:6");
    mix_rsa2048_only(&mix, &out);
    ASSERT_EQ(out.count, 3);
    ASSERT_STR_EQ(out.item[0], "le-rsa-cross:1.8");
    ASSERT_STR_EQ(out.item[1], "le-rsa4096:2");
    ASSERT_STR_EQ(out.item[2], "le-ecdsa-cross:6");
}

/* The default mix's roots sent (docs/sources.md [tranco-scan-2021]):
 * each family's "-root" profiles (and their "-4096" twins) are its
 * chains with the top CA's self-signed certificate appended, nothing
 * else changed, and weigh the share of all sites the 2021 scan saw send
 * that family's root: 6,399, 3,492 and 3,052 of 149,429. */
TEST(roots_sent_are_the_scanned_share)
{
    web_sites_config *c = NULL;
    ASSERT_OK(sim_param_config_new(&sim_sites_schema, (void **)&c));
    static mix_size s[SIM_PARAM_LIST_MAX];
    size_t n = 0;
    ASSERT_OK(mix_sizes(&c->chain_mix, "example.com", s, SIM_PARAM_LIST_MAX, &n));
    const struct {
        const char *base;
        double sites;
    } fam[] = {{"sectigo-rsa-cross", 6399}, {"digicert-rsa-ov", 3492},
               {"amazon-rsa-cross2", 3052}};
    double total = 0, root_w = 0;
    for (size_t i = 0; i < n; i++)
        total += s[i].weight;
    for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++) {
        double w = 0;
        for (int k = 0; k < 2; k++) {
            char root[48], plain[48];
            snprintf(root, sizeof root, "%s-root%s", fam[f].base, k ? "-4096" : "");
            snprintf(plain, sizeof plain, "%s%s", fam[f].base, k ? "-4096" : "");
            size_t r = item_of(s, n, root), p = item_of(s, n, plain);
            ASSERT_TRUE(r < n && p < n);
            const mtc_chain_profile *pr = mtc_chain_profile_by_name(root);
            const mtc_chain_profile *pp = mtc_chain_profile_by_name(plain);
            ASSERT_TRUE(pr && pp && pr->send_root == 1 && pp->send_root == 0);
            ASSERT_TRUE(pr->leaf_key == pp->leaf_key && pr->cross_key == pp->cross_key &&
                        pr->cross2_key == pp->cross2_key && pr->sans == pp->sans);
            ASSERT_STR_EQ(pr->root_cn, pp->root_cn);
            /* one more certificate, a root's worth of bytes, the leaf the same */
            ASSERT_TRUE(s[r].der - s[p].der > 700 && s[r].der - s[p].der < 1200);
            ASSERT_TRUE(fabs(s[r].leaf - s[p].leaf) <= 8);
            w += s[r].weight;
        }
        ASSERT_TRUE(fabs(w / total - fam[f].sites / 149429.0) < 1e-5);
        root_w += w;
    }
    /* 12,943 of 149,429 sites: the roots of CAs the mix has no family
     * for (607 more sites) are not counted */
    ASSERT_TRUE(fabs(root_w / total - 12943.0 / 149429.0) < 1e-5);
    sim_param_config_free(&sim_sites_schema, c);
}

static const test_case tests[] = {
    {"roots_sent_are_the_scanned_share", roots_sent_are_the_scanned_share},
    {"rsa4096_names_map_to_their_base", rsa4096_names_map_to_their_base},
    {"default_mix_reproduces_web_chain_sizes", default_mix_reproduces_web_chain_sizes},
    {"compression_as_measured_beats_the_default_level",
     compression_as_measured_beats_the_default_level},
    {"malformed_mix_refused", malformed_mix_refused},
    {"rsa4096_leaves_are_the_sourced_share", rsa4096_leaves_are_the_sourced_share},
};

TEST_MAIN(tests)
