/*
 * staple.c - the landmark staple format (mtc/staple.h): strict decoder,
 * canonical encoder, and the server-side builder from an update record.
 *
 * A staple rides in a TLS handshake, so it is decoded from untrusted bytes
 * on every handshake that carries one; like update.c the decoder runs its
 * one parser twice (count, then fill one allocation), which keeps
 * ownership to one free() and the rules in one place.
 */
#include "mtc/staple.h"

#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/merkle.h"
#include "wire_internal.h"

/* ---- reading ------------------------------------------------------------- */

static int parse(const uint8_t *in, size_t len, mtc_staple *s,
                 mtc_staple_cosig *cosigs, mtc_update_subtree *subtrees)
{
    rd r = {in, in + len, 0};
    memset(s, 0, sizeof *s);
    const uint8_t *label = get_bytes(&r, MTC_STAPLE_LABEL_LEN);
    if (!label || memcmp(label, MTC_STAPLE_LABEL, MTC_STAPLE_LABEL_LEN))
        return 0;
    get_taid(&r, &s->ca_id);
    s->log_number = get_u(&r, 2);
    rd text = get_vec(&r, 2);
    if (r.bad || text.p == text.end || s->log_number == 0)
        return 0;
    s->landmarks = (mtc_slice){text.p, (size_t)(text.end - text.p)};
    s->timestamp = get_u(&r, 8);
    s->tree_size = get_u(&r, 8);
    get_hash(&r, &s->root);
    if (r.bad || s->tree_size == 0)
        return 0;
    rd v = get_vec(&r, 2);
    mtc_taid prev;
    s->cosigs = cosigs;
    while (!v.bad && v.p < v.end) {
        mtc_staple_cosig tmp, *cs = cosigs ? &cosigs[s->n_cosigs] : &tmp;
        get_taid(&v, &cs->cosigner_id);
        rd sig = get_vec(&v, 2);
        if (v.bad || sig.bad)
            return 0;
        cs->signature = (mtc_slice){sig.p, (size_t)(sig.end - sig.p)};
        /* strictly ascending: no cosigner listed twice */
        if (s->n_cosigs && mtc_taid_cmp(&prev, &cs->cosigner_id) >= 0)
            return 0;
        prev = cs->cosigner_id;
        s->n_cosigs++;
    }
    rd t = get_vec(&r, 3);
    s->subtrees = subtrees;
    while (!v.bad && !t.bad && t.p < t.end) {
        mtc_update_subtree tmp, *st = subtrees ? &subtrees[s->n_subtrees] : &tmp;
        memset(st, 0, sizeof *st);
        st->start = get_u(&t, 6);
        st->end = get_u(&t, 6);
        get_hash(&t, &st->hash);
        get_proof(&t, &st->consistency, &st->n_consistency);
        if (t.bad)
            return 0;
        s->n_subtrees++;
    }
    return !v.bad && !t.bad && !r.bad && r.p == r.end;
}

int mtc_staple_decode(const uint8_t *in, size_t len, mtc_staple **out)
{
    mtc_staple c;
    *out = NULL;
    if (!parse(in, len, &c, NULL, NULL))
        return MTC_ERR_PARSE;
    size_t bytes = sizeof(mtc_staple) + c.n_cosigs * sizeof(mtc_staple_cosig) +
                   c.n_subtrees * sizeof(mtc_update_subtree);
    uint8_t *block = calloc(1, bytes);
    if (!block)
        return MTC_ERR_NOMEM;
    mtc_staple *s = (mtc_staple *)(void *)block;
    mtc_staple_cosig *cs = (mtc_staple_cosig *)(void *)(s + 1);
    mtc_update_subtree *st = (mtc_update_subtree *)(void *)(cs + c.n_cosigs);
    parse(in, len, s, cs, st); /* same input, same result */
    *out = s;
    return MTC_OK;
}

void mtc_staple_free(mtc_staple *s)
{
    free(s); /* decode makes one allocation */
}

/* ---- writing ------------------------------------------------------------- */


int mtc_staple_encode(const mtc_staple *s, uint8_t *out, size_t cap,
                      size_t *out_len)
{
    wr w = {out, cap, 0};
    const uint64_t max48 = (UINT64_C(1) << 48) - 1;
    if (s->ca_id.len == 0 || s->log_number == 0 || s->log_number > 0xffff ||
        s->landmarks.len == 0)
        return MTC_ERR_ARG;
    put(&w, MTC_STAPLE_LABEL, MTC_STAPLE_LABEL_LEN);
    put_u(&w, s->ca_id.len, 1);
    put(&w, s->ca_id.b, s->ca_id.len);
    put_u(&w, s->log_number, 2);
    size_t at = open_vec(&w, 2);
    put(&w, s->landmarks.p, s->landmarks.len);
    if (!close_vec(&w, at, 2))
        return MTC_ERR_ARG;
    put_u(&w, s->timestamp, 8);
    put_u(&w, s->tree_size, 8);
    put(&w, s->root.b, MTC_HASH_LEN);
    at = open_vec(&w, 2);
    for (size_t i = 0; i < s->n_cosigs; i++) {
        const mtc_staple_cosig *cs = &s->cosigs[i];
        if (cs->cosigner_id.len == 0 || cs->signature.len > 0xffff)
            return MTC_ERR_ARG;
        put_u(&w, cs->cosigner_id.len, 1);
        put(&w, cs->cosigner_id.b, cs->cosigner_id.len);
        put_u(&w, cs->signature.len, 2);
        put(&w, cs->signature.p, cs->signature.len);
    }
    if (!close_vec(&w, at, 2))
        return MTC_ERR_ARG;
    at = open_vec(&w, 3);
    for (size_t i = 0; i < s->n_subtrees; i++) {
        const mtc_update_subtree *st = &s->subtrees[i];
        if (st->start > max48 || st->end > max48 ||
            st->n_consistency > 0xffff / MTC_HASH_LEN)
            return MTC_ERR_ARG;
        put_u(&w, st->start, 6);
        put_u(&w, st->end, 6);
        put(&w, st->hash.b, MTC_HASH_LEN);
        put_u(&w, st->n_consistency * MTC_HASH_LEN, 2);
        put(&w, st->consistency, st->n_consistency * MTC_HASH_LEN);
    }
    if (!close_vec(&w, at, 3))
        return MTC_ERR_ARG;
    *out_len = w.len;
    return out && w.len <= cap ? MTC_OK : MTC_ERR_LIMIT;
}

/* ---- the server side --------------------------------------------------------- */

int mtc_staple_from_update(const mtc_update *u, size_t log_index,
                           mtc_staple *out, mtc_staple_cosig *cosigs)
{
    if (log_index >= u->n_logs)
        return MTC_ERR_ARG;
    const mtc_update_log *lg = &u->logs[log_index];
    if (lg->n_cosigs == 0)
        return MTC_ERR_ARG;
    for (size_t i = 0; i < lg->n_cosigs; i++) {
        const mtc_update_cosig *c = &lg->cosigs[i];
        if (c->tree_size != lg->ref_size || !mtc_hash_equal(&c->root, &lg->ref_root) ||
            c->n_consistency != 0 || c->timestamp != lg->cosigs[0].timestamp)
            return MTC_ERR_ARG;
        cosigs[i] = (mtc_staple_cosig){c->cosigner_id, c->signature};
    }
    *out = (mtc_staple){u->ca_id, lg->log_number, lg->landmarks,
                        lg->cosigs[0].timestamp, lg->ref_size, lg->ref_root,
                        cosigs, lg->n_cosigs, lg->subtrees, lg->n_subtrees};
    return MTC_OK;
}
