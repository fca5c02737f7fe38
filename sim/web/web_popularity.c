/*
 * web_popularity.c - which site a client visits: a traffic share per site
 * group, Zipf within the group.
 *
 * Why not one Zipf over all sites: site numbers follow the order in which
 * groups are declared, so the first group would hold the most popular
 * ranks, and two groups differing only in (say) their key algorithm
 * would give different answers in the two declaration orders. Instead a
 * group's traffic is its `traffic_share` (by default its share of all
 * sites, what a random assignment of groups to popularity ranks gives on
 * average), and a site's share within its group is Zipf over the group's
 * own sites. Both steps are folded into one Walker alias table (one draw
 * per host, as before). With a single group the table is the plain Zipf
 * over all sites, so single-group runs draw exactly as they always did.
 */
#include <math.h>
#include <stdlib.h>

#include "mtc/error.h"
#include "web_internal.h"

int web__popularity(const web *wb, double s, sim_dist **out)
{
    *out = NULL;
    if (wb->nsites == 0)
        return MTC_OK;
    if (wb->nsite_groups == 1)
        return sim_dist_zipf(out, wb->nsites, s);
    double *w = malloc(wb->nsites * sizeof *w);
    double *v = malloc(wb->nsites * sizeof *v);
    int rc = MTC_ERR_NOMEM;
    if (!w || !v)
        goto done;
    double wsum = 0;
    for (size_t g = 0; g < wb->nsite_groups; g++) {
        const web_sites_config *c = &wb->site_cfg[g];
        wsum += c->traffic_share > 0 ? c->traffic_share
                                     : (double)c->count / (double)wb->nsites;
    }
    size_t id = 0;
    for (size_t g = 0; g < wb->nsite_groups; g++) {
        const web_sites_config *c = &wb->site_cfg[g];
        double share = (c->traffic_share > 0 ? c->traffic_share
                                             : (double)c->count / (double)wb->nsites) /
                       wsum;
        double h = 0;
        for (int64_t r = 1; r <= c->count; r++)
            h += pow((double)r, -s);
        for (int64_t r = 1; r <= c->count; r++, id++) {
            w[id] = share * pow((double)r, -s) / h;
            v[id] = (double)id;
        }
    }
    rc = sim_dist_empirical(out, v, w, wb->nsites);
done:
    free(w);
    free(v);
    return rc;
}
