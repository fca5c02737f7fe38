/*
 * sim/certcomp.h - TLS certificate compression (RFC 8879) with the real
 * brotli and zstd libraries: compress and decompress a Certificate
 * message, and the length of the CompressedCertificate message that
 * replaces it on the wire.
 *
 * What is compressed is the Certificate message's body (what follows its
 * 4-byte handshake header), as deployed stacks do; the
 * CompressedCertificate message is a handshake header, the algorithm
 * (uint16), the uncompressed length (uint24) and the compressed bytes
 * with their own uint24 length. Settings: brotli quality 5 with a 2^17
 * window, zstd level 3 (zstd's default; the measured chain sizes of
 * docs/sources.md [web-chains] were compressed at level 22, 1-3 % smaller
 * on the chain profiles, docs/model.md "Web side: today's chains"); a server compresses each
 * certificate once and keeps the result, so the simulator does the same
 * (once per distinct certificate, never per handshake). Brotli's highest
 * quality (11) compresses certificate chains a few per cent better and is
 * 10-40 times slower (docs/model.md "Web side: certificate compression").
 *
 * No state: every call stands alone. Thread-safe.
 */
#ifndef SIM_CERTCOMP_H
#define SIM_CERTCOMP_H

#include <stddef.h>
#include <stdint.h>

/* RFC 8879 CertificateCompressionAlgorithm code points we model. */
enum { CERTCOMP_NONE = 0, CERTCOMP_BROTLI = 2, CERTCOMP_ZSTD = 3 };

/* "brotli" / "zstd" -> the code point; 0 when unknown. */
int certcomp_alg_by_name(const char *name);
const char *certcomp_alg_name(int alg);     /* NULL when unknown */

/* A bound on the compressed size of len bytes (for the caller's buffer). */
size_t certcomp_bound(int alg, size_t len);

/* Compresses in[len] with alg into out[cap]. MTC_OK, MTC_ERR_UNSUPPORTED
 * (unknown alg), MTC_ERR_LIMIT (cap short, or the library failed). */
int certcomp_compress(int alg, const uint8_t *in, size_t len, uint8_t *out, size_t cap,
                      size_t *out_len);

/* Decompresses in[len], which must expand to exactly `expect` bytes (the
 * CompressedCertificate's uncompressed_length), into out[cap >= expect].
 * MTC_OK; MTC_ERR_PARSE when the data is corrupt or of another length. */
int certcomp_decompress(int alg, const uint8_t *in, size_t len, size_t expect,
                        uint8_t *out, size_t cap);

/* Bytes of the CompressedCertificate handshake message carrying
 * compressed_len bytes. */
size_t certcomp_message_len(size_t compressed_len);

/*
 * The wire length of Certificate message msg[msg_len] (handshake header
 * included, as tls_certificate_encode writes it) under alg: the
 * CompressedCertificate's length, or msg_len itself when compressing
 * would not make it smaller (a server then sends it uncompressed, as
 * RFC 8879 allows) or alg is CERTCOMP_NONE. 0 on failure (out of memory,
 * unknown alg, a message shorter than its header).
 */
size_t certcomp_wire_len(int alg, const uint8_t *msg, size_t msg_len);

#endif
