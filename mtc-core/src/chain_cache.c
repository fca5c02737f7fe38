/*
 * chain_cache.c - built chains kept for reuse (mtc/chain_cache.h).
 *
 * Workload: a process asks for a few dozen distinct chains (profile, key
 * types, name) many times each, one set per world it builds, and a world
 * asks only for the chains it does not hold yet. So the entries stay few
 * (hundreds at most) and a lookup is a hashed linear scan: cheaper than
 * any signature, and nothing to rebalance.
 *
 * A miss still need not sign everything: a world prices each chain with
 * its first site's name of a length, so names (and leaf keys) vary from
 * world to world while the CA certificates of a profile stay the same
 * (they depend on the profile, not_before and the CA key types alone).
 * So a miss copies them from a kept chain that has them, and signs only
 * the leaf, its SCTs and the handshake signature: on the test suite's
 * worlds the CA certificates and their signers' keys were about two
 * thirds of a chain's building time. The keys that remain (the leaf's,
 * the intermediate's, the logs') are made once, in the cache's key ring,
 * with the length of the leaf key's CertificateVerify signature.
 */
#include "mtc/chain_cache.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "chain_internal.h"
#include "mtc/error.h"

/* The key is every field of mtc_chain_opts (key_equal, key_hash). This
 * mirror of the struct fails the build when a field is added there
 * without being added here and to the key. */
struct opts_fields_in_key {
    const char *dns_name;
    int64_t not_before, lifetime;
    mtc_chain_alg leaf_alg, ca_alg;
    int drop_cross;
};
_Static_assert(sizeof(mtc_chain_opts) == sizeof(struct opts_fields_in_key),
               "a field of mtc_chain_opts is missing from the cache's key");

/* An entry keeps the chain's fields after buf wholesale (so a field added
 * to mtc_chain is copied too) and only the used part of buf. */
_Static_assert(offsetof(mtc_chain, buf) == 0, "mtc_chain: buf must come first");
#define TAIL_OFF offsetof(mtc_chain, off)
#define TAIL_LEN (sizeof(mtc_chain) - TAIL_OFF)
_Static_assert(offsetof(mtc_chain, off) >= MTC_CHAIN_BUF, "mtc_chain: buf must come first");

typedef struct entry {
    uint64_t hash;
    size_t profile;             /* index in mtc_chain_profiles() */
    int64_t not_before, lifetime;
    mtc_chain_alg leaf_alg, ca_alg;
    int drop_cross;
    char *dns_name;             /* owned copy */
    unsigned char tail[TAIL_LEN]; /* the chain's fields after buf */
    size_t used;                /* bytes of buf in `bytes` */
    uint8_t *bytes;             /* owned */
    size_t ncerts, off[MTC_CHAIN_CERTS_MAX], len[MTC_CHAIN_CERTS_MAX];
} entry;

struct mtc_chain_cache {
    entry *e;
    size_t n, cap_entries;
    size_t bytes, cap_bytes;
    uint64_t hits, builds, unkept, reused;
    mtc__chain_ring ring;       /* the parties' keys, made once */
};

int mtc_chain_cache_create(size_t cap, mtc_chain_cache **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return MTC_ERR_NOMEM;
    (*out)->cap_bytes = cap;
    return MTC_OK;
}

void mtc_chain_cache_destroy(mtc_chain_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->e[i].dns_name);
        free(c->e[i].bytes);
    }
    free(c->e);
    mtc__chain_ring_free(&c->ring);
    free(c);
}

/* FNV-1a over the key's fields (values, not their padding). */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

static uint64_t key_hash(size_t profile, const mtc_chain_opts *o)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    int32_t la = (int32_t)o->leaf_alg, ca = (int32_t)o->ca_alg, dc = (int32_t)o->drop_cross;
    h = fnv(h, &profile, sizeof profile);
    h = fnv(h, &o->not_before, sizeof o->not_before);
    h = fnv(h, &o->lifetime, sizeof o->lifetime);
    h = fnv(h, &la, sizeof la);
    h = fnv(h, &ca, sizeof ca);
    h = fnv(h, &dc, sizeof dc);
    return fnv(h, o->dns_name, strlen(o->dns_name));
}

static int key_equal(const entry *e, uint64_t h, size_t profile, const mtc_chain_opts *o)
{
    return e->hash == h && e->profile == profile && e->not_before == o->not_before &&
           e->lifetime == o->lifetime && e->leaf_alg == o->leaf_alg &&
           e->ca_alg == o->ca_alg && e->drop_cross == o->drop_cross &&
           strcmp(e->dns_name, o->dns_name) == 0;
}

/* The end of the last certificate in c->buf. */
static size_t used_bytes(const mtc_chain *c)
{
    size_t end = 0;
    for (size_t i = 0; i < c->ncerts && i < MTC_CHAIN_CERTS_MAX; i++)
        if (c->off[i] + c->len[i] > end)
            end = c->off[i] + c->len[i];
    return end;
}

/* Keeps a copy of the chain just built in c->e, if it fits under the cap
 * (1), or leaves the cache as it was (0). */
static int keep(mtc_chain_cache *c, uint64_t h, size_t profile, const mtc_chain_opts *o,
                const mtc_chain *ch)
{
    size_t used = used_bytes(ch), nl = strlen(o->dns_name) + 1;
    size_t cost = sizeof(entry) + used + nl;
    if (used > MTC_CHAIN_BUF || cost > c->cap_bytes || c->bytes > c->cap_bytes - cost)
        return 0;
    if (c->n == c->cap_entries) {
        size_t ncap = c->cap_entries ? 2 * c->cap_entries : 16;
        entry *ne = realloc(c->e, ncap * sizeof *ne);
        if (!ne)
            return 0;
        c->e = ne;
        c->cap_entries = ncap;
    }
    entry *e = &c->e[c->n];
    memset(e, 0, sizeof *e);
    e->dns_name = malloc(nl);
    e->bytes = malloc(used ? used : 1);
    if (!e->dns_name || !e->bytes) {
        free(e->dns_name);
        free(e->bytes);
        return 0;
    }
    memcpy(e->dns_name, o->dns_name, nl);
    memcpy(e->bytes, ch->buf, used);
    memcpy(e->tail, (const unsigned char *)ch + TAIL_OFF, TAIL_LEN);
    e->used = used;
    e->ncerts = ch->ncerts;
    memcpy(e->off, ch->off, sizeof e->off);
    memcpy(e->len, ch->len, sizeof e->len);
    e->hash = h;
    e->profile = profile;
    e->not_before = o->not_before;
    e->lifetime = o->lifetime;
    e->leaf_alg = o->leaf_alg;
    e->ca_alg = o->ca_alg;
    e->drop_cross = o->drop_cross;
    c->n++;
    c->bytes += cost;
    return 1;
}

int mtc_chain_cache_build(mtc_chain_cache *c, const mtc_chain_profile *p,
                          const mtc_chain_opts *o, mtc_chain *out)
{
    if (!c)
        return mtc_chain_build(p, o, out);
    size_t np;
    const mtc_chain_profile *all = mtc_chain_profiles(&np);
    /* outside the table, or arguments mtc_chain_build refuses: built
     * (and refused) there, never cached */
    int table = p && p >= all && p < all + np;
    if (!table || !o || !o->dns_name || !out) {
        c->builds++;
        int rc = mtc_chain_build(p, o, out);
        if (rc == MTC_OK)
            c->unkept++;
        return rc;
    }
    size_t profile = (size_t)(p - all);
    uint64_t h = key_hash(profile, o);
    for (size_t i = 0; i < c->n; i++) {
        const entry *e = &c->e[i];
        if (key_equal(e, h, profile, o)) {
            memcpy(out->buf, e->bytes, e->used);
            memcpy((unsigned char *)out + TAIL_OFF, e->tail, TAIL_LEN);
            c->hits++;
            return MTC_OK;
        }
    }
    c->builds++;
    /* a kept chain with the same CA certificates lends them: only the
     * leaf's signatures are made (mtc__chain_build_cas says why that is
     * the same chain) */
    mtc__chain_cas cas = {{0}, {0}, 0};
    for (size_t i = 0; i < c->n && !cas.n; i++) {
        const entry *e = &c->e[i];
        mtc_chain_opts eo = {e->dns_name, e->not_before, e->lifetime, e->leaf_alg, e->ca_alg,
                             e->drop_cross};
        if (e->profile != profile || e->ncerts < 2 || !mtc__chain_same_cas(p, &eo, o))
            continue;
        for (size_t k = 1; k < e->ncerts; k++) {
            cas.der[k - 1] = e->bytes + e->off[k];
            cas.len[k - 1] = e->len[k];
        }
        cas.n = e->ncerts - 1;
    }
    int rc = mtc__chain_build_ring(p, o, cas.n ? &cas : NULL, &c->ring, out);
    if (cas.n && rc == MTC_OK)
        c->reused++;
    if (rc == MTC_OK && !keep(c, h, profile, o, out))
        c->unkept++;
    return rc;
}

void mtc_chain_cache_get_stats(const mtc_chain_cache *c, mtc_chain_cache_stats *s)
{
    memset(s, 0, sizeof *s);
    if (!c)
        return;
    s->entries = c->n;
    s->bytes = c->bytes;
    s->hits = c->hits;
    s->builds = c->builds;
    s->unkept = c->unkept;
    s->reused = c->reused;
}
