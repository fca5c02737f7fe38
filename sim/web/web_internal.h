/*
 * web_internal.h - state shared by web_site.c, web_browser.c and
 * web_handshake.c (internal to sim/; the contract is sim/web.h).
 *
 * Sizes matter here: a 10^6-client population must fit in a few hundred
 * MB and its handshakes must cost a few hundred ns each, so every byte
 * count a handshake needs is precomputed where it changes (per
 * certificate, per site certificate set, per client publication) and a
 * client's PKI state is one integer, the publication it holds.
 */
#ifndef SIM_WEB_INTERNAL_H
#define SIM_WEB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mtc/baseline.h"
#include "mtc/rp.h"
#include "sim/web.h"
#include "sim/web_latency.h"
#include "sim/world_prof.h"

#define WEB_TICKETS 4       /* session tickets a client remembers */
#define WEB_SITE_CERTS 4    /* certificates a site holds at most */
#define WEB_NO_CERT UINT32_MAX

enum { WEB_SA = 1, WEB_LR = 2 };

/* A certificate a site holds: its real DER and everything a handshake
 * needs from it, computed once at installation. */
typedef struct web_cert {
    uint8_t *der;
    uint32_t der_len;
    uint32_t site;
    uint32_t ca;
    uint8_t kind;           /* WEB_SA, WEB_LR */
    uint8_t live;
    uint8_t lm_known;       /* lm_match is final */
    uint8_t pad;
    uint64_t log_number, index, serial;
    uint64_t landmark;      /* LR: its landmark */
    uint64_t lm_match;      /* the landmark whose subtree equals the cert's
                               own subtree (LR: = landmark; SA: usually 0) */
    uint64_t start, end;    /* the MTCProof subtree */
    int64_t not_before, not_after;  /* Unix seconds */
    sim_time expires;       /* sim time of not_after */
    mtc_taid ta_id;         /* the path's trust anchor ID: CA ID or landmark */
    mtc_hash hash;          /* SHA-256 of der */
    uint64_t obj;           /* installation number, unique in the run: the
                               memo's certificate key (see web_handshake.c) */
    uint32_t id;            /* index in the cert table */
    uint32_t msg_len[2];    /* Certificate message without / with ta ext */
    uint32_t group;         /* its site's group */
    /* Certificate compression (RFC 8879): the wire length of the
     * Certificate message [brotli, zstd][without / with ta ext], computed
     * on first use (0: not yet) */
    uint32_t comp_wire[2][2];
    /* For the holding site's current EncryptedExtensions, per
     * trust_anchors sent (0/1): server auth bytes (EE extension +
     * Certificate + CertificateVerify). The flight's round trips depend on
     * the client's cohort (key share, transport): web_flight.
     * Set by web__site_set_changed. */
    uint32_t srv_auth[2];
} web_cert;

/* What a handshake reads of a certificate: a copy of web_cert fields kept
 * by web__cert_sync (after every change to them), plus the certificate's
 * memo front entries, in two adjacent cache lines. Why: per handshake the
 * site, its certificates and the memo are random accesses into tables of
 * tens of MB; the profile showed three cache misses (site, certificate,
 * memo slot) taking most of a handshake. The hot copies are dense (128 B
 * per certificate, 32 B per site), so the popular ones stay in cache.
 *
 * Memo front entries: direct-mapped on the key (mode, service, view
 * version), each the key and answer of an earlier memo lookup of this
 * certificate. Memo entries are never removed, so a front hit is a memo
 * hit on the same key with the same answer: it only skips the probe of
 * the big table, and is counted as a memo hit. A certificate a site
 * holds has a second copy, its slot (web.sloth), whose entries fill apart
 * from certh's: each copy's entries are still keys and answers of memo
 * entries, so which copy a lookup uses changes nothing it answers or
 * counts. */
#define WEB_MEMO_FRONT 8

typedef struct web_memo_front {
    uint32_t version;
    uint16_t us;
    uint8_t mode;           /* 0: empty */
    uint8_t reason;
} web_memo_front;

typedef struct web_cert_hot {
    uint8_t kind;           /* WEB_SA, WEB_LR */
    uint8_t lm_zero;        /* lm_match == 0 */
    uint16_t hash_nodes;    /* SHA-256 node hashes a client spends on its
                               proof and entry (web__cert_sync) */
    uint16_t group;         /* its site's group (certificate compression) */
    uint16_t ca;            /* CA index (< 65536, checked at creation) */
    uint32_t srv_auth[2];
    uint64_t obj;           /* = web_cert.obj */
    uint64_t landmark, log_number, serial;
    int64_t not_before, not_after;
    web_memo_front front[WEB_MEMO_FRONT];
} web_cert_hot;

/* What a handshake reads of a site, densely: its certificates, and what
 * the same handshake would cost with the baseline chains (web_flight.c). */
#define WEB_UPD_PARTS 7 /* update_bytes' parts (web_update.c); the 7th only
                          with a landmark group */

typedef struct web_site_hot {
    uint32_t cert[WEB_SITE_CERTS]; /* = web_site.cert */
    uint8_t ncert;
    uint8_t key;            /* key_alg index (web_key_alg_names) */
    uint8_t name_len;       /* its DNS name (the ClientHello's server_name) */
    uint8_t alg;            /* = web_site.alg (mtc_sig_alg): signing time */
    /* Certificate + CertificateVerify with the baseline chains, WEB_BASE_*:
     * the site's own key and CertificateVerify around the classical and
     * the ML-DSA-44 chain, and today's deployment (its chain as served,
     * with the chain's own leaf key). */
    uint32_t base_auth[3];
} web_site_hot;

enum { WEB_BASE_CLASSICAL = 0, WEB_BASE_MLDSA44 = 1, WEB_BASE_TODAY = 2 };

typedef struct web_site {
    sim_event ev;           /* next site action */
    struct web *wb;
    uint32_t id;
    uint32_t group;
    uint32_t ca;
    uint32_t key_gen;
    int alg;                /* mtc_sig_alg */
    uint32_t cv_len;        /* CertificateVerify message length */
    uint32_t ee_len;        /* EncryptedExtensions trust_anchors extension */
    uint32_t ee_len_noext;  /* EncryptedExtensions without it */
    uint32_t cert[WEB_SITE_CERTS]; /* newest first; WEB_NO_CERT = empty */
    uint32_t ncert;
    uint8_t spki[2700];     /* DER SPKI of the current key */
    uint16_t spki_len;
    uint8_t name_len;       /* strlen of its DNS name */
    uint16_t chain;         /* its chain profile (index in mtc_chain_profiles) */
    /* Certificate messages of the baseline chains around this site's key
     * (classical, ML-DSA-44), and today's Certificate + CertificateVerify */
    uint32_t base_msg[2], base_today;
    /* the same three Certificate messages compressed [brotli, zstd]
     * (wire lengths; today's without its CertificateVerify), when any
     * cohort and site group share an algorithm */
    uint32_t base_comp[2][3];
    uint32_t today_cv;      /* today's CertificateVerify */
    sim_time renew_at;      /* next routine renewal request */
    sim_time next_expiry;   /* earliest expiry among held certs */
    sim_time lr_install_at; /* pending landmark cert install (or MAX) */
    uint32_t pending_lr;    /* cert waiting for its install time */
    uint64_t ticket_sa, ticket_cur; /* request tickets */
    sim_time sa_ready_at;   /* when the current request's SA arrived */
    int compromised_pending;
    int revoke_pending;     /* its group's revoke_at is still to come */
    int replacing;          /* revoked_serving "replace": the request under
                               way replaces a revoked generation */
    int revoked_keep;       /* revoked_serving "keep" after the revocation */
} web_site;

typedef struct web_client {
    sim_event ev;
    sim_time next_visit;    /* SIM_TIME_MAX when offline */
    sim_time next_check;    /* when the next update check falls due (kept
                               while offline: an overdue check runs at the
                               next start-up); MAX: never */
    sim_time session_edge;  /* online: session end; offline: next start;
                               not yet installed: its arrival */
    uint64_t rng_n;         /* draws taken from the client's stream */
    /* no id: client i of a shard is global client i * nshards + shard
     * (web__client_id), which keeps the struct at two cache lines */
    uint32_t pub;           /* update-service publication held */
    uint32_t ticket_rank[WEB_TICKETS]; /* rank + 1 of each ticket's site (0: none) */
    uint32_t ticket_exp[WEB_TICKETS]; /* seconds of sim time */
    uint16_t cohort;
    uint8_t online;         /* WEB_OFFLINE, WEB_ONLINE, WEB_UNBORN */
    uint8_t ticket_next;
} web_client;

enum { WEB_OFFLINE = 0, WEB_ONLINE = 1, WEB_UNBORN = 2 };

/* Installs waiting for their policy delay (update_apply_delay), oldest
 * first: a client's delay D is one constant, so ready times are in fetch
 * order. Only cohorts with a delay have these (one per client, out of the
 * client struct, which must stay at two cache lines). A fetch within D/31
 * of the newest pending install's first fetch joins that install (at most
 * D/31 late, never early: web_update.c), which bounds the queue at 32. */
#define WEB_APPLY_SLOTS 32

typedef struct web_applyq {
    sim_time delay;         /* this client's policy delay */
    uint32_t pub[WEB_APPLY_SLOTS];
    uint32_t ready[WEB_APPLY_SLOTS]; /* seconds of sim time (rounded up) */
    uint32_t anchor;        /* ready time of the newest install's first fetch */
    uint8_t head, n;
} web_applyq;

/* Per update service, per publication q (computed once, in publication
 * order, from the PKI's views): what the landmark metrics need.
 *   lm_pub[q]    the first publication carrying q's newest landmark of
 *                every CA (a client holding p lacks a landmark of q iff
 *                p < lm_pub[q])
 *   lm_time[q * nca + ca]  when the newest landmark of ca in q was first
 *                published (-1: q has none)
 *   nw[q * nca + ca]       the landmarks of ca first published in q: log
 *                number and range (lo, hi] of the newest log */
typedef struct web_lm_new {
    uint64_t log_number, lo, hi;
} web_lm_new;

typedef struct web_lmline {
    uint32_t n, cap;        /* publications 0..n-1 are computed */
    uint32_t *lm_pub;
    sim_time *lm_time;
    web_lm_new *nw;
} web_lmline;

/* Per (update service, publication): the ClientHello extension length
 * and the advertised landmark per (CA, log slot), computed once. */
typedef struct web_pubinfo {
    uint32_t ready;
    uint32_t ch_ext_len;
    uint64_t group_version;  /* landmark group version advertised (0: none;
                                web_groups.c) */
    /* adv[ca * SIM_CA_MAX_LOGS + k]: log number and last landmark */
    uint64_t *adv_log, *adv_lm;
    uint64_t *adv_max_active;
    uint32_t *ca_version;   /* view version per CA */
    /* view per CA (pub_view's answer: stable for the world's lifetime;
     * the array is separately allocated, so it stays put when the
     * publication table grows) */
    const sim_ca_view **view;
} web_pubinfo;

/* What a cohort's first flights cost in round trips (web_flight.c): its
 * key share and transport, as thresholds over the encrypted part of the
 * server's flight (`enc`: EncryptedExtensions to Finished), so that a
 * handshake compares a few integers instead of framing its flight. A
 * value beyond the table is computed directly. */
#define WEB_RTT_STEPS 6     /* extra round trips answered from the table */
#define WEB_QUIC_DGRAMS 4   /* client Initial datagram counts tabled */

typedef struct web_flight {
    tls_transport t;
    uint16_t group;
    uint32_t sh_tcp, sh_quic;   /* ServerHello (32-byte / no session ID) */
    uint32_t ch_quic_base;      /* QUIC ClientHello, empty name, no ext */
    uint32_t ch_tcp_base;       /* TCP ClientHello (with its record header) */
    uint32_t fin_tcp, fin_quic; /* the client's Finished flight, framed */
    /* client Initial datagrams = 1 + steps(dgram_thr, ClientHello bytes) */
    uint32_t dgram_thr[WEB_QUIC_DGRAMS - 1];
    /* extra round trips = steps(thr, enc) */
    uint32_t thr_tcp[WEB_RTT_STEPS];
    uint32_t thr_quic[WEB_QUIC_DGRAMS][WEB_RTT_STEPS];
} web_flight;

/* A client's network path, in worlds where some cohort has an rtt: its
 * rtt and bandwidth and the draws taken from its path stream (sim/web.h).
 * It is the third cache line of the client's record (web__path): the
 * client struct stays at two lines, and a handshake finds its path on the
 * page of the client it already holds. Why: as a table of its own, the
 * path was a random access to another page per handshake, and the
 * profile of 10^6 clients put that access (its prefetch waited for the
 * page's translation) at about 40 % of what the latency model cost. */
#define WEB_VCACHE 3        /* certificates a client's verification cache holds */
#define WEB_VCACHE_TTL 1800 /* seconds a cached verification stays good */

typedef struct web_path {
    double rtt_ms;
    double bandwidth_bps;   /* 0: no serialization */
    uint64_t n;
    /* Verification cache (web_path.c): the last WEB_VCACHE sites of the
     * full-size world (ranks) whose certificate the client verified, the
     * certificate's installation number (its low 32 bits: a site holds a
     * handful of certificates at a time, so two of one site never share
     * them), and when the entry runs out (seconds of sim time). */
    uint32_t vc_obj[WEB_VCACHE];
    uint32_t vc_rank[WEB_VCACHE]; /* rank + 1; 0: empty */
    uint32_t vc_exp[WEB_VCACHE];
} web_path;

/* One cache line per client: a handshake's path and cache cost one miss. */
_Static_assert(sizeof(web_path) == 64, "web_path is one cache line");
/* A client record with a path: the client's two lines, then the path's. */
#define WEB_CLIENT_PATH_STRIDE (sizeof(web_client) + sizeof(web_path))

/* Observations held back and recorded a histogram at a time
 * (web__obsbuf_*): one histogram's observations in a row find its bin
 * table, edges and bins in the cache, where one at a time each waited for
 * them (about a quarter of what the latency model cost with 10^6
 * clients). Each histogram still gets its observations in the order they
 * were made, so every bit of it is as before. Two buffers use it: a full
 * handshake's latency observations (web_path.c) and what web__connect
 * records of every full handshake (web_hs_metrics.c). */
#define WEB_OBSBUF 256
#define WEB_OBSBUF_COLS 6
/* The latency buffer's columns */
enum {
    WEB_LB_LAT = 0,     /* handshake_ms */
    WEB_LB_NETWORK,     /* handshake_ms_network */
    WEB_LB_VERIFY,      /* verify_ms */
    WEB_LB_BASE,        /* handshake_ms_baseline_*, WEB_BASE_* from here */
    WEB_LB_COUNT = WEB_LB_BASE + 3
};
/* The handshake buffer's: auth_bytes, the ClientHello's trust_anchors
 * bytes and the extra round trips over TCP and QUIC. */
enum { WEB_HB_AUTH = 0, WEB_HB_CH_TA, WEB_HB_RTT_TCP, WEB_HB_RTT_QUIC, WEB_HB_COUNT };
_Static_assert(WEB_LB_COUNT <= WEB_OBSBUF_COLS && WEB_HB_COUNT <= WEB_OBSBUF_COLS,
               "a buffer has a column per histogram");
typedef struct web_obsbuf {
    size_t n;                             /* rows (handshakes) held */
    size_t ncols;
    sim_metric *metric[WEB_OBSBUF_COLS];  /* column j's histogram (the
                                             registry's, not owned) */
    uint32_t k[WEB_OBSBUF];               /* each row's cohort */
    double x[WEB_OBSBUF_COLS][WEB_OBSBUF]; /* NAN: not observed (a
                                             histogram ignores NAN) */
} web_obsbuf;

/* Verification prices, us on the development machine (sim/web_verify.h),
 * computed once by web__path_create; per handshake they are scaled by the
 * cohort's cpu_slowdown. */
typedef struct web_vprice {
    double cv_us[8];        /* a CertificateVerify, per mtc_sig_alg */
    double *sa_us;          /* per CA: a standalone certificate's
                               cosignatures under the policy */
    double node_us;         /* one Merkle node hash */
    double path_us;         /* decoding and path checks of one certificate */
    /* Per chain profile p (of wb->nprof): base_us[p * 3 + i], baseline
     * i's (WEB_BASE_*) chain without its CertificateVerify, for a client
     * whose store holds the newest root; today_cv_us[p] and
     * today_sign_ms[p], today's CertificateVerify by the profile's own
     * leaf key (the other baselines sign with the site's key) */
    double *base_us;
    double *today_cv_us;
    double *today_sign_ms;
} web_vprice;

typedef struct web_cohort {
    web_browsers_config cfg;
    size_t us;              /* update service index */
    sim_dist *zipf;         /* rank popularity (owned): web__popularity */
    uint32_t *rank_site;    /* the site standing in for each rank (owned);
                               NULL: rank = site (no sample) */
    web_flight fl;
    sim_nhpp *sessions;     /* NULL: always online (owned) */
    uint64_t first_id, count;
    int one_host;           /* hosts_per_visit is the constant 1: no draw */
    size_t first_local;     /* its first client in this shard's table */
    size_t nlocal;          /* its clients in this shard's table */
    web_applyq *applyq;     /* per local client; NULL: no apply delay */
    int has_path;           /* an rtt: its clients' records carry a path
                               (web__path); 0: no latency */
    /* (1 - loss_prob)^n for its connections (web_latency_keep_pows, set
     * by web__path_create): every pricing would otherwise form them again */
    double keep_pow[WEB_LAT_KEEP_POWS + 1];
    /* web_budget.c: the smallest enc whose server flight exceeds the TCP
     * initial window, and the QUIC amplification budget after 1..4
     * client Initial datagrams */
    uint32_t iw_thr;
    uint32_t amp_thr[WEB_QUIC_DGRAMS];
    /* online clients of this cohort, in total and by held publication */
    int64_t online;
    int64_t *online_pub;
    size_t online_pub_cap;
} web_cohort;

typedef struct web_memo_entry {
    uint64_t obj;           /* certificate installation number (0 = empty) */
    uint32_t version;       /* view version (0 in mode 1, see handshake) */
    uint16_t us;            /* update service (versions are per service) */
    uint8_t mode;           /* keying mode */
    uint8_t reason;         /* mtc_rp_reason */
} web_memo_entry;

typedef struct web_metrics {
    sim_metric *full, *sigless, *full_ca, *sigless_ca, *resumed, *retry;
    sim_metric *auth, *auth_cl, *auth_pq, *auth_today, *rtt_tcp, *rtt_quic;
    sim_metric *rtt_tcp_base[2], *rtt_quic_base[2], *full_key;
    sim_metric *verify, *upd_bytes, *upd_fetch, *revoked_acc;
    /* update_bytes by part (WEB_UPD_PARTS; NULL when the PKI does not
     * say): framing, subtree hashes, revocations, reference checkpoints,
     * cosignatures, proofs */
    sim_metric *upd_part[WEB_UPD_PARTS];
    sim_metric *no_cert, *acme_polls, *rev_exposure;
    sim_metric *ch_ta;      /* ClientHello trust_anchors bytes */
    /* certificate compression, per kind x algorithm (web_handshake.c) */
    sim_metric *comp_in, *comp_out;
    /* the client update model (web_browser.c) */
    sim_metric *lm_age, *lm_hold, *online, *lacking, *merged;
    /* revocation reach (web_revreach.c), per cohort */
    sim_metric *rev_enforce, *rev_unenforced, *rev_presented, *rev_accepted_k;
    /* handshake latency (web_path.c; NULL when no cohort has an rtt) */
    sim_metric *lat, *lat_base[3], *lat_resumed;
    /* the verification part of handshake_ms and of each baseline's
     * (WEB_BASE_*), and handshake_ms without it */
    sim_metric *lat_verify, *lat_verify_base[3], *lat_network;
    /* first flights over the TCP initial window / the QUIC amplification
     * budget, per arm: the handshake, then WEB_BASE_* + 1 (web_budget.c) */
    sim_metric *over_iw[4], *over_amp[4];
} web_metrics;

struct web {
    web_env env;
    const web_pki *pki;
    size_t nca, nus;
    /* sites */
    web_sites_config *site_cfg;
    size_t nsite_groups;
    web_site *sites;
    size_t nsites;
    uint64_t nranks;        /* the full-size world's sites (web__ranks summed) */
    double *ca_share;       /* per group x CA cumulative share */
    double *chain_w;        /* per group x chain profile: chain_mix weight */
    /* certificate compression: per group x cohort, the algorithm the
     * server picks (CERTCOMP_*, 0: none); any_comp: some pair has one */
    uint8_t *comp;
    int any_comp;
    size_t nprof;           /* chain profiles (mtc_chain_profiles) */
    /* certificates */
    web_cert *certs;
    web_cert_hot *certh;    /* parallel to certs (same capacity) */
    web_site_hot *siteh;    /* parallel to sites */
    /* certh of each site's certificates by their place in its list:
     * slot i of site s, sloth[s * WEB_SITE_CERTS + i], is certh[cert[i]]
     * (web__site_slots_sync and web__cert_sync keep it so). Why: a
     * handshake found its certificate's record through the site's record, two dependent cache
     * misses; a slot's address needs only the site's index, so both are
     * fetched at once (web__connect). */
    web_cert_hot *sloth;
    size_t ncerts, certs_cap;
    uint32_t *cert_free;
    size_t ncert_free, cert_free_cap;
    /* clients */
    web_cohort *cohorts;
    size_t ncohorts;
    /* nclients records of client_stride bytes (web__client): a
     * web_client, then, when some cohort has an rtt, its web_path
     * (WEB_CLIENT_PATH_STRIDE; else sizeof(web_client)) */
    web_client *clients;
    size_t nclients;
    size_t client_stride;
    /* publications per update service */
    web_pubinfo **pubs;
    size_t *npubs;
    web_lmline *lml;        /* per update service */
    sim_event sample_ev;    /* samples the online gauges on the metric grid */
    sim_time sample_step;
    /* memo: open addressing, power-of-two size */
    web_memo_entry *memo;
    size_t memo_cap, memo_used;
    uint64_t cert_objs;     /* certificates installed so far */
    /* baseline chains built so far (web_flight.c) */
    struct web_base_chain *base;
    size_t nbase;
    uint32_t fin_len;
    uint32_t enc_fixed;     /* EncryptedExtensions without extensions +
                               Finished: enc = srv_auth + enc_fixed */
    web_metrics m;
    int revreach_flush;     /* web_revreach.c's flush is registered */
    /* baseline observations deferred (web__base_defer_create): per site
     * and cohort, the full handshakes whose baseline bytes and round trips
     * are still to be recorded; NULL before the sites exist */
    uint64_t *base_pend;
    web_obsbuf *hsbuf;       /* web__hs_observe's held observations (with
                               base_pend; NULL: recorded at once) */
    web_vprice vp;          /* verification prices (web_path.c) */
    /* the baselines' verification observations deferred (web_path.c):
     * per cohort x chain profile x site key algorithm (8) x cache hit,
     * the full handshakes still to record; NULL: no latency */
    uint64_t *vpend;
    web_obsbuf *latbuf;     /* latency observations held (web_path.c;
                               NULL: no latency) */
    uint16_t *site_prof;    /* each site's chain profile, densely (web_path.c;
                               NULL: no latency) */
    sim_rng *path_rng;      /* the path streams' generator (NULL: no latency),
                               apart from env.rng so that a connection's
                               latency draws leave the client's stream
                               pointed at */
    web_stats st;
    struct web_staple *stp; /* learning from staples (web_staple.c); NULL: off */
    struct web_ldp *ldp;    /* landmark fetching on demand (web_ldp.c); NULL: off */
    struct web_anchors *anc; /* trust_anchors modes other than full
                               (web_anchors.c); NULL: every cohort full */
    int64_t epoch;
    /* Scratch for an extension encoded only for its length (the
     * ClientHello's trust_anchors): WEB_WIRE_SCRATCH bytes, owned here,
     * valid inside one encoding call; nothing keeps its contents. */
    uint8_t *wire_scratch;
};

/* trust_anchors is a 16-bit list of IDs (under 65,536 bytes) plus its
 * extension header. */
#define WEB_WIRE_SCRATCH (65536 + 8)

/* Zeroed memory for a big, randomly accessed table (clients, memo):
 * 2 MiB aligned and, where the kernel allows (THP "madvise" mode), backed
 * by huge pages, so that a random access costs a cache miss but not also
 * a page walk (10^6 clients are 100+ MB: 4 KiB pages miss the TLB on
 * nearly every access); under 2 MiB, 64-byte aligned (records of whole
 * cache lines stay whole). Free with free(). NULL when out of memory. */
void *web__big_calloc(size_t n, size_t size);
/* Browsers declared over all cohorts (every shard's). */
uint64_t web__clients_total(const web *wb);
/* Writes "<what>: out of memory: N sites and M browsers need about X
 * GiB (...)" into err: an allocation of the world failed. */
void web__nomem(const web *wb, const char *what, char *err, size_t errlen);

/* web_site.c */
int web__sites_create(web *wb, char *err, size_t errlen);
int web__sites_start(web *wb, char *err, size_t errlen);
void web__sites_destroy(web *wb);
/* Time (Unix seconds) of a sim time. */
int64_t web__unix(const web *wb, sim_time t);
/* The site's DNS name ("s<id>.<dns_suffix>") into buf; its length, or 0
 * when it does not fit. */
size_t web__site_dns(const web *wb, const web_site *s, char *buf, size_t cap);

/* web_browser.c */
/* Client i of this shard's table. */
static inline web_client *web__client(const struct web *wb, size_t i)
{
    return (web_client *)(void *)((char *)wb->clients + i * wb->client_stride);
}
/* The table index of client c; of any address, integer arithmetic only
 * (web__path_prefetch may pass one that is not a client). Both strides
 * are constants, so neither costs a division. */
static inline size_t web__client_index(const struct web *wb, const void *c)
{
    size_t off = (size_t)((uintptr_t)c - (uintptr_t)wb->clients);
    return wb->client_stride == sizeof(web_client) ? off / sizeof(web_client)
                                                   : off / WEB_CLIENT_PATH_STRIDE;
}
/* The global id of a client of this shard (names its random stream). */
static inline uint64_t web__client_id(const struct web *wb, const web_client *c)
{
    return (uint64_t)web__client_index(wb, c) * wb->env.nshards + wb->env.shard;
}
int web__clients_create(web *wb, char *err, size_t errlen);
int web__clients_start(web *wb, char *err, size_t errlen);
void web__clients_destroy(web *wb);

/* web_update.c: updates, installs, the landmark timeline and metrics */
static inline sim_time web__add_sat(sim_time a, sim_time d)
{
    return d >= SIM_TIME_MAX - a ? SIM_TIME_MAX : a + d;
}
/* The install queue of client c (NULL: its cohort has no apply delay). */
static inline web_applyq *web__applyq(const struct web *wb, const web_client *c,
                                      const web_cohort *co)
{
    return co->applyq ? &co->applyq[web__client_index(wb, c) - co->first_local]
                      : NULL;
}
/* Creates the update model's metrics (docs/metrics.md). */
int web__update_metrics_create(web *wb);
/* Extends the landmark timeline of service us to publication q (<= the
 * latest). MTC_OK or MTC_ERR_NOMEM (the timeline is unchanged). */
int web__lml_ensure(web *wb, size_t us, uint32_t q);
/* The latest publication of service us made at or before t (0: none). */
uint32_t web__pub_at(web *wb, size_t us, sim_time t);
/* Adds d online clients holding pub to the cohort's count. */
void web__online_pub_add(web_cohort *co, uint32_t pub, int64_t d);
/* Schedules the sampler of the online gauges on the metric grid. */
void web__sampler_start(web *wb);
/* One update check of c at now (a failure draw when update_fail_prob > 0):
 * fetches the latest publication and installs it, at once or after the
 * client's policy delay. */
void web__update_check(web *wb, web_client *c, web_cohort *co, gsl_rng *r,
                       sim_time now);
/* Installs whose policy delay has run out by now. */
void web__apply_due(web *wb, web_client *c, web_cohort *co, sim_time now);
/* The first due check at a random phase of update_interval from now. */
sim_time web__random_phase_due(const web_cohort *co, gsl_rng *r, sim_time now);
/* A full handshake of c with a site of CA ca at now: records the age of
 * the newest landmark of ca that c holds (landmark_age_at_handshake). */
void web__observe_landmark_age(web *wb, const web_client *c, size_t ca,
                               sim_time now);
void web__update_destroy(web *wb); /* frees the timelines */

/* web_handshake.c */
int web__handshake_init(web *wb, char *err, size_t errlen);
void web__handshake_destroy(web *wb);
/* The publication info for (us, pub), computed on first use. */
const web_pubinfo *web__pubinfo(web *wb, size_t us, uint32_t pub);
/* One connection from client c to `site`, standing in for the full-size
 * world's `rank` (its session tickets name the rank), at now (full or
 * resumed). */
void web__connect(web *wb, web_client *c, uint32_t site, uint32_t rank,
                  sim_time now, gsl_rng *r);
/* Recomputes the site's EncryptedExtensions length after its set changed
 * (and the hot copies of the site and its certificates). */
void web__site_set_changed(web *wb, web_site *s);
/* The hot record of certificate id of site `site`: its slot (sloth) when
 * the site holds it, else certh[id]; the same fields either way. */
static inline web_cert_hot *web__cert_hot(const struct web *wb, uint32_t site, uint32_t id)
{
    const web_site_hot *s = &wb->siteh[site];
    for (size_t i = 0; i < WEB_SITE_CERTS; i++)
        if (i < s->ncert && s->cert[i] == id)
            return &wb->sloth[(size_t)site * WEB_SITE_CERTS + i];
    return &wb->certh[id];
}
/* Copies the hot records of the site's certificates into its slots
 * (after its list changed; web__cert_sync refreshes one certificate's
 * slot). web_site.c. */
void web__site_slots_sync(struct web *wb, uint32_t site);
/* Refreshes certh[id] and its site's slot of it from certs[id] (memo front kept). */
void web__cert_sync(web *wb, uint32_t id);
/* The round trips of a server flight with `enc` bytes after the
 * ServerHello, over TCP and QUIC, to a client whose ClientHello carried
 * ch_ext bytes of trust_anchors (checked against the slow way under
 * check_invariants). */
void web__flight_rtt(web *wb, const web_flight *f, uint32_t name_len,
                     uint32_t ch_ext, uint32_t enc, uint32_t *tcp, uint32_t *quic);

/* web_hs_metrics.c: the handshake metrics */
/* Certificate kinds of cert_message_bytes* (times two algorithms). */
enum { COMP_SA = 0, COMP_LR = 1, COMP_CLASSICAL = 2, COMP_MLDSA44 = 3, COMP_TODAY = 4,
       COMP_KINDS = 5 };
/* Registers the web metrics of wb->m with their cohort labels.
 * MTC_OK, SIM_ERR_METRIC or MTC_ERR_NOMEM. */
int web__metrics_create(web *wb);
/* Names the cells of each metric of mts[0..n) (NULL entries skipped) after
 * the browser cohorts; with no cohorts, nothing. MTC_OK, MTC_ERR_NOMEM or
 * SIM_ERR_ARG (a metric not broken down by cohort). */
int web__label_by_cohort(const web *wb, sim_metric *const *mts, size_t n);
/* Defers the baseline histograms' observations (sim/metrics.h, deferred
 * observations): a full handshake counts one per site and cohort, and the
 * counts are recorded when the registry flushes, or for one site before
 * its baseline bytes change (web__base_flush_site). Registers the flush
 * with the registry; web__base_defer_destroy unregisters it. */
int web__base_defer_create(web *wb);
void web__base_defer_destroy(web *wb);
/* Records the deferred baseline observations of site `site` now. */
void web__base_flush_site(web *wb, uint32_t site);
/* A buffer (malloc'd, the caller's) for the ncols histograms m[0..ncols),
 * registered before it; NULL when memory runs out. */
web_obsbuf *web__obsbuf_new(sim_metric *const *m, size_t ncols);
/* Records the rows held, a histogram at a time, and empties b. */
void web__obsbuf_flush(web_obsbuf *b);
/* Counts the row just written at b->n, recording the batch when full. */
static inline void web__obsbuf_commit(web_obsbuf *b)
{
    if (++b->n == WEB_OBSBUF)
        web__obsbuf_flush(b);
}
/* A full handshake's auth_bytes, clienthello_trust_anchors_bytes,
 * extra_rtt_tcp and extra_rtt_quic for cohort k: held (while the registry
 * records) and recorded a histogram at a time when the buffer fills and
 * on every flush (web__base_defer_create's). */
void web__hs_observe(web *wb, size_t k, uint32_t auth, uint32_t ch_ta,
                     uint32_t rtt_tcp, uint32_t rtt_quic);

/* web_revreach.c: revocation reach */
/* Registers its metrics (after every other web metric) and the flush that
 * counts unenforced (client, revocation) pairs. MTC_OK, SIM_ERR_METRIC or
 * MTC_ERR_NOMEM. */
int web__revreach_create(web *wb);
void web__revreach_destroy(web *wb);
/* A client of cohort k installs publication `to` of service us (held
 * `from`) at `at`: the revocations it brings are enforced from now. */
void web__revreach_install(web *wb, size_t k, size_t us, uint32_t from, uint32_t to,
                           sim_time at);
/* A full handshake of cohort k in which the server presented a revoked
 * certificate; accepted: the client accepted it (not yet enforced). */
void web__revreach_handshake(web *wb, size_t k, int accepted);

/* web_groups.c: timestamped multi-CA landmark groups */
/* 1 when service us has a landmark group. */
int web__groups_on(const web *wb, size_t us);
/* The ClientHello trust anchor IDs of publication pub of service us when
 * it has a group: single-log groups (or CA IDs) for CAs outside it, one
 * group version ID for its members (or their CA IDs when the client
 * holds no version). Rewrites pi's advertised landmarks of member CAs to
 * the version's ranges and sets pi->group_version. ids holds at least
 * nca * (SIM_CA_MAX_LOGS + 1) entries; returns how many it wrote. */
size_t web__groups_ids(web *wb, size_t us, uint32_t pub, web_pubinfo *pi,
                       mtc_taid *ids);
/* check_invariants: the negotiation redone from real bytes (ClientHello
 * encoded and parsed, group versions decoded and matched by mtc/lmgroup.h);
 * a difference from the fast path counts an invariant violation. */
void web__groups_slow_check(web *wb, size_t us, uint32_t apub, const web_site *s,
                            uint32_t fast_id, int fast_matched,
                            const web_pubinfo *adv);

/* web_flight.c */
/* The negotiated certificate compression of site group g with cohort k. */
static inline int web__comp_alg(const struct web *wb, uint32_t g, size_t k)
{
    return wb->comp ? wb->comp[(size_t)g * wb->ncohorts + k] : 0;
}
/* Builds wb->comp from the groups' and cohorts' cert_compression lists
 * (the server's preference among what the client offers). */
int web__comp_negotiate(web *wb);
/* Certificate + CertificateVerify of baseline i (WEB_BASE_*) of site
 * `site` for a client of cohort k (compressed when they negotiate it). */
uint32_t web__base_auth(const web *wb, uint32_t site, size_t k, int i);
/* The cohort's flight table from its key share and transport settings;
 * SIM_ERR_CONFIG with err naming the parameter. */
int web__flight_init(web *wb, web_cohort *co, char *err, size_t errlen);
/* Prices the baselines of site s (its name and current key): base_msg,
 * base_today and the hot copies. Builds each distinct chain once. */
int web__site_baselines(web *wb, web_site *s);
/* The hot copies of the site's baseline bytes after its key changed. */
void web__site_baselines_sync(web *wb, web_site *s);
void web__baselines_destroy(web *wb);
unsigned web__flight_dgrams_slow(const web_flight *f, uint32_t ch_len);
unsigned web__flight_rtt_tcp_slow(const web_flight *f, uint32_t enc);
unsigned web__flight_rtt_quic_slow(const web_flight *f, unsigned dgrams, uint32_t enc);

/* How many of the n increasing thresholds x reaches. */
static inline unsigned web__steps(const uint32_t *thr, unsigned n, uint32_t x)
{
    unsigned k = 0;
    while (k < n && x >= thr[k])
        k++;
    return k;
}

/* Client Initial datagrams for a QUIC ClientHello with ch_ext bytes of
 * trust_anchors to a site whose name has name_len bytes. */
static inline unsigned web__flight_dgrams(const web_flight *f, uint32_t name_len,
                                          uint32_t ch_ext)
{
    uint32_t ch = f->ch_quic_base + name_len + ch_ext;
    unsigned k = web__steps(f->dgram_thr, WEB_QUIC_DGRAMS - 1, ch);
    return k < WEB_QUIC_DGRAMS - 1 ? k + 1 : web__flight_dgrams_slow(f, ch);
}

static inline unsigned web__flight_rtt_tcp(const web_flight *f, uint32_t enc)
{
    unsigned k = web__steps(f->thr_tcp, WEB_RTT_STEPS, enc);
    return k < WEB_RTT_STEPS ? k : web__flight_rtt_tcp_slow(f, enc);
}

static inline unsigned web__flight_rtt_quic(const web_flight *f, unsigned dgrams,
                                            uint32_t enc)
{
    if (dgrams > WEB_QUIC_DGRAMS)
        return web__flight_rtt_quic_slow(f, dgrams, enc);
    unsigned k = web__steps(f->thr_quic[dgrams - 1], WEB_RTT_STEPS, enc);
    return k < WEB_RTT_STEPS ? k : web__flight_rtt_quic_slow(f, dgrams, enc);
}

/* If id is <prefix>.<one more arc>, sets *arc to that arc and returns 1;
 * 0 otherwise (also for an arc over 64 bits). web_handshake.c. */
int web__taid_suffix_arc(const mtc_taid *id, const mtc_taid *prefix, uint64_t *arc);

/* web_staple.c: learning from full certificates (a what-if; all no-ops
 * when no cohort learns from staples) */
typedef struct web_staple web_staple;
int web__staple_create(web *wb, char *err, size_t errlen);
void web__staple_destroy(web *wb);
/* pi, or a scratch copy (slot 0 or 1) with the landmarks client c learned
 * from staples where they are newer than pi's. */
const web_pubinfo *web__staple_view(web *wb, const web_client *c, size_t us,
                                    const web_pubinfo *pi, int slot);
int web__staple_is_scratch(const web *wb, const web_pubinfo *pi);
/* ClientHello bytes of the support signal (0 unless the cohort learns). */
uint32_t web__staple_signal(const web *wb, const web_cohort *co);
/* Bytes the server adds beside a standalone certificate of CA ca (0: no
 * staple); *copy names it for web__staple_after. */
uint32_t web__staple_offer(web *wb, const web_cohort *co, uint32_t ca,
                           uint32_t *copy);
/* After a full handshake with a site of CA ca: the by-visit metrics and,
 * when a staple came (copy != 0), its verification and learning. */
void web__staple_after(web *wb, web_client *c, size_t us, uint32_t ca,
                       uint32_t copy, uint32_t bytes, int sigless);
/* web_anchors.c: what a client with many trust anchors lists
 * (draft-ietf-tls-trust-anchor-ids-04): the site's HTTPS record with the
 * tls-trust-anchors parameter, the intersection, an empty list and the
 * retry from the server's list. All no-ops (wb->anc NULL) when every
 * cohort's trust_anchors is full. */
int web__anchors_create(web *wb, char *err, size_t errlen);
void web__anchors_destroy(web *wb);
/* The site's certificate set changed to the AvailableTrustAnchorList
 * ids[n] (server preference order): its HTTPS record as of now. */
void web__anchors_site_changed(web *wb, const web_site *s, const mtc_taid *ids, size_t n);
/* A client of cohort k (mode dns or retry) whose advertised state is adv
 * connects to site at now: the certificate the server sends (WEB_NO_CERT:
 * none), *matched (it matched the client's list) and *ch_len (the
 * ClientHello's trust_anchors bytes); records the DNS lookup. */
uint32_t web__anchors_select(web *wb, size_t k, uint32_t site, const web_pubinfo *adv,
                             sim_time now, gsl_rng *rng, int *matched, uint32_t *ch_len);
/* After the landmark-relative certificate `failed` was refused for a
 * landmark the client lacks: the first path of the server's
 * EncryptedExtensions list that the client (holding own) trusts, and
 * *ch_len, the retry's trust_anchors bytes listing only its ID;
 * WEB_NO_CERT when none. */
uint32_t web__anchors_retry_pick(const web *wb, uint32_t site, const web_pubinfo *own,
                                 uint32_t failed, uint32_t *ch_len);
/* The EncryptedExtensions trust_anchors bytes of site (0 when it lists
 * nothing). */
uint32_t web__anchors_ee_bytes(const web *wb, uint32_t site);
/* After a full handshake of cohort k: ee bytes of server lists received. */
void web__anchors_after(web *wb, size_t k, uint32_t ee);
/* web_ldp.c: Landmark Distribution Points (draft-gray-plants-mtc-ldp):
 * a client lacking a landmark fetches the proof set on demand. All no-ops
 * when no cohort has ldp set. */
typedef struct web_ldp web_ldp;
typedef struct web_ldp_fetch {
    uint8_t state;          /* WEB_LDPF_*: what happened in this handshake */
    uint32_t req, resp;     /* HTTP payload bytes each way */
    double u;               /* the fetch's loss uniform (web_latency_ms_u) */
} web_ldp_fetch;
enum { WEB_LDPF_NONE = 0, WEB_LDPF_OK = 1, WEB_LDPF_FAILED = 2, WEB_LDPF_CACHED = 3 };
int web__ldp_create(web *wb, char *err, size_t errlen);
void web__ldp_destroy(web *wb);
/* ClientHello bytes of the support signal (0 unless the cohort signals). */
uint32_t web__ldp_signal(const web *wb, const web_cohort *co);
/* The certificate a server sends a client signalling support that no
 * landmark-relative certificate matched: its newest landmark-relative
 * certificate of a CA with distribution points, else WEB_NO_CERT. */
uint32_t web__ldp_offer(const web *wb, const web_site_hot *s);
/* A client of cohort co lacking the landmark of certificate id, whose
 * view of the CA is base: the view to verify it against, from a proof set
 * it holds (f->state WEB_LDPF_CACHED) or has just fetched (WEB_LDPF_OK),
 * or NULL (nothing, or the fetch failed: WEB_LDPF_FAILED). */
const sim_ca_view *web__ldp_resolve(web *wb, web_client *c, const web_cohort *co,
                                    uint32_t id, const sim_ca_view *base, sim_time now,
                                    web_ldp_fetch *f);
/* After a full handshake of cohort k. */
void web__ldp_after(web *wb, size_t k, const web_ldp_fetch *f, int sigless, int retried);
/* The fetch's latency (web_path.c), recorded per cohort. */
void web__ldp_observe_ms(web *wb, size_t k, double ms);
/* web_path.c: handshake latency over a client's network path */
/* The path of client c, whose cohort has one (co->has_path): the line
 * after the client in its record. */
static inline web_path *web__path(const web_client *c)
{
    return (web_path *)(uintptr_t)((const char *)c + sizeof(web_client));
}
/* Fetches the path line of the event `ev` ahead of its handshake, in a
 * world with paths: without this each priced handshake waits for a cache
 * miss. Integer arithmetic only: `ev` may not be a client at all (then a
 * harmless address is prefetched), and it is on the page of the client
 * lines prefetched with it, so it costs no translation of its own. */
static inline void web__path_prefetch(const struct web *wb, const void *ev)
{
    if (wb->client_stride == WEB_CLIENT_PATH_STRIDE)
        __builtin_prefetch((const void *)((uintptr_t)ev + sizeof(web_client)));
}
/* Fetches what web__path_full reads of `site` beyond its hot record (its
 * chain profile), to be called before the handshake: the profiles are a
 * table of their own, and the profile showed that read as a cache miss
 * per priced handshake. Only in a world with paths (wb->site_prof). */
static inline void web__path_prefetch_site(const struct web *wb, uint32_t site)
{
    __builtin_prefetch(&wb->site_prof[site]);
}
/* The path generator and the latency metrics when a cohort has an rtt
 * (nothing otherwise). MTC_OK, MTC_ERR_NOMEM, SIM_ERR_METRIC. */
int web__path_create(web *wb);
void web__path_destroy(web *wb);
/* Draws the rtt of client cid (draw 0 of its path stream). */
void web__path_init(web *wb, web_path *p, const web_cohort *co, uint64_t cid);
/* Prices a full handshake of client c with site `site`, standing in for
 * the full-size world's `rank` (the verification cache's key), at `now`: `n`
 * attempts (2: a retry) with ch_ext bytes of trust_anchors in the
 * ClientHello and `enc` bytes after the ServerHello, and the client's
 * verification of the certificate whose hot record is `ch` (the one
 * finally accepted or refused); then the same handshake with each baseline chain; records
 * handshake_ms, its baselines and their verification parts. */
void web__path_full(web *wb, const web_client *c, const web_cohort *co,
                    uint32_t site, uint32_t rank, const web_cert_hot *ch, sim_time now,
                    unsigned n, const uint32_t *ch_ext, const uint32_t *enc,
                    const web_ldp_fetch *fetch);
/* Prices a resumed handshake (no Certificate, no signature). */
void web__path_resumed(web *wb, const web_client *c, const web_cohort *co,
                       uint32_t site);

/* web_budget.c: first flights over the first-round budgets */
/* Thresholds per cohort (after web__flight_init) and the metrics.
 * MTC_OK, MTC_ERR_NOMEM, SIM_ERR_METRIC. */
int web__budget_create(web *wb);
/* 1 when a server flight with `enc` bytes after its ServerHello exceeds
 * the amplification budget of a client that sent `dgrams` Initials. */
int web__budget_over_amp(const web_cohort *co, unsigned dgrams, uint32_t enc);
/* n handshakes of cohort k on arm `arm` (0: as negotiated; WEB_BASE_* +
 * 1: a baseline), whose ClientHello carried ch_ext bytes of
 * trust_anchors to a site with a name of name_len bytes, and whose
 * server flight had `enc` bytes after the ServerHello. */
void web__budget_count(web *wb, size_t k, int arm, uint32_t name_len,
                       uint32_t ch_ext, uint32_t enc, uint64_t n);

/* web_popularity.c */
/* The ranks of the full-size world a site group stands in for. */
uint64_t web__ranks(const web_sites_config *c);
/* The rank-choice distribution of a cohort with Zipf exponent s over
 * wb->nranks ranks: each site group gets its traffic share, Zipf over its
 * own ranks within it (sim/web.h "Popularity"); *map: the site standing in
 * for each rank, NULL when every site is its own rank. Both owned by the
 * caller. */
int web__popularity(const web *wb, double s, sim_dist **out, uint32_t **map);

#endif
