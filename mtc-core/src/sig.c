/*
 * sig.c - the signature-algorithm table: Ed25519 and ECDSA P-256 (OpenSSL),
 * ML-DSA-44/65/87 (mtc-core's FIPS 204, mtc/mldsa.h).
 *
 * Every algorithm is one row in two parallel tables: its public description
 * (mtc_sig_info, returned to callers) and its operations (struct sig_ops:
 * key derivation from a seed, signing, verification). Adding an algorithm
 * such as ML-DSA means adding one row to each; the SubjectPublicKeyInfo
 * encoding and parsing are generic because every key we support is a raw
 * byte string in the BIT STRING behind a fixed AlgorithmIdentifier.
 *
 * Signatures are deterministic: Ed25519 is by construction, ECDSA uses
 * RFC 6979 nonces computed here (OpenSSL 3.0 has none built in) with the
 * signature equation in OpenSSL's bignum/EC arithmetic.
 */
#include "mtc/sig.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/ecdsa_p256.h"
#include "mtc/error.h"
#include "mtc/hash.h"
#include "mtc/mldsa.h"

/* ---- DER AlgorithmIdentifiers ------------------------------------------ */

/* id-Ed25519 (RFC 8410): the same for keys and signatures. */
static const uint8_t ALG_ED25519[] = {0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70};
/* ecdsa-with-SHA256 (RFC 5758), parameters absent. */
static const uint8_t ALG_ECDSA_SHA256[] = {0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86,
                                           0x48, 0xce, 0x3d, 0x04, 0x03, 0x02};
/* id-ecPublicKey with namedCurve prime256v1 (RFC 5480). */
static const uint8_t SPKI_ALG_P256[] = {0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48,
                                        0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
                                        0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};

/* id-ml-dsa-44/65/87 (RFC 9881, NIST arc 2.16.840.1.101.3.4.3.17-19),
 * parameters absent: the same for keys and signatures. */
static const uint8_t ALG_MLDSA44[] = {0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48,
                                      0x01, 0x65, 0x03, 0x04, 0x03, 0x11};
static const uint8_t ALG_MLDSA65[] = {0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48,
                                      0x01, 0x65, 0x03, 0x04, 0x03, 0x12};
static const uint8_t ALG_MLDSA87[] = {0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48,
                                      0x01, 0x65, 0x03, 0x04, 0x03, 0x13};

/* ---- the table ----------------------------------------------------------- */

struct sig_ops {
    const uint8_t *spki_alg; /* DER AlgorithmIdentifier inside the SPKI */
    size_t spki_alg_len;
    /* Derives the private state and raw public key from a seed. */
    int (*keygen)(const uint8_t seed[MTC_SIG_SEED_LEN], void **priv,
                  uint8_t *pk, size_t *pk_len);
    void (*priv_free)(void *priv);
    int (*sign)(const void *priv, const uint8_t *msg, size_t msg_len,
                uint8_t *sig, size_t *sig_len);
    int (*verify)(const uint8_t *pk, size_t pk_len, const uint8_t *msg,
                  size_t msg_len, const uint8_t *sig, size_t sig_len);
};

static int ed25519_keygen(const uint8_t *, void **, uint8_t *, size_t *);
static void ed25519_free(void *);
static int ed25519_sign(const void *, const uint8_t *, size_t, uint8_t *,
                        size_t *);
static int ed25519_verify(const uint8_t *, size_t, const uint8_t *, size_t,
                          const uint8_t *, size_t);
static int p256_keygen(const uint8_t *, void **, uint8_t *, size_t *);
static void p256_free(void *);
static int p256_sign(const void *, const uint8_t *, size_t, uint8_t *,
                     size_t *);
static int p256_verify(const uint8_t *, size_t, const uint8_t *, size_t,
                       const uint8_t *, size_t);

/* ML-DSA through mtc/mldsa.h: pure ML-DSA, empty context, deterministic
 * signing (rnd = 0^32), one thin wrapper per parameter set. */
#define MLDSA_OPS(N)                                                          \
    static int mldsa##N##_keygen(const uint8_t *seed, void **priv,            \
                                 uint8_t *pk, size_t *pk_len)                 \
    {                                                                         \
        mtc_mldsa_key *k;                                                     \
        int rc = mtc_mldsa_key_from_seed(MTC_MLDSA_##N, seed, &k);            \
        if (rc != MTC_OK)                                                     \
            return rc;                                                        \
        memcpy(pk, mtc_mldsa_key_pk(k), MTC_MLDSA##N##_PK_LEN);               \
        *pk_len = MTC_MLDSA##N##_PK_LEN;                                      \
        *priv = k;                                                            \
        return MTC_OK;                                                        \
    }                                                                         \
    static int mldsa##N##_sign(const void *priv, const uint8_t *msg,          \
                               size_t msg_len, uint8_t *sig, size_t *sig_len) \
    {                                                                         \
        int rc = mtc_mldsa_key_sign(priv, msg, msg_len, NULL, 0, NULL, sig);  \
        if (rc == MTC_OK)                                                     \
            *sig_len = MTC_MLDSA##N##_SIG_LEN;                                \
        return rc;                                                            \
    }                                                                         \
    static int mldsa##N##_verify(const uint8_t *pk, size_t pk_len,            \
                                 const uint8_t *msg, size_t msg_len,          \
                                 const uint8_t *sig, size_t sig_len)          \
    {                                                                         \
        return mtc_mldsa_verify(MTC_MLDSA_##N, pk, pk_len, msg, msg_len, NULL, \
                                0, sig, sig_len);                             \
    }

static void mldsa_free(void *priv)
{
    mtc_mldsa_key_free(priv);
}

MLDSA_OPS(44)
MLDSA_OPS(65)
MLDSA_OPS(87)

static const mtc_sig_info sig_infos[] = {
    {MTC_SIG_ED25519, "ed25519", 32, 64, ALG_ED25519, sizeof ALG_ED25519},
    {MTC_SIG_ECDSA_P256, "ecdsa-p256", 65, 72, ALG_ECDSA_SHA256,
     sizeof ALG_ECDSA_SHA256},
    {MTC_SIG_MLDSA44, "ml-dsa-44", MTC_MLDSA44_PK_LEN, MTC_MLDSA44_SIG_LEN,
     ALG_MLDSA44, sizeof ALG_MLDSA44},
    {MTC_SIG_MLDSA65, "ml-dsa-65", MTC_MLDSA65_PK_LEN, MTC_MLDSA65_SIG_LEN,
     ALG_MLDSA65, sizeof ALG_MLDSA65},
    {MTC_SIG_MLDSA87, "ml-dsa-87", MTC_MLDSA87_PK_LEN, MTC_MLDSA87_SIG_LEN,
     ALG_MLDSA87, sizeof ALG_MLDSA87},
};

static const struct sig_ops sig_ops_table[] = {
    {ALG_ED25519, sizeof ALG_ED25519, ed25519_keygen, ed25519_free,
     ed25519_sign, ed25519_verify},
    {SPKI_ALG_P256, sizeof SPKI_ALG_P256, p256_keygen, p256_free, p256_sign,
     p256_verify},
    {ALG_MLDSA44, sizeof ALG_MLDSA44, mldsa44_keygen, mldsa_free, mldsa44_sign,
     mldsa44_verify},
    {ALG_MLDSA65, sizeof ALG_MLDSA65, mldsa65_keygen, mldsa_free, mldsa65_sign,
     mldsa65_verify},
    {ALG_MLDSA87, sizeof ALG_MLDSA87, mldsa87_keygen, mldsa_free, mldsa87_sign,
     mldsa87_verify},
};

_Static_assert(sizeof sig_infos / sizeof sig_infos[0] ==
                   sizeof sig_ops_table / sizeof sig_ops_table[0],
               "one ops row per info row");

#define SIG_COUNT (sizeof sig_infos / sizeof sig_infos[0])

static int sig_index(mtc_sig_alg alg)
{
    for (size_t i = 0; i < SIG_COUNT; i++)
        if (sig_infos[i].alg == alg)
            return (int)i;
    return -1;
}

const mtc_sig_info *mtc_sig_info_get(mtc_sig_alg alg)
{
    int i = sig_index(alg);
    return i < 0 ? NULL : &sig_infos[i];
}

const mtc_sig_info *mtc_sig_info_by_name(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < SIG_COUNT; i++)
        if (!strcmp(sig_infos[i].name, name))
            return &sig_infos[i];
    return NULL;
}

const mtc_sig_info *mtc_sig_all(size_t *count)
{
    *count = SIG_COUNT;
    return sig_infos;
}

/* ---- keys ----------------------------------------------------------------- */

struct mtc_sig_key {
    mtc_sig_alg alg;
    int idx;
    void *priv;
    size_t pk_len;
    uint8_t pk[MTC_SIG_PK_MAX];
};

int mtc_sig_key_from_seed(mtc_sig_alg alg, const uint8_t seed[MTC_SIG_SEED_LEN],
                          mtc_sig_key **out)
{
    *out = NULL;
    int idx = sig_index(alg);
    if (idx < 0)
        return MTC_ERR_UNSUPPORTED;
    mtc_sig_key *k = calloc(1, sizeof *k);
    if (!k)
        return MTC_ERR_NOMEM;
    k->alg = alg;
    k->idx = idx;
    int rc = sig_ops_table[idx].keygen(seed, &k->priv, k->pk, &k->pk_len);
    if (rc != MTC_OK) {
        free(k);
        return rc;
    }
    *out = k;
    return MTC_OK;
}

void mtc_sig_key_free(mtc_sig_key *key)
{
    if (!key)
        return;
    sig_ops_table[key->idx].priv_free(key->priv);
    OPENSSL_cleanse(key, sizeof *key);
    free(key);
}

mtc_sig_alg mtc_sig_key_alg(const mtc_sig_key *key)
{
    return key->alg;
}

int mtc_sig_key_public(const mtc_sig_key *key, uint8_t *pk, size_t *pk_len)
{
    memcpy(pk, key->pk, key->pk_len);
    *pk_len = key->pk_len;
    return MTC_OK;
}

int mtc_sig_sign(const mtc_sig_key *key, const uint8_t *msg, size_t msg_len,
                 uint8_t *sig, size_t *sig_len)
{
    return sig_ops_table[key->idx].sign(key->priv, msg, msg_len, sig, sig_len);
}

int mtc_sig_verify(mtc_sig_alg alg, const uint8_t *pk, size_t pk_len,
                   const uint8_t *msg, size_t msg_len, const uint8_t *sig,
                   size_t sig_len)
{
    int idx = sig_index(alg);
    if (idx < 0)
        return MTC_ERR_UNSUPPORTED;
    if (pk_len != sig_infos[idx].pk_len)
        return MTC_ERR_KEY;
    if (sig_len > sig_infos[idx].sig_max)
        return MTC_ERR_SIG_ENCODING;
    return sig_ops_table[idx].verify(pk, pk_len, msg, msg_len, sig, sig_len);
}

/* ---- SubjectPublicKeyInfo -------------------------------------------------
 * SEQUENCE { AlgorithmIdentifier, BIT STRING { 0 unused bits, raw key } }.
 * DER is unique, so parsing is: find the table row whose encoding of a
 * key of its length is exactly the input's prefix and length. */

static size_t der_len_size(size_t len)
{
    size_t n = 1;
    if (len >= 0x80)
        for (size_t l = len; l; l >>= 8)
            n++;
    return n;
}

static size_t der_put_len(uint8_t *p, size_t len)
{
    size_t n = der_len_size(len);
    if (n == 1) {
        p[0] = (uint8_t)len;
        return 1;
    }
    p[0] = (uint8_t)(0x80 | (n - 1));
    for (size_t i = n - 1; i >= 1; i--, len >>= 8)
        p[i] = (uint8_t)len;
    return n;
}

/* Writes the SPKI header (everything before the raw key) into hdr. */
static size_t spki_header(int idx, size_t pk_len, uint8_t hdr[32])
{
    const struct sig_ops *o = &sig_ops_table[idx];
    size_t bits_len = 1 + pk_len;
    size_t bits_tlv = 1 + der_len_size(bits_len) + bits_len;
    size_t inner = o->spki_alg_len + bits_tlv;
    size_t n = 0;
    hdr[n++] = 0x30;
    n += der_put_len(hdr + n, inner);
    memcpy(hdr + n, o->spki_alg, o->spki_alg_len);
    n += o->spki_alg_len;
    hdr[n++] = 0x03;
    n += der_put_len(hdr + n, bits_len);
    hdr[n++] = 0x00;
    return n;
}

int mtc_sig_spki_der(mtc_sig_alg alg, const uint8_t *pk, size_t pk_len,
                     uint8_t *out, size_t out_cap, size_t *out_len)
{
    int idx = sig_index(alg);
    if (idx < 0)
        return MTC_ERR_UNSUPPORTED;
    if (pk_len != sig_infos[idx].pk_len)
        return MTC_ERR_KEY;
    uint8_t hdr[32 + 32];
    size_t h = spki_header(idx, pk_len, hdr);
    if (out_cap < h + pk_len)
        return MTC_ERR_LIMIT;
    memcpy(out, hdr, h);
    memcpy(out + h, pk, pk_len);
    *out_len = h + pk_len;
    return MTC_OK;
}

int mtc_sig_spki_parse(const uint8_t *der, size_t der_len, mtc_sig_alg *alg,
                       uint8_t *pk, size_t pk_cap, size_t *pk_len)
{
    /* Outer SEQUENCE header: short form or minimal long form. */
    if (der_len < 2 || der[0] != 0x30)
        return MTC_ERR_KEY;
    size_t off = 2, inner = der[1];
    if (der[1] & 0x80) {
        size_t nl = der[1] & 0x7f;
        if (nl == 0 || nl > 2 || der_len < 2 + nl)
            return MTC_ERR_KEY;
        inner = 0;
        for (size_t i = 0; i < nl; i++)
            inner = inner << 8 | der[2 + i];
        off = 2 + nl;
    }
    if (der_len - off != inner)
        return MTC_ERR_KEY;
    for (size_t i = 0; i < SIG_COUNT; i++) {
        const struct sig_ops *o = &sig_ops_table[i];
        if (inner < o->spki_alg_len ||
            memcmp(der + off, o->spki_alg, o->spki_alg_len) != 0)
            continue;
        /* Algorithm known: the rest must be exactly our encoding. */
        size_t klen = sig_infos[i].pk_len;
        uint8_t hdr[32 + 32];
        size_t h = spki_header((int)i, klen, hdr);
        if (der_len != h + klen || memcmp(der, hdr, h) != 0)
            return MTC_ERR_KEY;
        /* P-256: only uncompressed points (the raw form of mtc/sig.h). */
        if (sig_infos[i].alg == MTC_SIG_ECDSA_P256 && der[h] != 0x04)
            return MTC_ERR_KEY;
        if (pk_cap < klen)
            return MTC_ERR_LIMIT;
        memcpy(pk, der + h, klen);
        *pk_len = klen;
        *alg = sig_infos[i].alg;
        return MTC_OK;
    }
    return MTC_ERR_UNSUPPORTED;
}

/* ---- Ed25519 -------------------------------------------------------------- */

static int ed25519_keygen(const uint8_t *seed, void **priv, uint8_t *pk,
                          size_t *pk_len)
{
    EVP_PKEY *p = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed,
                                               MTC_SIG_SEED_LEN);
    if (!p)
        return MTC_ERR_CRYPTO;
    size_t n = 32;
    if (EVP_PKEY_get_raw_public_key(p, pk, &n) != 1 || n != 32) {
        EVP_PKEY_free(p);
        return MTC_ERR_CRYPTO;
    }
    *pk_len = n;
    *priv = p;
    return MTC_OK;
}

static void ed25519_free(void *priv)
{
    EVP_PKEY_free(priv);
}

static int ed25519_sign(const void *priv, const uint8_t *msg, size_t msg_len,
                        uint8_t *sig, size_t *sig_len)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c)
        return MTC_ERR_NOMEM;
    size_t n = 64;
    int ok = EVP_DigestSignInit(c, NULL, NULL, NULL, (EVP_PKEY *)priv) == 1 &&
             EVP_DigestSign(c, sig, &n, msg, msg_len) == 1 && n == 64;
    EVP_MD_CTX_free(c);
    if (!ok)
        return MTC_ERR_CRYPTO;
    *sig_len = n;
    return MTC_OK;
}

static int ed25519_verify(const uint8_t *pk, size_t pk_len, const uint8_t *msg,
                          size_t msg_len, const uint8_t *sig, size_t sig_len)
{
    if (sig_len != 64)
        return MTC_ERR_SIG_ENCODING;
    EVP_PKEY *p = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pk, pk_len);
    if (!p)
        return MTC_ERR_KEY;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    int rc = MTC_ERR_NOMEM;
    if (c) {
        rc = MTC_ERR_CRYPTO;
        if (EVP_DigestVerifyInit(c, NULL, NULL, NULL, p) == 1)
            rc = EVP_DigestVerify(c, sig, sig_len, msg, msg_len) == 1
                     ? MTC_OK
                     : MTC_ERR_SIGNATURE;
    }
    EVP_MD_CTX_free(c);
    EVP_PKEY_free(p);
    return rc;
}

/* ---- ECDSA P-256 ------------------------------------------------------------ */

/* The group order n of P-256, big-endian. */
static const uint8_t P256_N[32] = {
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17,
    0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51};

/* 1 when 1 <= x < n for a 32-byte big-endian x. Not constant time in the
 * comparison's position, which leaks only whether a candidate was rejected. */
static int scalar_in_range(const uint8_t x[32])
{
    int nonzero = 0;
    for (int i = 0; i < 32; i++)
        nonzero |= x[i];
    return nonzero && memcmp(x, P256_N, 32) < 0;
}

struct p256_priv {
    uint8_t d[32];
};

/*
 * Hash-to-scalar with rejection: d = SHA-256(label || seed || counter),
 * the first candidate in [1, n). P-256's n is within 2^-32 of 2^256, so a
 * retry essentially never happens; the counter keeps it well defined.
 */
static int p256_keygen(const uint8_t *seed, void **priv, uint8_t *pk,
                       size_t *pk_len)
{
    static const char label[] = "mtc-core ecdsa-p256 key from seed";
    struct p256_priv *k = malloc(sizeof *k);
    if (!k)
        return MTC_ERR_NOMEM;
    uint8_t buf[sizeof label - 1 + MTC_SIG_SEED_LEN + 1];
    memcpy(buf, label, sizeof label - 1);
    memcpy(buf + sizeof label - 1, seed, MTC_SIG_SEED_LEN);
    for (unsigned ctr = 0;; ctr++) {
        buf[sizeof buf - 1] = (uint8_t)ctr;
        mtc_hash h;
        mtc_sha256(buf, sizeof buf, &h);
        if (scalar_in_range(h.b)) {
            memcpy(k->d, h.b, 32);
            OPENSSL_cleanse(&h, sizeof h);
            break;
        }
        if (ctr == 255) { /* probability 2^-8192: treat as broken hash */
            free(k);
            return MTC_ERR_CRYPTO;
        }
    }
    OPENSSL_cleanse(buf, sizeof buf);
    int rc = mtc_ecdsa_p256_public(k->d, pk);
    if (rc != MTC_OK) {
        p256_free(k);
        return rc;
    }
    *pk_len = 65;
    *priv = k;
    return MTC_OK;
}

static void p256_free(void *priv)
{
    if (!priv)
        return;
    OPENSSL_cleanse(priv, sizeof(struct p256_priv));
    free(priv);
}

int mtc_ecdsa_p256_public(const uint8_t d[32], uint8_t pk[65])
{
    if (!scalar_in_range(d))
        return MTC_ERR_KEY;
    int rc = MTC_ERR_CRYPTO;
    EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    EC_POINT *q = g ? EC_POINT_new(g) : NULL;
    BIGNUM *bd = BN_secure_new();
    BN_CTX *ctx = BN_CTX_new();
    if (!g || !q || !bd || !ctx || !BN_bin2bn(d, 32, bd))
        goto done;
    BN_set_flags(bd, BN_FLG_CONSTTIME);
    if (EC_POINT_mul(g, q, bd, NULL, NULL, ctx) != 1)
        goto done;
    if (EC_POINT_point2oct(g, q, POINT_CONVERSION_UNCOMPRESSED, pk, 65, ctx) != 65)
        goto done;
    rc = MTC_OK;
done:
    BN_CTX_free(ctx);
    BN_clear_free(bd);
    EC_POINT_free(q);
    EC_GROUP_free(g);
    return rc;
}

static int hmac256(const uint8_t key[32], const uint8_t *a, size_t alen,
                   const uint8_t *b, size_t blen, uint8_t out[32])
{
    uint8_t buf[32 + 1 + 64];
    if (alen + blen > sizeof buf)
        return MTC_ERR_ARG;
    memcpy(buf, a, alen);
    if (blen)
        memcpy(buf + alen, b, blen);
    unsigned int n = 32;
    int ok = HMAC(EVP_sha256(), key, 32, buf, alen + blen, out, &n) != NULL &&
             n == 32;
    OPENSSL_cleanse(buf, sizeof buf);
    return ok ? MTC_OK : MTC_ERR_CRYPTO;
}

/*
 * RFC 6979 section 3.2 for qlen = hlen = 256: HMAC_DRBG state (K, V)
 * seeded with int2octets(d) || bits2octets(h). next() yields successive
 * candidates; each rejected one (out of range, r = 0 or s = 0) re-keys.
 */
struct rfc6979 {
    uint8_t K[32], V[32];
};

static int rfc6979_init(struct rfc6979 *st, const uint8_t d[32],
                        const uint8_t h[32])
{
    /* bits2octets(h) = (h mod n): h < 2^256 < 2n, so subtract n at most once. */
    uint8_t hm[32];
    memcpy(hm, h, 32);
    if (memcmp(hm, P256_N, 32) >= 0) {
        int borrow = 0;
        for (int i = 31; i >= 0; i--) {
            int v = hm[i] - P256_N[i] - borrow;
            borrow = v < 0;
            hm[i] = (uint8_t)(v + (borrow ? 256 : 0));
        }
    }
    uint8_t seed[32 + 32];
    memcpy(seed, d, 32);
    memcpy(seed + 32, hm, 32);
    memset(st->V, 0x01, 32);
    memset(st->K, 0x00, 32);
    uint8_t vb[33];
    int rc;
    for (uint8_t sep = 0; sep <= 1; sep++) {
        memcpy(vb, st->V, 32);
        vb[32] = sep;
        if ((rc = hmac256(st->K, vb, 33, seed, 64, st->K)) != MTC_OK ||
            (rc = hmac256(st->K, st->V, 32, NULL, 0, st->V)) != MTC_OK)
            break;
    }
    OPENSSL_cleanse(seed, sizeof seed);
    return rc;
}

/* After a rejected candidate: K = HMAC_K(V || 0x00), V = HMAC_K(V). */
static int rfc6979_reject(struct rfc6979 *st)
{
    uint8_t vb[33];
    memcpy(vb, st->V, 32);
    vb[32] = 0x00;
    int rc = hmac256(st->K, vb, 33, NULL, 0, st->K);
    if (rc == MTC_OK)
        rc = hmac256(st->K, st->V, 32, NULL, 0, st->V);
    return rc;
}

static int rfc6979_next(struct rfc6979 *st, uint8_t k[32])
{
    for (;;) {
        int rc = hmac256(st->K, st->V, 32, NULL, 0, st->V);
        if (rc != MTC_OK)
            return rc;
        memcpy(k, st->V, 32);
        if (scalar_in_range(k))
            return MTC_OK;
        if ((rc = rfc6979_reject(st)) != MTC_OK)
            return rc;
    }
}

int mtc_ecdsa_p256_sign_digest(const uint8_t d[32], const uint8_t h[32],
                               uint8_t r[32], uint8_t s[32], uint8_t k_out[32])
{
    if (!scalar_in_range(d))
        return MTC_ERR_KEY;
    int rc = MTC_ERR_CRYPTO;
    struct rfc6979 st;
    uint8_t k[32];
    EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    EC_POINT *R = g ? EC_POINT_new(g) : NULL;
    BN_CTX *ctx = BN_CTX_secure_new();
    BIGNUM *n = BN_new(), *bk = BN_secure_new(), *bd = BN_secure_new();
    BIGNUM *x = BN_new(), *br = BN_new(), *bs = BN_new(), *e = BN_new();
    BIGNUM *kinv = BN_secure_new(), *t = BN_secure_new();
    if (!g || !R || !ctx || !n || !bk || !bd || !x || !br || !bs || !e ||
        !kinv || !t)
        goto done;
    if (!BN_bin2bn(P256_N, 32, n) || !BN_bin2bn(d, 32, bd) ||
        !BN_bin2bn(h, 32, e))
        goto done;
    BN_set_flags(bd, BN_FLG_CONSTTIME);
    if ((rc = rfc6979_init(&st, d, h)) != MTC_OK)
        goto done;
    rc = MTC_ERR_CRYPTO;
    for (;;) {
        int r2 = rfc6979_next(&st, k);
        if (r2 != MTC_OK) {
            rc = r2;
            goto done;
        }
        if (!BN_bin2bn(k, 32, bk))
            goto done;
        BN_set_flags(bk, BN_FLG_CONSTTIME);
        /* r = x(kG) mod n */
        if (EC_POINT_mul(g, R, bk, NULL, NULL, ctx) != 1 ||
            EC_POINT_get_affine_coordinates(g, R, x, NULL, ctx) != 1 ||
            !BN_nnmod(br, x, n, ctx))
            goto done;
        /* s = k^-1 (e + r d) mod n; k is prime to n, inverted as k^(n-2). */
        if (!BN_mod_inverse(kinv, bk, n, ctx) ||
            !BN_mod_mul(t, br, bd, n, ctx) || !BN_mod_add(t, t, e, n, ctx) ||
            !BN_mod_mul(bs, kinv, t, n, ctx))
            goto done;
        if (!BN_is_zero(br) && !BN_is_zero(bs))
            break;
        if ((r2 = rfc6979_reject(&st)) != MTC_OK) {
            rc = r2;
            goto done;
        }
    }
    if (BN_bn2binpad(br, r, 32) != 32 || BN_bn2binpad(bs, s, 32) != 32)
        goto done;
    if (k_out)
        memcpy(k_out, k, 32);
    rc = MTC_OK;
done:
    OPENSSL_cleanse(&st, sizeof st);
    OPENSSL_cleanse(k, sizeof k);
    BN_clear_free(t);
    BN_clear_free(kinv);
    BN_free(e);
    BN_free(bs);
    BN_free(br);
    BN_free(x);
    BN_clear_free(bd);
    BN_clear_free(bk);
    BN_free(n);
    BN_CTX_free(ctx);
    EC_POINT_free(R);
    EC_GROUP_free(g);
    return rc;
}

/* DER INTEGER of a 32-byte unsigned big-endian value into p; returns size. */
static size_t der_uint32b(const uint8_t v[32], uint8_t *p)
{
    size_t i = 0;
    while (i < 31 && v[i] == 0)
        i++;
    size_t len = 32 - i, pad = v[i] & 0x80 ? 1 : 0;
    p[0] = 0x02;
    p[1] = (uint8_t)(len + pad);
    if (pad)
        p[2] = 0;
    memcpy(p + 2 + pad, v + i, len);
    return 2 + pad + len;
}

static int p256_sign(const void *priv, const uint8_t *msg, size_t msg_len,
                     uint8_t *sig, size_t *sig_len)
{
    const struct p256_priv *k = priv;
    mtc_hash h;
    uint8_t r[32], s[32];
    mtc_sha256(msg, msg_len, &h);
    int rc = mtc_ecdsa_p256_sign_digest(k->d, h.b, r, s, NULL);
    if (rc != MTC_OK)
        return rc;
    uint8_t body[2 * 35];
    size_t n = der_uint32b(r, body);
    n += der_uint32b(s, body + n);
    sig[0] = 0x30;
    sig[1] = (uint8_t)n;
    memcpy(sig + 2, body, n);
    *sig_len = n + 2;
    return MTC_OK;
}

/* Strict DER parse of one INTEGER in (0, 2^256): minimal, positive. */
static int der_parse_uint256(const uint8_t **p, const uint8_t *end, uint8_t out[32])
{
    const uint8_t *q = *p;
    if (end - q < 2 || q[0] != 0x02)
        return 0;
    size_t len = q[1];
    if (len == 0 || len > 33 || (size_t)(end - q - 2) < len)
        return 0;
    const uint8_t *v = q + 2;
    if (v[0] & 0x80)
        return 0; /* negative */
    if (len > 1 && v[0] == 0 && !(v[1] & 0x80))
        return 0; /* not minimal */
    if (len == 33) {
        if (v[0] != 0)
            return 0;
        v++;
        len--;
    }
    memset(out, 0, 32);
    memcpy(out + 32 - len, v, len);
    *p = q + 2 + (q[1]);
    return 1;
}

static int p256_verify(const uint8_t *pk, size_t pk_len, const uint8_t *msg,
                       size_t msg_len, const uint8_t *sig, size_t sig_len)
{
    if (pk[0] != 0x04)
        return MTC_ERR_KEY;
    uint8_t r[32], s[32];
    const uint8_t *p = sig, *end = sig + sig_len;
    if (sig_len < 8 || sig[0] != 0x30 || sig[1] != sig_len - 2)
        return MTC_ERR_SIG_ENCODING;
    p += 2;
    if (!der_parse_uint256(&p, end, r) || !der_parse_uint256(&p, end, s) ||
        p != end)
        return MTC_ERR_SIG_ENCODING;
    if (!scalar_in_range(r) || !scalar_in_range(s))
        return MTC_ERR_SIGNATURE;

    int rc = MTC_ERR_CRYPTO;
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *kctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    OSSL_PARAM params[3];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
                                                 (char *)"prime256v1", 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY,
                                                  (void *)pk, pk_len);
    params[2] = OSSL_PARAM_construct_end();
    if (!kctx || !mctx || EVP_PKEY_fromdata_init(kctx) != 1)
        goto done;
    /* fromdata rejects points not on the curve. */
    if (EVP_PKEY_fromdata(kctx, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) {
        rc = MTC_ERR_KEY;
        goto done;
    }
    if (EVP_DigestVerifyInit(mctx, NULL, EVP_sha256(), NULL, key) != 1)
        goto done;
    rc = EVP_DigestVerify(mctx, sig, sig_len, msg, msg_len) == 1
             ? MTC_OK
             : MTC_ERR_SIGNATURE;
done:
    EVP_MD_CTX_free(mctx);
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(kctx);
    return rc;
}
