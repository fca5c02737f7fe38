/*
 * web_latency.c - handshake completion time from bytes, path and transport.
 *
 * Priced per handshake, millions of times a run, so it walks the rounds
 * of a flight with integer windows (the same windows as tls.c's
 * extra-round-trip counts), draws one uniform per handshake and only
 * when the path loses packets, and touches libm only for flights of more
 * than 32 packets. The pricings of one call share the powers of the
 * keep probability (or take them from the path, where the caller computed
 * them once per loss probability) and the recovery rules (lat_shared),
 * and a uniform's rescaling is only done when another test needs it, so
 * a pricing's last test costs no division: the same operations on the
 * same values, so the same results, bit for bit, as pricing each from
 * scratch.
 */
#include "sim/web_latency.h"

#include <math.h>
#include <stdint.h>

/* RFC 6298 (2.1): initial RTO 1 s, the timeout of a SYN or SYN-ACK
 * (Linux's TCP_TIMEOUT_INIT too). */
#define TCP_RTO_INIT_MS 1000.0
/* RFC 8985 section 7.2 (and Linux's tcp_schedule_loss_probe): a tail-loss
 * probe after 2 SRTT, or, with one segment in flight, after at least
 * 1.5 SRTT + the worst-case delayed ACK of 200 ms. */
#define TCP_TLP_DELACK_MS 200.0
/* RFC 9002 section 6.2.2: kInitialRtt 333 ms; PTO = srtt + 4 rttvar with
 * rttvar = srtt / 2 before or at the first sample, i.e. 3 x RTT
 * (max_ack_delay is 0 in the Initial and Handshake spaces). */
#define QUIC_INITIAL_RTT_MS 333.0
/* Packets that must follow a lost one for it to be declared lost on the
 * first acknowledgement: TCP's DupThresh (RFC 8985 section 6.2, the
 * reordering window is 0 once that many are SACKed) and QUIC's
 * kPacketThreshold (RFC 9002 section 6.1.1). */
#define LOSS_PACKET_THRESHOLD 3

/* docs/sources.md [sign-time]: 1 / (signatures per second) of this
 * project's signers, `mtc bench sig` on the development machine. */
#define SIGN_MS_ED25519 0.032
#define SIGN_MS_ECDSA_P256 0.020
#define SIGN_MS_MLDSA44 0.150
#define SIGN_MS_MLDSA65 0.247
#define SIGN_MS_MLDSA87 0.286
/* the leaf keys of today's chains, measured the same way (RSA with
 * RSASSA-PSS, SHA-256; P-384 with SHA-384) */
#define SIGN_MS_ECDSA_P384 1.117
#define SIGN_MS_RSA2048 0.382
#define SIGN_MS_RSA4096 5.41

/* How one sender recovers the packets of one round (all ms). */
typedef struct lat_rules {
    double reo;      /* wait beyond the first acknowledgement for a lost
                        packet followed by fewer than 3 (RACK's reordering
                        window, QUIC's time threshold) */
    double pto;      /* tail-loss probe of a round of several packets */
    double pto1;     /* the same for a round of one packet */
    double pto_cold; /* the whole round lost before any RTT sample */
    double rto;      /* a lost repair: retransmission timeout (doubles) */
} lat_rules;

#define KEEP_POW_TAB WEB_LAT_KEEP_POWS /* keep^n by multiplication up to
                                           n = 32 */

/* What every pricing of one call shares (one path, one transport): the
 * powers of keep computed so far and the recovery rules, so that the
 * pricings of web_latency_ms_paired compute them once. */
typedef struct lat_shared {
    double kp[KEEP_POW_TAB + 1]; /* kp[n] = keep^n for n <= kn */
    unsigned kn;
    const double *given;         /* the path's keep_pow, or NULL */
    lat_rules rules;             /* the sender's with an RTT sample (TCP)
                                    or QUIC's */
} lat_shared;

typedef struct lat_ctx {
    const web_lat_path *path;
    gsl_rng *rng;
    double p;     /* loss_prob */
    double keep;  /* 1 - loss_prob */
    double u;     /* the uniform being recycled; < 0: none drawn yet */
    /* The rescaling of u after a test that came out "not lost" (by
     * pend, 1 - pend), applied when u is next needed: a pricing's last
     * test then costs no division. 0: none pending. */
    double pend;
    lat_shared *sh;
} lat_ctx;

/* keep^packets: by multiplication for the few packets of a handshake
 * round (k = 1, then k *= keep, n times: the table holds exactly those
 * products), by exp/log beyond. */
static double keep_pow(lat_ctx *c, uint64_t packets)
{
    if (packets > KEEP_POW_TAB)
        return exp((double)packets * log(c->keep));
    lat_shared *s = c->sh;
    if (s->given)
        return s->given[packets];
    while (s->kn < packets) {
        s->kp[s->kn + 1] = s->kp[s->kn] * c->keep;
        s->kn++;
    }
    return s->kp[packets];
}

/* Applies the rescaling the previous test left pending. */
static void settle(lat_ctx *c)
{
    if (c->pend != 0.0) {
        c->u = (c->u - c->pend) / (1.0 - c->pend);
        if (c->u >= 1.0) /* rounding */
            c->u = 0x1.fffffffffffffp-1;
        c->pend = 0.0;
    }
}

/* Whether an event of probability p happens. One uniform serves a whole
 * handshake: after the test it is rescaled to the part of [0, 1) it
 * fell in, which is again uniform and independent of the outcome (exact
 * up to rounding; each step costs a few of its 53 bits). So a handshake
 * takes one draw from the stream, not one per test. */
static int lost_once(lat_ctx *c, double p)
{
    if (c->u < 0.0)
        c->u = gsl_rng_uniform(c->rng);
    settle(c); /* the previous test's rescaling, now needed */
    if (c->u < p) {
        c->u /= p;
        return 1;
    }
    /* (u - p) / (1 - p), deferred; p = 0 rescales nothing */
    c->pend = p;
    return 0;
}

/* Time lost to timeouts before an exchange of `packets` that is resent
 * whole gets through (the TCP set-up: SYN and SYN-ACK, each timed by the
 * initial RTO): lost with probability 1 - (1-p)^packets, each loss
 * costing the current timeout, which doubles (RFC 6298 (5.5)). */
static double lost_time(lat_ctx *c, uint64_t packets, double timeout)
{
    if (c->keep == 1.0 || packets == 0)
        return 0.0;
    double p_any = 1.0 - keep_pow(c, packets);
    double lost = 0.0;
    for (int i = 1; i < WEB_LAT_MAX_TRIES; i++) {
        if (!lost_once(c, p_any))
            break;
        lost += timeout;
        timeout *= 2.0;
    }
    return lost;
}

/*
 * Time a round of `packets` sent together takes beyond its loss-free
 * time, each packet lost independently with probability p and repaired
 * selectively (docs/model.md "Loss recovery"):
 *   - nothing lost: 0;
 *   - the last packet arrives, some earlier one is lost: the receiver's
 *     acknowledgement of the later ones shows the hole, and the sender
 *     resends what is missing one RTT after the round left, plus `reo`
 *     unless at least 3 packets follow the first lost one;
 *   - the last packet is lost: nothing reveals it until the tail-loss
 *     probe (pto, pto1 for a single packet; pto_cold when the whole
 *     round is lost and the sender has no RTT sample); the probe's
 *     acknowledgement shows any other hole, repaired one RTT later;
 *   - the repair (retransmissions or probe) is lost again with
 *     probability p, as one packet, and then waits the retransmission
 *     timeout, doubling, at most WEB_LAT_MAX_TRIES sends.
 * `sampled`: the sender has an RTT sample before this round.
 */
static double round_loss(lat_ctx *c, uint64_t packets, const lat_rules *r,
                         int sampled)
{
    if (c->keep == 1.0 || packets == 0)
        return 0.0;
    double rtt = c->path->rtt_ms;
    double q_all = keep_pow(c, packets);
    if (!lost_once(c, 1.0 - q_all))
        return 0.0;
    double extra;
    /* given a loss, the last packet is lost with p / (1 - q^k) */
    if (lost_once(c, c->p / (1.0 - q_all))) {
        if (packets == 1) {
            extra = sampled ? r->pto1 : r->pto_cold;
        } else {
            double q_rest = q_all / c->keep; /* q^(k-1) */
            if (lost_once(c, 1.0 - q_rest)) {
                /* others too; all of them, with p^(k-1) / (1 - q^(k-1)) */
                double p_all = exp((double)(packets - 1) * log(c->p));
                int all = lost_once(c, p_all / (1.0 - q_rest));
                extra = (all && !sampled ? r->pto_cold : r->pto) + rtt;
            } else {
                extra = r->pto;
            }
        }
    } else {
        /* the first lost packet is one of the first k-1; at least 3
         * follow it with (1 - q^(k-3)) / (1 - q^(k-1)) */
        extra = rtt;
        if (packets > LOSS_PACKET_THRESHOLD) {
            double q_rest = q_all / c->keep;
            double q_head = keep_pow(c, packets - LOSS_PACKET_THRESHOLD);
            if (!lost_once(c, (1.0 - q_head) / (1.0 - q_rest)))
                extra += r->reo;
        } else {
            extra += r->reo;
        }
    }
    double timeout = r->rto;
    for (int i = 1; i < WEB_LAT_MAX_TRIES && lost_once(c, c->p); i++) {
        extra += timeout;
        timeout *= 2.0;
    }
    return extra;
}

/* The recovery rules of a sender with an RTT sample of `rtt` (TCP) or
 * of a QUIC sender (whose first round may have none). */
static void tcp_rules(double rtt, double rto_min, lat_rules *r)
{
    /* Linux: RTO = srtt + max(4 rttvar, rto_min), with rttvar = rtt / 2
     * at the first sample (RFC 6298 (2.2) with Linux's floor on the
     * variance term) */
    double var4 = 2.0 * rtt > rto_min ? 2.0 * rtt : rto_min;
    r->rto = rtt + var4;
    r->reo = rtt / 4.0; /* RFC 8985 section 6.2: min_RTT / 4 */
    r->pto = 2.0 * rtt;
    double one = 1.5 * rtt + TCP_TLP_DELACK_MS;
    r->pto1 = one > r->pto ? one : r->pto;
    if (r->pto > r->rto)
        r->pto = r->rto;
    if (r->pto1 > r->rto)
        r->pto1 = r->rto;
    r->pto_cold = TCP_RTO_INIT_MS;
}

static void quic_rules(double rtt, lat_rules *r)
{
    r->pto = r->pto1 = r->rto = 3.0 * rtt;
    r->pto_cold = 3.0 * QUIC_INITIAL_RTT_MS;
    r->reo = rtt / 8.0; /* RFC 9002 section 6.1.2: 9/8 x RTT */
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
 * *lost gets what loss recovery adds to the rounds (round_loss).
 */
static unsigned server_rounds(lat_ctx *c, web_lat_proto proto,
                              const tls_transport *t, size_t received,
                              size_t bytes, double *lost)
{
    uint64_t left = bytes, pkt, win, cw = 0;
    int sampled;
    if (proto == WEB_LAT_TCP_TLS13) {
        pkt = t->tcp_mss ? t->tcp_mss : 1;
        win = (uint64_t)(t->tcp_iw_segments ? t->tcp_iw_segments : 1) * pkt;
        /* the server has an RTT sample from SYN-ACK / ACK */
        sampled = 1;
    } else {
        pkt = t->quic_max_datagram < 1200 ? 1200 : t->quic_max_datagram;
        cw = quic_initial_cwnd(pkt);
        uint64_t amp = (uint64_t)t->quic_amplification * received;
        win = amp < cw ? amp : cw;
        sampled = 0; /* no acknowledgement yet */
    }
    unsigned rounds = 0;
    do {
        if (win == 0)
            return UINT32_MAX;
        uint64_t now = left < win ? left : win;
        if (c)
            *lost += round_loss(c, ceil_div(now, pkt), &c->sh->rules, sampled);
        left -= now;
        rounds++;
        sampled = 1; /* the acknowledgement gave a sample */
        if (proto == WEB_LAT_TCP_TLS13) {
            win *= 2; /* slow start: one segment per acknowledged segment */
        } else {
            cw += now; /* validated; slow start adds what was acknowledged */
            win = cw;
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
static double attempt_start(lat_ctx *c, web_lat_proto proto,
                            const tls_transport *t, uint64_t packets)
{
    const web_lat_path *p = c->path;
    double ms = 0.0;
    int sampled;
    (void)t;
    if (proto == WEB_LAT_TCP_TLS13) {
        /* SYN and SYN-ACK, each timed by the initial RTO */
        ms += p->rtt_ms + lost_time(c, 2, TCP_RTO_INIT_MS);
        sampled = 1; /* from the SYN-ACK */
    } else {
        sampled = 0;
    }
    ms += round_loss(c, packets, &c->sh->rules, sampled);
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
    double ms = attempt_start(c, proto, t,
                              client_packets(proto, t, f->client_first));
    return attempt_finish(c, proto, t, f, ms);
}

/* The shared part of one call's pricings: keep^0 and the sender's
 * recovery rules for this path and transport (TCP: with the RTT sample
 * of the set-up; QUIC: its own, whose first round may have none). */
static void shared_init(lat_shared *s, web_lat_proto proto,
                        const tls_transport *t, const web_lat_path *path)
{
    s->kp[0] = 1.0;
    s->kn = 0;
    s->given = path->keep_pow;
    if (proto == WEB_LAT_TCP_TLS13)
        tcp_rules(path->rtt_ms, t->tcp_rto_min_ms, &s->rules);
    else
        quic_rules(path->rtt_ms, &s->rules);
}

/* Whether the arguments can be priced (web_latency_ms_u's contract). */
static int valid_call(web_lat_proto proto, const tls_transport *t,
                      const web_lat_path *path, const web_lat_flights *first,
                      gsl_rng *rng, double u)
{
    return t && path && first && path->rtt_ms > 0.0 &&
           path->loss_prob >= 0.0 && path->loss_prob < 1.0 &&
           path->bandwidth_bps >= 0.0 && t->tcp_rto_min_ms >= 0.0 &&
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
    lat_shared sh;
    shared_init(&sh, proto, t, path);
    lat_ctx c = {path, rng, path->loss_prob, 1.0 - path->loss_prob,
                 u >= 0.0 && u < 1.0 ? u : -1.0, 0.0, &sh};
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
    lat_shared sh;
    shared_init(&sh, proto, t, path);
    lat_ctx c0 = {path, rng, path->loss_prob, keep, u, 0.0, &sh};
    uint64_t packets = client_packets(proto, t, first->client_first);
    double start = attempt_start(&c0, proto, t, packets);
    /* Each pricing's next test needs the rescaling the start's last test
     * left pending: applied once here rather than by each of them (the
     * same operations on the same values, so the same u; a pricing that
     * tests nothing more discards its state) */
    settle(&c0);
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
            c.u = u; /* the call's uniform, nothing pending */
            c.pend = 0.0;
            ms[1 + i] = attempt_ms(&c, proto, t, &base[i]);
        }
    }
    return 0;
}

void web_latency_keep_pows(double loss_prob, double *pow)
{
    /* the products keep_pow() forms: keep = 1 - loss_prob, then one
     * multiplication per power from the last */
    double keep = 1.0 - loss_prob;
    pow[0] = 1.0;
    for (unsigned n = 1; n <= WEB_LAT_KEEP_POWS; n++)
        pow[n] = pow[n - 1] * keep;
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

double web_latency_sign_ms_chain(mtc_chain_alg alg)
{
    switch (alg) {
    case MTC_CHAIN_ALG_ED25519: return SIGN_MS_ED25519;
    case MTC_CHAIN_ALG_ECDSA_P256: return SIGN_MS_ECDSA_P256;
    case MTC_CHAIN_ALG_ECDSA_P384: return SIGN_MS_ECDSA_P384;
    case MTC_CHAIN_ALG_RSA2048: return SIGN_MS_RSA2048;
    case MTC_CHAIN_ALG_RSA4096: return SIGN_MS_RSA4096;
    case MTC_CHAIN_ALG_MLDSA44: return SIGN_MS_MLDSA44;
    case MTC_CHAIN_ALG_MLDSA65: return SIGN_MS_MLDSA65;
    case MTC_CHAIN_ALG_MLDSA87: return SIGN_MS_MLDSA87;
    default: return 0.0;
    }
}
