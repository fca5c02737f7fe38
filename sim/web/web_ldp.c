/*
 * web_ldp.c - fetching a missing landmark on demand from the Landmark
 * Distribution Points a certificate names (draft-gray-plants-mtc-ldp-00;
 * docs/model.md "Landmark fetching on demand").
 *
 * A cohort with ldp = "fetch" or "retry" signals support in its
 * ClientHello (an empty extension, 4 bytes), so that a server whose
 * landmark-relative certificate the client did not advertise sends it
 * anyway when its CA has distribution points (web__ldp_offer). The client
 * then finds it lacks the landmark (verification fails as the draft's
 * procedure says: no trusted subtree, no signatures). With "fetch" it
 * first looks among the proof sets it verified before (it keeps every one
 * while its landmark can be active, as it keeps trusted subtrees),
 * else reads the distribution points out of the certificate for real
 * (mtc_ldp_from_cert) and requests the proof set of the certificate's
 * landmark over plain HTTP (the proof set authenticates itself against
 * the signed checkpoint, as CRLs and AIA certificates do). The proof set
 * (sim_ca_proof_set: the landmark's subtrees and their consistency proofs
 * to the cosigned checkpoint at that landmark) is verified for real
 * against the client's own cosigner policy (mtc_rp_ca_apply_proof_set)
 * and the certificate then verified against the state it gives. When the
 * fetch fails (the CA's ldp_fail_prob), the distribution point has no
 * proof set for the landmark, or it does not verify, and always with
 * "retry", the client retries with the CA's standalone certificate as the
 * trust anchor IDs draft says.
 *
 * Relying-party states are shared like the update service's views: one
 * per (proof set, update service, view version), made and verified on
 * first use; a certificate verifies against the state of its landmark's
 * proof set alone (the subtrees another proof set adds cannot change its
 * answer: a landmark-relative certificate names one subtree).
 *
 * Bytes: the request and response are real HTTP/1.1 texts around the
 * real request path and the real proof set (payload bytes, as the TLS
 * flights are counted). Draws: two per fetch (failure, loss) from the
 * client's own stream WEB_STREAM_CLIENT_LDP, so the client's other draws
 * are those of a run without fetches (common random numbers between arms).
 *
 * What the fetch reveals: the distribution point learns, per request,
 * the CA and landmark a client needed; counted per client-day as the
 * client-days with a request and the distinct (CA, landmark) pairs
 * requested in them (consecutive repeats of a pair within a day counted
 * once).
 *
 * Metrics (only when some cohort has ldp set): per cohort fetches,
 * failures, signatureless handshakes a fetch made possible in the same
 * handshake, cache hits and the signatureless handshakes they made,
 * fallback retries, response bytes and fetch milliseconds; per CA the
 * requests and bytes its distribution points served; the reveal counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/ldp.h"
#include "mtc/staple.h"
#include "sim/status.h"
#include "web_internal.h"
#include "web_rpmemo.h"

#define LDP_SIGNAL_BYTES 4     /* the client's empty extension */
#define LDP_RING 256           /* landmarks a client's cache spans per CA: more
                                  than any active window of these scenarios
                                  (hourly landmarks, 7-day certificates: 169) */
#define LDP_VERSION_BASE 0xc0000000u /* above update-service and staple views */

/* The HTTP texts around the request path and the proof set: a request as
 * Chrome sends its certificate fetches (AIA) over HTTP/1.1, and the
 * answers. The media type is this model's (the draft's was not read).
 * The request's tail and the refusal are fixed texts whose lengths alone
 * enter the bytes; the success's header is formatted with the length. */
enum {
    REQ_TAIL_LEN =
        sizeof("User-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
               "(KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36\r\n"
               "Accept: application/mtc-proof-set\r\nAccept-Encoding: gzip, deflate\r\n"
               "Connection: keep-alive\r\n\r\n") - 1,
    RESP_ERR_LEN =
        sizeof("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n") - 1
};
static const char RESP_OK[] =
    "HTTP/1.1 200 OK\r\nContent-Type: application/mtc-proof-set\r\n"
    "Cache-Control: public, max-age=3600\r\nContent-Length: %u\r\n\r\n";

typedef struct ldp_client {
    uint32_t n;              /* draws taken from its stream */
    uint32_t day;            /* day + 1 of its last request */
} ldp_client;

typedef struct ldp_seen {    /* per (client, CA) */
    uint32_t day;            /* the last pair revealed: day + 1, landmark */
    uint32_t log;            /* the log the cache's landmarks are of */
    uint64_t landmark;
    uint64_t hi;             /* the newest landmark in the cache */
    uint64_t bits[LDP_RING / 64]; /* landmark L held: bit L % LDP_RING, for
                                     hi - LDP_RING < L <= hi */
} ldp_seen;

typedef struct ldp_copy {    /* a proof set as the distribution point sent it */
    uint32_t ca;
    uint64_t log_number, landmark;
    uint8_t *bytes;
    size_t len;
} ldp_copy;

struct web_ldp {
    sim_rng *rng;
    ldp_client *cl;
    ldp_seen *seen;          /* nclients * nca */
    ldp_copy *copies;
    size_t ncopies, capcopies;
    web_rpmemo states;       /* RP states (proof set, us, base version) */
    sim_metric *cache_hits;
    sim_metric *fetches, *failed, *sigless_fetched, *sigless_cached, *fallback;
    sim_metric *resp_bytes, *fetch_ms;
    sim_metric *req_ca, *bytes_ca;
    sim_metric *reveal_days, *reveal_pairs;
};

uint32_t web__ldp_signal(const web *wb, const web_cohort *co)
{
    return wb->ldp && co->cfg.ldp != WEB_LDP_OFF ? LDP_SIGNAL_BYTES : 0;
}

uint32_t web__ldp_offer(const web *wb, const web_site_hot *s)
{
    for (size_t i = 0; i < s->ncert; i++) {
        const web_cert_hot *c = &wb->certh[s->cert[i]];
        if (c->kind != WEB_LR)
            continue;
        const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, c->ca);
        if (ci && ci->ldp > 0)
            return s->cert[i];
    }
    return WEB_NO_CERT;
}

/* ---- proof sets and the states they give ------------------------------------------- */

/* The copy of the proof set the CA serves for (log, landmark), made on
 * first request; -1: the distribution point has none. */
static long copy_of(web *wb, uint32_t ca, uint64_t log, uint64_t landmark)
{
    web_ldp *t = wb->ldp;
    for (size_t i = t->ncopies; i-- > 0;)
        if (t->copies[i].ca == ca && t->copies[i].log_number == log &&
            t->copies[i].landmark == landmark)
            return (long)i;
    const sim_ca_proof_set *p =
        wb->pki->proof_set ? wb->pki->proof_set(wb->pki->ctx, ca, log, landmark) : NULL;
    if (!p)
        return -1;
    if (t->ncopies == t->capcopies) {
        size_t nc = t->capcopies ? 2 * t->capcopies : 16;
        ldp_copy *q = realloc(t->copies, nc * sizeof *q);
        if (!q)
            return -1;
        t->copies = q;
        t->capcopies = nc;
    }
    ldp_copy *c = &t->copies[t->ncopies];
    *c = (ldp_copy){ca, log, landmark, malloc(p->len ? p->len : 1), p->len};
    if (!c->bytes)
        return -1;
    memcpy(c->bytes, p->bytes, p->len);
    return (long)t->ncopies++;
}

/* web_rpmemo's apply: the proof set verified on the clone of the base
 * state. */
static int apply_proof_set(void *ctx, web_rpstate *s)
{
    const ldp_copy *c = &((web_ldp *)ctx)->copies[s->copy];
    mtc_staple *dec = NULL;
    mtc_update_result res;
    int ok = mtc_staple_decode(c->bytes, c->len, &dec) == MTC_OK &&
             mtc_rp_ca_apply_proof_set(s->rp, dec, c->landmark, &res) == MTC_OK;
    mtc_staple_free(dec);
    return ok;
}

/* The relying-party state of proof set `copy` applied to base view v of
 * service us, made (and verified for real) on first use. NULL when out of
 * memory. */
static const web_rpstate *state_of(web *wb, uint32_t copy, uint32_t us,
                                   const sim_ca_view *v)
{
    return web_rpmemo_get(&wb->ldp->states, copy, us, v, apply_proof_set, wb->ldp);
}

/* Whether the client (its slot sn) holds the proof set of (log, landmark). */
static int cached(const ldp_seen *sn, uint64_t log, uint64_t landmark)
{
    return sn->log == log && landmark <= sn->hi && landmark + LDP_RING > sn->hi &&
           (sn->bits[(landmark % LDP_RING) / 64] >> (landmark % 64) & 1);
}

/* Keeps (log, landmark) in the client's cache; landmarks LDP_RING or more
 * older than the newest leave it (long inactive by then). */
static void cache_put(ldp_seen *sn, uint64_t log, uint64_t landmark)
{
    if (sn->log != log) {
        memset(sn->bits, 0, sizeof sn->bits);
        sn->log = (uint32_t)log;
        sn->hi = 0;
    }
    if (landmark + LDP_RING <= sn->hi)
        return;
    if (landmark >= sn->hi + LDP_RING) {
        memset(sn->bits, 0, sizeof sn->bits); /* every held one is too old */
        sn->hi = landmark;
    }
    for (; sn->hi < landmark; sn->hi++) { /* slots of (hi, landmark] reused */
        uint64_t j = (sn->hi + 1) % LDP_RING;
        sn->bits[j / 64] &= ~(UINT64_C(1) << (j % 64));
    }
    sn->bits[(landmark % LDP_RING) / 64] |= UINT64_C(1) << (landmark % 64);
}

/* The request's HTTP payload: request line and Host from the real URL. */
static uint32_t request_len(const mtc_ldp *d, const sim_ca_info *ci, uint64_t log,
                            uint64_t landmark)
{
    char url[MTC_LDP_URI_MAX + MTC_TAID_TEXT_MAX + 64];
    size_t ul = 0;
    if (mtc_ldp_request(d->uri[0], &ci->ca_id, log, landmark, url, sizeof url, &ul) !=
        MTC_OK)
        return 0;
    /* split "scheme://host/path" */
    const char *h = strstr(url, "://");
    h = h ? h + 3 : url;
    const char *path = strchr(h, '/');
    size_t hl = path ? (size_t)(path - h) : strlen(h);
    size_t pl = path ? strlen(path) : 1;
    /* "GET " path " HTTP/1.1\r\n" "Host: " host "\r\n" tail */
    return (uint32_t)(4 + pl + 11 + 6 + hl + 2 + REQ_TAIL_LEN);
}

const sim_ca_view *web__ldp_resolve(web *wb, web_client *c, const web_cohort *co,
                                    uint32_t id, const sim_ca_view *base, sim_time now,
                                    web_ldp_fetch *f)
{
    web_ldp *t = wb->ldp;
    memset(f, 0, sizeof *f);
    if (!t || co->cfg.ldp != WEB_LDP_FETCH || !base)
        return NULL;
    const web_cert_hot *ch = &wb->certh[id];
    const web_cert *cc = &wb->certs[id];
    const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, ch->ca);
    size_t li = web__client_index(wb, c);
    size_t k = c->cohort;
    ldp_seen *sn = &t->seen[li * wb->nca + ch->ca];
    /* a proof set it fetched before */
    long hit = cached(sn, ch->log_number, ch->landmark)
                   ? copy_of(wb, ch->ca, ch->log_number, ch->landmark)
                   : -1;
    if (hit >= 0) {
        const web_rpstate *s = state_of(wb, (uint32_t)hit, (uint32_t)co->us, base);
        if (s && s->ok) {
            f->state = WEB_LDPF_CACHED;
            sim_counter_add(t->cache_hits, k, 1);
            return &s->view;
        }
    }
    mtc_ldp d;
    /* the client reads where to go from the certificate's bytes */
    if (!ci || ci->ldp == 0 || mtc_ldp_from_cert(cc->der, cc->der_len, &d) != MTC_OK)
        return NULL;
    ldp_client *lc = &t->cl[li];
    sim_stream ps = {web__client_id(wb, c), lc->n, WEB_STREAM_CLIENT_LDP, 0};
    gsl_rng *r = sim_rng_use(t->rng, &ps);
    double u_fail = gsl_rng_uniform(r);
    f->u = gsl_rng_uniform(r);
    lc->n = (uint32_t)ps.n;
    f->req = request_len(&d, ci, ch->log_number, ch->landmark);
    /* what the distribution point learns */
    uint32_t day = (uint32_t)(now / SIM_DAY) + 1;
    if (lc->day != day) {
        lc->day = day;
        sim_counter_add(t->reveal_days, k, 1);
    }
    if (sn->day != day || sn->landmark != ch->landmark) {
        sn->day = day;
        sn->landmark = ch->landmark;
        sim_counter_add(t->reveal_pairs, k, 1);
    }
    sim_counter_add(t->fetches, k, 1);
    sim_counter_add(t->req_ca, ch->ca, 1);
    long copy = u_fail >= ci->ldp_fail_prob ? copy_of(wb, ch->ca, ch->log_number, ch->landmark)
                                            : -1;
    const web_rpstate *s = copy >= 0 ? state_of(wb, (uint32_t)copy, (uint32_t)co->us, base) : NULL;
    if (copy >= 0) {
        char head[sizeof RESP_OK + 24];
        int hl = snprintf(head, sizeof head, RESP_OK, (unsigned)t->copies[copy].len);
        f->resp = (uint32_t)(hl > 0 ? hl : 0) + (uint32_t)t->copies[copy].len;
    } else {
        f->resp = (uint32_t)RESP_ERR_LEN;
    }
    sim_counter_add(t->bytes_ca, ch->ca, (int64_t)f->req + f->resp);
    sim_hist_observe_u32(t->resp_bytes, k, f->resp);
    if (!s || !s->ok) {
        f->state = WEB_LDPF_FAILED;
        sim_counter_add(t->failed, k, 1);
        return NULL;
    }
    f->state = WEB_LDPF_OK;
    cache_put(sn, ch->log_number, ch->landmark);
    return &s->view;
}

void web__ldp_after(web *wb, size_t k, const web_ldp_fetch *f, int sigless, int retried)
{
    web_ldp *t = wb->ldp;
    if (!t)
        return;
    if (sigless && f->state == WEB_LDPF_OK)
        sim_counter_add(t->sigless_fetched, k, 1);
    else if (sigless && f->state == WEB_LDPF_CACHED)
        sim_counter_add(t->sigless_cached, k, 1);
    if (retried && wb->cohorts[k].cfg.ldp != WEB_LDP_OFF)
        sim_counter_add(t->fallback, k, 1);
}

void web__ldp_observe_ms(web *wb, size_t k, double ms)
{
    if (wb->ldp && ms >= 0)
        sim_hist_observe(wb->ldp->fetch_ms, k, ms);
}

int web__ldp_create(web *wb, char *err, size_t errlen)
{
    int any = 0;
    for (size_t i = 0; i < wb->ncohorts; i++)
        any |= wb->cohorts[i].cfg.ldp != WEB_LDP_OFF;
    if (!any)
        return MTC_OK;
    web_ldp *t = calloc(1, sizeof *t);
    if (!t)
        return MTC_ERR_NOMEM;
    wb->ldp = t;
    web_rpmemo_init(&t->states, LDP_VERSION_BASE);
    t->cl = calloc(wb->nclients + 1, sizeof *t->cl);
    t->seen = calloc(wb->nclients * wb->nca + 1, sizeof *t->seen);
    if (!t->cl || !t->seen ||
        sim_rng_create(&t->rng, sim_rng_seed(wb->env.rng), sim_rng_replication(wb->env.rng)))
        return MTC_ERR_NOMEM;
    sim_metrics *m = wb->env.metrics;
    size_t nc = wb->ncohorts, nca = wb->nca ? wb->nca : 1;
    int rc = 0;
    rc |= sim_metrics_counter(m, "ldp_fetches", "fetches", nc, 0, &t->fetches);
    rc |= sim_metrics_counter(m, "ldp_fetch_failed", "fetches", nc, 0, &t->failed);
    rc |= sim_metrics_counter(m, "ldp_signatureless_fetched", "handshakes", nc, 0,
                              &t->sigless_fetched);
    rc |= sim_metrics_counter(m, "ldp_signatureless_cached", "handshakes", nc, 0,
                              &t->sigless_cached);
    rc |= sim_metrics_counter(m, "ldp_cache_hits", "handshakes", nc, 0, &t->cache_hits);
    rc |= sim_metrics_counter(m, "ldp_fallback_retries", "handshakes", nc, 0, &t->fallback);
    rc |= sim_metrics_histogram(m, "ldp_response_bytes", "bytes", nc, 0, 10, 1e7, 100,
                                &t->resp_bytes);
    rc |= sim_metrics_histogram(m, "ldp_fetch_ms", "ms", nc, 0, 0.1, 1e6, 100, &t->fetch_ms);
    rc |= sim_metrics_counter(m, "ldp_requests_ca", "requests", nca, 0, &t->req_ca);
    rc |= sim_metrics_counter(m, "ldp_bytes_ca", "bytes", nca, 0, &t->bytes_ca);
    rc |= sim_metrics_counter(m, "ldp_reveal_client_days", "client-days", nc, 0,
                              &t->reveal_days);
    rc |= sim_metrics_counter(m, "ldp_reveal_pairs", "pairs", nc, 0,
                              &t->reveal_pairs);
    if (rc) {
        snprintf(err, errlen, "ldp metrics: %s", sim_strerror(SIM_ERR_METRIC));
        return SIM_ERR_METRIC;
    }
    const char **lab = calloc(nc > nca ? nc : nca, sizeof *lab);
    if (!lab)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < nc; i++)
        lab[i] = wb->cohorts[i].cfg.name;
    sim_metric *cm[] = {t->fetches, t->failed, t->sigless_fetched, t->sigless_cached,
                        t->cache_hits, t->fallback, t->resp_bytes, t->fetch_ms, t->reveal_days,
                        t->reveal_pairs};
    for (size_t i = 0; i < sizeof cm / sizeof cm[0]; i++)
        sim_metric_set_cohort_labels(cm[i], lab, nc);
    for (size_t i = 0; i < wb->nca; i++) {
        const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, i);
        lab[i] = ci ? ci->name : "";
    }
    if (wb->nca) {
        sim_metric_set_cohort_labels(t->req_ca, lab, wb->nca);
        sim_metric_set_cohort_labels(t->bytes_ca, lab, wb->nca);
    }
    free(lab);
    return MTC_OK;
}

void web__ldp_destroy(web *wb)
{
    web_ldp *t = wb->ldp;
    if (!t)
        return;
    sim_rng_destroy(t->rng);
    for (size_t i = 0; i < t->ncopies; i++)
        free(t->copies[i].bytes);
    web_rpmemo_free(&t->states);
    free(t->copies);
    free(t->cl);
    free(t->seen);
    free(t);
    wb->ldp = NULL;
}
