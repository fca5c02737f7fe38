/*
 * merkle_ref.h - a deliberately naive Merkle reference for tests.
 *
 * Transcribes the draft's and RFC 9162's *recursive* definitions (MTH,
 * PATH, SUBTREE_SUBPROOF) over an array of leaf hashes, sharing no code
 * with mtc-core's iterative implementation, so the two check each other.
 */
#ifndef MTC_TESTS_MERKLE_REF_H
#define MTC_TESTS_MERKLE_REF_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/hash.h"

/* MTH(D[start:end]); HASH() when empty. */
void ref_mth(const mtc_hash *d, uint64_t start, uint64_t end, mtc_hash *out);

/* PATH(index - start, D[start:end]) into proof; returns the length. */
size_t ref_inclusion(const mtc_hash *d, uint64_t index, uint64_t start,
                     uint64_t end, mtc_hash *proof);

/* SUBTREE_PROOF(start, end, D_n) into proof; returns the length. */
size_t ref_subtree_consistency(const mtc_hash *d, uint64_t start, uint64_t end,
                               uint64_t n, mtc_hash *proof);

/* Pseudo-random leaf hashes for tests: leaf i of tree `seed`. */
void ref_leaf(uint64_t seed, uint64_t i, mtc_hash *out);

/* splitmix64 step, for test randomness that needs no library. */
uint64_t ref_rand(uint64_t *state);

#endif
