/*
 * web_site.c - sites (authenticating parties): CA choice by market share,
 * keys, issuance on arrival and renewal at a fraction of the lifetime,
 * keeping old and new certificates until the old expires, polling for the
 * landmark-relative certificate (ACME Retry-After), key compromise.
 *
 * Each site has one engine event for its next action (first request,
 * renewal, landmark-certificate install, expiry of a held certificate,
 * compromise). Certificates arrive through the PKI's issuance callback;
 * each is copied once into the certificate table with everything a
 * handshake needs precomputed (web_cert). Sites are few (10^3..10^5)
 * compared with clients, so clarity wins over compactness here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "mtc/cert.h"
#include "mtc/chain.h"
#include "mtc/error.h"
#include "mtc/hash.h"
#include "sim/certcomp.h"
#include "web_chain_mix.h"
#include "web_internal.h"

const char *const web_key_alg_names[] = {"ed25519", "ecdsa-p256", "ml-dsa-44",
                                         "ml-dsa-65", "ml-dsa-87", NULL};
const char *const web_revoked_serving_names[] = {"keep", "replace", NULL};
static const mtc_sig_alg key_algs[] = {MTC_SIG_ED25519, MTC_SIG_ECDSA_P256,
                                       MTC_SIG_MLDSA44, MTC_SIG_MLDSA65,
                                       MTC_SIG_MLDSA87};

/* ---- schema -------------------------------------------------------------- */

#define SO(f) offsetof(web_sites_config, f)
static const sim_param_desc site_params[] = {
    {"name", SIM_PARAM_STRING, SO(name), WEB_NAME_MAX, 0, 0, NULL, "", "unique entity name", 0, 0, 0, NULL},
    {"count", SIM_PARAM_INT, SO(count), 0, 1, 1e8, NULL, "", "sites in this group (a sample of each CA's customers)", 0, 0, 0, NULL},
    {"ca_shares", SIM_PARAM_LIST, SO(ca_shares), 0, 0, 0, NULL, "", "\"ca_name:share\" items, CA market shares (empty: uniform); Let's Encrypt ~57% of valid certs (docs/sources.md)", 0, 0, 0, NULL},
    {"key_alg", SIM_PARAM_ENUM, SO(key_alg), 0, 0, 0, web_key_alg_names, "", "subject key algorithm (sizes CertificateVerify and the SPKI)", 0, 0, 0, NULL},
    {"renew_fraction", SIM_PARAM_REAL, SO(renew_fraction), 0, 0.05, 1.0, NULL, "", "renew at this fraction of the lifetime (draft: 75 %)", 0, 0, 0, NULL},
    {"keep_old", SIM_PARAM_BOOL, SO(keep_old), 0, 0, 1, NULL, "", "keep old and new certificates until the old expires (draft \"Certificate Renewal\")", 0, 0, 0, NULL},
    {"rotate_key", SIM_PARAM_BOOL, SO(rotate_key), 0, 0, 1, NULL, "", "new key at every routine renewal", 0, 0, 0, NULL},
    {"issue_spread", SIM_PARAM_DURATION, SO(issue_spread), 0, 0, 1e9, NULL, "s", "first requests uniformly spread over [0, issue_spread)", 0, 0, 0, NULL},
    {"lifetime", SIM_PARAM_DURATION, SO(lifetime), 0, 0, 1e9, NULL, "s", "requested lifetime (0: the CA's maximum)", 0, SIM_PLAUS_HOUR, 400 * SIM_PLAUS_DAY,
     "a certificate lifetime"},
    {"retry_after", SIM_PARAM_DURATION, SO(retry_after), 0, 1e-6, 86400, NULL, "s", "ACME Retry-After while the landmark-relative certificate is pending (draft \"ACME Extensions\")", 0, 1, SIM_PLAUS_DAY,
     "an ACME Retry-After"},
    {"compromise_at", SIM_PARAM_DURATION, SO(compromise_at), 0, 0, 1e10, NULL, "s", "time of a key compromise (0: none)", 0, 0, 0, NULL},
    {"compromise_fraction", SIM_PARAM_REAL, SO(compromise_fraction), 0, 0, 1, NULL, "", "share of this group's sites compromised then", 0, 0, 0, NULL},
    {"revoke_at", SIM_PARAM_DURATION, SO(revoke_at), 0, 0, 1e10, NULL, "s", "time at which the CA revokes the certificates of revoke_fraction of this group's sites (0: never; docs/model.md \"Revocation reach\")", 0, 0, 0, NULL},
    {"revoke_fraction", SIM_PARAM_REAL, SO(revoke_fraction), 0, 0, 1, NULL, "", "share of this group's sites whose certificates are revoked then", 0, 0, 0, NULL},
    {"revoked_serving", SIM_PARAM_ENUM, SO(revoked_serving), 0, 0, 0, web_revoked_serving_names, "", "what those sites present afterwards: \"keep\" the revoked certificates until they expire, renewing nothing (the holder of a mis-issued certificate, answering every connection to the name), or \"replace\" them with a new certificate (same key) as soon as its standalone certificate exists", 0, 0, 0, NULL},
    {"dns_suffix", SIM_PARAM_STRING, SO(dns_suffix), WEB_NAME_MAX, 0, 0, NULL, "", "site names are s<id>.<suffix>", 0, 0, 0, NULL},
    {"traffic_share", SIM_PARAM_REAL, SO(traffic_share), 0, 0, 1e9, NULL, "", "weight of this group in every cohort's site choice, Zipf within the group (0: its share of all sites; independent of declaration order)", 0, 0, 0, NULL},
    {"represents", SIM_PARAM_INT, SO(represents), 0, 0, 1e9, NULL, "", "sites of the full-size world this group samples: clients choose among that many ranks (Zipf), each site standing in for a range of ranks of about equal traffic, so revisits and resumption do not depend on the sample (0: count)", 0, 0, 0, NULL},
    {"cert_compression", SIM_PARAM_LIST, SO(cert_compression), 0, 0, 0, NULL, "", "certificate compression algorithms these servers support (RFC 8879), in their order of preference: \"brotli\", \"zstd\"; empty: none (docs/model.md \"Web side: certificate compression\")", 0, 0, 0, NULL},
    {"https_record_ttl", SIM_PARAM_DURATION, SO(https_record_ttl), 0, 0, 1e7, NULL, "s", "TTL of the sites' HTTPS records: a resolver's cached copy is up to this old (Cloudflare's automatic TTL: 300 s, docs/sources.md [https-rr-ttl]); read by cohorts with trust_anchors = dns", 0, 0, 0, NULL},
    {"https_record_delay", SIM_PARAM_DURATION, SO(https_record_delay), 0, 0, 1e8, NULL, "s", "a site publishes its HTTPS record's tls-trust-anchors parameter this long after its certificates change (0: automated, as the draft recommends)", 0, 0, 0, NULL},
    {"chain_mix", SIM_PARAM_LIST, SO(chain_mix), 0, 0, 0, NULL, "", "\"profile:weight\" items: the X.509 chains (mtc/chain.h profiles) these sites serve today, one drawn per site; default: the top-sites mix of docs/model.md \"Today's chains\"", 0, 0, 0, NULL},
};


static int site_defaults(void *p)
{
    web_sites_config *c = p;
    snprintf(c->name, sizeof c->name, "sites");
    c->count = 1000;
    c->key_alg = 0;
    c->renew_fraction = 0.75;
    c->keep_old = 1;
    c->rotate_key = 0;
    c->issue_spread = 0;
    c->lifetime = 0;
    c->retry_after = 600 * SIM_SEC;
    c->compromise_at = 0;
    c->compromise_fraction = 0;
    c->revoke_at = 0;
    c->revoke_fraction = 0;
    c->revoked_serving = WEB_REVOKED_KEEP;
    snprintf(c->dns_suffix, sizeof c->dns_suffix, "example.com");
    c->https_record_ttl = 300 * SIM_SEC;
    c->https_record_delay = 0;
    web_chain_mix_default(&c->chain_mix);
    return MTC_OK;
}

static int parse_share(const char *item, char *name, size_t cap, double *share)
{
    const char *colon = strrchr(item, ':');
    if (!colon || colon == item || (size_t)(colon - item) >= cap)
        return -1;
    memcpy(name, item, (size_t)(colon - item));
    name[colon - item] = 0;
    char *end;
    *share = strtod(colon + 1, &end);
    if (end == colon + 1 || *end || !(*share >= 0) || !isfinite(*share))
        return -1;
    return 0;
}

static int site_validate(const void *p, char *err, size_t errlen)
{
    const web_sites_config *c = p;
    double sum = 0;
    for (size_t i = 0; i < c->ca_shares.count; i++) {
        char name[WEB_NAME_MAX];
        double s;
        if (parse_share(c->ca_shares.item[i], name, sizeof name, &s)) {
            snprintf(err, errlen,
                     "ca_shares: item \"%s\" is not \"ca_name:share\" with a share >= 0",
                     c->ca_shares.item[i]);
            return SIM_ERR_CONFIG;
        }
        sum += s;
    }
    if (c->ca_shares.count && !(sum > 0)) {
        snprintf(err, errlen, "ca_shares: the shares sum to 0");
        return SIM_ERR_CONFIG;
    }
    if (c->represents > 0 && c->represents < c->count) {
        snprintf(err, errlen, "represents: %lld is fewer than count (%lld): a group samples the full-size world",
                 (long long)c->represents, (long long)c->count);
        return SIM_ERR_CONFIG;
    }
    for (size_t i = 0; i < c->cert_compression.count; i++)
        if (!certcomp_alg_by_name(c->cert_compression.item[i])) {
            snprintf(err, errlen, "cert_compression: \"%s\" is not \"brotli\" or \"zstd\"",
                     c->cert_compression.item[i]);
            return SIM_ERR_CONFIG;
        }
    double csum = 0;
    for (size_t i = 0; i < c->chain_mix.count; i++) {
        char name[WEB_NAME_MAX];
        double w;
        if (parse_share(c->chain_mix.item[i], name, sizeof name, &w)) {
            snprintf(err, errlen,
                     "chain_mix: item \"%s\" is not \"profile:weight\" with a weight >= 0",
                     c->chain_mix.item[i]);
            return SIM_ERR_CONFIG;
        }
        if (!mtc_chain_profile_by_name(name)) {
            size_t np;
            const mtc_chain_profile *all = mtc_chain_profiles(&np);
            int n = snprintf(err, errlen, "chain_mix: no chain profile \"%s\" (known:", name);
            for (size_t k = 0; k < np && n > 0 && (size_t)n < errlen; k++)
                n += snprintf(err + n, errlen - (size_t)n, " %s", all[k].name);
            if (n > 0 && (size_t)n < errlen)
                snprintf(err + n, errlen - (size_t)n, ")");
            return SIM_ERR_CONFIG;
        }
        csum += w;
    }
    if (!(csum > 0)) {
        snprintf(err, errlen, "chain_mix: give at least one profile a weight > 0");
        return SIM_ERR_CONFIG;
    }
    if (c->compromise_fraction > 0 && c->compromise_at == 0) {
        snprintf(err, errlen, "compromise_fraction: set compromise_at as well");
        return SIM_ERR_CONFIG;
    }
    if (c->revoke_fraction > 0 && c->revoke_at == 0) {
        snprintf(err, errlen, "revoke_fraction: set revoke_at as well");
        return SIM_ERR_CONFIG;
    }
    if (c->revoke_at > 0 && c->compromise_at > 0) {
        snprintf(err, errlen, "revoke_at: a group has either a key compromise or a revocation, not both (declare two groups)");
        return SIM_ERR_CONFIG;
    }
    return MTC_OK;
}

const sim_param_schema sim_sites_schema = {
    "sites", "a group of sites (TLS servers) sharing a configuration",
    sizeof(web_sites_config), site_params,
    sizeof site_params / sizeof site_params[0], site_defaults, site_validate};

/* ---- helpers ------------------------------------------------------------- */

size_t web__site_dns(const web *wb, const web_site *s, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "s%u.%s", s->id, wb->site_cfg[s->group].dns_suffix);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

int64_t web__unix(const web *wb, sim_time t)
{
    return wb->epoch + (int64_t)(t / SIM_SEC);
}

static sim_time sim_of_unix(const web *wb, int64_t u)
{
    return (sim_time)(u - wb->epoch) * SIM_SEC;
}

static gsl_rng *site_rng(web *wb, sim_stream *st, uint32_t kind, uint64_t id)
{
    sim_stream_init(st, kind, id);
    return sim_rng_use(wb->env.rng, st);
}

/* A key for generation gen of site s, from the SITEKEY stream; sets spki
 * and cv_len (from a real CertificateVerify signature). */
static int site_new_key(web *wb, web_site *s)
{
    uint8_t seed[MTC_SIG_SEED_LEN];
    uint64_t seed_rng = sim_rng_seed(wb->env.rng);
    uint64_t rep = sim_rng_replication(wb->env.rng);
    for (int i = 0; i < 4; i++) {
        uint64_t v = sim_rng_draw_at(seed_rng, rep, WEB_STREAM_SITEKEY, s->id,
                                     4 * (uint64_t)s->key_gen + (uint64_t)i);
        for (int k = 0; k < 8; k++)
            seed[8 * i + k] = (uint8_t)(v >> (8 * k));
    }
    mtc_sig_key *key = NULL;
    int rc = mtc_sig_key_from_seed(s->alg, seed, &key);
    if (rc != MTC_OK)
        return rc;
    uint8_t pk[MTC_SIG_PK_MAX];
    size_t pkl, spl;
    rc = mtc_sig_key_public(key, pk, &pkl);
    if (rc == MTC_OK)
        rc = mtc_sig_spki_der(s->alg, pk, pkl, s->spki, sizeof s->spki, &spl);
    if (rc == MTC_OK) {
        s->spki_len = (uint16_t)spl;
        /* RFC 8446 4.4.3: 64 spaces, context string, 0, transcript hash. */
        uint8_t content[64 + 33 + 1 + 32];
        memset(content, 0x20, 64);
        memcpy(content + 64, "TLS 1.3, server CertificateVerify", 33);
        content[97] = 0;
        mtc_sha256(s->spki, spl, (mtc_hash *)(content + 98));
        uint8_t sig[MTC_SIG_MAX];
        size_t sl;
        rc = mtc_sig_sign(key, content, sizeof content, sig, &sl);
        if (rc == MTC_OK)
            s->cv_len = (uint32_t)tls_certificate_verify_len(sl);
    }
    mtc_sig_key_free(key);
    return rc;
}

/* The chain profile site `id` of group g serves: one draw of its own
 * stream from the group's chain_mix weights. */
static uint16_t site_chain_draw(web *wb, size_t g, size_t id)
{
    const double *w = &wb->chain_w[g * wb->nprof];
    double sum = 0;
    for (size_t k = 0; k < wb->nprof; k++)
        sum += w[k];
    sim_stream st;
    double u = gsl_rng_uniform(site_rng(wb, &st, WEB_STREAM_SITE_CHAIN, id)) * sum;
    size_t k = 0, last = 0;
    for (; k < wb->nprof; k++) {
        if (w[k] > 0) {
            last = k;
            if (u < w[k])
                break;
            u -= w[k];
        }
    }
    /* rounding can leave u just above the last weight: the last profile */
    return (uint16_t)(k < wb->nprof ? k : last);
}

/* ---- certificate table --------------------------------------------------- */

static uint32_t cert_alloc(web *wb)
{
    if (wb->ncert_free)
        return wb->cert_free[--wb->ncert_free];
    if (wb->ncerts == wb->certs_cap) {
        size_t cap = wb->certs_cap ? 2 * wb->certs_cap : 1024;
        web_cert *n = realloc(wb->certs, cap * sizeof *n);
        if (!n)
            return WEB_NO_CERT;
        wb->certs = n;
        web_cert_hot *h = aligned_alloc(64, cap * sizeof *h);
        if (!h)
            return WEB_NO_CERT;
        if (wb->ncerts)
            memcpy(h, wb->certh, wb->ncerts * sizeof *h);
        free(wb->certh);
        wb->certh = h;
        wb->certs_cap = cap;
    }
    return (uint32_t)wb->ncerts++;
}

static void cert_release(web *wb, uint32_t id)
{
    web_cert *c = &wb->certs[id];
    free(c->der);
    c->der = NULL;
    c->live = 0;
    if (wb->ncert_free == wb->cert_free_cap) {
        size_t cap = wb->cert_free_cap ? 2 * wb->cert_free_cap : 1024;
        uint32_t *n = realloc(wb->cert_free, cap * sizeof *n);
        if (!n)
            return; /* the slot leaks until destroy; harmless */
        wb->cert_free = n;
        wb->cert_free_cap = cap;
    }
    wb->cert_free[wb->ncert_free++] = id;
}

static uint32_t cert_install(web *wb, web_site *s, const sim_cert_event *ev)
{
    uint32_t id = cert_alloc(wb);
    if (id == WEB_NO_CERT)
        return id;
    web_cert *c = &wb->certs[id];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->der = malloc(ev->der_len);
    if (!c->der) {
        cert_release(wb, id);
        return WEB_NO_CERT;
    }
    memcpy(c->der, ev->der, ev->der_len);
    c->der_len = (uint32_t)ev->der_len;
    c->site = s->id;
    c->group = s->group;
    c->ca = (uint32_t)ev->ca;
    c->kind = ev->kind == SIM_CERT_LANDMARK ? WEB_LR : WEB_SA;
    c->live = 1;
    c->log_number = ev->log_number;
    c->index = ev->index;
    c->serial = ev->serial;
    c->landmark = ev->landmark;
    c->not_before = ev->not_before;
    c->not_after = ev->not_after;
    c->expires = sim_of_unix(wb, ev->not_after + 1);
    mtc_sha256(c->der, c->der_len, &c->hash);
    c->obj = ++wb->cert_objs;
    size_t l = c->der_len;
    c->msg_len[0] = (uint32_t)tls_certificate_len(&l, 1, 0);
    c->msg_len[1] = (uint32_t)tls_certificate_len(&l, 1, 1);
    /* The proof's subtree, read from the certificate itself. */
    mtc_cert pc;
    mtc_proof pf;
    if (mtc_cert_parse(c->der, c->der_len, &pc) == MTC_OK &&
        mtc_proof_decode(pc.sig_value.p, pc.sig_value.len, &pf) == MTC_OK) {
        c->start = pf.start;
        c->end = pf.end;
    }
    const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, c->ca);
    if (c->kind == WEB_LR) {
        mtc_taid_landmark_id(&ci->ca_id, c->log_number, c->landmark, &c->ta_id);
        c->lm_match = c->landmark;
        c->lm_known = 1;
    } else {
        c->ta_id = ci->ca_id;
        c->lm_match = 0;
        c->lm_known = 0;
    }
    memset(&wb->certh[id], 0, sizeof wb->certh[id]);
    web__cert_sync(wb, id);
    return id;
}

/* ---- the site's certificate set ------------------------------------------- */

void web__site_slots_sync(web *wb, uint32_t site)
{
    const web_site_hot *h = &wb->siteh[site];
    /* whole records, the memo front entries too: each is the key and
     * answer of a memo entry of that certificate, so any of them is good
     * in whichever copy (web_handshake.c) */
    for (size_t i = 0; i < h->ncert; i++)
        wb->sloth[(size_t)site * WEB_SITE_CERTS + i] = wb->certh[h->cert[i]];
}

static void site_add_cert(web *wb, web_site *s, uint32_t id)
{
    if (s->ncert == WEB_SITE_CERTS) {
        /* Drop the oldest (only with renewal faster than half a lifetime). */
        cert_release(wb, s->cert[WEB_SITE_CERTS - 1]);
        s->ncert--;
    }
    memmove(&s->cert[1], &s->cert[0], s->ncert * sizeof s->cert[0]);
    s->cert[0] = id;
    s->ncert++;
    web__site_set_changed(wb, s);
}

static void site_drop_where(web *wb, web_site *s, int (*pred)(const web_cert *, const void *),
                            const void *arg)
{
    size_t k = 0;
    for (size_t i = 0; i < s->ncert; i++) {
        web_cert *c = &wb->certs[s->cert[i]];
        if (pred(c, arg))
            cert_release(wb, s->cert[i]);
        else
            s->cert[k++] = s->cert[i];
    }
    if (k != s->ncert) {
        s->ncert = (uint32_t)k;
        web__site_set_changed(wb, s);
    }
}

static int expired_at(const web_cert *c, const void *arg)
{
    return c->expires <= *(const sim_time *)arg;
}

static int older_than(const web_cert *c, const void *arg)
{
    /* A previous generation: another request's certificate. */
    return c->not_before < *(const int64_t *)arg;
}

static int any_cert(const web_cert *c, const void *arg)
{
    (void)c;
    (void)arg;
    return 1;
}

static void site_reschedule(web *wb, web_site *s)
{
    sim_time t = s->renew_at;
    if (s->lr_install_at < t)
        t = s->lr_install_at;
    sim_time exp = SIM_TIME_MAX;
    for (size_t i = 0; i < s->ncert; i++)
        if (wb->certs[s->cert[i]].expires < exp)
            exp = wb->certs[s->cert[i]].expires;
    s->next_expiry = exp;
    if (exp < t)
        t = exp;
    if (s->compromised_pending) {
        const web_sites_config *g = &wb->site_cfg[s->group];
        if (g->compromise_at < t)
            t = g->compromise_at;
    }
    if (s->revoke_pending) {
        const web_sites_config *g = &wb->site_cfg[s->group];
        if (g->revoke_at < t)
            t = g->revoke_at;
    }
    if (t == SIM_TIME_MAX) {
        if (sim_event_pending(&s->ev))
            sim_cancel(wb->env.engine, &s->ev);
        return;
    }
    sim_time now = sim_now(wb->env.engine);
    if (t < now)
        t = now;
    sim_reschedule(wb->env.engine, &s->ev, t);
}

static void site_cert_cb(void *ctx, const sim_cert_event *ev);

static void site_request(web *wb, web_site *s)
{
    const web_sites_config *g = &wb->site_cfg[s->group];
    char dns[WEB_NAME_MAX + 32];
    web__site_dns(wb, s, dns, sizeof dns);
    /* the leaf content of the chain the site serves today (same names
     * and extensions), so that MTC and the chain are like for like */
    uint8_t subj[512], ext[8192];
    size_t sl = 0, el = 0;
    size_t np;
    const mtc_chain_profile *prof = &mtc_chain_profiles(&np)[s->chain];
    int have = mtc_chain_mtc_leaf_fields(prof, dns, mtc_chain_alg_of_sig((mtc_sig_alg)s->alg),
                                         subj, sizeof subj, &sl, ext, sizeof ext,
                                         &el) == MTC_OK;
    sim_issue_request req = {dns, s->spki, s->spki_len, g->lifetime, site_cert_cb, s,
                             subj, sl, ext, el};
    uint64_t ticket = 0;
    if (!have || wb->pki->issue(wb->pki->ctx, s->ca, &req, &ticket) != MTC_OK) {
        s->renew_at = SIM_TIME_MAX;
        return;
    }
    s->ticket_sa = s->ticket_cur;
    s->ticket_cur = ticket;
    const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, s->ca);
    sim_time life = g->lifetime ? g->lifetime : ci->max_lifetime;
    s->renew_at = sim_now(wb->env.engine) +
                  (sim_time)llround(g->renew_fraction * (double)life);
}

static void site_cert_cb(void *ctx, const sim_cert_event *ev)
{
    web_site *s = ctx;
    web *wb = s->wb;
    if (ev->ticket != s->ticket_cur && ev->ticket != s->ticket_sa)
        return; /* a request whose key was discarded (compromise) */
    /* "keep" after a revocation: only the revoked entries' certificates
     * (a landmark-relative one still to come); a renewal that was under
     * way is abandoned */
    if (s->revoked_keep && !s->wb->pki->is_revoked(s->wb->pki->ctx, ev->ca, ev->serial, NULL))
        return;
    sim_time now = sim_now(wb->env.engine);
    if (ev->kind == SIM_CERT_STANDALONE) {
        uint32_t id = cert_install(wb, s, ev);
        if (id == WEB_NO_CERT)
            return;
        if (ev->ticket == s->ticket_cur) {
            s->sa_ready_at = now;
            /* a replacement drops the revoked generation whatever keep_old
             * says: keeping it would present a revoked certificate */
            if (!wb->site_cfg[s->group].keep_old || s->replacing) {
                s->replacing = 0;
                int64_t nb = ev->not_before;
                site_drop_where(wb, s, older_than, &nb);
            }
        }
        site_add_cert(wb, s, id);
    } else if (ev->kind == SIM_CERT_LANDMARK) {
        /* The standalone sibling's subtree may be this landmark's subtree:
         * then the relying party accepts it through the trusted subtree,
         * and the memo must key it on the full view (web_handshake.c). */
        mtc_subtree st[2] = {{0, 0}, {0, 0}};
        const mtc_landmarks *lm =
            wb->pki->ca_landmarks(wb->pki->ctx, ev->ca, ev->log_number);
        int have = lm && mtc_landmarks_subtrees(lm, ev->landmark, &st[0], &st[1]) == MTC_OK;
        for (size_t i = 0; i < s->ncert; i++) {
            web_cert *c = &wb->certs[s->cert[i]];
            if (c->kind != WEB_SA || c->serial != ev->serial || c->ca != ev->ca)
                continue;
            c->lm_match = 0;
            if (have)
                for (int k = 0; k < 2; k++)
                    if (st[k].end > st[k].start && c->start == st[k].start &&
                        c->end == st[k].end)
                        c->lm_match = ev->landmark;
            c->lm_known = have ? 1 : 0;
            web__cert_sync(wb, s->cert[i]);
        }
        uint32_t id = cert_install(wb, s, ev);
        if (id == WEB_NO_CERT)
            return;
        /* ACME polling: installed at the first poll at or after now. */
        sim_time ra = wb->site_cfg[s->group].retry_after;
        sim_time base = s->sa_ready_at <= now ? s->sa_ready_at : now;
        sim_time waited = now - base;
        sim_time polls = (waited + ra - 1) / ra;
        if (wb->m.acme_polls)
            sim_counter_add(wb->m.acme_polls, s->ca, polls > 0 ? polls : 1);
        sim_time at = base + polls * ra;
        if (s->pending_lr != WEB_NO_CERT)
            site_add_cert(wb, s, s->pending_lr); /* older pending first */
        s->pending_lr = id;
        s->lr_install_at = at;
    } else {
        for (size_t i = 0; i < s->ncert; i++) {
            web_cert *c = &wb->certs[s->cert[i]];
            if (c->kind == WEB_SA && c->serial == ev->serial && c->ca == ev->ca) {
                c->lm_match = 0;
                c->lm_known = 1;
                web__cert_sync(wb, s->cert[i]);
            }
        }
    }
    site_reschedule(wb, s);
}

/* Revokes every entry the site's certificates stand for, once each: a
 * standalone certificate and its landmark-relative sibling are one entry,
 * one revoked range (revoking it twice would carry two ranges in every
 * update and relying-party state). */
static void revoke_held(web *wb, web_site *s)
{
    for (size_t i = 0; i < s->ncert; i++) {
        web_cert *c = &wb->certs[s->cert[i]];
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= wb->certs[s->cert[j]].serial == c->serial &&
                    wb->certs[s->cert[j]].ca == c->ca;
        if (!seen)
            wb->pki->revoke(wb->pki->ctx, c->ca, c->log_number, c->index, c->index);
    }
}

static void site_compromise(web *wb, web_site *s)
{
    s->compromised_pending = 0;
    /* Discard the key, revoke what it certified, request anew: standalone
     * only until the new landmark-relative certificate exists (draft
     * "Certificate Renewal"). */
    revoke_held(wb, s);
    site_drop_where(wb, s, any_cert, NULL);
    if (s->pending_lr != WEB_NO_CERT) {
        cert_release(wb, s->pending_lr);
        s->pending_lr = WEB_NO_CERT;
        s->lr_install_at = SIM_TIME_MAX;
    }
    s->ticket_cur = s->ticket_sa = UINT64_MAX;
    s->key_gen++;
    if (site_new_key(wb, s) == MTC_OK)
        site_request(wb, s);
}

/* Revocation reach: the CA revokes every certificate the site holds or
 * awaits (one range per entry, as for a key compromise, but the key
 * stays). "keep": the site goes on presenting them until they expire and
 * requests nothing (renewal stops; a landmark-relative certificate still
 * pending arrives revoked too, it shares the serial). "replace": a new
 * request at once; the revoked generation is dropped when its standalone
 * certificate arrives, and the revoked request's landmark-relative
 * certificate is never installed. */
static void site_revoke(web *wb, web_site *s)
{
    s->revoke_pending = 0;
    const web_sites_config *g = &wb->site_cfg[s->group];
    revoke_held(wb, s);
    if (s->pending_lr != WEB_NO_CERT) {
        web_cert *c = &wb->certs[s->pending_lr];
        /* its standalone sibling is held (same entry) unless the site
         * dropped it; revoking the entry twice would add a second range */
        int held = 0;
        for (size_t i = 0; i < s->ncert; i++)
            held |= wb->certs[s->cert[i]].serial == c->serial &&
                    wb->certs[s->cert[i]].ca == c->ca;
        if (!held)
            wb->pki->revoke(wb->pki->ctx, c->ca, c->log_number, c->index, c->index);
    }
    if (g->revoked_serving == WEB_REVOKED_KEEP) {
        s->renew_at = SIM_TIME_MAX;
        s->revoked_keep = 1;
        return;
    }
    if (s->pending_lr != WEB_NO_CERT) {
        cert_release(wb, s->pending_lr);
        s->pending_lr = WEB_NO_CERT;
        s->lr_install_at = SIM_TIME_MAX;
    }
    s->replacing = 1;
    site_request(wb, s);
    /* events of the revoked requests are ignored from now on */
    s->ticket_sa = UINT64_MAX;
}

static void site_event(sim_engine *sim, sim_event *e)
{
    web_site *s = e->arg;
    web *wb = s->wb;
    sim_time now = sim_now(sim);
    const web_sites_config *g = &wb->site_cfg[s->group];
    if (s->compromised_pending && g->compromise_at <= now)
        site_compromise(wb, s);
    if (s->revoke_pending && g->revoke_at <= now)
        site_revoke(wb, s);
    if (s->lr_install_at <= now && s->pending_lr != WEB_NO_CERT) {
        site_add_cert(wb, s, s->pending_lr);
        s->pending_lr = WEB_NO_CERT;
        s->lr_install_at = SIM_TIME_MAX;
    }
    if (s->next_expiry <= now)
        site_drop_where(wb, s, expired_at, &now);
    if (s->renew_at <= now) {
        if (g->rotate_key && s->ncert > 0) {
            s->key_gen++;
            site_new_key(wb, s);
        }
        site_request(wb, s);
    }
    site_reschedule(wb, s);
}

/* ---- lifecycle ------------------------------------------------------------ */

int web__sites_create(web *wb, char *err, size_t errlen)
{
    size_t total = 0;
    for (size_t g = 0; g < wb->nsite_groups; g++)
        total += (size_t)wb->site_cfg[g].count;
    wb->nsites = total;
    wb->sites = calloc(total ? total : 1, sizeof *wb->sites);
    /* C11 aligned_alloc: the size a multiple of the alignment. Nothing
     * more is allocated (and touched) once an allocation failed. */
    size_t hbytes = ((total ? total : 1) * sizeof *wb->siteh + 63) & ~(size_t)63;
    wb->siteh = wb->sites ? aligned_alloc(64, hbytes) : NULL;
    if (wb->siteh)
        memset(wb->siteh, 0, hbytes);
    wb->sloth = wb->siteh ? web__big_calloc((total ? total : 1) * WEB_SITE_CERTS,
                                            sizeof *wb->sloth)
                          : NULL;
    wb->ca_share = wb->sloth ? calloc(wb->nsite_groups * wb->nca + 1, sizeof(double))
                             : NULL;
    if (wb->sites && web__comp_negotiate(wb) != MTC_OK) {
        web__nomem(wb, "sites", err, errlen);
        return MTC_ERR_NOMEM;
    }
    mtc_chain_profiles(&wb->nprof);
    wb->chain_w = wb->ca_share ? calloc(wb->nsite_groups * wb->nprof + 1, sizeof(double))
                               : NULL;
    if (!wb->sites || !wb->siteh || !wb->sloth || !wb->ca_share || !wb->chain_w) {
        web__nomem(wb, "sites", err, errlen);
        return MTC_ERR_NOMEM;
    }
    /* CA shares per group, resolved by CA name. */
    for (size_t g = 0; g < wb->nsite_groups; g++) {
        const web_sites_config *c = &wb->site_cfg[g];
        double *sh = &wb->ca_share[g * wb->nca];
        if (c->ca_shares.count == 0) {
            for (size_t k = 0; k < wb->nca; k++)
                sh[k] = 1;
        }
        for (size_t i = 0; i < c->ca_shares.count; i++) {
            char name[WEB_NAME_MAX];
            double v;
            /* validated with the declaration (site_validate); checked again
             * so that v is never read unset */
            if (parse_share(c->ca_shares.item[i], name, sizeof name, &v)) {
                snprintf(err, errlen,
                         "%s: ca_shares: item \"%s\" is not \"ca_name:share\" "
                         "with a share >= 0",
                         c->name, c->ca_shares.item[i]);
                return SIM_ERR_CONFIG;
            }
            size_t k;
            for (k = 0; k < wb->nca; k++)
                if (!strcmp(wb->pki->ca(wb->pki->ctx, k)->name, name))
                    break;
            if (k == wb->nca) {
                snprintf(err, errlen, "%s: ca_shares: no CA named \"%s\"",
                         c->name, name);
                return SIM_ERR_CONFIG;
            }
            sh[k] += v;
        }
    }
    /* chain mixes per group, resolved by profile name (validated with
     * the declaration; checked again so that no weight is read unset) */
    for (size_t g = 0; g < wb->nsite_groups; g++) {
        const web_sites_config *c = &wb->site_cfg[g];
        const mtc_chain_profile *all = mtc_chain_profiles(&wb->nprof);
        for (size_t i = 0; i < c->chain_mix.count; i++) {
            char name[WEB_NAME_MAX];
            double v;
            const mtc_chain_profile *p = NULL;
            if (parse_share(c->chain_mix.item[i], name, sizeof name, &v) ||
                !(p = mtc_chain_profile_by_name(name))) {
                snprintf(err, errlen, "%s: chain_mix: item \"%s\" is not \"profile:weight\" "
                         "with a known profile and a weight >= 0",
                         c->name, c->chain_mix.item[i]);
                return SIM_ERR_CONFIG;
            }
            wb->chain_w[g * wb->nprof + (size_t)(p - all)] += v;
        }
    }
    if (wb->env.steady_sites)
        for (size_t g = 0; g < wb->nsite_groups; g++)
            if (wb->site_cfg[g].issue_spread != 0) {
                snprintf(err, errlen,
                         "%s: issue_spread: in a steady start first requests are "
                         "spread over one renewal period; issue_spread applies to "
                         "world{ start = \"empty\" }",
                         wb->site_cfg[g].name);
                return SIM_ERR_CONFIG;
            }
    size_t id = 0;
    for (size_t g = 0; g < wb->nsite_groups; g++) {
        const web_sites_config *c = &wb->site_cfg[g];
        const double *sh = &wb->ca_share[g * wb->nca];
        double sum = 0;
        for (size_t k = 0; k < wb->nca; k++)
            sum += sh[k];
        for (int64_t i = 0; i < c->count; i++, id++) {
            web_site *s = &wb->sites[id];
            s->wb = wb;
            s->id = (uint32_t)id;
            s->group = (uint32_t)g;
            s->alg = key_algs[c->key_alg];
            for (size_t k = 0; k < WEB_SITE_CERTS; k++)
                s->cert[k] = wb->siteh[id].cert[k] = WEB_NO_CERT;
            s->pending_lr = WEB_NO_CERT;
            s->renew_at = s->lr_install_at = s->next_expiry = SIM_TIME_MAX;
            s->ticket_cur = s->ticket_sa = UINT64_MAX;
            sim_stream st;
            gsl_rng *r = site_rng(wb, &st, WEB_STREAM_SITE, id);
            double u = gsl_rng_uniform(r) * sum;
            size_t k = 0;
            while (k + 1 < wb->nca && u >= sh[k]) {
                u -= sh[k];
                k++;
            }
            s->ca = (uint32_t)k;
            double first = gsl_rng_uniform(r);
            /* A steady start: the first request at a uniform phase of one
             * renewal period, so that at the window every site holds what
             * it would at a random point of its renewal cycle. */
            sim_time spread = c->issue_spread;
            if (wb->env.steady_sites) {
                sim_time life = c->lifetime ? c->lifetime
                                            : wb->pki->ca(wb->pki->ctx, k)->max_lifetime;
                spread = (sim_time)(c->renew_fraction * (double)life);
            }
            s->renew_at = (sim_time)(first * (double)spread);
            double comp = gsl_rng_uniform(r);
            s->compromised_pending = c->compromise_at > 0 && comp < c->compromise_fraction;
            /* drawn only when used, so that other runs keep their draws */
            s->revoke_pending = c->revoke_at > 0 && gsl_rng_uniform(r) < c->revoke_fraction;
            s->chain = site_chain_draw(wb, g, id);
            sim_event_init(&s->ev, site_event, s);
            int rc = site_new_key(wb, s);
            if (rc == MTC_OK)
                rc = web__site_baselines(wb, s);
            if (rc != MTC_OK) {
                snprintf(err, errlen, "%s: key_alg: cannot make a %s key or its baselines (%s)",
                         c->name, web_key_alg_names[c->key_alg], sim_strerror(rc));
                return rc;
            }
            s->ee_len_noext = (uint32_t)tls_encrypted_extensions_len(0);
            s->ee_len = s->ee_len_noext;
        }
    }
    return MTC_OK;
}

int web__sites_start(web *wb, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    sim_prof_handler(sim_engine_prof(wb->env.engine), site_event, SIM_PART_WEB);
    for (size_t i = 0; i < wb->nsites; i++)
        site_reschedule(wb, &wb->sites[i]);
    return MTC_OK;
}

void web__sites_destroy(web *wb)
{
    for (size_t i = 0; i < wb->ncerts; i++)
        free(wb->certs[i].der);
    free(wb->certs);
    free(wb->certh);
    free(wb->cert_free);
    free(wb->sites);
    free(wb->siteh);
    free(wb->sloth);
    free(wb->ca_share);
    free(wb->chain_w);
}
