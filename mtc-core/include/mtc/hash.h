/*
 * mtc/hash.h - SHA-256 and the Merkle hashing rules of RFC 9162 section 2.1.
 *
 * Leaf hashes are HASH(0x00 || entry) and interior nodes HASH(0x01 || l || r).
 * All hashing in mtc-core goes through OpenSSL's SHA-256. Functions here
 * cannot fail (OpenSSL's low-level SHA-256 has no failure path).
 */
#ifndef MTC_HASH_H
#define MTC_HASH_H

#include <stddef.h>
#include <stdint.h>

#define MTC_HASH_LEN 32

typedef struct mtc_hash {
    uint8_t b[MTC_HASH_LEN];
} mtc_hash;

/* SHA-256 of data[0..len). */
void mtc_sha256(const void *data, size_t len, mtc_hash *out);

/* MTH({d}) = SHA-256(0x00 || d): the hash of a single entry. */
void mtc_hash_leaf(const void *entry, size_t len, mtc_hash *out);

/* Leaf hashes of many entries that share their first bytes (a log's
 * background entries, patched from one template): the SHA-256 state after
 * the whole 64-byte blocks of 0x00 || prefix, computed once, then each
 * entry's hash from it. The result is mtc_hash_leaf's, bit for bit. */
typedef struct mtc_hash_mid {
    uint32_t h[8];      /* state after `blocks` blocks */
    size_t blocks;      /* whole blocks of 0x00 || entry it covers */
} mtc_hash_mid;

/* The state after the whole blocks of 0x00 || entry[0..shared) (entries
 * hashed from it must start with these `shared` bytes). */
void mtc_hash_leaf_mid(const void *entry, size_t shared, mtc_hash_mid *out);
/* MTH({entry}) from m; entry's first 64 * m->blocks - 1 bytes must be those
 * m was made from (len must reach past them). */
void mtc_hash_leaf_from_mid(const mtc_hash_mid *m, const void *entry,
                            size_t len, mtc_hash *out);

/* SHA-256(0x01 || left || right). `out` may alias either input. */
void mtc_hash_node(const mtc_hash *left, const mtc_hash *right, mtc_hash *out);

/* MTH({}) = SHA-256 of the empty string. */
void mtc_hash_empty(mtc_hash *out);

/* Constant-time equality of two hashes: 1 when equal, 0 otherwise. */
int mtc_hash_equal(const mtc_hash *a, const mtc_hash *b);

/* Lower-case hex of a hash into out[65] (NUL-terminated). */
void mtc_hash_to_hex(const mtc_hash *h, char out[2 * MTC_HASH_LEN + 1]);

/* Parses exactly 64 hex digits (either case). MTC_OK or MTC_ERR_PARSE. */
int mtc_hash_from_hex(const char *hex, size_t len, mtc_hash *out);

/*
 * Raw SHA-256 compression of `nblocks` 64-byte blocks into `state` (8 words,
 * initialised by the caller). Used only by benchmarks to measure the bound
 * on hashing throughput on this CPU.
 */
void mtc_sha256_compress_blocks(uint32_t state[8], const uint8_t *blocks,
                                size_t nblocks);

#endif
