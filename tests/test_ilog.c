/*
 * test_ilog.c - the issuance log: batches, standalone and landmark proofs
 * checked with the Merkle layer and the cosignature verifier, and errors.
 */
#include "lib/mtc_fixture.h"
#include "mtc/error.h"
#include "test.h"

TEST(proofs_check_out)
{
    fx f;
    ASSERT_EQ(fx_init(&f, MTC_SIG_ECDSA_P256, 2, 37, 6, 2), 0);
    ASSERT_EQ(mtc_ilog_size(f.log), 37);
    ASSERT_EQ(mtc_ilog_checkpoint_size(f.log), 37);
    ASSERT_EQ(mtc_ilog_number(f.log), 1);
    for (uint64_t i = 0; i < 37; i++) {
        mtc_proof_storage st;
        mtc_proof p;
        mtc_hash leaf, sub;
        ASSERT_OK(mtc_ilog_standalone_proof(f.log, i, (mtc_slice){NULL, 0}, &st, &p));
        ASSERT_OK(mtc_tree_leaf_hash(mtc_ilog_tree(f.log), i, &leaf));
        ASSERT_OK(mtc_tree_subtree_hash(mtc_ilog_tree(f.log), p.start, p.end, &sub));
        ASSERT_OK(mtc_inclusion_verify(i, p.start, p.end, &leaf, p.inclusion,
                                       p.n_inclusion, &sub));
        /* the subtree lies within the entry's batch (or reaches left of it) */
        ASSERT_TRUE(p.start <= i && i < p.end);
        ASSERT_TRUE(p.end <= (i / 6 + 1) * 6 || p.end == 37);
        ASSERT_EQ(p.n_sigs, 3);
        for (size_t s = 0; s < p.n_sigs; s++) {
            if (s)
                ASSERT_TRUE(p.sigs[s - 1].cosigner_id.len < p.sigs[s].cosigner_id.len ||
                            (p.sigs[s - 1].cosigner_id.len == p.sigs[s].cosigner_id.len &&
                             memcmp(p.sigs[s - 1].cosigner_id.p, p.sigs[s].cosigner_id.p,
                                    p.sigs[s].cosigner_id.len) < 0));
            mtc_taid id;
            ASSERT_OK(mtc_taid_from_binary(p.sigs[s].cosigner_id.p,
                                           p.sigs[s].cosigner_id.len, &id));
            size_t c = 0;
            while (c < f.n_cos && !mtc_taid_equal(&f.cos[c].id, &id))
                c++;
            ASSERT_TRUE(c < f.n_cos);
            uint8_t pk[65];
            size_t pl;
            mtc_sig_key_public(f.keys[c], pk, &pl);
            ASSERT_OK(mtc_cosig_verify(MTC_SIG_ECDSA_P256, pk, pl, &id,
                                       mtc_ilog_log_id(f.log), 0, p.start, p.end, &sub,
                                       p.sigs[s].signature.p, p.sigs[s].signature.len));
        }
        uint64_t L;
        int rc = mtc_ilog_landmark_proof(f.log, f.lm, i, (mtc_slice){NULL, 0}, &st, &p, &L);
        if (i >= 36) {
            ASSERT_EQ(rc, MTC_ERR_RANGE); /* after the last landmark (36) */
            continue;
        }
        ASSERT_OK(rc);
        ASSERT_EQ(p.n_sigs, 0);
        ASSERT_OK(mtc_tree_subtree_hash(mtc_ilog_tree(f.log), p.start, p.end, &sub));
        ASSERT_OK(mtc_inclusion_verify(i, p.start, p.end, &leaf, p.inclusion,
                                       p.n_inclusion, &sub));
    }
    fx_free(&f);
}

TEST(errors)
{
    mtc_taid ca;
    mtc_taid_from_text("32473.1", 7, &ca);
    ASSERT_TRUE(mtc_ilog_new(&ca, 0, NULL) == NULL);
    ASSERT_TRUE(mtc_ilog_new(&ca, 65536, NULL) == NULL);
    mtc_ilog *l = mtc_ilog_new(&ca, 3, NULL);
    ASSERT_TRUE(l != NULL);
    mtc_hash h;
    mtc_sha256("a", 1, &h);
    uint64_t idx;
    ASSERT_OK(mtc_ilog_append_hash(l, &h, &idx));
    ASSERT_EQ(idx, 0);
    mtc_proof_storage st;
    mtc_proof p;
    ASSERT_EQ(mtc_ilog_standalone_proof(l, 0, (mtc_slice){NULL, 0}, &st, &p),
              MTC_ERR_RANGE);
    uint8_t seed[32] = {1};
    mtc_sig_key *k;
    mtc_sig_key_from_seed(MTC_SIG_ED25519, seed, &k);
    mtc_cosigner two[2] = {{ca, k}, {ca, k}};
    ASSERT_EQ(mtc_ilog_checkpoint(l, two, 2), MTC_ERR_ARG);
    ASSERT_OK(mtc_ilog_checkpoint(l, two, 1));
    ASSERT_OK(mtc_ilog_checkpoint(l, two, 1)); /* nothing new: no-op */
    ASSERT_OK(mtc_ilog_standalone_proof(l, 0, (mtc_slice){NULL, 0}, &st, &p));
    ASSERT_EQ(p.start, 0);
    ASSERT_EQ(p.end, 1);
    ASSERT_EQ(p.n_inclusion, 0);
    char text[64];
    mtc_taid_to_text(mtc_ilog_log_id(l), text, sizeof text);
    ASSERT_STR_EQ(text, "32473.1.0.3");
    mtc_sig_key_free(k);
    mtc_ilog_free(l);
    mtc_ilog_free(NULL);
}

static const test_case tests[] = {
    {"proofs_check_out", proofs_check_out},
    {"errors", errors},
};

TEST_MAIN(tests)
