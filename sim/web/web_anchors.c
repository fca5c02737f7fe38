/*
 * web_anchors.c - clients with many trust anchors
 * (draft-ietf-tls-trust-anchor-ids-04, "Retry Mechanism" and "DNS Service
 * Parameter"; docs/model.md "Many trust anchors"). A cohort's
 * trust_anchors says what its ClientHello lists:
 *
 *   full   every CA's landmark group, unconditionally (web_handshake.c;
 *          nothing here);
 *   dns    only what it trusts of the site's HTTPS record's
 *          tls-trust-anchors parameter (the server's available paths);
 *   retry  an empty list.
 *
 * The server answers a list that matches none of its paths with its
 * preferred path (the newest landmark-relative certificate: the draft's
 * opportunistic, "less ubiquitous, more bandwidth-efficient path"), and
 * lists its paths in EncryptedExtensions whenever the ClientHello carried
 * trust_anchors. A client that lacks that landmark retries once on a new
 * connection, asking only for the first path of the server's list it
 * trusts (web_handshake.c makes the attempt).
 *
 * The HTTPS record. Each site's record is its AvailableTrustAnchorList
 * (landmark IDs newest first, then CA IDs) as a real SvcParamValue in a
 * real DNS response (sim/svcb.h), made when its certificate set changes
 * and published https_record_delay later. A client reads it through a
 * resolver cache: the copy it gets was fetched up to https_record_ttl
 * earlier, uniformly (a cache refilled on the first query after each
 * expiry, for a name queried often), so it describes the site's set as
 * of now - delay - U * ttl. The last WEB_DNS_HIST records are kept per
 * site (sets change hours apart; the oldest kept stands in for anything
 * older). Lookups run beside the address lookups, as browsers do
 * (docs/sources.md [https-rr-parallel]): no time is added, one query per
 * full handshake is counted (an upper bound: a browser's own host cache
 * would answer repeats within the TTL).
 *
 * Owns: the per-site record history and the mode's metrics (wb->anc).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "mtc/error.h"
#include "mtc/landmark.h"
#include "sim/status.h"
#include "sim/svcb.h"
#include "web_internal.h"

#define WEB_DNS_HIST 4
#define WEB_DNS_VAL 112 /* value bytes kept: 4 paths of IDs up to 27 bytes */
#define WEB_ANC_IDS (WEB_SITE_CERTS * 2)

typedef struct web_dns_rec {
    sim_time from;          /* published */
    uint16_t resp_len;      /* the DNS response's bytes */
    uint8_t len;            /* the value's bytes (0: too long to keep: no
                               parameter published) */
    uint8_t val[WEB_DNS_VAL];
} web_dns_rec;

typedef struct web_dns_site {
    web_dns_rec rec[WEB_DNS_HIST];
    uint8_t n, next;        /* records kept; the slot the next one takes */
    uint16_t base_len;      /* the response without the parameter */
} web_dns_site;

typedef struct web_anchors {
    web_dns_site *dns;      /* per site; NULL: no cohort reads DNS */
    sim_metric *lookups, *resp, *param, *stale, *missing, *ee;
} web_anchors;

static const char *const alpn[] = {"h3", "h2"};

/* The modelled record of site s with value val[len] (NULL: none). */
static size_t response_len(const web *wb, const web_site *s, const uint8_t *val,
                           size_t len)
{
    char name[2 * WEB_NAME_MAX];
    if (!web__site_dns(wb, s, name, sizeof name))
        return 0;
    const web_sites_config *g = &wb->site_cfg[s->group];
    svcb_https_response r = {name, (uint32_t)(g->https_record_ttl / SIM_SEC), alpn, 2, 2, 2,
                             SVCB_KEY_TRUST_ANCHORS_DEFAULT, val, len, 1};
    return svcb_https_response_len(&r);
}

int web__anchors_create(web *wb, char *err, size_t errlen)
{
    int any = 0, dns = 0;
    for (size_t k = 0; k < wb->ncohorts; k++) {
        const web_browsers_config *c = &wb->cohorts[k].cfg;
        if (c->trust_anchors == WEB_TA_FULL)
            continue;
        if (c->ldp != WEB_LDP_OFF || c->learn_staples) {
            snprintf(err, errlen,
                     "%s: trust_anchors = %s needs ldp = \"off\" and learn_staples = false",
                     c->name, c->trust_anchors == WEB_TA_DNS ? "dns" : "retry");
            return SIM_ERR_CONFIG;
        }
        any = 1;
        dns |= c->trust_anchors == WEB_TA_DNS;
    }
    if (!any)
        return MTC_OK;
    web_anchors *a = calloc(1, sizeof *a);
    if (!a)
        return MTC_ERR_NOMEM;
    wb->anc = a;
    if (dns) {
        a->dns = web__big_calloc(wb->nsites ? wb->nsites : 1, sizeof *a->dns);
        if (!a->dns)
            return MTC_ERR_NOMEM;
        for (size_t i = 0; i < wb->nsites; i++)
            a->dns[i].base_len = (uint16_t)response_len(wb, &wb->sites[i], NULL, 0);
    }
    sim_metrics *m = wb->env.metrics;
    size_t nc = wb->ncohorts;
    int rc = 0;
    rc |= sim_metrics_counter(m, "dns_https_lookups", "queries", nc, 0, &a->lookups);
    rc |= sim_metrics_histogram(m, "dns_https_response_bytes", "bytes", nc, 0, 10, 1e5, 100, &a->resp);
    rc |= sim_metrics_histogram(m, "dns_trust_anchors_param_bytes", "bytes", nc, 0, 1, 1e5, 100, &a->param);
    rc |= sim_metrics_counter(m, "dns_record_stale", "queries", nc, 0, &a->stale);
    rc |= sim_metrics_counter(m, "dns_record_missing", "queries", nc, 0, &a->missing);
    rc |= sim_metrics_histogram(m, "ee_trust_anchors_bytes", "bytes", nc, 0, 1, 1e5, 100, &a->ee);
    if (rc)
        return SIM_ERR_METRIC;
    sim_metric *cm[] = {a->lookups, a->resp, a->param, a->stale, a->missing, a->ee};
    return web__label_by_cohort(wb, cm, sizeof cm / sizeof cm[0]);
}

void web__anchors_destroy(web *wb)
{
    if (!wb->anc)
        return;
    free(wb->anc->dns);
    free(wb->anc);
    wb->anc = NULL;
}

void web__anchors_site_changed(web *wb, const web_site *s, const mtc_taid *ids, size_t n)
{
    if (!wb->anc || !wb->anc->dns)
        return;
    web_dns_site *d = &wb->anc->dns[s->id];
    web_dns_rec *r = &d->rec[d->next];
    size_t len = 0;
    if (n == 0 || svcb_ta_value_encode(ids, n, r->val, sizeof r->val, &len) != MTC_OK)
        len = 0;
    r->len = (uint8_t)len;
    r->from = sim_now(wb->env.engine) + wb->site_cfg[s->group].https_record_delay;
    r->resp_len = (uint16_t)response_len(wb, s, len ? r->val : NULL, len);
    d->next = (uint8_t)((d->next + 1) % WEB_DNS_HIST);
    if (d->n < WEB_DNS_HIST)
        d->n++;
}

/* The record a resolver hands out at `at`: the newest published by then,
 * else the oldest kept (when it too is newer) or NULL (none yet). *newest
 * is set when it is the site's latest record. */
static const web_dns_rec *record_at(const web_dns_site *d, sim_time at, int *newest)
{
    const web_dns_rec *best = NULL, *oldest = NULL;
    for (size_t i = 0; i < d->n; i++) {
        /* i = 0 is the newest */
        const web_dns_rec *r = &d->rec[(d->next + WEB_DNS_HIST - 1 - i) % WEB_DNS_HIST];
        oldest = r;
        if (r->from <= at) {
            best = r;
            *newest = i == 0;
            return best;
        }
    }
    *newest = 0;
    return oldest && d->n == WEB_DNS_HIST ? oldest : NULL;
}

/* The server's choice from a client's list ids[n] (exact IDs: the path's
 * trust anchor ID listed), landmark-relative first, newest first; else
 * its preferred path (matched 0). */
static uint32_t server_pick(const web *wb, const web_site_hot *s, const mtc_taid *ids,
                            size_t n, int *matched)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < s->ncert; i++) {
            const web_cert *c = &wb->certs[s->cert[i]];
            if ((pass == 0) != (c->kind == WEB_LR))
                continue;
            for (size_t j = 0; j < n; j++)
                if (mtc_taid_equal(&ids[j], &c->ta_id)) {
                    *matched = 1;
                    return s->cert[i];
                }
        }
    *matched = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < s->ncert; i++)
            if ((pass == 0) == (wb->certh[s->cert[i]].kind == WEB_LR))
                return s->cert[i];
    return WEB_NO_CERT;
}

/* Does publication pi hold landmark `lm` of (ca, log)? From its view of
 * the CA (what it holds, whatever group version it would advertise). */
static int holds(const web_pubinfo *pi, uint32_t ca, uint64_t log, uint64_t lm)
{
    const sim_ca_view *v = pi->view ? pi->view[ca] : NULL;
    for (size_t k = 0; v && k < v->nlogs; k++)
        if (v->log[k].log_number == log)
            return v->log[k].last_landmark > 0 &&
                   mtc_landmark_group_contains(v->log[k].last_landmark, v->log[k].max_active,
                                               lm);
    return 0;
}

/* Does a client holding pi trust the path ID `id` of a site of CA ca?
 * The CA ID: yes (an MTC-aware client trusts every CA of the PKI); a
 * landmark ID ca.1.N.L: iff it holds landmark L of log N. */
static int trusts(const web *wb, const web_pubinfo *pi, uint32_t ca, const mtc_taid *id)
{
    const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, ca);
    if (mtc_taid_equal(id, &ci->ca_id))
        return 1;
    uint64_t one = 1, log = 0, lm = 0;
    mtc_taid pre;
    if (mtc_taid_append(&ci->ca_id, &one, 1, &pre) != MTC_OK || id->len <= pre.len ||
        memcmp(id->b, pre.b, pre.len) != 0)
        return 0;
    /* ca.1.N.L: N then L, both minimal base-128 arcs */
    size_t i = pre.len;
    uint64_t *arcs[2] = {&log, &lm};
    for (int a = 0; a < 2; a++) {
        uint64_t v = 0;
        int end = 0;
        while (i < id->len && !end) {
            if (v >> 57)
                return 0;
            v = v << 7 | (id->b[i] & 0x7f);
            end = !(id->b[i] & 0x80);
            i++;
        }
        if (!end)
            return 0;
        *arcs[a] = v;
    }
    return i == id->len && holds(pi, ca, log, lm);
}

uint32_t web__anchors_select(web *wb, size_t k, uint32_t site, const web_pubinfo *adv,
                             sim_time now, gsl_rng *rng, int *matched, uint32_t *ch_len)
{
    web_anchors *a = wb->anc;
    const web_cohort *co = &wb->cohorts[k];
    const web_site_hot *sh = &wb->siteh[site];
    mtc_taid ids[WEB_ANC_IDS];
    size_t n = 0;
    if (co->cfg.trust_anchors == WEB_TA_DNS && a->dns) {
        const web_site *s = &wb->sites[site];
        const web_sites_config *g = &wb->site_cfg[s->group];
        web_dns_site *d = &a->dns[site];
        /* the resolver's copy is up to a TTL old */
        sim_time back = (sim_time)(gsl_rng_uniform(rng) * (double)g->https_record_ttl);
        int newest = 0;
        const web_dns_rec *r = now >= back ? record_at(d, now - back, &newest) : NULL;
        sim_counter_add(a->lookups, k, 1);
        sim_counter_add(a->stale, k, r && !newest);
        sim_counter_add(a->missing, k, !r || !r->len);
        sim_hist_observe_u32(a->resp, k, r ? r->resp_len : d->base_len);
        sim_hist_observe_u32(a->param, k, r && r->len ? 4u + r->len : 0u);
        svcb_ta_value v;
        if (r && r->len && svcb_ta_value_parse(r->val, r->len, &v) == MTC_OK) {
            size_t pos = 0;
            mtc_taid id;
            while (n < WEB_ANC_IDS && svcb_ta_value_next(&v, &pos, &id))
                if (trusts(wb, adv, s->ca, &id))
                    ids[n++] = id;
        }
    }
    /* an empty intersection (or no record): the empty list */
    *ch_len = (uint32_t)tls_ext_trust_anchors_len(ids, n);
    uint32_t id = server_pick(wb, sh, ids, n, matched);
    if (wb->env.check_invariants) {
        /* the slow way: encode, parse as the server would, select again */
        uint8_t buf[4 + 2 + WEB_ANC_IDS * 256];
        size_t len = 0;
        tls_ta_list l;
        mtc_taid back_ids[WEB_ANC_IDS];
        size_t m = 0, pos = 0;
        int ok = tls_ext_trust_anchors_encode(wb->env.tls.codepoint, ids, n, buf, sizeof buf,
                                              &len) == MTC_OK &&
                 len == *ch_len && tls_ta_list_parse(buf + 4, len - 4, 0, &l) == MTC_OK;
        while (ok && m < WEB_ANC_IDS && tls_ta_list_next(&l, &pos, &back_ids[m]))
            m++;
        int mt = 0;
        if (!ok || m != n || server_pick(wb, sh, back_ids, m, &mt) != id || mt != *matched)
            wb->st.invariant_violations++;
    }
    return id;
}

uint32_t web__anchors_retry_pick(const web *wb, uint32_t site, const web_pubinfo *own,
                                 uint32_t failed, uint32_t *ch_len)
{
    const web_site_hot *s = &wb->siteh[site];
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < s->ncert; i++) {
            uint32_t id = s->cert[i];
            const web_cert *c = &wb->certs[id];
            if ((pass == 0) != (c->kind == WEB_LR) || id == failed)
                continue;
            if (c->kind == WEB_SA || (own && trusts(wb, own, c->ca, &c->ta_id))) {
                *ch_len = (uint32_t)tls_ext_trust_anchors_len(&c->ta_id, 1);
                return id;
            }
        }
    return WEB_NO_CERT;
}

uint32_t web__anchors_ee_bytes(const web *wb, uint32_t site)
{
    const web_site *s = &wb->sites[site];
    return s->ee_len - s->ee_len_noext;
}

void web__anchors_after(web *wb, size_t k, uint32_t ee)
{
    if (wb->anc)
        sim_hist_observe_u32(wb->anc->ee, k, ee);
}
