/*
 * web_update.c - the client update model's updates (docs/model.md, "the
 * client update model"): an update check and what it fetches, installs
 * after a policy delay (web_applyq), and what the landmark metrics need -
 * per update service, a timeline of which landmarks each publication first
 * carried and when; per cohort, the online clients by held publication.
 * The triggers (sessions, start-up and periodic checks, absences, new
 * installs) are web_browser.c's.
 *
 * Workload: a check per client every few hours, an install per check
 * that finds something new; the timeline grows by one entry per
 * publication (tens a day) and is read per full handshake (the age of the
 * client's newest landmark: one table lookup).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "web_internal.h"
#include "sim/status.h"

/* ---- revocation exposure -------------------------------------------------------- */

/* nrevocations of CA ca in publication pub of service us (0 if none). */
static uint32_t nrev_at(const web_pki *p, size_t us, uint32_t pub, size_t ca)
{
    const sim_ca_view *v = p->pub_view(p->ctx, us, pub, ca);
    return v ? v->nrevocations : 0;
}

/* revocation_exposure: a client moving from publication `from` to `to` at
 * `at` now holds every revocation first published in (from, to]; each was
 * published at its first publication carrying it, found by bisection
 * (counts never decrease), and all revocations of one publication share
 * one exposure, recorded with their multiplicity. */
static void record_exposure(web *wb, size_t us, uint32_t from, uint32_t to,
                            sim_time at)
{
    const web_pki *p = wb->pki;
    if (!p->pub_time)
        return;
    for (size_t ca = 0; ca < wb->nca; ca++) {
        uint32_t have = nrev_at(p, us, from, ca), want = nrev_at(p, us, to, ca);
        uint32_t lo = from;
        while (have < want) {
            uint32_t a = lo + 1, b = to;
            while (a < b) {
                uint32_t mid = a + (b - a) / 2;
                if (nrev_at(p, us, mid, ca) > have)
                    b = mid;
                else
                    a = mid + 1;
            }
            uint32_t n = nrev_at(p, us, a, ca);
            sim_hist_observe_n(wb->m.rev_exposure, ca,
                               sim_time_to_sec(at - p->pub_time(p->ctx, us, a)),
                               n - have);
            have = n;
            lo = a;
        }
    }
}

/* ---- the landmark timeline of an update service ---------------------------- */

/* The newest landmark of a view: (log number, landmark) of the newest log
 * holding one; *lm = 0 when it holds none. */
static void newest_landmark(const sim_ca_view *v, uint64_t *log, uint64_t *lm)
{
    *log = *lm = 0;
    for (size_t k = 0; v && k < v->nlogs; k++)
        if (v->log[k].last_landmark > 0) {
            *log = v->log[k].log_number;
            *lm = v->log[k].last_landmark;
            return;
        }
}

/* Extends the timeline of service us to publication q (which exists: q
 * <= the latest). MTC_OK or MTC_ERR_NOMEM (the timeline is unchanged). */
int web__lml_ensure(web *wb, size_t us, uint32_t q)
{
    web_lmline *l = &wb->lml[us];
    if (q < l->n)
        return MTC_OK;
    size_t nca = wb->nca ? wb->nca : 1;
    if (q >= l->cap) {
        size_t cap = l->cap ? l->cap : 64;
        while (cap <= q)
            cap *= 2;
        uint32_t *lp = realloc(l->lm_pub, cap * sizeof *lp);
        if (!lp)
            return MTC_ERR_NOMEM;
        l->lm_pub = lp;
        sim_time *lt = realloc(l->lm_time, cap * nca * sizeof *lt);
        if (!lt)
            return MTC_ERR_NOMEM;
        l->lm_time = lt;
        web_lm_new *nw = realloc(l->nw, cap * nca * sizeof *nw);
        if (!nw)
            return MTC_ERR_NOMEM;
        l->nw = nw;
        l->cap = (uint32_t)cap;
    }
    const web_pki *p = wb->pki;
    for (; l->n <= q; l->n++) {
        uint32_t n = l->n;
        int changed = 0;
        for (size_t ca = 0; ca < wb->nca; ca++) {
            uint64_t log, lm, plog = 0, plm = 0;
            newest_landmark(p->pub_view(p->ctx, us, n, ca), &log, &lm);
            if (n > 0)
                newest_landmark(p->pub_view(p->ctx, us, n - 1, ca), &plog, &plm);
            size_t i = (size_t)n * nca + ca;
            web_lm_new *w = &l->nw[i];
            w->log_number = log;
            w->lo = w->hi = 0;
            if (lm == 0) {
                l->lm_time[i] = -1;
            } else if (n > 0 && log == plog && lm == plm) {
                l->lm_time[i] = l->lm_time[i - nca];
            } else {
                changed = 1;
                l->lm_time[i] = p->pub_time ? p->pub_time(p->ctx, us, n) : -1;
                w->lo = log == plog ? plm : 0;
                w->hi = lm;
            }
        }
        l->lm_pub[n] = changed ? n : (n > 0 ? l->lm_pub[n - 1] : 0);
    }
    return MTC_OK;
}

/* The latest publication of service us made at or before t (0: none). */
uint32_t web__pub_at(web *wb, size_t us, sim_time t)
{
    const web_pki *p = wb->pki;
    if (!p->pub_time)
        return 0;
    uint32_t a = 0, b = p->pub_latest(p->ctx, us);
    while (a < b) { /* the largest pub in [a, b] published by t */
        uint32_t mid = b - (b - a) / 2;
        if (p->pub_time(p->ctx, us, mid) <= t)
            a = mid;
        else
            b = mid - 1;
    }
    return a;
}

/* landmark_time_to_holding: client of cohort k installs publication `to`
 * over `from` at `at`. Each landmark first published in (from, to] and
 * still active in `to` is held from now on: one observation per landmark,
 * the time since its first publication. (Landmarks that expired before
 * the client installed them are never held, so never observed.) */
static void record_holding(web *wb, size_t k, size_t us, uint32_t from,
                           uint32_t to, sim_time at)
{
    const web_pki *p = wb->pki;
    if (!p->pub_time || web__lml_ensure(wb, us, to) != MTC_OK)
        return;
    const web_lmline *l = &wb->lml[us];
    size_t nca = wb->nca;
    for (size_t ca = 0; ca < nca; ca++) {
        const sim_ca_view *v = p->pub_view(p->ctx, us, to, ca);
        if (!v)
            continue;
        for (uint32_t q = from + 1; q <= to; q++) {
            const web_lm_new *w = &l->nw[(size_t)q * nca + ca];
            if (w->hi <= w->lo)
                continue;
            for (size_t j = 0; j < v->nlogs; j++) {
                if (v->log[j].log_number != w->log_number)
                    continue;
                uint64_t last = v->log[j].last_landmark, ma = v->log[j].max_active;
                uint64_t lo = w->lo, hi = w->hi < last ? w->hi : last;
                if (last > ma && last - ma > lo)
                    lo = last - ma; /* active: (last - max_active, last] */
                if (hi > lo)
                    sim_hist_observe_n(wb->m.lm_hold, k,
                                       sim_time_to_sec(at - p->pub_time(p->ctx, us, q)),
                                       hi - lo);
                break;
            }
        }
    }
}

void web__observe_landmark_age(web *wb, const web_client *c, size_t ca,
                               sim_time now)
{
    const web_lmline *l = &wb->lml[wb->cohorts[c->cohort].us];
    if (c->pub >= l->n)
        return; /* only when the timeline could not grow (out of memory) */
    sim_time t = l->lm_time[(size_t)c->pub * wb->nca + ca];
    if (t < 0 || now < t)
        return;
    sim_time s = (now - t) / SIM_SEC;
    sim_hist_observe_u32(wb->m.lm_age, c->cohort,
                         s > (sim_time)UINT32_MAX ? UINT32_MAX : (uint32_t)s);
}

/* ---- online clients by held publication ------------------------------------ */

/* Adds d online clients holding pub to the cohort's table. Out of memory
 * leaves the table short (the clients_lacking gauge then undercounts);
 * nothing else depends on it. */
void web__online_pub_add(web_cohort *co, uint32_t pub, int64_t d)
{
    if (pub >= co->online_pub_cap) {
        size_t cap = co->online_pub_cap ? co->online_pub_cap : 64;
        while (cap <= pub)
            cap *= 2;
        int64_t *a = realloc(co->online_pub, cap * sizeof *a);
        if (!a)
            return;
        memset(a + co->online_pub_cap, 0, (cap - co->online_pub_cap) * sizeof *a);
        co->online_pub = a;
        co->online_pub_cap = cap;
    }
    co->online_pub[pub] += d;
}

/* The gauges clients_online and clients_lacking_latest_landmark, set at
 * every grid point of the metrics (so their series are exact there): a
 * client lacks the latest landmark when the publication it holds is older
 * than the first one carrying the newest landmark of every CA in the
 * latest publication of its update service. */
static void sample_online(web *wb)
{
    const web_pki *p = wb->pki;
    for (size_t k = 0; k < wb->ncohorts; k++) {
        web_cohort *co = &wb->cohorts[k];
        uint32_t latest = p->pub_latest(p->ctx, co->us);
        int64_t fresh = co->online;
        if (web__lml_ensure(wb, co->us, latest) == MTC_OK) {
            fresh = 0;
            for (size_t q = wb->lml[co->us].lm_pub[latest];
                 q <= latest && q < co->online_pub_cap; q++)
                fresh += co->online_pub[q];
        }
        sim_gauge_set(wb->m.online, k, (double)co->online);
        sim_gauge_set(wb->m.lacking, k, (double)(co->online - fresh));
    }
}

static void sample_event(sim_engine *sim, sim_event *e)
{
    web *wb = e->arg;
    sample_online(wb);
    sim_time next = web__add_sat(sim_now(sim), wb->sample_step);
    if (next < SIM_TIME_MAX)
        sim_schedule(sim, e, next);
}

/* ---- updates ------------------------------------------------------------------ */

/* The client installs publication `to` at `at`. */
static void install(web *wb, web_client *c, web_cohort *co, uint32_t to,
                    sim_time at)
{
    uint32_t from = c->pub;
    if (to <= from)
        return;
    (void)web__lml_ensure(wb, co->us, to);
    record_exposure(wb, co->us, from, to, at);
    web__revreach_install(wb, c->cohort, co->us, from, to, at);
    record_holding(wb, c->cohort, co->us, from, to, at);
    if (c->online == WEB_ONLINE) {
        web__online_pub_add(co, from, -1);
        web__online_pub_add(co, to, 1);
    }
    c->pub = to;
    wb->st.update_installs++;
}

/* Installs whose policy delay has run out by now, oldest first. */
void web__apply_due(web *wb, web_client *c, web_cohort *co, sim_time now)
{
    web_applyq *q = web__applyq(wb, c, co);
    while (q->n && (sim_time)q->ready[q->head] * SIM_SEC <= now) {
        install(wb, c, co, q->pub[q->head], now);
        q->head = (uint8_t)((q->head + 1) % WEB_APPLY_SLOTS);
        q->n--;
    }
}

/* A check: on success the client fetches the latest publication (the
 * bytes from the newest one it fetched before) and installs it now, or
 * after its policy delay. */
void web__update_check(web *wb, web_client *c, web_cohort *co, gsl_rng *r,
                       sim_time now)
{
    if (co->cfg.update_fail_prob > 0 && gsl_rng_uniform(r) < co->cfg.update_fail_prob)
        return;
    const web_pki *p = wb->pki;
    if (!p->pub_available(p->ctx, co->us))
        return;
    uint32_t latest = p->pub_latest(p->ctx, co->us);
    wb->st.update_fetches++;
    sim_counter_add(wb->m.upd_fetch, c->cohort, 1);
    web_applyq *q = web__applyq(wb, c, co);
    size_t last = q && q->n ? (q->head + q->n - 1u) % WEB_APPLY_SLOTS : 0;
    uint32_t have = q && q->n ? q->pub[last] : c->pub;
    if (latest <= have)
        return;
    size_t b;
    if (wb->m.upd_part[0]) {
        /* the update's bytes by part: together its length */
        sim_update_parts pp;
        b = p->update_parts(p->ctx, co->us, have, latest, &pp);
        uint32_t v[WEB_UPD_PARTS] = {pp.framing, pp.subtree_hashes, pp.revocations,
                                     pp.ref_checkpoints, pp.cosignatures, pp.proofs,
                                     pp.group_versions};
        uint64_t sum = 0;
        for (int i = 0; i < WEB_UPD_PARTS; i++) {
            if (wb->m.upd_part[i])
                sim_counter_add(wb->m.upd_part[i], c->cohort, v[i]);
            sum += v[i];
        }
        if (wb->env.check_invariants &&
            (sum != b || b != p->update_bytes(p->ctx, co->us, have, latest)))
            wb->st.invariant_violations++;
    } else {
        b = p->update_bytes(p->ctx, co->us, have, latest);
    }
    wb->st.update_bytes += b;
    sim_counter_add(wb->m.upd_bytes, c->cohort, (int64_t)b);
    if (!q || q->delay <= 0) {
        install(wb, c, co, latest, now);
        return;
    }
    sim_time ready = web__add_sat(now, q->delay);
    sim_time rs = ready / SIM_SEC + (ready % SIM_SEC != 0);
    uint32_t rsec = rs > (sim_time)UINT32_MAX ? UINT32_MAX : (uint32_t)rs;
    /* A fetch within w = D/31 of the newest pending install's first
     * fetch joins it: that install then brings this publication, at this
     * fetch's ready time, so each publication comes at most w after its
     * own ready time and never before. Pending installs' first fetches
     * are at least w apart and within D + w of each other, so at most 32
     * wait (the queue's size); the check on n is defence only. */
    uint32_t w = (uint32_t)(q->delay / (WEB_APPLY_SLOTS - 1) / SIM_SEC);
    if (q->n && (rsec - q->anchor < w || q->n == WEB_APPLY_SLOTS)) {
        q->pub[last] = latest;
        q->ready[last] = rsec;
        wb->st.apply_merged++;
        sim_counter_add(wb->m.merged, c->cohort, 1);
        return;
    }
    q->anchor = rsec;
    size_t i = (q->head + q->n) % WEB_APPLY_SLOTS;
    q->pub[i] = latest;
    q->ready[i] = rsec;
    q->n++;
}

/* When the first check of a client present at the start falls due, at a
 * random phase of update_interval: the client has been running its
 * schedule since long before the run. The schedule is started eight mean
 * intervals back, a uniform fraction of one interval into it, and run
 * forward past now. For a constant interval the phase is exactly uniform
 * (no two clients in step); for an exponential one the checks after the
 * first form a Poisson process, as in steady state; for others the phase
 * approaches the steady state's (renewal theorem). */
sim_time web__random_phase_due(const web_cohort *co, gsl_rng *r, sim_time now)
{
    const sim_dist *d = co->cfg.update_interval;
    double mean = sim_dist_mean(d);
    double u = gsl_rng_uniform(r);
    double x = sim_dist_sample(d, r);
    double t = u * x;
    if (mean > 0 && isfinite(mean)) {
        double s = -8 * mean + u * x;
        for (int i = 0; s <= 0 && i < 256; i++)
            s += sim_dist_sample(d, r);
        if (s > 0)
            t = s;
    }
    return web__add_sat(now, sim_time_from_sec(t));
}

int web__update_metrics_create(web *wb)
{
    sim_metrics *m = wb->env.metrics;
    size_t nc = wb->ncohorts ? wb->ncohorts : 1;
    web_metrics *x = &wb->m;
    int rc = 0;
    rc |= sim_metrics_histogram(m, "landmark_age_at_handshake", "s", nc, 0, 1, 1e8, 20, &x->lm_age);
    rc |= sim_metrics_histogram(m, "landmark_time_to_holding", "s", nc, 0, 1, 1e8, 20, &x->lm_hold);
    rc |= sim_metrics_gauge(m, "clients_online", "clients", nc, SIM_METRIC_SERIES, &x->online);
    rc |= sim_metrics_gauge(m, "clients_lacking_latest_landmark", "clients", nc,
                            SIM_METRIC_SERIES, &x->lacking);
    rc |= sim_metrics_counter(m, "update_installs_merged", "installs", nc, 0, &x->merged);
    if (rc)
        return SIM_ERR_METRIC;
    sim_metric *cm[] = {x->lm_age, x->lm_hold, x->online, x->lacking, x->merged};
    return web__label_by_cohort(wb, cm, sizeof cm / sizeof cm[0]);
}

void web__sampler_start(web *wb)
{
    const sim_metrics_config *mc = sim_metrics_get_config(wb->env.metrics);
    if (mc->grid_step <= 0)
        return;
    sim_time now = sim_now(wb->env.engine), g = mc->grid_start;
    if (g < now)
        g += (now - g + mc->grid_step - 1) / mc->grid_step * mc->grid_step;
    wb->sample_step = mc->grid_step;
    sim_event_init(&wb->sample_ev, sample_event, wb);
    sim_prof_handler(sim_engine_prof(wb->env.engine), sample_event, SIM_PART_WEB);
    sim_schedule(wb->env.engine, &wb->sample_ev, g);
}

void web__update_destroy(web *wb)
{
    if (wb->lml)
        for (size_t us = 0; us < wb->nus; us++) {
            free(wb->lml[us].lm_pub);
            free(wb->lml[us].lm_time);
            free(wb->lml[us].nw);
        }
    free(wb->lml);
    wb->lml = NULL;
}
