/*
 * wire_internal.h - the TLS presentation-language reader and writer shared
 * by the update file (update.c) and the landmark staple (staple.c), which
 * encode the same checkpoint, cosignature and proof structures.
 *
 * Reader: a cursor over borrowed bytes; any short read sets `bad`, and every
 * later read returns zero/NULL, so a parser checks `bad` once at the end.
 * Writer: with p == NULL (or past cap) it only counts, so one function both
 * sizes and writes an encoding; length prefixes are patched in afterwards.
 * Internal to mtc-core: not installed, not part of any public header.
 */
#ifndef MTC_WIRE_INTERNAL_H
#define MTC_WIRE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/merkle.h"
#include "mtc/taid.h"

typedef struct rd {
    const uint8_t *p, *end;
    int bad;
} rd;

static inline uint64_t get_u(rd *r, int bytes)
{
    if (r->bad || r->end - r->p < bytes) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | *r->p++;
    return v;
}

static inline const uint8_t *get_bytes(rd *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *q = r->p;
    r->p += n;
    return q;
}

/* A sub-reader over a vector with a `bytes`-byte length prefix. */
static inline rd get_vec(rd *r, int bytes)
{
    size_t n = (size_t)get_u(r, bytes);
    const uint8_t *q = get_bytes(r, n);
    rd sub = {q, q ? q + n : NULL, r->bad};
    return sub;
}

static inline int get_taid(rd *r, mtc_taid *out)
{
    rd v = get_vec(r, 1);
    if (v.bad || mtc_taid_from_binary(v.p, (size_t)(v.end - v.p), out) != MTC_OK) {
        r->bad = 1;
        return 0;
    }
    return 1;
}

static inline void get_hash(rd *r, mtc_hash *h)
{
    const uint8_t *q = get_bytes(r, MTC_HASH_LEN);
    if (q)
        memcpy(h->b, q, MTC_HASH_LEN);
}

/* HashValue proof<0..2^16-1>: borrowed (mtc_hash has byte alignment). */
static inline void get_proof(rd *r, const mtc_hash **h, size_t *n)
{
    rd v = get_vec(r, 2);
    size_t len = v.bad ? 0 : (size_t)(v.end - v.p);
    if (v.bad || len % MTC_HASH_LEN || len / MTC_HASH_LEN > MTC_PROOF_MAX) {
        r->bad = 1;
        return;
    }
    *h = (const mtc_hash *)(const void *)v.p;
    *n = len / MTC_HASH_LEN;
}

typedef struct wr {
    uint8_t *p;
    size_t cap, len;
} wr;

static inline void put(wr *w, const void *d, size_t n)
{
    if (w->p && w->len + n <= w->cap && n)
        memcpy(w->p + w->len, d, n);
    w->len += n;
}

static inline void put_u(wr *w, uint64_t v, int bytes)
{
    uint8_t b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    put(w, b, (size_t)bytes);
}

/* Length prefixes are patched in after the contents. */
static inline size_t open_vec(wr *w, int bytes)
{
    size_t at = w->len;
    put_u(w, 0, bytes);
    return at;
}

static inline int close_vec(wr *w, size_t at, int bytes)
{
    uint64_t n = w->len - at - (size_t)bytes;
    if (bytes < 8 && n >> (8 * bytes))
        return 0;
    if (w->p && w->len <= w->cap)
        for (int i = 0; i < bytes; i++)
            w->p[at + (size_t)i] = (uint8_t)(n >> (8 * (bytes - 1 - i)));
    return 1;
}

static inline void put_taid(wr *w, const mtc_taid *id)
{
    put_u(w, id->len, 1);
    put(w, id->b, id->len);
}

static inline int put_proof(wr *w, const mtc_hash *h, size_t n)
{
    if (n > 0xffff / MTC_HASH_LEN)
        return 0;
    put_u(w, n * MTC_HASH_LEN, 2);
    put(w, h, n * MTC_HASH_LEN);
    return 1;
}

#endif
