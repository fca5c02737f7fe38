/*
 * mtc/cert.h - Merkle Tree Certificates (draft section "Certificates") and
 * the CA certificate (section "Representing Certification Authorities").
 *
 * An MTC is an X.509 Certificate whose TBSCertificate repeats the fields of
 * a TBSCertificateLogEntry, whose serial number is (log_number << 48) |
 * index, whose signature algorithm is id-alg-mtcProof (experimental OID
 * 1.3.6.1.4.1.44363.47.0, parameters absent), and whose signatureValue
 * holds an MTCProof:
 *   extensions<0..2^16-1> || uint48 start || uint48 end ||
 *   HashValue inclusion_proof<0..2^16-1> ||
 *   SubtreeSignature signatures<0..2^16-1>
 *   SubtreeSignature = TrustAnchorID cosigner_id<1..255> || signature<0..2^16-1>
 * with signatures strictly ordered by cosigner_id (shorter first, then
 * bytewise) - which also rules out duplicates.
 *
 * Standalone certificates carry a covering subtree and its cosignatures;
 * landmark-relative ones carry a landmark subtree and no signatures. Both
 * are built by mtc_cert_build from an entry and an mtc_proof.
 *
 * Parsed structures borrow from the input bytes. Nothing here allocates,
 * except the parse of a TBSCertificate with more than 64 extensions
 * (RFC 5280 sets no limit; their duplicate check then needs an array), so
 * parsers may also return MTC_ERR_NOMEM.
 */
#ifndef MTC_CERT_H
#define MTC_CERT_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/der.h"
#include "mtc/entry.h"
#include "mtc/hash.h"
#include "mtc/sig.h"
#include "mtc/taid.h"

/*
 * Signatures a *built* MTCProof holds in mtc_proof.sigs[]. Decoding has no
 * such limit: the draft bounds the signature vector only by its 2^16-1
 * bytes, and a relying party must ignore cosigners it does not know, so a
 * certificate carrying 3 known and 30 unknown cosignatures is valid. A
 * decoded proof keeps the whole vector in sig_vec and walks it with
 * mtc_proof_sig_next(); sigs[] then holds only its first signatures.
 */
#define MTC_PROOF_MAX_SIGS 32
/* Inclusion hashes a proof *built* here can hold (a uint48 subtree has at
 * most 48 levels). Decoding accepts the whole <0..2^16-1> vector; a longer
 * proof is well-formed and simply fails evaluation (MTC_ERR_PROOF_LEN). */
#define MTC_PROOF_MAX_HASHES 64

typedef struct mtc_subtree_sig {
    mtc_slice cosigner_id; /* binary trust anchor ID, 1..255 bytes */
    mtc_slice signature;   /* 0..65535 bytes */
} mtc_subtree_sig;

/*
 * An MTCProof. Builders zero it (memset), then fill the fields and
 * sigs[0..n_sigs). mtc_proof_decode also sets sig_vec (the encoded
 * signatures vector body, borrowed) and n_sigs_total; sigs[] then holds
 * the first min(n_sigs_total, MTC_PROOF_MAX_SIGS) of them and n_sigs
 * their count. Code that must see every signature (verification, display)
 * walks them with mtc_proof_sig_next(), which serves both forms.
 */
typedef struct mtc_proof {
    mtc_slice extensions;       /* the log entry's extensions vector body */
    uint64_t start, end;        /* < 2^48 */
    const mtc_hash *inclusion;  /* n_inclusion hashes (borrowed) */
    size_t n_inclusion;
    size_t n_sigs;              /* entries of sigs[] in use */
    mtc_subtree_sig sigs[MTC_PROOF_MAX_SIGS];
    mtc_slice sig_vec;          /* decoded only: all signatures, encoded */
    size_t n_sigs_total;        /* decoded only: signatures in sig_vec */
} mtc_proof;

/*
 * Iterates over every signature of p: from sig_vec when it is set (a
 * decoded proof), otherwise from sigs[0..n_sigs). Start with *cursor = 0;
 * returns 1 and fills *out while signatures remain, then 0. The vector
 * was validated by mtc_proof_decode, so iteration cannot fail.
 */
int mtc_proof_sig_next(const mtc_proof *p, size_t *cursor, mtc_subtree_sig *out);

/* Encoded length of an MTCProof. */
size_t mtc_proof_len(const mtc_proof *p);

/*
 * Encodes an MTCProof. MTC_ERR_ARG when start/end exceed 48 bits, a
 * cosigner ID is empty or longer than 255, or signatures are not strictly
 * ordered; MTC_ERR_LIMIT when a vector exceeds 2^16-1 bytes or out is short.
 * A decoded proof (sig_vec set) re-encodes its signature vector verbatim,
 * so decode then encode reproduces the input whatever its signature count.
 */
int mtc_proof_encode(const mtc_proof *p, uint8_t *out, size_t cap,
                     size_t *out_len);

/*
 * Decodes an MTCProof, consuming all of in[0..len). MTC_ERR_CERT for any
 * violation (truncation, trailing bytes, inclusion_proof not a multiple of
 * 32 bytes, empty cosigner ID, signatures out of order or duplicated,
 * extensions not ascending). No count limit beyond the draft's vector
 * lengths (see MTC_PROOF_MAX_SIGS and MTC_PROOF_MAX_HASHES). Hashes and
 * signatures are borrowed from `in` (mtc_hash has byte alignment).
 */
int mtc_proof_decode(const uint8_t *in, size_t len, mtc_proof *p);

/* Sorts signatures into the required order (in place). */
void mtc_proof_sort_sigs(mtc_proof *p);

/* DER AlgorithmIdentifier of id-alg-mtcProof (parameters absent). */
extern const uint8_t MTC_ALG_MTC_PROOF_DER[];
#define MTC_ALG_MTC_PROOF_DER_LEN 14

/*
 * Builds the DER Certificate for entry e (issued at `serial`), whose
 * subject key is spki (must hash to e->spki_hash and carry e->spki_alg:
 * MTC_ERR_ARG otherwise), proved by p (p->extensions must be the entry's
 * extensions). out == NULL with cap 0 computes the size only: *out_len is
 * then the exact length and the result MTC_ERR_LIMIT.
 */
int mtc_cert_build(const mtc_tbs_entry *e, const uint8_t *spki, size_t spki_len,
                   uint64_t serial, const mtc_proof *p, uint8_t *out, size_t cap,
                   size_t *out_len);

/* A parsed X.509 certificate (any signature algorithm). */
typedef struct mtc_cert {
    mtc_slice tbs;            /* the whole TBSCertificate element */
    mtc_slice version;        /* whole [0] element or empty (v1) */
    unsigned version_num;     /* 0 = v1, 2 = v3 */
    mtc_slice serial;         /* INTEGER contents */
    int serial_status;        /* MTC_OK, or MTC_ERR_RANGE: not in [0, 2^64) */
    uint64_t serial_num;      /* valid when serial_status == MTC_OK */
    mtc_slice tbs_sig_alg;    /* whole AlgorithmIdentifier (TBS signature) */
    mtc_slice issuer, validity, subject;
    int64_t not_before, not_after;
    mtc_slice spki;           /* whole SubjectPublicKeyInfo */
    mtc_slice spki_alg;       /* its AlgorithmIdentifier */
    mtc_slice issuer_uid, subject_uid, extensions; /* whole, or empty */
    mtc_slice after_spki;     /* TBS contents following the SPKI */
    mtc_slice sig_alg;        /* whole outer signatureAlgorithm */
    mtc_slice sig_bits;       /* whole contents of the signature BIT STRING */
    mtc_slice sig_value;      /* octets when unused bits == 0, else empty */
    int sig_whole_octets;     /* 1 when the BIT STRING has 0 unused bits */
} mtc_cert;

/* Strict DER parse of a Certificate. MTC_ERR_DER*, MTC_ERR_CERT (e.g. two
 * extensions with one OID), MTC_ERR_NOMEM (see above). */
int mtc_cert_parse(const uint8_t *der, size_t len, mtc_cert *c);

/*
 * The entry hash of the draft's verification procedure, computed in a
 * single pass over the TBSCertificate (section "Verifying Certificate
 * Signatures", last list) with the given MTCProof extensions.
 */
int mtc_cert_entry_hash(const mtc_cert *c, mtc_slice exts, mtc_hash *out);

/* The TBSCertificateLogEntry the certificate claims (borrowing from the
 * certificate; spki_hash computed). The two-pass path: encode it with
 * mtc_log_entry_encode and hash with mtc_hash_leaf. */
void mtc_cert_tbs_entry(const mtc_cert *c, mtc_tbs_entry *e);

/*
 * Finds the extension with the given OID (contents octets) in a parsed
 * certificate: *critical and *value (the extnValue OCTET STRING contents)
 * are set. MTC_OK, or MTC_ERR_RANGE when absent.
 */
int mtc_cert_find_ext(const mtc_cert *c, const uint8_t *oid, size_t oid_len,
                      int *critical, mtc_slice *value);

/* ---- CA certificate ------------------------------------------------------------- */

typedef struct mtc_ca_params {
    mtc_taid ca_id;
    mtc_sig_alg alg;           /* CA cosigner algorithm */
    const uint8_t *pk;         /* raw CA cosigner public key */
    size_t pk_len;
    uint64_t min_serial, max_serial;
    int64_t not_before, not_after;
} mtc_ca_params;

/*
 * Builds the CA certificate: an unsigned certificate (RFC 9925,
 * id-alg-unsigned, empty signature) with subject and issuer the CA-ID
 * name, the cosigner key, and extensions basicConstraints (cA, critical),
 * keyUsage (keyCertSign|cRLSign, critical), subjectKeyIdentifier (the CA
 * ID in binary form) and the critical id-pe-mtcCertificationAuthority
 * { logHash sha256, sigAlg, minSerial, maxSerial }. Serial number 1.
 */
int mtc_ca_cert_build(const mtc_ca_params *ca, uint8_t *out, size_t cap,
                      size_t *out_len);

/*
 * Parses a CA certificate into *ca (pk points into der). Checks the
 * subject is a CA-ID name, the extension is present and critical, the log
 * hash is SHA-256, the sigAlg is a table algorithm matching the SPKI,
 * basicConstraints cA and keyUsage keyCertSign are asserted.
 * MTC_ERR_CERT, MTC_ERR_DER*, MTC_ERR_UNSUPPORTED.
 */
int mtc_ca_cert_parse(const uint8_t *der, size_t len, mtc_ca_params *ca);

#endif
