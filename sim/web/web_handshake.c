/*
 * web_handshake.c - one TLS connection between a client and a site:
 * trust anchor negotiation, certificate selection, relying-party
 * verification (memoized), retry, and the bytes and round trips it costs.
 *
 * The hot path of the simulator (millions of handshakes per second): it
 * only adds precomputed lengths and looks up the verification memo.
 * Lengths come from real encodings made once where they change:
 *   ClientHello trust_anchors  per (update service, publication)
 *   EncryptedExtensions        per site certificate set
 *   Certificate                per certificate (with / without the empty
 *                              trust_anchors entry extension)
 *   CertificateVerify          per site key (a real signature)
 *   Finished                   per run
 *   ServerHello, ClientHello   per cohort (key share; web_flight.c)
 *   baselines                  per site (chains built once per distinct
 *                              algorithms and name length, web_flight.c)
 * and round trips from per-cohort thresholds over those lengths.
 *
 * Verification memo. mtc_rp_verify is deterministic: the same certificate
 * bytes against the same relying-party state give the same answer, so it
 * runs once per distinct (certificate, state) and the answer is reused.
 * The state is the client's view of the certificate's CA (sim_ca_view),
 * identified by its version. One refinement, exact by the draft's
 * verification procedure: the view enters the procedure only through (a)
 * the revoked ranges, (b) the trusted subtree equal to the certificate's
 * own [start, end), if any, and (c) the cosigners and policy. A trusted
 * subtree containing the entry can only belong to the landmark covering
 * it, which the site learns with SIM_CERT_LANDMARK. So a standalone
 * certificate whose subtree is no landmark subtree (or not yet covered by
 * any landmark) and whose serial the CA never revoked verifies the same
 * against every view of that CA: it is keyed on the certificate alone.
 * Everything else is keyed on (certificate, update service, view
 * version). The certificate in a key is its installation number, unique
 * in the run (a certificate's bytes never change once installed), so two
 * distinct verifications never share an answer; keys are 16 bytes and a
 * lookup never touches the certificate's cold record (it was a cache miss
 * per handshake when keys held the SHA-256). With check_invariants the
 * memo is bypassed and every answer compared (tests).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "mtc/error.h"
#include "sim/certcomp.h"
#include "web_internal.h"

/* ---- publications --------------------------------------------------------- */

const web_pubinfo *web__pubinfo(web *wb, size_t us, uint32_t pub)
{
    if (pub >= wb->npubs[us]) {
        size_t n = wb->npubs[us] ? wb->npubs[us] : 16;
        while (n <= pub)
            n *= 2;
        web_pubinfo *p = realloc(wb->pubs[us], n * sizeof *p);
        if (!p)
            return NULL;
        memset(p + wb->npubs[us], 0, (n - wb->npubs[us]) * sizeof *p);
        wb->pubs[us] = p;
        wb->npubs[us] = n;
    }
    web_pubinfo *pi = &wb->pubs[us][pub];
    if (pi->ready)
        return pi;
    size_t slots = wb->nca * SIM_CA_MAX_LOGS;
    pi->adv_log = calloc(slots, sizeof(uint64_t));
    pi->adv_lm = calloc(slots, sizeof(uint64_t));
    pi->adv_max_active = calloc(slots, sizeof(uint64_t));
    pi->ca_version = calloc(wb->nca, sizeof(uint32_t));
    pi->view = calloc(wb->nca ? wb->nca : 1, sizeof *pi->view);
    mtc_taid *ids = calloc(slots + wb->nca, sizeof *ids);
    if (!pi->adv_log || !pi->adv_lm || !pi->adv_max_active || !pi->ca_version ||
        !pi->view || !ids) {
        free(ids);
        free(pi->adv_log);
        free(pi->adv_lm);
        free(pi->adv_max_active);
        free(pi->ca_version);
        free(pi->view);
        memset(pi, 0, sizeof *pi); /* not ready: the next call retries */
        return NULL;
    }
    size_t nids = 0;
    for (size_t ca = 0; ca < wb->nca; ca++) {
        const sim_ca_view *v = wb->pki->pub_view(wb->pki->ctx, us, pub, ca);
        const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, ca);
        int any = 0;
        if (v) {
            pi->ca_version[ca] = v->version;
            pi->view[ca] = v;
            for (size_t k = 0; k < v->nlogs && k < SIM_CA_MAX_LOGS; k++) {
                size_t slot = ca * SIM_CA_MAX_LOGS + k;
                pi->adv_log[slot] = v->log[k].log_number;
                pi->adv_lm[slot] = v->log[k].last_landmark;
                pi->adv_max_active[slot] = v->log[k].max_active;
                if (v->log[k].last_landmark > 0 &&
                    mtc_taid_landmark_group_id(&ci->ca_id, v->log[k].log_number,
                                               v->log[k].last_landmark,
                                               &ids[nids]) == MTC_OK) {
                    nids++;
                    any = 1;
                }
            }
        }
        /* Landmark groups contain the CA ID; without one, the CA ID. */
        if (!any)
            ids[nids++] = ci->ca_id;
    }
    if (web__groups_on(wb, us))
        nids = web__groups_ids(wb, us, pub, pi, ids);
    size_t len = 0;
    if (tls_ext_trust_anchors_encode(wb->env.tls.codepoint, ids, nids,
                                     wb->wire_scratch, WEB_WIRE_SCRATCH,
                                     &len) != MTC_OK)
        len = 0;
    free(ids);
    pi->ch_ext_len = (uint32_t)len;
    pi->ready = 1;
    return pi;
}

/* ---- site certificate sets ---------------------------------------------------- */

void web__site_set_changed(web *wb, web_site *s)
{
    /* AvailableTrustAnchorList in the server's preference order:
     * landmark-relative first, newest first, then standalone. */
    mtc_taid ids[WEB_SITE_CERTS];
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < s->ncert; i++) {
            const web_cert *c = &wb->certs[s->cert[i]];
            if ((pass == 0) != (c->kind == WEB_LR))
                continue;
            int dup = 0;
            for (size_t k = 0; k < n; k++)
                dup |= mtc_taid_equal(&ids[k], &c->ta_id);
            if (!dup)
                ids[n++] = c->ta_id;
        }
    if (wb->anc)
        web__anchors_site_changed(wb, s, ids, n);
    s->ee_len_noext = (uint32_t)tls_encrypted_extensions_len(0);
    s->ee_len = s->ee_len_noext;
    if (n > 0) {
        uint8_t buf[4 + 2 + WEB_SITE_CERTS * 256];
        size_t len = 0;
        tls_ext_trust_anchors_encode(wb->env.tls.codepoint, ids, n, buf, sizeof buf, &len);
        s->ee_len = (uint32_t)tls_encrypted_extensions_len(len);
    }
    /* Per certificate: what the server sends, with and without
     * trust_anchors in the ClientHello (matched iff sent: every held path
     * has an ID). Its flight is srv_auth + enc_fixed bytes after the
     * ServerHello (web_flight.c prices it per cohort). */
    for (size_t i = 0; i < s->ncert; i++) {
        web_cert *c = &wb->certs[s->cert[i]];
        for (int ta = 0; ta <= 1; ta++) {
            uint32_t ee_ext = ta ? s->ee_len - s->ee_len_noext : 0;
            c->srv_auth[ta] = ee_ext + c->msg_len[ta] + s->cv_len;
        }
        web__cert_sync(wb, s->cert[i]);
    }
    web_site_hot *h = &wb->siteh[s->id];
    memcpy(h->cert, s->cert, sizeof h->cert);
    h->ncert = (uint8_t)s->ncert;
    web__site_slots_sync(wb, s->id);
    web__site_baselines_sync(wb, s);
}

_Static_assert(sizeof(web_cert_hot) == 128, "web_cert_hot: two cache lines");
_Static_assert(sizeof(web_memo_entry) == 16, "web_memo_entry: four per cache line");
_Static_assert(MTC_RP_REASON_COUNT <= UINT8_MAX, "reasons fit a byte");
_Static_assert(sizeof(web_site_hot) == 32, "web_site_hot: half a cache line");

void web__cert_sync(web *wb, uint32_t id)
{
    const web_cert *c = &wb->certs[id];
    web_cert_hot *h = &wb->certh[id];
    h->kind = c->kind;
    h->lm_zero = c->lm_match == 0;
    /* a client's hashing: the inclusion proof (one node per level of the
     * subtree) and the entry (its certificate-sized TBS, two SHA-256
     * blocks per node-hash equivalent) */
    unsigned depth = 0;
    while (depth < 64 && (UINT64_C(1) << depth) < c->end - c->start)
        depth++;
    unsigned nodes = depth + (c->der_len + 9 + 127) / 128;
    h->hash_nodes = (uint16_t)(nodes < UINT16_MAX ? nodes : UINT16_MAX);
    h->group = (uint16_t)c->group;
    h->ca = (uint16_t)c->ca;
    memcpy(h->srv_auth, c->srv_auth, sizeof h->srv_auth);
    h->obj = c->obj;
    h->landmark = c->landmark;
    h->log_number = c->log_number;
    h->serial = c->serial;
    h->not_before = c->not_before;
    h->not_after = c->not_after;
    /* its slot, when its site holds it (the other slots are unchanged) */
    web_cert_hot *slot = web__cert_hot(wb, c->site, id);
    if (slot != h)
        *slot = *h;
}

/* ---- selection ------------------------------------------------------------------- */

/* The advertised last landmark of (ca, log) in pi, with its group width;
 * 0 when the client advertises none for that log. */
static uint64_t advertised(const web *wb, const web_pubinfo *pi, uint32_t ca,
                           uint64_t log, uint64_t *max_active)
{
    const uint64_t *lg = &pi->adv_log[(size_t)ca * SIM_CA_MAX_LOGS];
    for (size_t k = 0; k < SIM_CA_MAX_LOGS; k++)
        if (lg[k] == log) {
            *max_active = pi->adv_max_active[(size_t)ca * SIM_CA_MAX_LOGS + k];
            return pi->adv_lm[(size_t)ca * SIM_CA_MAX_LOGS + k];
        }
    (void)wb;
    return 0;
}

static int lr_matches(const web *wb, const web_pubinfo *pi, const web_cert_hot *c)
{
    uint64_t ma = 0;
    uint64_t g = advertised(wb, pi, c->ca, c->log_number, &ma);
    return g > 0 && mtc_landmark_group_contains(g, ma, c->landmark);
}

/* Draft "Use in TLS": a landmark-relative certificate whose landmark is in
 * an advertised group, else a standalone one (its CA ID is in every group
 * and listed on its own otherwise); newest first. *matched: the path
 * matched the client's trust_anchors. pi NULL: no extension (fallback). */
static uint32_t select_cert(const web *wb, const web_site_hot *s,
                            const web_pubinfo *pi, int *matched)
{
    uint32_t sa = WEB_NO_CERT;
    const web_cert_hot *slot = &wb->sloth[(size_t)(s - wb->siteh) * WEB_SITE_CERTS];
    for (size_t i = 0; i < s->ncert; i++) {
        const web_cert_hot *c = &slot[i];
        if (c->kind == WEB_LR) {
            if (pi && lr_matches(wb, pi, c)) {
                *matched = 1;
                return s->cert[i];
            }
        } else if (sa == WEB_NO_CERT) {
            sa = s->cert[i];
        }
    }
    *matched = pi != NULL && sa != WEB_NO_CERT;
    return sa;
}

/* ---- verification memo ------------------------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return x;
}

static inline size_t memo_slot(uint64_t obj, uint32_t mode, uint32_t us,
                               uint32_t version, size_t cap)
{
    return (size_t)mix64(obj ^ ((uint64_t)mode << 56) ^ ((uint64_t)us << 32) ^ version) &
           (cap - 1);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Rebuilds the memo when it is half full: entries of certificates no
 * longer installed are dropped (their installation numbers never come
 * back, so no lookup could find them: results are unchanged), and the new
 * table is sized for the survivors at a load of at most 1/4. Why: entries
 * accumulate per (certificate, view version); without this a 30-day run of
 * 10^6 clients held over a gigabyte of answers about expired certificates.
 * Without memory for the list of installed certificates it only doubles. */
static int memo_grow(web *wb)
{
    uint64_t *live = wb->ncerts ? malloc(wb->ncerts * sizeof *live) : NULL;
    size_t nlive = 0;
    if (live) {
        for (size_t i = 0; i < wb->ncerts; i++)
            if (wb->certs[i].live)
                live[nlive++] = wb->certs[i].obj;
        qsort(live, nlive, sizeof *live, cmp_u64);
    }
    size_t keep = 0;
    for (size_t i = 0; i < wb->memo_cap; i++) {
        uint64_t obj = wb->memo[i].obj;
        keep += obj && (!live || bsearch(&obj, live, nlive, sizeof *live, cmp_u64));
    }
    size_t cap = 4096;
    while (cap < 4 * keep)
        cap *= 2;
    web_memo_entry *n = web__big_calloc(cap, sizeof *n);
    if (!n) {
        free(live);
        return MTC_ERR_NOMEM;
    }
    for (size_t i = 0; i < wb->memo_cap; i++) {
        web_memo_entry *e = &wb->memo[i];
        if (!e->obj || (live && !bsearch(&e->obj, live, nlive, sizeof *live, cmp_u64)))
            continue;
        size_t j = memo_slot(e->obj, e->mode, e->us, e->version, cap);
        while (n[j].obj)
            j = (j + 1) & (cap - 1);
        n[j] = *e;
    }
    free(live);
    free(wb->memo);
    wb->memo = n;
    wb->memo_cap = cap;
    wb->memo_used = keep;
    return MTC_OK;
}

static int verify_direct(web *wb, const sim_ca_view *v, const web_cert *c)
{
    sim_prof *pf = sim_engine_prof(wb->env.engine);
    int prev = sim_prof_enter(pf, SIM_PART_VERIFY);
    mtc_rp_result res;
    mtc_rp_verify(v->rp, c->der, c->der_len, -1, &res);
    sim_prof_leave(pf, prev);
    return (int)res.reason;
}

/* The relying-party answer for certificate id under the client's view v
 * of its CA (service us). Time validity is checked by the caller. */
static int verify_memo(web *wb, uint32_t id, web_cert_hot *hc, size_t us,
                       const sim_ca_view *v)
{
    uint16_t mode;
    uint32_t version, cus;
    sim_time since;
    if (hc->kind == WEB_SA && hc->lm_zero &&
        !wb->pki->is_revoked(wb->pki->ctx, hc->ca, hc->serial, &since)) {
        mode = 1;
        version = 0;
        cus = 0;
    } else {
        mode = 2;
        version = v->version;
        cus = (uint32_t)us;
    }
    /* the front entries: keys this certificate was looked up with */
    web_memo_front *fe = &hc->front[(version ^ cus ^ mode) % WEB_MEMO_FRONT];
    if (fe->mode == mode && fe->version == version && fe->us == cus) {
        wb->st.verify_memo_hits++;
        if (wb->env.check_invariants &&
            verify_direct(wb, v, &wb->certs[id]) != (int)fe->reason)
            wb->st.invariant_violations++;
        return fe->reason;
    }
    int reason;
    if (wb->memo_used * 2 >= wb->memo_cap && memo_grow(wb) != MTC_OK) {
        wb->st.verify_runs++;
        return verify_direct(wb, v, &wb->certs[id]);
    }
    size_t j = memo_slot(hc->obj, mode, cus, version, wb->memo_cap);
    for (;;) {
        web_memo_entry *e = &wb->memo[j];
        if (!e->obj)
            break;
        if (e->obj == hc->obj && e->mode == mode && e->version == version && e->us == cus) {
            wb->st.verify_memo_hits++;
            if (wb->env.check_invariants &&
                verify_direct(wb, v, &wb->certs[id]) != (int)e->reason)
                wb->st.invariant_violations++;
            reason = e->reason;
            goto front;
        }
        j = (j + 1) & (wb->memo_cap - 1);
    }
    reason = verify_direct(wb, v, &wb->certs[id]);
    wb->st.verify_runs++;
    web_memo_entry *e = &wb->memo[j];
    e->obj = hc->obj;
    e->mode = (uint8_t)mode;
    e->version = version;
    e->us = (uint16_t)cus;
    e->reason = (uint8_t)reason;
    wb->memo_used++;
front:
    /* reasons fit a byte (MTC_RP_REASON_COUNT) */
    if (reason >= 0 && reason <= UINT8_MAX) {
        fe->mode = (uint8_t)mode;
        fe->version = version;
        fe->us = (uint16_t)cus;
        fe->reason = (uint8_t)reason;
    }
    return reason;
}

/* ---- one handshake ------------------------------------------------------------------ */

typedef struct hs_result {
    uint32_t auth;          /* bytes: CH ext + EE ext + Certificate + CV */
    uint32_t rtt_tcp, rtt_quic;
    int sigless;            /* accepted a landmark-relative certificate */
    int retried;
    int ok;
    uint32_t cert;          /* the certificate finally accepted (or tried) */
    const web_cert_hot *hot; /* its hot record (its slot when the site holds it) */
    uint32_t stp_copy, stp_bytes; /* a staple beside it (web_staple.c) */
    web_ldp_fetch ldp;      /* a proof set fetched on demand (web_ldp.c) */
    uint32_t ch_ta;         /* first ClientHello's trust_anchors bytes */
    uint32_t ee_ta;         /* EncryptedExtensions trust_anchors bytes
                               received, all attempts (counted with wb->anc) */
    /* per attempt, for the latency (web_path.c): trust_anchors bytes in
     * the ClientHello, bytes after the ServerHello */
    unsigned n;
    uint32_t ch_ext[2], enc[2];
} hs_result;

static int check_time(const web *wb, const web_cert_hot *c, sim_time now, int reason)
{
    if (reason != MTC_RP_OK)
        return reason;
    int64_t u = web__unix(wb, now);
    if (u < c->not_before)
        return MTC_RP_NOT_YET_VALID;
    if (u > c->not_after)
        return MTC_RP_EXPIRED;
    return MTC_RP_OK;
}

/* Server auth bytes of certificate id when its Certificate message goes
 * compressed with alg (RFC 8879): the message is encoded and compressed
 * on first use, once per certificate and variant. Counts the message's
 * bytes before and after in cert_message_bytes*. */
static uint32_t comp_srv_auth(web *wb, uint32_t id, int alg, int ta)
{
    web_cert *c = &wb->certs[id];
    uint32_t *w = &c->comp_wire[alg - CERTCOMP_BROTLI][ta];
    if (!*w) {
        size_t cap = (size_t)c->msg_len[ta], len = 0;
        uint8_t *buf = malloc(cap);
        tls_cert_entry e = {c->der, c->der_len};
        size_t wl = 0;
        if (buf && tls_certificate_encode(wb->env.tls.codepoint, &e, 1, ta, buf, cap, &len) ==
                       MTC_OK)
            wl = certcomp_wire_len(alg, buf, len);
        free(buf);
        if (!wl) /* out of memory: sent uncompressed (and tried again) */
            return c->srv_auth[ta];
        *w = (uint32_t)wl;
    }
    size_t cell = 2 * (c->kind == WEB_LR ? COMP_LR : COMP_SA) + (size_t)(alg - CERTCOMP_BROTLI);
    sim_counter_add(wb->m.comp_in, cell, c->msg_len[ta]);
    sim_counter_add(wb->m.comp_out, cell, *w);
    return c->srv_auth[ta] - c->msg_len[ta] + *w;
}

/* One attempt: bytes, flight and verification of certificate id. */
static int attempt(web *wb, const sim_ca_view *const *views, const web_cohort *co,
                   uint32_t id, web_cert_hot *c, int matched, uint32_t ch_len,
                   int ta_sent, uint32_t name_len, uint32_t ee_ext, sim_time now,
                   hs_result *r)
{
    /* trust_anchors sent <=> the path matched (every held path has an ID). */
    int ta = ta_sent && matched;
    /* what-if: a staple beside a standalone certificate (0: none) */
    r->stp_copy = 0;
    r->stp_bytes = wb->stp && c->kind == WEB_SA
                       ? web__staple_offer(wb, co, c->ca, &r->stp_copy) : 0;
    /* certificate compression when the site's group and the client's
     * cohort share an algorithm */
    uint32_t sa = c->srv_auth[ta];
    if (wb->any_comp) {
        int alg = web__comp_alg(wb, c->group, (size_t)(co - wb->cohorts));
        if (alg) {
            sa = comp_srv_auth(wb, id, alg, ta);
            if (wb->env.check_invariants) {
                /* the slow way: encode, compress, frame */
                const web_cert *cc = &wb->certs[id];
                tls_cert_entry e = {cc->der, cc->der_len};
                uint8_t *buf = malloc(cc->msg_len[ta]);
                size_t len = 0, w = 0;
                if (buf && tls_certificate_encode(wb->env.tls.codepoint, &e, 1, ta, buf,
                                                  cc->msg_len[ta], &len) == MTC_OK)
                    w = certcomp_wire_len(alg, buf, len);
                free(buf);
                if (w && sa != c->srv_auth[ta] - cc->msg_len[ta] + w)
                    wb->st.invariant_violations++;
            }
        }
    }
    /* A list that matched nothing still gets the server's list
     * (draft-ietf-tls-trust-anchor-ids-04 "Retry Mechanism"): only
     * clients of the dns and retry modes send one (web_anchors.c); a
     * full list always matches a site's standalone certificate. */
    if (ta_sent && !matched && co->cfg.trust_anchors != WEB_TA_FULL)
        sa += ee_ext;
    if (ta_sent)
        r->ee_ta += ee_ext;
    r->auth += ch_len + sa + r->stp_bytes;
    /* the server's flight after its ServerHello */
    uint32_t enc = sa + wb->enc_fixed + r->stp_bytes;
    uint32_t tcp, quic;
    web__flight_rtt(wb, &co->fl, name_len, ch_len, enc, &tcp, &quic);
    if (r->n < 2) {
        r->ch_ext[r->n] = ch_len;
        r->enc[r->n] = enc;
        r->n++;
    }
    r->rtt_tcp += tcp;
    r->rtt_quic += quic;
    const sim_ca_view *v = views ? views[c->ca] : NULL;
    int reason = v ? verify_memo(wb, id, c, co->us, v) : MTC_RP_UNKNOWN_ISSUER;
    reason = check_time(wb, c, now, reason);
    if (wb->m.verify)
        sim_counter_add(wb->m.verify, (size_t)reason, 1);
    r->cert = id;
    r->hot = c;
    return reason;
}

/* ---- the slow way (check_invariants) ----------------------------------------------- */

/* Declared in web_internal.h (web_groups.c uses it too). */
int web__taid_suffix_arc(const mtc_taid *id, const mtc_taid *prefix, uint64_t *arc)
{
    if (id->len <= prefix->len || memcmp(id->b, prefix->b, prefix->len) != 0)
        return 0;
    uint64_t v = 0;
    for (size_t i = prefix->len; i < id->len; i++) {
        if (v >> 57)
            return 0;
        v = v << 7 | (id->b[i] & 0x7f);
        if (!(id->b[i] & 0x80))
            return i + 1 == id->len ? (*arc = v, 1) : 0;
    }
    return 0;
}

/* Re-does the negotiation from real bytes: encodes the ClientHello
 * extension from the views, parses it as the server would, selects from
 * the parsed IDs, encodes EncryptedExtensions and Certificate, and checks
 * every length and the selection against the fast path. */
static void slow_check(web *wb, const web_cohort *co, uint32_t apub,
                       const web_site *s, uint32_t fast_id, int fast_matched,
                       const web_pubinfo *adv)
{
    size_t nids = 0;
    mtc_taid *ids = calloc(wb->nca * (SIM_CA_MAX_LOGS + 1), sizeof *ids);
    /* its own buffer: the parsed list points into it, and it then takes
     * the Certificate message (a standalone certificate with many
     * cosignatures can pass 64 KiB) */
    enum { CHECK_BUF = 70000 };
    uint8_t *buf = malloc(CHECK_BUF);
    if (!ids || !buf) {
        free(ids);
        free(buf);
        return;
    }
    for (size_t ca = 0; ca < wb->nca; ca++) {
        const sim_ca_view *v = wb->pki->pub_view(wb->pki->ctx, co->us, apub, ca);
        const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, ca);
        size_t before = nids;
        for (size_t k = 0; v && k < v->nlogs; k++)
            if (v->log[k].last_landmark > 0)
                mtc_taid_landmark_group_id(&ci->ca_id, v->log[k].log_number,
                                           v->log[k].last_landmark, &ids[nids++]);
        if (nids == before)
            ids[nids++] = ci->ca_id;
    }
    size_t len = 0;
    int bad = tls_ext_trust_anchors_encode(wb->env.tls.codepoint, ids, nids, buf,
                                           CHECK_BUF, &len) != MTC_OK ||
              len < 4 || len != adv->ch_ext_len;
    tls_ta_list l;
    bad = bad || tls_ta_list_parse(buf + 4, len - 4, 0, &l) != MTC_OK;
    /* Server: the newest landmark-relative certificate in an advertised
     * group, else the newest standalone one whose CA ID is listed or
     * contained in a listed group. */
    uint32_t pick = WEB_NO_CERT;
    int matched = 0;
    for (int pass = 0; pass < 2 && pick == WEB_NO_CERT && !bad; pass++)
        for (size_t i = 0; i < s->ncert && pick == WEB_NO_CERT; i++) {
            const web_cert *c = &wb->certs[s->cert[i]];
            if ((pass == 0) != (c->kind == WEB_LR))
                continue;
            const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, c->ca);
            const sim_ca_view *v = wb->pki->pub_view(wb->pki->ctx, co->us, apub, c->ca);
            size_t pos = 0;
            mtc_taid id;
            while (tls_ta_list_next(&l, &pos, &id)) {
                if (c->kind == WEB_SA && mtc_taid_equal(&id, &ci->ca_id)) {
                    pick = c->id;
                    break;
                }
                for (size_t k = 0; v && k < v->nlogs; k++) {
                    mtc_taid prefix;
                    uint64_t arcs[2] = {2, v->log[k].log_number}, g;
                    mtc_taid_append(&ci->ca_id, arcs, 2, &prefix);
                    if (!web__taid_suffix_arc(&id, &prefix, &g))
                        continue;
                    if (c->kind == WEB_SA ||
                        (c->log_number == v->log[k].log_number &&
                         mtc_landmark_group_contains(g, v->log[k].max_active, c->landmark)))
                        pick = c->id;
                }
                if (pick != WEB_NO_CERT)
                    break;
            }
            matched = pick != WEB_NO_CERT;
        }
    bad |= pick != fast_id || matched != fast_matched;
    if (fast_id != WEB_NO_CERT) {
        const web_cert *c = &wb->certs[fast_id];
        tls_cert_entry e = {c->der, c->der_len};
        bad |= tls_certificate_encode(wb->env.tls.codepoint, &e, 1, fast_matched, buf,
                                      CHECK_BUF, &len) != MTC_OK ||
               len != c->msg_len[fast_matched];
        /* certificate compression: the message compresses and comes back
         * whole, and the wire length the handshake uses is its
         * CompressedCertificate's (or the message's when that is not
         * smaller) */
        int alg = web__comp_alg(wb, s->group, (size_t)(co - wb->cohorts));
        if (!bad && alg) {
            size_t cap = certcomp_bound(alg, len), cl = 0;
            uint8_t *z = malloc(cap), *back = malloc(len);
            if (z && back) {
                bad |= certcomp_compress(alg, buf + 4, len - 4, z, cap, &cl) != MTC_OK ||
                       certcomp_decompress(alg, z, cl, len - 4, back, len) != MTC_OK ||
                       memcmp(back, buf + 4, len - 4) != 0;
                size_t wire = certcomp_message_len(cl) < len ? certcomp_message_len(cl) : len;
                uint32_t used = c->comp_wire[alg - CERTCOMP_BROTLI][fast_matched];
                bad |= used != 0 && used != wire;
            }
            free(z);
            free(back);
        }
    }
    if (bad)
        wb->st.invariant_violations++;
    free(ids);
    free(buf);
}

static void full_handshake(web *wb, web_client *cl, uint32_t site, sim_time now,
                           gsl_rng *rng, hs_result *r)
{
    const web_cohort *co = &wb->cohorts[cl->cohort];
    const web_site_hot *s = &wb->siteh[site];
    memset(r, 0, sizeof *r);
    r->cert = WEB_NO_CERT;
    const web_pubinfo *adv = NULL;
    uint32_t apub = cl->pub;
    if (co->cfg.mtc_aware) {
        if (co->cfg.missignal_prob > 0 && gsl_rng_uniform(rng) < co->cfg.missignal_prob)
            apub = wb->pki->pub_latest(wb->pki->ctx, co->us);
        adv = web__pubinfo(wb, co->us, apub);
        adv = web__staple_view(wb, cl, co->us, adv, 0);
    }
    int matched = 0;
    /* what the ClientHello lists (web_anchors.c when not every CA's group) */
    int mode = adv ? co->cfg.trust_anchors : WEB_TA_FULL;
    uint32_t id, mode_ch = 0;
    if (mode != WEB_TA_FULL) {
        id = web__anchors_select(wb, cl->cohort, site, adv, now, rng, &matched, &mode_ch);
    } else {
        id = select_cert(wb, s, adv, &matched);
        if (wb->env.check_invariants && adv && !web__staple_is_scratch(wb, adv)) {
            if (web__groups_on(wb, co->us))
                web__groups_slow_check(wb, co->us, apub, &wb->sites[site], id, matched, adv);
            else
                slow_check(wb, co, apub, &wb->sites[site], id, matched, adv);
        }
    }
    /* a client signalling that it fetches landmarks on demand gets the
     * site's landmark-relative certificate when its CA has distribution
     * points (web_ldp.c) */
    if (adv && wb->ldp && co->cfg.ldp != WEB_LDP_OFF && id != WEB_NO_CERT &&
        wb->certh[id].kind != WEB_LR) {
        uint32_t lr = web__ldp_offer(wb, s);
        if (lr != WEB_NO_CERT) {
            id = lr;
            matched = 0;
        }
    }
    if (id == WEB_NO_CERT)
        return;
    /* read before web__pubinfo below, which may move the table */
    r->ch_ta = adv ? (mode != WEB_TA_FULL ? mode_ch : adv->ch_ext_len) : 0;
    uint32_t ee = wb->anc ? web__anchors_ee_bytes(wb, site) : 0;
    uint32_t ch_len = r->ch_ta + web__staple_signal(wb, co) + web__ldp_signal(wb, co);
    int ta_sent = adv != NULL;
    web_cert_hot *c = web__cert_hot(wb, site, id);
    /* the publication the client holds: its views verify */
    const web_pubinfo *own = adv && apub == cl->pub
                                 ? adv
                                 : web__staple_view(wb, cl, co->us,
                                                    web__pubinfo(wb, co->us, cl->pub), 1);
    const sim_ca_view *const *views = own ? own->view : NULL;
    /* Did the client really hold that landmark? */
    if (c->kind == WEB_LR && own && !lr_matches(wb, own, c))
        wb->st.lr_unadvertised++;
    int reason = attempt(wb, views, co, id, c, matched, ch_len, ta_sent, s->name_len, ee, now,
                         r);
    /* lacking the landmark: a proof set it holds or fetches now, then
     * verify again against the state it gives */
    if (reason == MTC_RP_COSIGNERS && c->kind == WEB_LR && co->cfg.ldp == WEB_LDP_FETCH &&
        views) {
        const sim_ca_view *lv = web__ldp_resolve(wb, cl, co, id, views[c->ca], now, &r->ldp);
        if (lv)
            reason = check_time(wb, c, now, verify_memo(wb, id, c, co->us, lv));
    }
    /* draft-ietf-tls-trust-anchor-ids 5.6 recovers from signalling
     * failures: the server chose from what the client said it trusts,
     * and the client finds it does not hold that landmark (verification
     * then falls back to signatures, which a landmark-relative
     * certificate lacks: MTC_RP_COSIGNERS). It makes a new connection
     * asking only for a trust anchor from the server's
     * EncryptedExtensions that it trusts, the CA ID, if listed (the site
     * holds a standalone certificate of that CA). Any other failure is
     * the certificate's or the log's (revoked, expired, not yet valid,
     * subtree hash, unknown CA): the standalone sibling shares its serial
     * and validity, so the error goes to the application. The dns and
     * retry modes take the first path of the server's list the client
     * trusts (an older landmark it holds, else the CA ID: web_anchors.c). */
    if (reason == MTC_RP_COSIGNERS && c->kind == WEB_LR && ta_sent) {
        uint32_t sa = WEB_NO_CERT, ch1 = 0;
        if (mode != WEB_TA_FULL) {
            sa = web__anchors_retry_pick(wb, site, own, id, &ch1);
        } else {
            for (size_t i = 0; i < s->ncert; i++)
                if (wb->certh[s->cert[i]].kind == WEB_SA &&
                    wb->certh[s->cert[i]].ca == c->ca) {
                    sa = s->cert[i];
                    break;
                }
            if (sa != WEB_NO_CERT) {
                const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, c->ca);
                ch1 = (uint32_t)tls_ext_trust_anchors_len(&ci->ca_id, 1) +
                      web__staple_signal(wb, co) + web__ldp_signal(wb, co);
            }
        }
        if (sa != WEB_NO_CERT) {
            r->retried = 1;
            /* New connection: TCP handshake + TLS flight; QUIC: one. */
            r->rtt_tcp += 2;
            r->rtt_quic += 1;
            reason = attempt(wb, views, co, sa, web__cert_hot(wb, site, sa), 1, ch1, 1,
                             s->name_len, ee, now, r);
        }
    }
    r->ok = reason == MTC_RP_OK;
    r->sigless = r->ok && r->hot->kind == WEB_LR;
}

void web__connect(web *wb, web_client *cl, uint32_t site, uint32_t rank,
                  sim_time now, gsl_rng *rng)
{
    const web_cohort *co = &wb->cohorts[cl->cohort];
    size_t k = cl->cohort;
    uint32_t now_s = (uint32_t)(now / SIM_SEC);
    /* the path line (web__path_full): loaded during the handshake's own
     * misses (site, certificate), not after them */
    if (co->has_path)
        __builtin_prefetch(web__path(cl));
    /* the site's record and its newest certificate's (both lines), at
     * once: neither address depends on the other (web.sloth) */
    __builtin_prefetch(&wb->siteh[site]);
    __builtin_prefetch(&wb->sloth[(size_t)site * WEB_SITE_CERTS]);
    __builtin_prefetch(&wb->sloth[(size_t)site * WEB_SITE_CERTS].front);
    if (co->cfg.ticket_lifetime > 0) {
        for (size_t i = 0; i < WEB_TICKETS; i++)
            if (cl->ticket_rank[i] == rank + 1 && cl->ticket_exp[i] > now_s) {
                wb->st.resumed++;
                sim_counter_add(wb->m.resumed, k, 1);
                if (co->has_path)
                    web__path_resumed(wb, cl, co, site);
                return;
            }
    }
    if (wb->siteh[site].ncert == 0) {
        wb->st.no_cert++;
        sim_counter_add(wb->m.no_cert, k, 1);
        return;
    }
    if (co->has_path) /* read by web__path_full, after the handshake */
        web__path_prefetch_site(wb, site);
    hs_result r;
    full_handshake(wb, cl, site, now, rng, &r);
    if (r.cert == WEB_NO_CERT) {
        wb->st.no_cert++;
        sim_counter_add(wb->m.no_cert, k, 1);
        return;
    }
    const web_cert_hot *c = r.hot;
    wb->st.full++;
    sim_prof_work(sim_engine_prof(wb->env.engine), SIM_WORK_HANDSHAKES, 1);
    wb->st.auth_bytes_sum += r.auth;
    sim_counter_add(wb->m.full, k, 1);
    sim_counter_add(wb->m.full_ca, c->ca, 1);
    web__observe_landmark_age(wb, cl, c->ca, now);
    if (wb->stp)
        web__staple_after(wb, cl, co->us, c->ca, r.ok ? r.stp_copy : 0, r.stp_bytes,
                          r.sigless);
    if (r.sigless) {
        wb->st.signatureless++;
        sim_counter_add(wb->m.sigless, k, 1);
        sim_counter_add(wb->m.sigless_ca, c->ca, 1);
    }
    if (wb->ldp)
        web__ldp_after(wb, k, &r.ldp, r.sigless, r.retried);
    if (wb->anc)
        web__anchors_after(wb, k, r.ee_ta);
    if (r.retried) {
        wb->st.retries++;
        sim_counter_add(wb->m.retry, k, 1);
    }
    web__hs_observe(wb, k, r.auth, r.ch_ta, r.rtt_tcp, r.rtt_quic);
    /* the first attempt's flight against the first-round budgets */
    web__budget_count(wb, k, 0, wb->siteh[site].name_len, r.ch_ext[0], r.enc[0], 1);
    /* The same handshake with the baseline chains around the site's own
     * key (a client without trust_anchors; no retry). */
    const web_site_hot *sh = &wb->siteh[site];
    sim_counter_add(wb->m.full_key, sh->key, 1);
    /* Its bytes and round trips depend on the site and the cohort alone:
     * counted here, recorded n at a time (base_record) */
    if (sim_metrics_recording(wb->env.metrics)) {
        wb->base_pend[(size_t)site * wb->ncohorts + k]++;
        if (wb->env.check_invariants)
            for (int i = 0; i < 3; i++)
                wb->st.base_auth_sum[i] += web__base_auth(wb, site, k, i);
    }
    if (co->has_path)
        web__path_full(wb, cl, co, site, rank, r.hot, now, r.n, r.ch_ext, r.enc, &r.ldp);
    /* the certificate the connection ended with (a retry's standalone
     * sibling shares the serial) */
    sim_time since;
    if (wb->pki->is_revoked(wb->pki->ctx, c->ca, c->serial, &since)) {
        web__revreach_handshake(wb, k, r.ok);
        if (r.ok)
            sim_counter_add(wb->m.revoked_acc, c->ca, 1);
    }
    if (!r.ok) {
        wb->st.failures++;
        return;
    }
    if (co->cfg.ticket_lifetime > 0) {
        size_t i = cl->ticket_next++ % WEB_TICKETS;
        cl->ticket_rank[i] = rank + 1;
        cl->ticket_exp[i] = now_s + (uint32_t)(co->cfg.ticket_lifetime / SIM_SEC);
    }
}

int web__handshake_init(web *wb, char *err, size_t errlen)
{
    /* TLS_AES_128_GCM_SHA256: a 32-byte Finished */
    wb->fin_len = (uint32_t)tls_finished_len(32);
    wb->enc_fixed = (uint32_t)tls_encrypted_extensions_len(0) + wb->fin_len;
    wb->pubs = calloc(wb->nus ? wb->nus : 1, sizeof *wb->pubs);
    wb->npubs = calloc(wb->nus ? wb->nus : 1, sizeof *wb->npubs);
    if (!wb->pubs || !wb->npubs || memo_grow(wb) != MTC_OK)
        return MTC_ERR_NOMEM;
    int rc = web__metrics_create(wb);
    if (rc != MTC_OK)
        snprintf(err, errlen, "web metrics: %s", sim_strerror(rc));
    return rc;
}

void web__handshake_destroy(web *wb)
{
    if (wb->pubs)
        for (size_t us = 0; us < wb->nus; us++) {
            for (size_t p = 0; p < wb->npubs[us]; p++) {
                free(wb->pubs[us][p].adv_log);
                free(wb->pubs[us][p].adv_lm);
                free(wb->pubs[us][p].adv_max_active);
                free(wb->pubs[us][p].ca_version);
                free(wb->pubs[us][p].view);
            }
            free(wb->pubs[us]);
        }
    free(wb->pubs);
    free(wb->npubs);
    free(wb->memo);
    web__baselines_destroy(wb);
}
