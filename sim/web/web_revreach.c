/*
 * web_revreach.c - revocation reach (docs/model.md "Revocation reach"):
 * per browser cohort, how long after a CA revoked a serial range each
 * client enforces it, how many (client, revocation) pairs are still
 * unenforced, and the handshakes in which a server presented a revoked
 * certificate and the client accepted it.
 *
 * A client enforces a revocation from the moment it installs a
 * publication carrying it (installs, not fetches: a policy delay holds
 * revocations back as it holds landmarks). The CA's revocations are
 * carried in the order they were made (a view's nrevocations are the
 * first that many), so the ones an install brings are an index range,
 * and their times come from the PKI (web_pki revocation_at).
 *
 * Censoring: a (client, revocation) pair not yet enforced has no
 * observation in revocation_enforce_time; revocations_unenforced counts
 * those pairs at every flush of the registry (its value at the end of the
 * run is the right-censored part), so the distribution over all pairs is
 * the histogram plus that many beyond the run's end.
 *
 * Workload: one look-up per CA per install (installs are a few per
 * client-day), a pass over the shard's clients per registry flush (at the
 * end of a run, and when a scenario reads metrics), two counters per full
 * handshake that presented a revoked certificate.
 */
#include <stdlib.h>

#include "mtc/error.h"
#include "web_internal.h"

/* Explicit revocations of CA ca in publication pub of service us. */
static uint32_t held(const web_pki *p, size_t us, uint32_t pub, size_t ca)
{
    const sim_ca_view *v = p->pub_view(p->ctx, us, pub, ca);
    return v ? v->nrevocations : 0;
}

void web__revreach_install(web *wb, size_t k, size_t us, uint32_t from, uint32_t to,
                           sim_time at)
{
    const web_pki *p = wb->pki;
    if (!p->revocation_at || !wb->m.rev_enforce)
        return;
    for (size_t ca = 0; ca < wb->nca; ca++) {
        uint32_t j = held(p, us, from, ca), want = held(p, us, to, ca);
        /* revocations made at one instant share an observation: the end
         * of the run of equal times by bisection (times never decrease) */
        while (j < want) {
            sim_time t = p->revocation_at(p->ctx, ca, j);
            uint32_t lo = j + 1, hi = want;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (p->revocation_at(p->ctx, ca, mid) == t)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            sim_hist_observe_n(wb->m.rev_enforce, k, sim_time_to_sec(at - t), lo - j);
            j = lo;
        }
    }
}

void web__revreach_handshake(web *wb, size_t k, int accepted)
{
    sim_counter_add(wb->m.rev_presented, k, 1);
    if (accepted)
        sim_counter_add(wb->m.rev_accepted_k, k, 1);
}

/* Revocations of every CA held by a client of service us holding pub:
 * from the table `t` of service us (publications 0..nt-1) when it covers
 * pub, else from the views. */
static size_t held_all(const web *wb, size_t us, uint32_t pub, const uint32_t *t, size_t nt)
{
    if (t && pub < nt)
        return t[pub];
    size_t h = 0;
    for (size_t ca = 0; ca < wb->nca; ca++)
        h += held(wb->pki, us, pub, ca);
    return h;
}

/* The registry's flush: (client, revocation) pairs of every cohort not
 * enforced now, over the CA's revocations so far (published or not).
 * What a client holds depends on its publication alone, so it is looked
 * up once per publication (a table per update service) and the pass over
 * the clients is one addition each: a scenario may read metrics, and so
 * flush, every simulated hour. */
static void unenforced_flush(void *ctx)
{
    web *wb = ctx;
    const web_pki *p = wb->pki;
    if (!p->revocations || !wb->m.rev_unenforced)
        return;
    size_t total = 0;
    for (size_t ca = 0; ca < wb->nca; ca++)
        total += p->revocations(p->ctx, ca);
    double *n = calloc(wb->ncohorts ? wb->ncohorts : 1, sizeof *n);
    if (!n)
        return; /* the gauge keeps its last level: a flush cannot fail */
    if (total > 0) {
        size_t nus = wb->nus ? wb->nus : 1;
        uint32_t **t = calloc(nus, sizeof *t);
        size_t *nt = calloc(nus, sizeof *nt);
        for (size_t us = 0; t && nt && us < wb->nus; us++) {
            size_t m = p->pub_available(p->ctx, us) ? (size_t)p->pub_latest(p->ctx, us) + 1 : 1;
            /* no table (out of memory): every client from the views */
            if ((t[us] = malloc(m * sizeof **t)) == NULL)
                continue;
            nt[us] = m;
            for (size_t q = 0; q < m; q++)
                t[us][q] = (uint32_t)held_all(wb, us, (uint32_t)q, NULL, 0);
        }
        for (size_t i = 0; i < wb->nclients; i++) {
            const web_client *c = web__client(wb, i);
            size_t us = wb->cohorts[c->cohort].us;
            size_t h = held_all(wb, us, c->pub, t && nt ? t[us] : NULL, nt ? nt[us] : 0);
            n[c->cohort] += (double)(total - h);
        }
        for (size_t us = 0; t && us < wb->nus; us++)
            free(t[us]);
        free(t);
        free(nt);
    }
    for (size_t k = 0; k < wb->ncohorts; k++)
        sim_gauge_set(wb->m.rev_unenforced, k, n[k]);
    free(n);
}

int web__revreach_create(web *wb)
{
    sim_metrics *m = wb->env.metrics;
    size_t nc = wb->ncohorts ? wb->ncohorts : 1;
    web_metrics *x = &wb->m;
    int rc = 0;
    /* 50 bins a decade (4.7 % wide) from 1 s: quantiles to a few percent */
    rc |= sim_metrics_histogram(m, "revocation_enforce_time", "s", nc, 0, 1, 1e8, 50,
                                &x->rev_enforce);
    rc |= sim_metrics_gauge(m, "revocations_unenforced", "pairs", nc, 0, &x->rev_unenforced);
    rc |= sim_metrics_counter(m, "revoked_presented_by_cohort", "handshakes", nc,
                              SIM_METRIC_SERIES, &x->rev_presented);
    rc |= sim_metrics_counter(m, "revoked_accepted_by_cohort", "handshakes", nc,
                              SIM_METRIC_SERIES, &x->rev_accepted_k);
    if (rc)
        return SIM_ERR_METRIC;
    sim_metric *cm[] = {x->rev_enforce, x->rev_unenforced, x->rev_presented,
                        x->rev_accepted_k};
    if ((rc = web__label_by_cohort(wb, cm, sizeof cm / sizeof cm[0])) != MTC_OK)
        return rc;
    if (sim_metrics_add_flush(m, unenforced_flush, wb) != 0)
        return MTC_ERR_NOMEM;
    wb->revreach_flush = 1;
    return MTC_OK;
}

void web__revreach_destroy(web *wb)
{
    if (wb->revreach_flush)
        sim_metrics_remove_flush(wb->env.metrics, unenforced_flush, wb);
    wb->revreach_flush = 0;
}
