/*
 * test_ta_many_cas.c - the ClientHello trust_anchors bytes a client pays
 * as a function of the number of CAs it advertises (the quantity behind
 * the clienthello_trust_anchors_bytes metric), against a closed form
 * from the encodings alone (draft-ietf-tls-trust-anchor-ids section 4,
 * the MTC draft's landmark group IDs):
 *
 *   extension  = 2 (type) + 2 (length) + 2 (list length)
 *                + sum over CAs of (1 + |ID|)
 *   |CA ID|    = |32473| + |k| = 3 + b(k)        (default IDs 32473.<k>)
 *   |group ID| = |CA ID| + |2| + b(log) + b(landmark)
 *
 * b(x) is the number of base-128 digits of x (1 up to 127, 2 up to
 * 16383, ...). So n CAs advertising log 1, landmark m < 128 cost
 * 6 + 8n + max(0, n - 127) bytes; n CAs advertising their CA IDs only
 * cost 6 + 5n + max(0, n - 127).
 */
#include "test.h"

#include "mtc/error.h"
#include "mtc/taid.h"
#include "sim/tls.h"

#define CP TLS_EXT_TRUST_ANCHORS_EXPERIMENTAL

static size_t b128(uint64_t x)
{
    size_t n = 1;
    while (x >= 128) {
        x >>= 7;
        n++;
    }
    return n;
}

/* Encodes the extension for CAs 1..n (group IDs when lm > 0, else the
 * CA IDs) and returns its length (0 on failure). */
static size_t encoded(size_t n, uint64_t log, uint64_t lm)
{
    static mtc_taid ids[512];
    static uint8_t buf[65536];
    if (n > 512)
        return 0;
    for (size_t k = 1; k <= n; k++) {
        char text[32];
        mtc_taid ca;
        snprintf(text, sizeof text, "32473.%zu", k);
        if (mtc_taid_from_text(text, strlen(text), &ca) != MTC_OK)
            return 0;
        if (lm == 0)
            ids[k - 1] = ca;
        else if (mtc_taid_landmark_group_id(&ca, log, lm, &ids[k - 1]) != MTC_OK)
            return 0;
    }
    size_t len = 0;
    if (tls_ext_trust_anchors_encode(CP, ids, n, buf, sizeof buf, &len) != MTC_OK)
        return 0;
    if (tls_ext_trust_anchors_len(ids, n) != len)
        return 0;
    return len;
}

static size_t closed_form(size_t n, uint64_t log, uint64_t lm)
{
    size_t sum = 6;
    for (size_t k = 1; k <= n; k++)
        sum += 1 + 3 + b128(k) + (lm ? 1 + b128(log) + b128(lm) : 0);
    return sum;
}

TEST(trust_anchor_bytes_by_number_of_cas)
{
    const size_t ns[] = {1, 10, 50, 127, 128, 150, 200, 500};
    const uint64_t lms[] = {0, 1, 127, 128, 200, 16384};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t j = 0; j < sizeof lms / sizeof lms[0]; j++) {
            size_t want = closed_form(ns[i], 1, lms[j]);
            ASSERT_EQ(encoded(ns[i], 1, lms[j]), want);
        }
    /* The simple forms of the header comment. */
    for (size_t n = 1; n <= 300; n++) {
        size_t extra = n > 127 ? n - 127 : 0;
        ASSERT_EQ(encoded(n, 1, 42), 6 + 8 * n + extra);
        ASSERT_EQ(encoded(n, 1, 0), 6 + 5 * n + extra);
    }
    /* Figures quoted in docs/model.md: 10, 50 and 150 CAs, hourly
     * landmarks (a landmark number below 128: one byte). */
    ASSERT_EQ(encoded(10, 1, 100), 86);
    ASSERT_EQ(encoded(50, 1, 100), 406);
    ASSERT_EQ(encoded(150, 1, 100), 1229);
    /* Landmark numbers of two base-128 digits add a byte per CA. */
    ASSERT_EQ(encoded(150, 1, 200), 1229 + 150);
    /* A bigger log number adds as much. */
    ASSERT_EQ(encoded(150, 300, 100), 1229 + 150);
}

static const test_case tests[] = {
    {"trust_anchor_bytes_by_number_of_cas", trust_anchor_bytes_by_number_of_cas},
};
TEST_MAIN(tests)
