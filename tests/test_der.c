/*
 * test_der.c - the DER encoder/decoder: round trips at length boundaries,
 * the counting writer, every strictness rule, integers, times (checked
 * against OpenSSL's ASN1_TIME), OIDs.
 */
#include <openssl/asn1.h>

#include "mtc/der.h"
#include "mtc/error.h"
#include "test.h"

TEST(roundtrip_length_boundaries)
{
    static const size_t lens[] = {0, 1, 127, 128, 255, 256, 65535, 65536, 70000};
    static uint8_t content[70000], buf[70100];
    for (size_t i = 0; i < sizeof content; i++)
        content[i] = (uint8_t)(i * 7);
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        size_t n = lens[k];
        mtc_der_writer w;
        mtc_der_writer_init(&w, buf, sizeof buf);
        size_t m = mtc_der_open(&w, MTC_DER_SEQUENCE);
        mtc_der_prim(&w, MTC_DER_OCTET_STRING, content, n);
        mtc_der_close(&w, m);
        ASSERT_OK(w.err);
        size_t inner = mtc_der_header_len(n) + n;
        ASSERT_EQ(w.len, mtc_der_header_len(inner) + inner);
        /* counting mode gives the same size */
        mtc_der_writer c;
        mtc_der_writer_init(&c, NULL, 0);
        m = mtc_der_open(&c, MTC_DER_SEQUENCE);
        mtc_der_prim(&c, MTC_DER_OCTET_STRING, content, n);
        mtc_der_close(&c, m);
        ASSERT_EQ(c.err, MTC_ERR_LIMIT);
        ASSERT_EQ(c.len, w.len);
        /* a buffer one byte short fails with the exact size */
        mtc_der_writer s;
        mtc_der_writer_init(&s, buf, w.len - 1);
        m = mtc_der_open(&s, MTC_DER_SEQUENCE);
        mtc_der_prim(&s, MTC_DER_OCTET_STRING, content, n);
        mtc_der_close(&s, m);
        ASSERT_EQ(s.err, MTC_ERR_LIMIT);
        ASSERT_EQ(s.len, w.len);
        /* decode */
        mtc_der_writer_init(&w, buf, sizeof buf);
        m = mtc_der_open(&w, MTC_DER_SEQUENCE);
        mtc_der_prim(&w, MTC_DER_OCTET_STRING, content, n);
        mtc_der_close(&w, m);
        mtc_der_reader r, sub;
        mtc_slice c2, whole;
        mtc_der_reader_init(&r, buf, w.len);
        ASSERT_OK(mtc_der_enter(&r, MTC_DER_SEQUENCE, &sub, &whole));
        ASSERT_OK(mtc_der_finish(&r));
        ASSERT_EQ(whole.len, w.len);
        ASSERT_OK(mtc_der_get(&sub, MTC_DER_OCTET_STRING, &c2, NULL));
        ASSERT_OK(mtc_der_finish(&sub));
        ASSERT_EQ(c2.len, n);
        ASSERT_MEM_EQ(c2.p, content, n);
        ASSERT_OK(mtc_der_validate(buf, w.len));
        /* every truncation is rejected */
        for (size_t l = 0; l < w.len; l += (w.len > 300 ? 97 : 1))
            ASSERT_TRUE(mtc_der_validate(buf, l) != MTC_OK);
    }
}

static int validate_hex(const char *hex)
{
    uint8_t b[64];
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        b[i] = (uint8_t)v;
    }
    return mtc_der_validate(b, n);
}

TEST(strictness)
{
    ASSERT_OK(validate_hex("0400"));
    ASSERT_OK(validate_hex("3003020105"));
    ASSERT_EQ(validate_hex(""), MTC_ERR_DER);
    ASSERT_EQ(validate_hex("04"), MTC_ERR_DER_LENGTH);
    ASSERT_EQ(validate_hex("048101ff"), MTC_ERR_DER_LENGTH);     /* long form < 128 */
    ASSERT_EQ(validate_hex("04820001ff"), MTC_ERR_DER_LENGTH);   /* leading zero */
    ASSERT_EQ(validate_hex("30800201010000"), MTC_ERR_DER_LENGTH); /* indefinite */
    ASSERT_EQ(validate_hex("0402ff"), MTC_ERR_DER_LENGTH);       /* past the end */
    ASSERT_EQ(validate_hex("0400ff"), MTC_ERR_DER_TRAILING);
    ASSERT_EQ(validate_hex("1f0100"), MTC_ERR_DER);              /* high tag */
    ASSERT_EQ(validate_hex("3004020100ff"), MTC_ERR_DER_LENGTH); /* inner past end */
    ASSERT_EQ(validate_hex("010101"), MTC_ERR_DER);   /* BOOLEAN not 00/ff */
    ASSERT_OK(validate_hex("0101ff"));
    ASSERT_EQ(validate_hex("02020001"), MTC_ERR_DER); /* non-minimal INTEGER */
    ASSERT_EQ(validate_hex("0202ff80"), MTC_ERR_DER);
    ASSERT_EQ(validate_hex("0200"), MTC_ERR_DER);
    ASSERT_EQ(validate_hex("030201ff"), MTC_ERR_DER); /* padding bit set */
    ASSERT_OK(validate_hex("030201fe"));
    ASSERT_EQ(validate_hex("030101"), MTC_ERR_DER);   /* empty with unused */
    ASSERT_EQ(validate_hex("030208ff"), MTC_ERR_DER); /* 8 unused bits */
    ASSERT_EQ(validate_hex("050100"), MTC_ERR_DER);   /* NULL with contents */
    ASSERT_EQ(validate_hex("0603808101"), MTC_ERR_DER); /* OID 0x80 lead */
    ASSERT_EQ(validate_hex("060181"), MTC_ERR_DER);   /* OID truncated arc */
    /* nesting: MTC_DER_MAX_DEPTH levels pass, one more fails */
    uint8_t deep[200];
    for (int extra = 0; extra <= 1; extra++) {
        int d = MTC_DER_MAX_DEPTH + extra;
        for (int i = 0; i < d; i++) {
            deep[2 * i] = 0x30;
            deep[2 * i + 1] = (uint8_t)(2 * (d - i - 1));
        }
        int rc = mtc_der_validate(deep, (size_t)(2 * d));
        if (extra)
            ASSERT_EQ(rc, MTC_ERR_DER_DEPTH);
        else
            ASSERT_OK(rc);
    }
}

TEST(integers)
{
    static const uint64_t vals[] = {0, 1, 127, 128, 255, 256, 0x7fffffff,
                                    UINT64_C(1) << 48, UINT64_C(0x7fffffffffffffff),
                                    UINT64_C(0x8000000000000000), UINT64_MAX};
    static const size_t want_len[] = {3, 3, 3, 4, 4, 4, 6, 9, 10, 11, 11};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint8_t b[16];
        mtc_der_writer w;
        mtc_der_writer_init(&w, b, sizeof b);
        mtc_der_u64(&w, vals[i]);
        ASSERT_OK(w.err);
        ASSERT_EQ(w.len, want_len[i]);
        ASSERT_OK(mtc_der_validate(b, w.len));
        mtc_der_reader r;
        mtc_slice c;
        uint64_t v;
        mtc_der_reader_init(&r, b, w.len);
        ASSERT_OK(mtc_der_get(&r, MTC_DER_INTEGER, &c, NULL));
        ASSERT_OK(mtc_der_parse_u64(c, &v));
        ASSERT_EQ_U64(v, vals[i]);
        /* OpenSSL agrees on the value */
        const uint8_t *p = b;
        ASN1_INTEGER *ai = d2i_ASN1_INTEGER(NULL, &p, (long)w.len);
        ASSERT_TRUE(ai != NULL);
        uint64_t ov;
        ASSERT_EQ(ASN1_INTEGER_get_uint64(&ov, ai), 1);
        ASSERT_EQ_U64(ov, vals[i]);
        ASN1_INTEGER_free(ai);
    }
    uint64_t v;
    static const uint8_t neg[] = {0xff};
    static const uint8_t big[] = {0x01, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t nonmin[] = {0x00, 0x05};
    ASSERT_EQ(mtc_der_parse_u64((mtc_slice){neg, 1}, &v), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_der_parse_u64((mtc_slice){big, 9}, &v), MTC_ERR_RANGE);
    ASSERT_EQ(mtc_der_parse_u64((mtc_slice){nonmin, 2}, &v), MTC_ERR_DER);
}

TEST(times_match_openssl)
{
    static const int64_t ts[] = {0, 86399, 951782400 /* 2000-02-29 */,
                                 -631152000 /* 1950-01-01 */,
                                 -631152001 /* 1949-12-31T23:59:59 */,
                                 2524607999 /* 2049-12-31T23:59:59 */,
                                 2524608000 /* 2050-01-01 */, 4102444800,
                                 253402300799 /* 9999-12-31T23:59:59 */};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        uint8_t b[32];
        mtc_der_writer w;
        mtc_der_writer_init(&w, b, sizeof b);
        mtc_der_time(&w, ts[i]);
        ASSERT_OK(w.err);
        int utc = ts[i] >= -631152000 && ts[i] < 2524608000;
        ASSERT_EQ(b[0], utc ? MTC_DER_UTC_TIME : MTC_DER_GENERALIZED_TIME);
        mtc_der_reader r;
        mtc_slice c;
        unsigned tag;
        int64_t back;
        mtc_der_reader_init(&r, b, w.len);
        ASSERT_OK(mtc_der_get_any(&r, &tag, &c, NULL));
        ASSERT_OK(mtc_der_parse_time(tag, c, &back));
        ASSERT_EQ(back, ts[i]);
        /* OpenSSL decodes the same instant */
        const uint8_t *p = b;
        ASN1_TIME *at = d2i_ASN1_TIME(NULL, &p, (long)w.len);
        ASSERT_TRUE(at != NULL);
        ASN1_TIME *ref = ASN1_TIME_set(NULL, (time_t)ts[i]);
        ASSERT_EQ(ASN1_TIME_compare(at, ref), 0);
        ASN1_TIME_free(at);
        ASN1_TIME_free(ref);
    }
    static const char *bad[] = {"990230000000Z", "991301000000Z", "990101240000Z",
                                "990101006000Z", "990101000060Z", "9901010000Z",
                                "990101000000", "990101000000+0000",
                                "99010100000aZ", "000229000000Z"};
    /* 2000-02-29 (UTCTime 00) is valid; 2100-02-29 would not be. */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t tv;
        mtc_slice c = {(const uint8_t *)bad[i], strlen(bad[i])};
        if (i == sizeof bad / sizeof bad[0] - 1)
            ASSERT_OK(mtc_der_parse_time(MTC_DER_UTC_TIME, c, &tv));
        else
            ASSERT_EQ(mtc_der_parse_time(MTC_DER_UTC_TIME, c, &tv), MTC_ERR_DER);
    }
    int64_t tv;
    mtc_slice g = {(const uint8_t *)"21000229000000Z", 15};
    ASSERT_EQ(mtc_der_parse_time(MTC_DER_GENERALIZED_TIME, g, &tv), MTC_ERR_DER);
    mtc_slice g2 = {(const uint8_t *)"20000229000000Z", 15};
    ASSERT_OK(mtc_der_parse_time(MTC_DER_GENERALIZED_TIME, g2, &tv));
    ASSERT_EQ(tv, 951782400);
}

TEST(oids)
{
    uint8_t b[64];
    size_t n;
    char text[128];
    ASSERT_OK(mtc_der_oid_from_text("1.2.840.113549.1.1.1", 20, 0, b, sizeof b, &n));
    static const uint8_t rsa[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01};
    ASSERT_EQ(n, sizeof rsa);
    ASSERT_MEM_EQ(b, rsa, n);
    ASSERT_OK(mtc_der_oid_to_text((mtc_slice){b, n}, 0, text, sizeof text));
    ASSERT_STR_EQ(text, "1.2.840.113549.1.1.1");
    ASSERT_OK(mtc_der_oid_from_text("2.999.3", 7, 0, b, sizeof b, &n));
    ASSERT_OK(mtc_der_oid_to_text((mtc_slice){b, n}, 0, text, sizeof text));
    ASSERT_STR_EQ(text, "2.999.3");
    ASSERT_OK(mtc_der_oid_from_text("32473.1", 7, 1, b, sizeof b, &n));
    static const uint8_t rel[] = {0x81, 0xfd, 0x59, 0x01};
    ASSERT_EQ(n, 4);
    ASSERT_MEM_EQ(b, rel, 4);
    ASSERT_OK(mtc_der_oid_to_text((mtc_slice){b, n}, 1, text, sizeof text));
    ASSERT_STR_EQ(text, "32473.1");
    ASSERT_EQ(mtc_der_oid_to_text((mtc_slice){b, n}, 1, text, 7), MTC_ERR_LIMIT);
    static const char *bad_abs[] = {"1", "01.2", "1..2", "3.1", "1.40", "", "1.2.",
                                    ".1.2", "1.2a", "-1.2"};
    for (size_t i = 0; i < sizeof bad_abs / sizeof bad_abs[0]; i++)
        ASSERT_EQ(mtc_der_oid_from_text(bad_abs[i], strlen(bad_abs[i]), 0, b,
                                        sizeof b, &n),
                  MTC_ERR_PARSE);
    ASSERT_EQ(mtc_der_oid_from_text("1.2.3", 5, 0, b, 1, &n), MTC_ERR_LIMIT);
}

static const test_case tests[] = {
    {"roundtrip_length_boundaries", roundtrip_length_boundaries},
    {"strictness", strictness},
    {"integers", integers},
    {"times_match_openssl", times_match_openssl},
    {"oids", oids},
};

TEST_MAIN(tests)
