/*
 * mtc/chain_cache.h - built chains (mtc/chain.h) kept for reuse, so that a
 * process that asks for the same chain many times signs it once.
 *
 * Why: a chain is a pure function of its profile and options (keys from
 * fixed seeds, deterministic signatures, mtc/chain.h), and every world a
 * process runs asks for the same few dozen baseline chains. Building one
 * costs milliseconds (RSA 4,096 and ML-DSA signing); a sweep or a test
 * that builds many worlds paid that again for each world. A cache owned by
 * the caller (the process that runs the worlds) and borrowed by each world
 * pays it once per process; what a world does with a chain is unchanged,
 * so results are bit-identical with or without one.
 *
 * Why whole chains and not what a user derives from them (message lengths,
 * compressed lengths): the chain depends only on its profile and options,
 * which this module can key completely; a derived figure also depends on
 * its user's encoding choices (TLS code points, compression), which a key
 * here would have to know of. The derivations are cheap next to signing.
 *
 * The key is everything a chain depends on: the profile (the library's own
 * table entry) and every field of mtc_chain_opts, the whole dns_name
 * string included (the compressed size of a chain depends on the bytes of
 * the name, not only its length). Only the library's profiles are cached
 * (an element of mtc_chain_profiles(): static, immutable); a profile of
 * the caller's own is built every time, since its fields could change
 * between calls. A build that fails is returned as failed and not cached,
 * so the next call tries again. A chain that is not kept yet need not be
 * signed whole: its CA certificates depend only on the profile,
 * not_before and the CA key types, so when a kept chain shares those its
 * CA certificates are copied and only the leaf (with its SCTs and the
 * handshake signature) is signed; the result is the chain a build makes.
 * The signers' keys (fixed by key type and party) are made once and kept
 * too.
 *
 * Memory: an entry holds the chain's used bytes (a few KB; an ML-DSA-87
 * chain with three SCTs ~25 KB), not the MTC_CHAIN_BUF buffer. The cache
 * stops keeping new chains once its entries would hold more than the cap
 * given at creation (MTC_CHAIN_CACHE_CAP_DEFAULT: room for hundreds of
 * worlds' baselines); past the cap every new chain is still built and
 * returned, only not kept, and what is kept stays served. The signers'
 * keys are outside the cap: at most one per key type and party, a few
 * dozen (under 4 MB with every ML-DSA level's expanded keys).
 *
 * Ownership: the caller owns the cache (create/destroy); users borrow it,
 * and it must outlive them. The caller owns every mtc_chain it passes.
 * Not thread-safe: one cache per thread (a forked process has its own
 * copy, which is what `mtcsim run -j` workers get).
 */
#ifndef MTC_CHAIN_CACHE_H
#define MTC_CHAIN_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/chain.h"

typedef struct mtc_chain_cache mtc_chain_cache;

/* The default cap on the bytes the entries hold (32 MiB). */
#define MTC_CHAIN_CACHE_CAP_DEFAULT ((size_t)32 << 20)

/* An empty cache whose entries hold at most cap bytes (keys, chains and
 * bookkeeping counted). MTC_OK, or MTC_ERR_NOMEM (*out NULL). */
int mtc_chain_cache_create(size_t cap, mtc_chain_cache **out);

/* Frees the cache and every chain it keeps; accepts NULL. */
void mtc_chain_cache_destroy(mtc_chain_cache *c);

/*
 * What mtc_chain_build(p, opts, out) does, from the cache when it keeps
 * the chain: out receives the same certificates (buf[0 .. the end of the
 * last certificate)) and the same values of every other field; the rest
 * of out->buf is unspecified, as after a build. c NULL: mtc_chain_build
 * itself. Errors are mtc_chain_build's (and out->ncerts is 0); the chain
 * is then not cached. A chain built but not kept (the cap, or no memory
 * for the entry) is still returned with MTC_OK.
 */
int mtc_chain_cache_build(mtc_chain_cache *c, const mtc_chain_profile *p,
                          const mtc_chain_opts *opts, mtc_chain *out);

/* What a cache did so far (for tests and profiles). */
typedef struct mtc_chain_cache_stats {
    size_t entries;     /* chains kept */
    size_t bytes;       /* what they hold, against the cap */
    uint64_t hits;      /* calls answered from an entry */
    uint64_t builds;    /* calls that built (each miss, every failure,
                           every profile outside the library's table) */
    uint64_t unkept;    /* chains built fine but not kept: the cap, no
                           memory, or a profile outside the table */
    uint64_t reused;    /* builds that copied the CA certificates of a
                           kept chain with the same profile, not_before
                           and CA key types, and signed the leaf alone */
} mtc_chain_cache_stats;

void mtc_chain_cache_get_stats(const mtc_chain_cache *c, mtc_chain_cache_stats *s);

#endif
