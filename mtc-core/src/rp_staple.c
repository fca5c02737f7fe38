/*
 * rp_staple.c - a relying party takes a landmark staple (mtc/staple.h):
 * the staple is turned into the one-log update it is a special case of and
 * verified by mtc_rp_ca_apply_update, so a staple is held to exactly the
 * draft's "Trusted Subtrees" checks an update is held to; plus the deep
 * copy a simulator needs to apply a staple to a shared state.
 */
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/staple.h"
#include "rp_internal.h"

int mtc_rp_ca_apply_staple(mtc_rp_ca *rp, const mtc_staple *s,
                           mtc_update_result *res)
{
    mtc_update_cosig one, *cs = s->n_cosigs > 1 ? calloc(s->n_cosigs, sizeof *cs) : &one;
    if (!cs)
        return MTC_ERR_NOMEM;
    /* every cosignature is on the checkpoint itself: equal sizes and
     * roots, empty consistency proof */
    for (size_t i = 0; i < s->n_cosigs; i++)
        cs[i] = (mtc_update_cosig){s->cosigs[i].cosigner_id, s->timestamp,
                                   s->tree_size, s->root, s->cosigs[i].signature,
                                   NULL, 0};
    mtc_update_log lg = {s->log_number, s->landmarks, s->tree_size, s->root,
                         cs, s->n_cosigs, s->subtrees, s->n_subtrees};
    mtc_update u = {s->ca_id, &lg, 1};
    int rc = mtc_rp_ca_apply_update(rp, &u, res);
    if (cs != &one)
        free(cs);
    return rc;
}

int mtc_rp_ca_apply_proof_set(mtc_rp_ca *rp, const mtc_staple *s, uint64_t landmark,
                              mtc_update_result *res)
{
    mtc_update_cosig one, *cs = s->n_cosigs > 1 ? calloc(s->n_cosigs, sizeof *cs) : &one;
    if (!cs)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < s->n_cosigs; i++)
        cs[i] = (mtc_update_cosig){s->cosigs[i].cosigner_id, s->timestamp,
                                   s->tree_size, s->root, s->cosigs[i].signature,
                                   NULL, 0};
    mtc_update_log lg = {s->log_number, s->landmarks, s->tree_size, s->root,
                         cs, s->n_cosigs, s->subtrees, s->n_subtrees};
    int rc = mtc__rp_apply_landmark(rp, &s->ca_id, &lg, landmark, res);
    if (cs != &one)
        free(cs);
    return rc;
}

int mtc_staple_landmark(const mtc_staple *s, const mtc_landmarks *lm, uint64_t landmark,
                        mtc_staple *out, mtc_update_subtree subs[2])
{
    mtc_subtree t[2];
    if (landmark == 0 || landmark <= mtc_landmarks_first_kept(lm) ||
        landmark > mtc_landmarks_last(lm) ||
        mtc_landmarks_subtrees(lm, landmark, &t[0], &t[1]) != MTC_OK)
        return MTC_ERR_RANGE;
    size_t n = 0;
    for (int j = 0; j < 2; j++) {
        if (t[j].start == t[j].end)
            continue;
        size_t i = 0;
        while (i < s->n_subtrees &&
               !(s->subtrees[i].start == t[j].start && s->subtrees[i].end == t[j].end))
            i++;
        if (i == s->n_subtrees)
            return MTC_ERR_RANGE;
        subs[n++] = s->subtrees[i];
    }
    *out = *s;
    out->subtrees = subs;
    out->n_subtrees = n;
    return MTC_OK;
}

static void *dup(const void *p, size_t n)
{
    if (n == 0)
        return NULL;
    void *q = malloc(n);
    if (q)
        memcpy(q, p, n);
    return q;
}

mtc_rp_ca *mtc_rp_ca_clone(const mtc_rp_ca *rp)
{
    mtc_rp_ca *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ca_id = rp->ca_id;
    int ok = 1;
    c->cosigners = calloc(rp->n_cosigners + 1, sizeof *c->cosigners);
    c->groups = calloc(rp->n_groups + 1, sizeof *c->groups);
    ok &= c->cosigners && c->groups;
    for (size_t i = 0; ok && i < rp->n_cosigners; i++) {
        c->cosigners[i] = rp->cosigners[i];
        c->cosigners[i].pk = dup(rp->cosigners[i].pk, rp->cosigners[i].pk_len);
        c->n_cosigners++;
        ok &= rp->cosigners[i].pk_len == 0 || c->cosigners[i].pk != NULL;
    }
    for (size_t i = 0; ok && i < rp->n_groups; i++) {
        c->groups[i] = rp->groups[i];
        c->groups[i].members =
            dup(rp->groups[i].members, rp->groups[i].n * sizeof(size_t));
        c->n_groups++;
        ok &= rp->groups[i].n == 0 || c->groups[i].members != NULL;
    }
    if (ok) {
        c->subtrees = dup(rp->subtrees, rp->n_subtrees * sizeof *rp->subtrees);
        c->n_subtrees = c->cap_subtrees = rp->n_subtrees;
        c->revoked = dup(rp->revoked, rp->n_revoked * sizeof *rp->revoked);
        c->n_revoked = rp->n_revoked;
        c->logs = dup(rp->logs, rp->n_logs * sizeof *rp->logs);
        c->n_logs = rp->n_logs;
        ok = (!rp->n_subtrees || c->subtrees) && (!rp->n_revoked || c->revoked) &&
             (!rp->n_logs || c->logs);
    }
    if (!ok) {
        mtc_rp_ca_free(c);
        return NULL;
    }
    return c;
}
