/*
 * mtc/merkle.h - Merkle Tree Hash, subtrees and their proofs.
 *
 * Implements section "Subtrees" of draft-ietf-plants-merkle-tree-certs and
 * RFC 9162 section 2.1 over SHA-256. The functions here are pure: proof
 * *generation* reads node hashes through an mtc_node_source, so the same
 * code serves an in-memory array of leaf hashes (mtc_array_source) and the
 * compact issuance-log store (mtc/tree.h). Proof *verification* needs no
 * tree at all.
 *
 * Sizes and indices are uint64_t; every function is correct for the whole
 * 64-bit range (the draft caps logs at 2^48-1 entries, which mtc/tree.h
 * enforces). Proofs are arrays of hashes in the order the draft defines
 * (bottom of the tree first).
 */
#ifndef MTC_MERKLE_H
#define MTC_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/hash.h"

/* Longest proof any function here produces or accepts: an inclusion proof
 * has at most 64 hashes, a subtree consistency proof at most 2*64. */
#define MTC_PROOF_MAX 128

/*
 * 1 when [start, end) is a valid subtree: start <= end and start is a
 * multiple of BIT_CEIL(end - start). Overflow-safe for all 64-bit values.
 */
int mtc_subtree_valid(uint64_t start, uint64_t end);

/*
 * A read-only view of a tree's node hashes. range_hash must write
 * MTH(D[start:end]) for a valid, non-empty subtree with end <= size and
 * return MTC_OK, or return a negative error (MTC_ERR_PRUNED, ...), which
 * proof generation passes on unchanged.
 */
typedef struct mtc_node_source {
    int (*range_hash)(void *ctx, uint64_t start, uint64_t end, mtc_hash *out);
    void *ctx;
    uint64_t size; /* number of entries n */
} mtc_node_source;

/*
 * A node source over n leaf hashes held in memory (borrowed, not copied:
 * `leaves` must outlive the source). range_hash recomputes by recursion,
 * O(end - start) hashes; meant for small trees, tests and the CLI.
 */
void mtc_array_source(mtc_node_source *src, const mtc_hash *leaves, uint64_t n);

/* MTH(D[start:end]) for a valid subtree of `src` (empty: HASH()). */
int mtc_subtree_hash(const mtc_node_source *src, uint64_t start, uint64_t end,
                     mtc_hash *out);

/*
 * Subtree inclusion proof for entry `index` of subtree [start, end):
 * writes up to MTC_PROOF_MAX hashes to proof[] and their count to *len.
 * Errors: MTC_ERR_SUBTREE, MTC_ERR_RANGE (index outside [start, end) or
 * end > size), or the source's error.
 */
int mtc_inclusion_proof(const mtc_node_source *src, uint64_t index,
                        uint64_t start, uint64_t end, mtc_hash *proof,
                        size_t *len);

/*
 * Evaluates an inclusion proof (draft "Evaluating a Subtree Inclusion
 * Proof"): the subtree hash implied by entry_hash and the proof.
 * MTC_OK, MTC_ERR_SUBTREE, MTC_ERR_RANGE or MTC_ERR_PROOF_LEN.
 */
int mtc_inclusion_evaluate(uint64_t index, uint64_t start, uint64_t end,
                           const mtc_hash *entry_hash, const mtc_hash *proof,
                           size_t len, mtc_hash *out);

/* Evaluates and compares with subtree_hash: MTC_OK or a negative error
 * (MTC_ERR_PROOF when the hashes differ). */
int mtc_inclusion_verify(uint64_t index, uint64_t start, uint64_t end,
                         const mtc_hash *entry_hash, const mtc_hash *proof,
                         size_t len, const mtc_hash *subtree_hash);

/*
 * Subtree consistency proof SUBTREE_PROOF(start, end, D_n) for a tree of
 * n = src->size entries, or of any earlier size n <= src->size given by
 * `n`. Errors as for mtc_inclusion_proof.
 */
int mtc_subtree_consistency_proof(const mtc_node_source *src, uint64_t start,
                                  uint64_t end, uint64_t n, mtc_hash *proof,
                                  size_t *len);

/* Verifies a subtree consistency proof between node_hash of [start, end)
 * and root_hash of a tree of n entries. MTC_OK or a negative error. */
int mtc_subtree_consistency_verify(uint64_t start, uint64_t end, uint64_t n,
                                   const mtc_hash *node_hash,
                                   const mtc_hash *root_hash,
                                   const mtc_hash *proof, size_t len);

/*
 * RFC 9162 consistency proof PROOF(m, D_n) between tree sizes
 * 0 < m <= n <= src->size (empty when m == n).
 */
int mtc_consistency_proof(const mtc_node_source *src, uint64_t m, uint64_t n,
                          mtc_hash *proof, size_t *len);

/* RFC 9162 section 2.1.4.2 verification of PROOF(m, D_n). */
int mtc_consistency_verify(uint64_t m, uint64_t n, const mtc_hash *old_root,
                           const mtc_hash *new_root, const mtc_hash *proof,
                           size_t len);

/* The two subtrees that efficiently cover [start, end) (draft "Selecting
 * Two Subtrees"). MTC_OK, or MTC_ERR_ARG when start > end. */
typedef struct mtc_subtree {
    uint64_t start, end;
} mtc_subtree;

int mtc_covering_subtrees(uint64_t start, uint64_t end, mtc_subtree *left,
                          mtc_subtree *right);

#endif
