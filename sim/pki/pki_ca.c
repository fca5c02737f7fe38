/*
 * pki_ca.c - a Merkle Tree CA: issuance logs with real entries, the
 * standalone (checkpoint) job with asynchronous cosigning, landmarks,
 * pruning and minSerial, revocation, log rollover and split views.
 *
 * Workload: at Let's Encrypt scale a CA appends ~70 entries per second for
 * weeks, while only a few thousand sampled sites need certificates. So:
 *  - background entries have no event each: their Poisson arrival times are
 *    drawn in a loop whenever the log must be current (a checkpoint tick or
 *    a site's request), and appended in time order;
 *  - a background entry is a real TBSCertificateLogEntry whose content is a
 *    function of its index (DNS name e<12 hex digits>.example, validity from
 *    its batch's opening time, a pseudo-random SPKI hash from a Philox
 *    stream); one DER template per batch is patched per entry, so building
 *    an entry costs a memcpy plus SHA-256;
 *  - the tree store keeps no leaf hashes: its leaf callback regenerates a
 *    background entry from its index, or returns a sampled site's stored
 *    leaf hash. Memory is ~64/2^tile_height bytes per unpruned entry.
 * Only what a checkpoint, a landmark or a certificate needs is signed or
 * proved, and every such signature, proof and certificate is real.
 */
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"
#include "pki.h"

#define BG_NAME "e000000000000.example"
#define BG_NAME_LEN 21
#define PHILOX_TAG UINT64_C(0x6d74637369700001) /* "mtcsip" v1 */

static pki_state *PS(const pki_ca *ca) { return ca->ps; }
static sim_engine *ENG(const pki_ca *ca) { return ca->ps->env->engine; }
static sim_time NOW(const pki_ca *ca) { return sim_now(ENG(ca)); }

/* ---- small deques -------------------------------------------------------- */

#define DEQUE_PUSH(arr, first, n, cap, val, rc)                              \
    do {                                                                     \
        if ((n) == (cap)) {                                                  \
            if ((first) > 0 && (first) >= (n) / 2) {                         \
                memmove((arr), (arr) + (first),                              \
                        ((n) - (first)) * sizeof *(arr));                    \
                (n) -= (first);                                              \
                (first) = 0;                                                 \
            } else {                                                         \
                size_t nc_ = (cap) ? 2 * (cap) : 16;                         \
                void *p_ = realloc((arr), nc_ * sizeof *(arr));              \
                if (!p_) {                                                   \
                    (rc) = MTC_ERR_NOMEM;                                    \
                    break;                                                   \
                }                                                            \
                (arr) = p_;                                                  \
                (cap) = nc_;                                                 \
            }                                                                \
        }                                                                    \
        (arr)[(n)++] = (val);                                                \
        (rc) = MTC_OK;                                                       \
    } while (0)

static pki_batch *open_batch(pki_log *l) { return &l->batch[l->nbatch - 1]; }

/* ---- logs ---------------------------------------------------------------- */

pki_log *pki_ca_current(const pki_ca *ca) { return ca->logs[ca->nlogs - 1]; }

pki_log *pki_ca_find_log(const pki_ca *ca, uint64_t number)
{
    for (size_t i = 0; i < ca->nlogs; i++)
        if (ca->logs[i]->number == number)
            return ca->logs[i];
    return NULL;
}

/* Index of the live batch holding entry i (i must be live). */
static size_t batch_of(const pki_log *l, uint64_t i)
{
    size_t lo = l->batch_first, hi = l->nbatch;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->batch[mid].from <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* First live site request with index >= i. */
static size_t site_lower(const pki_log *l, uint64_t i)
{
    size_t lo = l->site_first, hi = l->nsite;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->site[mid]->index < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static const uint8_t *find_bytes(const uint8_t *h, size_t hl, const void *n,
                                 size_t nl)
{
    for (size_t i = 0; i + nl <= hl; i++)
        if (!memcmp(h + i, n, nl))
            return h + i;
    return NULL;
}

static int tpl_build(pki_ca *ca, pki_template *t, const pki_batch *b)
{
    pki_state *ps = PS(ca);
    int64_t nb = pki_unix(ps, b->opened);
    int64_t na = nb + ca->cfg->lifetime / SIM_SEC;
    mtc_tbs_entry e;
    int rc = mtc_tbs_entry_tls_server(&e, &ps->scratch,
                                      (mtc_slice){ca->issuer_name, ca->issuer_len},
                                      nb, na, BG_NAME, ca->bg_spki,
                                      ca->bg_spki_len);
    if (rc == MTC_OK)
        rc = mtc_log_entry_encode((mtc_slice){NULL, 0}, &e, t->buf,
                                  sizeof t->buf, &t->len);
    if (rc != MTC_OK)
        return rc;
    const uint8_t *p = find_bytes(t->buf, t->len, BG_NAME, BG_NAME_LEN);
    const uint8_t *q = find_bytes(t->buf, t->len, e.spki_hash.b, MTC_HASH_LEN);
    if (!p || !q)
        return MTC_ERR_CERT;
    t->name_off = (size_t)(p - t->buf) + 1;
    t->hash_off = (size_t)(q - t->buf);
    t->batch_from = b->from;
    return MTC_OK;
}

/* Patches template t into background entry i of log l and hashes it. */
static void bg_leaf(const pki_ca *ca, const pki_log *l, pki_template *t,
                    uint64_t i, mtc_hash *out)
{
    static const char hex[] = "0123456789abcdef";
    uint8_t *name = t->buf + t->name_off;
    for (int d = 11; d >= 0; d--)
        name[11 - d] = (uint8_t)hex[(i >> (4 * d)) & 15];
    const sim_rng *r = ca->ps->env->rng;
    uint64_t key[2] = {sim_rng_seed(r), sim_rng_replication(r)};
    uint64_t ctr[4] = {i, (uint64_t)ca->index << 16 | l->number,
                       PKI_STREAM_BG_KEYS, PHILOX_TAG};
    uint64_t w[4];
    sim_philox4x64_10(ctr, key, w);
    memcpy(t->buf + t->hash_off, w, sizeof w);
    mtc_hash_leaf(t->buf, t->len, out);
}

static int log_leaf(void *ctx, uint64_t index, mtc_hash *out)
{
    pki_log *l = ctx;
    size_t s = site_lower(l, index);
    if (s < l->nsite && l->site[s]->index == index) {
        *out = l->site[s]->leaf;
        return MTC_OK;
    }
    if (l->nbatch == l->batch_first || index < l->batch[l->batch_first].from)
        return MTC_ERR_PRUNED;
    const pki_batch *b = &l->batch[batch_of(l, index)];
    if (l->tpl_lookup.batch_from != b->from) {
        int rc = tpl_build(l->ca, &l->tpl_lookup, b);
        if (rc != MTC_OK)
            return rc;
    }
    bg_leaf(l->ca, l, &l->tpl_lookup, index, out);
    return MTC_OK;
}

static int batch_open(pki_log *l, uint64_t from, sim_time opened,
                      uint64_t cum)
{
    pki_batch b = {from, from, opened, 0, cum, cum};
    int rc;
    DEQUE_PUSH(l->batch, l->batch_first, l->nbatch, l->batch_cap, b, rc);
    return rc;
}

static pki_log *log_new(pki_ca *ca, uint64_t number)
{
    pki_log *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->ca = ca;
    l->number = number;
    l->tpl_append.batch_from = l->tpl_lookup.batch_from = UINT64_MAX;
    mtc_tree_options o = {(unsigned)ca->cfg->tile_height,
                          ca->cfg->tile_height == 0, log_leaf, l};
    l->tree = mtc_tree_new(&o);
    l->lm = mtc_landmarks_new(ca->max_active);
    l->wstate = calloc(ca->nslots ? ca->nslots : 1, sizeof *l->wstate);
    l->lm_time = calloc(ca->max_active + 1, sizeof *l->lm_time);
    if (!l->tree || !l->lm || !l->wstate || !l->lm_time ||
        mtc_taid_log_id(&ca->info.ca_id, number, &l->log_id) != MTC_OK ||
        batch_open(l, 0, NOW(ca), 0) != MTC_OK) {
        mtc_tree_free(l->tree);
        mtc_landmarks_free(l->lm);
        free(l->wstate);
        free(l->lm_time);
        free(l->batch);
        free(l);
        return NULL;
    }
    return l;
}

static void site_free(pki_site_req *s)
{
    if (!s)
        return;
    free(s->dns_name);
    free(s->spki);
    free(s);
}

static void log_free(pki_log *l)
{
    if (!l)
        return;
    for (size_t i = l->site_first; i < l->nsite; i++)
        site_free(l->site[i]);
    for (size_t i = 0; i < l->nref_sigs; i++)
        pki_sig_free(&l->ref_sigs[i]);
    free(l->ref_sigs);
    free(l->site);
    free(l->batch);
    free(l->arr);
    free(l->wstate);
    free(l->lm_time);
    mtc_landmarks_free(l->lm);
    mtc_tree_free(l->tree);
    free(l);
}

size_t pki_log_memory(const pki_log *l)
{
    size_t m = sizeof *l + mtc_tree_memory(l->tree);
    m += l->batch_cap * sizeof *l->batch + l->site_cap * sizeof *l->site;
    m += l->arr_cap * sizeof *l->arr;
    m += (size_t)(mtc_landmarks_max_active(l->lm) + 1) * 2 * sizeof(uint64_t);
    for (size_t i = l->site_first; i < l->nsite; i++)
        m += sizeof *l->site[i] + l->site[i]->spki_len +
             strlen(l->site[i]->dns_name) + 1;
    return m;
}

/* Cumulative fetch bytes of entries [0, x) for a batch boundary x. */
static uint64_t cum_at(const pki_log *l, uint64_t x)
{
    if (l->nbatch == l->batch_first || x <= l->batch[l->batch_first].from)
        return l->nbatch > l->batch_first ? l->batch[l->batch_first].cum_before
                                          : 0;
    const pki_batch *b = &l->batch[batch_of(l, x - 1)];
    if (x >= b->to)
        return b->cum_bytes;
    uint64_t n = b->to - b->from;
    return b->cum_before + (b->cum_bytes - b->cum_before) * (x - b->from) / n;
}

uint64_t pki_log_bytes(const pki_log *l, uint64_t a, uint64_t b)
{
    return b > a ? cum_at(l, b) - cum_at(l, a) : 0;
}

/* ---- arrival times ---- */

static int arr_push(pki_log *l, sim_time t)
{
    int rc;
    DEQUE_PUSH(l->arr, l->arr_first, l->narr, l->arr_cap, t, rc);
    return rc;
}

static sim_time arr_get(const pki_log *l, uint64_t i)
{
    return l->arr[l->arr_first + (size_t)(i - l->arr_base)];
}

/* Drops arrival times below entry index i. */
static void arr_drop(pki_log *l, uint64_t i)
{
    if (i <= l->arr_base)
        return;
    uint64_t k = i - l->arr_base;
    uint64_t have = l->narr - l->arr_first;
    if (k > have)
        k = have;
    l->arr_first += (size_t)k;
    l->arr_base += k;
    if (l->arr_first == l->narr)
        l->arr_first = l->narr = 0;
}

/* ---- appending ------------------------------------------------------------ */

static int append_bg(pki_ca *ca, pki_log *l, sim_time arrival)
{
    pki_batch *b = open_batch(l);
    int rc;
    if (l->tpl_append.batch_from != b->from &&
        (rc = tpl_build(ca, &l->tpl_append, b)) != MTC_OK)
        return rc;
    uint64_t i = mtc_tree_size(l->tree);
    mtc_hash h;
    bg_leaf(ca, l, &l->tpl_append, i, &h);
    if ((rc = arr_push(l, arrival)) != MTC_OK)
        return rc;
    if ((rc = mtc_tree_append(l->tree, &h)) != MTC_OK) {
        l->narr--;
        return rc;
    }
    b->to = i + 1;
    b->cum_bytes += l->tpl_append.len + 2;
    sim_counter_add(PS(ca)->m.log_entries, ca->index, 1);
    return MTC_OK;
}

/* Builds the site's entry into *e (borrowing ps->scratch). */
static int site_entry(pki_ca *ca, const pki_site_req *s, mtc_tbs_entry *e)
{
    return mtc_tbs_entry_tls_server(e, &PS(ca)->scratch,
                                    (mtc_slice){ca->issuer_name, ca->issuer_len},
                                    s->not_before, s->not_after, s->dns_name,
                                    s->spki, s->spki_len);
}

static int append_site(pki_ca *ca, pki_log *l, pki_site_req *s,
                       sim_time arrival)
{
    mtc_tbs_entry e;
    int rc = site_entry(ca, s, &e);
    if (rc != MTC_OK)
        return rc;
    size_t len = mtc_log_entry_len((mtc_slice){NULL, 0}, &e);
    if (!len)
        return MTC_ERR_LIMIT;
    if ((rc = mtc_log_entry_leaf_hash((mtc_slice){NULL, 0}, &e, &s->leaf)) !=
        MTC_OK)
        return rc;
    uint64_t i = mtc_tree_size(l->tree);
    s->index = i;
    s->log_number = l->number;
    DEQUE_PUSH(l->site, l->site_first, l->nsite, l->site_cap, s, rc);
    if (rc != MTC_OK)
        return rc;
    if ((rc = arr_push(l, arrival)) != MTC_OK) {
        l->nsite--;
        return rc;
    }
    if ((rc = mtc_tree_append(l->tree, &s->leaf)) != MTC_OK) {
        l->nsite--;
        l->narr--;
        return rc;
    }
    pki_batch *b = open_batch(l);
    b->to = i + 1;
    b->cum_bytes += len + 2;
    sim_counter_add(PS(ca)->m.log_entries, ca->index, 1);
    return MTC_OK;
}

int pki_ca_drain(pki_ca *ca)
{
    sim_time now = NOW(ca);
    pki_log *l = pki_ca_current(ca);
    if (ca->next_arrival > now)
        return MTC_OK;
    gsl_rng *r = sim_rng_use(PS(ca)->env->rng, &ca->arr_stream);
    while (ca->next_arrival <= now) {
        int rc = append_bg(ca, l, ca->next_arrival);
        if (rc != MTC_OK)
            return rc;
        ca->next_arrival = sim_nhpp_next(ca->nhpp, r, ca->next_arrival);
    }
    return MTC_OK;
}

/* ---- certificates ---------------------------------------------------------- */

static void deliver(pki_ca *ca, pki_site_req *s, int kind, uint64_t landmark,
                    const uint8_t *der, size_t der_len, size_t proof_len)
{
    if (!s->cb)
        return;
    sim_cert_event ev = {kind, ca->index, s->ticket, s->log_number, s->index,
                         mtc_serial(s->log_number, s->index), landmark,
                         s->requested, NOW(ca), s->not_before, s->not_after,
                         der, der_len, proof_len};
    s->cb(s->cb_ctx, &ev);
}

/* Inclusion proof of entry i in subtree sub of log l into st/p. */
static int fill_inclusion(pki_log *l, uint64_t i, mtc_subtree sub,
                          mtc_proof_storage *st, mtc_proof *p)
{
    memset(p, 0, sizeof *p);
    mtc_node_source src;
    mtc_tree_source(l->tree, &src);
    mtc_hash tmp[MTC_PROOF_MAX];
    size_t n;
    int rc = mtc_inclusion_proof(&src, i, sub.start, sub.end, tmp, &n);
    if (rc != MTC_OK)
        return rc;
    if (n > MTC_PROOF_MAX_HASHES)
        return MTC_ERR_LIMIT;
    memcpy(st->inclusion, tmp, n * sizeof tmp[0]);
    p->start = sub.start;
    p->end = sub.end;
    p->inclusion = st->inclusion;
    p->n_inclusion = n;
    return MTC_OK;
}

/* Builds and delivers a certificate for site s with proof p. */
static int build_cert(pki_ca *ca, pki_site_req *s, mtc_proof *p, int kind,
                      uint64_t landmark)
{
    pki_state *ps = PS(ca);
    mtc_tbs_entry e;
    int rc = site_entry(ca, s, &e);
    if (rc != MTC_OK)
        return rc;
    size_t len;
    rc = mtc_cert_build(&e, s->spki, s->spki_len,
                        mtc_serial(s->log_number, s->index), p, ps->certbuf,
                        sizeof ps->certbuf, &len);
    if (rc != MTC_OK)
        return rc;
    size_t plen = mtc_proof_len(p);
    if (kind == SIM_CERT_STANDALONE)
        sim_hist_observe(ps->m.proof_bytes, ca->index, (double)plen);
    /* The callback may issue (and so rebuild entries in ps->scratch) but
     * never re-enters here, so certbuf stays ours until it returns. */
    deliver(ca, s, kind, landmark, ps->certbuf, len, plen);
    return MTC_OK;
}

/* Fills the signatures of view A of job for subtree s into p. */
static void job_sigs(const pki_job *job, int s, mtc_proof *p)
{
    const pki_ca *ca = job->log->ca;
    p->n_sigs = 0;
    for (size_t k = 0; k <= ca->nslots && p->n_sigs < MTC_PROOF_MAX_SIGS; k++) {
        const pki_sig *sg = &job->v[0].subsig[s][k];
        if (!sg->bytes)
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

/* ---- landmarks ---------------------------------------------------------- */

static void landmark_never(pki_ca *ca, pki_log *l, uint64_t from)
{
    for (size_t k = site_lower(l, from); k < l->nsite; k++) {
        pki_site_req *s = l->site[k];
        if (s->index >= l->ckpt_size)
            break;
        if (!s->standalone_done || s->landmark_done)
            continue;
        s->landmark_done = 1;
        sim_counter_add(PS(ca)->m.lm_never, ca->index, 1);
        deliver(ca, s, SIM_CERT_LANDMARK_NEVER, 0, NULL, 0, 0);
    }
}

static int landmark_added(pki_ca *ca, pki_log *l)
{
    pki_state *ps = PS(ca);
    uint64_t L = mtc_landmarks_last(l->lm), size, prev;
    int rc = mtc_landmarks_size(l->lm, L, &size);
    if (rc == MTC_OK)
        rc = mtc_landmarks_size(l->lm, L - 1, &prev);
    if (rc != MTC_OK)
        return rc;
    mtc_subtree sub[2];
    if ((rc = mtc_landmarks_subtrees(l->lm, L, &sub[0], &sub[1])) != MTC_OK)
        return rc;
    sim_counter_add(ps->m.landmarks, ca->index, 1);
    l->lm_time[L % (ca->max_active + 1)] = NOW(ca);
    for (int s = 0; s < 2; s++)
        if (sub[s].end > sub[s].start)
            sim_hist_observe(ps->m.lm_subtree_size, ca->index,
                             (double)(sub[s].end - sub[s].start));
    sim_time now = NOW(ca);
    for (uint64_t i = prev > l->arr_base ? prev : l->arr_base; i < size; i++)
        sim_hist_observe(ps->m.delay_landmark, ca->index,
                         sim_time_to_sec(now - arr_get(l, i)));
    arr_drop(l, size);
    for (size_t k = site_lower(l, prev); k < l->nsite; k++) {
        pki_site_req *s = l->site[k];
        if (s->index >= size)
            break;
        if (s->landmark_done)
            continue;
        s->landmark_done = 1;
        mtc_proof_storage st;
        mtc_proof p;
        mtc_subtree cov = sub[s->index >= sub[0].start && s->index < sub[0].end ? 0 : 1];
        if ((rc = fill_inclusion(l, s->index, cov, &st, &p)) != MTC_OK ||
            (rc = build_cert(ca, s, &p, SIM_CERT_LANDMARK, L)) != MTC_OK)
            return rc;
    }
    l->lm_delivered = size;
    return MTC_OK;
}

static uint64_t lm_interval_number(const pki_ca *ca)
{
    return ca->lm_base_number +
           (uint64_t)((NOW(ca) - ca->lm_base_time) / ca->cfg->landmark_interval);
}

/* ---- the checkpoint job -------------------------------------------------- */

static void job_free(pki_job *job)
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
    job_free(job);
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
        if (!sg->bytes)
            continue;
        pki_sig *o = &l->ref_sigs[l->nref_sigs];
        o->bytes = malloc(sg->len);
        if (!o->bytes)
            return MTC_ERR_NOMEM;
        memcpy(o->bytes, sg->bytes, sg->len);
        o->len = sg->len;
        o->by = sg->by;
        l->nref_sigs++;
    }
    l->ref_root = job->v[0].root;
    l->ref_size = job->to;
    l->ref_ts = job->ts;
    return MTC_OK;
}

/* A sampled background entry's standalone proof, for the proof-size
 * histogram (background entries have no key, so no certificate). */
static int sample_bg_proof(pki_ca *ca, pki_job *job)
{
    pki_log *l = job->log;
    gsl_rng *r = sim_rng_use(PS(ca)->env->rng, &ca->ca_stream);
    uint64_t i = job->from + gsl_rng_uniform_int(r, job->to - job->from);
    size_t k = site_lower(l, i);
    if (k < l->nsite && l->site[k]->index == i)
        return MTC_OK; /* a site: its real certificate is already counted */
    mtc_proof_storage st;
    mtc_proof p;
    int rc = fill_inclusion(l, i, job->sub[sub_of(job, i)], &st, &p);
    if (rc != MTC_OK)
        return rc;
    job_sigs(job, sub_of(job, i), &p);
    size_t len;
    rc = mtc_proof_encode(&p, PS(ca)->certbuf, sizeof PS(ca)->certbuf, &len);
    if (rc == MTC_OK)
        sim_hist_observe(PS(ca)->m.proof_bytes, ca->index, (double)len);
    return rc;
}

/* View A of the job reached its quorum: certificates are ready. */
static int job_complete(pki_ca *ca, pki_job *job)
{
    pki_state *ps = PS(ca);
    pki_log *l = job->log;
    sim_time now = NOW(ca);
    job->done = 1;
    l->done_size = job->to;
    for (uint64_t i = job->from; i < job->to; i++)
        sim_hist_observe(ps->m.delay_standalone, ca->index,
                         sim_time_to_sec(now - arr_get(l, i)));
    int rc = set_reference(l, job);
    if (rc != MTC_OK)
        return rc;
    uint64_t ckpt_bytes = 8 + MTC_HASH_LEN + 8;
    for (size_t i = 0; i < l->nref_sigs; i++)
        ckpt_bytes += l->ref_sigs[i].by->cos.id.len + l->ref_sigs[i].len;
    sim_counter_add(ps->m.monitor_bytes, ca->index,
                    (int64_t)(pki_log_bytes(l, job->from, job->to) + ckpt_bytes));
    if ((rc = sample_bg_proof(ca, job)) != MTC_OK)
        return rc;
    for (size_t k = site_lower(l, job->from); k < l->nsite; k++) {
        pki_site_req *s = l->site[k];
        if (s->index >= job->to)
            break;
        mtc_proof_storage st;
        mtc_proof p;
        int sub = sub_of(job, s->index);
        if ((rc = fill_inclusion(l, s->index, job->sub[sub], &st, &p)) != MTC_OK)
            return rc;
        job_sigs(job, sub, &p);
        s->standalone_done = 1;
        if ((rc = build_cert(ca, s, &p, SIM_CERT_STANDALONE, 0)) != MTC_OK)
            return rc;
    }
    if (l->failed) {
        landmark_never(ca, l, job->from);
        arr_drop(l, job->to);
    } else {
        int alloc = 0;
        rc = mtc_landmarks_allocate(l->lm, lm_interval_number(ca), job->to,
                                    &alloc);
        if (rc != MTC_OK)
            return rc;
        if (alloc && (rc = landmark_added(ca, l)) != MTC_OK)
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
    if (!job->done)
        sim_counter_add(PS(job->log->ca)->m.quorum_failures,
                        job->log->ca->index, 1);
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
    uint64_t to = mtc_tree_size(l->tree), from = l->ckpt_size;
    if (to == from)
        return;
    sim_time now = NOW(ca);
    pki_job *job = calloc(1, sizeof *job);
    if (!job)
        return;
    pki_batch *b = open_batch(l);
    b->closed = now;
    uint64_t cum = b->cum_bytes;
    if (batch_open(l, to, now, cum) != MTC_OK) {
        free(job);
        b->closed = 0;
        return;
    }
    l->ckpt_size = to;
    sim_counter_add(ps->m.checkpoints, ca->index, 1);
    job->log = l;
    job->from = from;
    job->to = to;
    job->started = now;
    int64_t ts = ps->wc->epoch * 1000 + now / SIM_MS;
    job->ts = ts > 0 ? (uint64_t)ts : 1;
    mtc_covering_subtrees(from, to, &job->sub[0], &job->sub[1]);
    job->nviews = 1;
    job->v[0].src.tree = l->tree;
    if (ca->split_pending) {
        /* View B: the same log with its first new entry replaced by a
         * mis-issued one (a real entry for another name). */
        job->nviews = 2;
        job->fork_first_k = ca->split_pending - 1;
        ca->split_pending = 0;
        pki_view_src *f = &job->v[1].src;
        f->tree = l->tree;
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
            job_free(job);
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

static void tick_fire(sim_engine *sim, sim_event *ev)
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

/* ---- pruning ------------------------------------------------------------ */

static int log_busy(const pki_ca *ca, const pki_log *l)
{
    if (ca->job && ca->job->log == l)
        return 1;
    for (size_t i = 0; i < ca->nzombies; i++)
        if (ca->zombies[i]->log == l)
            return 1;
    return 0;
}

static void prune_log(pki_ca *ca, pki_log *l, sim_time now)
{
    /* First batch that may hold an unexpired entry: entries of a batch
     * arrived before it closed, and live at most `lifetime`. */
    size_t k = l->batch_first;
    while (k < l->nbatch && l->batch[k].closed &&
           l->batch[k].closed + ca->cfg->lifetime <= now &&
           l->batch[k].to <= l->done_size)
        k++;
    uint64_t p = k < l->nbatch ? l->batch[k].from : l->ckpt_size;
    if (p > l->ckpt_size)
        p = l->ckpt_size;
    if (mtc_tree_prune(l->tree, p) != MTC_OK)
        return;
    uint64_t pb = mtc_tree_pruned_below(l->tree);
    while (l->batch_first < l->nbatch - 1 && l->batch[l->batch_first].to <= pb)
        l->batch_first++;
    while (l->site_first < l->nsite && l->site[l->site_first]->index < pb) {
        site_free(l->site[l->site_first]);
        l->site[l->site_first++] = NULL;
    }
    if (l->batch_first > 0 && l->batch_first >= l->nbatch / 2) {
        memmove(l->batch, l->batch + l->batch_first,
                (l->nbatch - l->batch_first) * sizeof *l->batch);
        l->nbatch -= l->batch_first;
        l->batch_first = 0;
    }
    if (l->site_first > 0 && l->site_first >= l->nsite / 2) {
        memmove(l->site, l->site + l->site_first,
                (l->nsite - l->site_first) * sizeof *l->site);
        l->nsite -= l->site_first;
        l->site_first = 0;
    }
    if (l == ca->logs[0] && mtc_serial(l->number, p) > ca->min_serial)
        ca->min_serial = mtc_serial(l->number, p);
}

static void prune_fire(sim_engine *sim, sim_event *ev)
{
    pki_ca *ca = ev->arg;
    sim_time now = sim_now(sim);
    for (size_t i = 0; i < ca->nlogs; i++)
        prune_log(ca, ca->logs[i], now);
    /* A failed log whose entries have all expired is gone. */
    while (ca->nlogs > 1 && ca->logs[0]->failed && !log_busy(ca, ca->logs[0])) {
        pki_log *o = ca->logs[0];
        if (o->nbatch >= 2 &&
            o->batch[o->nbatch - 2].closed + ca->cfg->lifetime > now)
            break;
        log_free(o);
        memmove(ca->logs, ca->logs + 1, (ca->nlogs - 1) * sizeof ca->logs[0]);
        ca->nlogs--;
        uint64_t ms = mtc_serial(ca->logs[0]->number, 0);
        if (ms > ca->min_serial)
            ca->min_serial = ms;
    }
    pki_ca_gauges(ca);
    sim_schedule_in(sim, &ca->prune_ev, ca->cfg->prune_interval);
}

void pki_ca_gauges(pki_ca *ca)
{
    size_t m = sizeof *ca;
    for (size_t i = 0; i < ca->nlogs; i++)
        m += pki_log_memory(ca->logs[i]);
    sim_gauge_set(PS(ca)->m.storage, ca->index, (double)m);
}

/* ---- view sources (honest and forked) ---------------------------------- */

static int view_range(void *ctx, uint64_t start, uint64_t end, mtc_hash *out)
{
    pki_view_src *v = ctx;
    if (!v->forked || v->fork_index < start || v->fork_index >= end) {
        mtc_node_source t;
        mtc_tree_source(v->tree, &t);
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
    src->size = mtc_tree_size(v->tree);
}

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
        return MTC_ERR_CONFIG;
    }
    mtc_sig_alg alg = pki_alg_of(c->algorithm);
    int rc = pki_signer_init(ps, &ca->signer, alg, &ca->info.ca_id, ca->index,
                             ca->index);
    if (rc != MTC_OK) {
        snprintf(err, errlen, "ca %s: key: %s", c->name, mtc_strerror(rc));
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
                     mtc_strerror(rc));
            return rc;
        }
    }
    for (size_t j = 0; j < c->cosigners.count; j++) {
        int idx = sim_world_find(ps->w, "cosigner", c->cosigners.item[j]);
        if (idx < 0) {
            snprintf(err, errlen, "ca %s: cosigners: no cosigner named '%s'",
                     c->name, c->cosigners.item[j]);
            return MTC_ERR_CONFIG;
        }
        for (size_t k = 0; k < ca->nslots; k++)
            if (ca->slot[k].cos == &ps->cos[idx]) {
                snprintf(err, errlen, "ca %s: cosigners: '%s' listed twice",
                         c->name, c->cosigners.item[j]);
                return MTC_ERR_CONFIG;
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
                 mtc_strerror(rc));
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
    ca->min_serial = mtc_serial(1, 0);
    ca->next_log_number = 1;
    sim_stream_init(&ca->arr_stream, PKI_STREAM_ARRIVALS, ca->index);
    sim_stream_init(&ca->ca_stream, PKI_STREAM_CA, ca->index);
    rc = sim_nhpp_create(&ca->nhpp, c->rate, c->profile, SIM_PROFILE_HOURS,
                         SIM_DAY, 0);
    if (rc != MTC_OK) {
        snprintf(err, errlen, "ca %s: rate/profile: %s", c->name,
                 mtc_strerror(rc));
        return MTC_ERR_CONFIG;
    }
    return MTC_OK;
}

int pki_ca_start(pki_state *ps, pki_ca *ca)
{
    pki_log *l = log_new(ca, ca->next_log_number++);
    if (!l)
        return MTC_ERR_NOMEM;
    ca->logs[ca->nlogs++] = l;
    sim_time now = sim_now(ps->env->engine);
    ca->lm_base_time = now;
    ca->lm_base_number = 0;
    gsl_rng *r = sim_rng_use(ps->env->rng, &ca->arr_stream);
    ca->next_arrival = sim_nhpp_next(ca->nhpp, r, now);
    sim_event_init(&ca->tick_ev, tick_fire, ca);
    sim_event_init(&ca->prune_ev, prune_fire, ca);
    ca->next_tick = now + ca->cfg->checkpoint_interval;
    int rc = sim_schedule(ps->env->engine, &ca->tick_ev, ca->next_tick);
    if (rc == MTC_OK)
        rc = sim_schedule_in(ps->env->engine, &ca->prune_ev,
                             ca->cfg->prune_interval);
    pki_ca_gauges(ca);
    return rc;
}

void pki_ca_free(pki_ca *ca)
{
    if (!ca)
        return;
    job_free(ca->job);
    for (size_t i = 0; i < ca->nzombies; i++)
        job_free(ca->zombies[i]);
    free(ca->zombies);
    for (size_t i = 0; i < ca->nlogs; i++)
        log_free(ca->logs[i]);
    sim_nhpp_destroy(ca->nhpp);
    pki_signer_free(&ca->signer);
    free(ca->ca_cert);
    free(ca->rev);
}

int pki_ca_issue(pki_ca *ca, const sim_issue_request *req, uint64_t *ticket)
{
    if (!req->dns_name || !req->dns_name[0] || !req->spki_der ||
        req->spki_len == 0 || req->lifetime < 0 ||
        req->lifetime > ca->cfg->lifetime)
        return MTC_ERR_ARG;
    mtc_slice alg;
    mtc_hash h;
    if (mtc_spki_split(req->spki_der, req->spki_len, &alg, &h) != MTC_OK)
        return MTC_ERR_ARG;
    pki_site_req *s = calloc(1, sizeof *s);
    if (!s)
        return MTC_ERR_NOMEM;
    size_t nl = strlen(req->dns_name);
    s->dns_name = malloc(nl + 1);
    s->spki = malloc(req->spki_len);
    if (!s->dns_name || !s->spki) {
        site_free(s);
        return MTC_ERR_NOMEM;
    }
    memcpy(s->dns_name, req->dns_name, nl + 1);
    memcpy(s->spki, req->spki_der, req->spki_len);
    s->spki_len = req->spki_len;
    s->ca = ca;
    s->ticket = ++ca->next_ticket;
    s->requested = NOW(ca);
    s->not_before = pki_unix(PS(ca), s->requested);
    s->not_after = s->not_before +
                   (req->lifetime ? req->lifetime : ca->cfg->lifetime) / SIM_SEC;
    s->cb = req->cb;
    s->cb_ctx = req->cb_ctx;
    int rc = pki_ca_drain(ca);
    if (rc == MTC_OK)
        rc = append_site(ca, pki_ca_current(ca), s, s->requested);
    if (rc != MTC_OK) {
        site_free(s);
        return rc == MTC_ERR_LIMIT || rc == MTC_ERR_CERT ? MTC_ERR_ARG : rc;
    }
    ca->nsites_total++;
    if (ticket)
        *ticket = s->ticket;
    return MTC_OK;
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
    DEQUE_PUSH(ca->rev, zero, ca->nrev, ca->rev_cap, r, rc);
    return rc;
}

int pki_ca_log_failure(pki_ca *ca)
{
    if (ca->nlogs >= SIM_CA_MAX_LOGS || ca->next_log_number > SIM_CA_MAX_LOGS)
        return MTC_ERR_LIMIT;
    int rc = pki_ca_drain(ca);
    if (rc != MTC_OK)
        return rc;
    pki_log *old = pki_ca_current(ca);
    pki_log *nl = log_new(ca, ca->next_log_number);
    if (!nl)
        return MTC_ERR_NOMEM;
    ca->next_log_number++;
    old->failed = 1;
    ca->logs[ca->nlogs++] = nl;
    sim_counter_add(PS(ca)->m.rollovers, ca->index, 1);
    /* Entries not yet checkpointed move to the new log, in order, keeping
     * their arrival times (their issuance delay includes the failure). */
    uint64_t size = mtc_tree_size(old->tree);
    size_t k = site_lower(old, old->ckpt_size), keep = k;
    for (uint64_t i = old->ckpt_size; i < size; i++) {
        sim_time t = arr_get(old, i);
        if (k < old->nsite && old->site[k]->index == i) {
            pki_site_req *s = old->site[k];
            old->site[k] = NULL;
            k++;
            rc = append_site(ca, nl, s, t);
            if (rc != MTC_OK)
                site_free(s);
        } else {
            rc = append_bg(ca, nl, t);
        }
        if (rc != MTC_OK)
            return rc;
    }
    /* The moved site requests leave the old log's index. */
    old->nsite = keep;
    if (old->narr - old->arr_first > old->ckpt_size - old->arr_base)
        old->narr = old->arr_first + (size_t)(old->ckpt_size - old->arr_base);
    /* The abandoned open batch ends where the checkpointed log ends. */
    open_batch(old)->to = old->ckpt_size;
    open_batch(old)->cum_bytes = open_batch(old)->cum_before;
    /* Checkpointed entries past the last landmark will never get one. */
    landmark_never(ca, old, 0);
    pki_ca_gauges(ca);
    return MTC_OK;
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
        ca->lm_base_number = lm_interval_number(ca) + 1;
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
    return MTC_ERR_CONFIG;
}
