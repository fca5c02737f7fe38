/*
 * test_tls.c - TLS 1.3 encodings of sim/tls.h: known bytes from the
 * drafts, *_len == encoder length, parse(encode(x)) == x, every
 * truncation and trailing byte rejected, real certificates and signatures
 * in the messages, and the round-trip estimators at their boundaries.
 */
#include "test.h"

#include "mtc/baseline.h"
#include "mtc/error.h"
#include "mtc/sig.h"
#include "lib/mtc_fixture.h"
#include "sim/status.h"
#include "sim/tls.h"

#define CP TLS_EXT_TRUST_ANCHORS_EXPERIMENTAL

static mtc_taid taid(const char *s)
{
    mtc_taid t;
    memset(&t, 0, sizeof t);
    mtc_taid_from_text(s, strlen(s), &t);
    return t;
}

TEST(ta_ext_known_bytes)
{
    /* draft-ietf-tls-trust-anchor-ids section 4: 32473.1 is 81 fd 59 01. */
    mtc_taid id = taid("32473.1");
    uint8_t out[64];
    size_t len;
    ASSERT_OK(tls_ext_trust_anchors_encode(CP, &id, 1, out, sizeof out, &len));
    const uint8_t want[] = {0xca, 0x34, 0x00, 0x07, 0x00, 0x05,
                            0x04, 0x81, 0xfd, 0x59, 0x01};
    ASSERT_EQ(len, sizeof want);
    ASSERT_MEM_EQ(out, want, sizeof want);
    ASSERT_EQ(tls_ext_trust_anchors_len(&id, 1), len);
    /* The MTC draft's example landmark group 32473.1.2.8.42. */
    mtc_taid g;
    ASSERT_OK(mtc_taid_landmark_group_id(&id, 8, 42, &g));
    char text[64];
    ASSERT_OK(mtc_taid_to_text(&g, text, sizeof text));
    ASSERT_STR_EQ(text, "32473.1.2.8.42");
    ASSERT_OK(tls_ext_trust_anchors_encode(CP, &g, 1, out, sizeof out, &len));
    ASSERT_EQ(len, 4 + 2 + 1 + 7);
    /* Empty list: the extension is 6 bytes. */
    ASSERT_OK(tls_ext_trust_anchors_encode(CP, NULL, 0, out, sizeof out, &len));
    ASSERT_EQ(len, 6);
}

TEST(ta_list_roundtrip_and_mutations)
{
    mtc_taid ids[5];
    const char *txt[5] = {"32473.1", "32473.1.2.1.169", "44363.47.1.2.1.100000",
                          "1", "32473.1.1.65535.4294967296"};
    for (int i = 0; i < 5; i++)
        ids[i] = taid(txt[i]);
    for (size_t n = 0; n <= 5; n++) {
        uint8_t out[256];
        size_t len;
        ASSERT_OK(tls_ext_trust_anchors_encode(CP, ids, n, out, sizeof out, &len));
        ASSERT_EQ(len, tls_ext_trust_anchors_len(ids, n));
        ASSERT_EQ(tls_ta_list_len(ids, n) + 4, len);
        tls_ta_list l;
        ASSERT_OK(tls_ta_list_parse(out + 4, len - 4, 0, &l));
        ASSERT_EQ(l.count, n);
        size_t pos = 0;
        mtc_taid got;
        for (size_t i = 0; i < n; i++) {
            ASSERT_TRUE(tls_ta_list_next(&l, &pos, &got));
            ASSERT_TRUE(mtc_taid_equal(&got, &ids[i]));
        }
        ASSERT_FALSE(tls_ta_list_next(&l, &pos, &got));
        ASSERT_EQ(tls_ta_list_parse(out + 4, len - 4, 1, &l) == MTC_OK, n > 0);
        /* Every truncation and one trailing byte are rejected. */
        for (size_t k = 0; k < len - 4; k++)
            ASSERT_EQ(tls_ta_list_parse(out + 4, k, 0, &l), SIM_ERR_TLS);
        out[len] = 0;
        ASSERT_EQ(tls_ta_list_parse(out + 4, len - 4 + 1, 0, &l), SIM_ERR_TLS);
        /* Short buffers. */
        for (size_t k = 0; k < len; k++)
            ASSERT_EQ(tls_ext_trust_anchors_encode(CP, ids, n, out, k, &len),
                      MTC_ERR_LIMIT);
    }
    /* An empty ID and a non-minimal arc are rejected. */
    const uint8_t empty_id[] = {0x00, 0x02, 0x01, 0x05 - 5};
    tls_ta_list l;
    const uint8_t zero_len[] = {0x00, 0x01, 0x00};
    ASSERT_EQ(tls_ta_list_parse(zero_len, sizeof zero_len, 0, &l), SIM_ERR_TLS);
    const uint8_t nonmin[] = {0x00, 0x03, 0x02, 0x80, 0x01};
    ASSERT_EQ(tls_ta_list_parse(nonmin, sizeof nonmin, 0, &l), SIM_ERR_TLS);
    (void)empty_id;
    mtc_taid unset;
    memset(&unset, 0, sizeof unset);
    uint8_t out[16];
    size_t len;
    ASSERT_EQ(tls_ext_trust_anchors_encode(CP, &unset, 1, out, sizeof out, &len),
              MTC_ERR_ARG);
}

TEST(certificate_message_real_certs)
{
    fx f;
    ASSERT_OK(fx_init(&f, MTC_SIG_ED25519, 1, 64, 8, 2));
    static uint8_t sa[8192], lr[8192], msg[40000];
    size_t sa_len, lr_len, len;
    ASSERT_OK(fx_cert(&f, 3, 0, sa, sizeof sa, &sa_len));
    ASSERT_OK(fx_cert(&f, 3, 1, lr, sizeof lr, &lr_len));
    ASSERT_TRUE(lr_len < sa_len);
    for (int ext = 0; ext <= 1; ext++) {
        tls_cert_entry e = {lr, lr_len};
        ASSERT_OK(tls_certificate_encode(CP, &e, 1, ext, msg, sizeof msg, &len));
        ASSERT_EQ(len, tls_certificate_len(&lr_len, 1, ext));
        ASSERT_EQ(len, 4 + 1 + 3 + 3 + lr_len + 2 + (ext ? 4 : 0));
        tls_certificate c;
        ASSERT_OK(tls_certificate_parse(CP, msg, len, &c));
        ASSERT_EQ(c.n, 1);
        ASSERT_EQ(c.first_has_ta_ext, ext);
        ASSERT_EQ(c.certs[0].len, lr_len);
        ASSERT_MEM_EQ(c.certs[0].der, lr, lr_len);
        /* every truncation refused, each in a buffer of exactly its size
         * so that a read past it is a sanitizer report */
        for (size_t k = 0; k < len; k++) {
            uint8_t *cut = malloc(k ? k : 1);
            ASSERT_TRUE(cut != NULL);
            memcpy(cut, msg, k);
            int prc = tls_certificate_parse(CP, cut, k, &c);
            free(cut);
            ASSERT_NE(prc, MTC_OK);
        }
        msg[len] = 0;
        ASSERT_NE(tls_certificate_parse(CP, msg, len + 1, &c), MTC_OK);
    }
    /* The baseline chain: two entries, lengths add up. */
    static mtc_baseline b;
    ASSERT_OK(mtc_baseline_build(MTC_SIG_ECDSA_P256, "www.example.com", FX_T0,
                                 7 * 86400, &b));
    tls_cert_entry chain[2] = {{b.leaf, b.leaf_len},
                               {b.intermediate, b.intermediate_len}};
    size_t lens[2] = {b.leaf_len, b.intermediate_len};
    ASSERT_OK(tls_certificate_encode(CP, chain, 2, 0, msg, sizeof msg, &len));
    ASSERT_EQ(len, tls_certificate_len(lens, 2, 0));
    tls_certificate c;
    ASSERT_OK(tls_certificate_parse(CP, msg, len, &c));
    ASSERT_EQ(c.n, 2);
    ASSERT_MEM_EQ(c.certs[1].der, b.intermediate, b.intermediate_len);
    /* trust_anchors in the second entry, or non-empty, is rejected. */
    tls_cert_entry two[2] = {{lr, lr_len}, {sa, sa_len}};
    ASSERT_OK(tls_certificate_encode(CP, two, 2, 1, msg, sizeof msg, &len));
    ASSERT_OK(tls_certificate_parse(CP, msg, len, &c));
    /* Move the extension: rebuild with ext in entry 2 by hand. */
    size_t off1 = 4 + 1 + 3 + 3 + lr_len; /* extensions length of entry 1 */
    ASSERT_EQ(msg[off1], 0);
    ASSERT_EQ(msg[off1 + 1], 4);
    msg[off1 + 4] = 0;
    msg[off1 + 5] = 1; /* claim 1 byte of data: now inconsistent */
    ASSERT_EQ(tls_certificate_parse(CP, msg, len, &c), SIM_ERR_TLS);
    fx_free(&f);
}

TEST(certificate_verify_real_signatures)
{
    mtc_sig_alg algs[] = {MTC_SIG_ED25519, MTC_SIG_ECDSA_P256, MTC_SIG_MLDSA44};
    for (size_t i = 0; i < 3; i++) {
        uint8_t seed[32] = {1, 2, 3};
        mtc_sig_key *k;
        ASSERT_OK(mtc_sig_key_from_seed(algs[i], seed, &k));
        /* RFC 8446 4.4.3 content: 64 spaces, context, 0, transcript hash. */
        uint8_t content[64 + 33 + 1 + 32];
        memset(content, 0x20, 64);
        memcpy(content + 64, "TLS 1.3, server CertificateVerify", 33);
        content[97] = 0;
        memset(content + 98, 0xab, 32);
        static uint8_t sig[MTC_SIG_MAX], msg[MTC_SIG_MAX + 16];
        size_t sl, len;
        ASSERT_OK(mtc_sig_sign(k, content, sizeof content, sig, &sl));
        uint16_t scheme = tls_sig_scheme(algs[i]);
        ASSERT_NE(scheme, 0);
        ASSERT_OK(tls_certificate_verify_encode(scheme, sig, sl, msg, sizeof msg, &len));
        ASSERT_EQ(len, tls_certificate_verify_len(sl));
        uint16_t s2;
        const uint8_t *sg;
        size_t sgl;
        ASSERT_OK(tls_certificate_verify_parse(msg, len, &s2, &sg, &sgl));
        ASSERT_EQ(s2, scheme);
        ASSERT_EQ(sgl, sl);
        uint8_t pk[MTC_SIG_PK_MAX];
        size_t pkl;
        ASSERT_OK(mtc_sig_key_public(k, pk, &pkl));
        ASSERT_OK(mtc_sig_verify(algs[i], pk, pkl, content, sizeof content, sg, sgl));
        for (size_t c = 0; c < len; c += (len > 200 ? 97 : 1))
            ASSERT_NE(tls_certificate_verify_parse(msg, c, &s2, &sg, &sgl), MTC_OK);
        if (algs[i] == MTC_SIG_MLDSA44)
            ASSERT_EQ(len, 4 + 2 + 2 + 2420);
        if (algs[i] == MTC_SIG_ED25519)
            ASSERT_EQ(len, 4 + 2 + 2 + 64);
        mtc_sig_key_free(k);
    }
    ASSERT_EQ(tls_sig_scheme(MTC_SIG_NONE), 0);
}

TEST(server_hello_and_flight)
{
    uint16_t groups[] = {TLS_GROUP_X25519, TLS_GROUP_SECP256R1, TLS_GROUP_X25519MLKEM768};
    for (size_t i = 0; i < 3; i++) {
        uint8_t out[2048];
        size_t len;
        ASSERT_OK(tls_server_hello_encode(groups[i], out, sizeof out, &len));
        ASSERT_EQ(len, tls_server_hello_len(groups[i]));
        ASSERT_EQ(out[0], TLS_HS_SERVER_HELLO);
        ASSERT_EQ(((size_t)out[1] << 16 | (size_t)out[2] << 8 | out[3]), len - 4);
        for (size_t k = 0; k < len; k++)
            ASSERT_EQ(tls_server_hello_encode(groups[i], out, k, &len), MTC_ERR_LIMIT);
    }
    /* A well-known size: ServerHello with X25519 and a 32-byte session ID
     * echo is 122 bytes including the handshake header. */
    ASSERT_EQ(tls_server_hello_len(TLS_GROUP_X25519), 122);
    ASSERT_EQ(tls_server_hello_len(0x9999), 0);
    ASSERT_EQ(tls_encrypted_extensions_len(0), 6);
    ASSERT_EQ(tls_finished_len(32), 36);

    tls_transport t;
    tls_transport_defaults(&t);
    /* ServerHello record 5+122, CCS 6, one encrypted record of 100 + 22. */
    ASSERT_EQ(tls_tcp_flight_bytes(&t, 122, 100), 127 + 6 + 122);
    ASSERT_EQ(tls_tcp_flight_bytes(&t, 0, TLS_RECORD_MAX), 6 + TLS_RECORD_MAX + 22);
    ASSERT_EQ(tls_tcp_flight_bytes(&t, 0, TLS_RECORD_MAX + 1),
              6 + TLS_RECORD_MAX + 1 + 44);
    t.middlebox_compat = 0;
    ASSERT_EQ(tls_tcp_flight_bytes(&t, 0, 0), 0);
}

TEST(tcp_round_trips)
{
    tls_transport t;
    tls_transport_defaults(&t);
    /* IW = 14600 bytes; windows 10, 20, 40 segments. */
    ASSERT_EQ(tls_extra_rtt_tcp(&t, 0), 0);
    ASSERT_EQ(tls_extra_rtt_tcp(&t, 14600), 0);
    ASSERT_EQ(tls_extra_rtt_tcp(&t, 14601), 1);
    ASSERT_EQ(tls_extra_rtt_tcp(&t, 3 * 14600), 1);
    ASSERT_EQ(tls_extra_rtt_tcp(&t, 3 * 14600 + 1), 2);
    ASSERT_EQ(tls_extra_rtt_tcp(&t, 7 * 14600), 2);
    ASSERT_EQ(tls_extra_rtt_tcp(&t, 7 * 14600 + 1), 3);
    /* Parameters, not constants: IW 4 segments of 1000 bytes. */
    t.tcp_mss = 1000;
    t.tcp_iw_segments = 4;
    ASSERT_EQ(tls_extra_rtt_tcp(&t, 4000), 0);
    ASSERT_EQ(tls_extra_rtt_tcp(&t, 4001), 1);
    ASSERT_EQ(tls_extra_rtt_tcp(&t, 12000), 1);
    ASSERT_EQ(tls_extra_rtt_tcp(&t, 12001), 2);
    /* Monotone in bytes. */
    unsigned prev = 0;
    for (size_t b = 0; b < 200000; b += 37) {
        unsigned r = tls_extra_rtt_tcp(&t, b);
        ASSERT_TRUE(r >= prev);
        prev = r;
    }
}

TEST(quic_round_trips_and_packets)
{
    tls_transport t;
    tls_transport_defaults(&t);
    /* Budget before validation 3 x 1200 = 3600 bytes; then the window
     * (12000 initial + 3600 acknowledged) carries 15600 more. */
    ASSERT_EQ(tls_extra_rtt_quic(&t, 3600), 0);
    ASSERT_EQ(tls_extra_rtt_quic(&t, 3601), 1);
    ASSERT_EQ(tls_extra_rtt_quic(&t, 3600 + 15600), 1);
    ASSERT_EQ(tls_extra_rtt_quic(&t, 3600 + 15600 + 1), 2);
    t.quic_client_initial = 1350; /* Firefox's first Initial */
    ASSERT_EQ(tls_extra_rtt_quic(&t, 4050), 0);
    ASSERT_EQ(tls_extra_rtt_quic(&t, 4051), 1);
    tls_transport_defaults(&t);
    /* A small flight is one padded datagram. */
    size_t dg;
    ASSERT_EQ(tls_quic_flight_bytes(&t, 90, 0, &dg), 1200);
    ASSERT_EQ(dg, 1);
    /* Larger flights: every byte plus per-packet overhead, datagrams
     * never above the maximum, monotone. */
    size_t prev = 0;
    for (size_t hs = 0; hs < 30000; hs += 101) {
        size_t b = tls_quic_flight_bytes(&t, 122, hs, &dg);
        ASSERT_TRUE(b >= 122 + hs);
        ASSERT_TRUE(b <= dg * t.quic_max_datagram);
        ASSERT_TRUE(b >= prev);
        prev = b;
    }
}

/* Walks a ClientHello: returns the extension types in order (n of them)
 * and checks every length field against the bytes. */
static int ch_walk(const uint8_t *p, size_t len, uint16_t *types, size_t *n,
                   size_t *share_len)
{
    if (len < 4 || p[0] != 1 || ((size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3]) != len - 4)
        return -1;
    size_t i = 4 + 2 + 32;
    i += 1 + p[i];                                  /* session id */
    i += 2 + ((size_t)p[i] << 8 | p[i + 1]);        /* cipher suites */
    i += 1 + p[i];                                  /* compression */
    size_t el = (size_t)p[i] << 8 | p[i + 1];
    i += 2;
    if (i + el != len)
        return -1;
    *n = 0;
    while (i < len) {
        uint16_t ty = (uint16_t)(p[i] << 8 | p[i + 1]);
        size_t l = (size_t)p[i + 2] << 8 | p[i + 3];
        if (ty == TLS_EXT_KEY_SHARE)
            *share_len = (size_t)p[i + 8] << 8 | p[i + 9];
        types[(*n)++] = ty;
        i += 4 + l;
    }
    return i == len ? 0 : -1;
}

/* The ClientHello: encoder == length, every length field consistent, one
 * byte more per byte of name or caller extension, the real key share
 * sizes (X25519MLKEM768: 1,216 bytes), truncation rejected; and what it
 * means over QUIC: a post-quantum ClientHello needs two Initial
 * datagrams, a classical one fits one. */
TEST(client_hello_and_initial_datagrams)
{
    ASSERT_EQ(tls_group_client_share_len(TLS_GROUP_X25519MLKEM768), 1216);
    ASSERT_EQ(tls_group_client_share_len(TLS_GROUP_X25519), 32);
    ASSERT_EQ(tls_group_server_share_len(TLS_GROUP_X25519MLKEM768), 1120);
    ASSERT_EQ(tls_group_client_share_len(0x9999), 0);
    static uint8_t out[4096];
    uint8_t ta[64];
    size_t tal;
    mtc_taid id = taid("32473.1.2.1.169");
    ASSERT_OK(tls_ext_trust_anchors_encode(CP, &id, 1, ta, sizeof ta, &tal));
    const uint16_t groups[] = {TLS_GROUP_X25519, TLS_GROUP_SECP256R1, TLS_GROUP_X25519MLKEM768};
    for (int quic = 0; quic <= 1; quic++)
        for (size_t gi = 0; gi < 3; gi++)
            for (size_t extra = 0; extra <= 100; extra += 100) {
                tls_client_hello ch = {groups[gi], "s1.example.com", quic, 8, extra};
                size_t len;
                ASSERT_OK(tls_client_hello_encode(&ch, ta, tal, out, sizeof out, &len));
                ASSERT_EQ(len, tls_client_hello_len(&ch, tal));
                uint16_t types[20];
                size_t n = 0, share = 0;
                ASSERT_EQ(ch_walk(out, len, types, &n, &share), 0);
                ASSERT_EQ(share, tls_group_client_share_len(groups[gi]));
                ASSERT_EQ(n, (size_t)(8 + quic + (extra > 0)));
                ASSERT_EQ(types[0], 0);                        /* server_name */
                ASSERT_EQ(types[7 + quic], CP);                /* trust_anchors */
                for (size_t k = 0; k < len; k++)
                    ASSERT_EQ(tls_client_hello_encode(&ch, ta, tal, out, k, &len),
                              MTC_ERR_LIMIT);
                /* linear in the caller's extensions and the name */
                ASSERT_EQ(tls_client_hello_len(&ch, 0) + tal, tls_client_hello_len(&ch, tal));
                tls_client_hello c2 = ch;
                c2.server_name = "s100000.example.com";
                ASSERT_EQ(tls_client_hello_len(&c2, 0), tls_client_hello_len(&ch, 0) + 5);
                /* over QUIC no legacy session ID, over TCP 32 bytes */
                ASSERT_EQ(out[4 + 2 + 32], quic ? 0 : 32);
            }
    tls_client_hello bad = {TLS_GROUP_X25519, "a", 0, 0, 3};
    size_t len;
    ASSERT_EQ(tls_client_hello_encode(&bad, NULL, 0, out, sizeof out, &len), MTC_ERR_ARG);
    bad.extra = 0;
    bad.group = 0x9999;
    ASSERT_EQ(tls_client_hello_len(&bad, 0), 0);

    tls_transport t;
    tls_transport_defaults(&t);
    t.quic_client_initial = 1250; /* Chromium */
    /* One Initial packet: 1+4+1+8+1+8 header, token length 1, length 2,
     * packet number 2, CRYPTO frame 1 + offset 1 + length 2, tag 16: 48
     * bytes, so 1,202 bytes of ClientHello fit one 1,250-byte datagram. */
    ASSERT_EQ(tls_quic_client_datagrams(&t, 100), 1);
    ASSERT_EQ(tls_quic_client_datagrams(&t, 1202), 1);
    ASSERT_EQ(tls_quic_client_datagrams(&t, 1203), 2);
    ASSERT_EQ(tls_quic_client_datagrams(&t, 0), 1);
    tls_client_hello pq = {TLS_GROUP_X25519MLKEM768, "s1.example.com", 1, 8, 0};
    tls_client_hello cl = {TLS_GROUP_X25519, "s1.example.com", 1, 8, 0};
    ASSERT_EQ(tls_quic_client_datagrams(&t, tls_client_hello_len(&pq, tal)), 2);
    ASSERT_EQ(tls_quic_client_datagrams(&t, tls_client_hello_len(&cl, tal)), 1);
    /* The server's budget before validation is 3x what it received. */
    ASSERT_EQ(tls_extra_rtt_quic_rx(&t, 2500, 7500), 0);
    ASSERT_EQ(tls_extra_rtt_quic_rx(&t, 2500, 7501), 1);
    ASSERT_EQ(tls_extra_rtt_quic_rx(&t, 1250, 3751), 1);
    ASSERT_EQ(tls_extra_rtt_quic(&t, 3750), 0);
    /* ServerHello over QUIC echoes no session ID. */
    ASSERT_EQ(tls_server_hello_len_sid(TLS_GROUP_X25519, 0) + 32,
              tls_server_hello_len(TLS_GROUP_X25519));
    size_t shl;
    ASSERT_OK(tls_server_hello_encode_sid(TLS_GROUP_X25519MLKEM768, 0, out, sizeof out, &shl));
    ASSERT_EQ(shl, tls_server_hello_len_sid(TLS_GROUP_X25519MLKEM768, 0));
    ASSERT_EQ(tls_server_hello_len_sid(TLS_GROUP_X25519, 33), 0);
}

/* The simulator tables each cohort's round trips as the flight sizes
 * where each step begins (sim/web/web_flight.c), which is exact only if
 * round trips never decrease as a flight grows: checked byte by byte for
 * the ServerHellos of every key share, both session-ID forms, several
 * Initial sizes and client datagram counts. */
TEST(round_trips_monotone_in_flight_size)
{
    const uint16_t groups[] = {TLS_GROUP_X25519, TLS_GROUP_X25519MLKEM768};
    const size_t initials[] = {1200, 1250, 1350};
    for (size_t g = 0; g < 2; g++)
        for (size_t i = 0; i < 3; i++) {
            tls_transport t;
            tls_transport_defaults(&t);
            t.quic_client_initial = initials[i];
            size_t sh_q = tls_server_hello_len_sid(groups[g], 0);
            size_t sh_t = tls_server_hello_len_sid(groups[g], 32);
            unsigned pt = 0, pq[3] = {0, 0, 0};
            size_t pb = 0;
            for (size_t enc = 0; enc < 40000; enc++) {
                unsigned rt = tls_extra_rtt_tcp(&t, tls_tcp_flight_bytes(&t, sh_t, enc));
                ASSERT_TRUE(rt >= pt);
                pt = rt;
                size_t b = tls_quic_flight_bytes(&t, sh_q, enc, NULL);
                ASSERT_TRUE(b >= pb);
                pb = b;
                for (size_t d = 1; d <= 3; d++) {
                    unsigned rq = tls_extra_rtt_quic_rx(&t, d * initials[i], b);
                    ASSERT_TRUE(rq >= pq[d - 1]);
                    pq[d - 1] = rq;
                }
            }
            ASSERT_TRUE(pt >= 1 && pq[0] >= 1);
            size_t pd = 0;
            for (size_t ch = 0; ch < 6000; ch++) {
                size_t d = tls_quic_client_datagrams(&t, ch);
                ASSERT_TRUE(d >= pd);
                pd = d;
            }
            ASSERT_TRUE(pd >= 5);
        }
}

static const test_case tests[] = {
    {"round_trips_monotone_in_flight_size", round_trips_monotone_in_flight_size},
    {"client_hello_and_initial_datagrams", client_hello_and_initial_datagrams},
    {"ta_ext_known_bytes", ta_ext_known_bytes},
    {"ta_list_roundtrip_and_mutations", ta_list_roundtrip_and_mutations},
    {"certificate_message_real_certs", certificate_message_real_certs},
    {"certificate_verify_real_signatures", certificate_verify_real_signatures},
    {"server_hello_and_flight", server_hello_and_flight},
    {"tcp_round_trips", tcp_round_trips},
    {"quic_round_trips_and_packets", quic_round_trips_and_packets},
};
TEST_MAIN(tests)
