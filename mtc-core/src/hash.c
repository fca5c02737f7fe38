/*
 * hash.c - SHA-256 via OpenSSL, and RFC 9162 leaf/node hashing.
 *
 * Node hashing dominates tree building (two compressions per node), so it
 * uses OpenSSL's low-level SHA256_* interface: no per-call context
 * allocation or provider lookup, which with EVP costs more than the
 * compressions themselves. That interface is deprecated in OpenSSL 3 but
 * present and fully supported in 3.0; we silence only that warning here.
 */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "mtc/hash.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <string.h>

#include "mtc/error.h"

void mtc_sha256(const void *data, size_t len, mtc_hash *out)
{
    SHA256_CTX c;
    SHA256_Init(&c);
    SHA256_Update(&c, data, len);
    SHA256_Final(out->b, &c);
}

void mtc_hash_leaf(const void *entry, size_t len, mtc_hash *out)
{
    static const uint8_t prefix = 0x00;
    SHA256_CTX c;
    SHA256_Init(&c);
    SHA256_Update(&c, &prefix, 1);
    SHA256_Update(&c, entry, len);
    SHA256_Final(out->b, &c);
}

void mtc_hash_node(const mtc_hash *left, const mtc_hash *right, mtc_hash *out)
{
    /* The 65-byte message 0x01 || left || right is exactly two SHA-256
     * blocks once padded, so we lay out both blocks ourselves and run the
     * compression function on both in one call (a whole-block Update goes
     * straight to the block function): this is the hot loop of tree
     * building, and the generic Update/Final path costs a third more. */
    static const uint8_t padding[63] = {
        [0] = 0x80, [61] = (520 >> 8) & 0xff, [62] = 520 & 0xff, /* 65*8 bits */
    };
    uint8_t blk[128];
    blk[0] = 0x01;
    memcpy(blk + 1, left->b, MTC_HASH_LEN);
    memcpy(blk + 1 + MTC_HASH_LEN, right->b, MTC_HASH_LEN);
    memcpy(blk + 65, padding, sizeof padding);
    SHA256_CTX c;
    SHA256_Init(&c);
    SHA256_Update(&c, blk, sizeof blk);
    for (int i = 0; i < 8; i++) {
        uint32_t w = __builtin_bswap32((uint32_t)c.h[i]); /* big-endian out */
        memcpy(out->b + 4 * i, &w, 4);
    }
}

void mtc_hash_empty(mtc_hash *out)
{
    mtc_sha256("", 0, out);
}

int mtc_hash_equal(const mtc_hash *a, const mtc_hash *b)
{
    return CRYPTO_memcmp(a->b, b->b, MTC_HASH_LEN) == 0;
}

void mtc_hash_to_hex(const mtc_hash *h, char out[2 * MTC_HASH_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < MTC_HASH_LEN; i++) {
        out[2 * i] = digits[h->b[i] >> 4];
        out[2 * i + 1] = digits[h->b[i] & 15];
    }
    out[2 * MTC_HASH_LEN] = '\0';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int mtc_hash_from_hex(const char *hex, size_t len, mtc_hash *out)
{
    if (len != 2 * MTC_HASH_LEN)
        return MTC_ERR_PARSE;
    for (size_t i = 0; i < MTC_HASH_LEN; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return MTC_ERR_PARSE;
        out->b[i] = (uint8_t)(hi << 4 | lo);
    }
    return MTC_OK;
}

void mtc_sha256_compress_blocks(uint32_t state[8], const uint8_t *blocks,
                                size_t nblocks)
{
    /* Whole blocks through Update reach the block function in one call,
     * with no padding or buffering: the raw compression rate. */
    SHA256_CTX c;
    SHA256_Init(&c);
    memcpy(c.h, state, sizeof c.h);
    SHA256_Update(&c, blocks, 64 * nblocks);
    memcpy(state, c.h, sizeof c.h);
}

void mtc_hash_leaf_mid(const void *entry, size_t shared, mtc_hash_mid *out)
{
    /* Whole blocks through Update reach the block function directly, so
     * c.h is the state after them (mtc_hash_node relies on the same). */
    uint8_t first[64];
    SHA256_CTX c;
    SHA256_Init(&c);
    out->blocks = (1 + shared) / 64;
    if (out->blocks > 0) {
        first[0] = 0x00;
        memcpy(first + 1, entry, 63);
        SHA256_Update(&c, first, 64);
        if (out->blocks > 1)
            SHA256_Update(&c, (const uint8_t *)entry + 63,
                          64 * (out->blocks - 1));
    }
    for (int i = 0; i < 8; i++)
        out->h[i] = (uint32_t)c.h[i];
}

void mtc_hash_leaf_from_mid(const mtc_hash_mid *m, const void *entry,
                            size_t len, mtc_hash *out)
{
    if (m->blocks == 0 || len + 1 < 64 * m->blocks || len > 4096) {
        mtc_hash_leaf(entry, len, out);
        return;
    }
    /* The rest of 0x00 || entry and its padding (0x80, zeros, the bit
     * length), laid out here and compressed as whole blocks: no Final,
     * no buffering. */
    size_t done = 64 * m->blocks - 1;   /* entry bytes already hashed */
    size_t rest = len - done;
    size_t total = rest + 9, nb = (total + 63) / 64;
    uint8_t buf[4096 + 128];
    memcpy(buf, (const uint8_t *)entry + done, rest);
    memset(buf + rest, 0, 64 * nb - rest);
    buf[rest] = 0x80;
    uint64_t bits = (uint64_t)(1 + len) * 8;
    for (int i = 0; i < 8; i++)
        buf[64 * nb - 1 - i] = (uint8_t)(bits >> (8 * i));
    SHA256_CTX c;
    SHA256_Init(&c);
    for (int i = 0; i < 8; i++)
        c.h[i] = m->h[i];
    SHA256_Update(&c, buf, 64 * nb);
    for (int i = 0; i < 8; i++) {
        uint32_t w = __builtin_bswap32((uint32_t)c.h[i]);
        memcpy(out->b + 4 * i, &w, 4);
    }
}
