/*
 * test_landmark.c - landmark sequences: the draft's max_active_landmarks
 * example, the allocation procedure, active windows and subtrees (checked
 * against the covering-subtree properties), landmark selection for an
 * entry, and the text format (round trip; every malformed form rejected
 * with its line).
 */
#include "mtc/error.h"
#include "mtc/landmark.h"
#include "test.h"

TEST(max_active_formula)
{
    /* draft: 7-day lifetime, hourly landmarks -> 169 */
    ASSERT_EQ(mtc_max_active_landmarks(7 * 24 * 3600, 3600), 169);
    ASSERT_EQ(mtc_max_active_landmarks(7 * 24, 1), 169);
    ASSERT_EQ(mtc_max_active_landmarks(10, 3), 5); /* ceil(10/3)+1 */
    ASSERT_EQ(mtc_max_active_landmarks(9, 3), 4);
    ASSERT_EQ(mtc_max_active_landmarks(0, 3), 0);
    ASSERT_EQ(mtc_max_active_landmarks(3, 0), 0);
}

TEST(allocation_and_window)
{
    mtc_landmarks *lm = mtc_landmarks_new(3);
    ASSERT_TRUE(lm != NULL);
    ASSERT_EQ(mtc_landmarks_last(lm), 0);
    uint64_t sz;
    ASSERT_OK(mtc_landmarks_size(lm, 0, &sz));
    ASSERT_EQ(sz, 0);
    int alloc;
    ASSERT_OK(mtc_landmarks_allocate(lm, 0, 0, &alloc)); /* size did not grow */
    ASSERT_EQ(alloc, 0);
    ASSERT_OK(mtc_landmarks_allocate(lm, 1, 10, &alloc));
    ASSERT_EQ(alloc, 1);
    ASSERT_OK(mtc_landmarks_allocate(lm, 1, 20, &alloc)); /* same interval */
    ASSERT_EQ(alloc, 0);
    ASSERT_OK(mtc_landmarks_allocate(lm, 2, 10, &alloc)); /* no growth */
    ASSERT_EQ(alloc, 0);
    ASSERT_OK(mtc_landmarks_allocate(lm, 3, 25, &alloc));
    ASSERT_EQ(alloc, 1);
    ASSERT_EQ(mtc_landmarks_allocate(lm, 2, 30, &alloc), MTC_ERR_ARG);
    ASSERT_EQ(mtc_landmarks_append(lm, 25), MTC_ERR_LANDMARK);
    ASSERT_OK(mtc_landmarks_append(lm, 40));
    ASSERT_OK(mtc_landmarks_append(lm, 41));
    ASSERT_OK(mtc_landmarks_append(lm, 64));
    /* landmarks 0..5 = 0,10,25,40,41,64; active: 3,4,5; kept: 2..5 */
    ASSERT_EQ(mtc_landmarks_last(lm), 5);
    ASSERT_EQ(mtc_landmarks_num_active(lm), 3);
    ASSERT_EQ(mtc_landmarks_first_kept(lm), 2);
    ASSERT_EQ(mtc_landmarks_size(lm, 1, &sz), MTC_ERR_RANGE);
    ASSERT_OK(mtc_landmarks_size(lm, 2, &sz));
    ASSERT_EQ(sz, 25);
    /* subtrees cover [prev, size) with the draft's properties */
    for (uint64_t l = 3; l <= 5; l++) {
        mtc_subtree a, b;
        uint64_t prev, size;
        ASSERT_OK(mtc_landmarks_subtrees(lm, l, &a, &b));
        mtc_landmarks_size(lm, l - 1, &prev);
        mtc_landmarks_size(lm, l, &size);
        ASSERT_TRUE(mtc_subtree_valid(a.start, a.end));
        ASSERT_TRUE(mtc_subtree_valid(b.start, b.end));
        ASSERT_EQ(a.end, b.start);
        ASSERT_EQ(b.end, size);
        ASSERT_TRUE(a.start <= prev);
        ASSERT_TRUE(prev - a.start < a.end - prev);
    }
    /* the landmark for each entry */
    uint64_t L;
    mtc_subtree s;
    for (uint64_t i = 25; i < 64; i++) {
        ASSERT_OK(mtc_landmarks_for_index(lm, i, &L, &s));
        uint64_t size, prev;
        mtc_landmarks_size(lm, L, &size);
        mtc_landmarks_size(lm, L - 1, &prev);
        ASSERT_TRUE(prev <= i && i < size);
        ASSERT_TRUE(s.start <= i && i < s.end);
    }
    ASSERT_EQ(mtc_landmarks_for_index(lm, 64, &L, &s), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_landmarks_for_index(lm, 24, &L, &s), MTC_ERR_LANDMARK);
    ASSERT_EQ(mtc_landmarks_subtrees(lm, 0, &s, &s), MTC_ERR_RANGE);
    mtc_landmarks_free(lm);
    mtc_landmarks_free(NULL);
    ASSERT_TRUE(mtc_landmarks_new(0) == NULL);
}

TEST(text_roundtrip)
{
    mtc_landmarks *lm = mtc_landmarks_new(3), *back;
    char buf[256];
    size_t n;
    ASSERT_OK(mtc_landmarks_format(lm, buf, sizeof buf, &n));
    ASSERT_EQ(n, 6);
    ASSERT_MEM_EQ(buf, "0 0\n0\n", 6);
    mtc_landmarks_append(lm, 10);
    mtc_landmarks_append(lm, 25);
    ASSERT_OK(mtc_landmarks_format(lm, buf, sizeof buf, &n));
    ASSERT_MEM_EQ(buf, "2 2\n25\n10\n0\n", n);
    ASSERT_OK(mtc_landmarks_parse(buf, n, 3, 25, &back, NULL));
    ASSERT_EQ(mtc_landmarks_last(back), 2);
    mtc_landmarks_free(back);
    for (uint64_t v = 30; v < 300; v += 17)
        mtc_landmarks_append(lm, v);
    ASSERT_OK(mtc_landmarks_format(lm, buf, sizeof buf, &n));
    ASSERT_EQ(mtc_landmarks_format(lm, buf, n - 1, &n), MTC_ERR_LIMIT);
    ASSERT_OK(mtc_landmarks_format(lm, buf, sizeof buf, &n));
    ASSERT_OK(mtc_landmarks_parse(buf, n, 3, 1000, &back, NULL));
    ASSERT_EQ(mtc_landmarks_last(back), mtc_landmarks_last(lm));
    for (uint64_t l = mtc_landmarks_first_kept(lm); l <= mtc_landmarks_last(lm); l++) {
        uint64_t a, b;
        ASSERT_OK(mtc_landmarks_size(lm, l, &a));
        ASSERT_OK(mtc_landmarks_size(back, l, &b));
        ASSERT_EQ(a, b);
    }
    char again[256];
    size_t n2;
    ASSERT_OK(mtc_landmarks_format(back, again, sizeof again, &n2));
    ASSERT_EQ(n2, n);
    ASSERT_MEM_EQ(again, buf, n);
    mtc_landmarks_free(back);
    mtc_landmarks_free(lm);
    /* a CA may publish fewer than max_active */
    ASSERT_OK(mtc_landmarks_parse("7 1\n90\n80\n", 10, 3, 100, &back, NULL));
    ASSERT_EQ(mtc_landmarks_num_active(back), 1);
    uint64_t sz;
    ASSERT_EQ(mtc_landmarks_size(back, 5, &sz), MTC_ERR_RANGE);
    mtc_landmarks_free(back);
}

TEST(text_strict)
{
    static const struct {
        const char *text;
        int rc;
        size_t line;
    } bad[] = {
        {"", MTC_ERR_PARSE, 1},
        {"2 2\n25\n10\n0", MTC_ERR_PARSE, 4},        /* no final newline */
        {"2 2\n25\n10\n", MTC_ERR_PARSE, 4},         /* a size missing */
        {"2 2\n25\n10\n0\n0\n", MTC_ERR_PARSE, 5},   /* extra line */
        {"2  2\n25\n10\n0\n", MTC_ERR_PARSE, 1},     /* double space */
        {"2 2 \n25\n10\n0\n", MTC_ERR_PARSE, 1},
        {"02 2\n25\n10\n0\n", MTC_ERR_PARSE, 1},     /* leading zero */
        {"+2 2\n25\n10\n0\n", MTC_ERR_PARSE, 1},
        {"2 2\r\n25\n10\n0\n", MTC_ERR_PARSE, 1},
        {"2 2\n25\n010\n0\n", MTC_ERR_PARSE, 3},
        {"2 2\n25\n-10\n0\n", MTC_ERR_PARSE, 3},
        {"2 2\n25\n10\n0\nx", MTC_ERR_PARSE, 5},
        {"18446744073709551616 1\n5\n4\n", MTC_ERR_PARSE, 1}, /* > 2^64-1 */
        {"2 3\n25\n10\n0\n0\n", MTC_ERR_LANDMARK, 1},  /* num_active > last */
        {"9 4\n9\n8\n7\n6\n5\n", MTC_ERR_LANDMARK, 1}, /* > max_active (3) */
        {"2 2\n25\n25\n0\n", MTC_ERR_LANDMARK, 3},    /* not decreasing */
        {"2 2\n10\n25\n0\n", MTC_ERR_LANDMARK, 3},
        {"2 2\n25\n10\n5\n", MTC_ERR_LANDMARK, 4},    /* landmark 0 not 0 */
        {"2 2\n26\n10\n0\n", MTC_ERR_LANDMARK, 2},    /* beyond latest (25) */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mtc_landmarks *lm = (mtc_landmarks *)1;
        size_t line = 0;
        int rc = mtc_landmarks_parse(bad[i].text, strlen(bad[i].text), 3, 25, &lm,
                                     &line);
        if (rc != bad[i].rc || line != bad[i].line)
            TEST_FAIL_("case %zu (%s): rc %d line %zu", i, bad[i].text, rc, line);
        ASSERT_TRUE(lm == NULL);
    }
    mtc_landmarks *lm;
    ASSERT_OK(mtc_landmarks_parse("2 2\n25\n10\n0\n", 12, 3, 25, &lm, NULL));
    mtc_landmarks_free(lm);
}

TEST(group_membership)
{
    /* draft example: max_active 169; group 42 holds landmarks 1..42 */
    ASSERT_TRUE(mtc_landmark_group_contains(42, 169, 42));
    ASSERT_TRUE(mtc_landmark_group_contains(42, 169, 1));
    ASSERT_FALSE(mtc_landmark_group_contains(42, 169, 0));
    ASSERT_FALSE(mtc_landmark_group_contains(42, 169, 43));
    /* window of 3: group 10 holds 8, 9, 10 */
    ASSERT_FALSE(mtc_landmark_group_contains(10, 3, 7));
    ASSERT_TRUE(mtc_landmark_group_contains(10, 3, 8));
    ASSERT_TRUE(mtc_landmark_group_contains(10, 3, 10));
    ASSERT_FALSE(mtc_landmark_group_contains(10, 0, 10));
    ASSERT_TRUE(mtc_landmark_group_contains(UINT64_MAX, 1, UINT64_MAX));
}

static const test_case tests[] = {
    {"group_membership", group_membership},
    {"max_active_formula", max_active_formula},
    {"allocation_and_window", allocation_and_window},
    {"text_roundtrip", text_roundtrip},
    {"text_strict", text_strict},
};

TEST_MAIN(tests)
