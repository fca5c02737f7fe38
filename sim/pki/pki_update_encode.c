/*
 * pki_update_encode.c - the bytes of the update from publication a to b:
 * the real encoding below, memoized per (a, b). Separate from versions and
 * publications, which it only reads; its byte writer also packs the
 * reference cosignatures a version keeps (pki_update_version.c).
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
 *                (proofs = "bulk": Bulk proofs<0..2^32-1> instead,
 *                 pki_update_bulk.c)
 *   LogUpdate  = uint16 log || uint64 first_active || uint64 last ||
 *                Subtree new<0..2^32-1>
 *   Subtree    = uint64 landmark || uint48 start || uint48 end || hash[32]
 *   Range      = uint64 first || uint64 last
 *   Ref        = uint16 log || uint64 size || uint64 timestamp || hash[32] ||
 *                (opaque id<1..255> || opaque sig<0..2^16-1>) sigs<0..2^32-1>
 *   Proof      = uint16 log || uint48 start || uint48 end || uint32 ref ||
 *                HashValue proof<0..2^16-1>
 */
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "pki_internal.h"
#include "pki_update_internal.h"

/* ---- big-endian fields ---- */

void pki__bw_uint(pki_bw *w, uint64_t v, int bytes)
{
    uint8_t b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    sim_bytebuf_put(w, b, (size_t)bytes);
}

/* Reserves a length prefix of `bytes`; returns its offset. */
static size_t bw_open(pki_bw *w, int bytes)
{
    size_t at = w->n;
    pki__bw_uint(w, 0, bytes);
    return at;
}

static void bw_close(pki_bw *w, size_t at, int bytes)
{
    if (w->failed)
        return;
    uint64_t n = w->n - at - (size_t)bytes;
    for (int i = 0; i < bytes; i++)
        w->b[at + i] = (uint8_t)(n >> (8 * (bytes - 1 - i)));
}

static pki_ca *CA(const pki_update *u, size_t i) { return &u->ps->ca[i]; }

/* ---- update encoding ---- */

int pki__has_sub(const pki_version *v, const pki_tsub *t)
{
    size_t lo = 0, hi = v->nsub;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = pki__tsub_cmp(&v->sub[mid], t);
        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Adds what w grew by since *mark to *part, and moves the mark. */
static void part(const pki_bw *w, size_t *mark, uint32_t *to)
{
    *to += (uint32_t)(w->n - *mark);
    *mark = w->n;
}

/* The parts are measured as the encoding is written: each segment's bytes
 * go to its part, everything between to framing. */
static void encode_ca(pki_update *u, size_t ci, const pki_version *a,
                      const pki_version *b, uint32_t va, uint32_t vb, pki_bw *w,
                      sim_update_parts *pp)
{
    size_t mk = w->n;
    pki_ca *ca = CA(u, ci);
    pki__bw_uint(w, ca->info.ca_id.len, 1);
    sim_bytebuf_put(w, ca->info.ca_id.b, ca->info.ca_id.len);
    pki__bw_uint(w, b->min_serial, 8);
    size_t logs = bw_open(w, 2);
    for (size_t k = 0; k < b->view.nlogs; k++) {
        uint64_t log = b->view.log[k].log_number;
        uint64_t last = b->view.log[k].last_landmark;
        uint64_t first = last >= ca->max_active ? last - ca->max_active + 1 : 1;
        pki__bw_uint(w, log, 2);
        pki__bw_uint(w, first, 8);
        pki__bw_uint(w, last, 8);
        size_t subs = bw_open(w, 4);
        part(w, &mk, &pp->framing);
        for (size_t i = 0; i < b->nsub; i++) {
            const pki_tsub *t = &b->sub[i];
            if (t->log != log || pki__has_sub(a, t))
                continue;
            pki__bw_uint(w, t->landmark, 8);
            pki__bw_uint(w, t->start, 6);
            pki__bw_uint(w, t->end, 6);
            sim_bytebuf_put(w, t->hash.b, MTC_HASH_LEN);
        }
        bw_close(w, subs, 4);
        part(w, &mk, &pp->subtree_hashes);
    }
    bw_close(w, logs, 2);
    size_t revs = bw_open(w, 4);
    part(w, &mk, &pp->framing);
    for (size_t i = a->nrev; i < b->nrev; i++) {
        pki__bw_uint(w, b->rev[i].first, 8);
        pki__bw_uint(w, b->rev[i].last, 8);
    }
    bw_close(w, revs, 4);
    part(w, &mk, &pp->revocations);
    if (!u->cfg->include_proofs)
        return;
    /* (the references are the same in both forms; only proofs differ) */
    /* The references and proofs of every version in (va, vb] whose new
     * subtrees are still trusted in b. */
    size_t refs = bw_open(w, 4), nref = 0;
    part(w, &mk, &pp->framing);
    for (uint32_t k = va + 1; k <= vb; k++) {
        const pki_version *v = pki__ver_at(u, ci, k);
        for (size_t i = 0; i < v->nrefs; i++, nref++) {
            const pki_refckpt *r = &v->refs[i];
            pki__bw_uint(w, r->log, 2);
            pki__bw_uint(w, r->size, 8);
            pki__bw_uint(w, r->ts, 8);
            sim_bytebuf_put(w, r->root.b, MTC_HASH_LEN);
            pki__bw_uint(w, r->sigs_len, 4);
            part(w, &mk, &pp->ref_checkpoints);
            sim_bytebuf_put(w, r->sigs, r->sigs_len);
            part(w, &mk, &pp->cosignatures);
        }
    }
    bw_close(w, refs, 4);
    if (u->cfg->proofs == PKI_PROOFS_BULK) {
        /* its vector's length prefix (4 bytes) is framing */
        pki__bulk_encode(u, ci, va, vb, w);
        pp->framing += 4;
        pp->proofs += (uint32_t)(w->n - mk - 4);
        return;
    }
    size_t proofs = bw_open(w, 4);
    part(w, &mk, &pp->framing);
    size_t base = 0;
    for (uint32_t k = va + 1; k <= vb; k++) {
        const pki_version *v = pki__ver_at(u, ci, k);
        for (size_t i = 0; i < v->nproofs; i++) {
            const pki_sproof *p = &v->proofs[i];
            pki_tsub t = {p->log, 0, p->start, p->end, {{0}}};
            if (!pki__has_sub(b, &t))
                continue;
            pki__bw_uint(w, p->log, 2);
            pki__bw_uint(w, p->start, 6);
            pki__bw_uint(w, p->end, 6);
            pki__bw_uint(w, base + p->ref, 4);
            pki__bw_uint(w, p->nhash * MTC_HASH_LEN, 2);
            sim_bytebuf_put(w, p->hash, p->nhash * MTC_HASH_LEN);
        }
        base += v->nrefs;
    }
    bw_close(w, proofs, 4);
    part(w, &mk, &pp->proofs);
}

static size_t encode_update(pki_update *u, uint32_t from, uint32_t to,
                            sim_update_parts *pp)
{
    memset(pp, 0, sizeof *pp);
    pki_bw w = {0};
    pki__bw_uint(&w, from, 4);
    pki__bw_uint(&w, to, 4);
    size_t cas = bw_open(&w, 4);
    for (size_t ci = 0; ci < u->ps->nca; ci++) {
        uint32_t va = u->pub[from].version[ci], vb = u->pub[to].version[ci];
        if (!u->serves[ci] || va == vb)
            continue;
        encode_ca(u, ci, pki__ver_at(u, ci, va), pki__ver_at(u, ci, vb), va,
                  vb, &w, pp);
    }
    bw_close(&w, cas, 4);
    /* A service with a timestamped landmark group also delivers the
     * group's versions defined since `from` (the relying party learns
     * what each version contains from its update service, a departure of
     * this project's: docs/model.md), as GroupVersion
     * versions<0..2^32-1>, each opaque<1..2^16-1> (mtc_lmgroup_encode).
     * Priced by length: the encodings are the group publisher's. */
    size_t gbytes = 0;
    if (u->group) {
        size_t gn = 0;
        pki_group_versions_between(u, u->pub[from].time, u->pub[to].time, &gn, &gbytes);
        gbytes += 4 + 2 * gn;
        pp->group_versions = (uint32_t)gbytes;
    }
    size_t len = w.failed ? 0 : w.n + gbytes;
    free(w.b);
    /* the header (from, to, the CAs' vector prefix) and what preceded each
     * CA's first log record (ID, minSerial, logs' prefix) are framing */
    uint32_t sum = pp->framing + pp->subtree_hashes + pp->revocations + pp->ref_checkpoints +
                   pp->cosignatures + pp->proofs + pp->group_versions;
    if (len == 0)
        memset(pp, 0, sizeof *pp);
    else
        pp->framing += (uint32_t)len - sum;
    return len;
}

static size_t slot_of(uint64_t key, size_t cap)
{
    return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (cap - 1);
}

#define UCACHE_MAX ((size_t)1 << 22)

size_t pki_update_bytes(pki_update *u, uint32_t from, uint32_t to)
{
    sim_update_parts pp;
    return pki_update_parts(u, from, to, &pp);
}

size_t pki_update_parts(pki_update *u, uint32_t from, uint32_t to, sim_update_parts *out)
{
    memset(out, 0, sizeof *out);
    if (from >= to || to >= u->npub)
        return 0;
    uint64_t key = (uint64_t)from << 32 | to; /* never 0: to > from */
    if (2 * (u->cache_n + 1) > u->cache_cap) {
        size_t nc = u->cache_cap ? 2 * u->cache_cap : 1024;
        pki_ucache *c = calloc(nc <= UCACHE_MAX ? nc : u->cache_cap, sizeof *c);
        if (!c)
            return encode_update(u, from, to, out);
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
        if (u->cache[h].key == key) {
            *out = u->cache[h].parts;
            return u->cache[h].bytes;
        }
        h = (h + 1) & (u->cache_cap - 1);
    }
    size_t bytes = encode_update(u, from, to, out);
    u->cache[h].key = key;
    u->cache[h].bytes = bytes;
    u->cache[h].parts = *out;
    u->cache_n++;
    return bytes;
}
