/*
 * web_latency.c - handshake completion time from bytes, path and transport.
 *
 * Priced per handshake, millions of times a run, so it walks the rounds
 * of a flight with integer windows (the same windows as tls.c's
 * extra-round-trip counts), draws one uniform per handshake and only
 * when the path loses packets, and touches libm only for flights of more
 * than 32 packets.
 */
#include "sim/web_latency.h"

#include <math.h>
#include <stdint.h>

/* RFC 6298 (2.1): initial RTO 1 s; (2.4): never below 1 s. */
#define TCP_RTO_INIT_MS 1000.0
#define TCP_RTO_MIN_MS 1000.0
/* RFC 9002 section 6.2.2: kInitialRtt 333 ms; PTO = srtt + 4 rttvar with
 * rttvar = srtt / 2 before or at the first sample, i.e. 3 x RTT
 * (max_ack_delay is 0 in the Initial and Handshake spaces). */
#define QUIC_INITIAL_RTT_MS 333.0

/* docs/sources.md [sign-time]: 1 / (signatures per second) of this
 * project's signers, `mtc bench sig` on the development machine. */
#define SIGN_MS_ED25519 0.032
#define SIGN_MS_ECDSA_P256 0.020
#define SIGN_MS_MLDSA44 0.150
#define SIGN_MS_MLDSA65 0.247
#define SIGN_MS_MLDSA87 0.286

typedef struct lat_ctx {
    const web_lat_path *path;
    gsl_rng *rng;
    double keep;  /* 1 - loss_prob */
    double u;     /* the uniform being recycled; < 0: none drawn yet */
} lat_ctx;

/* 1 - (1 - p)^packets: by multiplication for the few packets of a
 * handshake flight, by exp/log beyond. */
static double flight_loss(double keep, uint64_t packets)
{
    if (packets > 32)
        return -expm1((double)packets * log(keep));
    double k = 1.0;
    for (uint64_t i = 0; i < packets; i++)
        k *= keep;
    return 1.0 - k;
}

/* Whether a flight lost with probability p is lost. One uniform serves a
 * whole handshake: after the test it is rescaled to the part of [0, 1) it
 * fell in, which is again uniform and independent of the outcome (exact
 * up to rounding; each step costs a few of its 53 bits). So a handshake
 * takes one draw from the stream, not one per flight. */
static int lost_once(lat_ctx *c, double p)
{
    if (c->u < 0.0)
        c->u = gsl_rng_uniform(c->rng);
    if (c->u < p) {
        c->u /= p;
        return 1;
    }
    c->u = (c->u - p) / (1.0 - p);
    if (c->u >= 1.0) /* rounding */
        c->u = 0x1.fffffffffffffp-1;
    return 0;
}

/* Time lost to timeouts before a flight of `packets` gets through: the
 * flight is lost whole with probability 1 - (1-p)^packets, each loss
 * costs the current timeout, which doubles (RFC 6298 (5.5), RFC 9002
 * section 6.2.1). */
static double lost_time(lat_ctx *c, uint64_t packets, double timeout)
{
    if (c->keep == 1.0 || packets == 0)
        return 0.0;
    double p_flight = flight_loss(c->keep, packets);
    double lost = 0.0;
    for (int i = 1; i < WEB_LAT_MAX_TRIES; i++) {
        if (!lost_once(c, p_flight))
            break;
        lost += timeout;
        timeout *= 2.0;
    }
    return lost;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return b ? (a + b - 1) / b : a;
}

static uint64_t quic_initial_cwnd(uint64_t maxd)
{
    /* RFC 9002 section 7.2: min(10 * max_datagram, max(14720, 2 * max_datagram)). */
    uint64_t cw = 10 * maxd;
    uint64_t alt = 14720 > 2 * maxd ? 14720 : 2 * maxd;
    return alt < cw ? alt : cw;
}

/*
 * Walks the server's first flight round by round. Returns the number of
 * rounds (UINT32_MAX when nothing can ever be sent); when c is non-NULL,
 * *lost gets the timeouts of lost rounds.
 */
static unsigned server_rounds(lat_ctx *c, web_lat_proto proto,
                              const tls_transport *t, size_t received,
                              size_t bytes, double *lost)
{
    double rtt = c ? c->path->rtt_ms : 0.0;
    uint64_t left = bytes, pkt, win, cw = 0;
    double timeout;
    if (proto == WEB_LAT_TCP_TLS13) {
        pkt = t->tcp_mss ? t->tcp_mss : 1;
        win = (uint64_t)(t->tcp_iw_segments ? t->tcp_iw_segments : 1) * pkt;
        /* the server has an RTT sample from SYN-ACK / ACK */
        timeout = 3.0 * rtt > TCP_RTO_MIN_MS ? 3.0 * rtt : TCP_RTO_MIN_MS;
    } else {
        pkt = t->quic_max_datagram < 1200 ? 1200 : t->quic_max_datagram;
        cw = quic_initial_cwnd(pkt);
        uint64_t amp = (uint64_t)t->quic_amplification * received;
        win = amp < cw ? amp : cw;
        timeout = 3.0 * QUIC_INITIAL_RTT_MS; /* no sample yet */
    }
    unsigned rounds = 0;
    do {
        if (win == 0)
            return UINT32_MAX;
        uint64_t now = left < win ? left : win;
        if (c)
            *lost += lost_time(c, ceil_div(now, pkt), timeout);
        left -= now;
        rounds++;
        if (proto == WEB_LAT_TCP_TLS13) {
            win *= 2; /* slow start: one segment per acknowledged segment */
        } else {
            cw += now; /* validated; slow start adds what was acknowledged */
            win = cw;
            timeout = 3.0 * rtt; /* the acknowledgement gave a sample */
        }
    } while (left > 0);
    return rounds;
}

unsigned web_latency_server_rounds(web_lat_proto proto,
                                   const tls_transport *t, size_t received,
                                   size_t bytes)
{
    return server_rounds(NULL, proto, t, received, bytes, NULL);
}

/* The client's first flight's packets. */
static uint64_t client_packets(web_lat_proto proto, const tls_transport *t,
                               size_t client_first)
{
    uint64_t pkt;
    if (proto == WEB_LAT_TCP_TLS13)
        pkt = t->tcp_mss ? t->tcp_mss : 1;
    else
        pkt = t->quic_client_initial < 1200 ? 1200 : t->quic_client_initial;
    return ceil_div(client_first, pkt);
}

/* An attempt's start: set-up and the client's first flight of
 * `packets`, timeouts included. It depends on the flight only through
 * its packet count, so pricings of one connection whose first flights
 * are as many packets share it (web_latency_ms_paired). */
static double attempt_start(lat_ctx *c, web_lat_proto proto, uint64_t packets)
{
    const web_lat_path *p = c->path;
    double ms = 0.0;
    double client_timeout;
    if (proto == WEB_LAT_TCP_TLS13) {
        /* SYN: one packet, timed by the initial RTO. */
        ms += p->rtt_ms + lost_time(c, 1, TCP_RTO_INIT_MS);
        client_timeout = 3.0 * p->rtt_ms > TCP_RTO_MIN_MS ? 3.0 * p->rtt_ms
                                                           : TCP_RTO_MIN_MS;
    } else {
        client_timeout = 3.0 * QUIC_INITIAL_RTT_MS;
    }
    ms += lost_time(c, packets, client_timeout);
    return ms;
}

/* The rest of an attempt after its start `ms`: processing, server
 * rounds, client's Finished, serialization. */
static double attempt_finish(lat_ctx *c, web_lat_proto proto,
                             const tls_transport *t, const web_lat_flights *f,
                             double ms)
{
    const web_lat_path *p = c->path;
    ms += f->server_ms;
    double lost = 0.0;
    unsigned rounds = server_rounds(c, proto, t, f->client_first,
                                    f->server_first, &lost);
    if (rounds == UINT32_MAX)
        return -1.0;
    ms += (double)rounds * p->rtt_ms + lost;
    if (p->bandwidth_bps > 0.0) {
        double bits = 8.0 * (double)(f->client_first + f->server_first +
                                     f->client_second);
        ms += 1000.0 * bits / p->bandwidth_bps;
    }
    return ms;
}

/* One attempt: set-up, client's first flight, processing, server rounds,
 * client's Finished. */
static double attempt_ms(lat_ctx *c, web_lat_proto proto,
                         const tls_transport *t, const web_lat_flights *f)
{
    double ms = attempt_start(c, proto, client_packets(proto, t, f->client_first));
    return attempt_finish(c, proto, t, f, ms);
}

/* Whether the arguments can be priced (web_latency_ms_u's contract). */
static int valid_call(web_lat_proto proto, const tls_transport *t,
                      const web_lat_path *path, const web_lat_flights *first,
                      gsl_rng *rng, double u)
{
    return t && path && first && path->rtt_ms > 0.0 &&
           path->loss_prob >= 0.0 && path->loss_prob < 1.0 &&
           path->bandwidth_bps >= 0.0 &&
           (proto == WEB_LAT_TCP_TLS13 || proto == WEB_LAT_QUIC) &&
           !(path->loss_prob > 0.0 && !rng && !(u >= 0.0 && u < 1.0));
}

double web_latency_ms(web_lat_proto proto, const tls_transport *t,
                      const web_lat_path *path, const web_lat_flights *first,
                      const web_lat_flights *retry, gsl_rng *rng)
{
    return web_latency_ms_u(proto, t, path, first, retry, rng, -1.0);
}

double web_latency_ms_u(web_lat_proto proto, const tls_transport *t,
                        const web_lat_path *path, const web_lat_flights *first,
                        const web_lat_flights *retry, gsl_rng *rng, double u)
{
    if (!valid_call(proto, t, path, first, rng, u))
        return -1.0;
    /* u outside [0, 1) (NaN too): none given, drawn when first needed */
    lat_ctx c = {path, rng, 1.0 - path->loss_prob,
                 u >= 0.0 && u < 1.0 ? u : -1.0};
    double ms = attempt_ms(&c, proto, t, first);
    if (ms < 0.0 || !retry)
        return ms;
    double again = attempt_ms(&c, proto, t, retry);
    return again < 0.0 ? again : ms + again;
}

int web_latency_ms_paired(web_lat_proto proto, const tls_transport *t,
                          const web_lat_path *path,
                          const web_lat_flights *first,
                          const web_lat_flights *retry,
                          const web_lat_flights *base, size_t nbase,
                          gsl_rng *rng, double u, double *ms)
{
    if (!ms || (nbase && !base) || !valid_call(proto, t, path, first, rng, u))
        return -1;
    double keep = 1.0 - path->loss_prob;
    /* the one uniform every pricing starts from: given, or drawn now
     * (a path that loses nothing draws nothing) */
    if (!(u >= 0.0 && u < 1.0))
        u = keep != 1.0 ? gsl_rng_uniform(rng) : -1.0;
    lat_ctx c0 = {path, rng, keep, u};
    uint64_t packets = client_packets(proto, t, first->client_first);
    double start = attempt_start(&c0, proto, packets);
    /* the handshake: its own start, then the retry if any */
    lat_ctx c = c0;
    ms[0] = attempt_finish(&c, proto, t, first, start);
    if (ms[0] >= 0.0 && retry) {
        double again = attempt_ms(&c, proto, t, retry);
        ms[0] = again < 0.0 ? again : ms[0] + again;
    }
    for (size_t i = 0; i < nbase; i++) {
        uint64_t bp = client_packets(proto, t, base[i].client_first);
        c = c0;
        if (bp == packets) {
            ms[1 + i] = attempt_finish(&c, proto, t, &base[i], start);
        } else {
            c.u = u;
            ms[1 + i] = attempt_ms(&c, proto, t, &base[i]);
        }
    }
    return 0;
}

double web_latency_sign_ms(mtc_sig_alg alg)
{
    /* Constants, not a timing per handshake: a run stays deterministic. */
    switch (alg) {
    case MTC_SIG_ED25519: return SIGN_MS_ED25519;
    case MTC_SIG_ECDSA_P256: return SIGN_MS_ECDSA_P256;
    case MTC_SIG_MLDSA44: return SIGN_MS_MLDSA44;
    case MTC_SIG_MLDSA65: return SIGN_MS_MLDSA65;
    case MTC_SIG_MLDSA87: return SIGN_MS_MLDSA87;
    default: return 0.0;
    }
}
