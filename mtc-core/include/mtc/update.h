/*
 * mtc/update.h - relying-party updates: the evidence that lets a relying
 * party trust landmark subtrees (draft section "Trusted Subtrees").
 *
 * "Before configuring the subtrees as trusted, the relying party MUST
 * obtain assurance that each subtree is consistent with checkpoints
 * observed by a sufficient set of cosigners." An update carries, per log,
 * the CA's published landmarks, a reference checkpoint containing the
 * latest landmark, for each cosigner either a signature on the reference
 * checkpoint or a signed larger checkpoint with an RFC 9162 consistency
 * proof from the reference, and for each active landmark subtree its hash
 * with a subtree consistency proof against the reference checkpoint.
 * mtc_rp_ca_apply_update checks all of it against the relying party's
 * own cosigner keys and policy before any subtree is trusted.
 *
 * The draft leaves the transport to applications; this binary format is
 * mtc-core's, modelled on the simulator's update service
 * (sim/pki/pki_update.c) but self-contained: a snapshot of one CA's state,
 * not a delta. TLS presentation language, big-endian:
 *
 *   struct {
 *       opaque label[16] = "mtc-rp-update/1\n";
 *       TrustAnchorID ca_id<1..2^8-1>;
 *       LogUpdate logs<0..2^32-1>;            strictly ascending log_number
 *   } RPUpdate;
 *   struct {
 *       uint16 log_number;                     1..65535
 *       opaque landmarks<1..2^32-1>;          the draft's publishing format
 *       uint64 ref_size;                       reference checkpoint, >= 1
 *       HashValue ref_root;
 *       Cosignature cosignatures<0..2^32-1>;  strictly ascending cosigner_id
 *       LandmarkSubtree subtrees<0..2^32-1>;  the active landmark subtrees,
 *   } LogUpdate;                               oldest landmark first
 *   struct {
 *       TrustAnchorID cosigner_id<1..2^8-1>;
 *       uint64 timestamp;                      as signed (0 allowed)
 *       uint64 tree_size;                      >= ref_size
 *       HashValue root;
 *       opaque signature<0..2^16-1>;           over [0, tree_size)
 *       HashValue consistency<0..2^16-1>;      PROOF(ref_size, D[tree_size])
 *   } Cosignature;
 *   struct {
 *       uint48 start; uint48 end;
 *       HashValue hash;
 *       HashValue consistency<0..2^16-1>;      SUBTREE_PROOF(start, end,
 *   } LandmarkSubtree;                                       D[ref_size])
 *
 * Encoding is canonical: decode then encode reproduces the input.
 */
#ifndef MTC_UPDATE_H
#define MTC_UPDATE_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/hash.h"
#include "mtc/ilog.h"
#include "mtc/landmark.h"
#include "mtc/rp.h"
#include "mtc/taid.h"

#define MTC_UPDATE_LABEL "mtc-rp-update/1\n"
#define MTC_UPDATE_LABEL_LEN 16

typedef struct mtc_update_cosig {
    mtc_taid cosigner_id;
    uint64_t timestamp, tree_size;
    mtc_hash root;
    mtc_slice signature;
    const mtc_hash *consistency;    /* n_consistency hashes */
    size_t n_consistency;
} mtc_update_cosig;

typedef struct mtc_update_subtree {
    uint64_t start, end;
    mtc_hash hash;
    const mtc_hash *consistency;
    size_t n_consistency;
} mtc_update_subtree;

typedef struct mtc_update_log {
    uint64_t log_number;
    mtc_slice landmarks;            /* publishing-format text */
    uint64_t ref_size;
    mtc_hash ref_root;
    const mtc_update_cosig *cosigs;
    size_t n_cosigs;
    const mtc_update_subtree *subtrees;
    size_t n_subtrees;
} mtc_update_log;

/*
 * An update. Every pointer is borrowed: a caller may build one on the
 * stack to encode it; mtc_update_decode and mtc_update_from_ilogs return
 * one allocated as a whole, released with mtc_update_free.
 */
typedef struct mtc_update {
    mtc_taid ca_id;
    const mtc_update_log *logs;
    size_t n_logs;
} mtc_update;

/*
 * Encodes u into out[cap]; *out_len gets the encoded length, also when
 * out is NULL or cap short (then MTC_ERR_LIMIT). MTC_ERR_ARG when a field
 * is out of its range (log number, 48-bit start/end, an ID's length, a
 * vector over its length prefix). Order rules are the decoder's to check.
 */
int mtc_update_encode(const mtc_update *u, uint8_t *out, size_t cap,
                      size_t *out_len);

/*
 * Decodes in[0..len) strictly: the label, every length consumed, nothing
 * after the last log, IDs valid trust anchor IDs, logs strictly ascending
 * by number, cosignatures by cosigner ID (shorter first, then bytewise),
 * hash vectors multiples of 32 bytes of at most MTC_PROOF_MAX hashes,
 * ref_size >= 1. It does not verify anything (that needs the relying
 * party's keys): see mtc_rp_ca_apply_update. *out is one allocation whose
 * slices and hashes borrow from `in`, which must outlive it. Errors:
 * MTC_ERR_PARSE (malformed), MTC_ERR_NOMEM.
 */
int mtc_update_decode(const uint8_t *in, size_t len, mtc_update **out);

void mtc_update_free(mtc_update *u); /* NULL allowed */

/*
 * The CA side: an update for CA ca_id with one log record per (logs[i],
 * lms[i]), built from each log's last checkpoint (mtc_ilog_last_checkpoint:
 * it must be signed, and contain the last landmark) with its signatures,
 * and every active landmark subtree with its hash and consistency proof.
 * The result borrows the checkpoint signatures from the logs (valid while
 * they live). Errors: MTC_ERR_RANGE (no
 * checkpoint, or an unsigned one), MTC_ERR_LANDMARK (a landmark beyond the
 * checkpoint), MTC_ERR_ARG, tree errors (MTC_ERR_PRUNED), MTC_ERR_NOMEM.
 */
int mtc_update_from_ilogs(const mtc_taid *ca_id, mtc_ilog *const *logs,
                          const mtc_landmarks *const *lms, size_t n,
                          mtc_update **out);

/* Why an update was refused: the first check that failed. */
typedef enum mtc_update_reason {
    MTC_UPDATE_OK = 0,
    MTC_UPDATE_MALFORMED,       /* log numbers out of range or not strictly
                                   ascending (an update built in memory) */
    MTC_UPDATE_WRONG_CA,        /* ca_id is not the relying party's CA */
    MTC_UPDATE_LANDMARKS,       /* landmark text malformed, or a landmark
                                   beyond the reference checkpoint */
    MTC_UPDATE_COSIGNERS,       /* valid cosignatures do not meet the policy */
    MTC_UPDATE_SUBTREES,        /* subtrees are not the active landmark
                                   subtrees the landmarks determine */
    MTC_UPDATE_SUBTREE_PROOF,   /* a subtree consistency proof failed */
    MTC_UPDATE_ROLLBACK,        /* older than what the relying party has */
    MTC_UPDATE_REASON_COUNT
} mtc_update_reason;

/* "ok", "wrong-ca", ... (stable identifiers for logs and the CLI). */
const char *mtc_update_reason_name(mtc_update_reason r);

typedef struct mtc_update_result {
    mtc_update_reason reason;
    size_t log_index;           /* the log record at fault (or last checked) */
    unsigned valid_cosigs;      /* of that record, from known cosigners */
    unsigned invalid_cosigs;    /* known cosigners, signature or
                                   consistency proof failed: not counted */
    unsigned ignored_cosigs;    /* unknown cosigners */
    size_t n_subtrees;          /* subtrees now trusted (on success) */
} mtc_update_result;

/*
 * Verifies u with rp's cosigners and policy and, only when every log
 * record passes, makes its subtrees rp's trusted subtrees for those logs
 * (replacing what rp trusted for them; other logs are untouched). For
 * each record:
 *   - the landmarks parse (as mtc_landmarks_parse, with max_active the
 *     published num_active) with every size <= ref_size, so the
 *     reference checkpoint contains the latest landmark;
 *   - a cosignature counts when its cosigner is known to rp, it verifies
 *     (CosignedMessage with its timestamp, start 0, end tree_size, root)
 *     and the consistency proof from (ref_size, ref_root) to (tree_size,
 *     root) verifies (empty, with equal roots, when the sizes are equal);
 *     the cosigners with one that counts must satisfy rp's policy (unknown
 *     cosigners are ignored, failed ones do not count);
 *   - the subtrees are exactly the active landmark subtrees, in order,
 *     and each hash is proved consistent with the reference checkpoint;
 *   - the landmark numbers fit the sizes (landmark L has size >= L);
 *   - neither the last landmark's tree size nor ref_size is below what an
 *     update already applied to rp established for the log (no
 *     rollback). Landmark numbers are signed by nobody, so they do not
 *     decide a rollback: an update with rewritten numbers cannot make
 *     rp refuse the genuine updates that follow.
 * Returns MTC_OK, or a negative code matching res->reason
 * (MTC_ERR_ARG malformed, MTC_ERR_CONFIG wrong CA, MTC_ERR_LANDMARK
 * landmarks or rollback, MTC_ERR_NOT_TRUSTED policy, MTC_ERR_PROOF
 * subtrees and their proofs), or MTC_ERR_NOMEM; rp is unchanged on error.
 */
int mtc_rp_ca_apply_update(mtc_rp_ca *rp, const mtc_update *u,
                           mtc_update_result *res);

/*
 * What the last applied update established for log `log_number`: its last
 * landmark (for the landmark group ID a relying party advertises) and the
 * reference checkpoint size. MTC_ERR_RANGE when no update covered it.
 */
int mtc_rp_ca_log_state(const mtc_rp_ca *rp, uint64_t log_number,
                        uint64_t *last_landmark, uint64_t *ref_size);

#endif
