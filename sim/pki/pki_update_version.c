/*
 * pki_update_version.c - what the update service takes from a CA at a
 * fetch: verified landmark subtrees, revocations and minSerial, as a new
 * immutable version of the CA's relying-party state. Separate from the
 * service's timers and publications: this is the draft's verification.
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
 */
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "pki_internal.h"
#include "pki_update_internal.h"

/* ---- versions ---- */

static pki_ca *CA(const pki_update *u, size_t i) { return &u->ps->ca[i]; }

void pki__version_free(pki_version *v)
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
    for (size_t i = 0; i < v->nrefs; i++) {
        free(v->refs[i].sigs);
        pki__bulk_free(&v->refs[i]);
    }
    free(v->refs);
    free(v);
}

int pki__tsub_cmp(const void *a, const void *b)
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
int pki__version_finish(pki_update *u, size_t ci, pki_version *v,
                        uint32_t number, uint32_t rev_version)
{
    pki_ca *ca = CA(u, ci);
    if (v->nsub)
        qsort(v->sub, v->nsub, sizeof *v->sub, pki__tsub_cmp);
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
    /* the revoked ranges, [0, minSerial) then the explicit ones: the
     * view's list, handed to the relying party in one piece (entry by
     * entry, each call grew its array by one: 10^5 revocations copied
     * it 10^5 times) */
    size_t nranges = v->nrev + (v->min_serial > 0);
    v->ranges = rc == MTC_OK ? malloc((nranges ? nranges : 1) * sizeof *v->ranges) : NULL;
    if (rc == MTC_OK && !v->ranges)
        rc = MTC_ERR_NOMEM;
    if (rc == MTC_OK) {
        size_t r = 0;
        if (v->min_serial > 0)
            v->ranges[r++] = (sim_revoked_range){0, v->min_serial - 1};
        for (size_t i = 0; i < v->nrev; i++)
            v->ranges[r++] = (sim_revoked_range){v->rev[i].first, v->rev[i].last};
        rc = mtc_rp_ca_revoke_ranges(rp, v->ranges, nranges);
    }
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
    pv->subtrees = v->sub;
    pv->nsubtrees = v->nsub;
    pv->revoked = v->ranges;
    pv->nrevoked = nranges;
    pv->rev_version = rev_version;
    pv->nrevocations = (uint32_t)v->nrev;
    pv->state_bytes = 32 * v->nsub + 16 * nranges + 16 * pv->nlogs;
    return MTC_OK;
}

int pki__version_push(pki_update *u, size_t ci, pki_version *v)
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

static pki_version *ver_latest(const pki_update *u, size_t ci)
{
    return pki__ver_at(u, ci, u->nver[ci] - 1);
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
        pki__version_free(v);
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
static int verify_reference(const pki_ca *ca, pki_log *l)
{
    int ca_ok = 0;
    unsigned ext = 0;
    sim_prof *pf = sim_engine_prof(ca->ps->env->engine);
    for (size_t i = 0; i < l->nref_sigs; i++) {
        pki_sig *s = &l->ref_sigs[i];
        if (pki_sig_ready(s) != MTC_OK)
            continue;
        int prev = sim_prof_enter(pf, SIM_PART_VERIFY);
        int rc = mtc_cosig_verify(s->by->alg, s->by->pk, s->by->pk_len,
                                  &s->by->cos.id, &l->log_id, l->ref_ts, 0,
                                  l->ref_size, &l->ref_root, s->bytes, s->len);
        sim_prof_leave(pf, prev);
        sim_prof_work(pf, SIM_WORK_VERIFICATIONS, 1);
        if (rc != MTC_OK)
            continue;
        if (s->by == &ca->signer)
            ca_ok = 1;
        else
            ext++;
    }
    return ca_ok && ext >= ca->quorum;
}

static int add_ref(pki_version *v, pki_log *l, size_t *index)
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
    pki_bw w = {0};
    for (size_t i = 0; i < l->nref_sigs; i++) {
        pki_sig *s = &l->ref_sigs[i];
        if (pki_sig_ready(s) != MTC_OK) {
            free(w.b);
            return MTC_ERR_NOMEM;
        }
        pki__bw_uint(&w, s->by->cos.id.len, 1);
        sim_bytebuf_put(&w, s->by->cos.id.b, s->by->cos.id.len);
        pki__bw_uint(&w, s->len, 2);
        sim_bytebuf_put(&w, s->bytes, s->len);
    }
    if (w.failed) {
        free(w.b);
        return MTC_ERR_NOMEM;
    }
    r->sigs = w.b;
    r->sigs_len = w.n;
    r->nsig = l->nref_sigs;
    *index = v->nrefs++;
    return MTC_OK;
}

/* Forgets what take_landmarks added to v past these counts. */
static void take_undo(pki_version *v, size_t nsub0, size_t nproofs0,
                      size_t nlm0)
{
    v->nsub = nsub0;
    for (size_t i = nproofs0; i < v->nproofs; i++)
        free(v->proofs[i].hash);
    v->nproofs = nproofs0;
    v->nlm_new = nlm0;
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
    /* Nothing cosigned to verify against yet: only a log that starts with
     * landmarks of its age (log_age) has landmarks before its first
     * reference checkpoint. */
    if (l->ref_size == 0)
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
    pki_log_source(l, &src);
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
            rc = pki_log_subtree_hash(l, sub[s].start, sub[s].end, &h);
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
                take_undo(v, nsub0, nproofs0, nlm0);
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
    if (u->cfg->include_proofs && u->cfg->proofs == PKI_PROOFS_BULK &&
        v->nproofs > nproofs0) {
        int rc = pki__bulk_take(v, ref, nproofs0, &src, l->ref_size,
                                &l->ref_root, checked);
        if (rc == MTC_ERR_NOMEM)
            return rc;
        if (rc != MTC_OK) { /* as a failed per-subtree proof above */
            sim_counter_add(ps->m.verify_failures, ci, 1);
            take_undo(v, nsub0, nproofs0, nlm0);
            return 0;
        }
    }
    u->seen_log[ci][slot] = l->number;
    u->seen_last[ci][slot] = last;
    return 1;
}

/* A new version of CA ci's state at this fetch, or NULL when unchanged. */
int pki__fetch_ca(pki_update *u, size_t ci, pki_version **out)
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
    /* the CA's revocations made since the last fetch, appended at once
     * (one by one, each grew the list by one: 10^5 of them copied it
     * 10^5 times) */
    size_t r0 = u->seen_rev[ci], r1 = r0;
    sim_time now = sim_now(u->ps->env->engine);
    while (r1 < ca->nrev && ca->rev[r1].at <= now)
        r1++;
    if (r1 != r0) {
        if ((rc = grow((void **)&v->rev, v->nrev, r1 - r0, sizeof *v->rev)) != MTC_OK)
            goto fail;
        memcpy(v->rev + v->nrev, ca->rev + r0, (r1 - r0) * sizeof *v->rev);
        v->nrev += r1 - r0;
        u->seen_rev[ci] = r1;
        changed = 1;
    }
    if (ca->min_serial != v->min_serial) {
        v->min_serial = ca->min_serial;
        changed = 1;
    }
    if (!changed) {
        pki__version_free(v);
        *out = NULL;
        return MTC_OK;
    }
    uint32_t rv = prev->view.rev_version +
                  (v->nrev != prev->nrev || v->min_serial != prev->min_serial);
    if ((rc = pki__version_finish(u, ci, v, (uint32_t)u->nver[ci], rv)) !=
        MTC_OK)
        goto fail;
    *out = v;
    return MTC_OK;
fail:
    pki__version_free(v);
    return rc;
}
