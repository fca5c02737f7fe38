/*
 * validate/vworld.c - see vworld.h. Recording follows `mtcsim run`: one
 * experiment per case and parameter set, one run per replication, every
 * effective parameter of every entity, every metric.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/cert.h"
#include "mtc/error.h"
#include "sim/pki.h"
#include "sim/world.h"
#include "mtc/sig.h"
#include "vworld.h"

int64_t vw_experiment(vctx *c, const char *name, int64_t points, int64_t reps)
{
    if (!c->db)
        return 0;
    char full[160];
    snprintf(full, sizeof full, "validate-%s-%s", c->case_id, name);
    sim_experiment_info info = {full, "build/validate", points, reps};
    int64_t id = 0;
    if (sim_results_experiment_begin(c->db, &info, &id) != MTC_OK)
        fprintf(stderr, "validate: %s\n", sim_results_errmsg(c->db));
    return id;
}

void vw_record(vctx *c, int64_t exp, int64_t point, uint64_t seed, uint64_t rep,
               wfx *f)
{
    if (!c->db || !exp)
        return;
    sim_run_info ri;
    memset(&ri, 0, sizeof ri);
    ri.experiment_id = exp;
    ri.sweep_point = point;
    ri.replication = (int64_t)rep;
    ri.seed = seed;
    ri.program_version = "validate";
    ri.sim_start = 0;
    const sim_world_config *wc = sim_world_get_config(f->w);
    ri.sim_stop = wc->duration;
    int64_t run;
    if (sim_results_run_begin(c->db, &ri, &run) != MTC_OK) {
        fprintf(stderr, "validate: %s\n", sim_results_errmsg(c->db));
        return;
    }
    sim_results_add_params(c->db, run, &sim_world_config_schema, "world", wc);
    size_t nk;
    nk = sim_world_kind_count();
    for (size_t k = 0; k < nk; k++) {
        const sim_param_schema *ks = sim_world_kind(k);
        if (!strcmp(ks->kind, "world"))
            continue;
        size_t n = sim_world_count(f->w, ks->kind);
        for (size_t i = 0; i < n; i++)
            sim_results_add_params(c->db, run, ks, sim_world_entity_name(f->w, ks->kind, i),
                                   sim_world_entity_config(f->w, ks->kind, i));
    }
    sim_results_add_attr(c->db, run, "validation_case", c->case_id);
    if (sim_results_store_metrics(c->db, run, f->m) != MTC_OK)
        fprintf(stderr, "validate: %s\n", sim_results_errmsg(c->db));
    sim_results_run_end(c->db, run, SIM_RUN_COMPLETED, sim_now(f->eng),
                        sim_engine_events_executed(f->eng), NULL);
}

int vw_start(wfx *f)
{
    int rc = sim_world_start(f->w, f->err, sizeof f->err);
    if (rc != MTC_OK)
        fprintf(stderr, "validate: world: %s\n", f->err);
    return rc;
}

int vw_complete(vctx *c, wfx *f, int64_t exp, int64_t point, uint64_t seed,
                uint64_t rep)
{
    int rc = sim_engine_run(f->eng);
    if (rc < 0) {
        fprintf(stderr, "validate: engine: %s\n", sim_strerror(rc));
        return rc;
    }
    sim_world_finish(f->w);
    vw_record(c, exp, point, seed, rep, f);
    return MTC_OK;
}

int vw_run(vctx *c, wfx *f, int64_t exp, int64_t point, uint64_t seed,
           uint64_t rep)
{
    int rc = vw_start(f);
    return rc != MTC_OK ? rc : vw_complete(c, f, exp, point, seed, rep);
}

/* ---- probes ---- */

typedef struct probe_req {
    vw_probe *p;
    unsigned k;
} probe_req;

static void probe_cb(void *ctx, const sim_cert_event *ev)
{
    vw_probe *p = ctx;
    if (ev->kind != SIM_CERT_STANDALONE && ev->kind != SIM_CERT_LANDMARK)
        return;
    mtc_cert cert;
    mtc_proof pf;
    if (mtc_cert_parse(ev->der, ev->der_len, &cert) != MTC_OK ||
        mtc_proof_decode(cert.sig_value.p, cert.sig_value.len, &pf) != MTC_OK) {
        fprintf(stderr, "validate: probe: a certificate does not decode\n");
        return;
    }
    if (p->n == p->cap) {
        size_t n = p->cap ? 2 * p->cap : 256;
        vw_cert *q = realloc(p->certs, n * sizeof *q);
        if (!q)
            return;
        p->certs = q;
        p->cap = n;
    }
    vw_cert *o = &p->certs[p->n++];
    o->kind = ev->kind;
    o->hashes = (unsigned)pf.n_inclusion;
    o->sigs = (unsigned)pf.n_sigs;
    o->proof_len = ev->proof_len;
    o->der_len = ev->der_len;
    o->start = pf.start;
    o->end = pf.end;
}

static void probe_fire(sim_engine *sim, void *arg)
{
    (void)sim;
    probe_req *r = arg;
    vw_probe *p = r->p;
    char dns[64];
    snprintf(dns, sizeof dns, "probe%u.example", r->k);
    sim_issue_request req = {dns, p->spki, p->spki_len, 0, probe_cb, p, NULL, 0, NULL, 0};
    if (sim_pki_issue(p->f->w, p->ca, &req, NULL) != MTC_OK)
        fprintf(stderr, "validate: probe request refused\n");
    free(r);
}

int vw_probe_init(vw_probe *p, wfx *f, size_t ca, int key_alg)
{
    memset(p, 0, sizeof *p);
    p->f = f;
    p->ca = ca;
    p->key_alg = key_alg;
    uint8_t seed[32] = {'v', 'a', 'l', 'i', 'd', 'a', 't', 'e'};
    mtc_sig_key *k;
    uint8_t pk[MTC_SIG_PK_MAX];
    size_t pl;
    int rc = mtc_sig_key_from_seed((mtc_sig_alg)key_alg, seed, &k);
    if (rc != MTC_OK)
        return rc;
    rc = mtc_sig_key_public(k, pk, &pl);
    mtc_sig_key_free(k);
    if (rc == MTC_OK)
        rc = mtc_sig_spki_der((mtc_sig_alg)key_alg, pk, pl, p->spki, sizeof p->spki,
                              &p->spki_len);
    return rc;
}

void vw_probe_free(vw_probe *p)
{
    free(p->certs);
    memset(p, 0, sizeof *p);
}

int vw_probe_schedule(vw_probe *p, double t0, double t1, double every,
                      double phase)
{
    for (double t = t0 + phase * every; t < t1; t += every) {
        probe_req *r = malloc(sizeof *r);
        if (!r)
            return MTC_ERR_NOMEM;
        r->p = p;
        r->k = p->requests++;
        int rc = sim_call_at(p->f->eng, sim_time_from_sec(t), probe_fire, r);
        if (rc != MTC_OK) {
            free(r);
            return rc;
        }
    }
    return MTC_OK;
}

void vw_probe_summary(const vw_probe *p, int kind, vw_summary *s)
{
    memset(s, 0, sizeof *s);
    s->min_hashes = ~0u;
    s->min_der = (size_t)-1;
    double h = 0, pr = 0, d = 0;
    for (size_t i = 0; i < p->n; i++) {
        const vw_cert *x = &p->certs[i];
        if (x->kind != kind)
            continue;
        s->n++;
        h += x->hashes;
        pr += (double)x->proof_len;
        d += (double)x->der_len;
        if (x->hashes > s->max_hashes)
            s->max_hashes = x->hashes;
        if (x->hashes < s->min_hashes)
            s->min_hashes = x->hashes;
        if (x->proof_len > s->max_proof)
            s->max_proof = x->proof_len;
        if (x->der_len > s->max_der)
            s->max_der = x->der_len;
        if (x->der_len < s->min_der)
            s->min_der = x->der_len;
        s->sigs = x->sigs;
    }
    size_t count[MTC_PROOF_MAX_HASHES + 1] = {0}, best = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->certs[i].kind == kind && p->certs[i].hashes <= MTC_PROOF_MAX_HASHES)
            count[p->certs[i].hashes]++;
    for (unsigned k = 0; k <= MTC_PROOF_MAX_HASHES; k++)
        if (count[k] > best) {
            best = count[k];
            s->mode_hashes = k;
        }
    if (s->n) {
        s->mean_hashes = h / (double)s->n;
        s->mean_proof = pr / (double)s->n;
        s->mean_der = d / (double)s->n;
    }
}

/* ---- cold-start proof worlds ---- */

int vw_proof_run(vctx *c, const vw_proof_cfg *cfg, const char *name,
                 vw_proof_out *out)
{
    memset(out, 0, sizeof *out);
    wfx f;
    if (wfx_init_start(&f, 61, 0, cfg->duration, 0, 0, 0, 1, "empty") != MTC_OK)
        return -1;
    char id[24];
    for (int i = 0; i < cfg->mirrors; i++) {
        snprintf(id, sizeof id, "m%d", i + 1);
        void *m = wfx_cfg("cosigner", id);
        wfx_str("cosigner", m, "role", "mirror");
        wfx_str("cosigner", m, "algorithm", cfg->alg);
        snprintf(id, sizeof id, "32473.9999.%d", i + 1);
        wfx_str("cosigner", m, "id", id);
        wfx_add(&f, "cosigner", m);
    }
    void *ca = wfx_cfg("ca", "ca");
    wfx_str("ca", ca, "id", "32473.1");
    wfx_str("ca", ca, "algorithm", cfg->alg);
    wfx_num("ca", ca, "rate", cfg->rate);
    wfx_num("ca", ca, "checkpoint_interval", cfg->ckpt);
    wfx_num("ca", ca, "landmark_interval", cfg->landmark);
    for (int i = 0; i < cfg->mirrors; i++) {
        snprintf(id, sizeof id, "m%d", i + 1);
        wfx_item("ca", ca, "cosigners", id);
    }
    wfx_add(&f, "ca", ca);
    int rc = vw_start(&f);
    if (rc == MTC_OK)
        rc = vw_probe_init(&out->probe, &f, 0, cfg->key_alg);
    if (rc == MTC_OK)
        rc = vw_probe_schedule(&out->probe, cfg->probe_from, cfg->duration,
                               cfg->probe_every, 0.37);
    if (rc == MTC_OK)
        rc = vw_complete(c, &f, vw_experiment(c, name, 1, 1), 0, 61, 0);
    if (rc == MTC_OK) {
        vw_probe_summary(&out->probe, SIM_CERT_STANDALONE, &out->sa);
        vw_probe_summary(&out->probe, SIM_CERT_LANDMARK, &out->lr);
        out->entries = (double)vw_counter(&f, "log_entries", NULL);
        out->checkpoints = (double)vw_counter(&f, "checkpoints", NULL);
        sim_metric *h = sim_metrics_find(f.m, "landmark_subtree_size");
        out->lm_subtree_mean = h ? sim_hist_mean(h, SIM_ALL_COHORTS) : NAN;
        const mtc_landmarks *lm = sim_pki_ca_landmarks(f.w, 0, 1);
        uint64_t last = lm ? mtc_landmarks_last(lm) : 0, a = 0, b = 0;
        out->lm_interval = last >= 2 && mtc_landmarks_size(lm, last, &b) == MTC_OK &&
                                   mtc_landmarks_size(lm, last - 1, &a) == MTC_OK
                               ? (double)(b - a)
                               : NAN;
    }
    out->probe.f = NULL; /* the world is gone; the certificates stay */
    wfx_free(&f);
    return rc;
}

/* ---- metrics ---- */

static size_t cohort_of(const sim_metric *m, const char *label)
{
    if (!label)
        return SIM_ALL_COHORTS;
    for (size_t i = 0; i < sim_metric_cohorts(m); i++)
        if (!strcmp(sim_metric_cohort_label(m, i), label))
            return i;
    fprintf(stderr, "validate: metric %s has no cohort %s\n", sim_metric_name(m), label);
    return SIM_ALL_COHORTS;
}

int64_t vw_counter(wfx *f, const char *name, const char *cohort)
{
    sim_metric *m = sim_metrics_find(f->m, name);
    return m ? sim_counter_value(m, cohort_of(m, cohort)) : 0;
}

double vw_gauge(wfx *f, const char *name, const char *cohort)
{
    sim_metric *m = sim_metrics_find(f->m, name);
    return m ? sim_gauge_value(m, cohort_of(m, cohort)) : 0;
}
