/*
 * mtc/synth_tree.h - an issuance log's tree whose unobserved history is
 * synthetic: the store of a simulated log of millions of entries of which
 * only a few thousand are ever looked at.
 *
 * Entries are appended either as *real* leaves (their leaf hash is given
 * and kept) or as *opaque* ones (only counted: no content, no hash). A full
 * node [k*2^h, (k+1)*2^h) none of whose entries is real is never computed
 * from its leaves: its hash is
 *
 *     SHA-256(0x02 || key || h (1 octet) || k (8 octets, big-endian))
 *
 * for the store's 32-byte key, in O(1). Every other node is HASH(0x01 ||
 * left || right) of its children, computed on demand and memoised. Those
 * are the nodes a verifier may have to recompute: the nodes covering an
 * *observed* entry, which is a real entry or the last entry before a
 * *cut*. A cut is a tree size at which the caller reads roots or subtrees
 * that end there (a checkpoint's size): a verifier checking a consistency
 * or subtree proof at that size recombines exactly the nodes over its last
 * entry, and an inclusion proof for a real entry the nodes over that
 * entry. So every root, subtree hash and proof the store serves is real
 * SHA-256 over these node values, and every proof that would verify over
 * the hashed log verifies here with mtc/merkle.h's verifiers.
 *
 * The rules that keep it so (the store enforces both):
 *  - a range that is not a single full node may be read only if it ends
 *    at a cut or just after a real entry (else MTC_ERR_ARG);
 *  - a cut is declared (mtc_synth_tree_cut) before any node ending at that
 *    size is read; afterwards is MTC_ERR_ARG.
 * Then whether a full node is synthetic never changes: observed entries
 * only come at the end, so a node's are fixed once it is full. What such
 * a tree cannot give is a proof for an opaque entry that verifies against
 * that entry's content (it has none): a caller appends as real every entry
 * whose content anyone will check. Proof *lengths* are those of any tree.
 *
 * Cost: an append is O(1) (a real one or a cut also stores 40 octets); a proof or
 * root reads O(log n) nodes, each synthetic or memoised after the first
 * computation, so with r real entries the memo holds at most about
 * r * log2(n / r) + 2r nodes for r observed entries.
 *
 * Pruning answers as mtc/tree.h's store with the same tile_height would:
 * the pruned boundary is rounded down to a multiple of 2^tile_height, and
 * a full node read at height h >= tile_height is refused (MTC_ERR_PRUNED)
 * when it lies left of the one node per height that store keeps, and at a
 * height below tile_height when it starts left of the boundary. So a
 * caller sees the same successes and refusals from either store.
 *
 * A store is not thread-safe; one writer, and readers serialised with it.
 * The store owns everything it holds; the caller owns the options.
 */
#ifndef MTC_SYNTH_TREE_H
#define MTC_SYNTH_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/hash.h"
#include "mtc/merkle.h"

typedef struct mtc_synth_tree_options {
    unsigned tile_height;           /* 0..16: pruning granularity (above) */
    uint8_t key[MTC_HASH_LEN];      /* keys the synthetic node hashes */
} mtc_synth_tree_options;

typedef struct mtc_synth_tree mtc_synth_tree;

/* An empty store; NULL on allocation failure or tile_height > 16. */
mtc_synth_tree *mtc_synth_tree_new(const mtc_synth_tree_options *opts);

/* Frees the store and everything it holds; NULL is allowed. */
void mtc_synth_tree_free(mtc_synth_tree *t);

/* Entries appended so far, real and opaque (pruned ones included). */
uint64_t mtc_synth_tree_size(const mtc_synth_tree *t);

/* First entry index still answerable (0 until the first prune). */
uint64_t mtc_synth_tree_pruned_below(const mtc_synth_tree *t);

/* Appends `count` opaque entries in O(1). MTC_OK, or MTC_ERR_TREE_FULL
 * past 2^48 - 1 entries (nothing appended). */
int mtc_synth_tree_append_opaque(mtc_synth_tree *t, uint64_t count);

/* Appends one real entry by its leaf hash. MTC_OK, MTC_ERR_TREE_FULL,
 * MTC_ERR_NOMEM (the store is unchanged on error). */
int mtc_synth_tree_append(mtc_synth_tree *t, const mtc_hash *leaf_hash);

/*
 * Declares the current size a cut (see above). MTC_OK (also when it is
 * already one, or the tree is empty), MTC_ERR_ARG when a node ending at
 * this size was read already, MTC_ERR_NOMEM.
 */
int mtc_synth_tree_cut(mtc_synth_tree *t);

/*
 * Drops everything below `index` (rounded down to a multiple of
 * 2^tile_height) except the one node per height that later proofs still
 * need, which is computed first. Never un-prunes; index > size is
 * MTC_ERR_RANGE; MTC_ERR_NOMEM leaves the store as it was.
 */
int mtc_synth_tree_prune(mtc_synth_tree *t, uint64_t index);

/* A node source over the tree at its current size (valid until the next
 * append, prune or free). Proof functions of mtc/merkle.h accept it;
 * reading may fill the memo (MTC_ERR_NOMEM when that fails). */
void mtc_synth_tree_source(mtc_synth_tree *t, mtc_node_source *src);

/* The leaf hash of entry index: a real entry's own, an opaque entry's
 * synthetic one (height 0). MTC_ERR_RANGE, MTC_ERR_PRUNED. */
int mtc_synth_tree_leaf_hash(mtc_synth_tree *t, uint64_t index, mtc_hash *out);

/* Observed entries held (real ones and cuts; pruning keeps them, so
 * the store's memory grows by 40 octets per cut and real entry). */
size_t mtc_synth_tree_real_count(const mtc_synth_tree *t);

/* Bytes of heap the store holds now (its own accounting, exact). */
size_t mtc_synth_tree_memory(const mtc_synth_tree *t);

#endif
