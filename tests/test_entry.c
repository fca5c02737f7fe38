/*
 * test_entry.c - log entries: encode/parse round trip, streaming leaf hash
 * equal to the hash of the encoding, extension ordering rules, size
 * limit, null entries, strict parsing, serial numbers.
 */
#include "mtc/entry.h"
#include "mtc/error.h"
#include "mtc/sig.h"
#include "mtc/taid.h"
#include "test.h"

static uint8_t issuer_buf[64];
static size_t issuer_len;
static uint8_t spki[128];
static size_t spki_len;

static void setup(void)
{
    mtc_taid ca;
    mtc_taid_from_text("32473.1", 7, &ca);
    mtc_der_writer w;
    mtc_der_writer_init(&w, issuer_buf, sizeof issuer_buf);
    mtc_taid_name_der(&w, &ca);
    issuer_len = w.len;
    uint8_t seed[32] = {1}, pk[32];
    size_t pl;
    mtc_sig_key *k;
    mtc_sig_key_from_seed(MTC_SIG_ED25519, seed, &k);
    mtc_sig_key_public(k, pk, &pl);
    mtc_sig_spki_der(MTC_SIG_ED25519, pk, pl, spki, sizeof spki, &spki_len);
    mtc_sig_key_free(k);
}

static int same(mtc_slice a, mtc_slice b)
{
    return a.len == b.len && (a.len == 0 || !memcmp(a.p, b.p, a.len));
}

TEST(roundtrip_and_streaming_hash)
{
    setup();
    mtc_entry_scratch s;
    mtc_tbs_entry e, back;
    ASSERT_OK(mtc_tbs_entry_tls_server(&e, &s, (mtc_slice){issuer_buf, issuer_len},
                                       1700000000, 1700000000 + 7 * 86400,
                                       "example.com", spki, spki_len));
    static const uint8_t ext_bytes[] = {0x00, 0x01, 0x00, 0x02, 0xaa, 0xbb,
                                        0x00, 0x07, 0x00, 0x00};
    mtc_slice exts_list[2] = {{NULL, 0}, {ext_bytes, sizeof ext_bytes}};
    for (int x = 0; x < 2; x++) {
        mtc_slice exts = exts_list[x];
        uint8_t buf[2048];
        size_t n;
        ASSERT_OK(mtc_log_entry_encode(exts, &e, buf, sizeof buf, &n));
        ASSERT_EQ(n, mtc_log_entry_len(exts, &e));
        ASSERT_EQ(n, 2 + exts.len + 2 + mtc_tbs_entry_contents_len(&e));
        mtc_hash h1, h2;
        mtc_hash_leaf(buf, n, &h1);
        ASSERT_OK(mtc_log_entry_leaf_hash(exts, &e, &h2));
        ASSERT_MEM_EQ(h1.b, h2.b, 32);
        mtc_slice pe;
        unsigned type;
        ASSERT_OK(mtc_log_entry_parse(buf, n, &pe, &type, &back));
        ASSERT_EQ(type, MTC_ENTRY_TBS_CERT);
        ASSERT_TRUE(same(pe, exts));
        ASSERT_TRUE(same(back.version, e.version));
        ASSERT_TRUE(same(back.issuer, e.issuer));
        ASSERT_TRUE(same(back.validity, e.validity));
        ASSERT_TRUE(same(back.subject, e.subject));
        ASSERT_TRUE(same(back.spki_alg, e.spki_alg));
        ASSERT_TRUE(same(back.extensions, e.extensions));
        ASSERT_EQ(back.issuer_uid.len, 0);
        ASSERT_MEM_EQ(back.spki_hash.b, e.spki_hash.b, 32);
        mtc_hash sh;
        mtc_sha256(spki, spki_len, &sh);
        ASSERT_MEM_EQ(sh.b, e.spki_hash.b, 32);
        /* the tbs data is DER: wrapped in a SEQUENCE it validates */
        uint8_t seq[2100];
        mtc_der_writer w;
        mtc_der_writer_init(&w, seq, sizeof seq);
        mtc_der_prim(&w, MTC_DER_SEQUENCE, buf + 4 + exts.len, n - 4 - exts.len);
        ASSERT_OK(mtc_der_validate(seq, w.len));
        /* every truncation fails, or parses to fewer fields */
        for (size_t l = 0; l < n; l++) {
            int rc = mtc_log_entry_parse(buf, l, &pe, &type, &back);
            if (rc == MTC_OK)
                ASSERT_TRUE(back.extensions.len == 0);
        }
        ASSERT_EQ(mtc_log_entry_encode(exts, &e, buf, n - 1, &n), MTC_ERR_LIMIT);
    }
}

TEST(extension_rules)
{
    static const uint8_t ok[] = {0, 1, 0, 0, 0, 2, 0, 1, 9};
    static const uint8_t dup[] = {0, 1, 0, 0, 0, 1, 0, 0};
    static const uint8_t desc[] = {0, 2, 0, 0, 0, 1, 0, 0};
    static const uint8_t trunc[] = {0, 1, 0, 2, 9};
    static const uint8_t partial[] = {0, 1, 0};
    ASSERT_OK(mtc_entry_exts_check((mtc_slice){ok, sizeof ok}));
    ASSERT_OK(mtc_entry_exts_check((mtc_slice){NULL, 0}));
    ASSERT_EQ(mtc_entry_exts_check((mtc_slice){dup, sizeof dup}), MTC_ERR_CERT);
    ASSERT_EQ(mtc_entry_exts_check((mtc_slice){desc, sizeof desc}), MTC_ERR_CERT);
    ASSERT_EQ(mtc_entry_exts_check((mtc_slice){trunc, sizeof trunc}), MTC_ERR_CERT);
    ASSERT_EQ(mtc_entry_exts_check((mtc_slice){partial, sizeof partial}),
              MTC_ERR_CERT);
    uint8_t buf[64];
    size_t n;
    mtc_tbs_entry e;
    memset(&e, 0, sizeof e);
    ASSERT_EQ(mtc_log_entry_encode((mtc_slice){dup, sizeof dup}, &e, buf,
                                   sizeof buf, &n),
              MTC_ERR_CERT);
    /* null entries */
    ASSERT_OK(mtc_log_entry_encode_null((mtc_slice){ok, sizeof ok}, buf,
                                        sizeof buf, &n));
    ASSERT_EQ(n, 4 + sizeof ok);
    mtc_slice pe;
    unsigned type;
    ASSERT_OK(mtc_log_entry_parse(buf, n, &pe, &type, &e));
    ASSERT_EQ(type, MTC_ENTRY_NULL);
    buf[n] = 0;
    ASSERT_EQ(mtc_log_entry_parse(buf, n + 1, &pe, &type, &e), MTC_ERR_DER_TRAILING);
    buf[n - 1] = 2; /* unknown type */
    ASSERT_EQ(mtc_log_entry_parse(buf, n, &pe, &type, &e), MTC_ERR_UNSUPPORTED);
}

TEST(size_limit)
{
    setup();
    static uint8_t big[70000];
    mtc_entry_scratch s;
    mtc_tbs_entry e;
    ASSERT_OK(mtc_tbs_entry_tls_server(&e, &s, (mtc_slice){issuer_buf, issuer_len},
                                       0, 100, "a.example", spki, spki_len));
    size_t base = mtc_log_entry_len((mtc_slice){NULL, 0}, &e);
    /* one extension of exactly the remaining size fits; one byte more not */
    size_t room = MTC_ENTRY_MAX - base - 4;
    big[0] = 0; big[1] = 5;
    big[2] = (uint8_t)(room >> 8); big[3] = (uint8_t)room;
    mtc_hash h;
    ASSERT_OK(mtc_log_entry_leaf_hash((mtc_slice){big, room + 4}, &e, &h));
    ASSERT_EQ(mtc_log_entry_len((mtc_slice){big, room + 4}, &e), MTC_ENTRY_MAX);
    room++;
    big[2] = (uint8_t)(room >> 8); big[3] = (uint8_t)room;
    ASSERT_EQ(mtc_log_entry_leaf_hash((mtc_slice){big, room + 4}, &e, &h),
              MTC_ERR_LIMIT);
    ASSERT_EQ(mtc_log_entry_len((mtc_slice){big, room + 4}, &e), 0);
}

/* Hand-made entries violating one rule each. */
TEST(strict_parse)
{
    setup();
    mtc_entry_scratch s;
    mtc_tbs_entry e, back;
    ASSERT_OK(mtc_tbs_entry_tls_server(&e, &s, (mtc_slice){issuer_buf, issuer_len},
                                       0, 100, "b.example", spki, spki_len));
    uint8_t buf[2048];
    size_t n;
    mtc_slice pe;
    unsigned type;
    /* explicit v1 */
    static const uint8_t v1[] = {0xa0, 0x03, 0x02, 0x01, 0x00};
    mtc_tbs_entry bad = e;
    bad.version = (mtc_slice){v1, sizeof v1};
    ASSERT_OK(mtc_log_entry_encode((mtc_slice){NULL, 0}, &bad, buf, sizeof buf, &n));
    ASSERT_EQ(mtc_log_entry_parse(buf, n, &pe, &type, &back), MTC_ERR_CERT);
    /* no version but extensions (v1 with extensions) */
    bad = e;
    bad.version = (mtc_slice){NULL, 0};
    ASSERT_OK(mtc_log_entry_encode((mtc_slice){NULL, 0}, &bad, buf, sizeof buf, &n));
    ASSERT_EQ(mtc_log_entry_parse(buf, n, &pe, &type, &back), MTC_ERR_CERT);
    /* v1 without extensions is fine */
    bad.extensions = (mtc_slice){NULL, 0};
    ASSERT_OK(mtc_log_entry_encode((mtc_slice){NULL, 0}, &bad, buf, sizeof buf, &n));
    ASSERT_OK(mtc_log_entry_parse(buf, n, &pe, &type, &back));
    /* duplicate extension OID */
    uint8_t ext[200];
    size_t el = e.extensions.len;
    memcpy(ext, e.extensions.p, el);
    /* [3] { SEQ { ku, eku, san } }: make eku's OID equal ku's (2.5.29.15) */
    for (size_t i = 0; i + 2 < el; i++)
        if (ext[i] == 0x55 && ext[i + 1] == 0x1d && ext[i + 2] == 0x25)
            ext[i + 2] = 0x0f;
    bad = e;
    bad.extensions = (mtc_slice){ext, el};
    ASSERT_OK(mtc_log_entry_encode((mtc_slice){NULL, 0}, &bad, buf, sizeof buf, &n));
    ASSERT_EQ(mtc_log_entry_parse(buf, n, &pe, &type, &back), MTC_ERR_CERT);
    /* trailing garbage after the fields */
    ASSERT_OK(mtc_log_entry_encode((mtc_slice){NULL, 0}, &e, buf, sizeof buf, &n));
    buf[n] = 0x05; buf[n + 1] = 0x00;
    ASSERT_EQ(mtc_log_entry_parse(buf, n + 2, &pe, &type, &back), MTC_ERR_DER_TRAILING);
    /* every single-byte change either fails or changes the parsed entry's hash */
    mtc_hash h0;
    mtc_hash_leaf(buf, n, &h0);
    for (size_t i = 0; i < n; i++) {
        buf[i] ^= 0x01;
        if (mtc_log_entry_parse(buf, n, &pe, &type, &back) == MTC_OK &&
            type == MTC_ENTRY_TBS_CERT) {
            mtc_hash h1;
            ASSERT_OK(mtc_log_entry_leaf_hash(pe, &back, &h1));
            ASSERT_TRUE(memcmp(h0.b, h1.b, 32) != 0);
        }
        buf[i] ^= 0x01;
    }
}

TEST(serials)
{
    ASSERT_EQ_U64(mtc_serial(1, 0), UINT64_C(1) << 48);
    ASSERT_EQ_U64(mtc_serial(65535, (UINT64_C(1) << 48) - 1), UINT64_MAX);
    ASSERT_EQ_U64(mtc_serial(2, 5), (UINT64_C(2) << 48) | 5);
}

static const test_case tests[] = {
    {"roundtrip_and_streaming_hash", roundtrip_and_streaming_hash},
    {"extension_rules", extension_rules},
    {"size_limit", size_limit},
    {"strict_parse", strict_parse},
    {"serials", serials},
};

TEST_MAIN(tests)
