/*
 * sim/web_latency.h - handshake completion time in milliseconds.
 *
 * A pure function from a network path, a transport and the byte counts
 * the handshake path already computes (sim/tls.h) to the time from the
 * client's first packet until it can send application data (its
 * Finished leaves). Nothing here allocates, prints or keeps state; the
 * only randomness is the loss draws, taken from a caller's gsl_rng: one
 * uniform per call, recycled over its flights, and only when loss_prob >
 * 0, so a loss-free path draws nothing and a run without latency is
 * unchanged.
 *
 * The model, in rounds of one RTT each (docs/model.md, "Handshake
 * latency"; sources in docs/sources.md [tcp-iw] [quic-amp] [tcp-rto]
 * [quic-pto]):
 *   - TCP + TLS 1.3: one RTT of TCP set-up (SYN, SYN-ACK; the ClientHello
 *     rides with the ACK), then the server's first flight in slow start
 *     from the initial window (tls_transport tcp_iw_segments x tcp_mss),
 *     doubling each round; the handshake completes when the last round
 *     has arrived and the client's Finished leaves.
 *   - QUIC: no separate set-up; before the client's address is validated
 *     the server may send at most quic_amplification times the bytes it
 *     received (the client's Initial datagrams) and at most its initial
 *     congestion window (RFC 9002 section 7.2); a first flight over that
 *     waits one RTT for the client's acknowledgement.
 *   - Serialization: every byte of each flight crosses the bottleneck at
 *     bandwidth_bps (0: infinite), added to the round it belongs to.
 *   - Server processing: server_ms is added once, between the client's
 *     first flight and the server's (the CertificateVerify signature:
 *     web_latency_sign_ms() gives documented constants per algorithm).
 *   - Loss: each flight is lost whole with probability
 *     1 - (1 - loss_prob)^packets and resent after a timeout that doubles
 *     per loss: TCP's RTO starts at 1 s (RFC 6298 (2.1)) until an RTT
 *     sample exists, then max(1 s, 3 x RTT); QUIC's PTO starts at 3 x the
 *     initial RTT of 333 ms (RFC 9002 section 6.2) before a sample, then
 *     3 x RTT. At most WEB_LAT_MAX_TRIES sends per flight.
 *   - A refused landmark-relative certificate (retry) costs a second
 *     handshake on a new connection, priced the same way with the retry's
 *     own byte counts.
 *   - A resumed handshake (PSK) is priced from its own, smaller server
 *     flight with no signature (the caller passes server_ms 0).
 */
#ifndef SIM_WEB_LATENCY_H
#define SIM_WEB_LATENCY_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "mtc/chain.h"
#include "mtc/sig.h"
#include "sim/tls.h"

#define WEB_LAT_MAX_TRIES 6
/* Powers of 1 - loss_prob a web_lat_path may carry precomputed. */
#define WEB_LAT_KEEP_POWS 32

typedef enum web_lat_proto {
    WEB_LAT_TCP_TLS13 = 0,
    WEB_LAT_QUIC = 1
} web_lat_proto;

/* One client's network path for one connection. */
typedef struct web_lat_path {
    double rtt_ms;        /* round-trip time of this connection (> 0) */
    double bandwidth_bps; /* bottleneck, bit/s; 0 means no serialization */
    double loss_prob;     /* per packet, in [0, 1) */
    /* NULL, or keep_pow[n] = (1 - loss_prob)^n for n <= WEB_LAT_KEEP_POWS
     * as web_latency_keep_pows computes them for this loss_prob (a
     * caller pricing many connections at one loss_prob computes them
     * once: the results are the same, bit for bit, as without) */
    const double *keep_pow;
} web_lat_path;

/* One handshake attempt's bytes on the wire (transport framing included,
 * as sim/tls.h counts them). */
typedef struct web_lat_flights {
    size_t client_first;  /* TCP: ClientHello records; QUIC: Initial
                           * datagrams x quic_client_initial */
    size_t server_first;  /* the server's first flight */
    size_t client_second; /* the client's Finished flight */
    double server_ms;     /* server processing before its flight */
} web_lat_flights;

/*
 * Completion time in ms of one handshake: `first`, then, when `retry` is
 * non-NULL, the retry on a new connection. `rng` may be NULL only when
 * path->loss_prob is 0. Returns a negative value for invalid arguments
 * (rtt_ms <= 0, loss_prob outside [0, 1), NULL first or path).
 */
double web_latency_ms(web_lat_proto proto, const tls_transport *t,
                      const web_lat_path *path, const web_lat_flights *first,
                      const web_lat_flights *retry, gsl_rng *rng);

/*
 * The same with the loss uniform given: u in [0, 1) is used as the one
 * uniform the call would otherwise draw from `rng` (rng may then be NULL
 * and is not touched); u outside [0, 1): as web_latency_ms. For a caller
 * pricing one connection several ways (common random numbers) that
 * draws the uniform once instead of rewinding its stream per pricing:
 * with loss_prob > 0 and 1 - loss_prob != 1, a valid call that sends any
 * packet takes exactly one draw, the first thing it draws, so passing
 * that draw gives bit-identical results.
 */
double web_latency_ms_u(web_lat_proto proto, const tls_transport *t,
                        const web_lat_path *path, const web_lat_flights *first,
                        const web_lat_flights *retry, gsl_rng *rng, double u);

/*
 * One connection priced several ways with one loss uniform (common
 * random numbers): ms[0] gets `first` (then `retry`, when non-NULL) and
 * ms[1 + i] the baseline flights base[i], i < nbase; each exactly what
 * web_latency_ms_u(..., u) would give it, negative when that would be.
 * u outside [0, 1): drawn here from `rng` once, when the path loses
 * packets. The set-up and the client's first flight are priced once for
 * every pricing whose first flight is as many packets as first's (they
 * depend on nothing else). Returns 0, or -1 for invalid arguments (as
 * web_latency_ms_u, or NULL ms, or nbase > 0 with NULL base), writing
 * nothing.
 */
int web_latency_ms_paired(web_lat_proto proto, const tls_transport *t,
                          const web_lat_path *path,
                          const web_lat_flights *first,
                          const web_lat_flights *retry,
                          const web_lat_flights *base, size_t nbase,
                          gsl_rng *rng, double u, double *ms);

/* Fills pow[0..WEB_LAT_KEEP_POWS] with (1 - loss_prob)^n, n
 * multiplications each from the last (as a pricing computes them), for
 * web_lat_path.keep_pow. */
void web_latency_keep_pows(double loss_prob, double *pow);

/* Round trips the server's first flight of `bytes` takes after the
 * client's first flight (1 when it fits the first window): the same
 * windows as tls_extra_rtt_tcp and tls_extra_rtt_quic_rx, plus one.
 * `received` is what the QUIC server got before answering. */
unsigned web_latency_server_rounds(web_lat_proto proto,
                                   const tls_transport *t, size_t received,
                                   size_t bytes);

/* Documented server signing time for a CertificateVerify with `alg`, in
 * ms (docs/sources.md [sign-time]); 0 for MTC_SIG_NONE (signatureless
 * resumption has no signature either: pass 0). */
double web_latency_sign_ms(mtc_sig_alg alg);

/* The same for a chain party's key (mtc/chain.h: the leaf key of a chain
 * as served today), including ECDSA P-384 and RSA-2048/4096 (RSASSA-PSS,
 * as TLS 1.3 signs with an RSA key); 0 for NONE or out of range. */
double web_latency_sign_ms_chain(mtc_chain_alg alg);

#endif
