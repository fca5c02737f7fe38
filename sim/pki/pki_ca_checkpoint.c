/*
 * pki_ca_checkpoint.c - a CA's checkpoint (standalone) job: the tick, the
 * CA's own signatures, asynchronous cosigning with retries and a quorum
 * timeout, split views (view B forks one entry), and the standalone
 * certificates at quorum. Apart from the log store: a job only reads the
 * tree, and lives across many events.
 */
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "pki_internal.h"
#include "pki_ca_internal.h"

static pki_state *PS(const pki_ca *ca) { return ca->ps; }
static sim_engine *ENG(const pki_ca *ca) { return ca->ps->env->engine; }
static sim_time NOW(const pki_ca *ca) { return sim_now(ENG(ca)); }

/* ---- the checkpoint job -------------------------------------------------- */

/* Fills the signatures of view A of job for subtree s into p (making
 * those deferred until now: a certificate carries them). */
static void job_sigs(pki_job *job, int s, mtc_proof *p)
{
    const pki_ca *ca = job->log->ca;
    p->n_sigs = 0;
    for (size_t k = 0; k <= ca->nslots && p->n_sigs < MTC_PROOF_MAX_SIGS; k++) {
        pki_sig *sg = &job->v[0].subsig[s][k];
        if (!sg->by || pki_sig_ready(sg) != MTC_OK)
            continue;
        mtc_subtree_sig *o = &p->sigs[p->n_sigs++];
        o->cosigner_id.p = sg->by->cos.id.b;
        o->cosigner_id.len = sg->by->cos.id.len;
        o->signature.p = sg->bytes;
        o->signature.len = sg->len;
    }
    mtc_proof_sort_sigs(p);
}

static int sub_of(const pki_job *job, uint64_t i)
{
    return i >= job->sub[0].start && i < job->sub[0].end ? 0 : 1;
}

void pki__job_free(pki_job *job)
{
    if (!job)
        return;
    for (int v = 0; v < 2; v++)
        for (size_t k = 0; k <= PKI_MAX_SLOTS; k++) {
            pki_sig_free(&job->v[v].ckpt[k]);
            pki_sig_free(&job->v[v].subsig[0][k]);
            pki_sig_free(&job->v[v].subsig[1][k]);
        }
    pki_creq *r = job->reqs;
    while (r) {
        pki_creq *n = r->next;
        free(r);
        r = n;
    }
    free(job);
}

static void zombie_remove(pki_ca *ca, pki_job *job)
{
    for (size_t i = 0; i < ca->nzombies; i++)
        if (ca->zombies[i] == job) {
            ca->zombies[i] = ca->zombies[--ca->nzombies];
            return;
        }
}

static void job_release(pki_ca *ca, pki_job *job)
{
    if (!job->done || job->pending)
        return;
    sim_engine *e = ENG(ca);
    if (sim_event_pending(&job->timeout_ev))
        sim_cancel(e, &job->timeout_ev);
    if (sim_event_pending(&job->ev))
        sim_cancel(e, &job->ev);
    zombie_remove(ca, job);
    pki__job_free(job);
}

static void run_checkpoint(pki_ca *ca);

/* Keeps the latest cosigned checkpoint of view A as the log's reference. */
static int set_reference(pki_log *l, pki_job *job)
{
    for (size_t i = 0; i < l->nref_sigs; i++)
        pki_sig_free(&l->ref_sigs[i]);
    l->nref_sigs = 0;
    free(l->ref_sigs);
    l->ref_sigs = calloc(l->ca->nslots + 1, sizeof *l->ref_sigs);
    if (!l->ref_sigs)
        return MTC_ERR_NOMEM;
    for (size_t k = 0; k <= l->ca->nslots; k++) {
        const pki_sig *sg = &job->v[0].ckpt[k];
        if (!sg->by)
            continue;
        if (pki_sig_copy(&l->ref_sigs[l->nref_sigs], sg) != MTC_OK)
            return MTC_ERR_NOMEM;
        l->nref_sigs++;
    }
    l->ref_root = job->v[0].root;
    l->ref_size = job->to;
    l->ref_ts = job->ts;
    return MTC_OK;
}

/* A sampled background entry's standalone proof, for the proof-size
 * histogram (background entries have no key, so no certificate). Before
 * the warm-up end the histogram counts nothing, so only the draw is made
 * (the stream stays where it would be) unless the history is eager. */
static int sample_bg_proof(pki_ca *ca, pki_job *job)
{
    pki_log *l = job->log;
    gsl_rng *r = sim_rng_use(PS(ca)->env->rng, &ca->ca_stream);
    uint64_t i = job->from + gsl_rng_uniform_int(r, job->to - job->from);
    if (!PS(ca)->env->eager_history && !sim_metrics_recording(PS(ca)->env->metrics))
        return MTC_OK;
    size_t k = pki__site_lower(l, i);
    if (k < l->nsite && l->site[k]->index == i)
        return MTC_OK; /* a site: its real certificate is already counted */
    mtc_proof_storage st;
    mtc_proof p;
    int rc = pki__fill_inclusion(l, i, job->sub[sub_of(job, i)], &st, &p);
    if (rc != MTC_OK)
        return rc;
    /* only the proof's length is observed: the signatures' lengths, which
     * a fixed-length algorithm knows without signing (an ECDSA one is
     * signed for its length: pki_sig_len) */
    int sub = sub_of(job, i);
    p.n_sigs = 0;
    for (size_t j = 0; j <= ca->nslots && p.n_sigs < MTC_PROOF_MAX_SIGS; j++) {
        pki_sig *sg = &job->v[0].subsig[sub][j];
        if (!sg->by)
            continue;
        size_t sl = pki_sig_len(sg);
        if (sl == 0)
            continue; /* as job_sigs: a signature that cannot be made */
        p.sigs[p.n_sigs].cosigner_id.len = sg->by->cos.id.len;
        p.sigs[p.n_sigs++].signature.len = sl;
    }
    size_t len = mtc_proof_len(&p);
    if (len > sizeof PS(ca)->certbuf)
        return MTC_ERR_LIMIT; /* what encoding it would have said */
    sim_hist_observe(PS(ca)->m.proof_bytes, ca->index, (double)len);
    return MTC_OK;
}

/* View A of the job reached its quorum: certificates are ready. */
static int job_complete(pki_ca *ca, pki_job *job)
{
    pki_state *ps = PS(ca);
    pki_log *l = job->log;
    sim_time now = NOW(ca);
    job->done = 1;
    /* How long a stalled checkpoint waited for its quorum: a count of
     * failures says as much of a 2-hour outage as of an 8-hour one. */
    if (job->quorum_failed_counted)
        sim_hist_observe(ps->m.quorum_stall, ca->index,
                         sim_time_to_sec(now - job->started));
    l->done_size = job->to;
    /* An entry waits at most one checkpoint interval for its job, which
     * counts a quorum failure after quorum_timeout: a longer delay means
     * cosigning stalled it (its own job, or the one it queued behind),
     * the share of requests an outage of the quorum delays. */
    sim_time stall = ca->cfg->checkpoint_interval + ca->cfg->quorum_timeout;
    for (uint64_t i = job->from; i < job->to; i++) {
        sim_time d = now - pki__arr_get(l, i);
        sim_hist_observe(ps->m.delay_standalone, ca->index, sim_time_to_sec(d));
        if (d > stall) {
            sim_counter_add(ps->m.stalled, ca->index, 1);
            sim_hist_observe(ps->m.stall_delay, ca->index, sim_time_to_sec(d));
        }
    }
    int rc = set_reference(l, job);
    if (rc != MTC_OK)
        return rc;
    uint64_t ckpt_bytes = 8 + MTC_HASH_LEN + 8;
    for (size_t i = 0; i < l->nref_sigs; i++)
        ckpt_bytes += l->ref_sigs[i].by->cos.id.len + pki_sig_len(&l->ref_sigs[i]);
    sim_counter_add(ps->m.monitor_bytes, ca->index,
                    (int64_t)(pki_log_bytes(l, job->from, job->to) + ckpt_bytes));
    if ((rc = sample_bg_proof(ca, job)) != MTC_OK)
        return rc;
    for (size_t k = pki__site_lower(l, job->from); k < l->nsite; k++) {
        pki_site_req *s = l->site[k];
        if (s->index >= job->to)
            break;
        mtc_proof_storage st;
        mtc_proof p;
        int sub = sub_of(job, s->index);
        if ((rc = pki__fill_inclusion(l, s->index, job->sub[sub], &st,
                                      &p)) != MTC_OK)
            return rc;
        job_sigs(job, sub, &p);
        s->standalone_done = 1;
        if ((rc = pki__build_cert(ca, s, &p, SIM_CERT_STANDALONE, 0)) != MTC_OK)
            return rc;
    }
    if (l->failed) {
        pki__landmark_never(ca, l, job->from);
        pki__arr_drop(l, job->to);
    } else {
        int alloc = 0;
        rc = mtc_landmarks_allocate(l->lm, pki__lm_interval_number(ca), job->to,
                                    &alloc);
        if (rc != MTC_OK)
            return rc;
        if (alloc && (rc = pki__landmark_added(ca, l)) != MTC_OK)
            return rc;
        if (alloc && ca->cfg->staple && (rc = pki_staple_refresh(ca, l)) != MTC_OK)
            return rc;
        if (alloc && ca->cfg->ldp > 0 && (rc = pki_ldp_refresh(ca, l)) != MTC_OK)
            return rc;
    }
    /* The caller releases the job (job_release) once nothing refers to
     * it; until then it waits among the zombies. */
    if (ca->job == job)
        ca->job = NULL;
    if (ca->nzombies == ca->zombie_cap) {
        size_t nc = ca->zombie_cap ? 2 * ca->zombie_cap : 4;
        pki_job **z = realloc(ca->zombies, nc * sizeof *z);
        if (!z)
            return MTC_ERR_NOMEM;
        ca->zombies = z;
        ca->zombie_cap = nc;
    }
    ca->zombies[ca->nzombies++] = job;
    pki_ca_gauges(ca);
    if (ca->tick_missed) {
        ca->tick_missed = 0;
        run_checkpoint(ca);
    }
    return MTC_OK;
}

static void resend_fire(sim_engine *sim, sim_event *ev)
{
    (void)sim;
    pki_creq *r = ev->arg;
    pki_job *job = r->job;
    pki_ca *ca = job->log->ca;
    if (job->done) {
        job->pending--;
        job_release(ca, job);
        return;
    }
    pki_cosigner_send(PS(ca), r);
}

void pki_job_response(pki_job *job, size_t slot, int view, int ok, int retry)
{
    pki_ca *ca = job->log->ca;
    pki_creq *r = NULL;
    for (pki_creq *q = job->reqs; q; q = q->next)
        if (q->slot == slot && q->view == view)
            r = q;
    if (retry && !job->done && r) {
        sim_event_init(&r->ev, resend_fire, r);
        if (sim_schedule_in(ENG(ca), &r->ev, ca->cfg->cosign_retry) == MTC_OK)
            return; /* still pending */
    }
    job->pending--;
    if (ok) {
        job->v[view].nsigned++;
        if (!job->v[view].quorum && job->v[view].nsigned >= ca->quorum) {
            job->v[view].quorum = 1;
            if (view == 1)
                sim_counter_add(PS(ca)->m.split_quorum, ca->index, 1);
            else if (!job->done)
                job_complete(ca, job);
        }
    }
    job_release(ca, job);
}

static void timeout_fire(sim_engine *sim, sim_event *ev)
{
    (void)sim;
    pki_job *job = ev->arg;
    if (!job->done) {
        sim_counter_add(PS(job->log->ca)->m.quorum_failures,
                        job->log->ca->index, 1);
        job->quorum_failed_counted = 1;
    }
}

static void send_fire(sim_engine *sim, sim_event *ev)
{
    (void)sim;
    pki_job *job = ev->arg;
    pki_ca *ca = job->log->ca;
    if (ca->quorum == 0) {
        job_complete(ca, job);
        job_release(ca, job);
        return;
    }
    for (size_t j = 0; j < ca->nslots; j++)
        for (int o = 0; o < job->nviews; o++) {
            int view = job->nviews == 1 ? 0
                       : ((int)j < job->fork_first_k ? 1 - o : o);
            pki_creq *r = calloc(1, sizeof *r);
            if (!r)
                continue; /* out of memory: this cosigner is not asked */
            r->job = job;
            r->slot = j;
            r->view = view;
            r->next = job->reqs;
            job->reqs = r;
            job->pending++;
            pki_cosigner_send(PS(ca), r);
        }
}

/* Signs the checkpoint and subtrees of view v with the CA key. */
static int ca_sign_view(pki_ca *ca, pki_job *job, int v)
{
    pki_state *ps = PS(ca);
    pki_log *l = job->log;
    int rc = pki_sign_checkpoint(ps, &ca->signer, &l->log_id, job->ts, job->to,
                                 &job->v[v].root, &job->v[v].ckpt[0]);
    for (int s = 0; s < 2 && rc == MTC_OK; s++)
        if (job->sub[s].end > job->sub[s].start)
            rc = pki_sign_subtree(ps, &ca->signer, &l->log_id, job->sub[s].start,
                                  job->sub[s].end, &job->v[v].sub_hash[s],
                                  &job->v[v].subsig[s][0]);
    return rc;
}

static int view_hashes(pki_job *job, int v)
{
    mtc_node_source src;
    pki_view_source(&job->v[v].src, &src);
    int rc = mtc_subtree_hash(&src, 0, job->to, &job->v[v].root);
    for (int s = 0; s < 2 && rc == MTC_OK; s++)
        if (job->sub[s].end > job->sub[s].start)
            rc = mtc_subtree_hash(&src, job->sub[s].start, job->sub[s].end,
                                  &job->v[v].sub_hash[s]);
    return rc;
}

static void run_checkpoint(pki_ca *ca)
{
    pki_state *ps = PS(ca);
    pki_log *l = pki_ca_current(ca);
    if (pki_ca_drain(ca) != MTC_OK)
        return;
    uint64_t to = pki_log_size(l), from = l->ckpt_size;
    if (to == from)
        return;
    /* the checkpoint's size is where roots and subtrees are read: with
     * synthetic history the nodes over its last entry become real */
    if (pki_log_synthetic(l) && mtc_synth_tree_cut(l->stree) != MTC_OK)
        return;
    sim_time now = NOW(ca);
    pki_job *job = calloc(1, sizeof *job);
    if (!job)
        return;
    pki_batch *b = pki__open_batch(l);
    b->closed = now;
    uint64_t cum = b->cum_bytes;
    if (pki__batch_open(l, to, now, cum) != MTC_OK) {
        free(job);
        b->closed = 0;
        return;
    }
    l->ckpt_size = to;
    sim_prof *pf = sim_engine_prof(ENG(ca));
    if (pf) {
        sim_prof_work(pf, SIM_WORK_CKPT_SIGS + ca->cfg->algorithm, 1);
        for (size_t k = 0; k < ca->quorum && k < ca->nslots; k++)
            sim_prof_work(pf, SIM_WORK_CKPT_SIGS + ca->slot[k].cos->cfg->algorithm, 1);
    }
    sim_counter_add(ps->m.checkpoints, ca->index, 1);
    job->log = l;
    job->from = from;
    job->to = to;
    job->started = now;
    int64_t ts = ps->wc->epoch * 1000 + now / SIM_MS;
    job->ts = ts > 0 ? (uint64_t)ts : 1;
    mtc_covering_subtrees(from, to, &job->sub[0], &job->sub[1]);
    job->nviews = 1;
    job->v[0].src.log = l;
    if (ca->split_pending) {
        /* View B: the same log with its first new entry replaced by a
         * mis-issued one (a real entry for another name). */
        job->nviews = 2;
        job->fork_first_k = ca->split_pending - 1;
        ca->split_pending = 0;
        pki_view_src *f = &job->v[1].src;
        f->log = l;
        f->forked = 1;
        f->fork_index = from;
        mtc_tbs_entry e;
        int64_t nb = pki_unix(ps, now);
        if (mtc_tbs_entry_tls_server(&e, &ps->scratch,
                                     (mtc_slice){ca->issuer_name, ca->issuer_len},
                                     nb, nb + ca->cfg->lifetime / SIM_SEC,
                                     "victim.example", ca->bg_spki,
                                     ca->bg_spki_len) != MTC_OK ||
            mtc_log_entry_leaf_hash((mtc_slice){NULL, 0}, &e, &f->fork_leaf) !=
                MTC_OK)
            job->nviews = 1;
    }
    for (int v = 0; v < job->nviews; v++)
        if (view_hashes(job, v) != MTC_OK || ca_sign_view(ca, job, v) != MTC_OK) {
            pki__job_free(job);
            return;
        }
    ca->job = job;
    sim_event_init(&job->ev, send_fire, job);
    sim_event_init(&job->timeout_ev, timeout_fire, job);
    gsl_rng *r = sim_rng_use(ps->env->rng, &ca->ca_stream);
    sim_schedule_in(ENG(ca), &job->ev,
                    sim_dist_sample_duration(ca->cfg->sign_latency, r));
    sim_schedule_in(ENG(ca), &job->timeout_ev, ca->cfg->quorum_timeout);
}

void pki__checkpoint_prof(sim_prof *pf)
{
    sim_prof_handler(pf, send_fire, SIM_PART_LOG);
    sim_prof_handler(pf, resend_fire, SIM_PART_LOG);
    sim_prof_handler(pf, timeout_fire, SIM_PART_LOG);
}

void pki__tick_fire(sim_engine *sim, sim_event *ev)
{
    pki_ca *ca = ev->arg;
    ca->next_tick += ca->cfg->checkpoint_interval;
    sim_schedule(sim, &ca->tick_ev, ca->next_tick);
    if (ca->job) {
        ca->tick_missed = 1;
        return;
    }
    run_checkpoint(ca);
}

/* ---- view sources (honest and forked) ---------------------------------- */

static int view_range(void *ctx, uint64_t start, uint64_t end, mtc_hash *out)
{
    pki_view_src *v = ctx;
    if (!v->forked || v->fork_index < start || v->fork_index >= end) {
        mtc_node_source t;
        pki_log_source(v->log, &t);
        return t.range_hash(t.ctx, start, end, out);
    }
    if (end - start == 1) {
        *out = v->fork_leaf;
        return MTC_OK;
    }
    uint64_t n = end - start, k = 1;
    while (2 * k < n)
        k *= 2;
    mtc_hash a, b;
    int rc = view_range(ctx, start, start + k, &a);
    if (rc == MTC_OK)
        rc = view_range(ctx, start + k, end, &b);
    if (rc == MTC_OK)
        mtc_hash_node(&a, &b, out);
    return rc;
}

void pki_view_source(pki_view_src *v, mtc_node_source *src)
{
    src->range_hash = view_range;
    src->ctx = v;
    src->size = pki_log_size(v->log);
}
