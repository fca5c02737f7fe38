/*
 * pki_ca.c - a Merkle Tree CA's setup, start and teardown, and the live
 * requests that change it (revocations, split views, parameters). Its work
 * is in pki_ca_log.c, pki_ca_checkpoint.c, pki_ca_landmark.c and
 * pki_ca_prune.c, joined by pki_ca_internal.h.
 */
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "pki_internal.h"
#include "pki_ca_internal.h"

static pki_state *PS(const pki_ca *ca) { return ca->ps; }
static sim_engine *ENG(const pki_ca *ca) { return ca->ps->env->engine; }
static sim_time NOW(const pki_ca *ca) { return sim_now(ENG(ca)); }

/* ---- setup and requests --------------------------------------------------- */

int pki_ca_setup(pki_state *ps, pki_ca *ca, char *err, size_t errlen)
{
    pki_ca_config *c = ca->cfg;
    char idtext[64];
    if (c->id[0])
        snprintf(idtext, sizeof idtext, "%s", c->id);
    else
        snprintf(idtext, sizeof idtext, "32473.%zu", ca->index + 1);
    if (mtc_taid_from_text(idtext, strlen(idtext), &ca->info.ca_id) != MTC_OK) {
        snprintf(err, errlen, "ca %s: id: '%s' is not valid", c->name, idtext);
        return SIM_ERR_CONFIG;
    }
    mtc_sig_alg alg = pki_alg_of(c->algorithm);
    int rc = pki_signer_init(ps, &ca->signer, alg, &ca->info.ca_id, ca->index,
                             ca->index);
    if (rc != MTC_OK) {
        snprintf(err, errlen, "ca %s: key: %s", c->name, sim_strerror(rc));
        return rc;
    }
    mtc_der_writer w;
    mtc_der_writer_init(&w, ca->issuer_name, sizeof ca->issuer_name);
    mtc_taid_name_der(&w, &ca->info.ca_id);
    ca->issuer_len = w.len;
    /* Background entries' SPKI template: a real P-256 key (its hash is
     * replaced per entry). */
    {
        uint8_t seed[32], pk[MTC_SIG_PK_MAX];
        size_t pl;
        mtc_sig_key *k;
        pki_key_seed(ps, (uint64_t)2 << 32 | ca->index, seed);
        rc = mtc_sig_key_from_seed(MTC_SIG_ECDSA_P256, seed, &k);
        if (rc == MTC_OK) {
            rc = mtc_sig_key_public(k, pk, &pl);
            mtc_sig_key_free(k);
        }
        if (rc == MTC_OK)
            rc = mtc_sig_spki_der(MTC_SIG_ECDSA_P256, pk, pl, ca->bg_spki,
                                  sizeof ca->bg_spki, &ca->bg_spki_len);
        if (rc != MTC_OK) {
            snprintf(err, errlen, "ca %s: template key: %s", c->name,
                     sim_strerror(rc));
            return rc;
        }
    }
    for (size_t j = 0; j < c->cosigners.count; j++) {
        int idx = sim_world_find(ps->w, "cosigner", c->cosigners.item[j]);
        if (idx < 0) {
            snprintf(err, errlen, "ca %s: cosigners: no cosigner named '%s'",
                     c->name, c->cosigners.item[j]);
            return SIM_ERR_CONFIG;
        }
        for (size_t k = 0; k < ca->nslots; k++)
            if (ca->slot[k].cos == &ps->cos[idx]) {
                snprintf(err, errlen, "ca %s: cosigners: '%s' listed twice",
                         c->name, c->cosigners.item[j]);
                return SIM_ERR_CONFIG;
            }
        ca->slot[ca->nslots++].cos = &ps->cos[idx];
    }
    ca->quorum = c->quorum < 0 ? (unsigned)ca->nslots : (unsigned)c->quorum;
    ca->max_active = c->max_active_landmarks > 0
                         ? (uint64_t)c->max_active_landmarks
                         : mtc_max_active_landmarks((uint64_t)c->lifetime,
                                                    (uint64_t)c->landmark_interval);
    /* The CA certificate: log numbers 1..SIM_CA_MAX_LOGS are acceptable. */
    mtc_ca_params cp = {ca->info.ca_id, alg, ca->signer.pk, ca->signer.pk_len,
                        mtc_serial(1, 0),
                        mtc_serial(SIM_CA_MAX_LOGS, (UINT64_C(1) << 48) - 1),
                        ps->wc->epoch, ps->wc->epoch + 10 * 365 * 86400};
    size_t len;
    mtc_ca_cert_build(&cp, NULL, 0, &len);
    ca->ca_cert = malloc(len + 64);
    if (!ca->ca_cert)
        return MTC_ERR_NOMEM;
    rc = mtc_ca_cert_build(&cp, ca->ca_cert, len + 64, &ca->ca_cert_len);
    if (rc != MTC_OK) {
        snprintf(err, errlen, "ca %s: CA certificate: %s", c->name,
                 sim_strerror(rc));
        return rc;
    }
    ca->info.name = c->name;
    ca->info.alg = alg;
    ca->info.max_lifetime = c->lifetime;
    ca->info.ncosigners = ca->nslots;
    ca->info.quorum = ca->quorum;
    ca->info.ca_cert = ca->ca_cert;
    ca->info.ca_cert_len = ca->ca_cert_len;
    ca->info.ca_pk = ca->signer.pk;
    ca->info.ca_pk_len = ca->signer.pk_len;
    ca->info.ldp = (unsigned)c->ldp;
    ca->info.ldp_fail_prob = c->ldp_fail_prob;
    ca->min_serial = mtc_serial(1, 0);
    ca->next_log_number = 1;
    sim_stream_init(&ca->arr_stream, PKI_STREAM_ARRIVALS, ca->index);
    sim_stream_init(&ca->ca_stream, PKI_STREAM_CA, ca->index);
    rc = sim_nhpp_create(&ca->nhpp, c->rate, c->profile, SIM_PROFILE_HOURS,
                         SIM_DAY, 0);
    if (rc != MTC_OK) {
        snprintf(err, errlen, "ca %s: rate/profile: %s", c->name,
                 sim_strerror(rc));
        return SIM_ERR_CONFIG;
    }
    return MTC_OK;
}

int pki_ca_start(pki_state *ps, pki_ca *ca)
{
    pki_log *l = pki__log_new(ca, ca->next_log_number++);
    if (!l) /* an aged log's build ends early when the run is interrupted */
        return ps->env->stop && *ps->env->stop ? SIM_ERR_STATE : MTC_ERR_NOMEM;
    ca->logs[ca->nlogs++] = l;
    sim_time now = sim_now(ps->env->engine);
    ca->lm_base_time = now;
    ca->lm_base_number = 0;
    gsl_rng *r = sim_rng_use(ps->env->rng, &ca->arr_stream);
    ca->next_arrival = sim_nhpp_next(ca->nhpp, r, now);
    sim_event_init(&ca->tick_ev, pki__tick_fire, ca);
    sim_event_init(&ca->prune_ev, pki__prune_fire, ca);
    sim_prof *pf = sim_engine_prof(ps->env->engine);
    sim_prof_handler(pf, pki__tick_fire, SIM_PART_LOG);
    sim_prof_handler(pf, pki__prune_fire, SIM_PART_LOG);
    pki__checkpoint_prof(pf);
    ca->next_tick = now + ca->cfg->checkpoint_interval;
    int rc = sim_schedule(ps->env->engine, &ca->tick_ev, ca->next_tick);
    if (rc == MTC_OK)
        rc = sim_schedule_in(ps->env->engine, &ca->prune_ev,
                             ca->cfg->prune_interval);
    pki_ca_gauges(ca);
    pki_quorum_track(ca);
    return rc;
}

void pki_ca_free(pki_ca *ca)
{
    if (!ca)
        return;
    pki__job_free(ca->job);
    for (size_t i = 0; i < ca->nzombies; i++)
        pki__job_free(ca->zombies[i]);
    free(ca->zombies);
    for (size_t i = 0; i < ca->nlogs; i++)
        pki__log_free(ca->logs[i]);
    sim_nhpp_destroy(ca->nhpp);
    pki_signer_free(&ca->signer);
    free(ca->ca_cert);
    free(ca->rev);
    free(ca->ldp_exts);
    pki_staple_free(ca);
}

int pki_ca_revoke(pki_ca *ca, uint64_t log_number, uint64_t first,
                  uint64_t last)
{
    if (log_number == 0 || log_number >= ca->next_log_number ||
        last >= (UINT64_C(1) << 48) || first > last)
        return MTC_ERR_RANGE;
    pki_revocation r = {mtc_serial(log_number, first),
                        mtc_serial(log_number, last), NOW(ca)};
    size_t zero = 0;
    int rc;
    PKI_DEQUE_PUSH(ca->rev, zero, ca->nrev, ca->rev_cap, r, rc);
    return rc;
}

void pki_ca_split_view(pki_ca *ca, unsigned k)
{
    ca->split_pending = (int)k + 1;
}

int pki_ca_set(pki_ca *ca, const char *param, double value)
{
    pki_state *ps = PS(ca);
    sim_time now = NOW(ca);
    if (!strcmp(param, "checkpoint_interval")) {
        ca->cfg->checkpoint_interval = sim_time_from_sec(value);
        ca->next_tick = now + ca->cfg->checkpoint_interval;
        return sim_reschedule(ENG(ca), &ca->tick_ev, ca->next_tick);
    }
    if (!strcmp(param, "landmark_interval")) {
        ca->lm_base_number = pki__lm_interval_number(ca) + 1;
        ca->lm_base_time = now;
        ca->cfg->landmark_interval = sim_time_from_sec(value);
        return MTC_OK;
    }
    if (!strcmp(param, "rate")) {
        sim_nhpp *n;
        int rc = sim_nhpp_create(&n, value, ca->cfg->profile,
                                 SIM_PROFILE_HOURS, SIM_DAY, 0);
        if (rc != MTC_OK)
            return rc;
        if ((rc = pki_ca_drain(ca)) != MTC_OK) {
            sim_nhpp_destroy(n);
            return rc;
        }
        sim_nhpp_destroy(ca->nhpp);
        ca->nhpp = n;
        ca->cfg->rate = value;
        gsl_rng *r = sim_rng_use(ps->env->rng, &ca->arr_stream);
        ca->next_arrival = sim_nhpp_next(n, r, now + 1);
        return MTC_OK;
    }
    return SIM_ERR_CONFIG;
}
