/*
 * test_web_verify.c - a client's verification time from the measured
 * cost table (sim/web_verify.h): a list prices exactly the sum of its
 * operations, scaled by the platform's slowdown; bad lists are refused.
 */
#include <math.h>

#include "sim/web_verify.h"
#include "test.h"

TEST(list_is_the_sum_of_its_operations)
{
    const double *us = web_verify_cost_us;
    for (int i = 0; i < WEB_VOP_COUNT; i++) {
        ASSERT_TRUE(us[i] > 0 && isfinite(us[i]));
        ASSERT_TRUE(web_verify_op_names[i] != NULL);
    }
    /* a classical chain: leaf, intermediate, two SCTs, one path, and an
     * RSA-2048 CertificateVerify */
    web_vcount l[3] = {{WEB_VOP_ECDSA_P256, 4}, {WEB_VOP_X509_PATH, 1},
                       {WEB_VOP_RSA2048, 1}};
    double ms = -1;
    ASSERT_EQ(web_verify_ms(l, 3, 1.0, &ms), 0);
    double want = (4 * us[WEB_VOP_ECDSA_P256] + us[WEB_VOP_X509_PATH] +
                   us[WEB_VOP_RSA2048]) / 1000.0;
    ASSERT_NEAR(ms, want, 1e-12);
    ASSERT_EQ(web_verify_ms(l, 3, 2.5, &ms), 0);
    ASSERT_NEAR(ms, 2.5 * want, 1e-12);
    /* counts add: (op, 2) is (op, 1) twice */
    web_vcount two[1] = {{WEB_VOP_MLDSA44, 2}};
    web_vcount ones[2] = {{WEB_VOP_MLDSA44, 1}, {WEB_VOP_MLDSA44, 1}};
    double a, b;
    ASSERT_EQ(web_verify_ms(two, 1, 1.0, &a), 0);
    ASSERT_EQ(web_verify_ms(ones, 2, 1.0, &b), 0);
    ASSERT_TRUE(a == b);
    /* nothing to verify costs nothing */
    ASSERT_EQ(web_verify_ms(NULL, 0, 1.0, &ms), 0);
    ASSERT_TRUE(ms == 0.0);
}

TEST(bad_lists_are_refused)
{
    web_vcount ok[1] = {{WEB_VOP_ED25519, 1}};
    web_vcount bad[1] = {{WEB_VOP_COUNT, 1}};
    double ms = 7.0;
    ASSERT_EQ(web_verify_ms(bad, 1, 1.0, &ms), -1);
    ASSERT_EQ(web_verify_ms(ok, 1, 0.0, &ms), -1);
    ASSERT_EQ(web_verify_ms(ok, 1, NAN, &ms), -1);
    ASSERT_EQ(web_verify_ms(ok, 1, INFINITY, &ms), -1);
    ASSERT_EQ(web_verify_ms(NULL, 1, 1.0, &ms), -1);
    ASSERT_EQ(web_verify_ms(ok, 1, 1.0, NULL), -1);
    ASSERT_TRUE(ms == 7.0);
}

TEST(signature_algorithms_map_to_their_verification)
{
    ASSERT_EQ(web_verify_op_of_sig(MTC_SIG_ED25519), WEB_VOP_ED25519);
    ASSERT_EQ(web_verify_op_of_sig(MTC_SIG_ECDSA_P256), WEB_VOP_ECDSA_P256);
    ASSERT_EQ(web_verify_op_of_sig(MTC_SIG_MLDSA44), WEB_VOP_MLDSA44);
    ASSERT_EQ(web_verify_op_of_sig(MTC_SIG_MLDSA65), WEB_VOP_MLDSA65);
    ASSERT_EQ(web_verify_op_of_sig(MTC_SIG_MLDSA87), WEB_VOP_MLDSA87);
    ASSERT_EQ(web_verify_op_of_sig(MTC_SIG_NONE), WEB_VOP_COUNT);
}

/* A chain profile's own list of verifications (mtc/chain.h) prices as the
 * sum of its signatures: every profile maps, the cross-sign is skipped
 * for a store that holds the newer root, the CertificateVerify on
 * request. */
TEST(chain_profiles_price_from_their_verifications)
{
    size_t np = 0;
    const mtc_chain_profile *ps = mtc_chain_profiles(&np);
    ASSERT_TRUE(np > 0);
    for (size_t i = 0; i < np; i++) {
        mtc_chain_verif v[MTC_CHAIN_VERIF_MAX];
        size_t n = mtc_chain_verifications(&ps[i], NULL, v);
        web_vcount all[MTC_CHAIN_VERIF_MAX], fresh[MTC_CHAIN_VERIF_MAX];
        int na = web_verify_from_chain(v, n, 0, 1, all);
        int nf = web_verify_from_chain(v, n, 1, 0, fresh);
        ASSERT_EQ(na, (int)n);
        double want = 0, want_fresh = 0;
        for (size_t j = 0; j < n; j++) {
            double us = web_verify_cost_us[web_verify_op_of_chain_alg(v[j].alg)];
            want += us;
            if (!(v[j].flags & MTC_CHAIN_V_IF_NO_NEW_ROOT) &&
                v[j].role != MTC_CHAIN_V_HANDSHAKE)
                want_fresh += us;
        }
        double ms;
        ASSERT_EQ(web_verify_ms(all, (size_t)na, 1.0, &ms), 0);
        ASSERT_NEAR(ms, want / 1000.0, 1e-12);
        ASSERT_EQ(web_verify_ms(fresh, (size_t)nf, 1.0, &ms), 0);
        ASSERT_NEAR(ms, want_fresh / 1000.0, 1e-12);
        ASSERT_TRUE(nf < na); /* at least the CertificateVerify left out */
    }
    /* Let's Encrypt's ECDSA chain: leaf (by E-series, P-384),
     * intermediate (by ISRG Root X2, P-384), SCTs, and an RSA-4096
     * cross-sign only for a store without Root X2 */
    const mtc_chain_profile *le = mtc_chain_profile_by_name("le-ecdsa-cross");
    ASSERT_TRUE(le != NULL);
    mtc_chain_verif v[MTC_CHAIN_VERIF_MAX];
    size_t n = mtc_chain_verifications(le, NULL, v);
    web_vcount a[MTC_CHAIN_VERIF_MAX], b[MTC_CHAIN_VERIF_MAX];
    ASSERT_TRUE(web_verify_from_chain(v, n, 0, 0, a) >
                web_verify_from_chain(v, n, 1, 0, b));
    /* an algorithm without a cost is refused */
    mtc_chain_verif bad = {MTC_CHAIN_V_LEAF, MTC_CHAIN_ALG_NONE, 0};
    ASSERT_EQ(web_verify_from_chain(&bad, 1, 0, 1, a), -1);
}

static const test_case tests[] = {
    {"list_is_the_sum_of_its_operations", list_is_the_sum_of_its_operations},
    {"bad_lists_are_refused", bad_lists_are_refused},
    {"signature_algorithms_map_to_their_verification", signature_algorithms_map_to_their_verification},
    {"chain_profiles_price_from_their_verifications", chain_profiles_price_from_their_verifications},
};
TEST_MAIN(tests)
