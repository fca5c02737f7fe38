/*
 * test_staple.c - landmark staples (mtc/staple.h): the server builds one
 * from the CA's signed checkpoint and landmarks, it round-trips through
 * the codec canonically, and a relying party that verifies it trusts the
 * landmark subtrees (a landmark-relative certificate it refused before
 * now verifies). The verifier is mutation-tested: every single-byte change
 * and every truncation of a valid staple is refused and leaves the
 * relying party trusting nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/mtc_fixture.h"
#include "mtc/error.h"
#include "mtc/staple.h"
#include "test.h"

static fx F;
static uint64_t next_entry;

static int batch(uint64_t count, uint64_t ts, int landmark)
{
    return fx_batch(&F, &next_entry, count, ts, landmark);
}

/* CA 32473.1, witnesses 32473.101 and .102 (policy: all); 3 batches of
 * 7, a landmark after each: the staple carries 3 landmarks' subtrees. */
static int setup(void)
{
    return fx_three_landmarks(&F, &next_entry);
}

static mtc_rp_ca *empty_rp(void)
{
    mtc_rp_ca *rp = NULL;
    if (fx_rp(&F, &rp) != MTC_OK)
        return NULL;
    mtc_rp_ca_clear_subtrees(rp);
    return rp;
}

/* The encoded staple of F's log (caller frees). */
static uint8_t *make_staple(size_t *len)
{
    const mtc_landmarks *lm = F.lm;
    mtc_update *u;
    if (mtc_update_from_ilogs(&F.ca_id, &F.log, &lm, 1, &u))
        return NULL;
    mtc_staple s;
    mtc_staple_cosig cs[FX_MAX_COSIGNERS];
    uint8_t *b = NULL;
    if (mtc_staple_from_update(u, 0, &s, cs) == MTC_OK &&
        mtc_staple_encode(&s, NULL, 0, len) == MTC_ERR_LIMIT &&
        (b = malloc(*len)) && mtc_staple_encode(&s, b, *len, len) != MTC_OK) {
        free(b);
        b = NULL;
    }
    mtc_update_free(u);
    return b;
}

TEST(round_trip_is_canonical)
{
    ASSERT_OK(setup());
    size_t len;
    uint8_t *b = make_staple(&len);
    ASSERT_TRUE(b != NULL);
    ASSERT_MEM_EQ(b, MTC_STAPLE_LABEL, MTC_STAPLE_LABEL_LEN);
    mtc_staple *s;
    ASSERT_OK(mtc_staple_decode(b, len, &s));
    ASSERT_EQ(s->log_number, 1);
    ASSERT_EQ(s->tree_size, 21);
    ASSERT_EQ(s->n_cosigs, 3);
    ASSERT_TRUE(s->n_subtrees >= 3);
    uint8_t *again = malloc(len);
    size_t n2;
    ASSERT_OK(mtc_staple_encode(s, again, len, &n2));
    ASSERT_EQ(n2, len);
    ASSERT_MEM_EQ(again, b, len);
    /* trailing bytes and a short buffer */
    uint8_t *longer = calloc(1, len + 1);
    memcpy(longer, b, len);
    mtc_staple *bad;
    ASSERT_EQ(mtc_staple_decode(longer, len + 1, &bad), MTC_ERR_PARSE);
    ASSERT_EQ(mtc_staple_encode(s, again, len - 1, &n2), MTC_ERR_LIMIT);
    /* the encoder refuses out-of-range fields */
    mtc_staple t = *s;
    t.log_number = 0x10000;
    ASSERT_EQ(mtc_staple_encode(&t, NULL, 0, &n2), MTC_ERR_ARG);
    free(longer);
    free(again);
    mtc_staple_free(s);
    free(b);
    fx_free(&F);
}

TEST(verified_staple_makes_landmark_certificates_acceptable)
{
    ASSERT_OK(setup());
    size_t len;
    uint8_t *b = make_staple(&len);
    ASSERT_TRUE(b != NULL);
    uint8_t cert[8192];
    size_t cl;
    ASSERT_OK(fx_cert(&F, 9, 1, cert, sizeof cert, &cl));
    mtc_rp_ca *rp = empty_rp();
    ASSERT_TRUE(rp != NULL);
    mtc_rp_result vr;
    mtc_rp_verify(rp, cert, cl, -1, &vr);
    ASSERT_NE(vr.reason, MTC_RP_OK); /* nothing learned yet */
    mtc_staple *s;
    ASSERT_OK(mtc_staple_decode(b, len, &s));
    mtc_update_result res;
    ASSERT_OK(mtc_rp_ca_apply_staple(rp, s, &res));
    ASSERT_EQ(res.n_subtrees, s->n_subtrees);
    ASSERT_EQ(res.valid_cosigs, 3);
    mtc_rp_verify(rp, cert, cl, -1, &vr);
    ASSERT_EQ(vr.reason, MTC_RP_OK);
    /* a clone trusts the same; an older staple afterwards is a rollback */
    mtc_rp_ca *c = mtc_rp_ca_clone(rp);
    ASSERT_TRUE(c != NULL);
    ASSERT_EQ(mtc_rp_ca_subtree_count(c), mtc_rp_ca_subtree_count(rp));
    mtc_rp_verify(c, cert, cl, -1, &vr);
    ASSERT_EQ(vr.reason, MTC_RP_OK);
    ASSERT_OK(batch(5, FX_T0 + 400, 1));
    size_t len2;
    uint8_t *b2 = make_staple(&len2);
    mtc_staple *s2;
    ASSERT_OK(mtc_staple_decode(b2, len2, &s2));
    ASSERT_OK(mtc_rp_ca_apply_staple(c, s2, &res));
    ASSERT_EQ(mtc_rp_ca_apply_staple(c, s, &res), MTC_ERR_LANDMARK);
    ASSERT_EQ(res.reason, MTC_UPDATE_ROLLBACK);
    /* a relying party with another CA learns nothing */
    mtc_rp_ca *other = mtc_rp_ca_new(&F.cos[1].id);
    ASSERT_EQ(mtc_rp_ca_apply_staple(other, s, &res), MTC_ERR_CONFIG);
    ASSERT_EQ(mtc_rp_ca_subtree_count(other), 0);
    mtc_rp_ca_free(other);
    mtc_staple_free(s2);
    free(b2);
    mtc_rp_ca_free(c);
    mtc_staple_free(s);
    mtc_rp_ca_free(rp);
    free(b);
    fx_free(&F);
}

/* 1 when bytes b[0..n) are refused or leave rp trusting nothing. */
static int yields_nothing(const uint8_t *b, size_t n)
{
    mtc_staple *s;
    if (mtc_staple_decode(b, n, &s) != MTC_OK)
        return 1;
    mtc_rp_ca *rp = empty_rp();
    mtc_update_result res;
    int rc = mtc_rp_ca_apply_staple(rp, s, &res);
    int ok = rc != MTC_OK && mtc_rp_ca_subtree_count(rp) == 0 &&
             (rc == MTC_ERR_NOMEM || res.reason != MTC_UPDATE_OK);
    mtc_rp_ca_free(rp);
    mtc_staple_free(s);
    return ok;
}

TEST(every_mutation_and_truncation_is_refused)
{
    ASSERT_OK(setup());
    size_t len;
    uint8_t *b = make_staple(&len);
    ASSERT_TRUE(b != NULL);
    ASSERT_FALSE(yields_nothing(b, len)); /* the valid one is accepted */
    uint8_t *m = malloc(len);
    size_t decoded = 0, tried = 0;
    const uint8_t flips[] = {0x01, 0x80, 0xff};
    for (size_t i = 0; i < len; i++)
        for (size_t f = 0; f < sizeof flips; f++) {
            memcpy(m, b, len);
            m[i] ^= flips[f];
            mtc_staple *s;
            if (mtc_staple_decode(m, len, &s) == MTC_OK) {
                decoded++;
                mtc_staple_free(s);
            }
            tried++;
            if (!yields_nothing(m, len)) {
                ASSERT_EQ(i, SIZE_MAX); /* names the byte at fault */
            }
        }
    for (size_t n = 0; n < len; n++)
        ASSERT_TRUE(yields_nothing(b, n));
    /* the mutations reached the verifier, not only the decoder */
    ASSERT_TRUE(decoded > tried / 2);
    free(m);
    free(b);
    fx_free(&F);
}

static const test_case tests[] = {
    {"round_trip_is_canonical", round_trip_is_canonical},
    {"verified_staple_makes_landmark_certificates_acceptable",
     verified_staple_makes_landmark_certificates_acceptable},
    {"every_mutation_and_truncation_is_refused", every_mutation_and_truncation_is_refused},
};

TEST_MAIN(tests)
