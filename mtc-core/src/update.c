/*
 * update.c - the relying-party update format (mtc/update.h): strict
 * decoder, canonical encoder, and the CA-side builder from issuance logs.
 *
 * Updates are rare and small next to certificate verification (one per
 * landmark interval, a few hundred subtrees), so clarity wins over speed:
 * the decoder runs its one parser twice, first to count and then to fill
 * a single allocation, which keeps ownership to one free().
 */
#include "mtc/update.h"

#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/merkle.h"
#include "wire_internal.h"

/* ---- reading ------------------------------------------------------------- */

typedef struct counts {
    size_t logs, cosigs, subtrees;
} counts;

/* Where parse() writes; NULL members while counting. */
typedef struct fill {
    mtc_update *u;
    mtc_update_log *logs;
    mtc_update_cosig *cosigs;
    mtc_update_subtree *subtrees;
} fill;

static int parse_log(rd *r, counts *c, fill *f, mtc_update_log *lg)
{
    lg->log_number = get_u(r, 2);
    rd text = get_vec(r, 4);
    if (text.bad || text.p == text.end || lg->log_number == 0)
        return 0;
    lg->landmarks = (mtc_slice){text.p, (size_t)(text.end - text.p)};
    lg->ref_size = get_u(r, 8);
    get_hash(r, &lg->ref_root);
    if (r->bad || lg->ref_size == 0)
        return 0;
    rd v = get_vec(r, 4);
    lg->cosigs = f ? f->cosigs + c->cosigs : NULL;
    mtc_taid prev;
    int have_prev = 0;
    while (!v.bad && v.p < v.end) {
        mtc_update_cosig tmp, *cs = f ? &f->cosigs[c->cosigs] : &tmp;
        memset(cs, 0, sizeof *cs);
        get_taid(&v, &cs->cosigner_id);
        cs->timestamp = get_u(&v, 8);
        cs->tree_size = get_u(&v, 8);
        get_hash(&v, &cs->root);
        rd sig = get_vec(&v, 2);
        if (!sig.bad)
            cs->signature = (mtc_slice){sig.p, (size_t)(sig.end - sig.p)};
        get_proof(&v, &cs->consistency, &cs->n_consistency);
        if (v.bad || sig.bad)
            return 0;
        /* strictly ascending: no cosigner listed twice */
        if (have_prev && mtc_taid_cmp(&prev, &cs->cosigner_id) >= 0)
            return 0;
        prev = cs->cosigner_id;
        have_prev = 1;
        lg->n_cosigs++;
        c->cosigs++;
    }
    rd s = get_vec(r, 4);
    lg->subtrees = f ? f->subtrees + c->subtrees : NULL;
    while (!v.bad && !s.bad && s.p < s.end) {
        mtc_update_subtree tmp, *st = f ? &f->subtrees[c->subtrees] : &tmp;
        memset(st, 0, sizeof *st);
        st->start = get_u(&s, 6);
        st->end = get_u(&s, 6);
        get_hash(&s, &st->hash);
        get_proof(&s, &st->consistency, &st->n_consistency);
        if (s.bad)
            return 0;
        lg->n_subtrees++;
        c->subtrees++;
    }
    return !v.bad && !s.bad && !r->bad;
}

/* The whole format; counts into *c, and fills f when it is not NULL. */
static int parse(const uint8_t *in, size_t len, counts *c, fill *f)
{
    rd r = {in, in + len, 0};
    memset(c, 0, sizeof *c);
    const uint8_t *label = get_bytes(&r, MTC_UPDATE_LABEL_LEN);
    if (!label || memcmp(label, MTC_UPDATE_LABEL, MTC_UPDATE_LABEL_LEN))
        return 0;
    mtc_taid ca;
    if (!get_taid(&r, &ca))
        return 0;
    if (f)
        f->u->ca_id = ca;
    rd logs = get_vec(&r, 4);
    uint64_t prev = 0;
    while (!logs.bad && logs.p < logs.end) {
        mtc_update_log tmp, *lg = f ? &f->logs[c->logs] : &tmp;
        memset(lg, 0, sizeof *lg);
        if (!parse_log(&logs, c, f, lg) || lg->log_number <= prev)
            return 0;
        prev = lg->log_number;
        c->logs++;
    }
    return !logs.bad && !r.bad && r.p == r.end;
}

int mtc_update_decode(const uint8_t *in, size_t len, mtc_update **out)
{
    counts c;
    *out = NULL;
    if (!parse(in, len, &c, NULL))
        return MTC_ERR_PARSE;
    size_t bytes = sizeof(mtc_update) + c.logs * sizeof(mtc_update_log) +
                   c.cosigs * sizeof(mtc_update_cosig) +
                   c.subtrees * sizeof(mtc_update_subtree);
    uint8_t *block = calloc(1, bytes);
    if (!block)
        return MTC_ERR_NOMEM;
    fill f;
    f.u = (mtc_update *)(void *)block;
    f.logs = (mtc_update_log *)(void *)(block + sizeof(mtc_update));
    f.cosigs = (mtc_update_cosig *)(void *)(f.logs + c.logs);
    f.subtrees = (mtc_update_subtree *)(void *)(f.cosigs + c.cosigs);
    counts again;
    parse(in, len, &again, &f); /* same input, same result */
    f.u->logs = f.logs;
    f.u->n_logs = c.logs;
    *out = f.u;
    return MTC_OK;
}

void mtc_update_free(mtc_update *u)
{
    free(u); /* decode and from_ilogs make one allocation */
}

/* ---- writing ------------------------------------------------------------- */

static int encode_log(wr *w, const mtc_update_log *lg)
{
    if (lg->log_number == 0 || lg->log_number > 0xffff)
        return 0;
    put_u(w, lg->log_number, 2);
    size_t at = open_vec(w, 4);
    put(w, lg->landmarks.p, lg->landmarks.len);
    if (!close_vec(w, at, 4))
        return 0;
    put_u(w, lg->ref_size, 8);
    put(w, lg->ref_root.b, MTC_HASH_LEN);
    at = open_vec(w, 4);
    for (size_t i = 0; i < lg->n_cosigs; i++) {
        const mtc_update_cosig *cs = &lg->cosigs[i];
        if (cs->cosigner_id.len == 0 || cs->signature.len > 0xffff)
            return 0;
        put_taid(w, &cs->cosigner_id);
        put_u(w, cs->timestamp, 8);
        put_u(w, cs->tree_size, 8);
        put(w, cs->root.b, MTC_HASH_LEN);
        put_u(w, cs->signature.len, 2);
        put(w, cs->signature.p, cs->signature.len);
        if (!put_proof(w, cs->consistency, cs->n_consistency))
            return 0;
    }
    if (!close_vec(w, at, 4))
        return 0;
    at = open_vec(w, 4);
    const uint64_t max48 = (UINT64_C(1) << 48) - 1;
    for (size_t i = 0; i < lg->n_subtrees; i++) {
        const mtc_update_subtree *st = &lg->subtrees[i];
        if (st->start > max48 || st->end > max48)
            return 0;
        put_u(w, st->start, 6);
        put_u(w, st->end, 6);
        put(w, st->hash.b, MTC_HASH_LEN);
        if (!put_proof(w, st->consistency, st->n_consistency))
            return 0;
    }
    return close_vec(w, at, 4);
}

int mtc_update_encode(const mtc_update *u, uint8_t *out, size_t cap,
                      size_t *out_len)
{
    wr w = {out, cap, 0};
    if (u->ca_id.len == 0)
        return MTC_ERR_ARG;
    put(&w, MTC_UPDATE_LABEL, MTC_UPDATE_LABEL_LEN);
    put_taid(&w, &u->ca_id);
    size_t at = open_vec(&w, 4);
    for (size_t i = 0; i < u->n_logs; i++)
        if (!encode_log(&w, &u->logs[i]))
            return MTC_ERR_ARG;
    if (!close_vec(&w, at, 4))
        return MTC_ERR_ARG;
    *out_len = w.len;
    return out && w.len <= cap ? MTC_OK : MTC_ERR_LIMIT;
}

/* ---- the CA side ------------------------------------------------------------- */

/* Calls fn for every non-empty active landmark subtree of lm, oldest first. */
static int each_subtree(const mtc_landmarks *lm,
                        int (*fn)(void *ctx, mtc_subtree s), void *ctx)
{
    uint64_t last = mtc_landmarks_last(lm);
    for (uint64_t l = mtc_landmarks_first_kept(lm) + 1; l <= last && l > 0; l++) {
        mtc_subtree s[2];
        int rc = mtc_landmarks_subtrees(lm, l, &s[0], &s[1]);
        for (int k = 0; k < 2 && rc == MTC_OK; k++)
            if (s[k].start != s[k].end)
                rc = fn(ctx, s[k]);
        if (rc != MTC_OK)
            return rc;
    }
    return MTC_OK;
}

static int count_one(void *ctx, mtc_subtree s)
{
    (void)s;
    ++*(size_t *)ctx;
    return MTC_OK;
}

typedef struct sub_ctx {
    mtc_ilog *log;
    uint64_t ref_size;
    mtc_update_subtree *out;
    mtc_hash *hashes;         /* MTC_PROOF_MAX per subtree */
    size_t n;
} sub_ctx;

static int prove_one(void *ctx, mtc_subtree s)
{
    sub_ctx *c = ctx;
    mtc_update_subtree *st = &c->out[c->n];
    mtc_hash *proof = c->hashes + c->n * MTC_PROOF_MAX;
    mtc_node_source src;
    mtc_tree_source(mtc_ilog_tree(c->log), &src);
    st->start = s.start;
    st->end = s.end;
    int rc = mtc_subtree_hash(&src, s.start, s.end, &st->hash);
    if (rc == MTC_OK)
        rc = mtc_subtree_consistency_proof(&src, s.start, s.end, c->ref_size,
                                           proof, &st->n_consistency);
    st->consistency = proof;
    c->n++;
    return rc;
}

int mtc_update_from_ilogs(const mtc_taid *ca_id, mtc_ilog *const *logs,
                          const mtc_landmarks *const *lms, size_t n,
                          mtc_update **out)
{
    *out = NULL;
    size_t n_cos = 0, n_sub = 0, text = 0;
    for (size_t i = 0; i < n; i++) {
        mtc_checkpoint ck;
        uint64_t last_size;
        size_t tl;
        if (mtc_ilog_last_checkpoint(logs[i], &ck) != MTC_OK || !ck.timestamp)
            return MTC_ERR_RANGE;
        if (mtc_landmarks_size(lms[i], mtc_landmarks_last(lms[i]), &last_size) !=
                MTC_OK ||
            last_size > ck.size)
            return MTC_ERR_LANDMARK;
        mtc_landmarks_format(lms[i], NULL, 0, &tl);
        n_cos += ck.n_sigs;
        text += tl;
        each_subtree(lms[i], count_one, &n_sub);
    }
    size_t bytes = sizeof(mtc_update) + n * sizeof(mtc_update_log) +
                   n_cos * sizeof(mtc_update_cosig) +
                   n_sub * sizeof(mtc_update_subtree) +
                   n_sub * MTC_PROOF_MAX * sizeof(mtc_hash) + text;
    uint8_t *block = calloc(1, bytes);
    if (!block)
        return MTC_ERR_NOMEM;
    mtc_update *u = (mtc_update *)(void *)block;
    mtc_update_log *lg = (mtc_update_log *)(void *)(u + 1);
    mtc_update_cosig *cs = (mtc_update_cosig *)(void *)(lg + n);
    mtc_update_subtree *st = (mtc_update_subtree *)(void *)(cs + n_cos);
    mtc_hash *hashes = (mtc_hash *)(void *)(st + n_sub);
    char *tx = (char *)(hashes + n_sub * MTC_PROOF_MAX);
    u->ca_id = *ca_id;
    u->logs = lg;
    u->n_logs = n;
    int rc = MTC_OK;
    for (size_t i = 0; i < n && rc == MTC_OK; i++) {
        mtc_checkpoint ck;
        mtc_ilog_last_checkpoint(logs[i], &ck);
        lg[i].log_number = mtc_ilog_number(logs[i]);
        size_t tl;
        mtc_landmarks_format(lms[i], tx, text, &tl);
        lg[i].landmarks = (mtc_slice){(const uint8_t *)tx, tl};
        tx += tl;
        text -= tl;
        lg[i].ref_size = ck.size;
        lg[i].ref_root = ck.root;
        lg[i].cosigs = cs;
        lg[i].n_cosigs = ck.n_sigs;
        for (size_t k = 0; k < ck.n_sigs && rc == MTC_OK; k++) {
            rc = mtc_taid_from_binary(ck.sigs[k].cosigner_id.p,
                                      ck.sigs[k].cosigner_id.len,
                                      &cs[k].cosigner_id);
            cs[k].timestamp = ck.timestamp;
            cs[k].tree_size = ck.size;
            cs[k].root = ck.root;
            cs[k].signature = ck.sigs[k].signature;
        }
        cs += ck.n_sigs;
        sub_ctx sc = {logs[i], ck.size, st, hashes, 0};
        if (rc == MTC_OK)
            rc = each_subtree(lms[i], prove_one, &sc);
        lg[i].subtrees = st;
        lg[i].n_subtrees = sc.n;
        st += sc.n;
        hashes += sc.n * MTC_PROOF_MAX;
    }
    if (rc != MTC_OK) {
        free(block);
        return rc == MTC_ERR_PARSE ? MTC_ERR_ARG : rc;
    }
    *out = u;
    return MTC_OK;
}
