/*
 * mtc/ilog.h - a CA's issuance log with checkpoints and cosignatures: the
 * machinery that turns appended entries into standalone and
 * landmark-relative certificate proofs (draft sections "Issuance Logs",
 * "Standalone Certificates", "Constructing Landmark-Relative
 * Certificates").
 *
 * The log stores leaf hashes in an mtc_tree (compact, see mtc/tree.h), not
 * the entries: callers keep what they need to rebuild a certificate (the
 * entry fields and the subject key). A checkpoint closes a batch [prev,
 * size): the two covering subtrees are computed and signed by each given
 * cosigner (timestamp 0, the form certificates carry). Proofs borrow the
 * batch's signature bytes, valid while the log lives.
 */
#ifndef MTC_ILOG_H
#define MTC_ILOG_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/cert.h"
#include "mtc/cosig.h"
#include "mtc/landmark.h"
#include "mtc/taid.h"
#include "mtc/tree.h"

typedef struct mtc_ilog mtc_ilog;

/* A new, empty log number log_number (1..65535) of CA ca_id. opts as for
 * mtc_tree_new (NULL: keep everything). NULL on failure. */
mtc_ilog *mtc_ilog_new(const mtc_taid *ca_id, uint64_t log_number,
                       const mtc_tree_options *opts);
void mtc_ilog_free(mtc_ilog *l); /* NULL allowed */

const mtc_taid *mtc_ilog_ca_id(const mtc_ilog *l);
const mtc_taid *mtc_ilog_log_id(const mtc_ilog *l);
uint64_t mtc_ilog_number(const mtc_ilog *l);
uint64_t mtc_ilog_size(const mtc_ilog *l);
mtc_tree *mtc_ilog_tree(mtc_ilog *l);

/* Appends an entry (its leaf hash); *index gets its index. */
int mtc_ilog_append(mtc_ilog *l, mtc_slice exts, const mtc_tbs_entry *e,
                    uint64_t *index);
/* Appends a precomputed leaf hash (e.g. of a null_entry). */
int mtc_ilog_append_hash(mtc_ilog *l, const mtc_hash *leaf, uint64_t *index);

/*
 * Closes the batch of entries since the last checkpoint: covering
 * subtrees, their hashes, and a signature from each of cosigners[0..n)
 * on each. A no-op (MTC_OK) when nothing was appended. Cosigner IDs must
 * be distinct (MTC_ERR_ARG).
 */
int mtc_ilog_checkpoint(mtc_ilog *l, const mtc_cosigner *cosigners, size_t n);

/* Size at the last checkpoint. */
uint64_t mtc_ilog_checkpoint_size(const mtc_ilog *l);

/* Room for the inclusion proof a proof borrows. */
typedef struct mtc_proof_storage {
    mtc_hash inclusion[MTC_PROOF_MAX_HASHES];
} mtc_proof_storage;

/*
 * The standalone proof of entry `index`: its batch's covering subtree that
 * contains it, the inclusion proof (into *st) and the batch's signatures
 * on that subtree, ordered as MTCProof requires. p->extensions is set to
 * exts (the entry's). MTC_ERR_RANGE when the entry is not yet
 * checkpointed; tree errors (MTC_ERR_PRUNED) pass through.
 */
int mtc_ilog_standalone_proof(mtc_ilog *l, uint64_t index, mtc_slice exts,
                              mtc_proof_storage *st, mtc_proof *p);

/*
 * The landmark-relative proof of entry `index` against landmarks lm: the
 * subtree of the covering active landmark, the inclusion proof, no
 * signatures. *landmark gets the landmark number. Errors as
 * mtc_landmarks_for_index.
 */
int mtc_ilog_landmark_proof(mtc_ilog *l, const mtc_landmarks *lm,
                            uint64_t index, mtc_slice exts,
                            mtc_proof_storage *st, mtc_proof *p,
                            uint64_t *landmark);

#endif
