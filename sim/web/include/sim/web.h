/*
 * sim/web.h - the web side of the world model: sites (authenticating
 * parties), browser cohorts (relying parties) and the TLS certificate
 * negotiation between them. The model and its assumptions: docs/model.md;
 * the tour of the files: sim/web/README.md.
 *
 * The web side talks to the PKI only through web_pki, a table of the
 * sim/world.h queries it uses (issue, revoke, CA facts and landmarks,
 * update-service publications and the relying-party view of each). In a
 * world the table calls sim_world_*; tests plug a small deterministic PKI
 * built on the real mtc-core (tests/lib/web_pki_fixture.h). Nothing else
 * couples the two sides.
 *
 * Entities. A "sites" entity is a group of `count` sites sharing a
 * configuration; a "browsers" entity is one cohort of `count` clients.
 * Sites are numbered across groups in declaration order, clients likewise
 * across cohorts (the client id names its random stream and decides its
 * MPI shard).
 *
 * Popularity. A cohort picks a site in two steps that are one draw: the
 * group, by its traffic_share (default: its share of all the full-size
 * world's sites), then a rank of that group by Zipf with the cohort's
 * exponent over the group's `represents` ranks (default: its count, the
 * group being the full-size world). So a group's traffic does not depend
 * on the order in which groups are declared; with equal sizes and default
 * shares two groups get equal traffic, and with one group this is the
 * plain Zipf over all ranks. Ranks are numbered across groups like sites;
 * each sampled site stands in for a contiguous range of its group's ranks
 * of about equal traffic (web_popularity.c). Session tickets name the
 * rank, so what a client revisits and resumes is the full-size world's
 * whatever the sample.
 *
 * Streams (sim/rng.h; kinds 64..127 are the web side's):
 *   WEB_STREAM_CLIENT (64)  id = client id: sessions, visits, update checks
 *   WEB_STREAM_SITE   (65)  id = site id: CA choice, issuance times
 *   WEB_STREAM_SITEKEY (66) id = site id: key seeds (draw 4*gen + i)
 *   WEB_STREAM_CLIENT_POLICY (67) id = client id: draw 0, the client's
 *                           update_apply_delay (a stream of its own, so that
 *                           a cohort with and without the policy makes the
 *                           same draws everywhere else: common random numbers)
 *   WEB_STREAM_SITE_CHAIN (69) id = site id: draw 0, the X.509 chain
 *                           profile the site serves today (chain_mix; a
 *                           stream of its own so that the other site draws
 *                           are those of a run without it)
 *   WEB_STREAM_CLIENT_PATH (68) id = client id: draw 0, the client's rtt;
 *                           then per connection its jitter and loss draws
 *                           (only in cohorts with an rtt; a stream of its
 *                           own for the same reason)
 *   WEB_STREAM_CLIENT_LDP (70) id = client id: two draws per fetch from
 *                           a Landmark Distribution Point (its failure,
 *                           its loss); a stream of its own likewise
 * A client's draws depend only on its own stream and on the PKI timeline,
 * which every shard replays identically, so a client behaves the same
 * whichever shard simulates it. Sites are simulated on every shard (their
 * issuance requests must be identical everywhere).
 *
 * Client update model (docs/model.md, "Web side: the client update
 * model"): what triggers a check (a start-up check after a session starts,
 * periodic checks every update_interval while online, at a random phase),
 * when a fetched publication may be installed (update_apply_delay after
 * the check that fetched it) and when the client is online at all
 * (sessions, absences of away_duration, arrival of new installs) are
 * separate parameters.
 *
 * Handshake (web_handshake.c), per the MTC draft's "Use in TLS" and
 * draft-ietf-tls-trust-anchor-ids: the client's ClientHello trust_anchors
 * lists, per CA, the landmark group of its latest landmark in each log
 * (or the CA ID when it has none); the server prefers a landmark-relative
 * certificate whose landmark lies in an advertised group, else a
 * standalone one; the client verifies with mtc_rp_verify against the
 * relying-party state of the publication it holds, memoized on
 * (certificate bytes, trusted state); a failed landmark-relative
 * certificate that failed because the client lacks its landmark (the
 * signalling failure of draft-ietf-tls-trust-anchor-ids section 5.6) is
 * retried once with only the CA ID, when the server's
 * EncryptedExtensions lists it; a revoked, expired or otherwise invalid
 * one is not (its standalone sibling shares the serial and validity).
 * Message bytes are lengths of real encodings of a modelled content
 * (sim/tls.h), precomputed per certificate, per site certificate set and
 * per client state; transport framing is counted by formula.
 *
 * Baselines. Each site draws the X.509 chain it serves today from its
 * group's chain_mix (a profile of mtc/chain.h: leaf with SCTs,
 * intermediate, cross-signed roots, real encodings). Each full handshake
 * is also priced with that chain around the site's own key, with the
 * site's own CertificateVerify ("classical": the difference is the
 * certificate mechanism alone), and with the same chain post-quantum
 * (every CA and log key ML-DSA-44, cross-signs left out, the site's own
 * key). Today's deployment (the drawn chain with its own leaf key and
 * CertificateVerify) is a separate figure. Round trips of the baseline
 * flights use the same cohort key share and transport.
 *
 * Ownership: the engine, metrics, rng and PKI table are borrowed and must
 * outlive the web state. Not thread-safe.
 */
#ifndef SIM_WEB_H
#define SIM_WEB_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "mtc/chain_cache.h"
#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/params.h"
#include "sim/pki.h"
#include "sim/rng.h"
#include "sim/tls.h"
#include "sim/world.h"

enum {
    WEB_STREAM_CLIENT = 64,
    WEB_STREAM_SITE = 65,
    WEB_STREAM_SITEKEY = 66,
    WEB_STREAM_CLIENT_POLICY = 67,
    WEB_STREAM_CLIENT_PATH = 68,
    WEB_STREAM_SITE_CHAIN = 69,
    WEB_STREAM_CLIENT_LDP = 70
};

/* ldp: what a client lacking a certificate's landmark does (web_ldp.c):
 * nothing (the draft: it never signals, servers send it standalone
 * certificates), fetch the proof set from the certificate's Landmark
 * Distribution Points, or signal but retry with a standalone certificate */
enum { WEB_LDP_OFF = 0, WEB_LDP_FETCH = 1, WEB_LDP_RETRY = 2 };

/* trust_anchors: what an MTC-aware client puts in its ClientHello's
 * trust_anchors (draft-ietf-tls-trust-anchor-ids-04; web_anchors.c):
 * every CA's landmark group, unconditionally (full); the intersection of
 * what it trusts with the site's HTTPS record's tls-trust-anchors
 * parameter (dns); an empty list, relying on the server's list in
 * EncryptedExtensions and the retry mechanism (retry) */
enum { WEB_TA_FULL = 0, WEB_TA_DNS = 1, WEB_TA_RETRY = 2 };

/* revoked_serving: what a site whose certificates were revoked presents
 * (web_site.c): the revoked certificates until they expire (the holder of
 * a mis-issued certificate, or a subscriber that does not react), or a
 * replacement as soon as its standalone certificate exists */
enum { WEB_REVOKED_KEEP = 0, WEB_REVOKED_REPLACE = 1 };
extern const char *const web_revoked_serving_names[];

/* update_on_start: when a session start triggers a check */
enum { WEB_START_IF_DUE = 0, WEB_START_ALWAYS = 1 };
/* update_phase: when the first periodic check of a client falls due */
enum { WEB_PHASE_RANDOM = 0, WEB_PHASE_START = 1 };

/* ---- the PKI as the web side sees it ------------------------------------ */

typedef struct web_pki {
    void *ctx;
    size_t (*ca_count)(void *ctx);
    const sim_ca_info *(*ca)(void *ctx, size_t ca);
    const mtc_landmarks *(*ca_landmarks)(void *ctx, size_t ca,
                                         uint64_t log_number);
    int (*issue)(void *ctx, size_t ca, const sim_issue_request *req,
                 uint64_t *ticket);
    int (*revoke)(void *ctx, size_t ca, uint64_t log_number, uint64_t first,
                  uint64_t last);
    int (*is_revoked)(void *ctx, size_t ca, uint64_t serial, sim_time *since);
    size_t (*us_count)(void *ctx);
    uint32_t (*pub_latest)(void *ctx, size_t us);
    int (*pub_available)(void *ctx, size_t us);
    const sim_ca_view *(*pub_view)(void *ctx, size_t us, uint32_t pub,
                                   size_t ca);
    size_t (*update_bytes)(void *ctx, size_t us, uint32_t from, uint32_t to);
    /* Index of the update service called name, or < 0; NULL when the
     * PKI has a single, unnamed service. */
    int (*us_find)(void *ctx, const char *name);
    /* When publication pub of service us was published. */
    sim_time (*pub_time)(void *ctx, size_t us, uint32_t pub);
    /* What-if: CA ca's newest landmark staple, NULL when none (a NULL
     * member: the PKI never staples). */
    const sim_ca_staple *(*staple)(void *ctx, size_t ca);
    /* The timestamped multi-CA landmark group of service us, or NULL (no
     * group; also when this pointer is NULL). */
    const sim_lmgroup *(*us_group)(void *ctx, size_t us);
    /* The algorithm of CA ca's external cosigner i (< ncosigners), in the
     * order of its policy; NULL member: taken as the CA's own (sim_ca_info
     * alg). Prices a client's verification (docs/model.md). */
    mtc_sig_alg (*cosigner_alg)(void *ctx, size_t ca, size_t i);
    /* What CA ca's Landmark Distribution Points answer for a landmark
     * (draft-gray-plants-mtc-ldp), NULL when nothing (also when this
     * pointer is NULL). */
    const sim_ca_proof_set *(*proof_set)(void *ctx, size_t ca, uint64_t log_number,
                                         uint64_t landmark);
    /* update_bytes with the parts of the encoding (NULL: the PKI does not
     * say; then no update_bytes_* part metric exists). */
    size_t (*update_parts)(void *ctx, size_t us, uint32_t from, uint32_t to,
                           sim_update_parts *out);
    /* CA ca's explicit revocations so far, and when revocation i was made
     * (sim_pki_revocations, sim_pki_revocation_at): the revocation reach
     * metrics measure from it. NULL members: those metrics stay empty. */
    size_t (*revocations)(void *ctx, size_t ca);
    sim_time (*revocation_at)(void *ctx, size_t ca, size_t i);
} web_pki;

/* The table over a world's PKI module (valid while w lives). */
void web_pki_from_world(web_pki *out, sim_world *w);

/* ---- configuration ------------------------------------------------------ */

#define WEB_NAME_MAX SIM_PARAM_NAME_MAX

typedef struct web_sites_config {
    char name[WEB_NAME_MAX];
    int64_t count;              /* sites in this group */
    sim_param_list ca_shares;   /* "ca_name:share" items; empty: uniform */
    int key_alg;                /* index into web_key_alg_names */
    double renew_fraction;      /* renew at this fraction of lifetime */
    int keep_old;               /* keep the previous certificates until expiry */
    int rotate_key;             /* new key at each routine renewal */
    sim_time issue_spread;      /* first request uniformly in [0, spread) */
    sim_time lifetime;          /* requested lifetime; 0: the CA's maximum */
    sim_time retry_after;       /* ACME Retry-After for the landmark cert */
    sim_time compromise_at;     /* key compromise time; 0: never */
    double compromise_fraction; /* share of sites compromised then */
    /* Revocation reach: at revoke_at (0: never) the CA revokes the
     * certificates a revoke_fraction of the group's sites hold; with
     * revoked_serving WEB_REVOKED_KEEP they go on presenting them until they
     * expire (and renew nothing), with WEB_REVOKED_REPLACE they request a
     * replacement at once and drop the revoked ones when it arrives */
    sim_time revoke_at;
    double revoke_fraction;
    int revoked_serving;        /* WEB_REVOKED_* */
    char dns_suffix[WEB_NAME_MAX];
    double traffic_share;       /* weight in site choice; 0: represents / all */
    int64_t represents;         /* full-size world's sites this group samples
                                   (ranks clients choose among); 0: count */
    sim_param_list chain_mix;   /* "profile:weight" items (mtc/chain.h): the
                                   chains these sites serve today */
    sim_param_list cert_compression; /* RFC 8879 algorithms the servers
                                   support, preferred first; empty: none */
    /* Its HTTPS record's tls-trust-anchors parameter (read by cohorts
     * with trust_anchors = dns): published this long after the
     * certificate set changes, cached by resolvers up to its TTL */
    sim_time https_record_delay;
    sim_time https_record_ttl;
} web_sites_config;

typedef struct web_browsers_config {
    char name[WEB_NAME_MAX];
    int64_t count;              /* clients in this cohort */
    double sessions_per_day;    /* online sessions started per day; 0: always online */
    double online_profile[SIM_PROFILE_HOURS]; /* daily profile of session starts */
    sim_dist *session_duration; /* seconds */
    double visits_per_hour;     /* page visits while online (Poisson) */
    sim_dist *hosts_per_visit;  /* distinct hosts contacted per visit (>= 1) */
    sim_dist *startup_hosts;    /* a browser start's burst of hosts; NULL: none */
    double zipf_exponent;       /* site popularity */
    sim_time update_first_delay; /* start-up check: this long after a session starts */
    sim_dist *update_interval;  /* seconds from one check to the next due one */
    int update_on_start;        /* WEB_START_IF_DUE, WEB_START_ALWAYS */
    int update_phase;           /* WEB_PHASE_RANDOM, WEB_PHASE_START */
    sim_dist *update_apply_delay; /* policy: install this long after the
                                   fetching check (one draw per client);
                                   NULL: at once */
    double update_fail_prob;    /* a check fails (network, server) */
    int never_updates;          /* frozen at publication 0 */
    double away_prob;           /* a session's end starts an absence */
    sim_dist *away_duration;    /* seconds away (no session) */
    sim_time arrival_spread;    /* new installs arrive uniformly in [0, spread) */
    sim_dist *installer_age;    /* age of a new install's landmark state;
                                   NULL: it arrives with none */
    int mtc_aware;              /* 0: no trust_anchors extension at all */
    char update_service[WEB_NAME_MAX]; /* "" : the first one */
    sim_time ticket_lifetime;   /* session resumption; 0: none */
    int keep_tickets;           /* tickets survive a browser start */
    double missignal_prob;      /* advertise the latest landmarks instead of its own */
    int cosigner_policy;        /* index into web_policy_names */
    int transport;              /* 0 tcp, 1 quic (a label: both are priced) */
    int key_share;              /* index into web_group_names */
    int64_t quic_initial;       /* bytes of each client Initial datagram */
    int64_t quic_datagram;      /* server datagram size before PMTU discovery */
    int64_t tcp_mss;            /* TCP maximum segment size */
    int64_t tcp_initial_window; /* server's initial window, segments */
    int64_t client_hello_extra; /* unmodelled ClientHello extension bytes */
    int learn_staples;          /* what-if: learns landmarks from staples */
    int ldp;                    /* WEB_LDP_*: a missing landmark on demand */
    int trust_anchors;          /* WEB_TA_*: what the ClientHello lists */
    /* Network path (handshake latency, sim/web_latency.h); off when rtt
     * is NULL: then nothing below is drawn or recorded. */
    sim_dist *rtt;              /* ms, one draw per client */
    sim_dist *rtt_jitter;       /* ms added per connection; NULL: none */
    sim_dist *bandwidth;        /* bottleneck bit/s, one draw per client;
                                   NULL: no serialization */
    double loss_prob;           /* per packet */
    double tcp_rto_min;         /* ms: TCP's minimum RTO (Linux: 200) */
    double cpu_slowdown;        /* client verification time over the
                                   development machine's (desktop: 1) */
    sim_param_list cert_compression; /* RFC 8879 algorithms the client
                                   offers; empty: none */
} web_browsers_config;

extern const char *const web_key_alg_names[];   /* NULL-terminated */
extern const char *const web_policy_names[];    /* "pki", NULL */
/* Key share groups: "x25519mlkem768", "x25519", "secp256r1", NULL. */
extern const char *const web_group_names[];
extern const uint16_t web_group_ids[];          /* their TLS code points */
extern const char *const web_update_start_names[]; /* "if_due", "always", NULL */
extern const char *const web_update_phase_names[]; /* "random", "start", NULL */

/* The web module's kinds: "sites" (web_site.c) and "browsers"
 * (web_browser.c). */
extern const sim_param_schema sim_sites_schema;
extern const sim_param_schema sim_browsers_schema;

/* Global web settings. Key share and transport are per cohort
 * (web_browsers_config). */
typedef struct web_tls_config {
    uint16_t codepoint;         /* trust_anchors extension type */
    int64_t epoch;              /* Unix seconds of sim time 0 */
} web_tls_config;

void web_tls_config_defaults(web_tls_config *c);

/* ---- lifecycle ---------------------------------------------------------- */

typedef struct web web;

typedef struct web_env {
    sim_engine *engine;
    sim_metrics *metrics;
    sim_rng *rng;
    uint32_t shard, nshards;
    const web_pki *pki;
    web_tls_config tls;
    int check_invariants;       /* 1: every handshake re-checked the slow way
                                   (selection against the parsed ClientHello,
                                   verification without the memo) */
    int steady_sites;           /* 1 (a steady start): each site's first
                                   request is uniform over one renewal period
                                   from time 0, issue_spread must be 0 */
    const volatile sig_atomic_t *stop;  /* set: web_start ends its warm-up
                                           loop with SIM_ERR_STATE */
    /* The process's built baseline chains (mtc/chain_cache.h), borrowed:
     * the web state asks it for each chain it does not hold yet, and the
     * results are the same with or without it. NULL: every chain is
     * built (and signed) here. */
    mtc_chain_cache *chains;
} web_env;

/*
 * Creates the web side: copies the configs (their distributions are
 * borrowed: they must outlive the web state), resolves CA and update
 * service names through the PKI table, builds the baseline chains, creates
 * the metrics of docs/metrics.md. Call after the PKI has started.
 * Errors: SIM_ERR_CONFIG (err names entity and parameter), MTC_ERR_NOMEM,
 * MTC_ERR_UNSUPPORTED (baseline algorithm missing).
 */
int web_create(web **out, const web_env *env,
               const web_sites_config *const *sites, size_t nsites,
               const web_browsers_config *const *cohorts, size_t ncohorts,
               char *err, size_t errlen);

/* Schedules the initial events (site requests, client sessions). */
int web_start(web *wb, char *err, size_t errlen);

void web_destroy(web *wb); /* accepts NULL */

/* ---- introspection (tests, reports) ------------------------------------ */

typedef struct web_stats {
    uint64_t full, signatureless, resumed, retries, failures, no_cert;
    uint64_t verify_runs;       /* distinct verifications actually run */
    uint64_t verify_memo_hits;
    uint64_t lr_unadvertised;   /* LR certs sent for a landmark not advertised */
    uint64_t invariant_violations; /* check_invariants found a difference */
    uint64_t update_fetches, update_bytes;
    uint64_t update_installs;   /* publications installed (newer than held) */
    uint64_t apply_merged;      /* fetches that joined the pending install
                                   of a fetch less than update_apply_delay
                                   / 31 before (installed at most that late) */
    uint64_t auth_bytes_sum;    /* over full handshakes */
    uint64_t standalone_bytes_mismatch; /* with no landmarks: auth bytes that
                                   differ from the standalone encoding */
    /* check_invariants only (0 otherwise): over full handshakes while the
     * metrics record, the baseline bytes (classical, ML-DSA-44, today's)
     * as of each handshake, against which the baseline histograms, whose
     * observations are deferred, are checked */
    uint64_t base_auth_sum[3];
} web_stats;

/* Totals over everything since creation (no warm-up applied). */
void web_get_stats(const web *wb, web_stats *out);

size_t web_client_count(const web *wb);      /* on this shard */
size_t web_site_count(const web *wb);
/* Bytes of per-client state (struct size) and of the whole population. */
size_t web_client_state_bytes(void);

#endif
