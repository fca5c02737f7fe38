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
 * model cannot be tuned to pass. The 95th percentiles are shown, not
 * judged: the measured tail holds chains the mix has no profile for, and
 * their share is not published (docs/validation.md, case 4d).
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

int case_4d(vctx *c)
{
    web_sites_config *sc = NULL;
    if (sim_param_config_new(&sim_sites_schema, (void **)&sc) != 0)
        return -1;
    static mix_size s[SIM_PARAM_LIST_MAX];
    size_t n = 0;
    int rc = mix_sizes(&sc->chain_mix, "example.com", s, SIM_PARAM_LIST_MAX, &n);
    sim_param_config_free(&sim_sites_schema, sc);
    if (rc != 0)
        return -1;
    char name[80];
    /* the acceptance bands: 5 % of the measured size uncompressed, 10 %
     * compressed */
    for (int i = 0; i < 3; i++) {
        double v = mix_quantile(s, n, MIX_DER, q[i]);
        snprintf(name, sizeof name, "chain, %s", qname[i]);
        if (i < 2)
            v_row(c, name, "bytes", 0, web_der[i], 0, v, v, v, 0, 0.05 * web_der[i]);
        else
            v_info(c, name, "bytes", 0, web_der[i], v);
    }
    for (int i = 0; i < 3; i++) {
        double v = mix_quantile(s, n, MIX_ZSTD, q[i]);
        snprintf(name, sizeof name, "chain compressed (zstd, the source's), %s", qname[i]);
        if (i < 2)
            v_row(c, name, "bytes", 0, web_zstd[i], 0, v, v, v, 0, 0.10 * web_zstd[i]);
        else
            v_info(c, name, "bytes", 0, web_zstd[i], v);
    }
    /* an upper bound each: a suppressed chain counts as its leaf, an
     * unsuppressed one whole */
    for (int i = 0; i < 3; i++) {
        double v = mix_quantile(s, n, MIX_LEAF, q[i]);
        snprintf(name, sizeof name, "leaf, %s (at most the suppressed size)", qname[i]);
        v_info(c, name, "bytes", 0, web_suppressed[i], v);
    }
    return 0;
}
