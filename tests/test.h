/*
 * tests/test.h - the test runner shared by every tests/test_*.c.
 *
 * A test file lists its cases in a table and ends with TEST_MAIN(table).
 * ASSERT_* macros print the file:line and both values, mark the case failed
 * and return from it; later cases still run. `./test_x NAME` runs one case.
 * Sizes may be scaled down under sanitizers with test_scale().
 */
#ifndef MTC_TESTS_TEST_H
#define MTC_TESTS_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct test_ctx {
    int failed;
    const char *name;
} test_ctx;

typedef void (*test_fn)(test_ctx *t);

typedef struct test_case {
    const char *name;
    test_fn fn;
} test_case;

#define TEST(name) static void name(test_ctx *tc_)

#define TEST_FAIL_(...)                                                   \
    do {                                                                  \
        fprintf(stderr, "%s:%d: [%s] ", __FILE__, __LINE__, tc_->name);     \
        fprintf(stderr, __VA_ARGS__);                                     \
        fputc('\n', stderr);                                              \
        tc_->failed = 1;                                                    \
        return;                                                           \
    } while (0)

#define ASSERT_TRUE(c) \
    do { if (!(c)) TEST_FAIL_("expected true: %s", #c); } while (0)
#define ASSERT_FALSE(c) \
    do { if (c) TEST_FAIL_("expected false: %s", #c); } while (0)
#define ASSERT_EQ(a, b)                                                   \
    do {                                                                  \
        long long a_ = (long long)(a), b_ = (long long)(b);               \
        if (a_ != b_)                                                     \
            TEST_FAIL_("%s == %s: %lld != %lld", #a, #b, a_, b_);         \
    } while (0)
#define ASSERT_NE(a, b)                                                   \
    do {                                                                  \
        long long a_ = (long long)(a), b_ = (long long)(b);               \
        if (a_ == b_) TEST_FAIL_("%s != %s: both %lld", #a, #b, a_);      \
    } while (0)
#define ASSERT_EQ_U64(a, b)                                               \
    do {                                                                  \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                  \
        if (a_ != b_)                                                     \
            TEST_FAIL_("%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, a_, b_); \
    } while (0)
#define ASSERT_OK(e)                                                      \
    do {                                                                  \
        int r_ = (e);                                                     \
        if (r_ != 0) TEST_FAIL_("%s returned %d", #e, r_);                \
    } while (0)
#define ASSERT_STR_EQ(a, b)                                               \
    do {                                                                  \
        const char *a_ = (a), *b_ = (b);                                  \
        if (strcmp(a_, b_) != 0)                                          \
            TEST_FAIL_("%s == %s: \"%s\" != \"%s\"", #a, #b, a_, b_);     \
    } while (0)
#define ASSERT_MEM_EQ(a, b, n)                                            \
    do {                                                                  \
        if (memcmp((a), (b), (n)) != 0)                                   \
            TEST_FAIL_("%s and %s differ in their %zu bytes", #a, #b,     \
                       (size_t)(n));                                      \
    } while (0)
#define ASSERT_NEAR(a, b, tol)                                            \
    do {                                                                  \
        double a_ = (a), b_ = (b), t_ = (tol);                            \
        if (!(a_ - b_ <= t_ && b_ - a_ <= t_))                            \
            TEST_FAIL_("%s ~ %s: %.17g vs %.17g (tol %g)", #a, #b, a_, b_, t_); \
    } while (0)

/* 1 normally; smaller under sanitizers (MTC_TEST_SCALE=0.1 style env). */
static inline double test_scale(void)
{
    const char *s = getenv("MTC_TEST_SCALE");
    double v = s ? atof(s) : 1.0;
    return v > 0 ? v : 1.0;
}

/* A size n scaled by test_scale(), at least 1. */
static inline size_t test_scaled(size_t n)
{
    size_t v = (size_t)((double)n * test_scale());
    return v ? v : 1;
}

static inline int test_run_all(const test_case *cases, size_t n, int argc,
                               char **argv)
{
    int failed = 0, ran = 0;
    for (size_t i = 0; i < n; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
            continue;
        test_ctx t = {0, cases[i].name};
        cases[i].fn(&t);
        ran++;
        if (t.failed) {
            failed++;
            fprintf(stderr, "FAIL %s\n", cases[i].name);
        }
    }
    printf("%d/%d cases passed\n", ran - failed, ran);
    return failed || ran == 0 ? 1 : 0;
}

#define TEST_MAIN(table)                                                  \
    int main(int argc, char **argv)                                       \
    {                                                                     \
        return test_run_all(table, sizeof(table) / sizeof(table[0]), argc, \
                            argv);                                        \
    }

#endif
