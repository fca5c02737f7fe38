/*
 * validate/case_chains.c - case 4d: the chains today's web serves. The
 * default chain_mix's size percentiles, from real encodings, against the
 * sizes draft-ietf-tls-cert-abridge measured on the chains of Tranco-list
 * sites (docs/sources.md [web-chains]), uncompressed and compressed as the
 * source compressed them; its leaves against the upper bounds the same
 * measurement gives with intermediate suppression.
 *
 * The mix's weights come from CA and key shares, not from these sizes
 * (docs/model.md "Web side: today's chains"), so the comparison is one the
 * model cannot be tuned to pass.
 *
 * What the mix's 4,096-bit RSA leaves (7.2 % of each RSA family, as in
 * the scan of docs/sources.md [tranco-scan-2021]) contribute is shown
 * beside it: the same mix with every RSA leaf at 2,048 bits.
 */
#include "vcases.h"

#include "lib/chain_mix_sizes.h"
#include "sim/web.h"
#include "sim/world.h"

/* The source's percentiles (p5, p50, p95). */
static const double web_der[3] = {2308, 4032, 5609};
static const double web_zstd[3] = {1619, 3243, 3821};
static const double web_suppressed[3] = {1315, 1688, 4227};
static const double q[3] = {0.05, 0.50, 0.95};
static const char *const qname[3] = {"p5", "p50", "p95"};
/* The rows of one size at p5, p50 and p95 against the source's figures:
 * the first `judged` of them judged within `band` of the measurement, the
 * others shown. */
static void size_rows(vctx *c, mix_size *s, size_t n, int which, const char *what,
                      const double measured[3], double band, int judged)
{
    char name[80];
    for (int i = 0; i < 3; i++) {
        double v = mix_quantile(s, n, which, q[i]);
        snprintf(name, sizeof name, "%s, %s", what, qname[i]);
        if (i < judged)
            v_row(c, name, "bytes", 0, measured[i], 0, v, v, v, 0, band * measured[i]);
        else
            v_info(c, name, "bytes", 0, measured[i], v);
    }
}

int case_4d(vctx *c)
{
    web_sites_config *sc = NULL;
    if (sim_param_config_new(&sim_sites_schema, (void **)&sc) != 0)
        return -1;
    static mix_size s[SIM_PARAM_LIST_MAX], s2k[SIM_PARAM_LIST_MAX];
    static sim_param_list mix2k;
    size_t n = 0, n2k = 0;
    mix_rsa2048_only(&sc->chain_mix, &mix2k);
    int rc = mix_sizes(&sc->chain_mix, "example.com", s, SIM_PARAM_LIST_MAX, &n);
    if (rc == 0)
        rc = mix_sizes(&mix2k, "example.com", s2k, SIM_PARAM_LIST_MAX, &n2k);
    sim_param_config_free(&sim_sites_schema, sc);
    if (rc != 0)
        return -1;
    /* the acceptance bands: 5 % of the measured size uncompressed, 10 %
     * compressed */
    size_rows(c, s, n, MIX_DER, "chain", web_der, 0.05, 3);
    size_rows(c, s, n, MIX_ZSTD, "chain compressed (zstd, the source's)", web_zstd, 0.10, 3);
    /* an upper bound each: a suppressed chain counts as its leaf, an
     * unsuppressed one whole */
    size_rows(c, s, n, MIX_LEAF, "leaf (at most the suppressed size)", web_suppressed, 0, 0);
    /* the 4,096-bit leaves' part: shown, not judged */
    size_rows(c, s2k, n2k, MIX_DER, "every RSA leaf 2,048 bits: chain", web_der, 0, 0);
    size_rows(c, s2k, n2k, MIX_ZSTD, "every RSA leaf 2,048 bits: compressed", web_zstd, 0, 0);
    return 0;
}
