/*
 * sct_internal.h - RFC 6962 signed certificate timestamps (section 3.2),
 * shared by the classical baselines (baseline.c) and the chain profiles
 * (chain.c), which sign them with their own kinds of key: the caller signs
 * the bytes sct_signed_input gives, then sct_encode lays out the SCT and
 * sct_list the SignedCertificateTimestampList. All write into buffers the
 * caller owns. Internal to mtc-core: not installed, not public.
 */
#ifndef MTC_SCT_INTERNAL_H
#define MTC_SCT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* The bytes a log signs for a precertificate entry: version v1,
 * certificate_timestamp, ts_ms, precert_entry, SHA-256 of the issuer's
 * SubjectPublicKeyInfo, the precertificate TBS (3-byte length), no
 * extensions. MTC_ERR_LIMIT when cap is too small. */
int mtc__sct_signed_input(uint64_t ts_ms, const uint8_t *issuer_spki,
                          size_t issuer_spki_len, const uint8_t *pre,
                          size_t pre_len, uint8_t *msg, size_t cap,
                          size_t *len);

/* The SCT: v1, log id (SHA-256 of the log's SubjectPublicKeyInfo), ts_ms,
 * no extensions, sig_alg (RFC 6962's SignatureAndHashAlgorithm, or a TLS
 * 1.3 SignatureScheme where RFC 6962 has no code point) and the signature
 * (2-byte length). MTC_ERR_LIMIT when cap is too small. */
int mtc__sct_encode(const uint8_t *log_spki, size_t log_spki_len,
                    uint64_t ts_ms, uint16_t sig_alg, const uint8_t *sig,
                    size_t sig_len, uint8_t *out, size_t cap, size_t *len);

/* SignedCertificateTimestampList: a 2-byte total length, then each of the
 * n SCTs with a 2-byte length. MTC_ERR_LIMIT when cap is too small. */
int mtc__sct_list(const uint8_t *const *scts, const size_t *sct_len, size_t n,
                  uint8_t *out, size_t cap, size_t *len);

#endif
