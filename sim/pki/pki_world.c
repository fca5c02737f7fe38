/*
 * pki_world.c - the PKI module: wiring of CAs, cosigners and update
 * services into the world (start, actions, live parameters, final gauges),
 * the PKI metrics, signing with CPU-time measurement, and the public
 * queries of sim/world.h that the web side uses.
 *
 * Every shard runs this module identically (same keys from the seed, same
 * events), so all PKI metrics are SIM_METRIC_REPLICATED except
 * sign_cpu_us: measured CPU time differs between processes, so only shard
 * 0 records it and the merged (summed) value is shard 0's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mtc/error.h"
#include "pki_internal.h"
#include "sim/status.h"
#include "sim/world_module.h"

#define REPL (SIM_METRIC_REPLICATED)
/* The longest outage an action may ask for: the longest run (100 years);
 * an infinite one overflowed the end time. */
#define PKI_OUTAGE_MAX SIM_WORLD_ACTION_DURATION_MAX
#define REPL_SERIES (SIM_METRIC_REPLICATED | SIM_METRIC_SERIES)

pki_state *pki_state_of(const sim_world *w)
{
    return sim_world_module_state(w, &sim_pki_module);
}

int64_t pki_unix(const pki_state *ps, sim_time t)
{
    return ps->wc->epoch + t / SIM_SEC;
}

void pki_key_seed(const pki_state *ps, uint64_t id, uint8_t seed[32])
{
    uint64_t s = sim_rng_seed(ps->env->rng), r = sim_rng_replication(ps->env->rng);
    for (int i = 0; i < 4; i++) {
        uint64_t x = sim_rng_draw_at(s, r, PKI_STREAM_KEYS, id, (uint64_t)i);
        for (int b = 0; b < 8; b++)
            seed[8 * i + b] = (uint8_t)(x >> (8 * b));
    }
}

int pki_signer_init(pki_state *ps, pki_signer *s, mtc_sig_alg alg,
                    const mtc_taid *id, uint64_t key_id, size_t cohort)
{
    uint8_t seed[32];
    pki_key_seed(ps, key_id, seed);
    memset(s, 0, sizeof *s);
    int rc = mtc_sig_key_from_seed(alg, seed, &s->key);
    if (rc != MTC_OK)
        return rc;
    s->alg = alg;
    s->cos.id = *id;
    s->cos.key = s->key;
    s->metric_cohort = cohort;
    return mtc_sig_key_public(s->key, s->pk, &s->pk_len);
}

void pki_signer_free(pki_signer *s)
{
    mtc_sig_key_free(s->key);
    s->key = NULL;
}

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The measured CPU time of a signature made, into sign_cpu_us (shard 0
 * only: it is measured, not replayed). */
static void account_cpu(pki_state *ps, pki_signer *s, uint64_t ns)
{
    if (!ps->record_cpu)
        return;
    s->cpu_ns_pending += ns;
    uint64_t us = s->cpu_ns_pending / 1000;
    if (us) {
        sim_counter_add(ps->m.sign_cpu, s->metric_cohort, (int64_t)us);
        s->cpu_ns_pending -= us * 1000;
    }
}

static void account(pki_state *ps, pki_signer *s, uint64_t ns)
{
    sim_prof_work(sim_engine_prof(ps->env->engine), SIM_WORK_SIGNATURES, 1);
    sim_counter_add(ps->m.signatures, s->metric_cohort, 1);
    account_cpu(ps, s, ns);
}

/* What a deferred signature signs: a checkpoint (a = timestamp, b = tree
 * size, h = root) or a subtree (a = start, b = end, h = its hash). */
enum { MSG_CHECKPOINT = 0, MSG_SUBTREE = 1 };

struct pki_sig_msg {
    pki_state *ps;
    int kind;
    mtc_taid log_id;
    uint64_t a, b;
    mtc_hash h;
    int window;                 /* due while metrics record: its CPU
                                   counts in sign_cpu_us when signed */
};

static int sig_alloc(pki_sig *out, const pki_signer *s)
{
    const mtc_sig_info *info = mtc_sig_info_get(s->alg);
    memset(out, 0, sizeof *out);
    out->bytes = malloc(info->sig_max);
    if (!out->bytes)
        return MTC_ERR_NOMEM;
    out->by = s;
    return MTC_OK;
}

/* The real signing of m by s into out (allocated by sig_alloc). */
static int sig_make(const pki_signer *s, const pki_sig_msg *m, pki_sig *out)
{
    return m->kind == MSG_SUBTREE
               ? mtc_cosign_subtree(&s->cos, &m->log_id, m->a, m->b, &m->h,
                                    out->bytes, &out->len)
               : mtc_cosign_checkpoint(&s->cos, &m->log_id, m->a, m->b, &m->h,
                                       out->bytes, &out->len);
}

/* A signature is made only when something reads it (a certificate's
 * cosignatures, a reference checkpoint the update service verifies or
 * ships, a staple, an ECDSA signature's length): signing is deterministic,
 * so it has the bytes it would have had, and the `signatures` counter
 * counts it when it is due, as if made then. Before the warm-up end no
 * metric counts it at all. Signatures nobody reads (most subtree
 * signatures of checkpoints without a sampled site) are never made. */
static int sig_defer(const pki_state *ps)
{
    return !ps->env->eager_history;
}

static int sign_msg(pki_state *ps, pki_signer *s, const pki_sig_msg *m,
                    pki_sig *out)
{
    if (sig_defer(ps)) {
        memset(out, 0, sizeof *out);
        out->pending = malloc(sizeof *out->pending);
        if (!out->pending)
            return MTC_ERR_NOMEM;
        *out->pending = *m;
        out->pending->window = sim_metrics_recording(ps->env->metrics);
        out->by = s;
        if (out->pending->window)
            sim_counter_add(ps->m.signatures, s->metric_cohort, 1);
        return MTC_OK;
    }
    int rc = sig_alloc(out, s);
    if (rc != MTC_OK)
        return rc;
    sim_prof *pf = sim_engine_prof(ps->env->engine);
    int prev = sim_prof_enter(pf, SIM_PART_SIGN);
    uint64_t t0 = cpu_ns();
    rc = sig_make(s, m, out);
    uint64_t t1 = cpu_ns();
    sim_prof_leave(pf, prev);
    if (rc != MTC_OK) {
        pki_sig_free(out);
        return rc;
    }
    account(ps, s, t1 - t0);
    return MTC_OK;
}

int pki_sign_subtree(pki_state *ps, pki_signer *s, const mtc_taid *log_id,
                     uint64_t start, uint64_t end, const mtc_hash *h,
                     pki_sig *out)
{
    pki_sig_msg m = {ps, MSG_SUBTREE, *log_id, start, end, *h, 0};
    return sign_msg(ps, s, &m, out);
}

int pki_sign_checkpoint(pki_state *ps, pki_signer *s, const mtc_taid *log_id,
                        uint64_t ts, uint64_t size, const mtc_hash *root,
                        pki_sig *out)
{
    pki_sig_msg m = {ps, MSG_CHECKPOINT, *log_id, ts, size, *root, 0};
    return sign_msg(ps, s, &m, out);
}

int pki_sig_ready(pki_sig *s)
{
    if (!s->by)
        return MTC_ERR_ARG;
    if (!s->pending)
        return MTC_OK;
    pki_sig_msg *m = s->pending;
    const mtc_sig_info *info = mtc_sig_info_get(s->by->alg);
    uint8_t *b = malloc(info->sig_max);
    if (!b)
        return MTC_ERR_NOMEM;
    sim_prof *pf = sim_engine_prof(m->ps->env->engine);
    int prev = sim_prof_enter(pf, SIM_PART_SIGN);
    pki_sig tmp = {s->by, b, 0, NULL};
    uint64_t t0 = cpu_ns();
    int rc = sig_make(s->by, m, &tmp);
    uint64_t t1 = cpu_ns();
    sim_prof_leave(pf, prev);
    if (rc != MTC_OK) {
        free(b);
        return rc;
    }
    sim_prof_work(pf, SIM_WORK_SIGNATURES, 1);
    if (m->window) /* the signer's CPU accumulator is the signer's own */
        account_cpu(m->ps, (pki_signer *)s->by, t1 - t0);
    s->bytes = b;
    s->len = tmp.len;
    free(m);
    s->pending = NULL;
    return MTC_OK;
}

size_t pki_sig_len(pki_sig *s)
{
    if (!s->by)
        return 0;
    if (s->pending && s->by->alg != MTC_SIG_ECDSA_P256)
        return mtc_sig_info_get(s->by->alg)->sig_max;  /* fixed length */
    return pki_sig_ready(s) == MTC_OK ? s->len : 0;
}

int pki_sig_copy(pki_sig *dst, const pki_sig *src)
{
    memset(dst, 0, sizeof *dst);
    if (!src->by)
        return MTC_OK;
    if (src->pending) {
        dst->pending = malloc(sizeof *dst->pending);
        if (!dst->pending)
            return MTC_ERR_NOMEM;
        *dst->pending = *src->pending;
    } else {
        dst->bytes = malloc(src->len ? src->len : 1);
        if (!dst->bytes)
            return MTC_ERR_NOMEM;
        memcpy(dst->bytes, src->bytes, src->len);
        dst->len = src->len;
    }
    dst->by = src->by;
    return MTC_OK;
}

void pki_sig_free(pki_sig *s)
{
    free(s->bytes);
    free(s->pending);
    s->bytes = NULL;
    s->pending = NULL;
    s->len = 0;
    s->by = NULL;
}

/* ---- metrics ---- */

static int labels(sim_metric *mt, const char *const *l, size_t n)
{
    return sim_metric_set_cohort_labels(mt, l, n);
}

static int make_metrics(pki_state *ps, char *err, size_t errlen)
{
    sim_metrics *M = ps->env->metrics;
    pki_metrics *m = &ps->m;
    size_t nca = ps->nca ? ps->nca : 1, ncos = ps->ncos ? ps->ncos : 1;
    size_t nsig = ps->nca + ps->ncos ? ps->nca + ps->ncos : 1;
    const char **calab = calloc(nca, sizeof *calab);
    const char **coslab = calloc(ncos, sizeof *coslab);
    const char **siglab = calloc(nsig, sizeof *siglab);
    int rc = MTC_ERR_NOMEM;
    if (!calab || !coslab || !siglab)
        goto done;
    for (size_t i = 0; i < nca; i++)
        calab[i] = ps->nca ? ps->ca[i].cfg->name : "none";
    for (size_t i = 0; i < ncos; i++)
        coslab[i] = ps->ncos ? ps->cos[i].cfg->name : "none";
    for (size_t i = 0; i < ps->nca; i++)
        siglab[i] = ps->ca[i].cfg->name;
    for (size_t i = 0; i < ps->ncos; i++)
        siglab[ps->nca + i] = ps->cos[i].cfg->name;
    if (!ps->nca && !ps->ncos)
        siglab[0] = "none";
#define CHECK(x)                                                         \
    do {                                                                 \
        if ((rc = (x)) != MTC_OK) {                                      \
            snprintf(err, errlen, "pki metrics: %s", sim_strerror(rc));  \
            goto done;                                                   \
        }                                                                \
    } while (0)
#define HIST(field, name, unit, n, lo, hi, pd, lab)                            \
    do {                                                                       \
        CHECK(sim_metrics_histogram(M, name, unit, n, REPL, lo, hi, pd, &m->field)); \
        CHECK(labels(m->field, lab, n));                                       \
    } while (0)
#define CTR(field, name, unit, n, flags, lab)                                  \
    do {                                                                       \
        CHECK(sim_metrics_counter(M, name, unit, n, flags, &m->field));        \
        CHECK(labels(m->field, lab, n));                                       \
    } while (0)
#define GAUGE(field, name, unit, n, lab)                                       \
    do {                                                                       \
        CHECK(sim_metrics_gauge(M, name, unit, n, REPL_SERIES, &m->field));    \
        CHECK(labels(m->field, lab, n));                                       \
    } while (0)
    HIST(delay_standalone, "issuance_delay_standalone", "s", nca, 1e-3, 1e8, 20, calab);
    HIST(delay_landmark, "issuance_delay_landmark", "s", nca, 1e-3, 1e8, 20, calab);
    CTR(log_entries, "log_entries", "entries", nca, REPL_SERIES, calab);
    CTR(signatures, "signatures", "signatures", nsig, REPL_SERIES, siglab);
    CTR(sign_cpu, "sign_cpu_us", "us", nsig, SIM_METRIC_SERIES, siglab);
    HIST(proof_bytes, "standalone_proof_bytes", "bytes", nca, 1, 1e6, 50, calab);
    HIST(lm_subtree_size, "landmark_subtree_size", "entries", nca, 1, 1e15, 10, calab);
    GAUGE(storage, "log_storage_bytes", "bytes", nca, calab);
    GAUGE(rp_state, "rp_state_bytes", "bytes", nca, calab);
    {
        static const char *const none[] = {"all"};
        HIST(pub_bytes, "update_publication_bytes", "bytes", 1, 1, 1e10, 20, none);
        HIST(snapshot_bytes, "update_snapshot_bytes", "bytes", 1, 1, 1e10, 20, none);
    }
    CTR(mirror_bytes, "mirror_fetch_bytes", "bytes", ncos, REPL_SERIES, coslab);
    CTR(monitor_bytes, "monitor_fetch_bytes", "bytes", nca, REPL_SERIES, calab);
    CTR(quorum_failures, "cosign_quorum_failures", "checkpoints", nca, REPL_SERIES, calab);
    HIST(quorum_stall, "cosign_quorum_stall", "s", nca, 1e-3, 1e8, 20, calab);
    CTR(quorum_unreach, "cosign_quorum_unreachable_ms", "ms", nca, REPL_SERIES, calab);
    CTR(stalled, "issuance_stalled", "entries", nca, REPL_SERIES, calab);
    HIST(stall_delay, "issuance_stall_delay", "s", nca, 1e-3, 1e8, 20, calab);
    CTR(refusals, "cosign_refusals", "requests", ncos, REPL_SERIES, coslab);
    CTR(unavailable, "cosign_unavailable", "requests", ncos, REPL_SERIES, coslab);
    CTR(landmarks, "landmarks_allocated", "landmarks", nca, REPL_SERIES, calab);
    CTR(checkpoints, "checkpoints", "checkpoints", nca, REPL_SERIES, calab);
    CTR(verify_failures, "update_verify_failures", "checks", nca, REPL_SERIES, calab);
    HIST(lm_pub_delay, "landmark_publication_delay", "s", nca, 1e-3, 1e8, 20, calab);
    HIST(rev_pub_delay, "revocation_publication_delay", "s", nca, 1e-3, 1e8, 20, calab);
    CTR(rollovers, "log_rollovers", "logs", nca, REPL_SERIES, calab);
    CTR(split_quorum, "split_view_quorum", "checkpoints", nca, REPL, calab);
    CTR(lm_never, "landmark_never", "entries", nca, REPL, calab);
#undef CHECK
#undef HIST
#undef CTR
#undef GAUGE
    rc = MTC_OK;
done:
    free(calab);
    free(coslab);
    free(siglab);
    return rc;
}

/* ---- module hooks ---- */

static void pki_destroy(void *state)
{
    pki_state *ps = state;
    if (!ps)
        return;
    for (size_t i = 0; i < ps->nus; i++)
        pki_update_free(&ps->us[i]);
    for (size_t i = 0; i < ps->nca; i++)
        pki_ca_free(&ps->ca[i]);
    for (size_t i = 0; i < ps->ncos; i++)
        pki_cosigner_free(&ps->cos[i]);
    free(ps->us);
    free(ps->ca);
    free(ps->cos);
    free(ps);
}

static int pki_start(sim_world *w, void **state, char *err, size_t errlen)
{
    pki_state *ps = calloc(1, sizeof *ps);
    if (!ps)
        return MTC_ERR_NOMEM;
    *state = ps; /* the world frees it through pki_destroy, even on error */
    ps->w = w;
    ps->env = sim_world_get_env(w);
    ps->wc = sim_world_get_config(w);
    ps->record_cpu = ps->env->shard == 0;
    size_t n;
    void *const *cfg = sim_world_entities(w, "cosigner", &n);
    ps->ncos = n;
    ps->cos = calloc(n ? n : 1, sizeof *ps->cos);
    cfg = sim_world_entities(w, "cosigner", &n);
    if (!ps->cos)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        ps->cos[i].index = i;
        ps->cos[i].cfg = cfg[i];
        ps->cos[i].ps = ps;
    }
    cfg = sim_world_entities(w, "ca", &n);
    ps->nca = n;
    ps->ca = calloc(n ? n : 1, sizeof *ps->ca);
    if (!ps->ca)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        ps->ca[i].index = i;
        ps->ca[i].cfg = cfg[i];
        ps->ca[i].ps = ps;
    }
    cfg = sim_world_entities(w, "update_service", &n);
    ps->nus = n;
    ps->us = calloc(n ? n : 1, sizeof *ps->us);
    if (!ps->us)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        ps->us[i].index = i;
        ps->us[i].cfg = cfg[i];
        ps->us[i].ps = ps;
    }
    int rc = make_metrics(ps, err, errlen);
    if (rc != MTC_OK)
        return rc;
    for (size_t i = 0; i < ps->ncos; i++)
        if ((rc = pki_cosigner_setup(ps, &ps->cos[i], err, errlen)) != MTC_OK)
            return rc;
    for (size_t i = 0; i < ps->nca; i++)
        if ((rc = pki_ca_setup(ps, &ps->ca[i], err, errlen)) != MTC_OK)
            return rc;
    /* Trust anchor IDs must be distinct across CAs and cosigners. */
    for (size_t i = 0; i < ps->nca + ps->ncos; i++)
        for (size_t j = i + 1; j < ps->nca + ps->ncos; j++) {
            const pki_signer *a = i < ps->nca ? &ps->ca[i].signer
                                              : &ps->cos[i - ps->nca].signer;
            const pki_signer *b = j < ps->nca ? &ps->ca[j].signer
                                              : &ps->cos[j - ps->nca].signer;
            if (mtc_taid_equal(&a->cos.id, &b->cos.id)) {
                snprintf(err, errlen, "id: two entities share a trust anchor ID");
                return SIM_ERR_CONFIG;
            }
        }
    for (size_t i = 0; i < ps->nus; i++)
        if ((rc = pki_update_setup(ps, &ps->us[i], err, errlen)) != MTC_OK)
            return rc;
    for (size_t i = 0; i < ps->ncos; i++)
        if ((rc = pki_cosigner_start(ps, &ps->cos[i])) != MTC_OK)
            goto sched;
    for (size_t i = 0; i < ps->nca; i++)
        if ((rc = pki_ca_start(ps, &ps->ca[i])) != MTC_OK) {
            if (rc == SIM_ERR_STATE) {
                snprintf(err, errlen, "interrupted while building CA %s's log of log_age %.6g s",
                         ps->ca[i].cfg->name, sim_time_to_sec(ps->ca[i].cfg->log_age));
                return rc;
            }
            goto sched;
        }
    for (size_t i = 0; i < ps->nus; i++)
        if ((rc = pki_update_start(ps, &ps->us[i])) != MTC_OK)
            goto sched;
    return MTC_OK;
sched:
    snprintf(err, errlen, "pki start: %s", sim_strerror(rc));
    return rc;
}

static void outage_end_cos(sim_engine *sim, void *arg)
{
    (void)sim;
    pki_cosigner_set_manual(arg, 0);
}

static void outage_end_us(sim_engine *sim, void *arg)
{
    (void)sim;
    pki_update_set_manual(arg, 0);
}

static int pki_act(sim_world *w, void *state, const sim_world_action *a,
                   const char *kind, size_t index, const double *args,
                   size_t nargs, char *err, size_t errlen)
{
    (void)w;
    (void)kind;
    pki_state *ps = state;
    const char *n = a->name;
    int rc = MTC_OK;
    if (!strcmp(n, "cosigner_down") || !strcmp(n, "cosigner_up")) {
        pki_cosigner_set_manual(&ps->cos[index], n[9] == 'd');
    } else if (!strcmp(n, "cosigner_outage") || !strcmp(n, "update_outage")) {
        /* finite and bounded: now + an infinite outage overflowed */
        if (!(args[0] > 0 && args[0] <= PKI_OUTAGE_MAX)) {
            snprintf(err, errlen, "%s: duration_s must be in (0, %g] (an "
                                  "outage without end: %s)", n, PKI_OUTAGE_MAX,
                     n[0] == 'c' ? "cosigner_down" : "update_down");
            return SIM_ERR_CONFIG;
        }
        sim_time at = sim_now(ps->env->engine) + sim_time_from_sec(args[0]);
        if (n[0] == 'c') {
            pki_cosigner_set_manual(&ps->cos[index], 1);
            rc = sim_call_at(ps->env->engine, at, outage_end_cos, &ps->cos[index]);
        } else {
            pki_update_set_manual(&ps->us[index], 1);
            rc = sim_call_at(ps->env->engine, at, outage_end_us, &ps->us[index]);
        }
    } else if (!strcmp(n, "ca_unreachable")) {
        if (!(args[0] > 0 && args[0] <= PKI_OUTAGE_MAX)) {
            snprintf(err, errlen, "ca_unreachable: duration_s must be in (0, %g]",
                     PKI_OUTAGE_MAX);
            return SIM_ERR_CONFIG;
        }
        rc = pki_ca_unreachable(ps, index, args[0]);
    } else if (!strcmp(n, "update_down") || !strcmp(n, "update_up")) {
        pki_update_set_manual(&ps->us[index], n[7] == 'd');
    } else if (!strcmp(n, "revoke_range")) {
        pki_ca *ca = &ps->ca[index];
        /* written so that NaN fails every test (casts of NaN are undefined) */
        if (!(args[0] >= 0 && args[1] >= args[0] && args[1] < 281474976710655.0)) {
            snprintf(err, errlen, "revoke_range: need 0 <= first <= last < 2^48");
            return SIM_ERR_CONFIG;
        }
        if (nargs > 2 && !(args[2] >= 1 && args[2] <= 65535)) {
            snprintf(err, errlen, "revoke_range: log_number must be an integer "
                                  "in 1..65535");
            return SIM_ERR_CONFIG;
        }
        uint64_t log = nargs > 2 ? (uint64_t)args[2]
                                 : pki_ca_current(ca)->number;
        rc = pki_ca_revoke(ca, log, (uint64_t)args[0], (uint64_t)args[1]);
        if (rc != MTC_OK) {
            snprintf(err, errlen, "revoke_range: log %llu is not alive",
                     (unsigned long long)log);
            return SIM_ERR_CONFIG;
        }
    } else if (!strcmp(n, "log_failure")) {
        rc = pki_ca_log_failure(&ps->ca[index]);
        if (rc == MTC_ERR_LIMIT) {
            snprintf(err, errlen, "log_failure: too many live logs");
            return SIM_ERR_CONFIG;
        }
    } else if (!strcmp(n, "split_view")) {
        pki_ca *ca = &ps->ca[index];
        if (!(args[0] >= 0 && args[0] <= (double)ca->nslots)) {
            snprintf(err, errlen, "split_view: k must be 0..%zu", ca->nslots);
            return SIM_ERR_CONFIG;
        }
        pki_ca_split_view(ca, (unsigned)args[0]);
    }
    if (rc != MTC_OK)
        snprintf(err, errlen, "%s: %s", n, sim_strerror(rc));
    return rc;
}

static int pki_set(sim_world *w, void *state, const char *kind, size_t index,
                   const sim_param_desc *d, double value, char *err,
                   size_t errlen)
{
    (void)w;
    pki_state *ps = state;
    int rc = SIM_ERR_CONFIG;
    if (!strcmp(kind, "ca"))
        rc = pki_ca_set(&ps->ca[index], d->name, value);
    else if (!strcmp(kind, "update_service") &&
             !strcmp(d->name, "fetch_interval"))
        rc = pki_update_set_fetch_interval(&ps->us[index],
                                           sim_time_from_sec(value));
    if (rc == SIM_ERR_CONFIG)
        snprintf(err, errlen, "set: %s: not a live parameter of %s", d->name,
                 kind);
    else if (rc != MTC_OK)
        snprintf(err, errlen, "set: %s: %s", d->name, sim_strerror(rc));
    return rc;
}

static void pki_finish(sim_world *w, void *state)
{
    (void)w;
    pki_state *ps = state;
    sim_time end = sim_now(ps->env->engine);
    if (end > ps->wc->duration)
        end = ps->wc->duration;
    for (size_t i = 0; i < ps->nca; i++) {
        pki_ca_gauges(&ps->ca[i]);
        pki_quorum_close(&ps->ca[i], end);
    }
}

static const sim_param_schema *const pki_kinds[] = {
    &sim_ca_schema, &sim_cosigner_schema, &sim_update_service_schema};

/* What a revocation keeps: the CA's entry (24 bytes, up to twice that as
 * its list grows), its copy and revoked range in the update service's
 * newest version (40 bytes, the same), and the relying parties' range. */
#define REVOCATION_BYTES 256

/* The PKI's what-if actions (sim/pki.h lists them); the last field is
 * what one call may keep until the run ends (sim_world_action.holds). */
static const sim_world_action pki_actions[] = {
    {"cosigner_down", "cosigner", 0, 0, "",
     "take the cosigner down until cosigner_up (scheduled outage)", "", 0},
    {"cosigner_up", "cosigner", 0, 0, "", "end a cosigner_down outage", "", 0},
    {"cosigner_outage", "cosigner", 1, 1, "duration_s",
     "cosigner down now, up after duration_s", "d", SIM_WORLD_EVENT_BYTES},
    {"update_down", "update_service", 0, 0, "",
     "update service stops fetching and publishing", "", 0},
    {"update_up", "update_service", 0, 0, "", "end an update_down outage", "", 0},
    {"update_outage", "update_service", 1, 1, "duration_s",
     "update service down now, up after duration_s", "d",
     SIM_WORLD_EVENT_BYTES},
    {"revoke_range", "ca", 2, 3, "first_index last_index [log_number]",
     "revoke entries of a log (default: current log); travels through the "
     "update service", "iil", REVOCATION_BYTES},
    {"log_failure", "ca", 0, 0, "",
     "the current log fails: roll over to the next log number", "", 0},
    {"ca_unreachable", "ca", 1, 1, "duration_s",
     "no update service can fetch from the CA for duration_s (its relying "
     "parties become partially up to date)", "d", SIM_WORLD_EVENT_BYTES},
    {"split_view", "ca", 1, 1, "k",
     "misbehaving CA: the next checkpoint is forked, the first k cosigners "
     "see view B first, the others view A first", "k", 0},
};

/* Appends "; "-separated text to why (bounded). */
static void why_add(char *why, size_t whylen, const char *fmt, ...)
{
    if (!why || !whylen)
        return;
    size_t n = strlen(why);
    if (n + 3 >= whylen)
        return;
    if (n) {
        memcpy(why + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why + n, whylen - n, fmt, ap);
    va_end(ap);
}

/* The PKI's part of a steady start's history: the longest certificate
 * lifetime plus its CA's landmark interval, and the longest update cycle
 * (fetch interval + mean publication delay). See sim_world_steady_history. */
static sim_time pki_history(const sim_world *w, char *why, size_t whylen)
{
    size_t n;
    void *const *cfg = sim_world_entities(w, "ca", &n);
    sim_time ca_part = 0, us_part = 0;
    const pki_ca_config *longest = NULL;
    for (size_t i = 0; i < n; i++) {
        const pki_ca_config *c = cfg[i];
        sim_time t = c->lifetime + c->landmark_interval;
        if (!longest || t > ca_part) {
            ca_part = t;
            longest = c;
        }
    }
    if (longest)
        why_add(why, whylen, "CA %s: lifetime %.6g d + landmark interval %.6g h",
                longest->name, sim_time_to_sec(longest->lifetime) / 86400.0,
                sim_time_to_sec(longest->landmark_interval) / 3600.0);
    cfg = sim_world_entities(w, "update_service", &n);
    const pki_update_config *slowest = NULL;
    for (size_t i = 0; i < n; i++) {
        const pki_update_config *u = cfg[i];
        double d = u->publication_delay ? sim_dist_mean(u->publication_delay) : 0;
        sim_time t = u->fetch_interval + sim_time_from_sec(d > 0 ? d : 0);
        if (!slowest || t > us_part) {
            us_part = t;
            slowest = u;
        }
    }
    if (slowest)
        why_add(why, whylen,
                "update service %s: fetch interval + mean publication delay %.6g min",
                slowest->name, sim_time_to_sec(us_part) / 60.0);
    return ca_part + us_part;
}

const sim_world_module sim_pki_module = {
    .name = "pki",
    .kinds = pki_kinds,
    .nkinds = sizeof pki_kinds / sizeof pki_kinds[0],
    .actions = pki_actions,
    .nactions = sizeof pki_actions / sizeof pki_actions[0],
    .start = pki_start,
    .act = pki_act,
    .set = pki_set,
    .finish = pki_finish,
    .destroy = pki_destroy,
    .history = pki_history,
};

/* ---- public queries (sim/pki.h) ---- */

const sim_ca_info *sim_pki_ca(const sim_world *w, size_t ca)
{
    pki_state *ps = pki_state_of(w);
    return ps && ca < ps->nca ? &ps->ca[ca].info : NULL;
}

uint64_t sim_pki_ca_log(const sim_world *w, size_t ca)
{
    pki_state *ps = pki_state_of(w);
    return ps && ca < ps->nca ? pki_ca_current(&ps->ca[ca])->number : 0;
}

const mtc_landmarks *sim_pki_ca_landmarks(const sim_world *w, size_t ca,
                                            uint64_t log_number)
{
    pki_state *ps = pki_state_of(w);
    if (!ps || ca >= ps->nca)
        return NULL;
    pki_log *l = pki_ca_find_log(&ps->ca[ca], log_number);
    return l ? l->lm : NULL;
}

int sim_pki_issue(sim_world *w, size_t ca, const sim_issue_request *req,
                    uint64_t *ticket)
{
    pki_state *ps = pki_state_of(w);
    if (!ps)
        return SIM_ERR_STATE;
    if (ca >= ps->nca || !req)
        return MTC_ERR_ARG;
    return pki_ca_issue(&ps->ca[ca], req, ticket);
}

int sim_pki_revoke(sim_world *w, size_t ca, uint64_t log_number,
                     uint64_t first, uint64_t last)
{
    pki_state *ps = pki_state_of(w);
    if (!ps || ca >= ps->nca || first > last)
        return MTC_ERR_ARG;
    return pki_ca_revoke(&ps->ca[ca], log_number, first, last);
}

int sim_pki_is_revoked(const sim_world *w, size_t ca, uint64_t serial,
                         sim_time *since)
{
    pki_state *ps = pki_state_of(w);
    if (!ps || ca >= ps->nca)
        return 0;
    const pki_ca *c = &ps->ca[ca];
    for (size_t i = 0; i < c->nrev; i++)
        if (serial >= c->rev[i].first && serial <= c->rev[i].last) {
            if (since)
                *since = c->rev[i].at;
            return 1;
        }
    return 0;
}

size_t sim_pki_revocations(const sim_world *w, size_t ca)
{
    pki_state *ps = pki_state_of(w);
    return ps && ca < ps->nca ? ps->ca[ca].nrev : 0;
}

sim_time sim_pki_revocation_at(const sim_world *w, size_t ca, size_t i)
{
    pki_state *ps = pki_state_of(w);
    if (!ps || ca >= ps->nca || i >= ps->ca[ca].nrev)
        return 0;
    return ps->ca[ca].rev[i].at;
}

int sim_pki_ca_cosigner(const sim_world *w, size_t ca, size_t i,
                          const char **name, mtc_taid *id, mtc_sig_alg *alg,
                          const uint8_t **pk, size_t *pk_len)
{
    pki_state *ps = pki_state_of(w);
    if (!ps || ca >= ps->nca || i >= ps->ca[ca].nslots)
        return MTC_ERR_RANGE;
    const pki_cosigner *c = ps->ca[ca].slot[i].cos;
    if (name)
        *name = c->cfg->name;
    if (id)
        *id = c->signer.cos.id;
    if (alg)
        *alg = c->signer.alg;
    if (pk)
        *pk = c->signer.pk;
    if (pk_len)
        *pk_len = c->signer.pk_len;
    return MTC_OK;
}
