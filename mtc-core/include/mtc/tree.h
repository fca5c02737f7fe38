/*
 * mtc/tree.h - the append-only tree store of an issuance log.
 *
 * Workload: entries are appended one at a time (millions per hour at Let's
 * Encrypt scale), proofs are requested for recent entries far more often
 * than for old ones, and old entries expire and are pruned. The store keeps
 * full interior nodes only at heights >= tile_height (plus the leaf hashes
 * of the last, incomplete tile); every lower node is recomputed on demand
 * from leaf hashes, which come either from the store itself (keep_leaves)
 * or from the caller's leaf callback (an issuance log can rebuild an entry
 * from its index). With tile height H and no kept leaves the store costs
 * about 64 / 2^H bytes per entry: 4 bytes at H = 4, so 300 million entries
 * take 1.2 GB.
 *
 * Pruning drops everything below an index (rounded down to a tile
 * boundary) except the few nodes that proofs for later entries still need:
 * per level at most one node left of the boundary.
 *
 * A store is not thread-safe; one writer, and readers serialised with it.
 */
#ifndef MTC_TREE_H
#define MTC_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/hash.h"
#include "mtc/merkle.h"

/* The draft limits an issuance log to 2^48 - 1 entries. */
#define MTC_TREE_MAX_ENTRIES ((UINT64_C(1) << 48) - 1)

/* Returns the leaf hash MTH({d[index]}) of an entry the store no longer
 * holds. MTC_OK or a negative error, which the store passes on. */
typedef int (*mtc_leaf_fn)(void *ctx, uint64_t index, mtc_hash *out);

typedef struct mtc_tree_options {
    unsigned tile_height;  /* 0..16; nodes below it are recomputed */
    int keep_leaves;       /* keep every leaf hash (32 B/entry) */
    mtc_leaf_fn leaf_fn;   /* required when !keep_leaves and tile_height>0 */
    void *leaf_ctx;
} mtc_tree_options;

typedef struct mtc_tree mtc_tree;

/*
 * Creates an empty store. opts == NULL means {tile_height 0, keep_leaves 1}:
 * every node is kept. Returns NULL on allocation failure or invalid options
 * (tile_height > 16, or leaves neither kept nor available from leaf_fn).
 */
mtc_tree *mtc_tree_new(const mtc_tree_options *opts);

/* Frees the store and everything it holds; NULL is allowed. */
void mtc_tree_free(mtc_tree *t);

/* Number of entries appended so far (pruned ones included). */
uint64_t mtc_tree_size(const mtc_tree *t);

/* First entry index still answerable (0 until the first prune). */
uint64_t mtc_tree_pruned_below(const mtc_tree *t);

/*
 * Appends one leaf hash. MTC_OK, MTC_ERR_TREE_FULL, MTC_ERR_NOMEM (the
 * store is unchanged on error).
 */
int mtc_tree_append(mtc_tree *t, const mtc_hash *leaf_hash);

/*
 * Drops storage for entries below `index` (rounded down to a multiple of
 * 2^tile_height), keeping what proofs for entries >= index need. Never
 * un-prunes; index > size is MTC_ERR_RANGE.
 */
int mtc_tree_prune(mtc_tree *t, uint64_t index);

/* A node source over the tree at its current size (valid until the next
 * append, prune or free). Proof functions of mtc/merkle.h accept it. */
void mtc_tree_source(mtc_tree *t, mtc_node_source *src);

/* Convenience wrappers: the same as the mtc/merkle.h functions applied to
 * mtc_tree_source(t) with the tree's current size. */
int mtc_tree_root(mtc_tree *t, uint64_t n, mtc_hash *out); /* MTH(D[0:n]) */
int mtc_tree_subtree_hash(mtc_tree *t, uint64_t start, uint64_t end,
                          mtc_hash *out);
int mtc_tree_leaf_hash(mtc_tree *t, uint64_t index, mtc_hash *out);

/* Bytes of heap the store holds now (its own accounting, exact). */
size_t mtc_tree_memory(const mtc_tree *t);

/*
 * What mtc_tree_memory() reports for a store made with `opts` (NULL: the
 * mtc_tree_new default) after `size` appends and prunes that left
 * mtc_tree_pruned_below() at `pruned_below`: the accounting depends on
 * nothing else, so a store that only counts its entries (mtc/synth_tree.h)
 * can report the storage this one would need. 0 for invalid options or
 * pruned_below > size.
 */
size_t mtc_tree_memory_at(const mtc_tree_options *opts, uint64_t size,
                          uint64_t pruned_below);

#endif
