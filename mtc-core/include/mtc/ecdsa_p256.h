/*
 * mtc/ecdsa_p256.h - the raw ECDSA P-256 primitives behind mtc/sig.h.
 *
 * OpenSSL 3.0 has no deterministic ECDSA, so mtc-core computes the nonce
 * per RFC 6979 (HMAC-SHA256) and the signature equation with OpenSSL's
 * bignum and EC point arithmetic. These entry points exist so that tests
 * can check the implementation against RFC 6979 appendix A.2.5 with the
 * RFC's own private key; everything else uses mtc/sig.h.
 */
#ifndef MTC_ECDSA_P256_H
#define MTC_ECDSA_P256_H

#include <stdint.h>

/* The public key 0x04 || X || Y of private scalar d (big-endian, 1 <= d <
 * n). MTC_OK, MTC_ERR_KEY (d out of range) or MTC_ERR_CRYPTO. */
int mtc_ecdsa_p256_public(const uint8_t d[32], uint8_t pk[65]);

/*
 * Deterministic signature (r, s) of the 32-byte digest h with private
 * scalar d: k is generated as in RFC 6979 section 3.2 with HMAC-SHA256
 * and written to k_out when it is not NULL. s is not normalised to the
 * low half (the RFC's vectors are not). MTC_OK, MTC_ERR_KEY or
 * MTC_ERR_CRYPTO.
 */
int mtc_ecdsa_p256_sign_digest(const uint8_t d[32], const uint8_t h[32],
                               uint8_t r[32], uint8_t s[32], uint8_t k_out[32]);

#endif
