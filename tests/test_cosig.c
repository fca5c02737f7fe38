/*
 * test_cosig.c - the CosignedMessage layout byte by byte, signing and
 * verifying with every table algorithm, and the message's rules.
 */
#include "mtc/cosig.h"
#include "mtc/error.h"
#include "test.h"

TEST(message_layout)
{
    mtc_taid cos, log;
    mtc_taid_from_text("32473.1", 7, &cos);
    mtc_taid_from_text("32473.1.0.8", 11, &log);
    mtc_hash h;
    for (int i = 0; i < 32; i++)
        h.b[i] = (uint8_t)i;
    uint8_t m[MTC_COSIGNED_MESSAGE_MAX];
    size_t n;
    ASSERT_OK(mtc_cosigned_message(&cos, &log, 0, 8, 12, &h, m, sizeof m, &n));
    const char *name = "oid/1.3.6.1.4.1.32473.1", *origin = "oid/1.3.6.1.4.1.32473.1.0.8";
    size_t nl = strlen(name), ol = strlen(origin);
    ASSERT_EQ(n, 12 + 1 + nl + 8 + 1 + ol + 16 + 32);
    ASSERT_MEM_EQ(m, "subtree/v1\n\0", 12);
    ASSERT_EQ(m[12], nl);
    ASSERT_MEM_EQ(m + 13, name, nl);
    static const uint8_t zero8[8] = {0};
    ASSERT_MEM_EQ(m + 13 + nl, zero8, 8);
    ASSERT_EQ(m[21 + nl], ol);
    ASSERT_MEM_EQ(m + 22 + nl, origin, ol);
    const uint8_t *q = m + 22 + nl + ol;
    static const uint8_t se[16] = {0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 12};
    ASSERT_MEM_EQ(q, se, 16);
    ASSERT_MEM_EQ(q + 16, h.b, 32);
    /* rules */
    ASSERT_EQ(mtc_cosigned_message(&cos, &log, 0, 8, 20, &h, m, sizeof m, &n),
              MTC_ERR_SUBTREE);
    ASSERT_EQ(mtc_cosigned_message(&cos, &log, 5, 8, 12, &h, m, sizeof m, &n),
              MTC_ERR_ARG);
    ASSERT_OK(mtc_cosigned_message(&cos, &log, 5, 0, 13, &h, m, sizeof m, &n));
    ASSERT_EQ(m[13 + nl + 7], 5);
    ASSERT_EQ(mtc_cosigned_message(&cos, &log, 0, 8, 12, &h, m, 50, &n),
              MTC_ERR_LIMIT);
}

TEST(sign_verify_all_algorithms)
{
    size_t na;
    const mtc_sig_info *all = mtc_sig_all(&na);
    mtc_taid log, other;
    mtc_taid_from_text("32473.1.0.1", 11, &log);
    mtc_taid_from_text("32473.1.0.2", 11, &other);
    mtc_hash h;
    mtc_sha256("x", 1, &h);
    for (size_t a = 0; a < na; a++) {
        uint8_t seed[32] = {7, (uint8_t)a};
        mtc_sig_key *k;
        ASSERT_OK(mtc_sig_key_from_seed(all[a].alg, seed, &k));
        mtc_cosigner c = {.key = k};
        mtc_taid_from_text("32473.9", 7, &c.id);
        static uint8_t pk[MTC_SIG_PK_MAX], sig[MTC_SIG_MAX];
        size_t pl, sl;
        mtc_sig_key_public(k, pk, &pl);
        ASSERT_OK(mtc_cosign_subtree(&c, &log, 4, 8, &h, sig, &sl));
        ASSERT_OK(mtc_cosig_verify(all[a].alg, pk, pl, &c.id, &log, 0, 4, 8, &h,
                                   sig, sl));
        /* any other field changes the message */
        ASSERT_EQ(mtc_cosig_verify(all[a].alg, pk, pl, &c.id, &other, 0, 4, 8, &h,
                                   sig, sl), MTC_ERR_SIGNATURE);
        ASSERT_EQ(mtc_cosig_verify(all[a].alg, pk, pl, &c.id, &log, 0, 0, 8, &h,
                                   sig, sl), MTC_ERR_SIGNATURE);
        ASSERT_EQ(mtc_cosig_verify(all[a].alg, pk, pl, &log, &log, 0, 4, 8, &h,
                                   sig, sl), MTC_ERR_SIGNATURE);
        mtc_hash h2 = h;
        h2.b[31] ^= 1;
        ASSERT_EQ(mtc_cosig_verify(all[a].alg, pk, pl, &c.id, &log, 0, 4, 8, &h2,
                                   sig, sl), MTC_ERR_SIGNATURE);
        /* checkpoints carry their timestamp */
        ASSERT_OK(mtc_cosign_checkpoint(&c, &log, 1767225600, 13, &h, sig, &sl));
        ASSERT_OK(mtc_cosig_verify(all[a].alg, pk, pl, &c.id, &log, 1767225600, 0,
                                   13, &h, sig, sl));
        ASSERT_EQ(mtc_cosig_verify(all[a].alg, pk, pl, &c.id, &log, 0, 0, 13, &h,
                                   sig, sl), MTC_ERR_SIGNATURE);
        ASSERT_EQ(mtc_cosign_checkpoint(&c, &log, 0, 13, &h, sig, &sl), MTC_ERR_ARG);
        mtc_sig_key_free(k);
    }
}

static const test_case tests[] = {
    {"message_layout", message_layout},
    {"sign_verify_all_algorithms", sign_verify_all_algorithms},
};

TEST_MAIN(tests)
