/*
 * test_web_latency.c - handshake completion time (sim/web_latency.h):
 * the loss-free closed form, retransmission timeouts, QUIC's
 * amplification limit, resumption and the retry's second handshake.
 */
#include <math.h>

#include <gsl/gsl_rng.h>

#include "sim/tls.h"
#include "sim/web_latency.h"
#include "test.h"

static tls_transport transport(void)
{
    tls_transport t;
    tls_transport_defaults(&t);
    return t;
}

static double ser_ms(size_t bytes, double bps)
{
    return 1000.0 * 8.0 * (double)bytes / bps;
}

TEST(rounds_match_tls_extra_rtt)
{
    tls_transport t = transport();
    for (size_t b = 1; b < 200000; b += 977) {
        ASSERT_EQ(web_latency_server_rounds(WEB_LAT_TCP_TLS13, &t, 0, b),
                  tls_extra_rtt_tcp(&t, b) + 1);
        ASSERT_EQ(web_latency_server_rounds(WEB_LAT_QUIC, &t, 1200, b),
                  tls_extra_rtt_quic_rx(&t, 1200, b) + 1);
        ASSERT_EQ(web_latency_server_rounds(WEB_LAT_QUIC, &t, 2400, b),
                  tls_extra_rtt_quic_rx(&t, 2400, b) + 1);
    }
}

TEST(closed_form_no_loss)
{
    tls_transport t = transport();
    web_lat_path p = {.rtt_ms = 80.0, .bandwidth_bps = 10e6, .loss_prob = 0.0};
    size_t sizes[] = {3000, 14600, 14601, 30000, 60000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        web_lat_flights f = {.client_first = 1800, .server_first = sizes[i],
                             .client_second = 80, .server_ms = 0.15};
        size_t all = f.client_first + f.server_first + f.client_second;
        /* TCP: one RTT of set-up, then the slow-start rounds. */
        double want = (1 + 1 + tls_extra_rtt_tcp(&t, sizes[i])) * p.rtt_ms +
                      ser_ms(all, p.bandwidth_bps) + 0.15;
        ASSERT_NEAR(web_latency_ms(WEB_LAT_TCP_TLS13, &t, &p, &f, NULL, NULL),
                    want, 1e-9);
        /* QUIC: the client sent two 1,200-byte Initials. */
        f.client_first = 2400;
        all = f.client_first + f.server_first + f.client_second;
        want = (1 + tls_extra_rtt_quic_rx(&t, 2400, sizes[i])) * p.rtt_ms +
               ser_ms(all, p.bandwidth_bps) + 0.15;
        ASSERT_NEAR(web_latency_ms(WEB_LAT_QUIC, &t, &p, &f, NULL, NULL),
                    want, 1e-9);
    }
    /* The initial window exactly: 10 x 1,460 bytes is one round, one more
     * byte is two. */
    web_lat_path inf = {.rtt_ms = 50.0};
    web_lat_flights f = {.client_first = 500, .server_first = 14600};
    ASSERT_NEAR(web_latency_ms(WEB_LAT_TCP_TLS13, &t, &inf, &f, NULL, NULL),
                100.0, 1e-12);
    f.server_first = 14601;
    ASSERT_NEAR(web_latency_ms(WEB_LAT_TCP_TLS13, &t, &inf, &f, NULL, NULL),
                150.0, 1e-12);
}

TEST(quic_amplification_costs_a_round_trip)
{
    tls_transport t = transport();
    web_lat_path p = {.rtt_ms = 40.0};
    /* One 1,200-byte Initial: the server may send 3,600 bytes first. */
    web_lat_flights f = {.client_first = 1200, .server_first = 3600};
    ASSERT_NEAR(web_latency_ms(WEB_LAT_QUIC, &t, &p, &f, NULL, NULL), 40.0, 1e-12);
    f.server_first = 3601;
    ASSERT_NEAR(web_latency_ms(WEB_LAT_QUIC, &t, &p, &f, NULL, NULL), 80.0, 1e-12);
    /* Two Initials (a post-quantum key share) double the budget. */
    f.client_first = 2400;
    f.server_first = 7200;
    ASSERT_NEAR(web_latency_ms(WEB_LAT_QUIC, &t, &p, &f, NULL, NULL), 40.0, 1e-12);
}

TEST(loss_adds_at_least_one_detection_delay)
{
    tls_transport t = transport();
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    ASSERT_TRUE(r != NULL);
    gsl_rng_set(r, 7);
    web_lat_path clean = {.rtt_ms = 60.0, .bandwidth_bps = 20e6};
    web_lat_path lossy = clean;
    lossy.loss_prob = 0.05;
    web_lat_flights f = {.client_first = 1500, .server_first = 9000,
                         .client_second = 80, .server_ms = 0.03};
    for (int q = 0; q < 2; q++) {
        web_lat_proto proto = q ? WEB_LAT_QUIC : WEB_LAT_TCP_TLS13;
        if (q)
            f.client_first = 1200;
        double base = web_latency_ms(proto, &t, &clean, &f, NULL, NULL);
        /* The smallest delay a loss can cost: a hole that the
         * acknowledgement of the packets after it reveals, one RTT. */
        int n = 20000, slower = 0, whole = 0;
        double sum = 0;
        for (int i = 0; i < n; i++) {
            double ms = web_latency_ms(proto, &t, &lossy, &f, NULL, r);
            ASSERT_TRUE(ms >= base - 1e-9);
            if (ms > base + 1e-9) {
                slower++;
                ASSERT_TRUE(ms - base >= 60.0 - 1e-9);
                /* a timeout of a second or more: the TCP set-up or a
                 * QUIC round lost whole before any RTT sample */
                whole += ms - base >= 999.0 - 1e-9;
            }
            sum += ms;
        }
        /* Flights of 2+2+7 (TCP: SYN and SYN-ACK, the ClientHello, the
         * server's) or 1+8 (QUIC) packets: 1 - 0.95^11 = 43 % or 1 -
         * 0.95^9 = 37 % of handshakes lose something. */
        ASSERT_TRUE(slower > n / 4 && slower < n / 2);
        ASSERT_TRUE(sum / n > base + 0.25 * 60.0);
        /* Few of them wait a whole second: the TCP set-up (9.75 %) or
         * QUIC's lone Initial (5 %), never a whole-flight resend. */
        ASSERT_TRUE(whole < n / (q ? 15 : 8));
    }
    /* Certain loss is refused, and loss needs a draw source. */
    lossy.loss_prob = 1.0;
    ASSERT_TRUE(web_latency_ms(WEB_LAT_TCP_TLS13, &t, &lossy, &f, NULL, r) < 0);
    lossy.loss_prob = 0.1;
    ASSERT_TRUE(web_latency_ms(WEB_LAT_TCP_TLS13, &t, &lossy, &f, NULL, NULL) < 0);
    t.tcp_rto_min_ms = -1.0;
    ASSERT_TRUE(web_latency_ms(WEB_LAT_TCP_TLS13, &t, &clean, &f, NULL, NULL) < 0);
    gsl_rng_free(r);
}

/* The uniform that makes a handshake's loss tests come out as `out`
 * (1: the event of probability pr[i] happens), then leaves `tail`: the
 * tests rescale the uniform (u < p: u / p; else (u - p) / (1 - p)), so
 * it is built backwards. */
static double u_for(const double *pr, const int *out, size_t n, double tail)
{
    double u = tail;
    for (size_t i = n; i-- > 0;)
        u = out[i] ? pr[i] * u : pr[i] + (1.0 - pr[i]) * u;
    return u;
}

/* One lost segment of a five-segment flight costs one loss-detection
 * delay (RACK: one RTT, plus a quarter RTT when fewer than three
 * segments follow it; QUIC: one RTT, plus an eighth), a lost last
 * segment the tail-loss probe (TCP: 2 RTT; QUIC: 3 RTT), and never a
 * whole-flight resend after the RTO (which the old model charged:
 * max(1 s, 3 RTT)). */
TEST(single_lost_segment_costs_one_detection_delay)
{
    tls_transport t = transport();
    const double p = 0.01, q = 1.0 - p, rtt = 100.0;
    web_lat_path path = {.rtt_ms = rtt, .loss_prob = p};
    /* TCP: one 1,000-byte ClientHello segment, five server segments */
    web_lat_flights f = {.client_first = 1000, .server_first = 5 * 1460};
    double q2 = q * q, q4 = q2 * q2, q5 = q4 * q;
    /* set-up (SYN, SYN-ACK), ClientHello, server round: any lost, the
     * last lost, the first lost has >= 3 after it, the repair lost */
    double pr[] = {1 - q2, 1 - q, 1 - q5, p / (1 - q5), (1 - q2) / (1 - q4), p};
    int early[] = {0, 0, 1, 0, 1, 0};
    double u = u_for(pr, early, 6, 0.5);
    ASSERT_NEAR(web_latency_ms_u(WEB_LAT_TCP_TLS13, &t, &path, &f, NULL, NULL, u),
                2 * rtt + rtt, 1e-6);
    int late[] = {0, 0, 1, 0, 0, 0};
    u = u_for(pr, late, 6, 0.5);
    ASSERT_NEAR(web_latency_ms_u(WEB_LAT_TCP_TLS13, &t, &path, &f, NULL, NULL, u),
                2 * rtt + rtt + rtt / 4, 1e-6);
    /* the last segment alone: the probe after 2 SRTT (others: 1 - q^4) */
    double prt[] = {1 - q2, 1 - q, 1 - q5, p / (1 - q5), 1 - q4, p};
    int tail[] = {0, 0, 1, 1, 0, 0};
    u = u_for(prt, tail, 6, 0.5);
    ASSERT_NEAR(web_latency_ms_u(WEB_LAT_TCP_TLS13, &t, &path, &f, NULL, NULL, u),
                2 * rtt + 2 * rtt, 1e-6);
    /* the repair lost too: Linux's RTO, srtt + max(4 rttvar, rto_min) =
     * 100 + max(200, 200) */
    double pra[] = {1 - q2, 1 - q, 1 - q5, p / (1 - q5), (1 - q2) / (1 - q4), p, p};
    int again2[] = {0, 0, 1, 0, 1, 1, 0};
    u = u_for(pra, again2, 7, 0.5);
    ASSERT_NEAR(web_latency_ms_u(WEB_LAT_TCP_TLS13, &t, &path, &f, NULL, NULL, u),
                3 * rtt + 300.0, 1e-6);
    /* the minimum RTO is a parameter: 1 s (RFC 6298 (2.4)) */
    t.tcp_rto_min_ms = 1000.0;
    ASSERT_NEAR(web_latency_ms_u(WEB_LAT_TCP_TLS13, &t, &path, &f, NULL, NULL, u),
                3 * rtt + 1100.0, 1e-6);
    t.tcp_rto_min_ms = 200.0;
    /* QUIC: two Initials, five 1,200-byte datagrams within the budget */
    f.client_first = 2400;
    f.server_first = 5 * 1200;
    double qpr[] = {1 - q2, 1 - q5, p / (1 - q5), (1 - q2) / (1 - q4), p};
    int qearly[] = {0, 1, 0, 1, 0}, qlate[] = {0, 1, 0, 0, 0};
    u = u_for(qpr, qearly, 5, 0.5);
    ASSERT_NEAR(web_latency_ms_u(WEB_LAT_QUIC, &t, &path, &f, NULL, NULL, u),
                rtt + rtt, 1e-6);
    u = u_for(qpr, qlate, 5, 0.5);
    ASSERT_NEAR(web_latency_ms_u(WEB_LAT_QUIC, &t, &path, &f, NULL, NULL, u),
                rtt + rtt + rtt / 8, 1e-6);
    double qprt[] = {1 - q2, 1 - q5, p / (1 - q5), 1 - q4, p};
    int qtail[] = {0, 1, 1, 0, 0};
    u = u_for(qprt, qtail, 5, 0.5);
    ASSERT_NEAR(web_latency_ms_u(WEB_LAT_QUIC, &t, &path, &f, NULL, NULL, u),
                rtt + 3 * rtt, 1e-6);
    /* a lone Initial lost before any RTT sample: the 999 ms PTO */
    f.client_first = 1200;
    double qpc[] = {p, 1.0, p};
    int qcold[] = {1, 1, 0};
    u = u_for(qpc, qcold, 3, 0.5);
    double one = web_latency_ms_u(WEB_LAT_QUIC, &t, &path, &f, NULL, NULL, u);
    ASSERT_TRUE(one >= 999.0 + rtt - 1e-6);
}

TEST(loss_free_draws_nothing)
{
    tls_transport t = transport();
    gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937), *b = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(a, 3);
    gsl_rng_set(b, 3);
    web_lat_path p = {.rtt_ms = 30.0, .bandwidth_bps = 1e6};
    web_lat_flights f = {.client_first = 1300, .server_first = 5000};
    for (int i = 0; i < 100; i++)
        web_latency_ms(WEB_LAT_TCP_TLS13, &t, &p, &f, &f, a);
    ASSERT_EQ(gsl_rng_get(a), gsl_rng_get(b));
    gsl_rng_free(a);
    gsl_rng_free(b);
}

/* A caller pricing one connection several ways draws the loss uniform
 * once (web_latency_ms_u): the same results, bit for bit, as each
 * pricing drawing it from a rewound stream, and one draw in all. */
TEST(given_uniform_is_the_draw)
{
    tls_transport t = transport();
    gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937), *b = gsl_rng_alloc(gsl_rng_mt19937);
    web_lat_flights f = {.client_first = 1300, .server_first = 9000,
                         .client_second = 80, .server_ms = 0.15};
    web_lat_flights g = {.client_first = 1500, .server_first = 3000};
    for (int i = 0; i < 2000; i++) {
        web_lat_proto proto = i % 2 ? WEB_LAT_QUIC : WEB_LAT_TCP_TLS13;
        web_lat_path p = {.rtt_ms = 10.0 + i % 97, .bandwidth_bps = 5e6,
                          .loss_prob = i % 3 ? 0.3 : 0.02};
        gsl_rng_set(a, (unsigned long)i + 1);
        gsl_rng_set(b, (unsigned long)i + 1);
        double u = gsl_rng_uniform(b);
        for (int k = 0; k < 2; k++) {
            gsl_rng_set(a, (unsigned long)i + 1); /* rewound per pricing */
            const web_lat_flights *retry = k ? &g : NULL;
            double x = web_latency_ms(proto, &t, &p, &f, retry, a);
            double y = web_latency_ms_u(proto, &t, &p, &f, retry, NULL, u);
            ASSERT_TRUE(x == y && x > 0);
        }
        /* one draw each way */
        ASSERT_EQ(gsl_rng_get(a), gsl_rng_get(b));
    }
    /* u outside [0, 1): drawn from the rng, as web_latency_ms */
    web_lat_path p = {.rtt_ms = 40.0, .loss_prob = 0.2};
    gsl_rng_set(a, 9);
    gsl_rng_set(b, 9);
    ASSERT_TRUE(web_latency_ms_u(WEB_LAT_TCP_TLS13, &t, &p, &f, NULL, a, -1.0) ==
                web_latency_ms(WEB_LAT_TCP_TLS13, &t, &p, &f, NULL, b));
    ASSERT_TRUE(web_latency_ms_u(WEB_LAT_TCP_TLS13, &t, &p, &f, NULL, NULL, NAN) < 0);
    gsl_rng_free(a);
    gsl_rng_free(b);
}

/* web_latency_ms_paired gives each pricing exactly what its own
 * web_latency_ms_u call gives, bit for bit, whether the baselines' first
 * flights are as many packets as the handshake's (a shared start) or
 * not, with and without a retry and a loss-free path, and with the
 * path's powers of keep given precomputed or not; with u not given it
 * takes one draw, and only on a lossy path. */
TEST(paired_pricings_are_the_single_ones)
{
    tls_transport t = transport();
    gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937), *b = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(a, 17);
    for (int i = 0; i < 4000; i++) {
        web_lat_proto proto = i % 2 ? WEB_LAT_QUIC : WEB_LAT_TCP_TLS13;
        double lp[] = {0.0, 0.001, 0.05, 0.4};
        web_lat_path p = {.rtt_ms = 1.0 + 400.0 * gsl_rng_uniform(a),
                          .bandwidth_bps = i % 5 ? 2e6 + 1e8 * gsl_rng_uniform(a) : 0.0,
                          .loss_prob = lp[i % 4]};
        /* the handshake's first flight and the baselines': some of as
         * many packets (1300 vs 1400: one), some not (3500: three) */
        web_lat_flights f = {.client_first = 1200 + 100 * (size_t)(i % 3),
                             .server_first = 500 + (size_t)(60000 * gsl_rng_uniform(a)),
                             .client_second = 80, .server_ms = 0.15};
        web_lat_flights g = {.client_first = 1400, .server_first = 20000,
                             .client_second = 80, .server_ms = 0.03};
        web_lat_flights base[3] = {
            {.client_first = 1300, .server_first = 4000, .client_second = 80, .server_ms = 0.03},
            {.client_first = 3500, .server_first = 13000, .client_second = 80, .server_ms = 0.15},
            {.client_first = f.client_first, .server_first = 17000, .client_second = 64}};
        const web_lat_flights *retry = i % 3 == 0 ? &g : NULL;
        double u = gsl_rng_uniform(a), ms[4];
        ASSERT_EQ(web_latency_ms_paired(proto, &t, &p, &f, retry, base, 3, NULL,
                                        u, ms), 0);
        ASSERT_TRUE(ms[0] == web_latency_ms_u(proto, &t, &p, &f, retry, NULL, u));
        for (int k = 0; k < 3; k++)
            ASSERT_TRUE(ms[1 + k] ==
                        web_latency_ms_u(proto, &t, &p, &base[k], NULL, NULL, u));
        /* the same path carrying its powers of keep precomputed */
        double kp[WEB_LAT_KEEP_POWS + 1], msk[4];
        web_latency_keep_pows(p.loss_prob, kp);
        web_lat_path pk = p;
        pk.keep_pow = kp;
        ASSERT_EQ(web_latency_ms_paired(proto, &t, &pk, &f, retry, base, 3, NULL,
                                        u, msk), 0);
        ASSERT_TRUE(memcmp(ms, msk, sizeof ms) == 0);
        /* u not given: one draw on a lossy path, none on a clean one */
        unsigned long seed = (unsigned long)i + 5;
        gsl_rng_set(b, seed);
        double v = p.loss_prob > 0 ? gsl_rng_uniform(b) : -1.0;
        unsigned long next = gsl_rng_get(b);
        gsl_rng_set(b, seed);
        double ms2[4];
        ASSERT_EQ(web_latency_ms_paired(proto, &t, &p, &f, retry, base, 3, b,
                                        -1.0, ms2), 0);
        ASSERT_EQ(gsl_rng_get(b), next);
        ASSERT_TRUE(ms2[0] == web_latency_ms_u(proto, &t, &p, &f, retry, NULL, v));
        ASSERT_TRUE(ms2[2] == web_latency_ms_u(proto, &t, &p, &base[1], NULL, NULL, v));
    }
    /* invalid arguments write nothing */
    web_lat_path bad = {.rtt_ms = 0.0};
    web_lat_flights f = {.client_first = 1300, .server_first = 3000};
    double ms[2] = {7.0, 7.0};
    ASSERT_EQ(web_latency_ms_paired(WEB_LAT_TCP_TLS13, &t, &bad, &f, NULL, &f, 1,
                                    NULL, 0.5, ms), -1);
    web_lat_path ok = {.rtt_ms = 20.0, .loss_prob = 0.1};
    ASSERT_EQ(web_latency_ms_paired(WEB_LAT_TCP_TLS13, &t, &ok, &f, NULL, NULL, 1,
                                    NULL, 0.5, ms), -1);
    ASSERT_EQ(web_latency_ms_paired(WEB_LAT_TCP_TLS13, &t, &ok, &f, NULL, NULL, 0,
                                    NULL, -1.0, ms), -1); /* lossy, no rng, no u */
    ASSERT_TRUE(ms[0] == 7.0 && ms[1] == 7.0);
    gsl_rng_free(a);
    gsl_rng_free(b);
}

TEST(resumption_is_cheaper)
{
    tls_transport t = transport();
    web_lat_path p = {.rtt_ms = 100.0, .bandwidth_bps = 2e6};
    web_lat_flights full = {.client_first = 1400, .server_first = 18000,
                            .client_second = 80,
                            .server_ms = web_latency_sign_ms(MTC_SIG_MLDSA44)};
    web_lat_flights resumed = {.client_first = 1500, .server_first = 300,
                               .client_second = 80, .server_ms = 0.0};
    double a = web_latency_ms(WEB_LAT_TCP_TLS13, &t, &p, &full, NULL, NULL);
    double b = web_latency_ms(WEB_LAT_TCP_TLS13, &t, &p, &resumed, NULL, NULL);
    /* 18,000 bytes take a second slow-start round; 300 do not. */
    ASSERT_NEAR(a - b, 100.0 + ser_ms(18000 - 300 - 100, 2e6) + full.server_ms, 1e-9);
    ASSERT_NEAR(b, 200.0 + ser_ms(1880, 2e6), 1e-9);
}

TEST(retry_adds_a_handshake)
{
    tls_transport t = transport();
    web_lat_path p = {.rtt_ms = 70.0};
    web_lat_flights lr = {.client_first = 1400, .server_first = 2000};
    web_lat_flights full = {.client_first = 1400, .server_first = 9000,
                            .server_ms = 0.02};
    double one = web_latency_ms(WEB_LAT_TCP_TLS13, &t, &p, &lr, NULL, NULL);
    double two = web_latency_ms(WEB_LAT_TCP_TLS13, &t, &p, &lr, &full, NULL);
    ASSERT_NEAR(one, 140.0, 1e-12);
    ASSERT_NEAR(two - one, 140.0 + 0.02, 1e-12);
    /* QUIC: no TCP set-up; the retry is one more round trip at least. */
    lr.client_first = full.client_first = 1200;
    one = web_latency_ms(WEB_LAT_QUIC, &t, &p, &lr, NULL, NULL);
    two = web_latency_ms(WEB_LAT_QUIC, &t, &p, &lr, &full, NULL);
    ASSERT_TRUE(two - one >= 70.0);
}

TEST(sign_times_and_arguments)
{
    ASSERT_TRUE(web_latency_sign_ms(MTC_SIG_MLDSA44) > web_latency_sign_ms(MTC_SIG_ED25519));
    ASSERT_TRUE(web_latency_sign_ms(MTC_SIG_ECDSA_P256) > 0);
    ASSERT_TRUE(web_latency_sign_ms(MTC_SIG_NONE) == 0);
    tls_transport t = transport();
    web_lat_flights f = {.client_first = 1200, .server_first = 100};
    web_lat_path bad = {.rtt_ms = 0.0};
    ASSERT_TRUE(web_latency_ms(WEB_LAT_QUIC, &t, &bad, &f, NULL, NULL) < 0);
    bad.rtt_ms = NAN;
    ASSERT_TRUE(web_latency_ms(WEB_LAT_QUIC, &t, &bad, &f, NULL, NULL) < 0);
    web_lat_path ok = {.rtt_ms = 10.0};
    ASSERT_TRUE(web_latency_ms(WEB_LAT_QUIC, &t, &ok, NULL, NULL, NULL) < 0);
    /* A QUIC server that received nothing can never send. */
    f.client_first = 0;
    ASSERT_TRUE(web_latency_ms(WEB_LAT_QUIC, &t, &ok, &f, NULL, NULL) < 0);
}

static const test_case tests[] = {
    {"rounds_match_tls_extra_rtt", rounds_match_tls_extra_rtt},
    {"closed_form_no_loss", closed_form_no_loss},
    {"quic_amplification_costs_a_round_trip", quic_amplification_costs_a_round_trip},
    {"loss_adds_at_least_one_detection_delay", loss_adds_at_least_one_detection_delay},
    {"single_lost_segment_costs_one_detection_delay", single_lost_segment_costs_one_detection_delay},
    {"loss_free_draws_nothing", loss_free_draws_nothing},
    {"given_uniform_is_the_draw", given_uniform_is_the_draw},
    {"paired_pricings_are_the_single_ones", paired_pricings_are_the_single_ones},
    {"resumption_is_cheaper", resumption_is_cheaper},
    {"retry_adds_a_handshake", retry_adds_a_handshake},
    {"sign_times_and_arguments", sign_times_and_arguments},
};
TEST_MAIN(tests)
