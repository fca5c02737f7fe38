/*
 * pki_cosigner.c - external cosigners: witnesses and mirrors.
 *
 * A cosigner keeps, per log, only the largest checkpoint it has verified
 * (size and root). On a request it obtains an RFC 9162 consistency proof
 * from its size to the new one over the view the CA presents, verifies it,
 * verifies a subtree consistency proof for each covering subtree it is
 * asked to sign, and only then signs the checkpoint and the subtrees with
 * its own key. A view inconsistent with what it has signed is refused (and
 * noted as evidence of a split view); the cosigner keeps following its
 * own view, so it can never sign two inconsistent ones.
 *
 * Mirrors do the same checks after copying the new entries: the copy adds
 * bytes / mirror_bandwidth to the response time and its bytes (the real
 * entry lengths, plus 2 bytes of framing per entry) to mirror_fetch_bytes.
 *
 * Availability: random failures (exponential time between failures, given
 * repair-time distribution) and scheduled outages (actions). A request
 * that finds the cosigner down, or that it is down when it would answer,
 * fails and the CA retries it after cosign_retry. Responses to one CA
 * stay in order (FIFO per cosigner and CA). Each CA also tracks whether
 * its quorum is reachable at all (fewer than `quorum` of its cosigners
 * up), the time a k-of-N availability closed form predicts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "mtc/error.h"
#include "pki_internal.h"

static void process_fire(sim_engine *sim, sim_event *ev);

static void fail_fire(sim_engine *sim, sim_event *ev);

static void schedule_failure(pki_cosigner *c)
{
    if (c->cfg->mtbf <= 0)
        return;
    gsl_rng *r = sim_rng_use(c->ps->env->rng, &c->avail_stream);
    sim_time d = c->random_down
                     ? sim_dist_sample_duration(c->cfg->repair_time, r)
                     : sim_time_from_sec(
                           gsl_ran_exponential(r, sim_time_to_sec(c->cfg->mtbf)));
    sim_schedule_in(c->ps->env->engine, &c->fail_ev, d);
}

/* ---- quorum reachability ------------------------------------------------ */

/* The time [since, now) clipped to the measured window, in whole ms (the
 * sub-millisecond rest is dropped once per period: at most 1 ms per
 * outage, far below what a k-of-N figure resolves). */
static void quorum_add(pki_ca *ca, sim_time since, sim_time now)
{
    pki_state *ps = ca->ps;
    sim_time from = since > ps->wc->warmup ? since : ps->wc->warmup;
    if (now > from && sim_metrics_recording(ps->env->metrics))
        sim_counter_add(ps->m.quorum_unreach, ca->index, (int64_t)((now - from) / SIM_MS));
}

void pki_quorum_track(pki_ca *ca)
{
    unsigned up = 0;
    for (size_t j = 0; j < ca->nslots; j++)
        up += pki_cosigner_up(ca->slot[j].cos) != 0;
    int down = up < ca->quorum;
    sim_time now = sim_now(ca->ps->env->engine);
    if (down == ca->quorum_down)
        return;
    if (ca->quorum_down)
        quorum_add(ca, ca->quorum_down_since, now);
    ca->quorum_down = down;
    ca->quorum_down_since = now;
}

void pki_quorum_close(pki_ca *ca, sim_time now)
{
    if (!ca->quorum_down)
        return;
    quorum_add(ca, ca->quorum_down_since, now);
    ca->quorum_down_since = now;
}

/* Every CA that lists c re-checks its quorum. */
static void cosigner_changed(pki_cosigner *c)
{
    pki_state *ps = c->ps;
    for (size_t i = 0; i < ps->nca; i++)
        for (size_t j = 0; j < ps->ca[i].nslots; j++)
            if (ps->ca[i].slot[j].cos == c) {
                pki_quorum_track(&ps->ca[i]);
                break;
            }
}

static void fail_fire(sim_engine *sim, sim_event *ev)
{
    (void)sim;
    pki_cosigner *c = ev->arg;
    c->random_down = !c->random_down;
    schedule_failure(c);
    cosigner_changed(c);
}

void pki_cosigner_set_manual(pki_cosigner *c, int down)
{
    if (down)
        c->manual_down++;
    else if (c->manual_down > 0)
        c->manual_down--;
    cosigner_changed(c);
}

int pki_cosigner_setup(pki_state *ps, pki_cosigner *c, char *err,
                       size_t errlen)
{
    char idtext[64];
    if (c->cfg->id[0])
        snprintf(idtext, sizeof idtext, "%s", c->cfg->id);
    else
        snprintf(idtext, sizeof idtext, "32473.9999.%zu", c->index + 1);
    mtc_taid id;
    if (mtc_taid_from_text(idtext, strlen(idtext), &id) != MTC_OK) {
        snprintf(err, errlen, "cosigner %s: id: '%s' is not valid",
                 c->cfg->name, idtext);
        return SIM_ERR_CONFIG;
    }
    int rc = pki_signer_init(ps, &c->signer, pki_alg_of(c->cfg->algorithm), &id,
                             (uint64_t)1 << 32 | c->index, ps->nca + c->index);
    if (rc != MTC_OK) {
        snprintf(err, errlen, "cosigner %s: key: %s", c->cfg->name,
                 sim_strerror(rc));
        return rc;
    }
    sim_stream_init(&c->lat_stream, PKI_STREAM_COSIGNER, c->index);
    sim_stream_init(&c->avail_stream, PKI_STREAM_COS_AVAIL, c->index);
    return MTC_OK;
}

int pki_cosigner_start(pki_state *ps, pki_cosigner *c)
{
    sim_prof *pf = sim_engine_prof(ps->env->engine);
    sim_prof_handler(pf, fail_fire, SIM_PART_LOG);
    sim_prof_handler(pf, process_fire, SIM_PART_LOG);
    sim_event_init(&c->fail_ev, fail_fire, c);
    schedule_failure(c);
    return MTC_OK;
}

void pki_cosigner_free(pki_cosigner *c)
{
    if (c)
        pki_signer_free(&c->signer);
}

/* Checks the view and signs; 1 on success, 0 on refusal. */
static int verify_and_sign(pki_state *ps, pki_creq *r)
{
    pki_job *job = r->job;
    pki_log *l = job->log;
    pki_ca *ca = l->ca;
    pki_cosigner *c = ca->slot[r->slot].cos;
    pki_wstate *ws = &l->wstate[r->slot];
    pki_jview *v = &job->v[r->view];
    mtc_node_source src;
    pki_view_source(&v->src, &src);
    uint64_t n = job->to;
    if (ws->size > n)
        return 0; /* older than what it has verified */
    mtc_hash proof[MTC_PROOF_MAX];
    size_t len;
    if (ws->size > 0) {
        if (mtc_consistency_proof(&src, ws->size, n, proof, &len) != MTC_OK ||
            mtc_consistency_verify(ws->size, n, &ws->root, &v->root, proof,
                                   len) != MTC_OK) {
            ws->detected = 1; /* evidence of a split view; its state stays */
            return 0;
        }
    }
    for (int s = 0; s < 2; s++) {
        if (job->sub[s].end == job->sub[s].start)
            continue;
        if (mtc_subtree_consistency_proof(&src, job->sub[s].start,
                                          job->sub[s].end, n, proof,
                                          &len) != MTC_OK ||
            mtc_subtree_consistency_verify(job->sub[s].start, job->sub[s].end,
                                           n, &v->sub_hash[s], &v->root, proof,
                                           len) != MTC_OK)
            return 0;
    }
    if (c->cfg->role == PKI_ROLE_MIRROR)
        sim_counter_add(ps->m.mirror_bytes, c->index,
                        (int64_t)pki_log_bytes(l, ws->size, n));
    size_t k = 1 + r->slot;
    pki_sig_free(&v->ckpt[k]);
    if (pki_sign_checkpoint(ps, &c->signer, &l->log_id, job->ts, n, &v->root,
                            &v->ckpt[k]) != MTC_OK)
        return 0;
    for (int s = 0; s < 2; s++) {
        if (job->sub[s].end == job->sub[s].start)
            continue;
        pki_sig_free(&v->subsig[s][k]);
        if (pki_sign_subtree(ps, &c->signer, &l->log_id, job->sub[s].start,
                             job->sub[s].end, &v->sub_hash[s],
                             &v->subsig[s][k]) != MTC_OK)
            return 0;
    }
    ws->size = n;
    ws->root = v->root;
    return 1;
}

static void process_fire(sim_engine *sim, sim_event *ev)
{
    (void)sim;
    pki_creq *r = ev->arg;
    pki_job *job = r->job;
    pki_ca *ca = job->log->ca;
    pki_cosigner *c = ca->slot[r->slot].cos;
    pki_state *ps = c->ps;
    if (!pki_cosigner_up(c)) {
        sim_counter_add(ps->m.unavailable, c->index, 1);
        pki_job_response(job, r->slot, r->view, 0, 1);
        return;
    }
    int ok = verify_and_sign(ps, r);
    if (!ok)
        sim_counter_add(ps->m.refusals, c->index, 1);
    pki_job_response(job, r->slot, r->view, ok, 0);
}

int pki_cosigner_send(pki_state *ps, pki_creq *r)
{
    pki_job *job = r->job;
    pki_ca *ca = job->log->ca;
    pki_slot *slot = &ca->slot[r->slot];
    pki_cosigner *c = slot->cos;
    sim_engine *e = ps->env->engine;
    sim_time now = sim_now(e);
    if (!pki_cosigner_up(c)) {
        sim_counter_add(ps->m.unavailable, c->index, 1);
        pki_job_response(job, r->slot, r->view, 0, 1);
        return MTC_OK;
    }
    gsl_rng *g = sim_rng_use(ps->env->rng, &c->lat_stream);
    sim_time done = now + sim_dist_sample_duration(c->cfg->latency, g);
    if (c->cfg->role == PKI_ROLE_MIRROR) {
        uint64_t bytes = pki_log_bytes(job->log, job->log->wstate[r->slot].size,
                                       job->to);
        done += sim_time_from_sec((double)bytes / c->cfg->mirror_bandwidth);
    }
    if (done < slot->last_done)
        done = slot->last_done;
    slot->last_done = done;
    sim_event_init(&r->ev, process_fire, r);
    return sim_schedule(e, &r->ev, done);
}
