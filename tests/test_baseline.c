/*
 * test_baseline.c - the classical chain: OpenSSL parses both certificates,
 * verifies the leaf's signature with the intermediate's key, finds two
 * SCTs in the leaf; deterministic bytes; every table algorithm builds.
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

static const test_case tests[] = {
    {"chain_checks_out_in_openssl", chain_checks_out_in_openssl},
};

TEST_MAIN(tests)
