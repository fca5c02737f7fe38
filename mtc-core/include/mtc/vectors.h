/*
 * mtc/vectors.h - recomputation of the draft's accumulated test vectors.
 */
#ifndef MTC_VECTORS_H
#define MTC_VECTORS_H

#include "mtc/hash.h"

#define MTC_VECTOR_COUNT 4

/* Names in output order: "subtree-hashes", "inclusion-proofs",
 * "consistency-proofs", "covering-subtrees". */
extern const char *const mtc_vector_names[MTC_VECTOR_COUNT];

/* Computes the four accumulated vectors of appendix "Subtree Test Vectors"
 * with this library's Merkle functions. MTC_OK or a negative error. */
int mtc_subtree_vectors(mtc_hash out[MTC_VECTOR_COUNT]);

#endif
