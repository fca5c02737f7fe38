/*
 * pki_ca_landmark.c - certificates and landmarks: a certificate built from
 * an inclusion proof and delivered (standalone or landmark), a landmark's
 * allocation with its certificates and delays, and the notices that a
 * failed log's entries will get no landmark. Shared by the checkpoint job.
 */
#include <string.h>

#include "mtc/error.h"
#include "pki_internal.h"
#include "pki_ca_internal.h"

static pki_state *PS(const pki_ca *ca) { return ca->ps; }
static sim_engine *ENG(const pki_ca *ca) { return ca->ps->env->engine; }
static sim_time NOW(const pki_ca *ca) { return sim_now(ENG(ca)); }

/* ---- certificates ---------------------------------------------------------- */

static void deliver(pki_ca *ca, pki_site_req *s, int kind, uint64_t landmark,
                    const uint8_t *der, size_t der_len, size_t proof_len)
{
    if (!s->cb)
        return;
    sim_cert_event ev = {kind, ca->index, s->ticket, s->log_number, s->index,
                         mtc_serial(s->log_number, s->index), landmark,
                         s->requested, NOW(ca), s->not_before, s->not_after,
                         der, der_len, proof_len};
    s->cb(s->cb_ctx, &ev);
}

/* Inclusion proof of entry i in subtree sub of log l into st/p. */
int pki__fill_inclusion(pki_log *l, uint64_t i, mtc_subtree sub,
                        mtc_proof_storage *st, mtc_proof *p)
{
    memset(p, 0, sizeof *p);
    mtc_node_source src;
    pki_log_source(l, &src);
    mtc_hash tmp[MTC_PROOF_MAX];
    size_t n;
    int rc = mtc_inclusion_proof(&src, i, sub.start, sub.end, tmp, &n);
    if (rc != MTC_OK)
        return rc;
    if (n > MTC_PROOF_MAX_HASHES)
        return MTC_ERR_LIMIT;
    memcpy(st->inclusion, tmp, n * sizeof tmp[0]);
    p->start = sub.start;
    p->end = sub.end;
    p->inclusion = st->inclusion;
    p->n_inclusion = n;
    return MTC_OK;
}

/* Builds and delivers a certificate for site s with proof p. */
int pki__build_cert(pki_ca *ca, pki_site_req *s, mtc_proof *p, int kind,
                    uint64_t landmark)
{
    pki_state *ps = PS(ca);
    mtc_tbs_entry e;
    int rc = pki__site_entry(ca, s, &e);
    if (rc != MTC_OK)
        return rc;
    size_t len;
    rc = mtc_cert_build(&e, s->spki, s->spki_len,
                        mtc_serial(s->log_number, s->index), p, ps->certbuf,
                        sizeof ps->certbuf, &len);
    if (rc != MTC_OK)
        return rc;
    size_t plen = mtc_proof_len(p);
    if (kind == SIM_CERT_STANDALONE)
        sim_hist_observe(ps->m.proof_bytes, ca->index, (double)plen);
    /* The callback may issue (and so rebuild entries in ps->scratch) but
     * never re-enters here, so certbuf stays ours until it returns. */
    deliver(ca, s, kind, landmark, ps->certbuf, len, plen);
    return MTC_OK;
}

/* ---- landmarks ---------------------------------------------------------- */

void pki__landmark_never(pki_ca *ca, pki_log *l, uint64_t from)
{
    for (size_t k = pki__site_lower(l, from); k < l->nsite; k++) {
        pki_site_req *s = l->site[k];
        if (s->index >= l->ckpt_size)
            break;
        if (!s->standalone_done || s->landmark_done)
            continue;
        s->landmark_done = 1;
        sim_counter_add(PS(ca)->m.lm_never, ca->index, 1);
        deliver(ca, s, SIM_CERT_LANDMARK_NEVER, 0, NULL, 0, 0);
    }
}

int pki__landmark_added(pki_ca *ca, pki_log *l)
{
    pki_state *ps = PS(ca);
    uint64_t L = mtc_landmarks_last(l->lm), size, prev;
    int rc = mtc_landmarks_size(l->lm, L, &size);
    if (rc == MTC_OK)
        rc = mtc_landmarks_size(l->lm, L - 1, &prev);
    if (rc != MTC_OK)
        return rc;
    mtc_subtree sub[2];
    if ((rc = mtc_landmarks_subtrees(l->lm, L, &sub[0], &sub[1])) != MTC_OK)
        return rc;
    sim_counter_add(ps->m.landmarks, ca->index, 1);
    l->lm_time[L % (ca->max_active + 1)] = NOW(ca);
    for (int s = 0; s < 2; s++)
        if (sub[s].end > sub[s].start)
            sim_hist_observe(ps->m.lm_subtree_size, ca->index,
                             (double)(sub[s].end - sub[s].start));
    sim_time now = NOW(ca);
    for (uint64_t i = prev > l->arr_base ? prev : l->arr_base; i < size; i++)
        sim_hist_observe(ps->m.delay_landmark, ca->index,
                         sim_time_to_sec(now - pki__arr_get(l, i)));
    pki__arr_drop(l, size);
    for (size_t k = pki__site_lower(l, prev); k < l->nsite; k++) {
        pki_site_req *s = l->site[k];
        if (s->index >= size)
            break;
        if (s->landmark_done)
            continue;
        s->landmark_done = 1;
        mtc_proof_storage st;
        mtc_proof p;
        mtc_subtree cov = sub[s->index >= sub[0].start && s->index < sub[0].end ? 0 : 1];
        if ((rc = pki__fill_inclusion(l, s->index, cov, &st, &p)) != MTC_OK ||
            (rc = pki__build_cert(ca, s, &p, SIM_CERT_LANDMARK, L)) != MTC_OK)
            return rc;
    }
    l->lm_delivered = size;
    return MTC_OK;
}

uint64_t pki__lm_interval_number(const pki_ca *ca)
{
    return ca->lm_base_number +
           (uint64_t)((NOW(ca) - ca->lm_base_time) / ca->cfg->landmark_interval);
}
