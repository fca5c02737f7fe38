/*
 * pki_update.c - the update service: fetches CA landmarks, verifies them,
 * publishes numbered updates; relying-party views and update encodings.
 *
 * Every fetch_interval the service looks at each CA it serves. For every
 * landmark allocated since its last fetch it checks, as the draft's
 * "Trusted Subtrees" section requires, that the landmark subtrees are
 * consistent with a checkpoint a sufficient set of cosigners has signed:
 * it verifies the cosignatures on the CA's reference checkpoint (the
 * latest with quorum) with the cosigners' real keys, and for each new
 * subtree a real subtree consistency proof against that checkpoint's root.
 * It also takes the CA's new revocations and its minSerial. Each change
 * makes a new *version* of the CA's relying-party state (an immutable
 * mtc_rp_ca shared by every client holding it); a publication, after
 * publication_delay, makes the versions current at the fetch fetchable.
 *
 * A client's state is one integer (the publication it holds), so the
 * bytes of an update from publication a to b are a function of (a, b):
 * the length of the real encoding below, memoized.
 *
 *   Update     = uint32 from || uint32 to || CAUpdate cas<0..2^32-1>
 *   CAUpdate   = opaque ca_id<1..255> || uint64 min_serial ||
 *                LogUpdate logs<0..2^16-1> || Range revoked<0..2^32-1> ||
 *                [with include_proofs] Ref refs<0..2^32-1> ||
 *                                      Proof proofs<0..2^32-1>
 *   LogUpdate  = uint16 log || uint64 first_active || uint64 last ||
 *                Subtree new<0..2^32-1>
 *   Subtree    = uint64 landmark || uint48 start || uint48 end || hash[32]
 *   Range      = uint64 first || uint64 last
 *   Ref        = uint16 log || uint64 size || uint64 timestamp || hash[32] ||
 *                (opaque id<1..255> || opaque sig<0..2^16-1>) sigs<0..2^32-1>
 *   Proof      = uint16 log || uint48 start || uint48 end || uint32 ref ||
 *                HashValue proof<0..2^16-1>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "mtc/error.h"
#include "pki.h"

/* ---- a growable byte writer ---- */

typedef struct bw {
    uint8_t *p;
    size_t len, cap;
    int oom;
} bw;

static void bw_put(bw *w, const void *d, size_t n)
{
    if (w->oom)
        return;
    if (w->len + n > w->cap) {
        size_t nc = w->cap ? w->cap : 1024;
        while (nc < w->len + n)
            nc *= 2;
        uint8_t *q = realloc(w->p, nc);
        if (!q) {
            w->oom = 1;
            return;
        }
        w->p = q;
        w->cap = nc;
    }
    memcpy(w->p + w->len, d, n);
    w->len += n;
}

static void bw_uint(bw *w, uint64_t v, int bytes)
{
    uint8_t b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    bw_put(w, b, (size_t)bytes);
}

/* Reserves a length prefix of `bytes`; returns its offset. */
static size_t bw_open(bw *w, int bytes)
{
    size_t at = w->len;
    bw_uint(w, 0, bytes);
    return at;
}

static void bw_close(bw *w, size_t at, int bytes)
{
    if (w->oom)
        return;
    uint64_t n = w->len - at - (size_t)bytes;
    for (int i = 0; i < bytes; i++)
        w->p[at + i] = (uint8_t)(n >> (8 * (bytes - 1 - i)));
}

/* ---- versions ---- */

static pki_ca *CA(const pki_update *u, size_t i) { return &u->ps->ca[i]; }

static void version_free(pki_version *v)
{
    if (!v)
        return;
    mtc_rp_ca_free(v->rp);
    free(v->sub);
    free(v->rev);
    free(v->lm_new);
    free(v->ranges);
    for (size_t i = 0; i < v->nproofs; i++)
        free(v->proofs[i].hash);
    free(v->proofs);
    for (size_t i = 0; i < v->nrefs; i++)
        free(v->refs[i].sigs);
    free(v->refs);
    free(v);
}

static int tsub_cmp(const void *a, const void *b)
{
    const pki_tsub *x = a, *y = b;
    if (x->log != y->log)
        return x->log < y->log ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    /* landmark subtrees may share a start: the left subtree of a landmark
     * can begin inside the previous landmark's range */
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return 0;
}

/* Builds the public view and the real relying-party config of v. */
static int version_finish(pki_update *u, size_t ci, pki_version *v,
                          uint32_t number, uint32_t rev_version)
{
    pki_ca *ca = CA(u, ci);
    if (v->nsub)
        qsort(v->sub, v->nsub, sizeof *v->sub, tsub_cmp);
    mtc_rp_ca *rp = mtc_rp_ca_new(&ca->info.ca_id);
    if (!rp)
        return MTC_ERR_NOMEM;
    int rc = mtc_rp_ca_add_cosigner(rp, &ca->info.ca_id, ca->signer.alg,
                                    ca->signer.pk, ca->signer.pk_len);
    if (rc == MTC_OK)
        rc = mtc_rp_ca_add_policy(rp, 1, &ca->info.ca_id, 1);
    mtc_taid ids[PKI_MAX_SLOTS];
    for (size_t j = 0; j < ca->nslots && rc == MTC_OK; j++) {
        const pki_signer *s = &ca->slot[j].cos->signer;
        ids[j] = s->cos.id;
        rc = mtc_rp_ca_add_cosigner(rp, &s->cos.id, s->alg, s->pk, s->pk_len);
    }
    if (rc == MTC_OK && ca->quorum > 0)
        rc = mtc_rp_ca_add_policy(rp, ca->quorum, ids, ca->nslots);
    if (rc == MTC_OK && v->min_serial > 0)
        rc = mtc_rp_ca_revoke(rp, 0, v->min_serial - 1);
    for (size_t i = 0; i < v->nrev && rc == MTC_OK; i++)
        rc = mtc_rp_ca_revoke(rp, v->rev[i].first, v->rev[i].last);
    for (size_t i = 0; i < v->nsub && rc == MTC_OK; i++)
        rc = mtc_rp_ca_add_subtree(rp, v->sub[i].log, v->sub[i].start,
                                   v->sub[i].end, &v->sub[i].hash);
    if (rc != MTC_OK) {
        mtc_rp_ca_free(rp);
        return rc;
    }
    v->rp = rp;
    sim_ca_view *pv = &v->view;
    memset(pv, 0, sizeof *pv);
    pv->version = number;
    pv->rp = rp;
    /* logs newest first, with their last landmark */
    for (size_t i = v->nsub; i-- > 0;) {
        const pki_tsub *t = &v->sub[i];
        size_t k = 0;
        while (k < pv->nlogs && pv->log[k].log_number != t->log)
            k++;
        if (k == pv->nlogs) {
            if (pv->nlogs == SIM_CA_MAX_LOGS)
                continue;
            pv->log[k].log_number = t->log;
            pv->log[k].max_active = ca->max_active;
            pv->nlogs++;
        }
        if (t->landmark > pv->log[k].last_landmark)
            pv->log[k].last_landmark = t->landmark;
    }
    size_t nranges = v->nrev + (v->min_serial > 0);
    v->ranges = malloc((nranges ? nranges : 1) * sizeof *v->ranges);
    if (!v->ranges)
        return MTC_ERR_NOMEM;
    size_t r = 0;
    if (v->min_serial > 0)
        v->ranges[r++] = (sim_revoked_range){0, v->min_serial - 1};
    for (size_t i = 0; i < v->nrev; i++)
        v->ranges[r++] = (sim_revoked_range){v->rev[i].first, v->rev[i].last};
    pv->subtrees = v->sub;
    pv->nsubtrees = v->nsub;
    pv->revoked = v->ranges;
    pv->nrevoked = nranges;
    pv->rev_version = rev_version;
    pv->nrevocations = (uint32_t)v->nrev;
    pv->state_bytes = 32 * v->nsub + 16 * nranges + 16 * pv->nlogs;
    return MTC_OK;
}

static int version_push(pki_update *u, size_t ci, pki_version *v)
{
    if (u->nver[ci] == u->ver_cap[ci]) {
        size_t nc = u->ver_cap[ci] ? 2 * u->ver_cap[ci] : 16;
        pki_version **p = realloc(u->ver[ci], nc * sizeof *p);
        if (!p)
            return MTC_ERR_NOMEM;
        u->ver[ci] = p;
        u->ver_cap[ci] = nc;
    }
    u->ver[ci][u->nver[ci]++] = v;
    return MTC_OK;
}

static pki_version *ver_at(const pki_update *u, size_t ci, size_t k)
{
    return u->ver[ci][k];
}

static pki_version *ver_latest(const pki_update *u, size_t ci)
{
    return ver_at(u, ci, u->nver[ci] - 1);
}

/* A copy of prev's subtrees and revocations to start the next version. */
static pki_version *version_next(const pki_version *prev)
{
    pki_version *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->sub = malloc((prev->nsub + 2 * SIM_CA_MAX_LOGS + 1) * sizeof *v->sub);
    v->rev = malloc((prev->nrev + 1) * sizeof *v->rev);
    if (!v->sub || !v->rev) {
        version_free(v);
        return NULL;
    }
    if (prev->nsub)
        memcpy(v->sub, prev->sub, prev->nsub * sizeof *v->sub);
    v->nsub = prev->nsub;
    if (prev->nrev)
        memcpy(v->rev, prev->rev, prev->nrev * sizeof *v->rev);
    v->nrev = prev->nrev;
    v->min_serial = prev->min_serial;
    return v;
}

static int grow(void **p, size_t n, size_t add, size_t elem)
{
    void *q = realloc(*p, (n + add) * elem);
    if (!q)
        return MTC_ERR_NOMEM;
    *p = q;
    return MTC_OK;
}

/* Verifies the reference checkpoint's cosignatures: the CA's and at least
 * `quorum` external ones. */
static int verify_reference(const pki_ca *ca, const pki_log *l)
{
    int ca_ok = 0;
    unsigned ext = 0;
    for (size_t i = 0; i < l->nref_sigs; i++) {
        const pki_sig *s = &l->ref_sigs[i];
        int rc = mtc_cosig_verify(s->by->alg, s->by->pk, s->by->pk_len,
                                  &s->by->cos.id, &l->log_id, l->ref_ts, 0,
                                  l->ref_size, &l->ref_root, s->bytes, s->len);
        if (rc != MTC_OK)
            continue;
        if (s->by == &ca->signer)
            ca_ok = 1;
        else
            ext++;
    }
    return ca_ok && ext >= ca->quorum;
}

static int add_ref(pki_version *v, const pki_log *l, size_t *index)
{
    int rc = grow((void **)&v->refs, v->nrefs, 1, sizeof *v->refs);
    if (rc != MTC_OK)
        return rc;
    pki_refckpt *r = &v->refs[v->nrefs];
    memset(r, 0, sizeof *r);
    r->log = l->number;
    r->size = l->ref_size;
    r->ts = l->ref_ts;
    r->root = l->ref_root;
    bw w = {0};
    for (size_t i = 0; i < l->nref_sigs; i++) {
        const pki_sig *s = &l->ref_sigs[i];
        bw_uint(&w, s->by->cos.id.len, 1);
        bw_put(&w, s->by->cos.id.b, s->by->cos.id.len);
        bw_uint(&w, s->len, 2);
        bw_put(&w, s->bytes, s->len);
    }
    if (w.oom) {
        free(w.p);
        return MTC_ERR_NOMEM;
    }
    r->sigs = w.p;
    r->sigs_len = w.len;
    r->nsig = l->nref_sigs;
    *index = v->nrefs++;
    return MTC_OK;
}

/* Takes the new landmarks of log l into v; 1 when anything was added, 0
 * when nothing new, negative on error. Verification failures count and
 * leave the log's state unchanged (retried at the next fetch). */
static int take_landmarks(pki_update *u, size_t ci, size_t slot, pki_log *l,
                          pki_version *v)
{
    pki_ca *ca = CA(u, ci);
    pki_state *ps = u->ps;
    uint64_t last = mtc_landmarks_last(l->lm);
    uint64_t seen = u->seen_log[ci][slot] == l->number ? u->seen_last[ci][slot]
                                                        : 0;
    if (last <= seen)
        return 0;
    uint64_t first_active = mtc_landmarks_first_kept(l->lm) + 1;
    uint64_t from = seen + 1 > first_active ? seen + 1 : first_active;
    int checked = u->cfg->verify;
    size_t ref = 0;
    if (checked && !verify_reference(ca, l)) {
        sim_counter_add(ps->m.verify_failures, ci, 1);
        return 0;
    }
    if (u->cfg->include_proofs) {
        int rc = add_ref(v, l, &ref);
        if (rc != MTC_OK)
            return rc;
    }
    mtc_node_source src;
    mtc_tree_source(l->tree, &src);
    size_t nsub0 = v->nsub, nproofs0 = v->nproofs, nlm0 = v->nlm_new;
    for (uint64_t L = from; L <= last; L++) {
        mtc_subtree sub[2];
        int rc = mtc_landmarks_subtrees(l->lm, L, &sub[0], &sub[1]);
        if (rc != MTC_OK)
            return rc;
        for (int s = 0; s < 2; s++) {
            if (sub[s].end == sub[s].start)
                continue;
            mtc_hash h, proof[MTC_PROOF_MAX];
            size_t len = 0;
            rc = mtc_tree_subtree_hash(l->tree, sub[s].start, sub[s].end, &h);
            if (rc == MTC_OK && (checked || u->cfg->include_proofs))
                rc = mtc_subtree_consistency_proof(&src, sub[s].start,
                                                   sub[s].end, l->ref_size,
                                                   proof, &len);
            if (rc == MTC_OK && checked)
                rc = mtc_subtree_consistency_verify(sub[s].start, sub[s].end,
                                                    l->ref_size, &h,
                                                    &l->ref_root, proof, len);
            if (rc != MTC_OK) {
                /* none of this log's new subtrees: retried next fetch */
                sim_counter_add(ps->m.verify_failures, ci, 1);
                v->nsub = nsub0;
                for (size_t i = nproofs0; i < v->nproofs; i++)
                    free(v->proofs[i].hash);
                v->nproofs = nproofs0;
                v->nlm_new = nlm0;
                return 0;
            }
            if ((rc = grow((void **)&v->sub, v->nsub, 1, sizeof *v->sub)) !=
                MTC_OK)
                return rc;
            v->sub[v->nsub++] = (pki_tsub){l->number, L, sub[s].start,
                                           sub[s].end, h};
            if (u->cfg->include_proofs) {
                if ((rc = grow((void **)&v->proofs, v->nproofs, 1,
                               sizeof *v->proofs)) != MTC_OK)
                    return rc;
                pki_sproof *p = &v->proofs[v->nproofs];
                p->hash = malloc((len ? len : 1) * sizeof *p->hash);
                if (!p->hash)
                    return MTC_ERR_NOMEM;
                if (len)
                    memcpy(p->hash, proof, len * sizeof *proof);
                p->nhash = len;
                p->log = l->number;
                p->start = sub[s].start;
                p->end = sub[s].end;
                p->ref = ref;
                v->nproofs++;
            }
        }
        int rc2 = grow((void **)&v->lm_new, v->nlm_new, 1, sizeof *v->lm_new);
        if (rc2 != MTC_OK)
            return rc2;
        v->lm_new[v->nlm_new++] = l->lm_time[L % (ca->max_active + 1)];
    }
    u->seen_log[ci][slot] = l->number;
    u->seen_last[ci][slot] = last;
    return 1;
}

/* A new version of CA ci's state at this fetch, or NULL when unchanged. */
static int fetch_ca(pki_update *u, size_t ci, pki_version **out)
{
    pki_ca *ca = CA(u, ci);
    const pki_version *prev = ver_latest(u, ci);
    pki_version *v = version_next(prev);
    if (!v)
        return MTC_ERR_NOMEM;
    int changed = 0, rc = MTC_OK;
    /* The service's per-log state follows the CA's live logs by slot. */
    uint64_t old_log[SIM_CA_MAX_LOGS], old_last[SIM_CA_MAX_LOGS];
    memcpy(old_log, u->seen_log[ci], sizeof old_log);
    memcpy(old_last, u->seen_last[ci], sizeof old_last);
    for (size_t k = 0; k < SIM_CA_MAX_LOGS; k++) {
        u->seen_log[ci][k] = k < ca->nlogs ? ca->logs[k]->number : 0;
        u->seen_last[ci][k] = 0;
        for (size_t j = 0; j < SIM_CA_MAX_LOGS; j++)
            if (old_log[j] && old_log[j] == u->seen_log[ci][k])
                u->seen_last[ci][k] = old_last[j];
    }
    for (size_t k = 0; k < ca->nlogs; k++) {
        int r = take_landmarks(u, ci, k, ca->logs[k], v);
        if (r < 0) {
            rc = r;
            goto fail;
        }
        changed |= r;
    }
    /* Drop subtrees of landmarks no longer active, and of dead logs. */
    size_t keep = 0;
    for (size_t i = 0; i < v->nsub; i++) {
        pki_log *l = pki_ca_find_log(ca, v->sub[i].log);
        if (l && v->sub[i].landmark > mtc_landmarks_first_kept(l->lm))
            v->sub[keep++] = v->sub[i];
    }
    if (keep != v->nsub)
        changed = 1;
    v->nsub = keep;
    size_t r0 = u->seen_rev[ci];
    sim_time now = sim_now(u->ps->env->engine);
    while (u->seen_rev[ci] < ca->nrev && ca->rev[u->seen_rev[ci]].at <= now) {
        if ((rc = grow((void **)&v->rev, v->nrev, 1, sizeof *v->rev)) != MTC_OK)
            goto fail;
        v->rev[v->nrev++] = ca->rev[u->seen_rev[ci]++];
    }
    if (u->seen_rev[ci] != r0)
        changed = 1;
    if (ca->min_serial != v->min_serial) {
        v->min_serial = ca->min_serial;
        changed = 1;
    }
    if (!changed) {
        version_free(v);
        *out = NULL;
        return MTC_OK;
    }
    uint32_t rv = prev->view.rev_version +
                  (v->nrev != prev->nrev || v->min_serial != prev->min_serial);
    if ((rc = version_finish(u, ci, v, (uint32_t)u->nver[ci], rv)) != MTC_OK)
        goto fail;
    *out = v;
    return MTC_OK;
fail:
    version_free(v);
    return rc;
}

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
            const pki_version *v = ver_at(u, ci, k);
            for (size_t i = 0; i < v->nlm_new; i++)
                sim_hist_observe(ps->m.lm_pub_delay, ci,
                                 sim_time_to_sec(now - v->lm_new[i]));
            const pki_version *pv = ver_at(u, ci, k - 1);
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
                              (double)ver_at(u, ci, u->pub[p].version[ci])
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
        if (!u->serves[ci])
            continue;
        pki_version *v;
        if (fetch_ca(u, ci, &v) != MTC_OK || !v)
            continue;
        if (version_push(u, ci, v) != MTC_OK) {
            version_free(v);
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
            return MTC_ERR_CONFIG;
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
        int rc = version_finish(u, ci, v, 0, 0);
        if (rc == MTC_OK)
            rc = version_push(u, ci, v);
        if (rc != MTC_OK) {
            version_free(v);
            return rc;
        }
    }
    sim_stream_init(&u->stream, PKI_STREAM_UPDATE, u->index);
    sim_stream_init(&u->avail_stream, PKI_STREAM_UPD_AVAIL, u->index);
    return MTC_OK;
}

int pki_update_start(pki_state *ps, pki_update *u)
{
    sim_event_init(&u->fetch_ev, fetch_fire, u);
    sim_event_init(&u->fail_ev, ufail_fire, u);
    schedule_ufailure(u);
    return sim_schedule_in(ps->env->engine, &u->fetch_ev, u->cfg->fetch_interval);
}

void pki_update_free(pki_update *u)
{
    if (!u)
        return;
    size_t nca = u->ps ? u->ps->nca : 0;
    if (u->ver)
        for (size_t ci = 0; ci < nca; ci++) {
            for (size_t k = 0; k < u->nver[ci]; k++)
                version_free(ver_at(u, ci, k));
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
}

/* ---- update encoding ---- */

static int has_sub(const pki_version *v, const pki_tsub *t)
{
    size_t lo = 0, hi = v->nsub;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = tsub_cmp(&v->sub[mid], t);
        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static void encode_ca(pki_update *u, size_t ci, const pki_version *a,
                      const pki_version *b, uint32_t va, uint32_t vb, bw *w)
{
    pki_ca *ca = CA(u, ci);
    bw_uint(w, ca->info.ca_id.len, 1);
    bw_put(w, ca->info.ca_id.b, ca->info.ca_id.len);
    bw_uint(w, b->min_serial, 8);
    size_t logs = bw_open(w, 2);
    for (size_t k = 0; k < b->view.nlogs; k++) {
        uint64_t log = b->view.log[k].log_number;
        uint64_t last = b->view.log[k].last_landmark;
        uint64_t first = last >= ca->max_active ? last - ca->max_active + 1 : 1;
        bw_uint(w, log, 2);
        bw_uint(w, first, 8);
        bw_uint(w, last, 8);
        size_t subs = bw_open(w, 4);
        for (size_t i = 0; i < b->nsub; i++) {
            const pki_tsub *t = &b->sub[i];
            if (t->log != log || has_sub(a, t))
                continue;
            bw_uint(w, t->landmark, 8);
            bw_uint(w, t->start, 6);
            bw_uint(w, t->end, 6);
            bw_put(w, t->hash.b, MTC_HASH_LEN);
        }
        bw_close(w, subs, 4);
    }
    bw_close(w, logs, 2);
    size_t revs = bw_open(w, 4);
    for (size_t i = a->nrev; i < b->nrev; i++) {
        bw_uint(w, b->rev[i].first, 8);
        bw_uint(w, b->rev[i].last, 8);
    }
    bw_close(w, revs, 4);
    if (!u->cfg->include_proofs)
        return;
    /* The references and proofs of every version in (va, vb] whose new
     * subtrees are still trusted in b. */
    size_t refs = bw_open(w, 4), nref = 0;
    for (uint32_t k = va + 1; k <= vb; k++) {
        const pki_version *v = ver_at(u, ci, k);
        for (size_t i = 0; i < v->nrefs; i++, nref++) {
            const pki_refckpt *r = &v->refs[i];
            bw_uint(w, r->log, 2);
            bw_uint(w, r->size, 8);
            bw_uint(w, r->ts, 8);
            bw_put(w, r->root.b, MTC_HASH_LEN);
            bw_uint(w, r->sigs_len, 4);
            bw_put(w, r->sigs, r->sigs_len);
        }
    }
    bw_close(w, refs, 4);
    size_t proofs = bw_open(w, 4);
    size_t base = 0;
    for (uint32_t k = va + 1; k <= vb; k++) {
        const pki_version *v = ver_at(u, ci, k);
        for (size_t i = 0; i < v->nproofs; i++) {
            const pki_sproof *p = &v->proofs[i];
            pki_tsub t = {p->log, 0, p->start, p->end, {{0}}};
            if (!has_sub(b, &t))
                continue;
            bw_uint(w, p->log, 2);
            bw_uint(w, p->start, 6);
            bw_uint(w, p->end, 6);
            bw_uint(w, base + p->ref, 4);
            bw_uint(w, p->nhash * MTC_HASH_LEN, 2);
            bw_put(w, p->hash, p->nhash * MTC_HASH_LEN);
        }
        base += v->nrefs;
    }
    bw_close(w, proofs, 4);
}

static size_t encode_update(pki_update *u, uint32_t from, uint32_t to)
{
    bw w = {0};
    bw_uint(&w, from, 4);
    bw_uint(&w, to, 4);
    size_t cas = bw_open(&w, 4);
    for (size_t ci = 0; ci < u->ps->nca; ci++) {
        uint32_t va = u->pub[from].version[ci], vb = u->pub[to].version[ci];
        if (!u->serves[ci] || va == vb)
            continue;
        encode_ca(u, ci, ver_at(u, ci, va), ver_at(u, ci, vb), va, vb, &w);
    }
    bw_close(&w, cas, 4);
    size_t len = w.oom ? 0 : w.len;
    free(w.p);
    return len;
}

static size_t slot_of(uint64_t key, size_t cap)
{
    return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (cap - 1);
}

#define UCACHE_MAX ((size_t)1 << 22)

size_t pki_update_bytes(pki_update *u, uint32_t from, uint32_t to)
{
    if (from >= to || to >= u->npub)
        return 0;
    uint64_t key = (uint64_t)from << 32 | to; /* never 0: to > from */
    if (2 * (u->cache_n + 1) > u->cache_cap) {
        size_t nc = u->cache_cap ? 2 * u->cache_cap : 1024;
        pki_ucache *c = calloc(nc <= UCACHE_MAX ? nc : u->cache_cap, sizeof *c);
        if (!c)
            return encode_update(u, from, to);
        if (nc <= UCACHE_MAX) { /* rehash */
            for (size_t i = 0; i < u->cache_cap; i++) {
                if (!u->cache[i].key)
                    continue;
                size_t h = slot_of(u->cache[i].key, nc);
                while (c[h].key)
                    h = (h + 1) & (nc - 1);
                c[h] = u->cache[i];
            }
            u->cache_cap = nc;
        } else { /* full at its cap: start over */
            u->cache_n = 0;
        }
        free(u->cache);
        u->cache = c;
    }
    size_t h = slot_of(key, u->cache_cap);
    while (u->cache[h].key) {
        if (u->cache[h].key == key)
            return u->cache[h].bytes;
        h = (h + 1) & (u->cache_cap - 1);
    }
    size_t bytes = encode_update(u, from, to);
    u->cache[h].key = key;
    u->cache[h].bytes = bytes;
    u->cache_n++;
    return bytes;
}

/* ---- public queries (sim/world.h) ---- */

static pki_update *US(const sim_world *w, size_t us)
{
    pki_state *ps = pki_state_of(w);
    return ps && us < ps->nus ? &ps->us[us] : NULL;
}

uint32_t sim_world_pub_latest(const sim_world *w, size_t us)
{
    pki_update *u = US(w, us);
    return u ? (uint32_t)(u->npub - 1) : 0;
}

int sim_world_pub_available(const sim_world *w, size_t us)
{
    pki_update *u = US(w, us);
    return u ? up(u) : 0;
}

sim_time sim_world_pub_time(const sim_world *w, size_t us, uint32_t pub)
{
    pki_update *u = US(w, us);
    return u && pub < u->npub ? u->pub[pub].time : 0;
}

const sim_ca_view *sim_world_pub_view(const sim_world *w, size_t us,
                                      uint32_t pub, size_t ca)
{
    pki_update *u = US(w, us);
    if (!u || pub >= u->npub || ca >= u->ps->nca)
        return NULL;
    return &ver_at(u, ca, u->pub[pub].version[ca])->view;
}

size_t sim_world_update_bytes(sim_world *w, size_t us, uint32_t from,
                              uint32_t to)
{
    pki_update *u = US(w, us);
    return u ? pki_update_bytes(u, from, to) : 0;
}
