/*
 * web_browser.c - browser populations (relying parties): cohorts with
 * online sessions on a daily profile and absences, update checks (a
 * start-up check and periodic ones at a random phase) with failures,
 * installs after an optional policy delay, new installs arriving with
 * their installer's state, Poisson page visits while online, site choice
 * by Zipf popularity, session resumption; the landmark metrics of the
 * update model (docs/model.md, "the client update model"); and the web
 * side's lifecycle.
 *
 * A client is one small struct with its engine event inside (no
 * allocation per event) and no random state but a draw counter: its
 * stream (WEB_STREAM_CLIENT, client id) is re-entered on demand with
 * sim_rng_use, so its draws do not depend on other clients, on event
 * order or on the MPI shard that simulates it. Its whole PKI state is the
 * number of the update-service publication it holds; what a policy delay
 * keeps waiting lives beside it (web_applyq), in the cohorts that have
 * one, so that the struct stays at two cache lines. What a check fetches
 * and installs, and the landmark metrics, are web_update.c's.
 *
 * Expected load: ~10^6 clients, tens of visits per client-day; every
 * client action is one engine event (the ladder queue handles 10^6
 * pending events at several million per second). The client table is big
 * and randomly accessed: it lives on huge pages (web__big_calloc), and each
 * client event prefetches the next one (sim_engine_peek_hint).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include <gsl/gsl_randist.h>

#include "mtc/error.h"
#include "sim/certcomp.h"
#include "web_internal.h"

const char *const web_policy_names[] = {"pki", NULL};
static const char *const ldp_names[] = {"off", "fetch", "retry", NULL};
static const char *const ta_mode_names[] = {"full", "dns", "retry", NULL};
const char *const web_update_start_names[] = {"if_due", "always", NULL};
const char *const web_update_phase_names[] = {"random", "start", NULL};
static const char *const transport_names[] = {"tcp", "quic", NULL};

/* ---- schema -------------------------------------------------------------- */

#define BO(f) offsetof(web_browsers_config, f)
/* hosts_per_visit's range, and the cap on each draw */
#define HOSTS_PER_VISIT_MAX 1000
static const sim_param_desc browser_params[] = {
    {"name", SIM_PARAM_STRING, BO(name), WEB_NAME_MAX, 0, 0, NULL, "", "unique entity name (the cohort label)", 0, 0, 0, NULL},
    {"count", SIM_PARAM_INT, BO(count), 0, 0, 4e9, NULL, "", "clients in this cohort", 0, 0, 0, NULL},
    {"sessions_per_day", SIM_PARAM_REAL, BO(sessions_per_day), 0, 0, 1e4, NULL, "1/d", "browser sessions started per day, on online_profile (0: always online)", 0, 0, 0, NULL},
    {"online_profile", SIM_PARAM_PROFILE, BO(online_profile), 0, 0, 0, NULL, "", "relative session-start intensity per hour of day", 0, 0, 0, NULL},
    {"session_duration", SIM_PARAM_DIST, BO(session_duration), 0, 0, 1e7, NULL, "s", "length of an online session", 0, 10, 7 * SIM_PLAUS_DAY,
     "a browser session"},
    {"visits_per_hour", SIM_PARAM_REAL, BO(visits_per_hour), 0, 0, 1e6, NULL, "1/h", "page visits while online (Poisson)", 0, 0, 0, NULL},
    {"hosts_per_visit", SIM_PARAM_DIST, BO(hosts_per_visit), 0, 1, HOSTS_PER_VISIT_MAX, NULL, "", "distinct hosts a visit connects to at once (at most the number of sites and 1000; median 6 domains per session: docs/sources.md [zipf-sites])", 0, 0, 0, NULL},
    {"startup_hosts", SIM_PARAM_DIST, BO(startup_hosts), 0, 0, HOSTS_PER_VISIT_MAX, NULL, "", "start-up burst: distinct hosts a browser start connects to at once, before its start-up update check (restored tabs, background connections; capped at 1000); none: no burst", 0, 0, 0, NULL},
    {"zipf_exponent", SIM_PARAM_REAL, BO(zipf_exponent), 0, 0, 5, NULL, "", "site popularity exponent within each site group (power law slope ~1.2: docs/sources.md [zipf-sites])", 0, 0, 0, NULL},
    {"update_first_delay", SIM_PARAM_DURATION, BO(update_first_delay), 0, 0, 86400, NULL, "s", "the start-up check runs this long after a session starts (Chrome's component updater: about 60 s)", 0, 1, SIM_PLAUS_DAY,
     "the first update check of a session"},
    {"update_interval", SIM_PARAM_DIST, BO(update_interval), 0, 0, 1e7, NULL, "s", "a check falls due this long after the previous one and runs then if online, else at the next start-up (Chrome: 5 h)", 0, SIM_PLAUS_MIN, 30 * SIM_PLAUS_DAY,
     "the time between update checks"},
    {"update_on_start", SIM_PARAM_ENUM, BO(update_on_start), 0, 0, 0, web_update_start_names, "", "start-up check: only when a check is due (if_due), or at every session start (always: Chrome's component updater)", 0, 0, 0, NULL},
    {"update_phase", SIM_PARAM_ENUM, BO(update_phase), 0, 0, 0, web_update_phase_names, "", "first check of a client present at the start: at a random phase of update_interval (random), or at its first start-up, all in step (start)", 0, 0, 0, NULL},
    {"update_apply_delay", SIM_PARAM_DIST, BO(update_apply_delay), 0, 0, 1e8, NULL, "s", "policy delay: a publication fetched at a check is installed this long after it (one draw per client, as a managed install's policy); none: at once", 0, 0, 0, NULL},
    {"update_fail_prob", SIM_PARAM_REAL, BO(update_fail_prob), 0, 0, 1, NULL, "", "probability that an update check fails", 0, 0, 0, NULL},
    {"never_updates", SIM_PARAM_BOOL, BO(never_updates), 0, 0, 1, NULL, "", "frozen clients: never check, keep the publication they start with", 0, 0, 0, NULL},
    {"away_prob", SIM_PARAM_REAL, BO(away_prob), 0, 0, 1, NULL, "", "probability that a session's end starts an absence (offline for away_duration, then sessions resume)", 0, 0, 0, NULL},
    {"away_duration", SIM_PARAM_DIST, BO(away_duration), 0, 0, 1e8, NULL, "s", "length of an absence (days to weeks: a heavy-tailed pareto or lognormal)", 0, 0, 0, NULL},
    {"arrival_spread", SIM_PARAM_DURATION, BO(arrival_spread), 0, 0, 1e8, NULL, "s", "new installs: each client arrives at a uniform time in [0, arrival_spread) and starts a session (0: all present from the start)", 0, 0, 0, NULL},
    {"installer_age", SIM_PARAM_DIST, BO(installer_age), 0, 0, 1e8, NULL, "s", "a new install holds the publication that was latest this long before it arrived (its installer's landmark state); none: no landmarks", 0, 0, 0, NULL},
    {"mtc_aware", SIM_PARAM_BOOL, BO(mtc_aware), 0, 0, 1, NULL, "", "0: sends no trust_anchors (server falls back to a standalone certificate)", 0, 0, 0, NULL},
    {"update_service", SIM_PARAM_STRING, BO(update_service), WEB_NAME_MAX, 0, 0, NULL, "", "update service name (empty: the first)", 0, 0, 0, NULL},
    {"keep_tickets", SIM_PARAM_BOOL, BO(keep_tickets), 0, 0, 1, NULL, "", "session tickets survive a browser start (Chromium keeps them in memory only: false; docs/sources.md [session-cache])", 0, 0, 0, NULL},
    {"ticket_lifetime", SIM_PARAM_DURATION, BO(ticket_lifetime), 0, 0, 604800, NULL, "s", "session ticket lifetime (RFC 8446: at most 7 days; 0: no resumption)", 0, SIM_PLAUS_MIN, 7 * SIM_PLAUS_DAY,
     "a session ticket lifetime"},
    {"missignal_prob", SIM_PARAM_REAL, BO(missignal_prob), 0, 0, 1, NULL, "", "per handshake, advertise the latest landmarks instead of its own (injected mis-signalling)", 0, 0, 0, NULL},
    {"cosigner_policy", SIM_PARAM_ENUM, BO(cosigner_policy), 0, 0, 0, web_policy_names, "", "relying-party cosigner policy (\"pki\": the CA's: CA + quorum)", 0, 0, 0, NULL},
    {"transport", SIM_PARAM_ENUM, BO(transport), 0, 0, 0, transport_names, "", "transport label (both TCP and QUIC round trips are recorded)", 0, 0, 0, NULL},
    {"key_share", SIM_PARAM_ENUM, BO(key_share), 0, 0, 0, web_group_names, "", "key share group of every handshake (x25519mlkem768: client share 1,216 B, server 1,120 B)", 0, 0, 0, NULL},
    {"quic_initial", SIM_PARAM_INT, BO(quic_initial), 0, 1200, 65527, NULL, "bytes", "size of each client QUIC Initial datagram (RFC 9000: >= 1200; Chromium 1250, Firefox 1350: docs/sources.md)", 0, 0, 0, NULL},
    {"quic_datagram", SIM_PARAM_INT, BO(quic_datagram), 0, 1200, 65527, NULL, "bytes", "server QUIC datagram size before path MTU discovery", 0, 0, 0, NULL},
    {"tcp_mss", SIM_PARAM_INT, BO(tcp_mss), 0, 536, 65495, NULL, "bytes", "TCP maximum segment size", 0, 0, 0, NULL},
    {"tcp_initial_window", SIM_PARAM_INT, BO(tcp_initial_window), 0, 1, 1000, NULL, "segments", "server's TCP initial congestion window (RFC 6928: 10)", 0, 0, 0, NULL},
    {"client_hello_extra", SIM_PARAM_INT, BO(client_hello_extra), 0, 0, 16000, NULL, "bytes", "ClientHello extensions not modelled (GREASE, ECH, PSK): a padding extension of this size, 0 or >= 4", 0, 0, 0, NULL},
    {"learn_staples", SIM_PARAM_BOOL, BO(learn_staples), 0, 0, 1, NULL, "", "what-if, not in the draft: signals support for landmark staples and trusts the landmark subtrees of a staple it verifies (docs/model.md)", 0, 0, 0, NULL},
    {"ldp", SIM_PARAM_ENUM, BO(ldp), 0, 0, 0, ldp_names, "", "a landmark-relative certificate whose landmark the client lacks (draft-gray-plants-mtc-ldp): off (never signalled: servers send standalone certificates), fetch (signals support; fetches the proof set from the certificate's Landmark Distribution Point, verifies it, accepts; a failed fetch falls back to the retry) or retry (signals, then retries with a standalone certificate)", 0, 0, 0, NULL},
    {"trust_anchors", SIM_PARAM_ENUM, BO(trust_anchors), 0, 0, 0, ta_mode_names, "", "what an MTC-aware client's ClientHello lists (draft-ietf-tls-trust-anchor-ids-04): full (every CA's landmark group, unconditionally), dns (only what it trusts of the site's HTTPS record's tls-trust-anchors parameter, read through a resolver cache) or retry (an empty list; when the server's guess is a landmark it lacks, a new connection asking for a trust anchor of the server's EncryptedExtensions list); docs/model.md \"Many trust anchors\"", 0, 0, 0, NULL},
    {"rtt", SIM_PARAM_DIST, BO(rtt), 0, 0.001, 1e5, NULL, "ms", "round-trip time of the client's network path (one draw per client); none: no handshake latency is computed (docs/model.md, \"Handshake latency\")", 0, 0, 0, NULL},
    {"rtt_jitter", SIM_PARAM_DIST, BO(rtt_jitter), 0, 0, 1e5, NULL, "ms", "added to the client's rtt per connection (a draw per connection); none: no jitter", 0, 0, 0, NULL},
    {"bandwidth", SIM_PARAM_DIST, BO(bandwidth), 0, 0, 1e12, NULL, "bit/s", "bottleneck bandwidth of the client's path, one draw per client (after its rtt): serialization of each flight (none or 0: no serialization)", 0, 0, 0, NULL},
    {"loss_prob", SIM_PARAM_REAL, BO(loss_prob), 0, 0, 0.5, NULL, "", "per-packet loss probability on the client's path (each packet lost independently and repaired selectively: docs/model.md, \"Loss recovery\")", 0, 0, 0, NULL},
    {"cpu_slowdown", SIM_PARAM_REAL, BO(cpu_slowdown), 0, 0.01, 1000, NULL, "", "client's certificate verification time as a multiple of the development machine's measured costs (desktop: 1; docs/model.md \"Client verification time\")", 0, 0, 0, NULL},
    {"tcp_rto_min", SIM_PARAM_REAL, BO(tcp_rto_min), 0, 0, 60000, NULL, "ms", "TCP's minimum retransmission timeout (Linux: 200 ms; RFC 6298 (2.4): 1 s)", 0, 0, 0, NULL},
    {"cert_compression", SIM_PARAM_LIST, BO(cert_compression), 0, 0, 0, NULL, "", "certificate compression algorithms the client offers (RFC 8879): \"brotli\", \"zstd\"; empty: none (docs/model.md \"Web side: certificate compression\")", 0, 0, 0, NULL},
};

static int browser_defaults(void *p)
{
    web_browsers_config *c = p;
    snprintf(c->name, sizeof c->name, "browsers");
    c->count = 1000;
    c->sessions_per_day = 3;
    for (int h = 0; h < SIM_PROFILE_HOURS; h++)
        c->online_profile[h] = (h >= 7 && h < 23) ? 1.0 : 0.2;
    c->visits_per_hour = 20;
    c->zipf_exponent = 1.0;
    c->tcp_rto_min = 200.0;
    c->cpu_slowdown = 1.0;
    c->update_first_delay = 60 * SIM_SEC;
    c->update_fail_prob = 0.01;
    c->mtc_aware = 1;
    c->ticket_lifetime = 86400 * SIM_SEC;
    c->key_share = 0;           /* x25519mlkem768 */
    c->quic_initial = 1250;     /* Chromium */
    c->quic_datagram = 1200;
    c->tcp_mss = 1460;
    c->tcp_initial_window = 10;
    c->client_hello_extra = 0;
    int rc = sim_dist_lognormal(&c->session_duration, log(3600.0), 1.0);
    if (rc == MTC_OK)
        rc = sim_dist_const(&c->hosts_per_visit, 1);
    if (rc == MTC_OK)
        rc = sim_dist_const(&c->update_interval, 5 * 3600.0);
    return rc;
}

/* The steady start's horizon (warm_start): eight mean session cycles or
 * update intervals, whichever is longer, in s, at most 400 days; *cyc
 * gets the mean session cycle, cut to an eighth of the horizon. */
static double warm_horizon(const web_browsers_config *k, double *cyc)
{
    double cy = 86400.0 / k->sessions_per_day + sim_dist_mean(k->session_duration);
    if (k->away_prob > 0)
        cy += k->away_prob * sim_dist_mean(k->away_duration);
    double mi = sim_dist_mean(k->update_interval);
    double h = 8 * (cy > mi ? cy : mi);
    if (!(h < 400 * 86400.0))
        h = 400 * 86400.0;
    if (!(cy < h))
        cy = h / 8;
    *cyc = cy;
    return h;
}

/* At most this many sessions and update checks per client, in
 * expectation, in the steady start: it runs before the simulation, as
 * one uninterruptible loop per client. Realistic cohorts need tens. */
#define WARM_STEPS_MAX 1e5

/* Expected sessions and checks per client in the steady start: h / cyc
 * sessions and, online for a share min(1, duration / cyc) of the
 * horizon, one check per mean update interval (a renewal process). */
static double warm_steps(const web_browsers_config *k)
{
    double cyc, h = warm_horizon(k, &cyc);
    if (k->never_updates)
        return h / cyc;
    double mi = sim_dist_mean(k->update_interval);
    if (!(mi > 0)) /* 0 and -0 too: a check every nanosecond */
        return INFINITY;
    double online = sim_dist_mean(k->session_duration) / cyc;
    if (!(online < 1))
        online = 1;
    return h / cyc + h * online / mi;
}

static int browser_validate(const void *p, char *err, size_t errlen)
{
    const web_browsers_config *c = p;
    if (c->sessions_per_day > 0) {
        double s = 0;
        for (int h = 0; h < SIM_PROFILE_HOURS; h++)
            s += c->online_profile[h];
        if (!(s > 0)) {
            snprintf(err, errlen, "online_profile: all hours are 0 while sessions_per_day > 0");
            return SIM_ERR_CONFIG;
        }
        if (!c->session_duration) {
            snprintf(err, errlen, "session_duration: required when sessions_per_day > 0");
            return SIM_ERR_CONFIG;
        }
    }
    for (size_t i = 0; i < c->cert_compression.count; i++)
        if (!certcomp_alg_by_name(c->cert_compression.item[i])) {
            snprintf(err, errlen, "cert_compression: \"%s\" is not \"brotli\" or \"zstd\"",
                     c->cert_compression.item[i]);
            return SIM_ERR_CONFIG;
        }
    if (c->client_hello_extra > 0 && c->client_hello_extra < 4) {
        snprintf(err, errlen, "client_hello_extra: 0 or at least 4 bytes (a padding extension)");
        return SIM_ERR_CONFIG;
    }
    if (!c->hosts_per_visit || !c->update_interval) {
        snprintf(err, errlen, "%s: required", !c->hosts_per_visit ? "hosts_per_visit" : "update_interval");
        return SIM_ERR_CONFIG;
    }
    if (c->away_prob > 0 && (!c->away_duration || !(c->sessions_per_day > 0))) {
        snprintf(err, errlen, "away_prob: needs %s",
                 !c->away_duration ? "away_duration" : "sessions_per_day > 0");
        return SIM_ERR_CONFIG;
    }
    /* Clients present at the start with a random phase are warmed up
     * (warm_start); a check interval far shorter than the sessions, or
     * sessions far shorter than the check interval, would make that
     * loop run for hours before the first event (0 s: forever). */
    if (c->count > 0 && c->sessions_per_day > 0 && c->arrival_spread <= 0 &&
        c->update_phase == WEB_PHASE_RANDOM) {
        double w = warm_steps(c);
        if (!(w <= WARM_STEPS_MAX)) {
            snprintf(err, errlen,
                     "update_interval: a mean of %g s with sessions every %g s: "
                     "the steady start would simulate about %.3g sessions "
                     "and update checks per client before the run (at most %g); "
                     "lengthen the shorter one, or set update_phase = \"start\"",
                     sim_dist_mean(c->update_interval),
                     86400.0 / c->sessions_per_day, w, WARM_STEPS_MAX);
            return SIM_ERR_CONFIG;
        }
    }
    /* a bandwidth of 0 is no bandwidth, as it was when it was a number */
    int bw = c->bandwidth && !(sim_dist_kind(c->bandwidth) == SIM_DIST_CONST &&
                               sim_dist_mean(c->bandwidth) == 0);
    if (!c->rtt && (c->rtt_jitter || bw || c->loss_prob > 0)) {
        snprintf(err, errlen, "%s: needs rtt (the path is off without it)",
                 c->rtt_jitter ? "rtt_jitter" : bw ? "bandwidth" : "loss_prob");
        return SIM_ERR_CONFIG;
    }
    if (c->installer_age && c->arrival_spread <= 0) {
        snprintf(err, errlen, "installer_age: only for new installs (arrival_spread > 0)");
        return SIM_ERR_CONFIG;
    }
    return MTC_OK;
}

const sim_param_schema sim_browsers_schema = {
    "browsers", "a cohort of browsers (TLS clients) sharing a behaviour",
    sizeof(web_browsers_config), browser_params,
    sizeof browser_params / sizeof browser_params[0], browser_defaults,
    browser_validate};

_Static_assert(sizeof(web_client) == 128, "web_client: two cache lines");

size_t web_client_state_bytes(void) { return sizeof(web_client); }

void *web__big_calloc(size_t n, size_t size)
{
    const size_t huge = (size_t)2 << 20;
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    if (bytes < huge) {
        /* cache-line aligned: records of one or two lines stay whole */
        bytes = bytes ? (bytes + 63) & ~(size_t)63 : 64;
        void *q = aligned_alloc(64, bytes);
        if (q)
            memset(q, 0, bytes);
        return q;
    }
    bytes = (bytes + huge - 1) & ~(huge - 1);
    void *p = aligned_alloc(huge, bytes);
    if (!p)
        return NULL;
#ifdef MADV_HUGEPAGE
    /* advisory: without THP the table works the same, only slower */
    (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    memset(p, 0, bytes);
    return p;
}

/* ---- client behaviour ----------------------------------------------------- */

static sim_time exp_delay(gsl_rng *r, double per_hour)
{
    if (!(per_hour > 0))
        return SIM_TIME_MAX;
    double s = gsl_ran_exponential(r, 3600.0 / per_hour);
    return sim_time_from_sec(s);
}


static sim_time min_time(sim_time a, sim_time b) { return a < b ? a : b; }

#define WEB_VISIT_HOSTS 1000 /* hosts_per_visit's schema maximum */

/* `hosts` connections to distinct ranks of the full-size world: a rank
 * drawn again is drawn anew (a page connects to a host once); each goes
 * to the site standing in for its rank. After 64 draws per host the
 * visit keeps the hosts it has: only reachable when hosts nears the
 * number of ranks under a steep popularity curve. A page visit draws
 * `hosts` from hosts_per_visit; a start-up burst from startup_hosts. */
static void connect_hosts(web *wb, web_client *c, const web_cohort *co,
                          sim_time now, gsl_rng *r, size_t hosts)
{
    if (hosts > wb->nranks)
        hosts = (size_t)wb->nranks;
    uint32_t seen[WEB_VISIT_HOSTS];
    size_t n = 0;
    for (size_t draws = 0; n < hosts && draws < 64 * hosts; draws++) {
        uint32_t rank = (uint32_t)sim_dist_sample_index(co->zipf, r);
        size_t k = 0;
        while (k < n && seen[k] != rank)
            k++;
        if (k < n)
            continue;
        seen[n++] = rank;
        web__connect(wb, c, co->rank_site ? co->rank_site[rank] : rank, rank, now, r);
    }
}

/* A host count drawn from d, cut to [lo, WEB_VISIT_HOSTS]: an unbounded
 * tail (lognormal...) is cut at the parameter's maximum, since llround of
 * a huge draw is undefined. */
static size_t host_count(const sim_dist *d, gsl_rng *r, size_t lo)
{
    double h = sim_dist_sample(d, r);
    return !(h >= (double)lo) ? lo : h < WEB_VISIT_HOSTS ? (size_t)llround(h)
                                                          : WEB_VISIT_HOSTS;
}

static void visit(web *wb, web_client *c, const web_cohort *co, sim_time now,
                  gsl_rng *r)
{
    if (wb->nsites == 0)
        return;
    connect_hosts(wb, c, co, now, r,
                  co->one_host ? 1 : host_count(co->cfg.hosts_per_visit, r, 1));
}

/* A browser start's burst: the tabs it restores and its background
 * connections, at once, before its start-up update check (the client
 * still holds the landmarks it had when it last ran). */
static void startup_burst(web *wb, web_client *c, const web_cohort *co,
                          sim_time now, gsl_rng *r)
{
    if (!co->cfg.startup_hosts || wb->nsites == 0)
        return;
    size_t n = host_count(co->cfg.startup_hosts, r, 0);
    if (n)
        connect_hosts(wb, c, co, now, r, n);
}

/* ---- sessions ------------------------------------------------------------------ */

static void client_schedule(web *wb, web_client *c, const web_cohort *co)
{
    sim_time t = c->session_edge;
    if (c->online == WEB_ONLINE)
        t = min_time(t, min_time(c->next_check, c->next_visit));
    if (co->applyq) {
        const web_applyq *q = web__applyq(wb, c, co);
        if (q->n)
            t = min_time(t, (sim_time)q->ready[q->head] * SIM_SEC);
    }
    if (t == SIM_TIME_MAX)
        return;
    sim_schedule(wb->env.engine, &c->ev, t);
}

/* A session starts. startup: it is a browser start, with its start-up
 * check update_first_delay later - if a check is due by then, or always
 * (update_on_start). Otherwise the next check stays when it falls due. */
static void go_online(web_client *c, web_cohort *co, sim_time now, gsl_rng *r,
                      int startup)
{
    c->online = WEB_ONLINE;
    co->online++;
    web__online_pub_add(co, c->pub, 1);
    /* a browser start begins with an empty session cache, unless tickets
     * outlive the process */
    if (startup && !co->cfg.keep_tickets)
        memset(c->ticket_exp, 0, sizeof c->ticket_exp);
    c->session_edge = co->sessions
                          ? web__add_sat(now, sim_dist_sample_duration(co->cfg.session_duration, r))
                          : SIM_TIME_MAX;
    if (startup && !co->cfg.never_updates) {
        sim_time s = web__add_sat(now, co->cfg.update_first_delay);
        if (co->cfg.update_on_start == WEB_START_ALWAYS || c->next_check <= s)
            c->next_check = s;
    }
    c->next_visit = web__add_sat(now, exp_delay(r, co->cfg.visits_per_hour));
}

/* A session ends: the next starts on the daily profile, after an absence
 * of away_duration with probability away_prob. A check that falls due
 * meanwhile waits for the next start-up. */
static void go_offline(web_client *c, web_cohort *co, sim_time now, gsl_rng *r)
{
    c->online = WEB_OFFLINE;
    co->online--;
    web__online_pub_add(co, c->pub, -1);
    c->next_visit = SIM_TIME_MAX;
    sim_time from = now;
    if (co->cfg.away_prob > 0 && gsl_rng_uniform(r) < co->cfg.away_prob)
        from = web__add_sat(now, sim_dist_sample_duration(co->cfg.away_duration, r));
    c->session_edge = from == SIM_TIME_MAX ? SIM_TIME_MAX
                                           : sim_nhpp_next(co->sessions, r, from);
}

/* A new install arrives and is started at once, holding its installer's
 * landmark state; having never checked, its start-up check is due. */
static void arrive(web *wb, web_client *c, web_cohort *co, sim_time now, gsl_rng *r)
{
    c->online = WEB_OFFLINE;
    if (co->cfg.installer_age) {
        sim_time age = sim_dist_sample_duration(co->cfg.installer_age, r);
        uint32_t pub = web__pub_at(wb, co->us, now - (age < now ? age : now));
        if (web__lml_ensure(wb, co->us, pub) == MTC_OK)
            c->pub = pub;
    }
    c->next_check = co->cfg.never_updates ? SIM_TIME_MAX : now;
    go_online(c, co, now, r, 1);
    startup_burst(wb, c, co, now, r);
}

/* A client present at the start with update_phase "random" has been
 * running its sessions, absences and checks since long before the run:
 * they are simulated, without visits or fetches, over a horizon of eight
 * mean session cycles or update intervals (whole days, so that the daily
 * profile keeps its phase; at most 400 days) from a random check phase,
 * and the state reached is the client's state now. So a share of the
 * clients is online, or away, or overdue for a check at the start, as in
 * steady state; the transient this removes lasts as long as the longest
 * absences (runs describe the deployed system). */
static void warm_start(web_client *c, web_cohort *co, sim_time now, gsl_rng *r)
{
    const web_browsers_config *k = &co->cfg;
    double cyc, h = warm_horizon(k, &cyc);
    sim_time end_w = now + (sim_time)ceil(h / 86400.0) * SIM_DAY;
    sim_time due = k->never_updates ? SIM_TIME_MAX : web__random_phase_due(co, r, now);
    /* The first session is looked for from a uniform point of the first
     * mean cycle: when sessions and absences are nearly periodic (a
     * constant away_duration, say), eight cycles from a common start
     * would not spread the clients' phases. */
    sim_time off = sim_time_from_sec(gsl_rng_uniform(r) * cyc);
    sim_time start = sim_nhpp_next(co->sessions, r, web__add_sat(now, off));
    for (;;) {
        if (start >= end_w) { /* offline at the end of the warm-up */
            c->session_edge = start == SIM_TIME_MAX ? SIM_TIME_MAX : now + (start - end_w);
            break;
        }
        if (due != SIM_TIME_MAX) {
            sim_time s = web__add_sat(start, k->update_first_delay);
            if (k->update_on_start == WEB_START_ALWAYS || due <= s)
                due = s;
        }
        sim_time end = web__add_sat(start, sim_dist_sample_duration(k->session_duration, r));
        while (due < end && due < end_w) {
            sim_time x = sim_dist_sample_duration(k->update_interval, r);
            due = web__add_sat(due, x > 0 ? x : 1);
        }
        if (end > end_w) { /* in a session at the end of the warm-up */
            c->online = WEB_ONLINE;
            co->online++;
            web__online_pub_add(co, c->pub, 1);
            c->session_edge = end == SIM_TIME_MAX ? SIM_TIME_MAX : now + (end - end_w);
            c->next_visit = web__add_sat(now, exp_delay(r, k->visits_per_hour));
            break;
        }
        sim_time from = end;
        if (k->away_prob > 0 && gsl_rng_uniform(r) < k->away_prob)
            from = web__add_sat(end, sim_dist_sample_duration(k->away_duration, r));
        start = from == SIM_TIME_MAX ? SIM_TIME_MAX : sim_nhpp_next(co->sessions, r, from);
    }
    /* the due time, shifted back from the end of the warm-up to now (an
     * overdue check may lie before now) */
    c->next_check = due == SIM_TIME_MAX ? SIM_TIME_MAX : now + (due - end_w);
}

/* The event is the first member of the client, so the client is the
 * event; arg is the web state. */
static void client_event(sim_engine *sim, sim_event *e)
{
    web_client *c = (web_client *)e;
    web *wb = e->arg;
    /* The next event is usually another client: fetch its second line
     * (the engine fetches the first) while this one runs. Address
     * arithmetic on integers: it may not be a client at all, and a
     * prefetch never faults. */
    const sim_event *nx = sim_engine_peek_hint(sim);
    if (nx) {
        __builtin_prefetch((const void *)((uintptr_t)nx + 64));
        web__path_prefetch(wb, nx); /* when there are paths */
    }
    web_cohort *co = &wb->cohorts[c->cohort];
    sim_time now = sim_now(sim);
    sim_stream st = {web__client_id(wb, c), c->rng_n, WEB_STREAM_CLIENT, 0};
    gsl_rng *r = sim_rng_use(wb->env.rng, &st);
    if (co->applyq)
        web__apply_due(wb, c, co, now);
    if (c->online == WEB_UNBORN) {
        if (c->session_edge <= now)
            arrive(wb, c, co, now, r);
    } else if (c->online == WEB_OFFLINE) {
        if (c->session_edge <= now) {
            go_online(c, co, now, r, 1);
            startup_burst(wb, c, co, now, r);
        }
    } else if (c->session_edge <= now) {
        go_offline(c, co, now, r);
    } else {
        if (c->next_check <= now) {
            web__update_check(wb, c, co, r, now);
            c->next_check = web__add_sat(now, sim_dist_sample_duration(co->cfg.update_interval, r));
            /* A zero interval would loop at one instant. */
            if (c->next_check == now)
                c->next_check = now + 1;
        }
        if (c->next_visit <= now) {
            visit(wb, c, co, now, r);
            c->next_visit = web__add_sat(now, exp_delay(r, co->cfg.visits_per_hour));
        }
    }
    c->rng_n = st.n;
    client_schedule(wb, c, co);
}

/* ---- lifecycle -------------------------------------------------------------- */

/* Client ids in [0, x) that shard s of n simulates (id % n == s). */
static uint64_t ids_of_shard(uint64_t x, uint64_t n, uint64_t s)
{
    return x > s ? (x - s - 1) / n + 1 : 0;
}

uint64_t web__clients_total(const web *wb)
{
    uint64_t n = 0;
    for (size_t k = 0; k < wb->ncohorts; k++)
        n += (uint64_t)wb->cohorts[k].cfg.count;
    return n;
}

/* The bytes of a client's record: its path's line too when some cohort
 * has an rtt (web__path). */
static size_t client_stride(const web *wb)
{
    for (size_t k = 0; k < wb->ncohorts; k++)
        if (wb->cohorts[k].cfg.rtt)
            return WEB_CLIENT_PATH_STRIDE;
    return sizeof(web_client);
}

/* The bytes of a site: its record, its hot record and its certificate
 * slots (web.sloth). */
static size_t site_bytes(const web *wb)
{
    return sizeof *wb->sites + sizeof *wb->siteh + WEB_SITE_CERTS * sizeof *wb->sloth;
}

/* The memory the web model needs: its sites, this shard's clients, and a
 * Zipf table over the ranks per cohort (with, when the sites sample the
 * ranks, the site of each rank). Stated before allocating, in the message
 * of a failed allocation. */
static double web_bytes_needed(const web *wb, uint64_t nsites, uint64_t nranks,
                               uint64_t nclients)
{
    return (double)nsites * (double)site_bytes(wb) +
           (double)nclients * (double)client_stride(wb) +
           (double)wb->ncohorts * ((double)sim_dist_footprint(SIM_DIST_ZIPF, nranks) +
                                   (nranks > nsites ? 4.0 * (double)nranks : 0.0));
}

void web__nomem(const web *wb, const char *what, char *err, size_t errlen)
{
    uint64_t nsites = 0, nranks = 0;
    for (size_t g = 0; g < wb->nsite_groups; g++) {
        nsites += (uint64_t)wb->site_cfg[g].count;
        nranks += web__ranks(&wb->site_cfg[g]);
    }
    uint64_t nclients = web__clients_total(wb) / (wb->env.nshards ? wb->env.nshards : 1);
    snprintf(err, errlen, "%s: out of memory: %llu sites and %llu browsers "
                          "need about %.3g GiB (%zu bytes per site, %zu per "
                          "browser, %zu per cohort and each of the %llu sites "
                          "represented, for site popularity); use fewer, or "
                          "shard the browsers over MPI ranks",
             what, (unsigned long long)nsites, (unsigned long long)nclients,
             web_bytes_needed(wb, nsites, nranks, nclients) / 1073741824.0,
             site_bytes(wb), client_stride(wb),
             sim_dist_footprint(SIM_DIST_ZIPF, 1) - sim_dist_footprint(SIM_DIST_ZIPF, 0) +
                 (nranks > nsites ? 4 : 0),
             (unsigned long long)nranks);
}

int web__clients_create(web *wb, char *err, size_t errlen)
{
    uint64_t id = 0, mine = 0;
    wb->nranks = 0;
    for (size_t g = 0; g < wb->nsite_groups; g++)
        wb->nranks += web__ranks(&wb->site_cfg[g]);
    /* a ticket holds rank + 1 in 32 bits */
    if (wb->nranks >= UINT32_MAX) {
        snprintf(err, errlen, "sites: %llu sites represented exceed 2^32 - 1",
                 (unsigned long long)wb->nranks);
        return SIM_ERR_CONFIG;
    }
    for (size_t k = 0; k < wb->ncohorts; k++) {
        web_cohort *co = &wb->cohorts[k];
        co->first_id = id;
        co->count = (uint64_t)co->cfg.count;
        co->first_local = (size_t)mine;
        mine += ids_of_shard(id + co->count, wb->env.nshards, wb->env.shard) -
                ids_of_shard(id, wb->env.nshards, wb->env.shard);
        co->nlocal = (size_t)mine - co->first_local;
        id += co->count;
        co->us = 0;
        if (wb->nus == 0) {
            snprintf(err, errlen, "%s: update_service: no update service in the world",
                     co->cfg.name);
            return SIM_ERR_CONFIG;
        }
        if (co->cfg.update_service[0]) {
            int us = wb->pki->us_find
                         ? wb->pki->us_find(wb->pki->ctx, co->cfg.update_service)
                         : -1;
            if (us < 0) {
                snprintf(err, errlen, "%s: update_service: no update service named \"%s\"",
                         co->cfg.name, co->cfg.update_service);
                return SIM_ERR_CONFIG;
            }
            co->us = (size_t)us;
        }
        co->one_host = sim_dist_kind(co->cfg.hosts_per_visit) == SIM_DIST_CONST &&
                       sim_dist_mean(co->cfg.hosts_per_visit) == 1.0;
        int prc = web__popularity(wb, co->cfg.zipf_exponent, &co->zipf, &co->rank_site);
        if (prc == MTC_ERR_NOMEM)
            web__nomem(wb, co->cfg.name, err, errlen);
        if (prc == MTC_OK)
            prc = web__flight_init(wb, co, err, errlen);
        if (prc != MTC_OK)
            return prc;
        if (co->cfg.sessions_per_day > 0) {
            int rc = sim_nhpp_create(&co->sessions, co->cfg.sessions_per_day / 86400.0,
                                     co->cfg.online_profile, SIM_PROFILE_HOURS,
                                     SIM_DAY, 0);
            if (rc != MTC_OK) {
                snprintf(err, errlen, "%s: online_profile: %s", co->cfg.name, sim_strerror(rc));
                return SIM_ERR_CONFIG;
            }
        }
        if (co->cfg.update_apply_delay && !co->cfg.never_updates && co->nlocal) {
            co->applyq = calloc(co->nlocal, sizeof *co->applyq);
            if (!co->applyq)
                return MTC_ERR_NOMEM;
        }
        co->has_path = co->cfg.rtt != NULL;
    }
    if (id > UINT32_MAX) {
        snprintf(err, errlen, "browsers: %llu clients exceed 2^32", (unsigned long long)id);
        return SIM_ERR_CONFIG;
    }
    wb->lml = calloc(wb->nus ? wb->nus : 1, sizeof *wb->lml);
    if (!wb->lml)
        return MTC_ERR_NOMEM;
    int rc = web__update_metrics_create(wb);
    if (rc == MTC_OK)
        rc = web__path_create(wb); /* after every other metric: their order stays */
    if (rc == MTC_OK)
        rc = web__budget_create(wb); /* after the flights (web__flight_init) */
    if (rc != MTC_OK) {
        snprintf(err, errlen, "web metrics: %s", sim_strerror(rc));
        return rc;
    }
    wb->nclients = (size_t)mine;
    wb->client_stride = client_stride(wb);
    wb->clients = web__big_calloc(mine ? mine : 1, wb->client_stride);
    if (!wb->clients) {
        web__nomem(wb, "browsers", err, errlen);
        return MTC_ERR_NOMEM;
    }
    size_t n = 0;
    for (size_t k = 0; k < wb->ncohorts; k++) {
        web_cohort *co = &wb->cohorts[k];
        for (uint64_t i = 0; i < co->count; i++) {
            uint64_t cid = co->first_id + i;
            if (cid % wb->env.nshards != wb->env.shard)
                continue;
            web_client *c = web__client(wb, n++);
            sim_event_init(&c->ev, client_event, wb);
            /* clients of this shard are every nshards-th id from shard */
            assert(web__client_id(wb, c) == cid);
            (void)cid;
            c->cohort = (uint16_t)k;
            c->next_visit = c->next_check = c->session_edge = SIM_TIME_MAX;
        }
    }
    return MTC_OK;
}

int web__clients_start(web *wb, char *err, size_t errlen)
{
    sim_time now = sim_now(wb->env.engine);
    sim_prof_handler(sim_engine_prof(wb->env.engine), client_event, SIM_PART_WEB);
    for (size_t us = 0; us < wb->nus; us++)
        if (web__lml_ensure(wb, us, wb->pki->pub_latest(wb->pki->ctx, us)) != MTC_OK) {
            snprintf(err, errlen, "browsers: out of memory");
            return MTC_ERR_NOMEM;
        }
    for (size_t i = 0; i < wb->nclients; i++) {
        /* the warm-up of a client may simulate up to 10^5 steps: a
         * signal must not wait for millions of clients */
        if (wb->env.stop && *wb->env.stop) {
            snprintf(err, errlen, "browsers: interrupted during the steady "
                                  "start's warm-up (%zu of %zu clients)", i,
                     wb->nclients);
            return SIM_ERR_STATE;
        }
        web_client *c = web__client(wb, i);
        web_cohort *co = &wb->cohorts[c->cohort];
        uint64_t cid = web__client_id(wb, c);
        web_applyq *q = web__applyq(wb, c, co);
        if (q) { /* the policy delay: a stream of its own (sim/web.h) */
            sim_stream ps = {cid, 0, WEB_STREAM_CLIENT_POLICY, 0};
            q->delay = sim_dist_sample_duration(co->cfg.update_apply_delay,
                                                sim_rng_use(wb->env.rng, &ps));
        }
        if (co->has_path) /* the path's own stream (sim/web.h) */
            web__path_init(wb, web__path(c), co, cid);
        sim_stream st = {cid, c->rng_n, WEB_STREAM_CLIENT, 0};
        gsl_rng *r = sim_rng_use(wb->env.rng, &st);
        if (co->cfg.arrival_spread > 0) {
            c->online = WEB_UNBORN;
            c->session_edge = web__add_sat(now, (sim_time)(gsl_rng_uniform(r) *
                                                      (double)co->cfg.arrival_spread));
        } else {
            int random = co->cfg.update_phase == WEB_PHASE_RANDOM;
            if (co->sessions && random) {
                warm_start(c, co, now, r);
            } else {
                if (co->cfg.never_updates)
                    c->next_check = SIM_TIME_MAX;
                else if (random)
                    c->next_check = web__random_phase_due(co, r, now);
                else
                    c->next_check = now; /* due at its first start-up */
                if (co->sessions) /* every session starts with the run */
                    c->session_edge = sim_nhpp_next(co->sessions, r, now);
                else if (random || !co->cfg.startup_hosts)
                    /* always online: running already, unless in step */
                    go_online(c, co, now, r, !random);
                else /* starting in step, with a burst: at its first event */
                    c->session_edge = now;
            }
        }
        c->rng_n = st.n;
        client_schedule(wb, c, co);
    }
    web__sampler_start(wb);
    return MTC_OK;
}

void web__clients_destroy(web *wb)
{
    for (size_t k = 0; k < wb->ncohorts; k++) {
        sim_dist_destroy(wb->cohorts[k].zipf);
        free(wb->cohorts[k].rank_site);
        sim_nhpp_destroy(wb->cohorts[k].sessions);
        free(wb->cohorts[k].applyq);
        free(wb->cohorts[k].online_pub);
    }
    web__update_destroy(wb);
    web__path_destroy(wb);
    free(wb->clients);
}

/* ---- the web side ------------------------------------------------------------ */

void web_tls_config_defaults(web_tls_config *c)
{
    c->codepoint = TLS_EXT_TRUST_ANCHORS_EXPERIMENTAL;
    c->epoch = 1798761600; /* 2027-01-01, Chrome's first public MTCs */
}

int web_create(web **out, const web_env *env,
               const web_sites_config *const *sites, size_t nsites,
               const web_browsers_config *const *cohorts, size_t ncohorts,
               char *err, size_t errlen)
{
    if (!out || !env || !env->engine || !env->metrics || !env->rng || !env->pki ||
        env->nshards == 0 || env->shard >= env->nshards ||
        (nsites && !sites) || (ncohorts && !cohorts)) {
        snprintf(err, errlen, "web_create: missing environment");
        return MTC_ERR_ARG;
    }
    if (ncohorts > 65535) {
        snprintf(err, errlen, "browsers: more than 65535 cohorts");
        return SIM_ERR_CONFIG;
    }
    if (errlen)
        err[0] = 0;     /* every failure below names itself */
    web *wb = calloc(1, sizeof *wb);
    if (!wb) {
        snprintf(err, errlen, "web: out of memory");
        return MTC_ERR_NOMEM;
    }
    wb->env = *env;
    wb->pki = env->pki;
    wb->epoch = env->tls.epoch;
    wb->nca = env->pki->ca_count(env->pki->ctx);
    wb->nus = env->pki->us_count(env->pki->ctx);
    wb->site_cfg = calloc(nsites ? nsites : 1, sizeof *wb->site_cfg);
    wb->cohorts = calloc(ncohorts ? ncohorts : 1, sizeof *wb->cohorts);
    wb->wire_scratch = malloc(WEB_WIRE_SCRATCH);
    int rc = MTC_ERR_NOMEM;
    if (!wb->site_cfg || !wb->cohorts || !wb->wire_scratch) {
        snprintf(err, errlen, "web: out of memory");
        goto fail;
    }
    for (size_t i = 0; i < nsites; i++)
        wb->site_cfg[i] = *sites[i];
    wb->nsite_groups = nsites;
    for (size_t i = 0; i < ncohorts; i++)
        wb->cohorts[i].cfg = *cohorts[i];
    wb->ncohorts = ncohorts;
    if (wb->nus > UINT16_MAX) {
        snprintf(err, errlen, "update services: more than 65535");
        rc = SIM_ERR_CONFIG;
        goto fail;
    }
    if (wb->nca > UINT16_MAX) {
        snprintf(err, errlen, "sites: more than 65535 CAs");
        rc = SIM_ERR_CONFIG;
        goto fail;
    }
    if (wb->nca == 0 && nsites) {
        snprintf(err, errlen, "sites: no CA to issue certificates");
        rc = SIM_ERR_CONFIG;
        goto fail;
    }
    if ((rc = web__handshake_init(wb, err, errlen)) != MTC_OK ||
        (rc = web__sites_create(wb, err, errlen)) != MTC_OK ||
        (rc = web__clients_create(wb, err, errlen)) != MTC_OK ||
        (rc = web__staple_create(wb, err, errlen)) != MTC_OK ||
        (rc = web__ldp_create(wb, err, errlen)) != MTC_OK ||
        (rc = web__anchors_create(wb, err, errlen)) != MTC_OK ||
        (rc = web__base_defer_create(wb)) != MTC_OK ||
        (rc = web__revreach_create(wb)) != MTC_OK)
        goto fail;
    *out = wb;
    return MTC_OK;
fail:
    if (rc == MTC_ERR_NOMEM && errlen && !err[0])
        snprintf(err, errlen, "web: out of memory");
    web_destroy(wb);
    return rc;
}

int web_start(web *wb, char *err, size_t errlen)
{
    int rc = web__sites_start(wb, err, errlen);
    if (rc == MTC_OK)
        rc = web__clients_start(wb, err, errlen);
    return rc;
}

void web_destroy(web *wb)
{
    if (!wb)
        return;
    web__revreach_destroy(wb);
    web__base_defer_destroy(wb);
    web__anchors_destroy(wb);
    web__ldp_destroy(wb);
    web__staple_destroy(wb);
    if (wb->cohorts)
        web__clients_destroy(wb);
    web__sites_destroy(wb);
    web__handshake_destroy(wb);
    free(wb->site_cfg);
    free(wb->cohorts);
    free(wb->wire_scratch);
    free(wb);
}

void web_get_stats(const web *wb, web_stats *out) { *out = wb->st; }
size_t web_client_count(const web *wb) { return wb->nclients; }
size_t web_site_count(const web *wb) { return wb->nsites; }
