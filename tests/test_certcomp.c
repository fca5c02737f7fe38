/*
 * test_certcomp.c - certificate compression (sim/certcomp.h) on real
 * Certificate messages: every chain profile and an MTC certificate, with
 * brotli and zstd, compress and decompress to the same bytes; the wire
 * length is the CompressedCertificate's (12 bytes of framing) or the
 * message's when compression would not shrink it; corrupt or mislabelled
 * input is refused.
 */
#include "mtc/chain.h"
#include "mtc/error.h"
#include "sim/certcomp.h"
#include "sim/tls.h"
#include "test.h"

/* Checks one Certificate message both ways; *wire[a] its wire lengths. */
static int roundtrip(const uint8_t *msg, size_t len, size_t wire[2], const char **why)
{
    static uint8_t z[2 * MTC_CHAIN_BUF], back[MTC_CHAIN_BUF];
    for (int a = 0; a < 2; a++) {
        int alg = CERTCOMP_BROTLI + a;
        size_t cl = 0;
        if (certcomp_compress(alg, msg + 4, len - 4, z, sizeof z, &cl) != MTC_OK)
            return *why = "compress", 0;
        if (certcomp_decompress(alg, z, cl, len - 4, back, sizeof back) != MTC_OK ||
            memcmp(back, msg + 4, len - 4) != 0)
            return *why = "decompress", 0;
        /* one byte more or less is refused: the length is part of the message */
        if (certcomp_decompress(alg, z, cl, len - 5, back, sizeof back) == MTC_OK)
            return *why = "short expectation accepted", 0;
        /* the other algorithm cannot read it */
        if (certcomp_decompress(CERTCOMP_ZSTD + CERTCOMP_BROTLI - alg, z, cl, len - 4, back,
                                sizeof back) == MTC_OK)
            return *why = "wrong algorithm accepted", 0;
        size_t w = certcomp_wire_len(alg, msg, len);
        size_t framed = certcomp_message_len(cl);
        if (framed != cl + 12 || w != (framed < len ? framed : len))
            return *why = "wire length", 0;
        wire[a] = w;
    }
    return 1;
}

TEST(chains_roundtrip)
{
    size_t n;
    const mtc_chain_profile *p = mtc_chain_profiles(&n);
    mtc_chain *c = malloc(sizeof *c);
    uint8_t *msg = malloc(MTC_CHAIN_BUF + 64);
    ASSERT_TRUE(c && msg);
    for (size_t i = 0; i < n; i++) {
        mtc_chain_opts o = {"www.example.com", 1767225600, 86400, 0, 0, 0};
        ASSERT_OK(mtc_chain_build(&p[i], &o, c));
        tls_cert_entry e[MTC_CHAIN_CERTS_MAX];
        for (size_t k = 0; k < c->ncerts; k++)
            e[k] = (tls_cert_entry){c->buf + c->off[k], c->len[k]};
        size_t len;
        ASSERT_OK(tls_certificate_encode(0xca34, e, c->ncerts, 0, msg, MTC_CHAIN_BUF + 64, &len));
        ASSERT_EQ(len, tls_certificate_len(c->len, c->ncerts, 0));
        size_t wire[2];
        const char *why = "";
        if (!roundtrip(msg, len, wire, &why))
            TEST_FAIL_("%s: %s", p[i].name, why);
        /* X.509 chains compress: names, OIDs, URLs repeat */
        ASSERT_TRUE(wire[0] < len && wire[1] < len);
        if (getenv("WEB_TEST_VERBOSE"))
            fprintf(stderr, "%-20s %5zu -> brotli %5zu (%.2f) zstd %5zu (%.2f)\n", p[i].name,
                    len, wire[0], (double)wire[0] / (double)len, wire[1],
                    (double)wire[1] / (double)len);
    }
    free(c);
    free(msg);
}

TEST(incompressible_sent_as_is)
{
    /* random bytes do not shrink: the message goes uncompressed */
    uint8_t msg[600];
    uint64_t x = 88172645463325252u;
    for (size_t i = 0; i < sizeof msg; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        msg[i] = (uint8_t)x;
    }
    ASSERT_EQ(certcomp_wire_len(CERTCOMP_BROTLI, msg, sizeof msg), sizeof msg);
    ASSERT_EQ(certcomp_wire_len(CERTCOMP_ZSTD, msg, sizeof msg), sizeof msg);
    ASSERT_EQ(certcomp_wire_len(CERTCOMP_NONE, msg, sizeof msg), sizeof msg);
    ASSERT_EQ(certcomp_wire_len(7, msg, sizeof msg), 0);
    ASSERT_EQ(certcomp_alg_by_name("brotli"), CERTCOMP_BROTLI);
    ASSERT_EQ(certcomp_alg_by_name("zlib"), 0);
    uint8_t junk[32] = {1, 2, 3}, out[64];
    ASSERT_EQ(certcomp_decompress(CERTCOMP_ZSTD, junk, sizeof junk, 10, out, sizeof out),
              MTC_ERR_PARSE);
    ASSERT_EQ(certcomp_decompress(CERTCOMP_BROTLI, junk, sizeof junk, 10, out, sizeof out),
              MTC_ERR_PARSE);
    ASSERT_EQ(certcomp_decompress(CERTCOMP_ZSTD, junk, sizeof junk, 100, out, sizeof out),
              MTC_ERR_LIMIT);
}

static const test_case tests[] = {
    {"chains_roundtrip", chains_roundtrip},
    {"incompressible_sent_as_is", incompressible_sent_as_is},
};

TEST_MAIN(tests)
