/*
 * pki_update.c - the update service's life: the fetch timer, publications
 * (after publication_delay, in order, held while the service is down),
 * outages, setup, and the world's queries on publications. A fetch's work
 * is in pki_update_version.c, update bytes in pki_update_encode.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "mtc/error.h"
#include "pki_internal.h"
#include "pki_update_internal.h"

/* ---- publications ---- */

static int up(const pki_update *u) { return !u->manual_down && !u->random_down; }

static void publish(pki_update *u, pki_pending_pub *pp)
{
    pki_state *ps = u->ps;
    size_t nca = ps->nca;
    if (u->npub == u->pub_cap) {
        size_t nc = 2 * u->pub_cap;
        pki_publication *p = realloc(u->pub, nc * sizeof *p);
        if (!p)
            return; /* out of memory: this publication is lost */
        u->pub = p;
        u->pub_cap = nc;
    }
    sim_time now = sim_now(ps->env->engine);
    const pki_publication *prev = &u->pub[u->npub - 1];
    for (size_t ci = 0; ci < nca; ci++)
        for (uint32_t k = prev->version[ci] + 1; k <= pp->version[ci]; k++) {
            const pki_version *v = pki__ver_at(u, ci, k);
            for (size_t i = 0; i < v->nlm_new; i++)
                sim_hist_observe(ps->m.lm_pub_delay, ci,
                                 sim_time_to_sec(now - v->lm_new[i]));
            const pki_version *pv = pki__ver_at(u, ci, k - 1);
            for (size_t i = pv->nrev; i < v->nrev; i++)
                sim_hist_observe(ps->m.rev_pub_delay, ci,
                                 sim_time_to_sec(now - v->rev[i].at));
        }
    u->pub[u->npub].time = now;
    u->pub[u->npub].version = pp->version;
    pp->version = NULL;
    u->npub++;
    uint32_t p = (uint32_t)(u->npub - 1);
    sim_hist_observe(ps->m.pub_bytes, 0, (double)pki_update_bytes(u, p - 1, p));
    sim_hist_observe(ps->m.snapshot_bytes, 0, (double)pki_update_bytes(u, 0, p));
    if (u->index == 0)
        for (size_t ci = 0; ci < nca; ci++)
            if (u->serves[ci])
                sim_gauge_set(ps->m.rp_state, ci,
                              (double)pki__ver_at(u, ci, u->pub[p].version[ci])
                                  ->view.state_bytes);
}

static void flush(pki_update *u)
{
    sim_time now = sim_now(u->ps->env->engine);
    while (u->pending && up(u) && !sim_event_pending(&u->pending->ev) &&
           u->pending->ev.time <= now) {
        pki_pending_pub *pp = u->pending;
        u->pending = pp->next;
        publish(u, pp);
        free(pp->version);
        free(pp);
    }
}

static void pub_fire(sim_engine *sim, sim_event *ev)
{
    (void)sim;
    pki_pending_pub *pp = ev->arg;
    (void)pp;
    flush(pp->us);
}

static void fetch_fire(sim_engine *sim, sim_event *ev)
{
    pki_update *u = ev->arg;
    pki_state *ps = u->ps;
    sim_schedule_in(sim, &u->fetch_ev, u->cfg->fetch_interval);
    if (!up(u))
        return;
    size_t nca = ps->nca;
    uint32_t *vers = malloc((nca ? nca : 1) * sizeof *vers);
    if (!vers)
        return;
    int any = 0;
    for (size_t ci = 0; ci < nca; ci++) {
        vers[ci] = (uint32_t)(u->nver[ci] - 1);
        if (!u->serves[ci] || ps->ca[ci].unreachable)
            continue;
        pki_version *v;
        if (pki__fetch_ca(u, ci, &v) != MTC_OK || !v)
            continue;
        if (pki__version_push(u, ci, v) != MTC_OK) {
            pki__version_free(v);
            continue;
        }
        vers[ci] = (uint32_t)(u->nver[ci] - 1);
        any = 1;
    }
    if (!any) {
        free(vers);
        return;
    }
    pki_pending_pub *pp = calloc(1, sizeof *pp);
    if (!pp) {
        free(vers);
        return;
    }
    pp->us = u;
    pp->version = vers;
    pp->fetched = sim_now(sim);
    gsl_rng *r = sim_rng_use(ps->env->rng, &u->stream);
    sim_time at = sim_now(sim) +
                  sim_dist_sample_duration(u->cfg->publication_delay, r);
    if (at < u->last_pub_time)
        at = u->last_pub_time;
    u->last_pub_time = at;
    sim_event_init(&pp->ev, pub_fire, pp);
    pki_pending_pub **tail = &u->pending;
    while (*tail)
        tail = &(*tail)->next;
    *tail = pp;
    sim_schedule(sim, &pp->ev, at);
}

static void ufail_fire(sim_engine *sim, sim_event *ev);

static void schedule_ufailure(pki_update *u)
{
    if (u->cfg->mtbf <= 0)
        return;
    gsl_rng *r = sim_rng_use(u->ps->env->rng, &u->avail_stream);
    sim_time d = u->random_down
                     ? sim_dist_sample_duration(u->cfg->repair_time, r)
                     : sim_time_from_sec(
                           gsl_ran_exponential(r, sim_time_to_sec(u->cfg->mtbf)));
    sim_schedule_in(u->ps->env->engine, &u->fail_ev, d);
}

static void ufail_fire(sim_engine *sim, sim_event *ev)
{
    (void)sim;
    pki_update *u = ev->arg;
    u->random_down = !u->random_down;
    schedule_ufailure(u);
    flush(u);
}

void pki_update_set_manual(pki_update *u, int down)
{
    if (down)
        u->manual_down++;
    else if (u->manual_down > 0)
        u->manual_down--;
    flush(u);
}

int pki_update_set_fetch_interval(pki_update *u, sim_time v)
{
    u->cfg->fetch_interval = v;
    return sim_reschedule(u->ps->env->engine, &u->fetch_ev,
                          sim_now(u->ps->env->engine) + v);
}

/* ---- setup ---- */

int pki_update_setup(pki_state *ps, pki_update *u, char *err, size_t errlen)
{
    size_t nca = ps->nca ? ps->nca : 1;
    u->serves = calloc(nca, sizeof *u->serves);
    u->ver = calloc(nca, sizeof *u->ver);
    u->nver = calloc(nca, sizeof *u->nver);
    u->ver_cap = calloc(nca, sizeof *u->ver_cap);
    u->seen_last = calloc(nca, sizeof *u->seen_last);
    u->seen_log = calloc(nca, sizeof *u->seen_log);
    u->seen_rev = calloc(nca, sizeof *u->seen_rev);
    u->pub = calloc(16, sizeof *u->pub);
    u->pub_cap = 16;
    if (!u->serves || !u->ver || !u->nver || !u->ver_cap || !u->seen_last ||
        !u->seen_log || !u->seen_rev || !u->pub)
        return MTC_ERR_NOMEM;
    if (u->cfg->cas.count == 0)
        for (size_t i = 0; i < ps->nca; i++)
            u->serves[i] = 1;
    for (size_t j = 0; j < u->cfg->cas.count; j++) {
        int idx = sim_world_find(ps->w, "ca", u->cfg->cas.item[j]);
        if (idx < 0) {
            snprintf(err, errlen, "update_service %s: cas: no CA named '%s'",
                     u->cfg->name, u->cfg->cas.item[j]);
            return SIM_ERR_CONFIG;
        }
        u->serves[idx] = 1;
    }
    /* Publication 0: what clients ship with. */
    u->pub[0].time = 0;
    u->pub[0].version = calloc(nca, sizeof *u->pub[0].version);
    if (!u->pub[0].version)
        return MTC_ERR_NOMEM;
    u->npub = 1;
    for (size_t ci = 0; ci < ps->nca; ci++) {
        pki_version *v = calloc(1, sizeof *v);
        if (!v)
            return MTC_ERR_NOMEM;
        v->min_serial = mtc_serial(1, 0);
        int rc = pki__version_finish(u, ci, v, 0, 0);
        if (rc == MTC_OK)
            rc = pki__version_push(u, ci, v);
        if (rc != MTC_OK) {
            pki__version_free(v);
            return rc;
        }
    }
    sim_stream_init(&u->stream, PKI_STREAM_UPDATE, u->index);
    sim_stream_init(&u->avail_stream, PKI_STREAM_UPD_AVAIL, u->index);
    return pki_group_setup(ps, u, err, errlen);
}

int pki_update_start(pki_state *ps, pki_update *u)
{
    sim_event_init(&u->fetch_ev, fetch_fire, u);
    sim_event_init(&u->fail_ev, ufail_fire, u);
    sim_prof *pf = sim_engine_prof(ps->env->engine);
    sim_prof_handler(pf, fetch_fire, SIM_PART_UPDATE);
    sim_prof_handler(pf, ufail_fire, SIM_PART_UPDATE);
    sim_prof_handler(pf, pub_fire, SIM_PART_UPDATE);
    schedule_ufailure(u);
    int rc = pki_group_start(ps, u);
    return rc != MTC_OK ? rc
                        : sim_schedule_in(ps->env->engine, &u->fetch_ev,
                                          u->cfg->fetch_interval);
}

void pki_update_free(pki_update *u)
{
    if (!u)
        return;
    size_t nca = u->ps ? u->ps->nca : 0;
    if (u->ver)
        for (size_t ci = 0; ci < nca; ci++) {
            for (size_t k = 0; k < u->nver[ci]; k++)
                pki__version_free(pki__ver_at(u, ci, k));
            free(u->ver[ci]);
        }
    pki_pending_pub *pp = u->pending;
    while (pp) {
        pki_pending_pub *n = pp->next;
        free(pp->version);
        free(pp);
        pp = n;
    }
    if (u->pub)
        for (size_t i = 0; i < u->npub; i++)
            free(u->pub[i].version);
    free(u->pub);
    free(u->serves);
    free(u->ver);
    free(u->nver);
    free(u->ver_cap);
    free(u->seen_last);
    free(u->seen_log);
    free(u->seen_rev);
    free(u->cache);
    pki_group_free(u);
}

/* ---- public queries (sim/world.h) ---- */

static pki_update *US(const sim_world *w, size_t us)
{
    pki_state *ps = pki_state_of(w);
    return ps && us < ps->nus ? &ps->us[us] : NULL;
}

uint32_t sim_pki_pub_latest(const sim_world *w, size_t us)
{
    pki_update *u = US(w, us);
    return u ? (uint32_t)(u->npub - 1) : 0;
}

int sim_pki_pub_available(const sim_world *w, size_t us)
{
    pki_update *u = US(w, us);
    return u ? up(u) : 0;
}

sim_time sim_pki_pub_time(const sim_world *w, size_t us, uint32_t pub)
{
    pki_update *u = US(w, us);
    return u && pub < u->npub ? u->pub[pub].time : 0;
}

const sim_ca_view *sim_pki_pub_view(const sim_world *w, size_t us,
                                      uint32_t pub, size_t ca)
{
    pki_update *u = US(w, us);
    if (!u || pub >= u->npub || ca >= u->ps->nca)
        return NULL;
    return &pki__ver_at(u, ca, u->pub[pub].version[ca])->view;
}

size_t sim_pki_update_parts(sim_world *w, size_t us, uint32_t from, uint32_t to,
                              sim_update_parts *out)
{
    pki_update *u = US(w, us);
    if (!u) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    return pki_update_parts(u, from, to, out);
}

size_t sim_pki_update_bytes(sim_world *w, size_t us, uint32_t from,
                              uint32_t to)
{
    pki_update *u = US(w, us);
    return u ? pki_update_bytes(u, from, to) : 0;
}
