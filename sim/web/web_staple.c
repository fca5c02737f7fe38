/*
 * web_staple.c - learning from full certificates (a what-if, not in the
 * draft; docs/model.md "Learning from full certificates").
 *
 * A cohort with learn_staples = true signals support for landmark staples
 * (an empty ClientHello extension, 4 bytes). When such a client's
 * handshake ends with a standalone certificate of a CA that staples
 * (sim_ca_staple), the server sends the CA's newest staple beside it, as
 * an extension of the certificate entry (4 + staple bytes, in the
 * server's flight: priced in bytes and round trips). A staple over
 * 65,535 bytes does not fit one extension; it is priced all the same
 * (docs/model.md says how a deployment would have to carry it). The client verifies
 * it for real (mtc_staple_decode, mtc_rp_ca_apply_staple on a copy of the
 * relying-party state of the publication it holds: its cosigner keys and
 * policy) and, when it passes and is newer than what it learned before,
 * remembers it. From then on it advertises, and verifies against, the
 * staple's landmarks wherever they are newer than its publication's.
 *
 * A client's learned state is one integer per CA (the staple's sequence
 * number), beside the client table: the client struct stays at two cache
 * lines. Relying-party states are shared like the update service's views:
 * one per (staple, update service, view version), made on first use and
 * identified for the verification memo by a version number of their own.
 * Everything here runs only when some cohort learns from staples, so
 * without one every result is unchanged.
 *
 * Metrics (only then): staple bytes per handshake that carries one, the
 * staples learned, and full and signatureless handshakes by the client's
 * ordinal of full handshakes with the CA's sites (1, 2, ..., 16+), per
 * cohort: the signatureless share against how many of a CA's sites a
 * client has visited.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "mtc/staple.h"
#include "sim/status.h"
#include "web_internal.h"
#include "web_rpmemo.h"

#define STP_VISIT_BUCKETS 16
#define STP_VERSION_BASE 0x80000000u   /* above every update-service version */
#define STP_SIGNAL_BYTES 4             /* the client's empty extension */

typedef struct stp_copy {    /* a staple as the sites sent it: (ca, seq) */
    uint32_t ca, seq;
    uint64_t log_number, last_landmark, max_active;
    uint8_t *bytes;
    size_t len;
} stp_copy;

typedef struct stp_client {
    uint32_t learned;        /* copy index + 1 per CA; 0: none */
    uint32_t nfull;          /* full handshakes with the CA's sites */
} stp_client;

struct web_staple {
    stp_copy *copies;
    size_t ncopies, capcopies;
    web_rpmemo states;       /* RP states (staple, us, base version) */
    stp_client *cl;          /* nclients * nca */
    web_pubinfo scratch[2];
    sim_metric *bytes, *learned, *refused, *full_by, *sigless_by;
};

/* ---- copies and states ---------------------------------------------------------- */

/* The copy of CA ca's current staple, made on first use; -1: none. */
static long copy_of(web *wb, uint32_t ca)
{
    const sim_ca_staple *s = wb->pki->staple ? wb->pki->staple(wb->pki->ctx, ca) : NULL;
    web_staple *t = wb->stp;
    if (!s)
        return -1;
    for (size_t i = t->ncopies; i-- > 0;)
        if (t->copies[i].ca == ca && t->copies[i].seq == s->seq)
            return (long)i;
    if (t->ncopies == t->capcopies) {
        size_t nc = t->capcopies ? 2 * t->capcopies : 16;
        stp_copy *p = realloc(t->copies, nc * sizeof *p);
        if (!p)
            return -1;
        t->copies = p;
        t->capcopies = nc;
    }
    stp_copy *c = &t->copies[t->ncopies];
    *c = (stp_copy){ca, s->seq, s->log_number, s->last_landmark, s->max_active,
                    malloc(s->len), s->len};
    if (!c->bytes)
        return -1;
    memcpy(c->bytes, s->bytes, s->len);
    return (long)t->ncopies++;
}

/* web_rpmemo's apply: the staple verified on the clone of the base
 * state, and its log in the view holding its landmarks. */
static int apply_staple(void *ctx, web_rpstate *s)
{
    const stp_copy *c = &((web_staple *)ctx)->copies[s->copy];
    mtc_staple *dec = NULL;
    mtc_update_result res;
    int ok = mtc_staple_decode(c->bytes, c->len, &dec) == MTC_OK &&
             mtc_rp_ca_apply_staple(s->rp, dec, &res) == MTC_OK;
    mtc_staple_free(dec);
    /* the staple's log now holds its landmarks (newest first: put first) */
    size_t k = 0;
    while (k < s->view.nlogs && s->view.log[k].log_number != c->log_number)
        k++;
    if (k == s->view.nlogs && k < SIM_CA_MAX_LOGS)
        s->view.nlogs++;
    if (k < SIM_CA_MAX_LOGS) {
        s->view.log[k].log_number = c->log_number;
        s->view.log[k].last_landmark = c->last_landmark;
        s->view.log[k].max_active = c->max_active;
    }
    /* the lists are the update service's (another cosigner policy would
     * not see the staple's subtrees: only "pki" exists) */
    return ok;
}

/* The relying-party state of staple `copy` applied to base view v of
 * service us, made (and verified) on first use. NULL when out of memory. */
static const web_rpstate *state_of(web *wb, uint32_t copy, uint32_t us,
                                   const sim_ca_view *v)
{
    return web_rpmemo_get(&wb->stp->states, copy, us, v, apply_staple, wb->stp);
}

/* The last landmark of `log` in view v (0: none). */
static uint64_t view_last(const sim_ca_view *v, uint64_t log)
{
    for (size_t k = 0; v && k < v->nlogs; k++)
        if (v->log[k].log_number == log)
            return v->log[k].last_landmark;
    return 0;
}

/* ---- the handshake's hooks ------------------------------------------------------- */

static stp_client *client_ca(web *wb, const web_client *c, size_t ca)
{
    return &wb->stp->cl[web__client_index(wb, c) * wb->nca + ca];
}

const web_pubinfo *web__staple_view(web *wb, const web_client *c, size_t us,
                                    const web_pubinfo *pi, int slot)
{
    web_staple *t = wb->stp;
    if (!t || !pi || !wb->cohorts[c->cohort].cfg.learn_staples)
        return pi;
    web_pubinfo *sc = &t->scratch[slot];
    int any = 0;
    for (size_t ca = 0; ca < wb->nca; ca++) {
        stp_client *sl = client_ca(wb, c, ca);
        if (!sl->learned)
            continue;
        const stp_copy *cp = &t->copies[sl->learned - 1];
        const sim_ca_view *v = pi->view[ca];
        if (!v || view_last(v, cp->log_number) >= cp->last_landmark)
            continue;
        const web_rpstate *s = state_of(wb, sl->learned - 1, (uint32_t)us, v);
        if (!s || !s->ok)
            continue;
        if (!any) {
            size_t slots = wb->nca * SIM_CA_MAX_LOGS;
            memcpy(sc->adv_log, pi->adv_log, slots * sizeof *sc->adv_log);
            memcpy(sc->adv_lm, pi->adv_lm, slots * sizeof *sc->adv_lm);
            memcpy(sc->adv_max_active, pi->adv_max_active,
                   slots * sizeof *sc->adv_max_active);
            memcpy(sc->ca_version, pi->ca_version, wb->nca * sizeof *sc->ca_version);
            memcpy(sc->view, pi->view, wb->nca * sizeof *sc->view);
            any = 1;
        }
        sc->view[ca] = &s->view;
        sc->ca_version[ca] = s->view.version;
        for (size_t k = 0; k < SIM_CA_MAX_LOGS; k++) {
            size_t i = ca * SIM_CA_MAX_LOGS + k;
            sc->adv_log[i] = k < s->view.nlogs ? s->view.log[k].log_number : 0;
            sc->adv_lm[i] = k < s->view.nlogs ? s->view.log[k].last_landmark : 0;
            sc->adv_max_active[i] = k < s->view.nlogs ? s->view.log[k].max_active : 0;
        }
    }
    if (!any)
        return pi;
    /* the ClientHello's trust_anchors from these views, as web__pubinfo
     * encodes a publication's */
    mtc_taid ids[64];
    size_t nids = 0, len = 0;
    for (size_t ca = 0; ca < wb->nca && nids + SIM_CA_MAX_LOGS < 64; ca++) {
        const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, ca);
        size_t before = nids;
        for (size_t k = 0; k < SIM_CA_MAX_LOGS; k++) {
            size_t i = ca * SIM_CA_MAX_LOGS + k;
            if (sc->adv_lm[i] > 0 &&
                mtc_taid_landmark_group_id(&ci->ca_id, sc->adv_log[i], sc->adv_lm[i],
                                           &ids[nids]) == MTC_OK)
                nids++;
        }
        if (nids == before)
            ids[nids++] = ci->ca_id;
    }
    if (tls_ext_trust_anchors_encode(wb->env.tls.codepoint, ids, nids,
                                     wb->wire_scratch, WEB_WIRE_SCRATCH,
                                     &len) != MTC_OK)
        len = 0;
    sc->ch_ext_len = (uint32_t)len;
    return sc;
}

int web__staple_is_scratch(const web *wb, const web_pubinfo *pi)
{
    return wb->stp && (pi == &wb->stp->scratch[0] || pi == &wb->stp->scratch[1]);
}

uint32_t web__staple_signal(const web *wb, const web_cohort *co)
{
    return wb->stp && co->cfg.learn_staples ? STP_SIGNAL_BYTES : 0;
}

uint32_t web__staple_offer(web *wb, const web_cohort *co, uint32_t ca,
                           uint32_t *copy)
{
    if (!wb->stp || !co->cfg.learn_staples)
        return 0;
    long i = copy_of(wb, ca);
    if (i < 0)
        return 0;
    *copy = (uint32_t)i + 1;
    return (uint32_t)(4 + wb->stp->copies[i].len);
}

void web__staple_after(web *wb, web_client *c, size_t us, uint32_t ca,
                       uint32_t copy, uint32_t bytes, int sigless)
{
    web_staple *t = wb->stp;
    if (!t)
        return;
    size_t k = c->cohort;
    stp_client *sl = client_ca(wb, c, ca);
    size_t b = sl->nfull < STP_VISIT_BUCKETS - 1 ? sl->nfull : STP_VISIT_BUCKETS - 1;
    sl->nfull++;
    sim_counter_add(t->full_by, k * STP_VISIT_BUCKETS + b, 1);
    if (sigless)
        sim_counter_add(t->sigless_by, k * STP_VISIT_BUCKETS + b, 1);
    if (!copy)
        return;
    sim_hist_observe_u32(t->bytes, k, bytes);
    const stp_copy *cp = &t->copies[copy - 1];
    if (sl->learned && t->copies[sl->learned - 1].seq >= cp->seq)
        return; /* nothing newer */
    /* verified against the state the client holds now */
    const web_pubinfo *pi = web__pubinfo(wb, us, c->pub);
    const sim_ca_view *v = pi ? pi->view[ca] : NULL;
    const web_rpstate *s = v ? state_of(wb, copy - 1, (uint32_t)us, v) : NULL;
    if (s && s->ok) {
        sl->learned = copy;
        sim_counter_add(t->learned, k, 1);
    } else {
        sim_counter_add(t->refused, k, 1);
    }
}

/* ---- setup ------------------------------------------------------------------------ */

int web__staple_create(web *wb, char *err, size_t errlen)
{
    int any = 0;
    for (size_t i = 0; i < wb->ncohorts; i++)
        any |= wb->cohorts[i].cfg.learn_staples;
    if (!any)
        return MTC_OK;
    web_staple *t = calloc(1, sizeof *t);
    if (!t)
        return MTC_ERR_NOMEM;
    wb->stp = t;
    web_rpmemo_init(&t->states, STP_VERSION_BASE);
    size_t slots = wb->nca * SIM_CA_MAX_LOGS;
    t->cl = calloc(wb->nclients * wb->nca + 1, sizeof *t->cl);
    int rc = t->cl ? MTC_OK : MTC_ERR_NOMEM;
    for (int s = 0; s < 2 && rc == MTC_OK; s++) {
        web_pubinfo *p = &t->scratch[s];
        p->adv_log = calloc(slots + 1, sizeof(uint64_t));
        p->adv_lm = calloc(slots + 1, sizeof(uint64_t));
        p->adv_max_active = calloc(slots + 1, sizeof(uint64_t));
        p->ca_version = calloc(wb->nca + 1, sizeof(uint32_t));
        p->view = calloc(wb->nca + 1, sizeof *p->view);
        p->ready = 1;
        if (!p->adv_log || !p->adv_lm || !p->adv_max_active || !p->ca_version || !p->view)
            rc = MTC_ERR_NOMEM;
    }
    if (rc != MTC_OK)
        return rc;
    sim_metrics *m = wb->env.metrics;
    size_t nc = wb->ncohorts;
    rc |= sim_metrics_histogram(m, "staple_bytes", "bytes", nc, 0, 10, 1e6, 100, &t->bytes);
    rc |= sim_metrics_counter(m, "staple_learned", "staples", nc, 0, &t->learned);
    rc |= sim_metrics_counter(m, "staple_refused", "staples", nc, 0, &t->refused);
    rc |= sim_metrics_counter(m, "staple_full_by_visit", "handshakes",
                              nc * STP_VISIT_BUCKETS, 0, &t->full_by);
    rc |= sim_metrics_counter(m, "staple_signatureless_by_visit", "handshakes",
                              nc * STP_VISIT_BUCKETS, 0, &t->sigless_by);
    if (rc) {
        snprintf(err, errlen, "staple metrics: %s", sim_strerror(SIM_ERR_METRIC));
        return SIM_ERR_METRIC;
    }
    const char **lab = calloc(nc, sizeof *lab);
    char (*cells)[64] = calloc(nc * STP_VISIT_BUCKETS, sizeof *cells);
    const char **cl = calloc(nc * STP_VISIT_BUCKETS, sizeof *cl);
    if (!lab || !cells || !cl)
        rc = MTC_ERR_NOMEM;
    for (size_t i = 0; i < nc && rc == MTC_OK; i++) {
        lab[i] = wb->cohorts[i].cfg.name;
        for (size_t b = 0; b < STP_VISIT_BUCKETS; b++) {
            char *cell = cells[i * STP_VISIT_BUCKETS + b];
            snprintf(cell, 64, "%.40s:%zu%s", lab[i], b + 1,
                     b + 1 == STP_VISIT_BUCKETS ? "+" : "");
            cl[i * STP_VISIT_BUCKETS + b] = cell;
        }
    }
    if (rc == MTC_OK) {
        sim_metric_set_cohort_labels(t->bytes, lab, nc);
        sim_metric_set_cohort_labels(t->learned, lab, nc);
        sim_metric_set_cohort_labels(t->refused, lab, nc);
        sim_metric_set_cohort_labels(t->full_by, cl, nc * STP_VISIT_BUCKETS);
        sim_metric_set_cohort_labels(t->sigless_by, cl, nc * STP_VISIT_BUCKETS);
    }
    free(lab);
    free(cells);
    free(cl);
    return rc;
}

void web__staple_destroy(web *wb)
{
    web_staple *t = wb->stp;
    if (!t)
        return;
    for (size_t i = 0; i < t->ncopies; i++)
        free(t->copies[i].bytes);
    web_rpmemo_free(&t->states);
    for (int s = 0; s < 2; s++) {
        free(t->scratch[s].adv_log);
        free(t->scratch[s].adv_lm);
        free(t->scratch[s].adv_max_active);
        free(t->scratch[s].ca_version);
        free(t->scratch[s].view);
    }
    free(t->copies);
    free(t->cl);
    free(t);
    wb->stp = NULL;
}
