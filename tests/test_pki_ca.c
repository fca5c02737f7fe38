/*
 * test_pki_ca.c - the CA model: every entry in exactly one checkpoint
 * batch, certificates that verify with the real relying-party procedure,
 * landmark subtrees consistent with the log, the closed-form issuance
 * delays, pruning proportional to active certificates, rollover and
 * revocation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/pki/pki_internal.h"
#include "mtc/chain.h"
#include "mtc/error.h"
#include "test.h"
#include "lib/world_fixture.h"

/* ---- a sampled site that records what it receives ---- */

typedef struct got {
    int standalone, landmark, never;
    uint8_t sa[8192], lr[8192];
    size_t sa_len, lr_len;
    sim_time sa_at, lr_at, requested;
    uint64_t serial, log, lm;
} got;

static void on_cert(void *ctx, const sim_cert_event *ev)
{
    got *g = ctx;
    g->requested = ev->requested;
    g->serial = ev->serial;
    g->log = ev->log_number;
    if (ev->kind == SIM_CERT_STANDALONE) {
        g->standalone++;
        g->sa_len = ev->der_len;
        memcpy(g->sa, ev->der, ev->der_len);
        g->sa_at = ev->ready;
    } else if (ev->kind == SIM_CERT_LANDMARK) {
        g->landmark++;
        g->lr_len = ev->der_len;
        memcpy(g->lr, ev->der, ev->der_len);
        g->lr_at = ev->ready;
        g->lm = ev->landmark;
    } else {
        g->never++;
    }
}

typedef struct req_at {
    wfx *f;
    size_t ca;
    got *g;
    uint64_t seed;
    char name[64];
    const char *profile;        /* the leaf content of this chain profile */
} req_at;

static void do_request(sim_engine *sim, void *arg)
{
    (void)sim;
    req_at *r = arg;
    uint8_t spki[200];
    size_t n = wfx_spki(r->seed, spki, sizeof spki);
    sim_issue_request q = {r->name, spki, n, 0, on_cert, r->g, NULL, 0, NULL, 0};
    static uint8_t subj[512], ext[8192];
    if (r->profile) {
        if (mtc_chain_mtc_leaf_fields(mtc_chain_profile_by_name(r->profile), r->name,
                                      MTC_CHAIN_ALG_ED25519, subj, sizeof subj,
                                      &q.subject_len, ext, sizeof ext,
                                      &q.extensions_len) != MTC_OK)
            abort();
        q.subject_der = subj;
        q.extensions_der = ext;
    }
    if (sim_pki_issue(r->f->w, r->ca, &q, NULL) != MTC_OK)
        abort();
}

/* A CA "le" with n Ed25519 witnesses "w0".."w{n-1}" and an update
 * service; its log's background history as `history` says. */
static void history_world(wfx *f, const char *history, double log_age, double rate,
                          double ckpt, double lmi, double lat, int nwit, int quorum)
{
    for (int i = 0; i < nwit; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "w%d", i);
        void *c = wfx_cfg("cosigner", nm);
        wfx_str("cosigner", c, "algorithm", "ed25519");
        wfx_const("cosigner", c, "latency", lat);
        wfx_add(f, "cosigner", c);
    }
    void *ca = wfx_cfg("ca", "le");
    wfx_str("ca", ca, "algorithm", "ed25519");
    wfx_num("ca", ca, "rate", rate);
    wfx_num("ca", ca, "checkpoint_interval", ckpt);
    wfx_num("ca", ca, "landmark_interval", lmi);
    wfx_num("ca", ca, "lifetime", 7 * 86400);
    for (int i = 0; i < nwit; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "w%d", i);
        wfx_item("ca", ca, "cosigners", nm);
    }
    wfx_num("ca", ca, "quorum", quorum);
    wfx_str("ca", ca, "log_history", history);
    wfx_num("ca", ca, "log_age", log_age);
    wfx_add(f, "ca", ca);
    void *us = wfx_cfg("update_service", "chrome");
    wfx_num("update_service", us, "fetch_interval", 300);
    wfx_const("update_service", us, "publication_delay", 60);
    wfx_add(f, "update_service", us);
}

/* The same with hashed history: most tests here read the hashed log's
 * entries back through its leaf callback. */
static void basic_world(wfx *f, double rate, double ckpt, double lmi,
                        double lat, int nwit, int quorum)
{
    history_world(f, "hashed", 0, rate, ckpt, lmi, lat, nwit, quorum);
}

static pki_ca *CA0(wfx *f) { return &pki_state_of(f->w)->ca[0]; }

TEST(every_entry_in_exactly_one_batch)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 1, 0, 3 * 3600 * test_scale(), 0, 600, 0, 1));
    basic_world(&f, 20, 10, 600, 1.0, 2, 2);
    ASSERT_OK(wfx_run(&f));
    pki_ca *ca = CA0(&f);
    pki_log *l = pki_ca_current(ca);
    uint64_t size = mtc_tree_size(l->tree);
    ASSERT_TRUE(size > 1000);
    ASSERT_EQ(sim_counter_value(sim_metrics_find(f.m, "log_entries"), 0), size);
    /* Batches tile [0, checkpoint size) without gap or overlap. */
    uint64_t next = 0, closed = 0;
    for (size_t k = l->batch_first; k < l->nbatch; k++) {
        ASSERT_EQ_U64(l->batch[k].from, next);
        ASSERT_TRUE(l->batch[k].to >= l->batch[k].from);
        next = l->batch[k].to;
        if (l->batch[k].closed)
            closed++;
        else
            ASSERT_EQ(k, l->nbatch - 1); /* only the last is open */
    }
    ASSERT_EQ_U64(l->batch[l->batch_first].from, 0);
    ASSERT_EQ_U64(next, size);
    ASSERT_EQ_U64(l->batch[l->nbatch - 1].from, l->ckpt_size);
    ASSERT_EQ(sim_counter_value(sim_metrics_find(f.m, "checkpoints"), 0), closed);
    /* Each checkpointed entry got its standalone delay exactly once. */
    ASSERT_EQ_U64(sim_hist_count(sim_metrics_find(f.m, "issuance_delay_standalone"), 0),
                  l->done_size);
    ASSERT_TRUE(l->done_size + 20 * 10 * 3 > size);
    /* Landmark delays: every entry below the last landmark, once. */
    uint64_t lms;
    ASSERT_OK(mtc_landmarks_size(l->lm, mtc_landmarks_last(l->lm), &lms));
    ASSERT_EQ_U64(sim_hist_count(sim_metrics_find(f.m, "issuance_delay_landmark"), 0),
                  lms);
    /* The tree's root equals the root recomputed from regenerated leaves
     * (the leaf callback reproduces every entry from its index). */
    mtc_hash *leaves = malloc(size * sizeof *leaves);
    ASSERT_TRUE(leaves != NULL);
    for (uint64_t i = 0; i < size; i++)
        ASSERT_OK(mtc_tree_leaf_hash(l->tree, i, &leaves[i]));
    mtc_node_source arr;
    mtc_array_source(&arr, leaves, size);
    mtc_hash a, b;
    ASSERT_OK(mtc_subtree_hash(&arr, 0, size, &a));
    ASSERT_OK(mtc_tree_root(l->tree, size, &b));
    free(leaves);
    ASSERT_TRUE(mtc_hash_equal(&a, &b));
    wfx_free(&f);
}

TEST(background_entries_are_real_log_entries)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 2, 0, 600, 0, 600, 0, 1));
    basic_world(&f, 5, 10, 600, 0.5, 1, 1);
    ASSERT_OK(wfx_run(&f));
    pki_ca *ca = CA0(&f);
    pki_log *l = pki_ca_current(ca);
    ASSERT_TRUE(mtc_tree_size(l->tree) > 100);
    /* Re-encode an entry independently and compare its leaf hash. */
    uint64_t i = 37;
    pki_template *t = &l->tpl_lookup;
    mtc_hash h, h2;
    ASSERT_OK(mtc_tree_leaf_hash(l->tree, i, &h));
    /* the lookup template now holds entry i's bytes */
    mtc_slice exts;
    unsigned type;
    mtc_tbs_entry e;
    ASSERT_OK(mtc_log_entry_parse(t->buf, t->len, &exts, &type, &e));
    ASSERT_EQ(type, MTC_ENTRY_TBS_CERT);
    ASSERT_OK(mtc_log_entry_leaf_hash(exts, &e, &h2));
    ASSERT_TRUE(mtc_hash_equal(&h, &h2));
    int found = 0;
    for (size_t k = 0; k + 21 <= t->len; k++)
        found |= !memcmp(t->buf + k, "e000000000025.example", 21);
    ASSERT_TRUE(found); /* 37 = 0x25 */
    wfx_free(&f);
}

/* Sites request; standalone and landmark-relative certificates verify
 * with the relying-party state the update service publishes. */
TEST(site_certificates_verify)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 3, 0, 2 * 3600, 0, 600, 0, 1));
    basic_world(&f, 10, 10, 600, 1.0, 3, 2);
    ASSERT_OK(sim_world_start(f.w, f.err, sizeof f.err));
    enum { N = 5 };
    got g[N];
    req_at r[N];
    memset(g, 0, sizeof g);
    for (int i = 0; i < N; i++) {
        /* the last two carry a chain profile's leaf content */
        r[i] = (req_at){&f, 0, &g[i], (uint64_t)i + 100, "",
                        i == 3 ? "digicert-rsa-ov" : i == 4 ? "google-multi" : NULL};
        snprintf(r[i].name, sizeof r[i].name, "site%d.example", i);
        ASSERT_OK(sim_call_at(f.eng, (sim_time)(100 + 700 * i) * SIM_SEC,
                              do_request, &r[i]));
    }
    ASSERT_TRUE(sim_engine_run(f.eng) >= 0);
    sim_world_finish(f.w);
    uint32_t latest = sim_pki_pub_latest(f.w, 0);
    ASSERT_TRUE(latest > 0);
    const sim_ca_view *v0 = sim_pki_pub_view(f.w, 0, 0, 0);
    const sim_ca_view *vl = sim_pki_pub_view(f.w, 0, latest, 0);
    ASSERT_TRUE(vl->nsubtrees > 0);
    int64_t now = 1767225600 + 3600;
    for (int i = 0; i < N; i++) {
        ASSERT_EQ(g[i].standalone, 1);
        ASSERT_EQ(g[i].landmark, 1);
        ASSERT_TRUE(g[i].sa_at > g[i].requested);
        ASSERT_TRUE(g[i].lr_at >= g[i].sa_at);
        mtc_rp_result res;
        /* standalone: signatures (CA + 2 of 3 witnesses), any state */
        ASSERT_OK(mtc_rp_verify(v0->rp, g[i].sa, g[i].sa_len, now, &res));
        ASSERT_EQ(res.used_trusted_subtree, 0);
        ASSERT_TRUE(res.valid_sigs >= 3);
        ASSERT_OK(mtc_rp_verify(vl->rp, g[i].sa, g[i].sa_len, now, &res));
        /* landmark-relative: only with the landmark's trusted subtree */
        ASSERT_OK(mtc_rp_verify(vl->rp, g[i].lr, g[i].lr_len, now, &res));
        ASSERT_EQ(res.used_trusted_subtree, 1);
        ASSERT_EQ(res.valid_sigs, 0);
        ASSERT_TRUE(mtc_rp_verify(v0->rp, g[i].lr, g[i].lr_len, now, &res) != MTC_OK);
        ASSERT_EQ(res.reason, MTC_RP_COSIGNERS);
        /* a profile's leaf content is in the certificate: its last name */
        if (r[i].profile) {
            char last[96];
            int k = snprintf(last, sizeof last, "h%u.%s",
                             mtc_chain_profile_by_name(r[i].profile)->sans - 1, r[i].name);
            int found = 0;
            for (size_t j = 0; j + (size_t)k <= g[i].sa_len && !found; j++)
                found = !memcmp(g[i].sa + j, last, (size_t)k);
            ASSERT_TRUE(found);
            ASSERT_TRUE(g[i].sa_len > g[0].sa_len + 100);
        }
        /* a mutated certificate fails */
        g[i].lr[g[i].lr_len - 40] ^= 1;
        ASSERT_TRUE(mtc_rp_verify(vl->rp, g[i].lr, g[i].lr_len, now, &res) != MTC_OK);
    }
    wfx_free(&f);
}

/* A request's own subject and extensions must be DER of the right kind;
 * anything else is refused and nothing is logged. */
TEST(request_fields_checked)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 3, 0, 3600, 0, 600, 0, 1));
    basic_world(&f, 10, 10, 600, 1.0, 1, 1);
    ASSERT_OK(sim_world_start(f.w, f.err, sizeof f.err));
    uint8_t spki[200], subj[512], ext[8192];
    size_t n = wfx_spki(7, spki, sizeof spki), sl, el;
    ASSERT_OK(mtc_chain_mtc_leaf_fields(mtc_chain_profile_by_name("le-ecdsa"), "a.example",
                                        MTC_CHAIN_ALG_ED25519, subj, sizeof subj, &sl, ext,
                                        sizeof ext, &el));
    got g;
    memset(&g, 0, sizeof g);
    sim_issue_request q = {"a.example", spki, n, 0, on_cert, &g, subj, sl, ext, el};
    q.extensions_len = el - 1; /* truncated */
    ASSERT_EQ(sim_pki_issue(f.w, 0, &q, NULL), MTC_ERR_ARG);
    q.extensions_len = el;
    q.subject_der = ext; /* an [3] element where a Name belongs */
    q.subject_len = el;
    ASSERT_EQ(sim_pki_issue(f.w, 0, &q, NULL), MTC_ERR_ARG);
    q.subject_der = subj;
    q.subject_len = sl;
    q.extensions_der = subj; /* a Name where the [3] element belongs */
    q.extensions_len = sl;
    ASSERT_EQ(sim_pki_issue(f.w, 0, &q, NULL), MTC_ERR_ARG);
    q.extensions_der = ext;
    q.extensions_len = el;
    ASSERT_OK(sim_pki_issue(f.w, 0, &q, NULL));
    wfx_free(&f);
}

/* Every trusted subtree any publication hands out is a real subtree of
 * the log: same hash, and consistent with the current root. */
TEST(landmark_subtrees_consistent_with_log)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 4, 0, 4 * 3600, 0, 600, 0, 1));
    basic_world(&f, 30, 20, 900, 1.0, 1, 1);
    ASSERT_OK(wfx_run(&f));
    pki_log *l = pki_ca_current(CA0(&f));
    uint32_t latest = sim_pki_pub_latest(f.w, 0);
    ASSERT_TRUE(latest >= 10);
    uint64_t n = mtc_tree_size(l->tree);
    mtc_hash root;
    ASSERT_OK(mtc_tree_root(l->tree, n, &root));
    mtc_node_source src;
    mtc_tree_source(l->tree, &src);
    size_t checked = 0;
    for (uint32_t p = 1; p <= latest; p++) {
        const sim_ca_view *v = sim_pki_pub_view(f.w, 0, p, 0);
        ASSERT_TRUE(v->nsubtrees <= 2 * CA0(&f)->max_active);
        for (size_t i = 0; i < v->nsubtrees; i++) {
            const sim_trusted_subtree *t = &v->subtrees[i];
            mtc_hash h, proof[MTC_PROOF_MAX];
            size_t len;
            ASSERT_OK(mtc_tree_subtree_hash(l->tree, t->start, t->end, &h));
            ASSERT_TRUE(mtc_hash_equal(&h, &t->hash));
            ASSERT_OK(mtc_subtree_consistency_proof(&src, t->start, t->end, n,
                                                    proof, &len));
            ASSERT_OK(mtc_subtree_consistency_verify(t->start, t->end, n,
                                                     &t->hash, &root, proof, len));
            checked++;
        }
    }
    ASSERT_TRUE(checked > 50);
    wfx_free(&f);
}

/*
 * Closed form. Poisson arrivals (rate lambda), checkpoints every c, every
 * cosigner answers after exactly d, CA signing instantaneous: an entry
 * arriving at t is in the checkpoint at ceil(t/c)*c, ready d later, so the
 * delay to standalone is uniform on (d, c + d]: mean c/2 + d. Landmarks:
 * with c dividing the landmark interval L, the first job completing in
 * interval j (at jL + d) allocates the checkpoint jL, so the delay to
 * landmark-relative availability is uniform on (d, L + d]: mean L/2 + d.
 * (Warm-up L + c drops the first, shorter interval.) The per-replication
 * means of R replications must bracket the formula in their 99% CI.
 */
TEST(closed_form_mean_delays)
{
    const double c = 60, L = 600, d = 2.5, lambda = 3;
    const double T = 4 * 3600 * (test_scale() < 1 ? 0.5 : 1);
    enum { R = 8 };
    double ms[R], ml[R];
    for (int r = 0; r < R; r++) {
        wfx f;
        ASSERT_OK(wfx_init(&f, 77, (uint64_t)r, T, L + c, 600, 0, 1));
        basic_world(&f, lambda, c, L, d, 2, 2);
        ASSERT_OK(wfx_run(&f));
        ms[r] = sim_hist_mean(sim_metrics_find(f.m, "issuance_delay_standalone"), 0);
        ml[r] = sim_hist_mean(sim_metrics_find(f.m, "issuance_delay_landmark"), 0);
        /* every delay is within the model's bounds */
        ASSERT_TRUE(sim_hist_min(sim_metrics_find(f.m, "issuance_delay_standalone"), 0) > d - 1e-9);
        ASSERT_TRUE(sim_hist_max(sim_metrics_find(f.m, "issuance_delay_standalone"), 0) <= c + d + 1e-6);
        ASSERT_TRUE(sim_hist_max(sim_metrics_find(f.m, "issuance_delay_landmark"), 0) <= L + d + 1e-6);
        wfx_free(&f);
    }
    sim_ci ci;
    ASSERT_OK(sim_ci_student(ms, R, 0.99, &ci));
    fprintf(stderr, "standalone mean %.3f s, CI [%.3f, %.3f], formula %.3f\n",
            ci.mean, ci.lo, ci.hi, c / 2 + d);
    ASSERT_TRUE(ci.lo <= c / 2 + d && c / 2 + d <= ci.hi);
    ASSERT_OK(sim_ci_student(ml, R, 0.99, &ci));
    fprintf(stderr, "landmark mean %.3f s, CI [%.3f, %.3f], formula %.3f\n",
            ci.mean, ci.lo, ci.hi, L / 2 + d);
    ASSERT_TRUE(ci.lo <= L / 2 + d && L / 2 + d <= ci.hi);
}

static double storage_at_end(double rate, double prune_interval, double *ms)
{
    wfx f;
    if (wfx_init(&f, 5, 0, 5 * 3600, 0, 600, 0, 1) != MTC_OK)
        abort();
    void *ca = wfx_cfg("ca", "short");
    wfx_str("ca", ca, "algorithm", "ed25519");
    wfx_num("ca", ca, "rate", rate);
    wfx_num("ca", ca, "checkpoint_interval", 10);
    wfx_num("ca", ca, "landmark_interval", 600);
    wfx_num("ca", ca, "lifetime", 3600);
    wfx_num("ca", ca, "prune_interval", prune_interval);
    wfx_add(&f, "ca", ca);
    if (wfx_run(&f) != MTC_OK)
        abort();
    pki_ca *c = CA0(&f);
    pki_log *l = pki_ca_current(c);
    double v = sim_gauge_value(sim_metrics_find(f.m, "log_storage_bytes"), 0);
    /* minSerial's index, as a share of the log */
    uint64_t first = c->min_serial & ((UINT64_C(1) << 48) - 1);
    if (ms)
        *ms = (double)first / (double)pki_log_size(l);
    wfx_free(&f);
    return v;
}

TEST(pruned_storage_proportional_to_active)
{
    double f1, f2;
    double s1 = storage_at_end(50, 600, &f1);
    double s2 = storage_at_end(100, 600, &f2);
    double unpruned = storage_at_end(100, 1e7, NULL);
    fprintf(stderr, "storage: rate 50 %.0f B, rate 100 %.0f B, unpruned %.0f B; "
            "minSerial at %.3f, %.3f of the log\n", s1, s2, unpruned, f1, f2);
    /* twice the active certificates, about twice the storage */
    ASSERT_TRUE(s2 / s1 > 1.6 && s2 / s1 < 2.4);
    /* 1 h lifetime out of 5 h: pruning keeps ~1/5 to ~1/3 of it */
    ASSERT_TRUE(s2 < 0.5 * unpruned);
    /* The last prune (at 5 h) revoked exactly the entries of batches
     * closed by 4 h, i.e. 4/5 of the log, give or take one batch. */
    ASSERT_TRUE(f1 > 0.795 && f1 <= 0.8005);
    ASSERT_TRUE(f2 > 0.795 && f2 <= 0.8005);
}

TEST(revocation_travels_through_update_service)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 6, 0, 3 * 3600, 0, 600, 0, 1));
    basic_world(&f, 5, 10, 600, 1.0, 1, 1);
    ASSERT_OK(sim_world_start(f.w, f.err, sizeof f.err));
    got g;
    memset(&g, 0, sizeof g);
    req_at r = {&f, 0, &g, 9, "victim.example", NULL};
    ASSERT_OK(sim_call_at(f.eng, 200 * SIM_SEC, do_request, &r));
    sim_engine_set_stop_time(f.eng, 3600 * SIM_SEC);
    ASSERT_TRUE(sim_engine_run(f.eng) >= 0);
    ASSERT_EQ(g.landmark, 1);
    uint32_t before = sim_pki_pub_latest(f.w, 0);
    uint64_t idx = g.serial & ((UINT64_C(1) << 48) - 1);
    double args[2] = {(double)idx, (double)idx};
    ASSERT_OK(sim_world_act(f.w, "revoke_range", "le", args, 2, f.err, sizeof f.err));
    sim_time t0 = sim_now(f.eng);
    ASSERT_TRUE(sim_pki_is_revoked(f.w, 0, g.serial, NULL));
    ASSERT_FALSE(sim_pki_is_revoked(f.w, 0, g.serial + 1, NULL));
    sim_engine_set_stop_time(f.eng, 3 * 3600 * SIM_SEC);
    ASSERT_TRUE(sim_engine_run(f.eng) >= 0);
    sim_world_finish(f.w);
    uint32_t after = sim_pki_pub_latest(f.w, 0);
    ASSERT_TRUE(after > before);
    const sim_ca_view *old = sim_pki_pub_view(f.w, 0, before, 0);
    const sim_ca_view *nv = sim_pki_pub_view(f.w, 0, after, 0);
    ASSERT_TRUE(nv->rev_version > old->rev_version);
    mtc_rp_result res;
    ASSERT_OK(mtc_rp_verify(old->rp, g.lr, g.lr_len, -1, &res));
    ASSERT_TRUE(mtc_rp_verify(nv->rp, g.lr, g.lr_len, -1, &res) != MTC_OK);
    ASSERT_EQ(res.reason, MTC_RP_REVOKED);
    ASSERT_TRUE(mtc_rp_verify(nv->rp, g.sa, g.sa_len, -1, &res) != MTC_OK);
    ASSERT_EQ(res.reason, MTC_RP_REVOKED);
    /* publication delay of the revocation: fetch wait (< 300 s) + 60 s */
    sim_metric *h = sim_metrics_find(f.m, "revocation_publication_delay");
    ASSERT_EQ(sim_hist_count(h, 0), 1);
    ASSERT_TRUE(sim_hist_max(h, 0) >= 60 && sim_hist_max(h, 0) <= 360 + 1e-6);
    (void)t0;
    wfx_free(&f);
}

TEST(log_failure_rolls_over)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 7, 0, 3 * 3600, 0, 600, 0, 1));
    basic_world(&f, 5, 60, 600, 1.0, 1, 1);
    ASSERT_OK(sim_world_start(f.w, f.err, sizeof f.err));
    got g1, g2;
    memset(&g1, 0, sizeof g1);
    memset(&g2, 0, sizeof g2);
    req_at r1 = {&f, 0, &g1, 11, "early.example", NULL};
    req_at r2 = {&f, 0, &g2, 12, "moved.example", NULL};
    ASSERT_OK(sim_call_at(f.eng, 1000 * SIM_SEC, do_request, &r1));
    ASSERT_OK(sim_call_at(f.eng, 3605 * SIM_SEC, do_request, &r2));
    sim_engine_set_stop_time(f.eng, 3610 * SIM_SEC);
    ASSERT_TRUE(sim_engine_run(f.eng) >= 0);
    ASSERT_EQ(g2.standalone, 0);
    ASSERT_OK(sim_world_act(f.w, "log_failure", "le", NULL, 0, f.err, sizeof f.err));
    ASSERT_EQ_U64(sim_pki_ca_log(f.w, 0), 2);
    sim_engine_set_stop_time(f.eng, 3 * 3600 * SIM_SEC);
    ASSERT_TRUE(sim_engine_run(f.eng) >= 0);
    sim_world_finish(f.w);
    ASSERT_EQ(g1.standalone, 1);
    ASSERT_EQ_U64(g1.log, 1);
    ASSERT_EQ(g2.standalone, 1);
    ASSERT_EQ(g2.landmark, 1);
    ASSERT_EQ_U64(g2.log, 2); /* re-appended to the new log */
    uint32_t latest = sim_pki_pub_latest(f.w, 0);
    const sim_ca_view *v = sim_pki_pub_view(f.w, 0, latest, 0);
    ASSERT_EQ(v->nlogs, 2); /* old log's landmarks still active */
    mtc_rp_result res;
    ASSERT_OK(mtc_rp_verify(v->rp, g1.lr, g1.lr_len, -1, &res));
    ASSERT_OK(mtc_rp_verify(v->rp, g2.lr, g2.lr_len, -1, &res));
    ASSERT_OK(mtc_rp_verify(v->rp, g2.sa, g2.sa_len, -1, &res));
    ASSERT_EQ(sim_counter_value(sim_metrics_find(f.m, "log_rollovers"), 0), 1);
    wfx_free(&f);
}

/* One run of a world with sites, a log failure and rollover, in either
 * history; its certificates verify; returns its metrics' encoding. */
enum { HN = 6 };
typedef struct hist_run {
    got g[HN];
    uint8_t *enc;
    size_t enc_len;
    mtc_hash root;              /* the current log's root at its checkpoint */
} hist_run;

static int run_history(const char *history, hist_run *out)
{
    wfx f;
    if (wfx_init(&f, 9, 0, 3 * 3600, 0, 600, 0, 1) != MTC_OK)
        return -1;
    history_world(&f, history, 0, 20, 10, 600, 1.0, 3, 2);
    if (sim_world_start(f.w, f.err, sizeof f.err) != MTC_OK)
        return -2;
    req_at r[HN];
    memset(out, 0, sizeof *out);
    for (int i = 0; i < HN; i++) {
        r[i] = (req_at){&f, 0, &out->g[i], (uint64_t)i + 300, "", NULL};
        snprintf(r[i].name, sizeof r[i].name, "h%d.example", i);
        if (sim_call_at(f.eng, (sim_time)(200 + 1500 * i) * SIM_SEC, do_request, &r[i]) !=
            MTC_OK)
            return -3;
    }
    sim_engine_set_stop_time(f.eng, 5000 * SIM_SEC);
    if (sim_engine_run(f.eng) < 0 ||
        sim_world_act(f.w, "log_failure", "le", NULL, 0, f.err, sizeof f.err) != MTC_OK)
        return -4;
    sim_engine_set_stop_time(f.eng, 3 * 3600 * SIM_SEC);
    if (sim_engine_run(f.eng) < 0)
        return -5;
    sim_world_finish(f.w);
    uint32_t latest = sim_pki_pub_latest(f.w, 0);
    const sim_ca_view *v = sim_pki_pub_view(f.w, 0, latest, 0);
    mtc_rp_result res;
    for (int i = 0; i < HN; i++) {
        got *g = &out->g[i];
        if (!g->standalone || !g->landmark ||
            mtc_rp_verify(v->rp, g->sa, g->sa_len, -1, &res) != MTC_OK ||
            mtc_rp_verify(v->rp, g->lr, g->lr_len, -1, &res) != MTC_OK ||
            !res.used_trusted_subtree)
            return -6;
        g->lr[g->lr_len - 40] ^= 1; /* a wrong proof node fails */
        if (mtc_rp_verify(v->rp, g->lr, g->lr_len, -1, &res) == MTC_OK)
            return -7;
        g->lr[g->lr_len - 40] ^= 1;
    }
    pki_log *l = pki_ca_current(CA0(&f));
    if (l->number != 2 || pki_log_subtree_hash(l, 0, l->ckpt_size, &out->root) != MTC_OK)
        return -8;
    int rc = sim_metrics_encode(f.m, &out->enc, &out->enc_len);
    wfx_free(&f);
    return rc;
}

/* Names the first metric whose values differ between two encodings, NULL
 * when none does; CPU-time metrics (the signers' measured time) are not
 * results of the model and are skipped. */
static const char *first_difference(const hist_run *a, const hist_run *b)
{
    static char name[128];
    const char *found = NULL;
    sim_metrics *x = NULL, *y = NULL;
    if (sim_metrics_decode(&x, a->enc, a->enc_len) != MTC_OK ||
        sim_metrics_decode(&y, b->enc, b->enc_len) != MTC_OK)
        return "(undecodable)";
    size_t compared = 0;
    for (size_t i = 0; i < sim_metrics_count(x) && !found; i++) {
        const sim_metric *p = sim_metrics_at(x, i);
        if (strstr(sim_metric_name(p), "cpu"))
            continue;
        compared++;
        const sim_metric *q = sim_metrics_find(y, sim_metric_name(p));
        if (!q) {
            snprintf(name, sizeof name, "%s (missing)", sim_metric_name(p));
            found = name;
            break;
        }
        int diff = 0;
        for (size_t c = 0; c < sim_metric_cohorts(p) && !diff; c++) {
            if (sim_metric_kind(p) == SIM_METRIC_COUNTER)
                diff = sim_counter_value(p, c) != sim_counter_value(q, c);
            else if (sim_metric_kind(p) == SIM_METRIC_GAUGE)
                diff = sim_gauge_value(p, c) != sim_gauge_value(q, c);
            else
                diff = sim_hist_count(p, c) != sim_hist_count(q, c) ||
                       sim_hist_sum(p, c) != sim_hist_sum(q, c);
            for (size_t k = 0; k < sim_metric_series_len(p) && !diff; k++) {
                double u = sim_metric_series_value(p, c, k), v = sim_metric_series_value(q, c, k);
                diff = u != v && !(u != u && v != v);
            }
        }
        if (diff) {
            snprintf(name, sizeof name, "%s", sim_metric_name(p));
            found = name;
        }
    }
    if (!found && (compared < 20 || sim_metrics_count(x) != sim_metrics_count(y)))
        found = "(too few metrics compared)";
    sim_metrics_destroy(x);
    sim_metrics_destroy(y);
    return found;
}

/* Synthetic history changes hash values only: the same run's metrics are
 * the same bytes (every size, batch, delay and byte count), certificates
 * have the same lengths and verify, and the roots differ. */
TEST(synthetic_history_is_the_hashed_run)
{
    static hist_run a, b;
    ASSERT_OK(run_history("hashed", &a));
    ASSERT_OK(run_history("synthetic", &b));
    ASSERT_TRUE(a.enc_len > 1000);
    const char *d = first_difference(&a, &b);
    if (d)
        TEST_FAIL_("metrics differ, first: %s", d);
    for (int i = 0; i < HN; i++) {
        ASSERT_EQ(a.g[i].sa_len, b.g[i].sa_len);
        ASSERT_EQ(a.g[i].lr_len, b.g[i].lr_len);
        ASSERT_EQ_U64(a.g[i].serial, b.g[i].serial);
        ASSERT_EQ_U64(a.g[i].lm, b.g[i].lm);
        ASSERT_EQ(a.g[i].lr_at, b.g[i].lr_at);
    }
    ASSERT_FALSE(mtc_hash_equal(&a.root, &b.root));
    free(a.enc);
    free(b.enc);
}

/* A log that starts 30 days old: its entries and landmarks are there at
 * no cost (numbers and sizes of a log that age), sites' certificates name
 * landmarks past them and verify, and consistency proofs are as long as
 * the log's size implies. */
TEST(aged_log_starts_long)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 12, 0, 2 * 3600, 0, 600, 0, 1));
    history_world(&f, "synthetic", 0, 20, 10, 600, 1.0, 2, 2);
    ASSERT_OK(sim_world_start(f.w, f.err, sizeof f.err));
    pki_ca *ca = CA0(&f);
    ASSERT_EQ_U64(pki_log_size(pki_ca_current(ca)), 0);
    wfx_free(&f);

    ASSERT_OK(wfx_init(&f, 12, 0, 2 * 3600, 0, 600, 0, 1));
    history_world(&f, "synthetic", 2592000, 20, 10, 600, 1.0, 2, 2);
    ASSERT_OK(sim_world_start(f.w, f.err, sizeof f.err));
    ca = CA0(&f);
    pki_log *l = pki_ca_current(ca);
    uint64_t n0 = 20 * 2592000ULL;
    ASSERT_EQ_U64(pki_log_size(l), n0);
    ASSERT_EQ_U64(mtc_landmarks_last(l->lm), 2592000 / 600);
    got g;
    memset(&g, 0, sizeof g);
    req_at r = {&f, 0, &g, 77, "aged.example", NULL};
    ASSERT_OK(sim_call_at(f.eng, 1000 * SIM_SEC, do_request, &r));
    ASSERT_TRUE(sim_engine_run(f.eng) >= 0);
    sim_world_finish(f.w);
    ASSERT_EQ(g.standalone, 1);
    ASSERT_EQ(g.landmark, 1);
    ASSERT_TRUE(g.lm > 2592000 / 600);
    ASSERT_TRUE((g.serial & ((UINT64_C(1) << 48) - 1)) >= n0);
    uint32_t latest = sim_pki_pub_latest(f.w, 0);
    const sim_ca_view *v = sim_pki_pub_view(f.w, 0, latest, 0);
    mtc_rp_result res;
    ASSERT_OK(mtc_rp_verify(v->rp, g.sa, g.sa_len, -1, &res));
    ASSERT_OK(mtc_rp_verify(v->rp, g.lr, g.lr_len, -1, &res));
    ASSERT_EQ(res.used_trusted_subtree, 1);
    ASSERT_EQ(sim_counter_value(sim_metrics_find(f.m, "update_verify_failures"), 0), 0);
    /* a landmark subtree's consistency proof into the checkpoint: about
     * log2(size / subtree) hashes, as in any log of that size */
    l = pki_ca_current(ca);
    mtc_subtree sub[2];
    ASSERT_OK(mtc_landmarks_subtrees(l->lm, mtc_landmarks_last(l->lm), &sub[0], &sub[1]));
    mtc_node_source src;
    pki_log_source(l, &src);
    mtc_hash p[MTC_PROOF_MAX], root, h;
    size_t len;
    ASSERT_OK(mtc_subtree_consistency_proof(&src, sub[0].start, sub[0].end, l->ref_size, p, &len));
    ASSERT_OK(mtc_subtree_hash(&src, sub[0].start, sub[0].end, &h));
    ASSERT_OK(mtc_subtree_hash(&src, 0, l->ref_size, &root));
    ASSERT_OK(mtc_subtree_consistency_verify(sub[0].start, sub[0].end, l->ref_size, &h, &root, p, len));
    fprintf(stderr, "aged log: %" PRIu64 " entries, landmark subtree %" PRIu64 ", proof %zu hashes\n",
            l->ref_size, sub[0].end - sub[0].start, len);
    /* one hash per set bit of the size above the subtree, and more: an
     * unaged log of 2 hours (144,000 entries) has 3 such bits */
    ASSERT_TRUE(len >= 5);
    wfx_free(&f);
}

static const test_case cases[] = {
    {"aged_log_starts_long", aged_log_starts_long},
    {"synthetic_history_is_the_hashed_run", synthetic_history_is_the_hashed_run},
    {"every_entry_in_exactly_one_batch", every_entry_in_exactly_one_batch},
    {"background_entries_are_real_log_entries", background_entries_are_real_log_entries},
    {"site_certificates_verify", site_certificates_verify},
    {"request_fields_checked", request_fields_checked},
    {"landmark_subtrees_consistent_with_log", landmark_subtrees_consistent_with_log},
    {"closed_form_mean_delays", closed_form_mean_delays},
    {"pruned_storage_proportional_to_active", pruned_storage_proportional_to_active},
    {"revocation_travels_through_update_service", revocation_travels_through_update_service},
    {"log_failure_rolls_over", log_failure_rolls_over},
};

TEST_MAIN(cases)
