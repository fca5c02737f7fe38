/*
 * web_popularity.c - which site a client visits: a traffic share per site
 * group, Zipf within the group over the full-size world's ranks, and the
 * sampled site that stands in for each rank.
 *
 * Why not one Zipf over all sites: site numbers follow the order in which
 * groups are declared, so the first group would hold the most popular
 * ranks, and two groups differing only in (say) their key algorithm
 * would give different answers in the two declaration orders. Instead a
 * group's traffic is its `traffic_share` (by default its share of all
 * the full-size world's sites, what a random assignment of groups to
 * popularity ranks gives on average), and a rank's share within its group
 * is Zipf over the group's own ranks. Both steps are folded into one
 * Walker alias table (one draw per host). With a single group and no
 * sampling the table is the plain Zipf over all sites, so such runs draw
 * exactly as they always did.
 *
 * Why ranks and not sites: a group of `count` sites may stand in for
 * `represents` sites of the full-size world (a scenario's `scale` samples
 * the world). A client draws among the full-size world's ranks, so the
 * sequence of ranks it visits - and with it every revisit, and every
 * session ticket it holds and uses (tickets name the rank) - is the one it
 * would have in the full-size world, whatever the sample. Drawing among
 * the sampled sites instead made revisits as frequent as the sample is
 * small: the resumed share was 19.3 % at 20 quickstart sites and 11.7 % at
 * 100. The sampled sites only answer for the certificates: each stands in
 * for a contiguous range of ranks, cut so that the ranges carry about
 * equal traffic (a rank heavier than an equal share stays alone: the
 * full-size world's most popular site is one site too). So no sampled
 * site carries more traffic than the full-size world's heaviest site or an
 * equal share, whichever is larger, and at represents == count every site
 * is its own rank.
 */
#include <math.h>
#include <stdlib.h>

#include "mtc/error.h"
#include "web_internal.h"

uint64_t web__ranks(const web_sites_config *c)
{
    return (uint64_t)(c->represents > c->count ? c->represents : c->count);
}

/* The group's ranks [0, nr) with weights w (sum wsum) onto its n sites
 * from `site` on: contiguous ranges, each site at least one rank, each
 * range ending where its traffic comes closest to an equal share of what
 * is left. */
static void cut_ranges(const double *w, uint64_t nr, double wsum, uint64_t n,
                       uint32_t site, uint32_t *map)
{
    uint64_t r = 0;
    double left = wsum;
    for (uint64_t j = 0; j < n; j++) {
        uint64_t sites_left = n - j; /* this one included */
        double target = left / (double)sites_left;
        double acc = 0;
        /* every site takes one rank; the last takes the rest */
        do {
            acc += w[r];
            map[r++] = site + (uint32_t)j;
        } while (r < nr && (sites_left == 1 ||
                            (nr - r > sites_left - 1 && acc + w[r] / 2 <= target)));
        left -= acc;
    }
}

int web__popularity(const web *wb, double s, sim_dist **out, uint32_t **map)
{
    *out = NULL;
    *map = NULL;
    if (wb->nsites == 0)
        return MTC_OK;
    uint64_t nr = wb->nranks;
    if (wb->nsite_groups == 1 && nr == wb->nsites)
        return sim_dist_zipf(out, nr, s);
    double *w = malloc(nr * sizeof *w);
    double *v = wb->nsite_groups > 1 ? malloc(nr * sizeof *v) : NULL;
    uint32_t *m = nr != wb->nsites ? malloc(nr * sizeof *m) : NULL;
    int rc = MTC_ERR_NOMEM;
    if (!w || (wb->nsite_groups > 1 && !v) || (nr != wb->nsites && !m))
        goto done;
    double wsum = 0;
    for (size_t g = 0; g < wb->nsite_groups; g++) {
        const web_sites_config *c = &wb->site_cfg[g];
        wsum += c->traffic_share > 0 ? c->traffic_share
                                     : (double)web__ranks(c) / (double)nr;
    }
    uint64_t id = 0;
    uint32_t site = 0;
    for (size_t g = 0; g < wb->nsite_groups; g++) {
        const web_sites_config *c = &wb->site_cfg[g];
        uint64_t gr = web__ranks(c);
        double share = (c->traffic_share > 0 ? c->traffic_share
                                             : (double)gr / (double)nr) /
                       wsum;
        double h = 0;
        for (uint64_t r = 1; r <= gr; r++)
            h += pow((double)r, -s);
        for (uint64_t r = 1; r <= gr; r++)
            w[id + r - 1] = share * pow((double)r, -s) / h;
        if (m)
            cut_ranges(w + id, gr, share, (uint64_t)c->count, site, m + id);
        if (v)
            for (uint64_t r = 0; r < gr; r++)
                v[id + r] = (double)(id + r);
        id += gr;
        site += (uint32_t)c->count;
    }
    /* one group: the plain Zipf over its ranks, as with no sample */
    rc = v ? sim_dist_empirical(out, v, w, nr) : sim_dist_zipf(out, nr, s);
    if (rc == MTC_OK) {
        *map = m;
        m = NULL;
    }
done:
    free(w);
    free(v);
    free(m);
    return rc;
}
