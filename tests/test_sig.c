/*
 * test_sig.c - the signature table: published vectors (RFC 8032, RFC 6979
 * A.2.5), determinism, every-bit mutations, SPKI encodings cross-checked
 * with OpenSSL's own parser, malformed keys and signatures.
 */
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "mtc/ecdsa_p256.h"
#include "mtc/error.h"
#include "mtc/hash.h"
#include "mtc/sig.h"
#include "test.h"

static void unhex(const char *h, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(h + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

TEST(table_lookups)
{
    size_t n;
    const mtc_sig_info *all = mtc_sig_all(&n);
    ASSERT_TRUE(n >= 2);
    for (size_t i = 0; i < n; i++) {
        ASSERT_TRUE(mtc_sig_info_get(all[i].alg) == &all[i]);
        ASSERT_TRUE(mtc_sig_info_by_name(all[i].name) == &all[i]);
        if (i)
            ASSERT_TRUE(all[i].alg > all[i - 1].alg);
        ASSERT_TRUE(all[i].pk_len <= MTC_SIG_PK_MAX);
        ASSERT_TRUE(all[i].sig_max <= MTC_SIG_MAX);
    }
    ASSERT_TRUE(mtc_sig_info_get(MTC_SIG_NONE) == NULL);
    ASSERT_TRUE(mtc_sig_info_by_name("rsa") == NULL);
    ASSERT_EQ(mtc_sig_info_get(MTC_SIG_ED25519)->pk_len, 32);
    ASSERT_EQ(mtc_sig_info_get(MTC_SIG_ECDSA_P256)->pk_len, 65);
}

/* RFC 8032 section 7.1, TEST 1 and TEST 2. */
TEST(ed25519_rfc8032)
{
    static const struct {
        const char *sk, *pk, *msg, *sig;
    } v[] = {
        {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
         "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
        {"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
         "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t seed[32], pk[32], want[64], msg[1], sig[64], got[64];
        size_t pk_len, sig_len, mlen = strlen(v[i].msg) / 2;
        unhex(v[i].sk, seed, 32);
        unhex(v[i].pk, want, 32);
        unhex(v[i].msg, msg, mlen);
        mtc_sig_key *k;
        ASSERT_OK(mtc_sig_key_from_seed(MTC_SIG_ED25519, seed, &k));
        ASSERT_EQ(mtc_sig_key_alg(k), MTC_SIG_ED25519);
        ASSERT_OK(mtc_sig_key_public(k, pk, &pk_len));
        ASSERT_EQ(pk_len, 32);
        ASSERT_MEM_EQ(pk, want, 32);
        ASSERT_OK(mtc_sig_sign(k, msg, mlen, got, &sig_len));
        mtc_sig_key_free(k);
        ASSERT_EQ(sig_len, 64);
        unhex(v[i].sig, sig, 64);
        ASSERT_MEM_EQ(got, sig, 64);
        ASSERT_OK(mtc_sig_verify(MTC_SIG_ED25519, pk, 32, msg, mlen, sig, 64));
    }
}

/* RFC 6979 appendix A.2.5: P-256 with SHA-256, messages "sample", "test". */
TEST(ecdsa_rfc6979_a25)
{
    uint8_t d[32], pk[65], want_pk[65];
    unhex("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721", d, 32);
    want_pk[0] = 0x04;
    unhex("60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6",
          want_pk + 1, 32);
    unhex("7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299",
          want_pk + 33, 32);
    ASSERT_OK(mtc_ecdsa_p256_public(d, pk));
    ASSERT_MEM_EQ(pk, want_pk, 65);
    static const struct {
        const char *msg, *k, *r, *s;
    } v[] = {
        {"sample", "A6E3C57DD01ABE90086538398355DD4C3B17AA873382B0F24D6129493D8AAD60",
         "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716",
         "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"},
        {"test", "D16B6AE827F17175E040871A1C7EC3500192C4C92677336EC2537ACAEE0008E0",
         "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367",
         "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"},
    };
    for (size_t i = 0; i < 2; i++) {
        mtc_hash h;
        uint8_t k[32], r[32], s[32], wk[32], wr[32], ws[32];
        mtc_sha256(v[i].msg, strlen(v[i].msg), &h);
        ASSERT_OK(mtc_ecdsa_p256_sign_digest(d, h.b, r, s, k));
        unhex(v[i].k, wk, 32);
        unhex(v[i].r, wr, 32);
        unhex(v[i].s, ws, 32);
        ASSERT_MEM_EQ(k, wk, 32);
        ASSERT_MEM_EQ(r, wr, 32);
        ASSERT_MEM_EQ(s, ws, 32);
        /* OpenSSL verifies the vector signature under the vector key. */
        ECDSA_SIG *es = ECDSA_SIG_new();
        ASSERT_TRUE(es != NULL);
        ECDSA_SIG_set0(es, BN_bin2bn(r, 32, NULL), BN_bin2bn(s, 32, NULL));
        uint8_t der[80], *p = der;
        int dl = i2d_ECDSA_SIG(es, &p);
        ECDSA_SIG_free(es);
        ASSERT_TRUE(dl > 0);
        ASSERT_OK(mtc_sig_verify(MTC_SIG_ECDSA_P256, pk, 65,
                                 (const uint8_t *)v[i].msg, strlen(v[i].msg),
                                 der, (size_t)dl));
    }
    uint8_t zero[32] = {0};
    ASSERT_EQ(mtc_ecdsa_p256_public(zero, pk), MTC_ERR_KEY);
}

static void seed_of(uint8_t seed[32], unsigned v)
{
    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)(v * 131 + (unsigned)i * 7);
}

TEST(roundtrip_deterministic_mutations)
{
    size_t n;
    const mtc_sig_info *all = mtc_sig_all(&n);
    for (size_t a = 0; a < n; a++) {
        uint8_t seed[32];
        seed_of(seed, (unsigned)a + 1);
        mtc_sig_key *k1, *k2;
        ASSERT_OK(mtc_sig_key_from_seed(all[a].alg, seed, &k1));
        ASSERT_OK(mtc_sig_key_from_seed(all[a].alg, seed, &k2));
        static uint8_t pk[MTC_SIG_PK_MAX], pk2[MTC_SIG_PK_MAX];
        static uint8_t sig[MTC_SIG_MAX + 1], sig2[MTC_SIG_MAX];
        size_t pk_len, pk2_len, sig_len, sig2_len;
        ASSERT_OK(mtc_sig_key_public(k1, pk, &pk_len));
        ASSERT_OK(mtc_sig_key_public(k2, pk2, &pk2_len));
        ASSERT_EQ(pk_len, all[a].pk_len);
        ASSERT_EQ(pk_len, pk2_len);
        ASSERT_MEM_EQ(pk, pk2, pk_len);
        uint8_t msg[100];
        for (size_t i = 0; i < sizeof msg; i++)
            msg[i] = (uint8_t)(i * 3);
        ASSERT_OK(mtc_sig_sign(k1, msg, sizeof msg, sig, &sig_len));
        ASSERT_OK(mtc_sig_sign(k2, msg, sizeof msg, sig2, &sig2_len));
        ASSERT_TRUE(sig_len <= all[a].sig_max);
        ASSERT_EQ(sig_len, sig2_len);
        ASSERT_MEM_EQ(sig, sig2, sig_len);
        ASSERT_OK(mtc_sig_verify(all[a].alg, pk, pk_len, msg, sizeof msg, sig,
                                 sig_len));
        /* Every bit of signature, message and key matters. For the large
         * ML-DSA encodings a stride keeps this to ~2000 verifications per
         * object (odd strides still visit every bit position mod 8). */
        size_t sstep = sig_len * 8 / 2000 | 1, pstep = pk_len * 8 / 2000 | 1;
        if (test_scale() < 1) {
            sstep = sstep * 5 | 1;
            pstep = pstep * 5 | 1;
        }
        for (size_t i = 0; i < sig_len * 8; i += sstep) {
            sig[i / 8] ^= (uint8_t)(1 << (i % 8));
            ASSERT_TRUE(mtc_sig_verify(all[a].alg, pk, pk_len, msg, sizeof msg,
                                       sig, sig_len) != MTC_OK);
            sig[i / 8] ^= (uint8_t)(1 << (i % 8));
        }
        for (size_t i = 0; i < sizeof msg * 8; i += 3) {
            msg[i / 8] ^= (uint8_t)(1 << (i % 8));
            ASSERT_EQ(mtc_sig_verify(all[a].alg, pk, pk_len, msg, sizeof msg,
                                     sig, sig_len),
                      MTC_ERR_SIGNATURE);
            msg[i / 8] ^= (uint8_t)(1 << (i % 8));
        }
        for (size_t i = 0; i < pk_len * 8; i += pstep) {
            pk[i / 8] ^= (uint8_t)(1 << (i % 8));
            ASSERT_TRUE(mtc_sig_verify(all[a].alg, pk, pk_len, msg, sizeof msg,
                                       sig, sig_len) != MTC_OK);
            pk[i / 8] ^= (uint8_t)(1 << (i % 8));
        }
        /* Truncated and extended signatures. */
        ASSERT_TRUE(mtc_sig_verify(all[a].alg, pk, pk_len, msg, sizeof msg, sig,
                                   sig_len - 1) != MTC_OK);
        sig[sig_len] = 0;
        ASSERT_TRUE(mtc_sig_verify(all[a].alg, pk, pk_len, msg, sizeof msg, sig,
                                   sig_len + 1) != MTC_OK);
        ASSERT_EQ(mtc_sig_verify(all[a].alg, pk, pk_len - 1, msg, sizeof msg,
                                 sig, sig_len),
                  MTC_ERR_KEY);
        /* A different seed gives a different key. */
        mtc_sig_key *k3;
        seed[0] ^= 1;
        ASSERT_OK(mtc_sig_key_from_seed(all[a].alg, seed, &k3));
        ASSERT_OK(mtc_sig_key_public(k3, pk2, &pk2_len));
        ASSERT_TRUE(memcmp(pk, pk2, pk_len) != 0);
        mtc_sig_key_free(k1);
        mtc_sig_key_free(k2);
        mtc_sig_key_free(k3);
    }
    mtc_sig_key_free(NULL);
}

/* Our SPKI encoding is what OpenSSL produces for the same key, and
 * OpenSSL verifies our signatures with a key parsed from our SPKI. */
TEST(spki_matches_openssl)
{
    size_t n;
    const mtc_sig_info *all = mtc_sig_all(&n);
    for (size_t a = 0; a < n; a++) {
        uint8_t seed[32];
        seed_of(seed, 40 + (unsigned)a);
        mtc_sig_key *k;
        ASSERT_OK(mtc_sig_key_from_seed(all[a].alg, seed, &k));
        static uint8_t pk[MTC_SIG_PK_MAX], spki[MTC_SIG_PK_MAX + 64];
        static uint8_t pk2[MTC_SIG_PK_MAX];
        size_t pk_len, spki_len, pk2_len;
        ASSERT_OK(mtc_sig_key_public(k, pk, &pk_len));
        ASSERT_OK(mtc_sig_spki_der(all[a].alg, pk, pk_len, spki, sizeof spki,
                                   &spki_len));
        ASSERT_EQ(mtc_sig_spki_der(all[a].alg, pk, pk_len, spki, spki_len - 1,
                                   &pk2_len),
                  MTC_ERR_LIMIT);
        mtc_sig_alg alg;
        ASSERT_OK(mtc_sig_spki_parse(spki, spki_len, &alg, pk2, sizeof pk2,
                                     &pk2_len));
        ASSERT_EQ(alg, all[a].alg);
        ASSERT_EQ(pk2_len, pk_len);
        ASSERT_MEM_EQ(pk2, pk, pk_len);
        if (all[a].alg == MTC_SIG_ED25519 || all[a].alg == MTC_SIG_ECDSA_P256) {
            const unsigned char *p = spki;
            EVP_PKEY *ek = d2i_PUBKEY(NULL, &p, (long)spki_len);
            ASSERT_TRUE(ek != NULL);
            ASSERT_TRUE(p == spki + spki_len);
            unsigned char *re = NULL;
            int rl = i2d_PUBKEY(ek, &re);
            ASSERT_EQ(rl, spki_len);
            ASSERT_MEM_EQ(re, spki, spki_len);
            OPENSSL_free(re);
            /* OpenSSL verifies our signature. */
            uint8_t msg[] = "mtc", sig[MTC_SIG_MAX];
            size_t sl;
            ASSERT_OK(mtc_sig_sign(k, msg, 3, sig, &sl));
            EVP_MD_CTX *c = EVP_MD_CTX_new();
            ASSERT_EQ(EVP_DigestVerifyInit(c, NULL,
                                           all[a].alg == MTC_SIG_ED25519 ? NULL
                                                                         : EVP_sha256(),
                                           NULL, ek),
                      1);
            ASSERT_EQ(EVP_DigestVerify(c, sig, sl, msg, 3), 1);
            EVP_MD_CTX_free(c);
            EVP_PKEY_free(ek);
        }
        /* Truncations and single-byte changes never parse to the same key. */
        for (size_t l = 0; l < spki_len; l++)
            ASSERT_TRUE(mtc_sig_spki_parse(spki, l, &alg, pk2, sizeof pk2,
                                           &pk2_len) != MTC_OK);
        for (size_t i = 0; i < spki_len; i++) {
            spki[i] ^= 0x41;
            int rc = mtc_sig_spki_parse(spki, spki_len, &alg, pk2, sizeof pk2,
                                        &pk2_len);
            ASSERT_TRUE(rc != MTC_OK || memcmp(pk2, pk, pk_len) != 0);
            spki[i] ^= 0x41;
        }
        mtc_sig_key_free(k);
    }
    /* An RSA SPKI is well-formed but not a table algorithm. */
    static const uint8_t rsa_alg[] = {0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48,
                                      0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05,
                                      0x00};
    uint8_t spki[64] = {0x30, 0x15};
    memcpy(spki + 2, rsa_alg, sizeof rsa_alg);
    spki[17] = 0x03; spki[18] = 0x04; spki[19] = 0; spki[20] = 1; spki[21] = 2;
    spki[22] = 3;
    mtc_sig_alg alg;
    uint8_t pk[8];
    size_t pl;
    ASSERT_EQ(mtc_sig_spki_parse(spki, 23, &alg, pk, sizeof pk, &pl),
              MTC_ERR_UNSUPPORTED);
}

TEST(p256_bad_keys_and_encodings)
{
    uint8_t seed[32];
    seed_of(seed, 9);
    mtc_sig_key *k;
    ASSERT_OK(mtc_sig_key_from_seed(MTC_SIG_ECDSA_P256, seed, &k));
    uint8_t pk[65], sig[80], msg[] = "hello";
    size_t pl, sl;
    ASSERT_OK(mtc_sig_key_public(k, pk, &pl));
    ASSERT_OK(mtc_sig_sign(k, msg, 5, sig, &sl));
    mtc_sig_key_free(k);
    /* A point off the curve. */
    uint8_t bad[65];
    memcpy(bad, pk, 65);
    bad[64] ^= 1;
    ASSERT_EQ(mtc_sig_verify(MTC_SIG_ECDSA_P256, bad, 65, msg, 5, sig, sl),
              MTC_ERR_KEY);
    bad[0] = 0x02;
    ASSERT_EQ(mtc_sig_verify(MTC_SIG_ECDSA_P256, bad, 65, msg, 5, sig, sl),
              MTC_ERR_KEY);
    /* Non-minimal INTEGER: prepend a zero byte to r. */
    uint8_t nm[82];
    size_t rlen = sig[3];
    nm[0] = 0x30;
    nm[1] = (uint8_t)(sig[1] + 1);
    nm[2] = 0x02;
    nm[3] = (uint8_t)(rlen + 1);
    nm[4] = 0;
    memcpy(nm + 5, sig + 4, sl - 4);
    if (!(sig[4] & 0x80)) /* when r needs no pad, the extra zero is invalid */
        ASSERT_EQ(mtc_sig_verify(MTC_SIG_ECDSA_P256, pk, 65, msg, 5, nm, sl + 1),
                  MTC_ERR_SIG_ENCODING);
    /* Wrong outer length. */
    sig[1]++;
    ASSERT_EQ(mtc_sig_verify(MTC_SIG_ECDSA_P256, pk, 65, msg, 5, sig, sl),
              MTC_ERR_SIG_ENCODING);
    ASSERT_EQ(mtc_sig_verify(MTC_SIG_NONE, pk, 65, msg, 5, sig, sl),
              MTC_ERR_UNSUPPORTED);
    ASSERT_EQ(mtc_sig_key_from_seed(MTC_SIG_NONE, seed, &k), MTC_ERR_UNSUPPORTED);
    ASSERT_TRUE(k == NULL);
}

static const test_case tests[] = {
    {"table_lookups", table_lookups},
    {"ed25519_rfc8032", ed25519_rfc8032},
    {"ecdsa_rfc6979_a25", ecdsa_rfc6979_a25},
    {"roundtrip_deterministic_mutations", roundtrip_deterministic_mutations},
    {"spki_matches_openssl", spki_matches_openssl},
    {"p256_bad_keys_and_encodings", p256_bad_keys_and_encodings},
};

TEST_MAIN(tests)
