/*
 * mtc/cosig.h - subtree signatures (draft section "Cosigners").
 *
 * A cosigner signs a CosignedMessage:
 *   "subtree/v1\n\0" || cosigner_name<1..255> || uint64 timestamp ||
 *   log_origin<1..255> || uint64 start || uint64 end || subtree_hash[32]
 * where cosigner_name and log_origin are "oid/1.3.6.1.4.1." followed by the
 * ASCII form of the cosigner ID and of the log ID. Signatures inside
 * certificates always use timestamp 0; a non-zero timestamp signs a
 * checkpoint (start 0, end the tree size).
 */
#ifndef MTC_COSIG_H
#define MTC_COSIG_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/hash.h"
#include "mtc/sig.h"
#include "mtc/taid.h"

/* Upper bound of a CosignedMessage's length. */
#define MTC_COSIGNED_MESSAGE_MAX (12 + 256 + 8 + 256 + 8 + 8 + MTC_HASH_LEN)

/*
 * Encodes the CosignedMessage into out[cap]. MTC_ERR_SUBTREE when [start,
 * end) is not a valid subtree, MTC_ERR_ARG when timestamp != 0 but start
 * != 0, MTC_ERR_LIMIT when a name exceeds 255 bytes or cap is short.
 */
int mtc_cosigned_message(const mtc_taid *cosigner_id, const mtc_taid *log_id,
                         uint64_t timestamp, uint64_t start, uint64_t end,
                         const mtc_hash *subtree_hash, uint8_t *out, size_t cap,
                         size_t *out_len);

/* A cosigner: its ID and signing key (borrowed; the caller owns the key). */
typedef struct mtc_cosigner {
    mtc_taid id;
    const mtc_sig_key *key;
} mtc_cosigner;

/* Signs the subtree [start, end) of log_id with timestamp 0 (the form
 * certificates carry). sig needs room for the algorithm's sig_max. */
int mtc_cosign_subtree(const mtc_cosigner *c, const mtc_taid *log_id,
                       uint64_t start, uint64_t end, const mtc_hash *hash,
                       uint8_t *sig, size_t *sig_len);

/* Signs a checkpoint: timestamp (non-zero), start 0, end tree_size. */
int mtc_cosign_checkpoint(const mtc_cosigner *c, const mtc_taid *log_id,
                          uint64_t timestamp, uint64_t tree_size,
                          const mtc_hash *root, uint8_t *sig, size_t *sig_len);

/* Verifies a subtree signature (any timestamp) under (alg, pk). MTC_OK,
 * MTC_ERR_SIGNATURE, or the encoding errors above. */
int mtc_cosig_verify(mtc_sig_alg alg, const uint8_t *pk, size_t pk_len,
                     const mtc_taid *cosigner_id, const mtc_taid *log_id,
                     uint64_t timestamp, uint64_t start, uint64_t end,
                     const mtc_hash *hash, const uint8_t *sig, size_t sig_len);

#endif
