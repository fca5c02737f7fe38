/*
 * test_svcb.c - the tls-trust-anchors SvcParamValue and the HTTPS
 * record's DNS response (sim/svcb.h): the draft's own example octets, a
 * real response's measured size, round trips through the parsers, and
 * mutations that the parsers must refuse or read back canonically.
 */
#include "test.h"

#include "mtc/error.h"
#include "sim/svcb.h"
#include "sim/tls.h"

static mtc_taid id_of(const char *text)
{
    mtc_taid t;
    memset(&t, 0, sizeof t);
    mtc_taid_from_text(text, strlen(text), &t);
    return t;
}

/* draft-ietf-tls-trust-anchor-ids-04, "DNS Service Parameter": three
 * paths issued by 32473.1, 32473.2.1 and 32473.2.2 give these 17 octets. */
TEST(draft_example_octets)
{
    static const uint8_t want[17] = {0x04, 0x81, 0xfd, 0x59, 0x01, 0x05, 0x81, 0xfd, 0x59,
                                     0x02, 0x01, 0x05, 0x81, 0xfd, 0x59, 0x02, 0x02};
    mtc_taid ids[3] = {id_of("32473.1"), id_of("32473.2.1"), id_of("32473.2.2")};
    uint8_t buf[64];
    size_t len = 0;
    ASSERT_OK(svcb_ta_value_encode(ids, 3, buf, sizeof buf, &len));
    ASSERT_EQ(len, 17);
    ASSERT_EQ(svcb_ta_value_len(ids, 3), 17);
    ASSERT_MEM_EQ(buf, want, 17);
    svcb_ta_value v;
    ASSERT_OK(svcb_ta_value_parse(buf, len, &v));
    ASSERT_EQ(v.count, 3);
    size_t pos = 0, k = 0;
    mtc_taid t;
    while (svcb_ta_value_next(&v, &pos, &t)) {
        ASSERT_TRUE(k < 3 && mtc_taid_equal(&t, &ids[k]));
        k++;
    }
    ASSERT_EQ(k, 3);
    /* short buffer, no IDs, an unset ID */
    ASSERT_EQ(svcb_ta_value_encode(ids, 3, buf, 16, &len), MTC_ERR_LIMIT);
    ASSERT_EQ(svcb_ta_value_encode(ids, 0, buf, sizeof buf, &len), MTC_ERR_ARG);
    mtc_taid unset;
    memset(&unset, 0, sizeof unset);
    ASSERT_EQ(svcb_ta_value_encode(&unset, 1, buf, sizeof buf, &len), MTC_ERR_ARG);
}

/* Every single-byte change and every truncation of the example either
 * fails to parse or parses to a list that re-encodes to the same bytes
 * (the encoding is canonical); the known-bad cases fail. */
TEST(value_mutations)
{
    mtc_taid ids[3] = {id_of("32473.1"), id_of("32473.2.1"), id_of("32473.2.2")};
    uint8_t good[64], m[64], re[64];
    size_t len = 0, rl = 0;
    ASSERT_OK(svcb_ta_value_encode(ids, 3, good, sizeof good, &len));
    size_t refused = 0;
    for (size_t i = 0; i < len; i++)
        for (int x = 1; x < 256; x <<= 1) {
            memcpy(m, good, len);
            m[i] ^= (uint8_t)x;
            svcb_ta_value v;
            if (svcb_ta_value_parse(m, len, &v) != MTC_OK) {
                refused++;
                continue;
            }
            mtc_taid got[64];
            size_t pos = 0, n = 0;
            while (n < 64 && svcb_ta_value_next(&v, &pos, &got[n]))
                n++;
            ASSERT_EQ(n, v.count);
            ASSERT_OK(svcb_ta_value_encode(got, n, re, sizeof re, &rl));
            ASSERT_EQ(rl, len);
            ASSERT_MEM_EQ(re, m, len);
        }
    ASSERT_TRUE(refused > 0);
    svcb_ta_value v;
    for (size_t cut = 1; cut < len; cut++)
        if (cut != 5 && cut != 11) /* whole pairs end at 5 and 11 */
            ASSERT_EQ(svcb_ta_value_parse(good, cut, &v), SIM_ERR_TLS);
    ASSERT_OK(svcb_ta_value_parse(good, 5, &v));
    ASSERT_EQ(v.count, 1);
    ASSERT_EQ(svcb_ta_value_parse(good, 0, &v), SIM_ERR_TLS); /* empty list */
    static const uint8_t zero_len[] = {0x00};
    ASSERT_EQ(svcb_ta_value_parse(zero_len, 1, &v), SIM_ERR_TLS);
    static const uint8_t nonminimal[] = {0x02, 0x80, 0x01}; /* leading 0x80 */
    ASSERT_EQ(svcb_ta_value_parse(nonminimal, 3, &v), SIM_ERR_TLS);
    static const uint8_t unterminated[] = {0x02, 0x81, 0x81};
    ASSERT_EQ(svcb_ta_value_parse(unterminated, 3, &v), SIM_ERR_TLS);
}

/* A real HTTPS response measured with dig (docs/sources.md
 * [https-rr-size]): "ifconfig.io. 300 IN HTTPS 1 . alpn="h3,h3-29,h2"
 * ipv4hint=(2 addresses) ipv6hint=(2 addresses)" with an EDNS(0) OPT
 * record, 119 bytes received. The same content encodes to 119 bytes. */
TEST(response_matches_measured_size)
{
    static const char *const alpn[] = {"h3", "h3-29", "h2"};
    svcb_https_response r = {"ifconfig.io", 300, alpn, 3, 2, 2,
                             SVCB_KEY_TRUST_ANCHORS_DEFAULT, NULL, 0, 1};
    uint8_t buf[512];
    size_t len = 0;
    ASSERT_OK(svcb_https_response_encode(&r, buf, sizeof buf, &len));
    ASSERT_EQ(len, 119);
    ASSERT_EQ(svcb_https_response_len(&r), 119);
    const uint8_t *v = NULL;
    size_t vl = 0;
    int found = -1;
    ASSERT_OK(svcb_https_response_find(buf, len, SVCB_KEY_TRUST_ANCHORS_DEFAULT, &v, &vl,
                                       &found));
    ASSERT_EQ(found, 0);
    ASSERT_OK(svcb_https_response_find(buf, len, SVCB_KEY_ALPN, &v, &vl, &found));
    ASSERT_EQ(found, 1);
    ASSERT_EQ(vl, 12);
}

/* The parameter adds exactly 4 + |value| bytes, and comes back whole. */
TEST(response_round_trip_with_trust_anchors)
{
    static const char *const alpn[] = {"h3", "h2"};
    mtc_taid ids[2] = {id_of("32473.1.1.1.200"), id_of("32473.1")};
    uint8_t val[64], buf[512];
    size_t vl = 0, len = 0, base = 0;
    ASSERT_OK(svcb_ta_value_encode(ids, 2, val, sizeof val, &vl));
    svcb_https_response r = {"s12.example.com", 300, alpn, 2, 2, 2,
                             SVCB_KEY_TRUST_ANCHORS_DEFAULT, NULL, 0, 1};
    ASSERT_OK(svcb_https_response_encode(&r, buf, sizeof buf, &base));
    r.ta_value = val;
    r.ta_len = vl;
    ASSERT_OK(svcb_https_response_encode(&r, buf, sizeof buf, &len));
    ASSERT_EQ(len, base + 4 + vl);
    ASSERT_EQ(svcb_https_response_len(&r), len);
    const uint8_t *got = NULL;
    size_t gl = 0;
    int found = 0;
    ASSERT_OK(svcb_https_response_find(buf, len, SVCB_KEY_TRUST_ANCHORS_DEFAULT, &got, &gl,
                                       &found));
    ASSERT_EQ(found, 1);
    ASSERT_EQ(gl, vl);
    ASSERT_MEM_EQ(got, val, vl);
    /* every truncation is refused, each in a buffer of exactly its size so
     * that a read past it is a sanitizer report; a trailing byte too */
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *p = malloc(cut ? cut : 1);
        ASSERT_TRUE(p != NULL);
        memcpy(p, buf, cut);
        int frc = svcb_https_response_find(p, cut, 1, &got, &gl, &found);
        free(p);
        ASSERT_EQ(frc, SIM_ERR_TLS);
    }
    buf[len] = 0;
    ASSERT_EQ(svcb_https_response_find(buf, len + 1, 1, &got, &gl, &found), SIM_ERR_TLS);
    /* keys out of order: the parameter's key below ipv6hint's */
    r.ta_key = 5;
    ASSERT_EQ(svcb_https_response_encode(&r, buf, sizeof buf, &len), MTC_ERR_ARG);
    /* made by hand: swap the last key for a smaller one */
    r.ta_key = SVCB_KEY_TRUST_ANCHORS_DEFAULT;
    ASSERT_OK(svcb_https_response_encode(&r, buf, sizeof buf, &len));
    size_t kpos = len - 11 - vl - 4;
    ASSERT_EQ(buf[kpos] << 8 | buf[kpos + 1], SVCB_KEY_TRUST_ANCHORS_DEFAULT);
    buf[kpos] = 0;
    buf[kpos + 1] = 6; /* = ipv6hint's key: not increasing */
    ASSERT_EQ(svcb_https_response_find(buf, len, 1, &got, &gl, &found), SIM_ERR_TLS);
    /* bad names */
    r.name = "a..b";
    ASSERT_EQ(svcb_https_response_encode(&r, buf, sizeof buf, &len), MTC_ERR_ARG);
    r.name = "";
    ASSERT_EQ(svcb_https_response_encode(&r, buf, sizeof buf, &len), MTC_ERR_ARG);
}

static const test_case tests[] = {
    {"draft_example_octets", draft_example_octets},
    {"value_mutations", value_mutations},
    {"response_matches_measured_size", response_matches_measured_size},
    {"response_round_trip_with_trust_anchors", response_round_trip_with_trust_anchors},
};
TEST_MAIN(tests)
