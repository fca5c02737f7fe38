/*
 * chain_sign.c - the keys and signatures of the chain profiles
 * (mtc/chain.h): Ed25519, ECDSA P-256 and ML-DSA through mtc/sig.h, RSA
 * and ECDSA P-384 through OpenSSL's libcrypto.
 *
 * Everything is deterministic so that chains are the same bytes in every
 * run: RSA keys are fixed (chain_keys.c) and PKCS #1 v1.5 signatures are
 * deterministic by construction; P-384 keys are hashed from a seed and
 * their ECDSA nonce is derived from the key and the message digest
 * (HMAC-SHA-384, then reduced mod n: the bias is below 2^-190, irrelevant
 * to a simulator's test keys; it is not RFC 6979's procedure, which only
 * the P-256 keys of mtc/sig.h follow). A key is made once per process
 * when the builds borrow a key ring (mtc__chain_ring, kept by
 * mtc/chain_cache.h), else once per build; either way the same key, so
 * nothing here is tuned for speed.
 */
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>

#include "chain_internal.h"
#include "mtc/error.h"
#include "mtc/hash.h"

/* sha256WithRSAEncryption, NULL parameters (RFC 4055). */
static const uint8_t ALG_RSA_SHA256[] = {0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86,
                                         0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05, 0x00};
/* ecdsa-with-SHA384 (RFC 5758). */
static const uint8_t ALG_ECDSA_SHA384[] = {0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86,
                                           0x48, 0xce, 0x3d, 0x04, 0x03, 0x03};
/* id-ecPublicKey with secp384r1 (RFC 5480), then the BIT STRING header. */
static const uint8_t SPKI_P384[] = {0x30, 0x76, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86,
                                    0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b,
                                    0x81, 0x04, 0x00, 0x22, 0x03, 0x62, 0x00};

static mtc_sig_alg sig_alg_of(mtc_chain_alg a)
{
    switch (a) {
    case MTC_CHAIN_ALG_ED25519: return MTC_SIG_ED25519;
    case MTC_CHAIN_ALG_ECDSA_P256: return MTC_SIG_ECDSA_P256;
    case MTC_CHAIN_ALG_MLDSA44: return MTC_SIG_MLDSA44;
    case MTC_CHAIN_ALG_MLDSA65: return MTC_SIG_MLDSA65;
    case MTC_CHAIN_ALG_MLDSA87: return MTC_SIG_MLDSA87;
    default: return MTC_SIG_NONE;
    }
}

const uint8_t *mtc__chain_sigalg_der(mtc_chain_alg alg, size_t *len)
{
    if (alg == MTC_CHAIN_ALG_RSA2048 || alg == MTC_CHAIN_ALG_RSA4096) {
        *len = sizeof ALG_RSA_SHA256;
        return ALG_RSA_SHA256;
    }
    if (alg == MTC_CHAIN_ALG_ECDSA_P384) {
        *len = sizeof ALG_ECDSA_SHA384;
        return ALG_ECDSA_SHA384;
    }
    const mtc_sig_info *info = mtc_sig_info_get(sig_alg_of(alg));
    if (!info)
        return NULL;
    *len = info->alg_id_der_len;
    return info->alg_id_der;
}

static void key_id(mtc__chain_key *k)
{
    mtc_hash h;
    mtc_sha256(k->spki, k->spki_len, &h);
    memcpy(k->kid, h.b, 20);
}

/* ---- RSA ------------------------------------------------------------------ */

static int rsa_init(mtc__chain_key *k, unsigned idx)
{
    const mtc__chain_rsa_primes *kp = &mtc__chain_rsa_keys[idx];
    int rc = MTC_ERR_CRYPTO;
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *p = NULL, *q = NULL, *n = BN_new(), *e = BN_new(), *d = BN_new(),
           *p1 = BN_new(), *q1 = BN_new(), *phi = BN_new(), *dp = BN_new(),
           *dq = BN_new(), *qi = BN_new();
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *pc = NULL;
    EVP_PKEY *pkey = NULL;
    if (!ctx || !n || !e || !d || !p1 || !q1 || !phi || !dp || !dq || !qi || !bld ||
        !BN_hex2bn(&p, kp->p) || !BN_hex2bn(&q, kp->q) || !BN_set_word(e, 65537) ||
        !BN_mul(n, p, q, ctx) || !BN_sub(p1, p, BN_value_one()) ||
        !BN_sub(q1, q, BN_value_one()) || !BN_mul(phi, p1, q1, ctx) ||
        !BN_mod_inverse(d, e, phi, ctx) || !BN_mod(dp, d, p1, ctx) ||
        !BN_mod(dq, d, q1, ctx) || !BN_mod_inverse(qi, q, p, ctx))
        goto done;
    if ((unsigned)BN_num_bits(n) != kp->bits)
        goto done;
    if (!OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
        !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
        !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_D, d) ||
        !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_FACTOR1, p) ||
        !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_FACTOR2, q) ||
        !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_EXPONENT1, dp) ||
        !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_EXPONENT2, dq) ||
        !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_COEFFICIENT1, qi) ||
        !(params = OSSL_PARAM_BLD_to_param(bld)) ||
        !(pc = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) ||
        EVP_PKEY_fromdata_init(pc) != 1 ||
        EVP_PKEY_fromdata(pc, &pkey, EVP_PKEY_KEYPAIR, params) != 1)
        goto done;
    int len = i2d_PUBKEY(pkey, NULL);
    if (len <= 0 || (size_t)len > sizeof k->spki)
        goto done;
    uint8_t *w = k->spki;
    if (i2d_PUBKEY(pkey, &w) != len)
        goto done;
    k->spki_len = (size_t)len;
    k->pkey = pkey;
    pkey = NULL;
    rc = MTC_OK;
done:
    EVP_PKEY_free(pkey);
    EVP_PKEY_CTX_free(pc);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    BN_clear_free(p);
    BN_clear_free(q);
    BN_free(n);
    BN_free(e);
    BN_clear_free(d);
    BN_clear_free(p1);
    BN_clear_free(q1);
    BN_clear_free(phi);
    BN_clear_free(dp);
    BN_clear_free(dq);
    BN_clear_free(qi);
    BN_CTX_free(ctx);
    return rc;
}

static int rsa_sign(const mtc__chain_key *k, int pss, const uint8_t *msg, size_t len,
                    uint8_t *sig, size_t *sig_len)
{
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pc = NULL;
    size_t sl = MTC__CHAIN_SIG_MAX;
    int ok = m && EVP_DigestSignInit(m, &pc, EVP_sha256(), NULL, k->pkey) == 1 &&
             (!pss || (EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING) == 1 &&
                       EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, RSA_PSS_SALTLEN_DIGEST) == 1)) &&
             EVP_DigestSign(m, sig, &sl, msg, len) == 1;
    EVP_MD_CTX_free(m);
    if (!ok)
        return MTC_ERR_CRYPTO;
    *sig_len = sl;
    return MTC_OK;
}

/* ---- ECDSA P-384 ------------------------------------------------------------ */

static int p384_init(mtc__chain_key *k, unsigned slot, uint8_t tag)
{
    int rc = MTC_ERR_CRYPTO;
    EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_secp384r1);
    EC_POINT *q = g ? EC_POINT_new(g) : NULL;
    BIGNUM *bd = BN_new();
    BN_CTX *ctx = BN_CTX_new();
    if (!g || !q || !bd || !ctx)
        goto done;
    const BIGNUM *n = EC_GROUP_get0_order(g);
    for (unsigned ctr = 0; ctr < 256; ctr++) {
        uint8_t in[] = "mtc chain p-384 key ..";
        in[sizeof in - 3] = (uint8_t)(slot * 64 + tag);
        in[sizeof in - 2] = (uint8_t)ctr;
        unsigned dl = 0;
        if (EVP_Digest(in, sizeof in, k->d384, &dl, EVP_sha384(), NULL) != 1 || dl != 48 ||
            !BN_bin2bn(k->d384, 48, bd))
            goto done;
        if (!BN_is_zero(bd) && BN_cmp(bd, n) < 0)
            break;
        if (ctr == 255)
            goto done;
    }
    uint8_t pt[97];
    if (EC_POINT_mul(g, q, bd, NULL, NULL, ctx) != 1 ||
        EC_POINT_point2oct(g, q, POINT_CONVERSION_UNCOMPRESSED, pt, sizeof pt, ctx) != 97)
        goto done;
    memcpy(k->spki, SPKI_P384, sizeof SPKI_P384);
    memcpy(k->spki + sizeof SPKI_P384, pt, 97);
    k->spki_len = sizeof SPKI_P384 + 97;
    rc = MTC_OK;
done:
    BN_CTX_free(ctx);
    BN_clear_free(bd);
    EC_POINT_free(q);
    EC_GROUP_free(g);
    return rc;
}

/* DER INTEGER of a non-negative bignum. */
static size_t der_int(const BIGNUM *v, uint8_t *p)
{
    uint8_t b[64];
    int n = BN_bn2bin(v, b);
    size_t pad = n > 0 && (b[0] & 0x80) ? 1 : 0;
    p[0] = 0x02;
    p[1] = (uint8_t)(n + (int)pad);
    if (pad)
        p[2] = 0;
    memcpy(p + 2 + pad, b, (size_t)n);
    return 2 + pad + (size_t)n;
}

static int p384_sign(const mtc__chain_key *k, const uint8_t *msg, size_t len,
                     uint8_t *sig, size_t *sig_len)
{
    int rc = MTC_ERR_CRYPTO;
    EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_secp384r1);
    EC_POINT *R = g ? EC_POINT_new(g) : NULL;
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *d = BN_new(), *e = BN_new(), *kk = BN_new(), *x = BN_new(), *r = BN_new(),
           *s = BN_new(), *kinv = BN_new(), *t = BN_new();
    uint8_t h[48];
    unsigned hl = 0;
    if (!g || !R || !ctx || !d || !e || !kk || !x || !r || !s || !kinv || !t ||
        EVP_Digest(msg, len, h, &hl, EVP_sha384(), NULL) != 1 || hl != 48 ||
        !BN_bin2bn(k->d384, 48, d) || !BN_bin2bn(h, 48, e))
        goto done;
    const BIGNUM *n = EC_GROUP_get0_order(g);
    for (unsigned ctr = 0;; ctr++) {
        uint8_t in[49], kb[64];
        unsigned kl = 0;
        memcpy(in, h, 48);
        in[48] = (uint8_t)ctr;
        if (ctr == 255 || !HMAC(EVP_sha512(), k->d384, 48, in, sizeof in, kb, &kl) ||
            kl != 64 || !BN_bin2bn(kb, 64, kk) || !BN_mod(kk, kk, n, ctx))
            goto done;
        if (BN_is_zero(kk))
            continue;
        if (EC_POINT_mul(g, R, kk, NULL, NULL, ctx) != 1 ||
            EC_POINT_get_affine_coordinates(g, R, x, NULL, ctx) != 1 ||
            !BN_nnmod(r, x, n, ctx))
            goto done;
        if (BN_is_zero(r))
            continue;
        /* s = k^-1 (e + r d) mod n */
        if (!BN_mod_inverse(kinv, kk, n, ctx) || !BN_mod_mul(t, r, d, n, ctx) ||
            !BN_mod_add(t, t, e, n, ctx) || !BN_mod_mul(s, kinv, t, n, ctx))
            goto done;
        if (!BN_is_zero(s))
            break;
    }
    uint8_t body[2 * 52];
    size_t bl = der_int(r, body);
    bl += der_int(s, body + bl);
    sig[0] = 0x30;
    sig[1] = (uint8_t)bl;
    memcpy(sig + 2, body, bl);
    *sig_len = bl + 2;
    rc = MTC_OK;
done:
    BN_clear_free(d);
    BN_free(e);
    BN_clear_free(kk);
    BN_free(x);
    BN_free(r);
    BN_free(s);
    BN_clear_free(kinv);
    BN_clear_free(t);
    BN_CTX_free(ctx);
    EC_POINT_free(R);
    EC_GROUP_free(g);
    return rc;
}

/* ---- the interface ----------------------------------------------------------- */

int mtc__chain_key_init(mtc__chain_key *k, mtc_chain_alg alg, unsigned slot, uint8_t tag)
{
    memset(k, 0, sizeof *k);
    k->alg = alg;
    int rc;
    if (alg == MTC_CHAIN_ALG_RSA2048 || alg == MTC_CHAIN_ALG_RSA4096) {
        /* five 2,048-bit keys (slots 0-4), three 4,096-bit ones (0-2); a
         * slot beyond them reuses key 0: only parties whose key is never
         * in the chain get there. A root sent carries its signer's key,
         * so the longest chain sent (amazon-rsa-cross2-root: five
         * 2,048-bit parties, each key in it once) needs the fifth: with
         * one key twice, compression would find the copy */
        unsigned first = alg == MTC_CHAIN_ALG_RSA4096 ? 5 : 0;
        unsigned count = alg == MTC_CHAIN_ALG_RSA4096 ? 3 : 5;
        rc = rsa_init(k, first + (slot < count ? slot : 0));
    } else if (alg == MTC_CHAIN_ALG_ECDSA_P384) {
        rc = p384_init(k, slot, tag);
    } else {
        mtc_sig_alg sa = sig_alg_of(alg);
        if (sa == MTC_SIG_NONE)
            return MTC_ERR_UNSUPPORTED;
        uint8_t seed[MTC_SIG_SEED_LEN] = {0};
        memcpy(seed, "mtc chain key", 13);
        seed[30] = (uint8_t)slot;
        seed[31] = tag;
        uint8_t pk[MTC_SIG_PK_MAX];
        size_t pkl;
        if ((rc = mtc_sig_key_from_seed(sa, seed, &k->sk)) != MTC_OK ||
            (rc = mtc_sig_key_public(k->sk, pk, &pkl)) != MTC_OK ||
            (rc = mtc_sig_spki_der(sa, pk, pkl, k->spki, sizeof k->spki,
                                   &k->spki_len)) != MTC_OK)
            return rc;
    }
    if (rc == MTC_OK)
        key_id(k);
    return rc;
}

void mtc__chain_key_free(mtc__chain_key *k)
{
    if (!k)
        return;
    mtc_sig_key_free(k->sk);
    EVP_PKEY_free(k->pkey);
    OPENSSL_cleanse(k->d384, sizeof k->d384);
    k->sk = NULL;
    k->pkey = NULL;
}

int mtc__chain_sign(const mtc__chain_key *k, const uint8_t *msg, size_t len,
                    uint8_t *sig, size_t *sig_len)
{
    if (k->pkey)
        return rsa_sign(k, 0, msg, len, sig, sig_len);
    if (k->alg == MTC_CHAIN_ALG_ECDSA_P384)
        return p384_sign(k, msg, len, sig, sig_len);
    return mtc_sig_sign(k->sk, msg, len, sig, sig_len);
}

int mtc__chain_cv_sig_len(const mtc__chain_key *k, size_t *len)
{
    /* RFC 8446 4.4.3: 64 spaces, the context string, 0, a transcript hash */
    uint8_t content[64 + 33 + 1 + 32];
    memset(content, 0x20, 64);
    memcpy(content + 64, "TLS 1.3, server CertificateVerify", 33);
    content[97] = 0;
    mtc_sha256(k->spki, k->spki_len, (mtc_hash *)(content + 98));
    uint8_t sig[MTC__CHAIN_SIG_MAX];
    if (k->pkey)
        return rsa_sign(k, 1, content, sizeof content, sig, len);
    return mtc__chain_sign(k, content, sizeof content, sig, len);
}

/* ---- keys kept for many builds ---------------------------------------------- */

struct mtc__chain_ring_key {
    mtc_chain_alg alg;
    unsigned slot;
    uint8_t tag;
    mtc__chain_key *key;        /* owned; never moves once made */
};

int mtc__chain_ring_get(mtc__chain_ring *r, mtc_chain_alg alg, unsigned slot, uint8_t tag,
                        mtc__chain_key **out)
{
    *out = NULL;
    for (size_t i = 0; i < r->n; i++)
        if (r->k[i].alg == alg && r->k[i].slot == slot && r->k[i].tag == tag) {
            *out = r->k[i].key;
            return MTC_OK;
        }
    if (r->n == r->cap) {
        size_t ncap = r->cap ? 2 * r->cap : 16;
        struct mtc__chain_ring_key *nk = realloc(r->k, ncap * sizeof *nk);
        if (!nk)
            return MTC_ERR_NOMEM;
        r->k = nk;
        r->cap = ncap;
    }
    mtc__chain_key *k = malloc(sizeof *k);
    if (!k)
        return MTC_ERR_NOMEM;
    int rc = mtc__chain_key_init(k, alg, slot, tag);
    if (rc != MTC_OK) {
        mtc__chain_key_free(k);
        free(k);
        return rc;
    }
    r->k[r->n++] = (struct mtc__chain_ring_key){alg, slot, tag, k};
    *out = k;
    return MTC_OK;
}

void mtc__chain_ring_free(mtc__chain_ring *r)
{
    for (size_t i = 0; i < r->n; i++) {
        mtc__chain_key_free(r->k[i].key);
        free(r->k[i].key);
    }
    free(r->k);
    memset(r, 0, sizeof *r);
}
