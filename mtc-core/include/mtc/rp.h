/*
 * mtc/rp.h - relying-party configuration and certificate verification
 * (draft sections "Relying Parties" and "Verifying Certificate Signatures").
 *
 * An mtc_rp_ca is what a relying party knows about one Merkle Tree CA: its
 * ID, its cosigners (ID, algorithm, public key), a cosigner policy, trusted
 * subtrees (from landmarks) and revoked serial ranges. mtc_rp_verify runs
 * the complete procedure of the draft and reports the first failed step as
 * an mtc_rp_reason; every reason is reachable and tested.
 *
 * Policy: a conjunction of groups, each "at least k valid signatures from
 * these cosigners" ("CA plus 2 of these 3 witnesses" is two groups).
 * Signatures from cosigners the relying party does not know are ignored,
 * as are invalid signatures from known ones (they just do not count).
 *
 * Cost per verification: one pass of SHA-256 over the TBSCertificate, the
 * inclusion proof, then either one hash comparison (trusted subtree,
 * binary search) or the signatures the policy needs. No allocation.
 */
#ifndef MTC_RP_H
#define MTC_RP_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/cert.h"
#include "mtc/hash.h"
#include "mtc/sig.h"
#include "mtc/taid.h"

typedef enum mtc_rp_reason {
    MTC_RP_OK = 0,
    MTC_RP_MALFORMED,          /* not a DER X.509 certificate */
    MTC_RP_UNKNOWN_ISSUER,     /* issuer is not this CA's CA-ID name */
    MTC_RP_SIG_ALG,            /* signature field not id-alg-mtcProof w/o params */
    MTC_RP_SIG_ALG_MISMATCH,   /* outer signatureAlgorithm differs from it */
    MTC_RP_PROOF_ENCODING,     /* signatureValue not a whole-octet MTCProof */
    MTC_RP_SERIAL_RANGE,       /* serial negative or above 2^64-1 */
    MTC_RP_REVOKED,            /* serial in a revoked range */
    MTC_RP_LOG_ZERO,           /* log_number == 0 */
    MTC_RP_ENTRY_TOO_LARGE,    /* reconstructed MTCLogEntry > 65535 bytes */
    MTC_RP_INCLUSION_PROOF,    /* proof evaluation failed (bad subtree/length) */
    MTC_RP_SUBTREE_HASH,       /* trusted subtree matched, hash differs */
    MTC_RP_COSIGNERS,          /* cosigner policy not satisfied */
    MTC_RP_NOT_YET_VALID,      /* before notBefore (only when a time is given) */
    MTC_RP_EXPIRED,            /* after notAfter (only when a time is given) */
    MTC_RP_REASON_COUNT
} mtc_rp_reason;

/* "ok", "malformed", ... (stable identifiers for logs and the CLI). */
const char *mtc_rp_reason_name(mtc_rp_reason r);

typedef struct mtc_rp_ca mtc_rp_ca;

/* Empty configuration for a CA: no cosigners, no policy groups (verify
 * then fails with MTC_RP_COSIGNERS unless a trusted subtree matches), no
 * trusted subtrees, nothing revoked. NULL on allocation failure. */
mtc_rp_ca *mtc_rp_ca_new(const mtc_taid *ca_id);
void mtc_rp_ca_free(mtc_rp_ca *rp); /* NULL allowed */

const mtc_taid *mtc_rp_ca_id(const mtc_rp_ca *rp);

/*
 * Configuration from a CA certificate (mtc_ca_cert_parse): the CA ID, the
 * CA cosigner (ID = CA ID), the policy "the CA cosigner", and the revoked
 * ranges [0, minSerial) and [maxSerial+1, 2^64).
 */
int mtc_rp_ca_from_cert(const uint8_t *der, size_t len, mtc_rp_ca **out);

/* Adds a cosigner (key copied). MTC_ERR_CONFIG when the ID is already
 * known; MTC_ERR_KEY when pk has the wrong length for alg. */
int mtc_rp_ca_add_cosigner(mtc_rp_ca *rp, const mtc_taid *id, mtc_sig_alg alg,
                           const uint8_t *pk, size_t pk_len);

/* Adds a policy group: at least k valid signatures among ids[0..n).
 * MTC_ERR_CONFIG when an ID is not a known cosigner, k == 0 or k > n. */
int mtc_rp_ca_add_policy(mtc_rp_ca *rp, unsigned k, const mtc_taid *ids,
                         size_t n);

/* Revokes serials first..last (inclusive). */
int mtc_rp_ca_revoke(mtc_rp_ca *rp, uint64_t first, uint64_t last);

/* Serials first..last, inclusive. */
typedef struct mtc_serial_range {
    uint64_t first, last;
} mtc_serial_range;

/* Revokes ranges[0..n) in order, as n calls of mtc_rp_ca_revoke would,
 * with one allocation (a relying party built from a list of 10^5
 * revocations). MTC_ERR_ARG, revoking none, when a range has
 * first > last; MTC_ERR_NOMEM. */
int mtc_rp_ca_revoke_ranges(mtc_rp_ca *rp, const mtc_serial_range *ranges, size_t n);
/* The revoked ranges held (minSerial's and maxSerial's included). */
size_t mtc_rp_ca_revoked_count(const mtc_rp_ca *rp);

/* Adds a trusted subtree of log `log_number` (replacing one with the same
 * [start, end)). MTC_ERR_SUBTREE when [start, end) is not a valid
 * non-empty subtree. The caller vouches for the hash, as the draft allows
 * for a trusted update service; the verified path, which checks the
 * draft's "Trusted Subtrees" evidence first, is mtc_rp_ca_apply_update
 * (mtc/update.h). */
int mtc_rp_ca_add_subtree(mtc_rp_ca *rp, uint64_t log_number, uint64_t start,
                          uint64_t end, const mtc_hash *hash);
/* Drops every trusted subtree (e.g. before installing a new landmark set). */
void mtc_rp_ca_clear_subtrees(mtc_rp_ca *rp);
size_t mtc_rp_ca_subtree_count(const mtc_rp_ca *rp);

/*
 * Loads a relying-party configuration: the CA certificate (as
 * mtc_rp_ca_from_cert) plus a text file of lines
 *   cosigner <id> <alg-name> <public key hex>
 *   policy <k> <id> [<id> ...]
 *   subtree <log> <start> <end> <hash hex>
 *   revoke <first> <last>
 * with '#' comments and blank lines allowed, fields separated by spaces
 * or tabs, lines ending in LF or CRLF (the last may lack it). Errors:
 * MTC_ERR_CONFIG (with
 * *err_line, 1-based) for a malformed or inconsistent line; the CA
 * certificate's errors otherwise (*err_line 0).
 */
int mtc_rp_ca_load(const uint8_t *ca_der, size_t ca_len, const char *conf,
                   size_t conf_len, mtc_rp_ca **out, size_t *err_line);

typedef struct mtc_rp_result {
    mtc_rp_reason reason;
    uint64_t serial, log_number, index;
    uint64_t start, end;          /* the MTCProof's subtree */
    int used_trusted_subtree;     /* 1: landmark path; 0: signatures */
    unsigned valid_sigs;          /* signatures verified from known cosigners */
    unsigned ignored_sigs;        /* unknown cosigners */
    mtc_hash entry_hash;
} mtc_rp_result;

/*
 * Verifies a certificate's MTC signature. `now` < 0 skips the validity
 * check (the draft's procedure replaces only signature verification);
 * otherwise notBefore <= now <= notAfter is checked last. Returns MTC_OK
 * when valid, MTC_ERR_NOT_TRUSTED (or another negative code matching
 * res->reason) when not; res is always filled.
 */
int mtc_rp_verify(const mtc_rp_ca *rp, const uint8_t *der, size_t len,
                  int64_t now, mtc_rp_result *res);

/* The same on an already parsed certificate. */
int mtc_rp_verify_parsed(const mtc_rp_ca *rp, const mtc_cert *c, int64_t now,
                         mtc_rp_result *res);

#endif
