/*
 * test_baseline.c - the classical chain: OpenSSL parses both certificates,
 * verifies the leaf's signature with the intermediate's key, finds two
 * SCTs in the leaf; deterministic bytes; every table algorithm builds;
 * the leaf key is independent of the chain (like-for-like baselines).
 */
#include <openssl/ct.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "mtc/baseline.h"
#include "mtc/error.h"
#include "test.h"

TEST(chain_checks_out_in_openssl)
{
    size_t na;
    const mtc_sig_info *all = mtc_sig_all(&na);
    for (size_t a = 0; a < na; a++) {
        static mtc_baseline b, b2;
        ASSERT_OK(mtc_baseline_build(all[a].alg, "www.example.com", 1767225600,
                                     7 * 86400, &b));
        ASSERT_OK(mtc_baseline_build(all[a].alg, "www.example.com", 1767225600,
                                     7 * 86400, &b2));
        ASSERT_EQ(b.leaf_len, b2.leaf_len);
        ASSERT_MEM_EQ(b.leaf, b2.leaf, b.leaf_len);
        ASSERT_TRUE(b.leaf_sig_len <= all[a].sig_max);
        ASSERT_TRUE(b.handshake_sig_len > 0);
        if (all[a].alg != MTC_SIG_ED25519 && all[a].alg != MTC_SIG_ECDSA_P256)
            continue; /* OpenSSL 3.0 knows no ML-DSA */
        const uint8_t *p = b.leaf;
        X509 *leaf = d2i_X509(NULL, &p, (long)b.leaf_len);
        ASSERT_TRUE(leaf != NULL);
        p = b.intermediate;
        X509 *inter = d2i_X509(NULL, &p, (long)b.intermediate_len);
        ASSERT_TRUE(inter != NULL);
        ASSERT_EQ(X509_verify(leaf, X509_get0_pubkey(inter)), 1);
        ASSERT_EQ(X509_check_issued(inter, leaf), X509_V_OK);
        if (all[a].alg == MTC_SIG_ECDSA_P256) {
            /* RFC 6962 code points exist only for ECDSA (and RSA) */
            STACK_OF(SCT) *scts = X509_get_ext_d2i(leaf, NID_ct_precert_scts, NULL, NULL);
            ASSERT_TRUE(scts != NULL);
            ASSERT_EQ(sk_SCT_num(scts), 2);
            for (int i = 0; i < 2; i++)
                ASSERT_EQ(SCT_get_signature_nid(sk_SCT_value(scts, i)),
                          NID_ecdsa_with_SHA256);
            SCT_LIST_free(scts);
        }
        ASSERT_EQ(X509_check_host(leaf, "www.example.com", 0, 0, NULL), 1);
        X509_free(leaf);
        X509_free(inter);
    }
    static mtc_baseline b;
    ASSERT_EQ(mtc_baseline_build(MTC_SIG_NONE, "x", 0, 1, &b), MTC_ERR_UNSUPPORTED);
}

/* The leaf's key is the caller's choice and changes nothing else: the
 * intermediate is byte-identical, the leaf carries that key and is
 * signed by the chain's, the handshake signature is by the leaf key, and
 * (alg, alg) is mtc_baseline_build(alg). */
TEST(leaf_key_separate_from_chain)
{
    static mtc_baseline same, ed, pq, ref;
    ASSERT_OK(mtc_baseline_build(MTC_SIG_ECDSA_P256, "s1.example.com", 1767225600,
                                 7 * 86400, &ref));
    ASSERT_OK(mtc_baseline_build_leaf(MTC_SIG_ECDSA_P256, MTC_SIG_ECDSA_P256,
                                      "s1.example.com", 1767225600, 7 * 86400, &same));
    ASSERT_EQ(same.leaf_len, ref.leaf_len);
    ASSERT_MEM_EQ(same.leaf, ref.leaf, ref.leaf_len);
    ASSERT_EQ(same.leaf_alg, MTC_SIG_ECDSA_P256);
    ASSERT_OK(mtc_baseline_build_leaf(MTC_SIG_ECDSA_P256, MTC_SIG_ED25519,
                                      "s1.example.com", 1767225600, 7 * 86400, &ed));
    ASSERT_EQ(ed.intermediate_len, ref.intermediate_len);
    ASSERT_MEM_EQ(ed.intermediate, ref.intermediate, ref.intermediate_len);
    ASSERT_EQ(ed.handshake_sig_len, 64); /* Ed25519, RFC 8032 */
    const uint8_t *p = ed.leaf;
    X509 *leaf = d2i_X509(NULL, &p, (long)ed.leaf_len);
    ASSERT_TRUE(leaf != NULL);
    p = ed.intermediate;
    X509 *inter = d2i_X509(NULL, &p, (long)ed.intermediate_len);
    ASSERT_TRUE(inter != NULL);
    ASSERT_EQ(X509_verify(leaf, X509_get0_pubkey(inter)), 1);
    ASSERT_EQ(EVP_PKEY_id(X509_get0_pubkey(leaf)), EVP_PKEY_ED25519);
    X509_free(leaf);
    X509_free(inter);
    /* An ML-DSA-44 chain around an ML-DSA-44 and an Ed25519 leaf key: the
     * leaves differ by the SPKIs alone (1,312-byte key against 32, plus
     * the algorithm identifiers and DER lengths), the handshake signature
     * by 2,420 - 64 bytes (FIPS 204, RFC 8032). */
    static mtc_baseline pq_ed;
    ASSERT_OK(mtc_baseline_build_leaf(MTC_SIG_MLDSA44, MTC_SIG_MLDSA44, "s1.example.com",
                                      1767225600, 7 * 86400, &pq));
    ASSERT_OK(mtc_baseline_build_leaf(MTC_SIG_MLDSA44, MTC_SIG_ED25519, "s1.example.com",
                                      1767225600, 7 * 86400, &pq_ed));
    ASSERT_EQ(pq.intermediate_len, pq_ed.intermediate_len);
    ASSERT_EQ(pq.sct_list_len, pq_ed.sct_list_len);
    ASSERT_EQ(pq.handshake_sig_len - pq_ed.handshake_sig_len, 2420 - 64);
    uint8_t pk[MTC_SIG_PK_MAX], spki_pq[MTC_SIG_PK_MAX + 64], spki_ed[128];
    size_t spl_pq, spl_ed;
    memset(pk, 0, sizeof pk);
    ASSERT_OK(mtc_sig_spki_der(MTC_SIG_MLDSA44, pk, 1312, spki_pq, sizeof spki_pq, &spl_pq));
    ASSERT_OK(mtc_sig_spki_der(MTC_SIG_ED25519, pk, 32, spki_ed, sizeof spki_ed, &spl_ed));
    /* the TBS and certificate lengths grow from 2 to 3 bytes (> 255) in
     * neither case: both are above 2^8 and below 2^16 */
    ASSERT_EQ(pq.leaf_len - pq_ed.leaf_len, spl_pq - spl_ed);
    ASSERT_EQ(mtc_baseline_build_leaf(MTC_SIG_MLDSA44, MTC_SIG_NONE, "x", 0, 1, &pq),
              MTC_ERR_UNSUPPORTED);
}

static const test_case tests[] = {
    {"chain_checks_out_in_openssl", chain_checks_out_in_openssl},
    {"leaf_key_separate_from_chain", leaf_key_separate_from_chain},
};

TEST_MAIN(tests)
