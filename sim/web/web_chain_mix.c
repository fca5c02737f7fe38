/*
 * web_chain_mix.c - the default chain_mix of a site group: which of
 * mtc/chain.h's profiles today's popular sites serve, and how often. Data
 * and the arithmetic that derives it from its sources; web_site.c sets it
 * as the parameter's default.
 */
#include "web_chain_mix.h"

#include <stdio.h>

/*
 * The default chain_mix: the chains popular sites served when the chain
 * sizes of docs/sources.md [web-chains] were measured (about 75,000
 * chains of sites of the Tranco list, 2023), by CA family and key type.
 * Derived from the CA and key shares and the chains each CA served then,
 * not fitted to the sizes: docs/model.md "Today's chains" gives the
 * reasoning, the assumptions and how far the result is from the measured
 * percentiles.
 *
 * Both splits below come from a scan of the Tranco list's top sites in
 * 2021 (docs/sources.md [tranco-scan-2021]). Each family's RSA weight is
 * split between 2,048- and 4,096-bit subscriber keys as the scan's RSA
 * leaves were: 8,067 of 112,421 had 4,096 bits (the 0.5 % of other sizes
 * count as 2,048). Some servers send their root too: of the 149,429 sites
 * whose chains validated, 6,399 sent the self-signed root of a Sectigo,
 * GlobalSign, Entrust or Certum hierarchy (the three-certificate RSA
 * family here), 3,492 an RSA root of DigiCert's and 3,052 a GoDaddy or
 * Starfield one (the Starfield family). Each is that share of all sites:
 * its weight is the mix's total (95) times the count over 149,429, taken
 * from its family's RSA chains and split by key as the rest.
 */
#define RSA4096_SHARE (8067.0 / 112421.0)
#define MIX_TOTAL 95.0
#define ROOT_SENT(n) (MIX_TOTAL * (n) / 149429.0)
#define SECTIGO_ROOT ROOT_SENT(6399)
#define DIGICERT_ROOT ROOT_SENT(3492)
#define STARFIELD_ROOT ROOT_SENT(3052)
static const struct {
    const char *profile;
    double weight;
} today_mix[] = {
    {"le-ecdsa-cross", 6},
    {"le-rsa-cross", 12 * (1 - RSA4096_SHARE)},
    {"le-rsa-cross-4096", 12 * RSA4096_SHARE},
    {"gts-ecdsa-cross", 6},
    {"gts-rsa-cross", 10 * (1 - RSA4096_SHARE)},
    {"gts-rsa-cross-4096", 10 * RSA4096_SHARE},
    {"google-multi", 3},
    {"digicert-rsa-ov", (18 - DIGICERT_ROOT) * (1 - RSA4096_SHARE)},
    {"digicert-rsa-ov-4096", (18 - DIGICERT_ROOT) * RSA4096_SHARE},
    {"digicert-rsa-ov-root", DIGICERT_ROOT * (1 - RSA4096_SHARE)},
    {"digicert-rsa-ov-root-4096", DIGICERT_ROOT * RSA4096_SHARE},
    {"digicert-ecdsa-ov", 4},
    {"ecdsa-int-rsa-root", 3},
    {"sectigo-rsa-cross", (18 - SECTIGO_ROOT) * (1 - RSA4096_SHARE)},
    {"sectigo-rsa-cross-4096", (18 - SECTIGO_ROOT) * RSA4096_SHARE},
    {"sectigo-rsa-cross-root", SECTIGO_ROOT * (1 - RSA4096_SHARE)},
    {"sectigo-rsa-cross-root-4096", SECTIGO_ROOT * RSA4096_SHARE},
    {"amazon-rsa-cross2", (15 - STARFIELD_ROOT) * (1 - RSA4096_SHARE)},
    {"amazon-rsa-cross2-4096", (15 - STARFIELD_ROOT) * RSA4096_SHARE},
    {"amazon-rsa-cross2-root", STARFIELD_ROOT * (1 - RSA4096_SHARE)},
    {"amazon-rsa-cross2-root-4096", STARFIELD_ROOT * RSA4096_SHARE},
};
_Static_assert(sizeof today_mix / sizeof today_mix[0] <= SIM_PARAM_LIST_MAX,
               "the default mix must fit a parameter list");
#undef RSA4096_SHARE
#undef MIX_TOTAL
#undef ROOT_SENT
#undef SECTIGO_ROOT
#undef DIGICERT_ROOT
#undef STARFIELD_ROOT

void web_chain_mix_default(sim_param_list *out)
{
    out->count = sizeof today_mix / sizeof today_mix[0];
    for (size_t i = 0; i < out->count; i++)
        snprintf(out->item[i], sizeof out->item[i], "%s:%g", today_mix[i].profile,
                 today_mix[i].weight);
}
