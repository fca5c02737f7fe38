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
 * size): the checkpoint itself is signed (timestamped, start 0, end the
 * tree size), and the two covering subtrees are computed and signed by
 * each given cosigner (timestamp 0, the form certificates carry). Proofs
 * and checkpoints borrow the batch's signature bytes, valid while the log
 * lives.
 *
 * The log is the CA's side of the draft, so it enforces the CA's rules
 * at the one place it sees entries, the append: it holds only entries of
 * types it recognizes, with extensions it recognizes and a conforming
 * issuerAltName label, and only while it is the CA's current log.
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

/*
 * "A CA MUST NOT sign a subtree if it contains an entry with type or
 * extension_type that it does not recognize" (draft, "Certification
 * Authority Cosigners"). A log recognizes the entry types null_entry and
 * tbs_cert_entry and, until told otherwise, no MTCLogEntry extension type:
 * the draft defines none. A CA that implements an extension registers its
 * type here. MTC_ERR_LIMIT beyond MTC_ILOG_MAX_EXT_TYPES types.
 */
#define MTC_ILOG_MAX_EXT_TYPES 16
int mtc_ilog_recognize_ext(mtc_ilog *l, unsigned ext_type);

/*
 * Appends a tbs_cert_entry (its leaf hash); *index gets its index. The
 * log is unchanged on error: MTC_ERR_UNSUPPORTED when exts holds an
 * extension type the log does not recognize; MTC_ERR_CERT when exts is
 * malformed or the entry's issuerAltName breaks the draft's label rule
 * (mtc_entry_check_issuer_alt_name); MTC_ERR_NOT_CURRENT once the log is
 * retired; MTC_ERR_LIMIT (entry over 65535 bytes), MTC_ERR_TREE_FULL.
 */
int mtc_ilog_append(mtc_ilog *l, mtc_slice exts, const mtc_tbs_entry *e,
                    uint64_t *index);

/*
 * Appends an encoded MTCLogEntry (parsed strictly, mtc_log_entry_parse):
 * a null_entry or a tbs_cert_entry, under the rules of mtc_ilog_append.
 * Other types are MTC_ERR_UNSUPPORTED.
 */
int mtc_ilog_append_entry(mtc_ilog *l, const uint8_t *entry, size_t len,
                          uint64_t *index);

/*
 * Appends a precomputed leaf hash. This BYPASSES the recognition and
 * issuerAltName rules above: the log never sees the entry behind a hash,
 * so the caller vouches that it is one the CA recognizes and has
 * validated (a null_entry it encoded itself, an entry checked when it was
 * first logged and now replayed, a simulated background entry). Use
 * mtc_ilog_append_entry when the bytes are at hand. Only the current-log
 * rule still applies (MTC_ERR_NOT_CURRENT).
 */
int mtc_ilog_append_hash(mtc_ilog *l, const mtc_hash *leaf, uint64_t *index);

/*
 * The draft's "current log" rule: a CA appends only to its current log,
 * and moves to a new log number (never back) after a log failure. Retiring
 * this log makes every later append fail with MTC_ERR_NOT_CURRENT, while
 * checkpoints of entries already appended and proofs keep working. Which
 * log is current is the CA's decision: the log only enforces it.
 */
void mtc_ilog_retire(mtc_ilog *l);
int mtc_ilog_is_current(const mtc_ilog *l);

/*
 * The draft's issuance job ("Standalone Certificates") for the batch of
 * entries appended since the last checkpoint: each of cosigners[0..n)
 * signs the checkpoint (start 0, end the tree size, its root) with
 * `timestamp` (seconds since the Epoch, non-zero: step 1 for the CA
 * cosigner, step 4 for the others); the two covering subtrees are
 * determined (step 2) and each is signed by every cosigner with timestamp
 * 0 (steps 3 and 5). Here the cosigners' keys are at hand, so collecting
 * is signing. A no-op (MTC_OK) when nothing was appended. Errors:
 * MTC_ERR_ARG (timestamp 0, cosigner IDs not distinct), MTC_ERR_LIMIT
 * (more than MTC_PROOF_MAX_SIGS cosigners), signing errors.
 */
int mtc_ilog_checkpoint_signed(mtc_ilog *l, const mtc_cosigner *cosigners,
                               size_t n, uint64_t timestamp);

/*
 * The same without checkpoint signatures (only the subtrees are signed):
 * for callers with no clock, such as deterministic tests and replays of
 * old batches. mtc_ilog_last_checkpoint then reports no signatures.
 */
int mtc_ilog_checkpoint(mtc_ilog *l, const mtc_cosigner *cosigners, size_t n);

/* Size at the last checkpoint. */
uint64_t mtc_ilog_checkpoint_size(const mtc_ilog *l);

/* A signed checkpoint of the log. */
typedef struct mtc_checkpoint {
    uint64_t size;              /* tree size (the signed range is [0, size)) */
    uint64_t timestamp;         /* of the signatures; 0 when unsigned */
    mtc_hash root;              /* MTH of the first `size` entries */
    size_t n_sigs;
    const mtc_subtree_sig *sigs; /* ordered by cosigner ID; borrowed from
                                    the log, valid while it lives */
} mtc_checkpoint;

/* The last checkpoint. MTC_ERR_RANGE when there is none yet. */
int mtc_ilog_last_checkpoint(const mtc_ilog *l, mtc_checkpoint *out);

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
