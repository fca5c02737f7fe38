/*
 * web_hs_metrics.c - the handshake metrics of the web side: their
 * registration (names, units, cohort labels) and the baselines' deferred
 * observations (a full handshake counts one per site and cohort; the
 * counts are recorded n at a time on a flush, which is exact because a
 * histogram keeps no order), and every full handshake's own byte and
 * round-trip observations, held and recorded a histogram at a time.
 */
#include <stdlib.h>

#include "mtc/error.h"
#include "sim/certcomp.h"
#include "sim/status.h"
#include "web_internal.h"

/* Labels of cert_message_bytes*: certificate kind x algorithm, in the
 * order of web_comp_kind. */
static const char *const comp_labels[2 * COMP_KINDS] = {
    "standalone/brotli", "standalone/zstd", "landmark_relative/brotli",
    "landmark_relative/zstd", "classical_chain/brotli", "classical_chain/zstd",
    "mldsa44_chain/brotli", "mldsa44_chain/zstd", "today_chain/brotli", "today_chain/zstd"};

/* ---- deferred baseline observations ------------------------------------------------ */

/* n full handshakes of cohort k with the site: the same handshakes with
 * the baseline chains around the site's own key (a client without
 * trust_anchors; no retry), recorded as n observations each. */
static void base_record(web *wb, uint32_t site, size_t k, uint64_t n)
{
    const web_site_hot *sh = &wb->siteh[site];
    const web_cohort *co = &wb->cohorts[k];
    uint32_t ba[3];
    for (int i = 0; i < 3; i++)
        ba[i] = web__base_auth(wb, site, k, i);
    sim_hist_observe_n(wb->m.auth_cl, k, ba[WEB_BASE_CLASSICAL], n);
    sim_hist_observe_n(wb->m.auth_pq, k, ba[WEB_BASE_MLDSA44], n);
    sim_hist_observe_n(wb->m.auth_today, k, ba[WEB_BASE_TODAY], n);
    for (int i = 0; i < 3; i++)
        web__budget_count(wb, k, 1 + i, sh->name_len, 0, ba[i] + wb->enc_fixed, n);
    int alg = web__comp_alg(wb, wb->sites[site].group, k);
    if (alg) {
        /* how the chains compress, per handshake that sent them */
        const web_site *s = &wb->sites[site];
        static const int kinds[3] = {COMP_CLASSICAL, COMP_MLDSA44, COMP_TODAY};
        uint32_t raw[3] = {s->base_msg[0], s->base_msg[1], s->base_today - s->today_cv};
        for (int i = 0; i < 3; i++) {
            size_t cell = 2 * (size_t)kinds[i] + (size_t)(alg - CERTCOMP_BROTLI);
            sim_counter_add(wb->m.comp_in, cell, (int64_t)(n * raw[i]));
            sim_counter_add(wb->m.comp_out, cell,
                            (int64_t)(n * s->base_comp[alg - CERTCOMP_BROTLI][i]));
        }
    }
    for (int i = 0; i < 2; i++) {
        uint32_t tcp, quic;
        web__flight_rtt(wb, &co->fl, sh->name_len, 0, ba[i] + wb->enc_fixed, &tcp, &quic);
        sim_hist_observe_n(wb->m.rtt_tcp_base[i], k, tcp, n);
        sim_hist_observe_n(wb->m.rtt_quic_base[i], k, quic, n);
    }
}

void web__base_flush_site(web *wb, uint32_t site)
{
    if (!wb->base_pend)
        return;
    uint64_t *pend = &wb->base_pend[(size_t)site * wb->ncohorts];
    for (size_t k = 0; k < wb->ncohorts; k++)
        if (pend[k]) {
            base_record(wb, site, k, pend[k]);
            pend[k] = 0;
        }
}

web_obsbuf *web__obsbuf_new(sim_metric *const *m, size_t ncols)
{
    web_obsbuf *b = ncols <= WEB_OBSBUF_COLS ? calloc(1, sizeof *b) : NULL;
    if (b) {
        b->ncols = ncols;
        for (size_t j = 0; j < ncols; j++)
            b->metric[j] = m[j];
    }
    return b;
}

void web__obsbuf_flush(web_obsbuf *b)
{
    for (size_t j = 0; j < b->ncols; j++)
        sim_hist_observe_many(b->metric[j], b->k, b->x[j], b->n);
    b->n = 0;
}

/* The handshake buffer's histograms, by column (WEB_HB_*). */
static void hs_metrics(const web *wb, sim_metric *m[WEB_HB_COUNT])
{
    m[WEB_HB_AUTH] = wb->m.auth;
    m[WEB_HB_CH_TA] = wb->m.ch_ta;
    m[WEB_HB_RTT_TCP] = wb->m.rtt_tcp;
    m[WEB_HB_RTT_QUIC] = wb->m.rtt_quic;
}

void web__hs_observe(web *wb, size_t k, uint32_t auth, uint32_t ch_ta,
                     uint32_t rtt_tcp, uint32_t rtt_quic)
{
    web_obsbuf *b = wb->hsbuf;
    uint32_t x[WEB_HB_COUNT] = {auth, ch_ta, rtt_tcp, rtt_quic};
    if (!b) {
        sim_metric *m[WEB_HB_COUNT];
        hs_metrics(wb, m);
        for (int j = 0; j < WEB_HB_COUNT; j++)
            sim_hist_observe_u32(m[j], k, x[j]);
        return;
    }
    if (!sim_metrics_recording(wb->env.metrics))
        return; /* as the observations would not have counted */
    b->k[b->n] = (uint32_t)k;
    /* (double)x is what sim_hist_observe_u32 records for x */
    for (int j = 0; j < WEB_HB_COUNT; j++)
        b->x[j][b->n] = (double)x[j];
    web__obsbuf_commit(b);
}

static void base_flush(void *ctx)
{
    web *wb = ctx;
    web__obsbuf_flush(wb->hsbuf);
    for (size_t s = 0; s < wb->nsites; s++)
        web__base_flush_site(wb, (uint32_t)s);
}

int web__base_defer_create(web *wb)
{
    size_t cells = (wb->nsites ? wb->nsites : 1) * (wb->ncohorts ? wb->ncohorts : 1);
    wb->base_pend = web__big_calloc(cells, sizeof *wb->base_pend);
    sim_metric *m[WEB_HB_COUNT];
    hs_metrics(wb, m);
    wb->hsbuf = web__obsbuf_new(m, WEB_HB_COUNT);
    if (!wb->base_pend || !wb->hsbuf ||
        sim_metrics_add_flush(wb->env.metrics, base_flush, wb) != 0) {
        free(wb->base_pend);
        free(wb->hsbuf);
        wb->base_pend = NULL;
        wb->hsbuf = NULL;
        return MTC_ERR_NOMEM;
    }
    return MTC_OK;
}

void web__base_defer_destroy(web *wb)
{
    if (!wb->base_pend)
        return;
    sim_metrics_remove_flush(wb->env.metrics, base_flush, wb);
    free(wb->base_pend);
    free(wb->hsbuf);
    wb->base_pend = NULL;
    wb->hsbuf = NULL;
}

/* ---- registration ------------------------------------------------------------------ */

int web__label_by_cohort(const web *wb, sim_metric *const *mts, size_t n)
{
    if (!wb->ncohorts)
        return MTC_OK;
    const char **lab = calloc(wb->ncohorts, sizeof *lab);
    if (!lab)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < wb->ncohorts; i++)
        lab[i] = wb->cohorts[i].cfg.name;
    int rc = MTC_OK;
    for (size_t i = 0; i < n && rc == MTC_OK; i++)
        if (mts[i])
            rc = sim_metric_set_cohort_labels(mts[i], lab, wb->ncohorts);
    free(lab);
    return rc;
}

int web__metrics_create(web *wb)
{
    sim_metrics *m = wb->env.metrics;
    size_t nc = wb->ncohorts ? wb->ncohorts : 1, na = wb->nca ? wb->nca : 1;
    web_metrics *x = &wb->m;
    int rc = 0;
    rc |= sim_metrics_counter(m, "handshake_full", "handshakes", nc, SIM_METRIC_SERIES, &x->full);
    rc |= sim_metrics_counter(m, "handshake_signatureless", "handshakes", nc, SIM_METRIC_SERIES, &x->sigless);
    rc |= sim_metrics_counter(m, "handshake_full_by_ca", "handshakes", na, SIM_METRIC_SERIES, &x->full_ca);
    rc |= sim_metrics_counter(m, "handshake_signatureless_by_ca", "handshakes", na, SIM_METRIC_SERIES, &x->sigless_ca);
    rc |= sim_metrics_counter(m, "handshake_resumed", "handshakes", nc, 0, &x->resumed);
    rc |= sim_metrics_counter(m, "handshake_retry", "handshakes", nc, 0, &x->retry);
    rc |= sim_metrics_counter(m, "handshake_no_cert", "handshakes", nc, 0, &x->no_cert);
    rc |= sim_metrics_histogram(m, "auth_bytes", "bytes", nc, 0, 10, 1e6, 100, &x->auth);
    rc |= sim_metrics_histogram(m, "auth_bytes_baseline_classical", "bytes", nc, 0, 10, 1e6, 100, &x->auth_cl);
    rc |= sim_metrics_histogram(m, "auth_bytes_baseline_mldsa44", "bytes", nc, 0, 10, 1e6, 100, &x->auth_pq);
    rc |= sim_metrics_histogram(m, "auth_bytes_today_classical", "bytes", nc, 0, 10, 1e6, 100, &x->auth_today);
    rc |= sim_metrics_histogram(m, "extra_rtt_tcp", "round_trips", nc, 0, 1, 100, 20, &x->rtt_tcp);
    rc |= sim_metrics_histogram(m, "extra_rtt_quic", "round_trips", nc, 0, 1, 100, 20, &x->rtt_quic);
    rc |= sim_metrics_histogram(m, "extra_rtt_tcp_baseline_classical", "round_trips", nc, 0, 1, 100, 20, &x->rtt_tcp_base[0]);
    rc |= sim_metrics_histogram(m, "extra_rtt_tcp_baseline_mldsa44", "round_trips", nc, 0, 1, 100, 20, &x->rtt_tcp_base[1]);
    rc |= sim_metrics_histogram(m, "extra_rtt_quic_baseline_classical", "round_trips", nc, 0, 1, 100, 20, &x->rtt_quic_base[0]);
    rc |= sim_metrics_histogram(m, "extra_rtt_quic_baseline_mldsa44", "round_trips", nc, 0, 1, 100, 20, &x->rtt_quic_base[1]);
    size_t nkeys = 0;
    while (web_key_alg_names[nkeys])
        nkeys++;
    rc |= sim_metrics_counter(m, "handshake_full_by_key", "handshakes", nkeys, 0, &x->full_key);
    rc |= sim_metrics_counter(m, "verify_outcome", "verifications", MTC_RP_REASON_COUNT, 0, &x->verify);
    rc |= sim_metrics_counter(m, "update_bytes", "bytes", nc, SIM_METRIC_SERIES, &x->upd_bytes);
    rc |= sim_metrics_counter(m, "update_fetch", "fetches", nc, SIM_METRIC_SERIES, &x->upd_fetch);
    rc |= sim_metrics_counter(m, "revoked_accepted", "handshakes", na, SIM_METRIC_SERIES, &x->revoked_acc);
    rc |= sim_metrics_counter(m, "acme_polls", "requests", na, SIM_METRIC_REPLICATED, &x->acme_polls);
    rc |= sim_metrics_histogram(m, "revocation_exposure", "s", na, 0, 1, 1e8, 20, &x->rev_exposure);
    rc |= sim_metrics_histogram(m, "clienthello_trust_anchors_bytes", "bytes", nc, 0, 1, 1e5, 100, &x->ch_ta);
    rc |= sim_metrics_counter(m, "cert_message_bytes", "bytes", 2 * COMP_KINDS, 0, &x->comp_in);
    rc |= sim_metrics_counter(m, "cert_message_bytes_compressed", "bytes", 2 * COMP_KINDS, 0, &x->comp_out);
    /* update_bytes by part, when the PKI says (the real encoding's fields) */
    static const char *const parts[WEB_UPD_PARTS] = {
        "update_bytes_framing", "update_bytes_subtree_hashes", "update_bytes_revocations",
        "update_bytes_ref_checkpoints", "update_bytes_cosignatures", "update_bytes_proofs",
        "update_bytes_group_versions"};
    /* the group versions' part exists with a landmark group only */
    int groups = 0;
    for (size_t us = 0; us < wb->nus && wb->pki->us_group; us++)
        groups |= wb->pki->us_group(wb->pki->ctx, us) != NULL;
    for (int i = 0; i < WEB_UPD_PARTS && wb->pki->update_parts; i++)
        if (i < WEB_UPD_PARTS - 1 || groups)
            rc |= sim_metrics_counter(m, parts[i], "bytes", nc, 0, &x->upd_part[i]);
    if (rc)
        return SIM_ERR_METRIC;
    const char *reasons[MTC_RP_REASON_COUNT];
    for (int i = 0; i < MTC_RP_REASON_COUNT; i++)
        reasons[i] = mtc_rp_reason_name((mtc_rp_reason)i);
    sim_metric_set_cohort_labels(x->verify, reasons, MTC_RP_REASON_COUNT);
    sim_metric_set_cohort_labels(x->full_key, web_key_alg_names, nkeys);
    sim_metric_set_cohort_labels(x->comp_in, comp_labels, 2 * COMP_KINDS);
    sim_metric_set_cohort_labels(x->comp_out, comp_labels, 2 * COMP_KINDS);
    if (wb->ncohorts) {
        sim_metric *cm[] = {x->full, x->sigless, x->resumed, x->retry, x->no_cert,
                            x->auth, x->auth_cl, x->auth_pq, x->auth_today,
                            x->rtt_tcp, x->rtt_quic, x->rtt_tcp_base[0],
                            x->rtt_tcp_base[1], x->rtt_quic_base[0],
                            x->rtt_quic_base[1], x->upd_bytes, x->upd_fetch,
                            x->ch_ta};
        int lrc = web__label_by_cohort(wb, cm, sizeof cm / sizeof cm[0]);
        if (lrc == MTC_OK)
            lrc = web__label_by_cohort(wb, x->upd_part, WEB_UPD_PARTS);
        if (lrc != MTC_OK)
            return lrc;
    }
    if (wb->nca) {
        const char **lab = calloc(wb->nca, sizeof *lab);
        if (!lab)
            return MTC_ERR_NOMEM;
        for (size_t i = 0; i < wb->nca; i++)
            lab[i] = wb->pki->ca(wb->pki->ctx, i)->name;
        sim_metric *cm[] = {x->full_ca, x->sigless_ca, x->revoked_acc, x->acme_polls,
                            x->rev_exposure};
        for (size_t i = 0; i < sizeof cm / sizeof cm[0]; i++)
            sim_metric_set_cohort_labels(cm[i], lab, wb->nca);
        free(lab);
    }
    return MTC_OK;
}

