/*
 * mtc/bulk.h - bulk subtree consistency proofs
 * (draft-reilly-plants-bulk-subtree-proofs-01): one proof that every
 * subtree of a set is consistent with one reference checkpoint, instead of
 * one subtree consistency proof per subtree (mtc/merkle.h).
 *
 * The proof carries the claimed subtree hashes and the hashes of a tiling
 * of [0, n) into full subtrees, refined at every subtree endpoint. Tile
 * ranges are never transmitted: generator and verifier derive them with
 * mtc_bulk_tiling. The verifier recomputes the reference root and every
 * claimed subtree hash from the tiles (the draft's COMPUTE, memoized).
 *
 * Wire format, exactly the draft's (TLS presentation language, big-endian;
 * vector lengths count bytes):
 *
 *   struct { uint64 start; uint64 end; HashValue hash; } SubtreeRef;
 *   struct {
 *       uint64 tree_size;
 *       SubtreeRef subtrees<1..2^16-1>;    at most 1365 subtrees
 *       HashValue tiles<1..2^16-1>;        at most 2047 tiles
 *   } BulkSubtreeProof;
 *
 * so an encoding is 12 + 48 * subtrees + 32 * tiles bytes. Choices where
 * the draft is silent (docs/conformance.md): empty subtrees [s, s) and a
 * tree_size of 0 are refused (COMPUTE is undefined for them).
 */
#ifndef MTC_BULK_H
#define MTC_BULK_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/hash.h"
#include "mtc/merkle.h"

/* The vector limits of the wire format, in entries. */
#define MTC_BULK_MAX_SUBTREES (65535 / 48)
#define MTC_BULK_MAX_TILES (65535 / 32)

typedef struct mtc_bulk_subtree {
    uint64_t start, end;
    mtc_hash hash;
} mtc_bulk_subtree;

/* A proof; mtc_bulk_build and mtc_bulk_decode return one allocated as a
 * whole (release with mtc_bulk_free); a caller may also build one of
 * borrowed arrays to encode or verify it. */
typedef struct mtc_bulk_proof {
    uint64_t tree_size;
    mtc_bulk_subtree *subtrees;
    size_t n_subtrees;
    mtc_hash *tiles;
    size_t n_tiles;
} mtc_bulk_proof;

/* Bytes of the encoding of a proof with these counts. */
size_t mtc_bulk_encoded_len(size_t n_subtrees, size_t n_tiles);

/*
 * The draft's TILING(subs, n): full subtrees partitioning [0, n), refined
 * at every endpoint of subs (any order; endpoints beyond n are the
 * caller's error: MTC_ERR_RANGE). Writes up to cap ranges to tiles (NULL
 * allowed with cap 0) and the total to *count, also when cap is short
 * (then MTC_ERR_LIMIT). The count alone is the proof-size formula.
 */
int mtc_bulk_tiling(const mtc_subtree *subs, size_t n_subs, uint64_t n,
                    mtc_subtree *tiles, size_t cap, size_t *count);

/*
 * The CA or update-service side: a proof for subs[0..n_subs) (in the
 * required order: ascending start, ties by descending end, no duplicates,
 * each valid, non-empty and ending at or before n) against the tree of
 * size n read through src (n <= src->size). Errors: MTC_ERR_ARG (order,
 * empty set, n == 0), MTC_ERR_SUBTREE, MTC_ERR_RANGE, MTC_ERR_LIMIT (more
 * subtrees or tiles than the wire format holds), the source's error,
 * MTC_ERR_NOMEM.
 */
int mtc_bulk_build(const mtc_node_source *src, uint64_t n,
                   const mtc_subtree *subs, size_t n_subs,
                   mtc_bulk_proof **out);

/* Encodes p into out[cap]; *out_len gets the length also when out is NULL
 * or cap short (then MTC_ERR_LIMIT). MTC_ERR_ARG when a count is 0 or
 * beyond the wire limits. */
int mtc_bulk_encode(const mtc_bulk_proof *p, uint8_t *out, size_t cap,
                    size_t *out_len);

/* Decodes in[0..len) strictly (every length consumed, vectors whole
 * multiples of their element and non-empty, nothing after the tiles).
 * Verifies nothing. *out is one allocation (copies, nothing borrowed).
 * MTC_ERR_PARSE or MTC_ERR_NOMEM. */
int mtc_bulk_decode(const uint8_t *in, size_t len, mtc_bulk_proof **out);

void mtc_bulk_free(mtc_bulk_proof *p); /* NULL allowed */

/*
 * The draft's verification (section 4.5) of p against a reference
 * checkpoint of n entries with root `root`: MTC_OK when tree_size == n,
 * the subtrees are non-empty, ordered, valid and within n, the tile count
 * matches the derived tiling, COMPUTE(0, n) == root and COMPUTE(start,
 * end) == hash for every subtree. Otherwise MTC_ERR_ARG (shape, order),
 * MTC_ERR_SUBTREE, MTC_ERR_RANGE, MTC_ERR_PROOF_LEN (tile count),
 * MTC_ERR_PROOF (a hash differs) or MTC_ERR_NOMEM. All or nothing.
 */
int mtc_bulk_verify(const mtc_bulk_proof *p, uint64_t n, const mtc_hash *root);

/*
 * A node source answering from a proof's tiles: range_hash(start, end) is
 * the draft's COMPUTE over the tiling of p's subtrees, so it answers for
 * every valid subtree whose endpoints fall on tile boundaries (others:
 * MTC_ERR_PROOF). With it a verified proof yields the proof of any subset
 * of its subtrees (a subset's tiling is coarser: each coarse tile is a
 * union of fine ones). *state must outlive src; both borrow p.
 */
typedef struct mtc_bulk_source_state {
    const mtc_bulk_proof *p;
    mtc_subtree *ranges;    /* owned; the derived tile ranges */
} mtc_bulk_source_state;

int mtc_bulk_source(const mtc_bulk_proof *p, mtc_bulk_source_state *state,
                    mtc_node_source *src);
void mtc_bulk_source_free(mtc_bulk_source_state *state);

#endif
