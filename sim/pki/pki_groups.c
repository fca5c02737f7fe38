/*
 * pki_groups.c - the landmark group publisher of an update service
 * (group_cas): a timestamped multi-CA landmark group whose version k is
 * defined at sim time k * group_interval and holds, per member CA and
 * live log, the active landmarks the CA had allocated by then (draft "Use
 * in TLS", "Timestamped Landmark Groups": versions follow time, so that
 * every party derives them without coordination). Each version is also
 * encoded for real (mtc/lmgroup.h), which is what the web side's slow
 * check decodes and matches against.
 *
 * Also the ca_unreachable action: the update services cannot fetch from
 * a CA for a while (the partially up-to-date relying party of the draft).
 * Everything here is replayed identically on every MPI shard (the PKI
 * runs everywhere), so group versions are the same on all of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/lmgroup.h"
#include "pki_internal.h"

typedef struct pki_group {
    sim_lmgroup pub;            /* what sim_pki_us_group returns */
    pki_update *u;
    uint8_t *member;            /* per CA */
    size_t *order;              /* member CAs sorted by CA ID */
    size_t norder;
    sim_lmgroup_version *v;
    size_t nv, vcap;
    sim_lmgroup_entry *e;
    size_t ne, ecap;
    sim_event tick;
} pki_group;

static pki_state *g_ps(const pki_group *g) { return g->u->ps; }

/* Grows the entry table by n; MTC_ERR_NOMEM leaves it as it was. */
static int reserve(pki_group *g, size_t n)
{
    if (g->ne + n <= g->ecap)
        return MTC_OK;
    size_t cap = g->ecap ? g->ecap : 64;
    while (cap < g->ne + n)
        cap *= 2;
    sim_lmgroup_entry *e = realloc(g->e, cap * sizeof *e);
    if (!e)
        return MTC_ERR_NOMEM;
    g->e = e;
    g->ecap = cap;
    return MTC_OK;
}

/* Version k's contents from the CAs' own landmark sequences now, and its
 * encoding. A version with no landmark of any member is not made (there
 * is nothing a relying party could advertise with it). */
static int make_version(pki_group *g, uint64_t k, sim_time now)
{
    pki_state *ps = g_ps(g);
    size_t first = g->ne;
    if (reserve(g, g->norder * SIM_CA_MAX_LOGS) != MTC_OK)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < g->norder; i++) {
        const pki_ca *ca = &ps->ca[g->order[i]];
        /* logs oldest first = log numbers increasing, as the format sorts */
        for (size_t j = 0; j < ca->nlogs; j++) {
            const pki_log *l = ca->logs[j];
            uint64_t last = mtc_landmarks_last(l->lm);
            if (last == 0)
                continue;
            uint64_t ma = ca->max_active;
            sim_lmgroup_entry *e = &g->e[g->ne++];
            e->ca = (uint32_t)g->order[i];
            e->log_number = l->number;
            e->last = last;
            e->first = last > ma ? last - ma + 1 : 1;
        }
    }
    size_t n = g->ne - first;
    if (n == 0)
        return MTC_OK;
    if (g->nv == g->vcap) {
        size_t cap = g->vcap ? 2 * g->vcap : 64;
        sim_lmgroup_version *v = realloc(g->v, cap * sizeof *v);
        if (!v) {
            g->ne = first;
            return MTC_ERR_NOMEM;
        }
        g->v = v;
        g->vcap = cap;
    }
    mtc_lmgroup_member *m = calloc(n, sizeof *m);
    if (!m) {
        g->ne = first;
        return MTC_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const sim_lmgroup_entry *e = &g->e[first + i];
        m[i].ca_id = ps->ca[e->ca].info.ca_id;
        m[i].log_number = e->log_number;
        m[i].first_landmark = e->first;
        m[i].last_landmark = e->last;
    }
    mtc_lmgroup lg = {g->pub.id, k, (uint64_t)pki_unix(ps, now), n, m};
    size_t len = mtc_lmgroup_encoded_len(&lg);
    uint8_t *enc = len ? malloc(len) : NULL;
    int rc = enc ? mtc_lmgroup_encode(&lg, enc, len, &len) : MTC_ERR_NOMEM;
    free(m);
    if (rc != MTC_OK) {
        free(enc);
        g->ne = first;
        return rc;
    }
    sim_lmgroup_version *v = &g->v[g->nv++];
    v->number = k;
    v->time = now;
    v->first = first;
    v->n = n;
    v->enc = enc;
    v->enc_len = len;
    g->pub.nversions = g->nv;
    g->pub.v = g->v;
    g->pub.e = g->e;
    return MTC_OK;
}

static void tick_fire(sim_engine *sim, sim_event *ev)
{
    pki_group *g = ev->arg;
    sim_time step = g->u->cfg->group_interval;
    uint64_t k = (uint64_t)(sim_now(sim) / step);
    /* out of memory: this version is skipped; clients keep the last one */
    (void)make_version(g, k, sim_now(sim));
    sim_schedule_in(sim, &g->tick, step);
}

int pki_group_setup(pki_state *ps, pki_update *u, char *err, size_t errlen)
{
    const pki_update_config *c = u->cfg;
    if (c->group_cas.count == 0)
        return MTC_OK;
    pki_group *g = calloc(1, sizeof *g);
    if (!g)
        return MTC_ERR_NOMEM;
    u->group = g;
    g->u = u;
    g->member = calloc(ps->nca ? ps->nca : 1, 1);
    g->order = calloc(ps->nca ? ps->nca : 1, sizeof *g->order);
    if (!g->member || !g->order)
        return MTC_ERR_NOMEM;
    if (mtc_taid_from_text(c->group_id, strlen(c->group_id), &g->pub.id) != MTC_OK) {
        snprintf(err, errlen, "update_service %s: group_id: '%s' is not a "
                              "dotted-decimal OID", c->name, c->group_id);
        return SIM_ERR_CONFIG;
    }
    for (size_t j = 0; j < c->group_cas.count; j++) {
        int idx = sim_world_find(ps->w, "ca", c->group_cas.item[j]);
        if (idx < 0 || !u->serves[idx]) {
            snprintf(err, errlen, "update_service %s: group_cas: '%s' is no "
                                  "CA it distributes", c->name, c->group_cas.item[j]);
            return SIM_ERR_CONFIG;
        }
        g->member[idx] = 1;
    }
    /* members in the format's order (CA IDs as MTCProof orders them); the
     * group's ID must lie in no member's arc nor hold one */
    for (size_t ci = 0; ci < ps->nca; ci++) {
        if (!g->member[ci])
            continue;
        const mtc_taid *id = &ps->ca[ci].info.ca_id;
        if (mtc_taid_in_arc(id, &g->pub.id) || mtc_taid_in_arc(&g->pub.id, id)) {
            snprintf(err, errlen, "update_service %s: group_id %s overlaps the "
                                  "arc of CA %s", c->name, c->group_id,
                     ps->ca[ci].cfg->name);
            return SIM_ERR_CONFIG;
        }
        size_t k = g->norder++;
        while (k > 0 && mtc_taid_cmp(&ps->ca[g->order[k - 1]].info.ca_id, id) > 0) {
            g->order[k] = g->order[k - 1];
            k--;
        }
        g->order[k] = ci;
    }
    g->pub.member = g->member;
    return MTC_OK;
}

int pki_group_start(pki_state *ps, pki_update *u)
{
    pki_group *g = u->group;
    if (!g)
        return MTC_OK;
    sim_event_init(&g->tick, tick_fire, g);
    sim_prof_handler(sim_engine_prof(ps->env->engine), tick_fire, SIM_PART_UPDATE);
    return sim_schedule_in(ps->env->engine, &g->tick, u->cfg->group_interval);
}

void pki_group_free(pki_update *u)
{
    pki_group *g = u ? u->group : NULL;
    if (!g)
        return;
    for (size_t i = 0; i < g->nv; i++)
        free(g->v[i].enc);
    free(g->v);
    free(g->e);
    free(g->member);
    free(g->order);
    free(g);
    u->group = NULL;
}

const sim_lmgroup *sim_pki_us_group(const sim_world *w, size_t us)
{
    pki_state *ps = pki_state_of(w);
    if (!ps || us >= ps->nus || !ps->us[us].group)
        return NULL;
    return &ps->us[us].group->pub;
}

/* ---- ca_unreachable ---- */

static void reachable_again(sim_engine *sim, void *arg)
{
    (void)sim;
    pki_ca *ca = arg;
    if (ca->unreachable > 0)
        ca->unreachable--;
}

int pki_ca_unreachable(pki_state *ps, size_t ca, double duration_s)
{
    if (ca >= ps->nca)
        return MTC_ERR_RANGE;
    sim_time at = sim_now(ps->env->engine) + sim_time_from_sec(duration_s);
    ps->ca[ca].unreachable++;
    return sim_call_at(ps->env->engine, at, reachable_again, &ps->ca[ca]);
}

void pki_group_versions_between(const pki_update *u, sim_time t0, sim_time t1, size_t *n,
                                size_t *bytes)
{
    *n = 0;
    *bytes = 0;
    const pki_group *g = u->group;
    for (size_t i = 0; g && i < g->nv; i++)
        if (g->v[i].time >= t0 && g->v[i].time < t1) {
            (*n)++;
            *bytes += g->v[i].enc_len;
        }
}
