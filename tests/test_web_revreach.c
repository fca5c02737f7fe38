/*
 * test_web_revreach.c - revocation reach (docs/model.md "Revocation
 * reach") on the real-mtc-core PKI fixture, every handshake re-checked
 * the slow way (check_invariants):
 *  - round trip: a site group's revocation reaches the views as one
 *    revoked range per distinct entry (a standalone certificate and its
 *    landmark-relative sibling are one; a key compromise likewise), and
 *    the real verifier rejects exactly those certificates against a view
 *    carrying it;
 *  - closed form, small world: always-online clients checking every T at
 *    uniform phases, the revocation published d after it is made: the
 *    time to enforce is uniform on [d, d + T] (CDF at every bin edge,
 *    quantiles, mean); with a constant policy delay D, uniform on
 *    [d + D, d + D + T]; frozen clients never enforce and are counted
 *    unenforced, not dropped;
 *  - right censoring: a run that ends halfway through the lagging
 *    cohort's interval leaves about half its clients unenforced, and
 *    enforced + unenforced pairs = clients x revocations in every cohort;
 *  - handshakes: the server keeps presenting the revoked certificates
 *    ("keep"), so accepted / presented over a window W from the
 *    revocation is E[min(E, W)] / W per cohort, 1 for frozen clients;
 *  - "replace": no revoked certificate is presented once the replacement
 *    standalone certificate exists;
 *  - "keep" with renewals under way: nothing but revoked certificates is
 *    presented afterwards, then nothing once they expire.
 */
#include <math.h>
#include <string.h>

#include "lib/web_run.h"
#include "mtc/error.h"
#include "mtc/rp.h"
#include "test.h"

enum { NSITES = 5 };
static const double D_PUB = 600;            /* fixture's publication delay */
static const double T_CHECK = 3600;         /* update interval */
static const double D_APPLY = 7200;         /* the lagging cohort's delay */
/* Revoked at 5 h 20 min: no publication is pending then (landmarks on the
 * hour, published 10 minutes later), so the revocation's own publication
 * comes D_PUB later, at 5 h 30 min. */
static const sim_time REVOKE_AT = 19200 * SIM_SEC;

typedef struct world {
    web_sites_config *site;
    web_browsers_config *co[3];
    size_t n, nfrozen;
} world;

static web_browsers_config *cohort(const char *name, size_t n, double visits_per_hour)
{
    web_browsers_config *c = wrun_browsers_new();
    snprintf(c->name, sizeof c->name, "%s", name);
    c->count = (int64_t)n;
    c->sessions_per_day = 0; /* always online */
    c->visits_per_hour = visits_per_hour;
    c->update_first_delay = 0;
    c->update_fail_prob = 0;
    c->ticket_lifetime = 0;  /* every visit a full handshake */
    sim_dist_destroy(c->update_interval);
    sim_dist_const(&c->update_interval, T_CHECK);
    return c;
}

/* n clients in each of the fresh and lagging cohorts (a tenth of it
 * frozen), each visiting visits_per_hour. Every handshake's certificate is
 * verified again the slow way, a real Ed25519 verification, so handshakes
 * are the tests' cost: the structural checks use 200 clients, and the
 * closed forms of the time to enforce, which no handshake changes, visit
 * once in 4 hours. */
static void world_init(world *w, int serving, size_t n, double visits_per_hour)
{
    memset(w, 0, sizeof *w);
    w->n = test_scaled(n);
    w->nfrozen = test_scaled(n / 10);
    w->site = wrun_sites_new();
    w->site->count = NSITES;
    w->site->issue_spread = SIM_HOUR;
    w->site->retry_after = SIM_SEC;
    w->site->revoke_at = REVOKE_AT;
    w->site->revoke_fraction = 1.0;
    w->site->revoked_serving = serving;
    w->co[0] = cohort("fresh", w->n, visits_per_hour);
    w->co[1] = cohort("lagging", w->n, visits_per_hour);
    sim_dist_const(&w->co[1]->update_apply_delay, D_APPLY);
    w->co[2] = cohort("frozen", w->nfrozen, visits_per_hour);
    w->co[2]->never_updates = 1;
}

static void world_free(world *w)
{
    sim_param_config_free(&sim_sites_schema, w->site);
    for (size_t i = 0; i < 3; i++)
        sim_param_config_free(&sim_browsers_schema, w->co[i]);
}

static int world_run(wrun *r, world *w, uint64_t seed, int sa_delay)
{
    wfx_config pc;
    wfx_defaults(&pc);
    pc.pub_delay = (sim_time)(D_PUB * SIM_SEC);
    pc.sa_delay = sa_delay * SIM_SEC;
    return wrun_create(r, &pc, seed, 0, 0, 1, 0, 1,
                       (const web_sites_config *const *)&w->site, 1,
                       (const web_browsers_config *const *)w->co, 3);
}

static size_t nrevocations(wrun *r)
{
    const web_pki *p = wfx_pki(r->pki);
    return p->revocations(p->ctx, 0);
}

/* Time to enforce uniform on [lo, lo + T]: the CDF at every bin edge
 * inside (Kolmogorov-Smirnov at 99.9 %, over clients: a client's
 * revocations share one time), the 0.5 / 0.9 / 0.99 quantiles within a
 * bin and that band, the mean within 4.5 standard errors. */
static void check_uniform(test_ctx *tc_, const sim_metric *h, size_t k, double lo,
                          size_t n, size_t nrev)
{
    ASSERT_EQ(sim_hist_count(h, k), (uint64_t)n * nrev);
    double band = 1.95 / sqrt((double)n), worst = 0;
    uint64_t below = sim_hist_bin(h, k, 0), total = sim_hist_count(h, k);
    for (size_t i = 1; i <= sim_hist_nbins(h); i++) {
        double e = sim_hist_edge(h, i);
        below += sim_hist_bin(h, k, i);
        if (e < lo || e > lo + T_CHECK)
            continue;
        double dev = fabs((double)below / (double)total - (e - lo) / T_CHECK);
        worst = dev > worst ? dev : worst;
    }
    fprintf(stderr, "  cohort %zu: KS distance %.4f (bound %.4f), min %.0f max %.0f mean %.1f\n",
            k, worst, band, sim_hist_min(h, k), sim_hist_max(h, k), sim_hist_mean(h, k));
    ASSERT_TRUE(worst < band);
    ASSERT_TRUE(sim_hist_min(h, k) >= lo - 1e-6);
    ASSERT_TRUE(sim_hist_max(h, k) <= lo + T_CHECK + 1e-6);
    const double qs[] = {0.5, 0.9, 0.99};
    for (size_t i = 0; i < 3; i++) {
        double want = lo + qs[i] * T_CHECK, got = sim_hist_quantile(h, k, qs[i]);
        double tol = want * (pow(10, 1.0 / 50) - 1) + band * T_CHECK;
        fprintf(stderr, "    q%.2f: %.0f s (closed form %.0f +-%.0f)\n", qs[i], got, want, tol);
        ASSERT_NEAR(got, want, tol);
    }
    ASSERT_NEAR(sim_hist_mean(h, k), lo + T_CHECK / 2, 4.5 * T_CHECK / sqrt(12.0 * (double)n));
}

TEST(revocation_reaches_views_once_per_entry)
{
    world w;
    world_init(&w, WEB_REVOKED_KEEP, 200, 4);
    wrun r;
    ASSERT_OK(world_run(&r, &w, 11, 0));
    wrun_until(&r, REVOKE_AT + 3 * SIM_HOUR);
    /* every site held one entry (standalone + landmark-relative): one
     * range each, not one per certificate */
    ASSERT_EQ(nrevocations(&r), (size_t)NSITES);
    const web_pki *p = wfx_pki(r.pki);
    uint32_t q = p->pub_latest(p->ctx, 0);
    while (q > 0 && p->pub_view(p->ctx, 0, q - 1, 0)->nrevocations == NSITES)
        q--;
    const sim_ca_view *now = p->pub_view(p->ctx, 0, q, 0);
    const sim_ca_view *before = p->pub_view(p->ctx, 0, q - 1, 0);
    ASSERT_EQ(now->nrevocations, NSITES);
    ASSERT_EQ(before->nrevocations, 0);
    /* published d after the revocation, in the relying-party state the
     * real verifier uses */
    ASSERT_TRUE(p->pub_time(p->ctx, 0, q) == REVOKE_AT + (sim_time)(D_PUB * SIM_SEC));
    ASSERT_EQ(mtc_rp_ca_revoked_count(now->rp), mtc_rp_ca_revoked_count(before->rp) + NSITES);
    /* every presentation the clients refused was refused by the real
     * verifier as revoked: no other failure, no retry */
    const sim_metric *pr = sim_metrics_find(r.metrics, "revoked_presented_by_cohort");
    const sim_metric *ac = sim_metrics_find(r.metrics, "revoked_accepted_by_cohort");
    const sim_metric *vo = sim_metrics_find(r.metrics, "verify_outcome");
    int64_t refused = sim_counter_value(pr, SIM_ALL_COHORTS) - sim_counter_value(ac, SIM_ALL_COHORTS);
    ASSERT_TRUE(refused > 0);
    ASSERT_EQ(sim_counter_value(vo, MTC_RP_REVOKED), refused);
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_EQ(st.failures, (uint64_t)refused);
    ASSERT_EQ(st.retries, 0);
    ASSERT_EQ(st.invariant_violations, 0);
    wrun_free(&r);
    world_free(&w);
}

TEST(time_to_enforce_closed_form)
{
    world w;
    world_init(&w, WEB_REVOKED_KEEP, 1000, 0.25);
    wrun r;
    ASSERT_OK(world_run(&r, &w, 12, 0));
    /* long enough for the lagging cohort's last install */
    sim_time end = REVOKE_AT + (sim_time)((D_PUB + D_APPLY + T_CHECK) * SIM_SEC) + SIM_MIN;
    wrun_until(&r, end);
    size_t nrev = nrevocations(&r);
    ASSERT_EQ(nrev, (size_t)NSITES);
    const sim_metric *h = sim_metrics_find(r.metrics, "revocation_enforce_time");
    const sim_metric *u = sim_metrics_find(r.metrics, "revocations_unenforced");
    ASSERT_TRUE(h && u);
    check_uniform(tc_, h, 0, D_PUB, w.n, nrev);
    check_uniform(tc_, h, 1, D_PUB + D_APPLY, w.n, nrev);
    /* frozen: never enforced, counted as unenforced (not dropped) */
    ASSERT_EQ(sim_hist_count(h, 2), 0);
    ASSERT_NEAR(sim_gauge_value(u, 0), 0, 1e-9);
    ASSERT_NEAR(sim_gauge_value(u, 1), 0, 1e-9);
    ASSERT_NEAR(sim_gauge_value(u, 2), (double)(w.nfrozen * nrev), 1e-9);
    /* the per-CA publication-based metric is the same minus d */
    const sim_metric *x = sim_metrics_find(r.metrics, "revocation_exposure");
    ASSERT_NEAR(sim_hist_mean(x, 0) + D_PUB,
                (sim_hist_mean(h, 0) + sim_hist_mean(h, 1)) / 2, 1e-6);
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_EQ(st.invariant_violations, 0);
    wrun_free(&r);
    world_free(&w);
}

TEST(censored_at_window_end)
{
    world w;
    world_init(&w, WEB_REVOKED_KEEP, 1000, 0.25);
    wrun r;
    ASSERT_OK(world_run(&r, &w, 13, 0));
    /* ends halfway through the lagging cohort's installs */
    sim_time end = REVOKE_AT + (sim_time)((D_PUB + D_APPLY + T_CHECK / 2) * SIM_SEC);
    wrun_until(&r, end);
    size_t nrev = nrevocations(&r);
    const sim_metric *h = sim_metrics_find(r.metrics, "revocation_enforce_time");
    const sim_metric *u = sim_metrics_find(r.metrics, "revocations_unenforced");
    size_t count[3] = {w.n, w.n, w.nfrozen};
    for (size_t k = 0; k < 3; k++)
        ASSERT_NEAR((double)sim_hist_count(h, k) + sim_gauge_value(u, k),
                    (double)(count[k] * nrev), 1e-9);
    double late = sim_gauge_value(u, 1) / (double)(w.n * nrev);
    fprintf(stderr, "  lagging share unenforced at the end: %.3f (closed form 0.5)\n", late);
    ASSERT_NEAR(late, 0.5, 3.5 * 0.5 / sqrt((double)w.n));
    ASSERT_NEAR(sim_gauge_value(u, 0), 0, 1e-9);
    wrun_free(&r);
    world_free(&w);
}

TEST(accepted_handshakes_closed_form)
{
    world w;
    world_init(&w, WEB_REVOKED_KEEP, 1000, 4);
    wrun r;
    ASSERT_OK(world_run(&r, &w, 14, 0));
    double W = D_PUB + D_APPLY + T_CHECK + 3600;
    /* sites without a certificate before their first issuance (the
     * first hour) do not count */
    wrun_step(&r, REVOKE_AT);
    int64_t no_cert = wrun_counter(&r, "handshake_no_cert");
    wrun_until(&r, REVOKE_AT + (sim_time)(W * SIM_SEC));
    const sim_metric *pr = sim_metrics_find(r.metrics, "revoked_presented_by_cohort");
    const sim_metric *ac = sim_metrics_find(r.metrics, "revoked_accepted_by_cohort");
    ASSERT_TRUE(pr && ac);
    /* the sites keep presenting their revoked certificates: every full
     * handshake from the revocation on presents one */
    ASSERT_EQ(wrun_counter(&r, "handshake_no_cert"), no_cert);
    double lo[2] = {D_PUB, D_PUB + D_APPLY};
    for (size_t k = 0; k < 2; k++) {
        double p = (double)sim_counter_value(pr, k), a = (double)sim_counter_value(ac, k);
        /* Poisson visits independent of the enforcement time E:
         * E[accepted] / E[presented] = E[E] / W */
        double want = (lo[k] + T_CHECK / 2) / W;
        /* the spread of the clients' E (sd T/sqrt(12)) dominates */
        double sd = (T_CHECK / sqrt(12.0 * (double)w.n)) / W + sqrt(want / p);
        fprintf(stderr, "  cohort %zu: accepted %.0f of %.0f presented: %.4f (closed form %.4f +-%.4f)\n",
                k, a, p, a / p, want, 4 * sd);
        ASSERT_TRUE(p > 0);
        ASSERT_NEAR(a / p, want, 4 * sd);
    }
    ASSERT_TRUE(sim_counter_value(pr, 2) > 0);
    ASSERT_EQ(sim_counter_value(ac, 2), sim_counter_value(pr, 2));
    /* the per-CA counter is the cohorts' sum */
    ASSERT_EQ(wrun_counter(&r, "revoked_accepted"), sim_counter_value(ac, SIM_ALL_COHORTS));
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_EQ(st.invariant_violations, 0);
    wrun_free(&r);
    world_free(&w);
}

TEST(replace_stops_presenting_revoked)
{
    world w;
    world_init(&w, WEB_REVOKED_REPLACE, 200, 4);
    wrun r;
    /* the replacement's standalone certificate 300 s after the request */
    ASSERT_OK(world_run(&r, &w, 15, 300));
    wrun_step(&r, REVOKE_AT);
    int64_t no_cert = wrun_counter(&r, "handshake_no_cert");
    wrun_step(&r, REVOKE_AT + 301 * SIM_SEC);
    const sim_metric *pr = sim_metrics_find(r.metrics, "revoked_presented_by_cohort");
    int64_t at_switch = sim_counter_value(pr, SIM_ALL_COHORTS);
    wrun_until(&r, REVOKE_AT + 4 * SIM_HOUR);
    fprintf(stderr, "  presented revoked: %lld until the replacement, %lld in all\n",
            (long long)at_switch, (long long)sim_counter_value(pr, SIM_ALL_COHORTS));
    ASSERT_TRUE(at_switch > 0);
    ASSERT_EQ(sim_counter_value(pr, SIM_ALL_COHORTS), at_switch);
    ASSERT_EQ(nrevocations(&r), (size_t)NSITES);
    /* and the sites are back to signatureless for fresh clients after the
     * next landmark: the replacement was issued */
    ASSERT_TRUE(wrun_counter(&r, "handshake_signatureless") > 0);
    ASSERT_EQ(wrun_counter(&r, "handshake_no_cert"), no_cert);
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_EQ(st.invariant_violations, 0);
    wrun_free(&r);
    world_free(&w);
}

/* "keep" while renewals are under way: 3-hour certificates renewed every
 * 2 h 15 min, each standalone certificate 10 minutes after its request,
 * so some sites are mid-renewal at the revocation. A kept site renews
 * nothing and installs no certificate of a request under way: every full
 * handshake from the revocation on presents a revoked certificate, until
 * the site's last one expires and it has none. */
TEST(keep_abandons_renewals_under_way)
{
    world w;
    world_init(&w, WEB_REVOKED_KEEP, 200, 4);
    w.site->count = 40;
    w.site->lifetime = 3 * SIM_HOUR;
    w.site->issue_spread = 3 * SIM_HOUR;
    wrun r;
    ASSERT_OK(world_run(&r, &w, 16, 600));
    wrun_step(&r, REVOKE_AT);
    int64_t full0 = wrun_counter(&r, "handshake_full");
    int64_t nocert0 = wrun_counter(&r, "handshake_no_cert");
    size_t nrev = nrevocations(&r);
    wrun_until(&r, REVOKE_AT + 4 * SIM_HOUR);
    const sim_metric *pr = sim_metrics_find(r.metrics, "revoked_presented_by_cohort");
    int64_t full = wrun_counter(&r, "handshake_full") - full0;
    int64_t nocert = wrun_counter(&r, "handshake_no_cert") - nocert0;
    fprintf(stderr, "  %zu entries revoked; after it %lld full handshakes, %lld presenting "
            "a revoked certificate, %lld to sites with none left\n", nrev, (long long)full,
            (long long)sim_counter_value(pr, SIM_ALL_COHORTS), (long long)nocert);
    ASSERT_TRUE(nrev >= 40);
    ASSERT_TRUE(full > 0);
    ASSERT_EQ(sim_counter_value(pr, SIM_ALL_COHORTS), full);
    /* every certificate had expired 3 h after the revocation */
    ASSERT_TRUE(nocert > 0);
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_EQ(st.invariant_violations, 0);
    wrun_free(&r);
    world_free(&w);
}

/* A key compromise revokes the same entries once each too: every site
 * holds one entry (standalone + landmark-relative) at 5 h 20 min. */
TEST(compromise_revokes_each_entry_once)
{
    world w;
    world_init(&w, WEB_REVOKED_KEEP, 200, 4);
    w.site->revoke_at = 0;
    w.site->revoke_fraction = 0;
    w.site->compromise_at = REVOKE_AT;
    w.site->compromise_fraction = 1.0;
    wrun r;
    ASSERT_OK(world_run(&r, &w, 17, 0));
    wrun_until(&r, REVOKE_AT + SIM_HOUR);
    ASSERT_EQ(nrevocations(&r), (size_t)NSITES);
    web_stats st;
    web_get_stats(r.wb, &st);
    ASSERT_EQ(st.invariant_violations, 0);
    wrun_free(&r);
    world_free(&w);
}

TEST(schema_refuses_half_configured_revocation)
{
    web_sites_config *s = wrun_sites_new();
    char err[256] = "";
    s->revoke_fraction = 0.5;
    ASSERT_TRUE(sim_sites_schema.validate(s, err, sizeof err) != MTC_OK);
    ASSERT_TRUE(strstr(err, "revoke_fraction") != NULL);
    s->revoke_at = SIM_HOUR;
    ASSERT_OK(sim_sites_schema.validate(s, err, sizeof err));
    s->compromise_at = SIM_HOUR;
    ASSERT_TRUE(sim_sites_schema.validate(s, err, sizeof err) != MTC_OK);
    ASSERT_TRUE(strstr(err, "revoke_at") != NULL);
    sim_param_config_free(&sim_sites_schema, s);
}

static const test_case tests[] = {
    {"revocation_reaches_views_once_per_entry", revocation_reaches_views_once_per_entry},
    {"time_to_enforce_closed_form", time_to_enforce_closed_form},
    {"censored_at_window_end", censored_at_window_end},
    {"accepted_handshakes_closed_form", accepted_handshakes_closed_form},
    {"replace_stops_presenting_revoked", replace_stops_presenting_revoked},
    {"keep_abandons_renewals_under_way", keep_abandons_renewals_under_way},
    {"compromise_revokes_each_entry_once", compromise_revokes_each_entry_once},
    {"schema_refuses_half_configured_revocation", schema_refuses_half_configured_revocation},
};
TEST_MAIN(tests)
