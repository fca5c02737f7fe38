/*
 * test_taid.c - trust anchor IDs: the draft's examples (CA 32473.1, log 8,
 * landmark 42), the CA-ID name checked through OpenSSL's RFC 4514 printer,
 * ordering, limits and malformed input.
 */
#include <openssl/x509.h>

#include "mtc/error.h"
#include "mtc/taid.h"
#include "test.h"

TEST(draft_examples)
{
    mtc_taid ca, id;
    char text[MTC_TAID_TEXT_MAX];
    ASSERT_OK(mtc_taid_from_text("32473.1", 7, &ca));
    static const uint8_t bin[] = {0x81, 0xfd, 0x59, 0x01};
    ASSERT_EQ(ca.len, 4);
    ASSERT_MEM_EQ(ca.b, bin, 4);
    ASSERT_OK(mtc_taid_to_text(&ca, text, sizeof text));
    ASSERT_STR_EQ(text, "32473.1");
    ASSERT_OK(mtc_taid_log_id(&ca, 8, &id));
    ASSERT_OK(mtc_taid_to_text(&id, text, sizeof text));
    ASSERT_STR_EQ(text, "32473.1.0.8");
    ASSERT_OK(mtc_taid_landmark_id(&ca, 8, 42, &id));
    ASSERT_OK(mtc_taid_to_text(&id, text, sizeof text));
    ASSERT_STR_EQ(text, "32473.1.1.8.42");
    ASSERT_OK(mtc_taid_landmark_group_id(&ca, 8, 42, &id));
    ASSERT_OK(mtc_taid_to_text(&id, text, sizeof text));
    ASSERT_STR_EQ(text, "32473.1.2.8.42");
    char origin[256];
    size_t n;
    ASSERT_OK(mtc_taid_origin(&ca, origin, sizeof origin, &n));
    ASSERT_EQ(n, 23);
    ASSERT_MEM_EQ(origin, "oid/1.3.6.1.4.1.32473.1", 23);
}

TEST(ca_name_matches_draft_and_openssl)
{
    mtc_taid ca, back;
    ASSERT_OK(mtc_taid_from_text("32473.1", 7, &ca));
    uint8_t buf[128];
    mtc_der_writer w;
    mtc_der_writer_init(&w, buf, sizeof buf);
    mtc_taid_name_der(&w, &ca);
    ASSERT_OK(w.err);
    ASSERT_OK(mtc_taid_from_name((mtc_slice){buf, w.len}, &back));
    ASSERT_TRUE(mtc_taid_equal(&ca, &back));
    /* OpenSSL prints the draft's RFC 4514 example for this name. */
    const uint8_t *p = buf;
    X509_NAME *xn = d2i_X509_NAME(NULL, &p, (long)w.len);
    ASSERT_TRUE(xn != NULL);
    BIO *bio = BIO_new(BIO_s_mem());
    X509_NAME_print_ex(bio, xn, 0, XN_FLAG_RFC2253);
    char out[256] = {0};
    BIO_read(bio, out, sizeof out - 1);
    BIO_free(bio);
    X509_NAME_free(xn);
    ASSERT_STR_EQ(out, "1.3.6.1.4.1.44363.47.1=#0C0733323437332E31");
    /* Other names are refused. */
    buf[w.len - 1] = '2'; /* "32473.2" still valid */
    ASSERT_OK(mtc_taid_from_name((mtc_slice){buf, w.len}, &back));
    buf[w.len - 1] = 'x';
    ASSERT_EQ(mtc_taid_from_name((mtc_slice){buf, w.len}, &back), MTC_ERR_CERT);
    buf[w.len - 1] = '1';
    buf[w.len - 10] ^= 1; /* OID changed */
    ASSERT_EQ(mtc_taid_from_name((mtc_slice){buf, w.len}, &back), MTC_ERR_CERT);
}

TEST(order_limits_malformed)
{
    mtc_taid a, b, c;
    ASSERT_OK(mtc_taid_from_text("5", 1, &a));
    ASSERT_OK(mtc_taid_from_text("200", 3, &b)); /* 2 bytes */
    ASSERT_OK(mtc_taid_from_text("6", 1, &c));
    ASSERT_TRUE(mtc_taid_cmp(&a, &b) < 0); /* shorter first */
    ASSERT_TRUE(mtc_taid_cmp(&b, &a) > 0);
    ASSERT_TRUE(mtc_taid_cmp(&a, &c) < 0);
    ASSERT_EQ(mtc_taid_cmp(&a, &a), 0);
    /* 255 bytes fit, 256 do not */
    mtc_taid big;
    ASSERT_OK(mtc_taid_from_text("1", 1, &big));
    uint64_t one = 1;
    for (int i = 1; i < 255; i++)
        ASSERT_OK(mtc_taid_append(&big, &one, 1, &big));
    ASSERT_EQ(big.len, 255);
    ASSERT_EQ(mtc_taid_append(&big, &one, 1, &big), MTC_ERR_LIMIT);
    char text[MTC_TAID_TEXT_MAX];
    ASSERT_OK(mtc_taid_to_text(&big, text, sizeof text));
    char origin[300];
    size_t n;
    ASSERT_EQ(mtc_taid_origin(&big, origin, sizeof origin, &n), MTC_ERR_LIMIT);
    static const char *bad[] = {"", ".", "1.", ".1", "01", "1..2", "a", "1.2 ",
                                "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ASSERT_TRUE(mtc_taid_from_text(bad[i], strlen(bad[i]), &a) != MTC_OK);
    static const uint8_t badbin1[] = {0x80, 0x01}, badbin2[] = {0x81};
    ASSERT_EQ(mtc_taid_from_binary(badbin1, 2, &a), MTC_ERR_PARSE);
    ASSERT_EQ(mtc_taid_from_binary(badbin2, 1, &a), MTC_ERR_PARSE);
    ASSERT_EQ(mtc_taid_from_binary(badbin2, 0, &a), MTC_ERR_PARSE);
    static const uint8_t good[] = {0x81, 0xfd, 0x59, 0x01};
    ASSERT_OK(mtc_taid_from_binary(good, 4, &a));
    ASSERT_OK(mtc_taid_to_text(&a, text, sizeof text));
    ASSERT_STR_EQ(text, "32473.1");
}

static const test_case tests[] = {
    {"draft_examples", draft_examples},
    {"ca_name_matches_draft_and_openssl", ca_name_matches_draft_and_openssl},
    {"order_limits_malformed", order_limits_malformed},
};

TEST_MAIN(tests)
