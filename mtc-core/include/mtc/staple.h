/*
 * mtc/staple.h - a landmark staple: what a server may send beside a
 * standalone certificate so that the client learns the CA's landmark
 * subtrees from the handshake instead of from an update channel.
 *
 * NOT IN THE DRAFT: a what-if. Under the draft a standalone certificate
 * carries cosignatures over its own subtree only, so a client that
 * verifies one learns nothing it can reuse. A staple carries the CA's
 * newest cosigned checkpoint of one log (with the cosignatures on it),
 * the log's published landmarks (the draft's publishing format) and every
 * active landmark subtree with its hash and a subtree consistency proof to
 * that checkpoint: the same evidence the draft's "Trusted Subtrees"
 * section asks a relying party to obtain, so a client that verifies it
 * against its own cosigner policy may trust those subtrees and accept
 * landmark-relative certificates of that log. It is the one-log record of
 * mtc/update.h with every cosignature on the checkpoint itself (no larger
 * checkpoints, no per-cosigner consistency proofs), and it is verified by
 * the same code (mtc_rp_ca_apply_update). TLS presentation language,
 * big-endian:
 *
 *   struct {
 *       opaque label[16] = "mtc-tls-staple/1";
 *       TrustAnchorID ca_id<1..2^8-1>;
 *       uint16 log_number;                     1..65535
 *       opaque landmarks<1..2^16-1>;           the draft's publishing format
 *       uint64 timestamp;                      the checkpoint, as cosigned
 *       uint64 tree_size;                      >= 1
 *       HashValue root;
 *       StapleCosignature cosignatures<0..2^16-1>;  strictly ascending ID
 *       LandmarkSubtree subtrees<0..2^24-1>;   active landmark subtrees,
 *   } LandmarkStaple;                          oldest landmark first
 *   struct {
 *       TrustAnchorID cosigner_id<1..2^8-1>;
 *       opaque signature<0..2^16-1>;           over [0, tree_size)
 *   } StapleCosignature;
 *   struct {
 *       uint48 start; uint48 end;
 *       HashValue hash;
 *       HashValue consistency<0..2^16-1>;      SUBTREE_PROOF(start, end,
 *   } LandmarkSubtree;                                       D[tree_size])
 *
 * Encoding is canonical: decode then encode reproduces the input.
 */
#ifndef MTC_STAPLE_H
#define MTC_STAPLE_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/update.h"

#define MTC_STAPLE_LABEL "mtc-tls-staple/1"
#define MTC_STAPLE_LABEL_LEN 16

typedef struct mtc_staple_cosig {
    mtc_taid cosigner_id;
    mtc_slice signature;
} mtc_staple_cosig;

/*
 * A staple. Every pointer is borrowed: a caller may build one on the
 * stack to encode it; mtc_staple_decode returns one allocated as a whole,
 * released with mtc_staple_free. Subtrees use the update's record.
 */
typedef struct mtc_staple {
    mtc_taid ca_id;
    uint64_t log_number;
    mtc_slice landmarks;            /* publishing-format text */
    uint64_t timestamp, tree_size;
    mtc_hash root;
    const mtc_staple_cosig *cosigs;
    size_t n_cosigs;
    const mtc_update_subtree *subtrees;
    size_t n_subtrees;
} mtc_staple;

/*
 * Encodes s into out[cap]; *out_len gets the encoded length, also when
 * out is NULL or cap short (then MTC_ERR_LIMIT). MTC_ERR_ARG when a field
 * is out of its range (log number, 48-bit start/end, an ID's length, a
 * vector over its length prefix). Order rules are the decoder's to check.
 */
int mtc_staple_encode(const mtc_staple *s, uint8_t *out, size_t cap,
                      size_t *out_len);

/*
 * Decodes in[0..len) strictly: the label, every length consumed, nothing
 * after the subtrees, IDs valid trust anchor IDs, cosignatures strictly
 * ascending by cosigner ID, proofs multiples of 32 bytes of at most
 * MTC_PROOF_MAX hashes, log_number and tree_size >= 1. Verifies nothing
 * (see mtc_rp_ca_apply_staple). *out is one allocation whose slices and
 * hashes borrow from `in`, which must outlive it. Errors: MTC_ERR_PARSE,
 * MTC_ERR_NOMEM.
 */
int mtc_staple_decode(const uint8_t *in, size_t len, mtc_staple **out);

void mtc_staple_free(mtc_staple *s); /* NULL allowed */

/*
 * The server side: the staple of record log_index of update u (as made
 * by mtc_update_from_ilogs), when every cosignature of that record is on
 * its reference checkpoint itself (tree_size = ref_size, root = ref_root,
 * no consistency proof) and all carry the same timestamp. cosigs must
 * have room for the record's n_cosigs; *out borrows from u and cosigs.
 * MTC_ERR_ARG when the record does not fit the staple (no cosignature,
 * or one over a larger checkpoint).
 */
int mtc_staple_from_update(const mtc_update *u, size_t log_index,
                           mtc_staple *out, mtc_staple_cosig *cosigs);

/*
 * The client side: verifies s with rp's cosigners and policy exactly as
 * mtc_rp_ca_apply_update verifies a one-log update (the CA ID, the
 * landmarks within the checkpoint, the cosigner policy, the subtrees being
 * the active landmark subtrees with valid proofs, no rollback), and only
 * then makes its subtrees rp's trusted subtrees for that log (replacing
 * what rp trusted for it; other logs untouched). res as for updates.
 * Returns MTC_OK or the update's error codes; rp is unchanged on error.
 */
int mtc_rp_ca_apply_staple(mtc_rp_ca *rp, const mtc_staple *s,
                           mtc_update_result *res);

/*
 * The proof set of one landmark (what a Landmark Distribution Point
 * answers with, mtc/ldp.h): a staple whose subtrees are exactly the
 * non-empty subtrees of `landmark` (the draft's "Landmark-Relative
 * Certificates": at most two), each with its consistency proof to the
 * staple's checkpoint. Server side: from a staple s of every active
 * landmark (its landmarks parsed as lm), *out borrows from s with subs
 * (room for 2) as its subtrees; MTC_ERR_RANGE when landmark is not active
 * in lm or s lacks one of its subtrees.
 */
int mtc_staple_landmark(const mtc_staple *s, const mtc_landmarks *lm, uint64_t landmark,
                        mtc_staple *out, mtc_update_subtree subs[2]);

/*
 * Client side: verifies s as the proof set of `landmark` against rp's
 * cosigners and policy (the CA ID, the landmarks within the checkpoint,
 * `landmark` active among them, the cosigner policy, the subtrees exactly
 * that landmark's with valid proofs) and only then adds its subtrees to
 * rp's trusted subtrees, beside those it holds. res as for updates
 * (n_subtrees: the subtrees added). Returns MTC_OK or the update's error
 * codes; rp is unchanged on error.
 */
int mtc_rp_ca_apply_proof_set(mtc_rp_ca *rp, const mtc_staple *s, uint64_t landmark,
                              mtc_update_result *res);

/*
 * A deep copy of rp (cosigners, policy, trusted subtrees, revoked ranges,
 * update state), e.g. to apply a staple to a shared relying-party state.
 * NULL when out of memory.
 */
mtc_rp_ca *mtc_rp_ca_clone(const mtc_rp_ca *rp);

#endif
