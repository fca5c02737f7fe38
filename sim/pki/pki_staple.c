/*
 * pki_staple.c - the landmark staple a CA hands its sites (mtc/staple.h;
 * a what-if, not in the draft: docs/model.md "Learning from full
 * certificates").
 *
 * A CA with `staple = true` makes a new staple each time it allocates a
 * landmark: its log's reference checkpoint (the latest with quorum, which
 * the new landmark's size equals, since landmarks are allocated at the
 * checkpoint that reached quorum), the cosignatures on it, the landmarks
 * in the draft's publishing format, and every active landmark subtree with
 * a subtree consistency proof to the checkpoint, all made by mtc-core and
 * encoded. It is built in a PKI event, which every MPI shard replays
 * identically, so every shard holds the same staple bytes at the same
 * time. One staple per landmark interval: the cost is a few hundred
 * subtree proofs per landmark, nothing per handshake.
 */
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/staple.h"
#include "pki_internal.h"

struct pki_staple {
    sim_ca_staple pub;          /* what sim_pki_ca_staple returns */
    uint8_t *bytes;
};

static int cosig_cmp(const void *a, const void *b)
{
    return mtc_taid_cmp(&((const mtc_staple_cosig *)a)->cosigner_id,
                        &((const mtc_staple_cosig *)b)->cosigner_id);
}

/* The encoded staple of log l at its reference checkpoint into *out
 * (malloc'd), or an error (then nothing is allocated); only > 0: the
 * proof set of that landmark alone (its subtrees only). */
static int build(pki_ca *ca, pki_log *l, uint64_t only, uint8_t **out, size_t *len)
{
    const mtc_landmarks *lm = l->lm;
    uint64_t last = mtc_landmarks_last(lm), last_size;
    if (last == 0 || l->nref_sigs == 0 ||
        mtc_landmarks_size(lm, last, &last_size) != MTC_OK || last_size > l->ref_size)
        return MTC_ERR_RANGE;
    size_t tl;
    mtc_landmarks_format(lm, NULL, 0, &tl);
    uint64_t first = mtc_landmarks_first_kept(lm) + 1;
    size_t maxsub = 2 * (size_t)(last - first + 1);
    char *text = malloc(tl);
    mtc_staple_cosig *cs = calloc(l->nref_sigs, sizeof *cs);
    mtc_update_subtree *st = calloc(maxsub ? maxsub : 1, sizeof *st);
    mtc_hash *proofs = calloc(maxsub ? maxsub : 1, MTC_PROOF_MAX * sizeof *proofs);
    uint8_t *b = NULL;
    int rc = text && cs && st && proofs ? MTC_OK : MTC_ERR_NOMEM;
    if (rc == MTC_OK)
        rc = mtc_landmarks_format(lm, text, tl, &tl);
    for (size_t i = 0; i < l->nref_sigs && rc == MTC_OK; i++)
        if ((rc = pki_sig_ready(&l->ref_sigs[i])) == MTC_OK)
            cs[i] = (mtc_staple_cosig){l->ref_sigs[i].by->cos.id,
                                       {l->ref_sigs[i].bytes, l->ref_sigs[i].len}};
    if (rc == MTC_OK)
        qsort(cs, l->nref_sigs, sizeof *cs, cosig_cmp);
    mtc_node_source src;
    pki_log_source(l, &src);
    size_t n = 0;
    for (uint64_t k = only ? only : first; k <= (only ? only : last) && rc == MTC_OK; k++) {
        mtc_subtree s[2];
        rc = mtc_landmarks_subtrees(lm, k, &s[0], &s[1]);
        for (int j = 0; j < 2 && rc == MTC_OK; j++) {
            if (s[j].start == s[j].end)
                continue;
            mtc_update_subtree *u = &st[n];
            mtc_hash *p = proofs + n * MTC_PROOF_MAX;
            u->start = s[j].start;
            u->end = s[j].end;
            rc = mtc_subtree_hash(&src, u->start, u->end, &u->hash);
            if (rc == MTC_OK)
                rc = mtc_subtree_consistency_proof(&src, u->start, u->end, l->ref_size,
                                                   p, &u->n_consistency);
            u->consistency = p;
            n++;
        }
    }
    mtc_staple sp = {ca->info.ca_id, l->number, {(const uint8_t *)text, tl},
                     (uint64_t)l->ref_ts, l->ref_size, l->ref_root,
                     cs, l->nref_sigs, st, n};
    if (rc == MTC_OK && mtc_staple_encode(&sp, NULL, 0, len) != MTC_ERR_LIMIT)
        rc = MTC_ERR_ARG;
    if (rc == MTC_OK && !(b = malloc(*len)))
        rc = MTC_ERR_NOMEM;
    if (rc == MTC_OK)
        rc = mtc_staple_encode(&sp, b, *len, len);
    free(text);
    free(cs);
    free(st);
    free(proofs);
    if (rc != MTC_OK) {
        free(b);
        return rc;
    }
    *out = b;
    return MTC_OK;
}

int pki_staple_refresh(pki_ca *ca, pki_log *l)
{
    uint8_t *b;
    size_t len;
    int rc = build(ca, l, 0, &b, &len);
    if (rc == MTC_ERR_RANGE)
        return MTC_OK; /* nothing to staple yet: the next landmark will */
    if (rc == MTC_ERR_PRUNED)
        return MTC_OK; /* keep the previous staple (see docs/model.md) */
    if (rc != MTC_OK)
        return rc;
    if (!ca->staple && !(ca->staple = calloc(1, sizeof *ca->staple))) {
        free(b);
        return MTC_ERR_NOMEM;
    }
    struct pki_staple *s = ca->staple;
    free(s->bytes);
    s->bytes = b;
    s->pub.bytes = b;
    s->pub.len = len;
    s->pub.seq++;
    s->pub.log_number = l->number;
    s->pub.last_landmark = mtc_landmarks_last(l->lm);
    s->pub.max_active = ca->max_active;
    return MTC_OK;
}

/* ---- Landmark Distribution Points (draft-gray-plants-mtc-ldp) -------------------- */

/* A CA with `ldp` serves, per active landmark, the proof set it made when
 * the landmark was allocated: the landmark's subtrees with their
 * consistency proofs to that (cosigned) checkpoint. Made once, when the
 * subtrees' entries are all in the tree (a staple of every active
 * landmark can no longer be made once the oldest ones are pruned), and
 * kept for the landmark's active life. */
typedef struct pki_ldp_set {
    sim_ca_proof_set pub;
    uint8_t *bytes;
} pki_ldp_set;

struct pki_ldp {
    pki_ldp_set *set;        /* ring of cap, newest at (head + n - 1) */
    size_t cap, head, n;
};

int pki_ldp_refresh(pki_ca *ca, pki_log *l)
{
    uint64_t last = mtc_landmarks_last(l->lm);
    uint8_t *b;
    size_t len;
    int rc = build(ca, l, last, &b, &len);
    if (rc == MTC_ERR_RANGE || rc == MTC_ERR_PRUNED)
        return MTC_OK; /* no quorum on it yet: that landmark is not served */
    if (rc != MTC_OK)
        return rc;
    struct pki_ldp *r = ca->ldp;
    if (!r) {
        size_t cap = (size_t)ca->max_active + 2;
        r = calloc(1, sizeof *r);
        if (r && !(r->set = calloc(cap, sizeof *r->set))) {
            free(r);
            r = NULL;
        }
        if (!r) {
            free(b);
            return MTC_ERR_NOMEM;
        }
        r->cap = cap;
        ca->ldp = r;
    }
    if (r->n == r->cap) { /* the oldest is no longer active */
        free(r->set[r->head].bytes);
        r->head = (r->head + 1) % r->cap;
        r->n--;
    }
    pki_ldp_set *e = &r->set[(r->head + r->n++) % r->cap];
    e->bytes = b;
    e->pub = (sim_ca_proof_set){b, len, l->number, last};
    return MTC_OK;
}

const sim_ca_proof_set *sim_pki_ca_proof_set(const sim_world *w, size_t ca,
                                               uint64_t log_number, uint64_t landmark)
{
    pki_state *ps = pki_state_of(w);
    if (!ps || ca >= ps->nca || !ps->ca[ca].ldp)
        return NULL;
    const struct pki_ldp *r = ps->ca[ca].ldp;
    for (size_t i = 0; i < r->n; i++) {
        const pki_ldp_set *e = &r->set[(r->head + i) % r->cap];
        if (e->pub.log_number == log_number && e->pub.landmark == landmark)
            return &e->pub;
    }
    return NULL;
}

void pki_staple_free(pki_ca *ca)
{
    if (ca->ldp) {
        for (size_t i = 0; i < ca->ldp->n; i++)
            free(ca->ldp->set[(ca->ldp->head + i) % ca->ldp->cap].bytes);
        free(ca->ldp->set);
        free(ca->ldp);
        ca->ldp = NULL;
    }
    if (ca->staple)
        free(ca->staple->bytes);
    free(ca->staple);
    ca->staple = NULL;
}

const sim_ca_staple *sim_pki_ca_staple(const sim_world *w, size_t ca)
{
    pki_state *ps = pki_state_of(w);
    if (!ps || ca >= ps->nca || !ps->ca[ca].staple)
        return NULL;
    return &ps->ca[ca].staple->pub;
}
