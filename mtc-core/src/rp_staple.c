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
