/*
 * pki_ca_log.c - a CA's issuance logs: the entry store and its tree leaf
 * callback, background arrivals, site requests (issuance), and log failure
 * with rollover. Only this file knows how entries are laid out and rebuilt;
 * the checkpoint, landmark and pruning code see indexes and batches.
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
 *  - with synthetic history (log_history "synthetic", the default) a
 *    background entry is only counted: the tree (mtc/synth_tree.h) gives
 *    every node covering only background entries a pseudo-random hash
 *    keyed by (seed, replication, CA, log), and computes every node over
 *    a sampled site's entry from its children, so roots, subtrees and
 *    proofs are real SHA-256 over those values. No measured quantity sees
 *    a background entry's content: certificates, proofs and byte counts
 *    are those of the hashed log, only hash values differ;
 *  - with hashed history the tree store (mtc/tree.h) keeps no leaf
 *    hashes: its leaf callback regenerates a background entry from its
 *    index, or returns a sampled site's stored leaf hash. Memory is
 *    ~64/2^tile_height bytes per unpruned entry.
 * Either way the batch's template gives the background entries' length
 * (fetch bytes), and log_storage_bytes reports the hashed store's memory
 * (mtc_tree_memory_at), the storage a CA needs for the log.
 * Only what a checkpoint, a landmark or a certificate needs is signed or
 * proved, and every such signature, proof and certificate is real.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/der.h"
#include "mtc/error.h"
#include "mtc/ldp.h"
#include "pki_internal.h"
#include "pki_ca_internal.h"

#define BG_NAME "e000000000000.example"
#define BG_NAME_LEN 21
#define PHILOX_TAG UINT64_C(0x6d74637369700001) /* "mtcsip" v1 */
#define PHILOX_TAG_SYNTH UINT64_C(0x6d74637369700002) /* synthetic node key */

static int log_leaf_fn(void *ctx, uint64_t index, mtc_hash *out);

static pki_state *PS(const pki_ca *ca) { return ca->ps; }
static sim_engine *ENG(const pki_ca *ca) { return ca->ps->env->engine; }
static sim_time NOW(const pki_ca *ca) { return sim_now(ENG(ca)); }

/* ---- logs ---------------------------------------------------------------- */

int pki_log_synthetic(const pki_log *l)
{
    return l->ca->cfg->log_history == PKI_HISTORY_SYNTHETIC;
}

uint64_t pki_log_size(const pki_log *l)
{
    return pki_log_synthetic(l) ? mtc_synth_tree_size(l->stree) : mtc_tree_size(l->tree);
}

uint64_t pki_log_pruned_below(const pki_log *l)
{
    return pki_log_synthetic(l) ? mtc_synth_tree_pruned_below(l->stree)
                    : mtc_tree_pruned_below(l->tree);
}

void pki_log_source(pki_log *l, mtc_node_source *src)
{
    if (pki_log_synthetic(l))
        mtc_synth_tree_source(l->stree, src);
    else
        mtc_tree_source(l->tree, src);
}

int pki_log_subtree_hash(pki_log *l, uint64_t start, uint64_t end, mtc_hash *out)
{
    mtc_node_source src;
    pki_log_source(l, &src);
    return mtc_subtree_hash(&src, start, end, out);
}

int pki_log_prune(pki_log *l, uint64_t index)
{
    return pki_log_synthetic(l) ? mtc_synth_tree_prune(l->stree, index)
                    : mtc_tree_prune(l->tree, index);
}

/* The hashed store's options for this CA: the one that is built with
 * hashed history, and whose memory is reported with synthetic history. */
static mtc_tree_options tree_options(pki_log *l)
{
    const pki_ca_config *c = l->ca->cfg;
    mtc_tree_options o = {(unsigned)c->tile_height, c->tile_height == 0, log_leaf_fn, l};
    return o;
}

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
size_t pki__site_lower(const pki_log *l, uint64_t i)
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
    /* the bytes before the first patch are the same in every entry of the
     * batch: their whole SHA-256 blocks are compressed once, here */
    mtc_hash_leaf_mid(t->buf, t->name_off < t->hash_off ? t->name_off : t->hash_off,
                      &t->mid);
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
    mtc_hash_leaf_from_mid(&t->mid, t->buf, t->len, out);
}

static int log_leaf_fn(void *ctx, uint64_t index, mtc_hash *out)
{
    pki_log *l = ctx;
    size_t s = pki__site_lower(l, index);
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

int pki__batch_open(pki_log *l, uint64_t from, sim_time opened,
                    uint64_t cum)
{
    pki_batch b = {from, from, opened, 0, cum, cum};
    int rc;
    PKI_DEQUE_PUSH(l->batch, l->batch_first, l->nbatch, l->batch_cap, b, rc);
    return rc;
}

/* The key of log l's synthetic nodes: a function of (seed, replication,
 * CA, log), so replications differ and a rerun is identical. */
static void synth_key(const pki_log *l, uint8_t key[MTC_HASH_LEN])
{
    const sim_rng *r = l->ca->ps->env->rng;
    uint64_t k[2] = {sim_rng_seed(r), sim_rng_replication(r)};
    uint64_t ctr[4] = {0, (uint64_t)l->ca->index << 16 | l->number,
                       PKI_STREAM_BG_KEYS, PHILOX_TAG_SYNTH};
    uint64_t w[4];
    sim_philox4x64_10(ctr, k, w);
    memcpy(key, w, MTC_HASH_LEN);
}

/* Landmarks of an aged log between two looks at the interrupt flag (a
 * power of two). */
#define LOG_AGED_CHUNK 4096

/*
 * A log that has run for cfg->log_age before the simulation starts: rate x
 * age background entries (synthetic, so free), checkpointed, and covered
 * by one landmark per landmark_interval at evenly spaced sizes (so landmark
 * numbers, hence trust anchor IDs, are those of a log that old). Cosigners
 * have verified the prefix's checkpoint; its entries have expired, so the
 * first prune drops them. Arrival times of the prefix are not kept: no
 * measured delay covers them.
 */
static int log_aged(pki_ca *ca, pki_log *l)
{
    const pki_ca_config *c = ca->cfg;
    double age_s = (double)c->log_age / SIM_SEC;
    uint64_t n0 = (uint64_t)llround(c->rate * age_s);
    if (n0 == 0)
        return MTC_OK;
    uint64_t k = (uint64_t)(c->log_age / c->landmark_interval);
    if (k > n0)
        k = n0;
    int rc = MTC_OK;
    /* k is log_age / landmark_interval: up to a million cuts (a century at
     * hourly landmarks is 876,600), and the root over them hashes and
     * memoizes every node above a cut: tens of seconds and a gigabyte.
     * So the root is built as the cuts are made, a chunk of landmarks at a
     * time (the memo is a cache: every node's value, hence every result,
     * is the same), and the run's interrupt flag ends the build between
     * chunks, as it ends the steady warm-up. */
    const volatile sig_atomic_t *stop = ca->ps->env->stop;
    mtc_hash root;
    for (uint64_t i = 1; i <= k && rc == MTC_OK; i++) {
        if ((i & (LOG_AGED_CHUNK - 1)) == 0) {
            if (stop && *stop)
                return SIM_ERR_STATE;
            rc = pki_log_subtree_hash(l, 0, mtc_synth_tree_size(l->stree), &root);
            if (rc != MTC_OK)
                break;
        }
        /* landmark i of k at size n0 * i / k, strictly increasing; each a
         * checkpoint size, so a cut of the tree */
        uint64_t at = (uint64_t)((double)n0 * (double)i / (double)k);
        rc = mtc_synth_tree_append_opaque(l->stree, at - mtc_synth_tree_size(l->stree));
        if (rc == MTC_OK)
            rc = mtc_synth_tree_cut(l->stree);
        if (rc == MTC_OK)
            rc = mtc_landmarks_append(l->lm, at);
        l->lm_time[i % (ca->max_active + 1)] = NOW(ca) - (sim_time)(k - i) * c->landmark_interval;
    }
    if (rc == MTC_OK)
        rc = mtc_synth_tree_append_opaque(l->stree, n0 - mtc_synth_tree_size(l->stree));
    if (rc == MTC_OK)
        rc = mtc_synth_tree_cut(l->stree);
    if (rc != MTC_OK)
        return rc;
    l->batch[0].from = l->batch[0].to = n0;
    l->arr_base = n0;
    l->ckpt_size = l->done_size = l->lm_delivered = n0;
    rc = pki_log_subtree_hash(l, 0, n0, &root);
    for (size_t s = 0; s < ca->nslots && rc == MTC_OK; s++)
        l->wstate[s] = (pki_wstate){n0, root, 0};
    return rc;
}

pki_log *pki__log_new(pki_ca *ca, uint64_t number)
{
    pki_log *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->ca = ca;
    l->number = number;
    l->tpl_append.batch_from = l->tpl_lookup.batch_from = UINT64_MAX;
    if (ca->cfg->log_history == PKI_HISTORY_SYNTHETIC) {
        mtc_synth_tree_options so = {(unsigned)ca->cfg->tile_height, {0}};
        synth_key(l, so.key);
        l->stree = mtc_synth_tree_new(&so);
    } else {
        mtc_tree_options o = tree_options(l);
        l->tree = mtc_tree_new(&o);
    }
    l->lm = mtc_landmarks_new(ca->max_active);
    l->wstate = calloc(ca->nslots ? ca->nslots : 1, sizeof *l->wstate);
    l->lm_time = calloc(ca->max_active + 1, sizeof *l->lm_time);
    if (!l->tree /* either store: one pointer */ || !l->lm || !l->wstate || !l->lm_time ||
        mtc_taid_log_id(&ca->info.ca_id, number, &l->log_id) != MTC_OK ||
        pki__batch_open(l, 0, NOW(ca), 0) != MTC_OK ||
        (number == 1 && pki_log_synthetic(l) && log_aged(ca, l) != MTC_OK)) {
        if (pki_log_synthetic(l))
            mtc_synth_tree_free(l->stree);
        else
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

void pki__site_free(pki_site_req *s)
{
    if (!s)
        return;
    free(s->dns_name);
    free(s->spki);
    free(s->subject);
    free(s->exts);
    free(s);
}

void pki__log_free(pki_log *l)
{
    if (!l)
        return;
    for (size_t i = l->site_first; i < l->nsite; i++)
        pki__site_free(l->site[i]);
    for (size_t i = 0; i < l->nref_sigs; i++)
        pki_sig_free(&l->ref_sigs[i]);
    free(l->ref_sigs);
    free(l->site);
    free(l->batch);
    free(l->arr);
    free(l->wstate);
    free(l->lm_time);
    mtc_landmarks_free(l->lm);
    if (pki_log_synthetic(l))
        mtc_synth_tree_free(l->stree);
    else
        mtc_tree_free(l->tree);
    free(l);
}

size_t pki_log_memory(const pki_log *l)
{
    mtc_tree_options o = tree_options((pki_log *)l);
    size_t m = sizeof *l +
               (!pki_log_synthetic(l) ? mtc_tree_memory(l->tree)
                        : mtc_tree_memory_at(&o, pki_log_size(l), pki_log_pruned_below(l)));
    m += l->batch_cap * sizeof *l->batch + l->site_cap * sizeof *l->site;
    m += l->arr_cap * sizeof *l->arr;
    m += (size_t)(mtc_landmarks_max_active(l->lm) + 1) * 2 * sizeof(uint64_t);
    for (size_t i = l->site_first; i < l->nsite; i++)
        m += sizeof *l->site[i] + l->site[i]->spki_len +
             strlen(l->site[i]->dns_name) + 1;
    return m;
}

void pki_ca_gauges(pki_ca *ca)
{
    size_t m = sizeof *ca;
    for (size_t i = 0; i < ca->nlogs; i++)
        m += pki_log_memory(ca->logs[i]);
    sim_gauge_set(PS(ca)->m.storage, ca->index, (double)m);
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
    PKI_DEQUE_PUSH(l->arr, l->arr_first, l->narr, l->arr_cap, t, rc);
    return rc;
}

/* Drops arrival times below entry index i. */
void pki__arr_drop(pki_log *l, uint64_t i)
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

/* The profile's work of one append of an entry of len bytes: its leaf
 * hash's compressions (0x00 || entry, padded: 1 + len + 9 bytes rounded up
 * to 64; less the `shared` blocks of a template's common prefix, counted
 * once when the template was built) and the two of the one interior node
 * each entry adds. */
static void work_append(const pki_ca *ca, size_t len, size_t shared)
{
    sim_prof *pf = sim_engine_prof(ENG(ca));
    sim_prof_work(pf, SIM_WORK_LOG_ENTRIES, 1);
    sim_prof_work(pf, SIM_WORK_HASH_BLOCKS, (1 + len + 9 + 63) / 64 - shared + 2);
}

/* The open batch's template, built when the batch changed: it gives the
 * background entries' length with either history. */
static int bg_template(pki_ca *ca, pki_log *l, const pki_batch *b)
{
    if (l->tpl_append.batch_from == b->from)
        return MTC_OK;
    int rc = tpl_build(ca, &l->tpl_append, b);
    /* the template's shared leaf-hash blocks: once per batch */
    if (rc == MTC_OK && !pki_log_synthetic(l))
        sim_prof_work(sim_engine_prof(ENG(ca)), SIM_WORK_HASH_BLOCKS,
                      l->tpl_append.mid.blocks);
    return rc;
}

/* Appends n background entries whose arrival times are the last n pushed
 * (synthetic history: counted, not built). On error the n times are
 * dropped again and nothing is appended. */
static int append_bg_counted(pki_ca *ca, pki_log *l, uint64_t n)
{
    if (n == 0)
        return MTC_OK;
    pki_batch *b = pki__open_batch(l);
    uint64_t i = pki_log_size(l);
    int rc = bg_template(ca, l, b);
    if (rc == MTC_OK)
        rc = mtc_synth_tree_append_opaque(l->stree, n);
    if (rc != MTC_OK) {
        l->narr -= (size_t)n;
        return rc;
    }
    b->to = i + n;
    b->cum_bytes += n * (l->tpl_append.len + 2);
    sim_counter_add(PS(ca)->m.log_entries, ca->index, (int64_t)n);
    sim_prof_work(sim_engine_prof(ENG(ca)), SIM_WORK_LOG_ENTRIES, n);
    return MTC_OK;
}

static int append_bg(pki_ca *ca, pki_log *l, sim_time arrival)
{
    int rc = arr_push(l, arrival);
    if (rc != MTC_OK)
        return rc;
    if (pki_log_synthetic(l))
        return append_bg_counted(ca, l, 1);
    pki_batch *b = pki__open_batch(l);
    if ((rc = bg_template(ca, l, b)) != MTC_OK) {
        l->narr--;
        return rc;
    }
    uint64_t i = pki_log_size(l);
    mtc_hash h;
    bg_leaf(ca, l, &l->tpl_append, i, &h);
    if ((rc = mtc_tree_append(l->tree, &h)) != MTC_OK) {
        l->narr--;
        return rc;
    }
    b->to = i + 1;
    b->cum_bytes += l->tpl_append.len + 2;
    sim_counter_add(PS(ca)->m.log_entries, ca->index, 1);
    work_append(ca, l->tpl_append.len, l->tpl_append.mid.blocks);
    return MTC_OK;
}

/* The distribution points of a CA with `ldp`: http://ldp<i>.<name>.example/
 * (the length of a CA's access URLs today, e.g. Let's Encrypt's
 * http://r11.i.lencr.org/ of 23 octets). Appended to e's extensions in the
 * CA's own scratch, which e then borrows; background entries are hashed
 * from their template without it (their length enters no figure). */
static int ldp_extensions(pki_ca *ca, mtc_tbs_entry *e)
{
    char urls[MTC_LDP_MAX_URIS][SIM_PARAM_NAME_MAX + 32];
    mtc_ldp d = {0, {{NULL, 0}}};
    for (int64_t i = 0; i < ca->cfg->ldp && i < MTC_LDP_MAX_URIS; i++) {
        int n = snprintf(urls[i], sizeof urls[i], "http://ldp%lld.%s.example/",
                         (long long)i + 1, ca->cfg->name);
        if (n < 0 || (size_t)n >= sizeof urls[i])
            return MTC_ERR_LIMIT;
        d.uri[d.n++] = (mtc_slice){(const uint8_t *)urls[i], (size_t)n};
    }
    size_t need = 0;
    int rc = mtc_ldp_ext_append(e->extensions, &d, ca->ldp_exts, ca->ldp_exts_cap, &need);
    if (rc == MTC_ERR_LIMIT) {
        uint8_t *p = realloc(ca->ldp_exts, need);
        if (!p)
            return MTC_ERR_NOMEM;
        ca->ldp_exts = p;
        ca->ldp_exts_cap = need;
        rc = mtc_ldp_ext_append(e->extensions, &d, ca->ldp_exts, ca->ldp_exts_cap, &need);
    }
    if (rc == MTC_OK)
        e->extensions = (mtc_slice){ca->ldp_exts, need};
    return rc;
}

/* Builds the site's entry into *e (borrowing ps->scratch). */
int pki__site_entry(pki_ca *ca, const pki_site_req *s, mtc_tbs_entry *e)
{
    int rc = mtc_tbs_entry_tls_server(e, &PS(ca)->scratch,
                                      (mtc_slice){ca->issuer_name, ca->issuer_len},
                                      s->not_before, s->not_after, s->dns_name,
                                      s->spki, s->spki_len);
    if (rc == MTC_OK && s->subject) {
        /* the site's own subject and extensions (borrowed from s) */
        e->subject = (mtc_slice){s->subject, s->subject_len};
        e->extensions = (mtc_slice){s->exts, s->exts_len};
    }
    if (rc == MTC_OK && ca->cfg->ldp > 0)
        rc = ldp_extensions(ca, e);
    return rc;
}

static int append_site(pki_ca *ca, pki_log *l, pki_site_req *s,
                       sim_time arrival)
{
    mtc_tbs_entry e;
    int rc = pki__site_entry(ca, s, &e);
    if (rc != MTC_OK)
        return rc;
    size_t len = mtc_log_entry_len((mtc_slice){NULL, 0}, &e);
    if (!len)
        return MTC_ERR_LIMIT;
    if ((rc = mtc_log_entry_leaf_hash((mtc_slice){NULL, 0}, &e, &s->leaf)) !=
        MTC_OK)
        return rc;
    uint64_t i = pki_log_size(l);
    s->index = i;
    s->log_number = l->number;
    PKI_DEQUE_PUSH(l->site, l->site_first, l->nsite, l->site_cap, s, rc);
    if (rc != MTC_OK)
        return rc;
    if ((rc = arr_push(l, arrival)) != MTC_OK) {
        l->nsite--;
        return rc;
    }
    rc = pki_log_synthetic(l) ? mtc_synth_tree_append(l->stree, &s->leaf)
                  : mtc_tree_append(l->tree, &s->leaf);
    if (rc != MTC_OK) {
        l->nsite--;
        l->narr--;
        return rc;
    }
    pki_batch *b = pki__open_batch(l);
    b->to = i + 1;
    b->cum_bytes += len + 2;
    sim_counter_add(PS(ca)->m.log_entries, ca->index, 1);
    work_append(ca, len, 0);
    return MTC_OK;
}

int pki_ca_drain(pki_ca *ca)
{
    sim_time now = NOW(ca);
    pki_log *l = pki_ca_current(ca);
    if (ca->next_arrival > now)
        return MTC_OK;
    gsl_rng *r = sim_rng_use(PS(ca)->env->rng, &ca->arr_stream);
    if (pki_log_synthetic(l)) {
        /* synthetic history: the same draws, then one count */
        uint64_t n = 0;
        int rc = MTC_OK;
        while (ca->next_arrival <= now && (rc = arr_push(l, ca->next_arrival)) == MTC_OK) {
            n++;
            ca->next_arrival = sim_nhpp_next(ca->nhpp, r, ca->next_arrival);
        }
        int rc2 = append_bg_counted(ca, l, n);
        return rc != MTC_OK ? rc : rc2;
    }
    while (ca->next_arrival <= now) {
        int rc = append_bg(ca, l, ca->next_arrival);
        if (rc != MTC_OK)
            return rc;
        ca->next_arrival = sim_nhpp_next(ca->nhpp, r, ca->next_arrival);
    }
    return MTC_OK;
}

/* ---- requests ------------------------------------------------------------ */

static int ca_issue(pki_ca *ca, const sim_issue_request *req, uint64_t *ticket);

/* Charged to the log's part: a site's request drains the background
 * arrivals (appends and hashing) before its own entry. */
int pki_ca_issue(pki_ca *ca, const sim_issue_request *req, uint64_t *ticket)
{
    sim_prof *pf = sim_engine_prof(ENG(ca));
    int prev = sim_prof_enter(pf, SIM_PART_LOG);
    int rc = ca_issue(ca, req, ticket);
    sim_prof_leave(pf, prev);
    return rc;
}

static int ca_issue(pki_ca *ca, const sim_issue_request *req, uint64_t *ticket)
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
        pki__site_free(s);
        return MTC_ERR_NOMEM;
    }
    memcpy(s->dns_name, req->dns_name, nl + 1);
    memcpy(s->spki, req->spki_der, req->spki_len);
    s->spki_len = req->spki_len;
    if (req->subject_len && req->extensions_len) {
        /* whole DER elements: a Name, then [3] { Extensions } */
        if (mtc_der_validate(req->subject_der, req->subject_len) != MTC_OK ||
            req->subject_der[0] != MTC_DER_SEQUENCE ||
            mtc_der_validate(req->extensions_der, req->extensions_len) != MTC_OK ||
            req->extensions_der[0] != (MTC_DER_CONTEXT | MTC_DER_CONSTRUCTED | 3)) {
            pki__site_free(s);
            return MTC_ERR_ARG;
        }
        s->subject = malloc(req->subject_len);
        s->exts = malloc(req->extensions_len);
        if (!s->subject || !s->exts) {
            pki__site_free(s);
            return MTC_ERR_NOMEM;
        }
        memcpy(s->subject, req->subject_der, req->subject_len);
        memcpy(s->exts, req->extensions_der, req->extensions_len);
        s->subject_len = req->subject_len;
        s->exts_len = req->extensions_len;
    }
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
        pki__site_free(s);
        return rc == MTC_ERR_LIMIT || rc == MTC_ERR_CERT ? MTC_ERR_ARG : rc;
    }
    ca->nsites_total++;
    if (ticket)
        *ticket = s->ticket;
    return MTC_OK;
}

int pki_ca_log_failure(pki_ca *ca)
{
    if (ca->nlogs >= SIM_CA_MAX_LOGS || ca->next_log_number > SIM_CA_MAX_LOGS)
        return MTC_ERR_LIMIT;
    int rc = pki_ca_drain(ca);
    if (rc != MTC_OK)
        return rc;
    pki_log *old = pki_ca_current(ca);
    pki_log *nl = pki__log_new(ca, ca->next_log_number);
    if (!nl)
        return MTC_ERR_NOMEM;
    ca->next_log_number++;
    old->failed = 1;
    ca->logs[ca->nlogs++] = nl;
    sim_counter_add(PS(ca)->m.rollovers, ca->index, 1);
    /* Entries not yet checkpointed move to the new log, in order, keeping
     * their arrival times (their issuance delay includes the failure). */
    uint64_t size = pki_log_size(old);
    size_t k = pki__site_lower(old, old->ckpt_size), keep = k;
    for (uint64_t i = old->ckpt_size; i < size; i++) {
        sim_time t = pki__arr_get(old, i);
        if (k < old->nsite && old->site[k]->index == i) {
            pki_site_req *s = old->site[k];
            old->site[k] = NULL;
            k++;
            rc = append_site(ca, nl, s, t);
            if (rc != MTC_OK)
                pki__site_free(s);
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
    pki__open_batch(old)->to = old->ckpt_size;
    pki__open_batch(old)->cum_bytes = pki__open_batch(old)->cum_before;
    /* Checkpointed entries past the last landmark will never get one. */
    pki__landmark_never(ca, old, 0);
    pki_ca_gauges(ca);
    return MTC_OK;
}
