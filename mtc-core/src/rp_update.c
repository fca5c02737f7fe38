/*
 * rp_update.c - a relying party takes an update (mtc/update.h): the
 * draft's "Trusted Subtrees" checks, then an all-or-nothing swap of the
 * trusted subtrees of the logs it covers.
 *
 * Everything is verified against the relying party's own state (its
 * cosigner keys and policy, the CA ID, what earlier updates established)
 * and nothing in the update is believed on its word: landmark subtrees
 * are recomputed from the landmark sizes, every hash is tied to a
 * checkpoint by a proof, and the checkpoint to the cosigners by their
 * signatures. The update builds its new subtree table aside, so a
 * failure at the last log leaves the relying party as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "mtc/cosig.h"
#include "mtc/error.h"
#include "mtc/merkle.h"
#include "mtc/update.h"
#include "rp_internal.h"

static const char *const reason_names[MTC_UPDATE_REASON_COUNT] = {
    "ok", "malformed", "wrong-ca", "landmarks", "cosigner-policy",
    "subtrees", "subtree-proof", "rollback"};

const char *mtc_update_reason_name(mtc_update_reason r)
{
    return (unsigned)r < MTC_UPDATE_REASON_COUNT ? reason_names[r] : "unknown";
}

static int fail(mtc_update_result *res, mtc_update_reason r, int code)
{
    res->reason = r;
    return code;
}

static const struct rp_logstate *log_state(const mtc_rp_ca *rp, uint64_t log)
{
    for (size_t i = 0; i < rp->n_logs; i++)
        if (rp->logs[i].log == log)
            return &rp->logs[i];
    return NULL;
}

int mtc_rp_ca_log_state(const mtc_rp_ca *rp, uint64_t log_number,
                        uint64_t *last_landmark, uint64_t *ref_size)
{
    const struct rp_logstate *s = log_state(rp, log_number);
    if (!s)
        return MTC_ERR_RANGE;
    if (last_landmark)
        *last_landmark = s->last_landmark;
    if (ref_size)
        *ref_size = s->ref_size;
    return MTC_OK;
}

/* Does cosignature cs count for log_id's reference checkpoint? */
static int cosig_counts(const struct rp_cosigner *co, const mtc_taid *log_id,
                        const mtc_update_log *lg, const mtc_update_cosig *cs)
{
    if (cs->tree_size < lg->ref_size ||
        mtc_consistency_verify(lg->ref_size, cs->tree_size, &lg->ref_root,
                               &cs->root, cs->consistency,
                               cs->n_consistency) != MTC_OK)
        return 0;
    return mtc_cosig_verify(co->alg, co->pk, co->pk_len, &co->id, log_id,
                            cs->timestamp, 0, cs->tree_size, &cs->root,
                            cs->signature.p, cs->signature.len) == MTC_OK;
}

/* The reference checkpoint is observed by a sufficient set of cosigners. */
static int check_cosigners(const mtc_rp_ca *rp, const mtc_update_log *lg,
                           mtc_update_result *res)
{
    mtc_taid log_id;
    if (mtc_taid_log_id(&rp->ca_id, lg->log_number, &log_id) != MTC_OK)
        return fail(res, MTC_UPDATE_MALFORMED, MTC_ERR_ARG);
    uint8_t *ok = calloc(rp->n_cosigners + 1, 1);
    if (!ok)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < lg->n_cosigs; i++) {
        const mtc_update_cosig *cs = &lg->cosigs[i];
        long ci = mtc__rp_find_cosigner(rp, cs->cosigner_id.b, cs->cosigner_id.len);
        if (ci < 0) {
            res->ignored_cosigs++;
        } else if (cosig_counts(&rp->cosigners[ci], &log_id, lg, cs)) {
            res->valid_cosigs += !ok[ci];
            ok[ci] = 1;
        } else {
            res->invalid_cosigs++;
        }
    }
    int met = mtc__rp_policy_met(rp, ok);
    free(ok);
    return met ? MTC_OK : fail(res, MTC_UPDATE_COSIGNERS, MTC_ERR_NOT_TRUSTED);
}

/* The subtrees are the active landmark subtrees of lm, each consistent
 * with the reference checkpoint; appended to *table. */
static int check_subtrees(const mtc_landmarks *lm, const mtc_update_log *lg,
                          struct rp_subtree *table, size_t *n,
                          mtc_update_result *res)
{
    size_t k = 0;
    uint64_t last = mtc_landmarks_last(lm);
    for (uint64_t l = mtc_landmarks_first_kept(lm) + 1; l <= last && l > 0; l++) {
        mtc_subtree s[2];
        if (mtc_landmarks_subtrees(lm, l, &s[0], &s[1]) != MTC_OK)
            return fail(res, MTC_UPDATE_LANDMARKS, MTC_ERR_LANDMARK);
        for (int j = 0; j < 2; j++) {
            if (s[j].start == s[j].end)
                continue;
            if (k == lg->n_subtrees || lg->subtrees[k].start != s[j].start ||
                lg->subtrees[k].end != s[j].end)
                return fail(res, MTC_UPDATE_SUBTREES, MTC_ERR_PROOF);
            const mtc_update_subtree *st = &lg->subtrees[k++];
            if (mtc_subtree_consistency_verify(st->start, st->end, lg->ref_size,
                                               &st->hash, &lg->ref_root,
                                               st->consistency,
                                               st->n_consistency) != MTC_OK)
                return fail(res, MTC_UPDATE_SUBTREE_PROOF, MTC_ERR_PROOF);
            table[(*n)++] = (struct rp_subtree){lg->log_number, st->start,
                                                st->end, st->hash};
        }
    }
    if (k != lg->n_subtrees)
        return fail(res, MTC_UPDATE_SUBTREES, MTC_ERR_PROOF);
    return MTC_OK;
}

/* All checks of one log record; its subtrees go to table, its new state
 * to *state. */
static int check_log(const mtc_rp_ca *rp, const mtc_update_log *lg,
                     struct rp_subtree *table, size_t *n,
                     struct rp_logstate *state, mtc_update_result *res)
{
    mtc_landmarks *lm;
    if (mtc_landmarks_parse((const char *)lg->landmarks.p, lg->landmarks.len, 0,
                            lg->ref_size, &lm, NULL) != MTC_OK)
        return fail(res, MTC_UPDATE_LANDMARKS, MTC_ERR_LANDMARK);
    /*
     * Landmark numbers are the one thing in an update that nothing signs:
     * cosignatures cover checkpoints, proofs tie the subtrees (the sizes)
     * to them, and the draft defines no check of the numbers. So they are
     * bounded by the sizes (landmark 0 has size 0 and sizes strictly
     * increase, so landmark L has size >= L: checking the oldest listed
     * one covers the rest), and a rollback is judged on what is verified,
     * the reference and last landmark sizes, never on a number: an update
     * with rewritten numbers is taken (it can make landmark-relative
     * certificates fail, which the draft says has no security
     * consequence) and the next genuine update replaces it, where
     * comparing numbers let one forged number refuse every later update.
     */
    uint64_t first = mtc_landmarks_first_kept(lm), first_size = 0, last_size = 0;
    if (mtc_landmarks_size(lm, first, &first_size) != MTC_OK ||
        mtc_landmarks_size(lm, mtc_landmarks_last(lm), &last_size) != MTC_OK ||
        first_size < first) {
        mtc_landmarks_free(lm);
        return fail(res, MTC_UPDATE_LANDMARKS, MTC_ERR_LANDMARK);
    }
    int rc = check_cosigners(rp, lg, res);
    if (rc == MTC_OK)
        rc = check_subtrees(lm, lg, table, n, res);
    *state = (struct rp_logstate){lg->log_number, mtc_landmarks_last(lm),
                                  mtc_landmarks_num_active(lm), lg->ref_size,
                                  last_size};
    mtc_landmarks_free(lm);
    if (rc != MTC_OK)
        return rc;
    const struct rp_logstate *old = log_state(rp, lg->log_number);
    if (old && (state->last_size < old->last_size ||
                state->ref_size < old->ref_size))
        return fail(res, MTC_UPDATE_ROLLBACK, MTC_ERR_LANDMARK);
    return MTC_OK;
}

/* The non-empty subtrees of landmark `landmark` of lm are exactly lg's,
 * in order, each consistent with the reference checkpoint; appended to
 * *table. */
static int check_landmark_subtrees(const mtc_landmarks *lm, uint64_t landmark,
                                   const mtc_update_log *lg, struct rp_subtree *table,
                                   size_t *n, mtc_update_result *res)
{
    mtc_subtree s[2];
    if (landmark <= mtc_landmarks_first_kept(lm) || landmark > mtc_landmarks_last(lm) ||
        mtc_landmarks_subtrees(lm, landmark, &s[0], &s[1]) != MTC_OK)
        return fail(res, MTC_UPDATE_LANDMARKS, MTC_ERR_LANDMARK);
    size_t k = 0;
    for (int j = 0; j < 2; j++) {
        if (s[j].start == s[j].end)
            continue;
        if (k == lg->n_subtrees || lg->subtrees[k].start != s[j].start ||
            lg->subtrees[k].end != s[j].end)
            return fail(res, MTC_UPDATE_SUBTREES, MTC_ERR_PROOF);
        const mtc_update_subtree *st = &lg->subtrees[k++];
        if (mtc_subtree_consistency_verify(st->start, st->end, lg->ref_size, &st->hash,
                                           &lg->ref_root, st->consistency,
                                           st->n_consistency) != MTC_OK)
            return fail(res, MTC_UPDATE_SUBTREE_PROOF, MTC_ERR_PROOF);
        table[(*n)++] = (struct rp_subtree){lg->log_number, st->start, st->end, st->hash};
    }
    if (k != lg->n_subtrees)
        return fail(res, MTC_UPDATE_SUBTREES, MTC_ERR_PROOF);
    return MTC_OK;
}

static int sub_cmp(const void *a, const void *b)
{
    const struct rp_subtree *x = a, *y = b;
    if (x->log != y->log)
        return x->log < y->log ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return 0;
}

static int updated(const mtc_update *u, uint64_t log)
{
    for (size_t i = 0; i < u->n_logs; i++)
        if (u->logs[i].log_number == log)
            return 1;
    return 0;
}

int mtc__rp_apply_landmark(mtc_rp_ca *rp, const mtc_taid *ca_id,
                           const mtc_update_log *lg, uint64_t landmark,
                           mtc_update_result *res)
{
    memset(res, 0, sizeof *res);
    if (!mtc_taid_equal(ca_id, &rp->ca_id))
        return fail(res, MTC_UPDATE_WRONG_CA, MTC_ERR_CONFIG);
    if (lg->log_number == 0 || lg->log_number > MTC_LOG_NUMBER_MAX)
        return fail(res, MTC_UPDATE_MALFORMED, MTC_ERR_ARG);
    mtc_landmarks *lm;
    if (mtc_landmarks_parse((const char *)lg->landmarks.p, lg->landmarks.len, 0,
                            lg->ref_size, &lm, NULL) != MTC_OK)
        return fail(res, MTC_UPDATE_LANDMARKS, MTC_ERR_LANDMARK);
    struct rp_subtree *table = malloc((rp->n_subtrees + 3) * sizeof *table);
    size_t n = rp->n_subtrees;
    int rc = table ? check_cosigners(rp, lg, res) : MTC_ERR_NOMEM;
    if (rc == MTC_OK) {
        if (rp->n_subtrees)
            memcpy(table, rp->subtrees, rp->n_subtrees * sizeof *table);
        rc = check_landmark_subtrees(lm, landmark, lg, table, &n, res);
    }
    mtc_landmarks_free(lm);
    if (rc != MTC_OK) {
        free(table);
        return rc;
    }
    /* added beside what it trusts (a subtree it held already once) */
    qsort(table, n, sizeof *table, sub_cmp);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (w == 0 || sub_cmp(&table[w - 1], &table[i]) != 0)
            table[w++] = table[i];
    res->n_subtrees = w - rp->n_subtrees;
    free(rp->subtrees);
    rp->subtrees = table;
    rp->n_subtrees = w;
    rp->cap_subtrees = rp->n_subtrees;
    return MTC_OK;
}

int mtc_rp_ca_apply_update(mtc_rp_ca *rp, const mtc_update *u,
                           mtc_update_result *res)
{
    memset(res, 0, sizeof *res);
    if (!mtc_taid_equal(&u->ca_id, &rp->ca_id))
        return fail(res, MTC_UPDATE_WRONG_CA, MTC_ERR_CONFIG);
    size_t n_new = 0;
    for (size_t i = 0; i < u->n_logs; i++) {
        const mtc_update_log *lg = &u->logs[i];
        if (lg->log_number == 0 || lg->log_number > MTC_LOG_NUMBER_MAX ||
            (i && lg->log_number <= u->logs[i - 1].log_number))
            return fail(res, MTC_UPDATE_MALFORMED, MTC_ERR_ARG);
        n_new += lg->n_subtrees;
    }
    size_t cap = rp->n_subtrees + n_new + 1;
    struct rp_subtree *table = malloc(cap * sizeof *table);
    struct rp_logstate *states = malloc((rp->n_logs + u->n_logs + 1) * sizeof *states);
    int rc = table && states ? MTC_OK : MTC_ERR_NOMEM;
    /* what stays: subtrees and states of logs this update does not cover */
    size_t n = 0, ns = 0;
    for (size_t i = 0; i < rp->n_subtrees && rc == MTC_OK; i++)
        if (!updated(u, rp->subtrees[i].log))
            table[n++] = rp->subtrees[i];
    for (size_t i = 0; i < rp->n_logs && rc == MTC_OK; i++)
        if (!updated(u, rp->logs[i].log))
            states[ns++] = rp->logs[i];
    size_t kept = n;
    for (size_t i = 0; i < u->n_logs && rc == MTC_OK; i++) {
        res->log_index = i;
        res->valid_cosigs = res->invalid_cosigs = res->ignored_cosigs = 0;
        rc = check_log(rp, &u->logs[i], table, &n, &states[ns++], res);
    }
    if (rc != MTC_OK) {
        free(table);
        free(states);
        return rc;
    }
    qsort(table, n, sizeof *table, sub_cmp);
    free(rp->subtrees);
    free(rp->logs);
    rp->subtrees = table;
    rp->n_subtrees = n;
    rp->cap_subtrees = cap;
    rp->logs = states;
    rp->n_logs = ns;
    res->n_subtrees = n - kept;
    return MTC_OK;
}
