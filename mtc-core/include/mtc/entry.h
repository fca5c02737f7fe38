/*
 * mtc/entry.h - issuance-log entries: MTCLogEntry and TBSCertificateLogEntry
 * (draft section "Log Entries"), and serial numbers.
 *
 * An entry is described by borrowed DER slices of its fields (mtc_tbs_entry)
 * so that the simulator can append millions of entries without copying:
 * the leaf hash MTH({entry}) is computed by streaming the fields through
 * SHA-256 (mtc_log_entry_leaf_hash), with no buffer and no allocation.
 * mtc_log_entry_encode writes the same bytes when they are needed (the
 * CLI's log file, tests), and the two are tested equal.
 *
 * Wire format (TLS presentation language):
 *   MTCLogEntry = extensions<0..2^16-1> || uint16 type || data
 *   data (tbs_cert_entry) = contents octets of the DER TBSCertificateLogEntry:
 *     version? issuer validity subject spkiAlgorithm OCTET-STRING(hash)
 *     issuerUID? subjectUID? extensions?
 * An entry never exceeds 65535 bytes.
 */
#ifndef MTC_ENTRY_H
#define MTC_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/der.h"
#include "mtc/hash.h"

#define MTC_ENTRY_MAX 65535
#define MTC_ENTRY_NULL 0
#define MTC_ENTRY_TBS_CERT 1
#define MTC_LOG_NUMBER_MAX 65535

/*
 * The fields of a TBSCertificateLogEntry, each the whole DER element
 * (identifier, length and contents) as it appears in the encoding, or
 * {NULL, 0} for an absent optional field. All slices are borrowed.
 */
typedef struct mtc_tbs_entry {
    mtc_slice version;      /* [0] EXPLICIT INTEGER; absent means v1 */
    mtc_slice issuer;       /* Name: the CA-ID name (mtc/taid.h) */
    mtc_slice validity;     /* Validity */
    mtc_slice subject;      /* Name */
    mtc_slice spki_alg;     /* AlgorithmIdentifier of the subject key */
    mtc_hash spki_hash;     /* SHA-256 of the DER SubjectPublicKeyInfo */
    mtc_slice issuer_uid;   /* [1] IMPLICIT, optional */
    mtc_slice subject_uid;  /* [2] IMPLICIT, optional */
    mtc_slice extensions;   /* [3] EXPLICIT Extensions, optional */
} mtc_tbs_entry;

/* serialNumber = (log_number << 48) | index. */
static inline uint64_t mtc_serial(uint64_t log_number, uint64_t index)
{
    return log_number << 48 | (index & ((UINT64_C(1) << 48) - 1));
}

/*
 * Checks an MTCLogEntry `extensions` vector body (without its 2-byte
 * length): a sequence of {uint16 type, opaque data<0..2^16-1>} in strictly
 * ascending type order, consuming every byte, at most 65535 bytes.
 * MTC_OK or MTC_ERR_CERT.
 */
int mtc_entry_exts_check(mtc_slice exts);

/* Length of the TBSCertificateLogEntry contents octets. */
size_t mtc_tbs_entry_contents_len(const mtc_tbs_entry *e);

/* Length of the MTCLogEntry, or 0 when it would exceed MTC_ENTRY_MAX. */
size_t mtc_log_entry_len(mtc_slice exts, const mtc_tbs_entry *e);

/*
 * Writes the tbs_cert_entry MTCLogEntry into out[cap]. MTC_OK,
 * MTC_ERR_LIMIT (longer than 65535 bytes, or than cap), MTC_ERR_CERT
 * (extensions not valid per mtc_entry_exts_check).
 */
int mtc_log_entry_encode(mtc_slice exts, const mtc_tbs_entry *e, uint8_t *out,
                         size_t cap, size_t *out_len);

/* A null_entry MTCLogEntry with the given extensions. */
int mtc_log_entry_encode_null(mtc_slice exts, uint8_t *out, size_t cap,
                              size_t *out_len);

/*
 * MTH({entry}) = SHA-256(0x00 || MTCLogEntry) without materialising the
 * entry. Same errors as mtc_log_entry_encode.
 */
int mtc_log_entry_leaf_hash(mtc_slice exts, const mtc_tbs_entry *e,
                            mtc_hash *out);

/*
 * Parses an MTCLogEntry. *type gets the entry type; for tbs_cert_entry the
 * fields are parsed strictly (DER, field order, optional fields, hash
 * length 32, X.509 extensions unique by OID, any number of them) into
 * *e, which borrows from `entry`. Unknown types are MTC_ERR_UNSUPPORTED.
 * Errors: MTC_ERR_CERT, MTC_ERR_DER*, MTC_ERR_NOMEM (more than 64
 * extensions need an array for the duplicate check).
 */
int mtc_log_entry_parse(const uint8_t *entry, size_t len, mtc_slice *exts,
                        unsigned *type, mtc_tbs_entry *e);

/*
 * The draft's rule for a CA label in a TBSCertificateLogEntry ("Log
 * Entries"): an issuerAltName extension, when present, is non-critical and
 * holds a single GeneralName, a directoryName whose Name is an
 * rdnSequence with exactly one AttributeTypeAndValue in each RDN.
 * `extensions` is the [3] element of the entry (mtc_tbs_entry.extensions;
 * empty: no extensions), already valid DER as the parsers leave it.
 * MTC_OK when there is no issuerAltName or it conforms, MTC_ERR_CERT
 * otherwise. A CA applies it before logging (mtc_ilog_append); relying
 * parties need not, since the label is never used for trust.
 */
int mtc_entry_check_issuer_alt_name(mtc_slice extensions);

/* ---- building entries -------------------------------------------------------- */

/*
 * Caller-owned scratch space for the fields a builder encodes (validity,
 * subject, extensions). One per thread; reused per entry, so building an
 * entry allocates nothing.
 */
#define MTC_ENTRY_SCRATCH 4096
typedef struct mtc_entry_scratch {
    uint8_t buf[MTC_ENTRY_SCRATCH];
} mtc_entry_scratch;

/* DER Validity { notBefore, notAfter } (RFC 5280 time encodings). */
int mtc_validity_der(int64_t not_before, int64_t not_after, uint8_t *out,
                     size_t cap, size_t *out_len);

/* Splits a DER SubjectPublicKeyInfo into its AlgorithmIdentifier (a slice
 * of spki) and the SHA-256 of the whole. MTC_ERR_DER* or MTC_ERR_CERT. */
int mtc_spki_split(const uint8_t *spki, size_t len, mtc_slice *alg,
                   mtc_hash *hash);

/*
 * Fills *e for a typical TLS server certificate: version v3, issuer the
 * given CA-ID name (borrowed), the validity period, an empty subject, and
 * extensions keyUsage (digitalSignature, critical), extendedKeyUsage
 * (serverAuth) and a critical subjectAltName with one dNSName. The SPKI
 * fields come from spki (not retained). Encoded fields live in *scratch,
 * which *e borrows. MTC_ERR_LIMIT when the name is too long.
 */
int mtc_tbs_entry_tls_server(mtc_tbs_entry *e, mtc_entry_scratch *scratch,
                             mtc_slice issuer_name, int64_t not_before,
                             int64_t not_after, const char *dns_name,
                             const uint8_t *spki, size_t spki_len);

#endif
