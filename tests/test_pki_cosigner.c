/*
 * test_pki_cosigner.c - witnesses and mirrors: outages delay issuance by
 * the outage and no more, a quorum that tolerates the outage hides it, a
 * split view never gets two quorums from honest witnesses, a shared
 * cosigner serves several CAs, mirrors fetch the real entry bytes; the
 * time a k-of-N quorum is unreachable against its closed form, and the
 * requests an unreachable quorum stalls.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../sim/pki/pki_internal.h"
#include "lib/world_fixture.h"
#include "mtc/error.h"
#include "test.h"

static void witness(wfx *f, const char *name, double lat, const char *role)
{
    void *c = wfx_cfg("cosigner", name);
    wfx_str("cosigner", c, "algorithm", "ed25519");
    wfx_str("cosigner", c, "role", role);
    wfx_const("cosigner", c, "latency", lat);
    wfx_add(f, "cosigner", c);
}

static void ca(wfx *f, const char *name, double rate, double ckpt, int nwit,
               const char *const *wits, int quorum, double timeout)
{
    void *c = wfx_cfg("ca", name);
    wfx_str("ca", c, "algorithm", "ed25519");
    wfx_num("ca", c, "rate", rate);
    wfx_num("ca", c, "checkpoint_interval", ckpt);
    wfx_num("ca", c, "landmark_interval", 600);
    wfx_num("ca", c, "cosign_retry", 5);
    wfx_num("ca", c, "quorum_timeout", timeout);
    for (int i = 0; i < nwit; i++)
        wfx_item("ca", c, "cosigners", wits[i]);
    wfx_num("ca", c, "quorum", quorum);
    wfx_add(f, "ca", c);
}

static const char *const W3[] = {"w0", "w1", "w2"};

/* Max standalone delay with witness w0 down from 3600 s for `outage` s. */
static void outage_run(int quorum, double outage, double *maxd, int64_t *fails,
                       double *maxd_before)
{
    wfx f;
    if (wfx_init(&f, 21, 0, 3 * 3600, 0, 600, 0, 1))
        abort();
    for (int i = 0; i < 3; i++)
        witness(&f, W3[i], 1.0, "witness");
    ca(&f, "le", 10, 60, 3, W3, quorum, 300);
    if (sim_world_start(f.w, f.err, sizeof f.err))
        abort();
    sim_engine_set_stop_time(f.eng, 3600 * SIM_SEC);
    sim_engine_run(f.eng);
    *maxd_before = sim_hist_max(sim_metrics_find(f.m, "issuance_delay_standalone"), 0);
    if (outage > 0) {
        double a = outage;
        if (sim_world_act(f.w, "cosigner_outage", "w0", &a, 1, f.err, sizeof f.err))
            abort();
    }
    sim_engine_set_stop_time(f.eng, 3 * 3600 * SIM_SEC);
    sim_engine_run(f.eng);
    sim_world_finish(f.w);
    *maxd = sim_hist_max(sim_metrics_find(f.m, "issuance_delay_standalone"), 0);
    *fails = sim_counter_value(sim_metrics_find(f.m, "cosign_quorum_failures"), 0);
    wfx_free(&f);
}

TEST(witness_outage_delays_by_the_outage_no_more)
{
    const double c = 60, lat = 1, retry = 5, D = 1800;
    double m0, m1, b;
    int64_t f0, f1;
    outage_run(3, 0, &m0, &f0, &b);
    ASSERT_TRUE(m0 <= c + lat + 1e-6);
    ASSERT_EQ(f0, 0);
    outage_run(3, D, &m1, &f1, &b);
    fprintf(stderr, "max delay: no outage %.1f s, %0.f s outage (3 of 3) %.1f s\n",
            m0, D, m1);
    /* An entry that arrived when the outage began waited it out... */
    ASSERT_TRUE(m1 >= D - c);
    /* ...and no more than outage + one interval + retry + latency. */
    ASSERT_TRUE(m1 <= D + c + retry + lat + 1e-6);
    /* 1800 s of outage against a 300 s timeout: the stuck checkpoint
     * counts once (jobs do not overlap, the draft's recommendation). */
    ASSERT_EQ(f1, 1);
    /* With 2 of 3 the outage is within what the quorum allows. */
    outage_run(2, D, &m1, &f1, &b);
    ASSERT_TRUE(m1 <= c + lat + 1e-6);
    ASSERT_EQ(f1, 0);
}

/* cosign_quorum_failures counts a stuck checkpoint once, whatever the
 * outage; cosign_quorum_stall says how long it waited: about the outage. */
static double stall_run(double outage, int64_t *fails, uint64_t *n)
{
    wfx f;
    if (wfx_init(&f, 23, 0, 3 * 3600, 0, 600, 0, 1))
        abort();
    for (int i = 0; i < 3; i++)
        witness(&f, W3[i], 1.0, "witness");
    ca(&f, "le", 10, 60, 3, W3, 3, 300);
    if (sim_world_start(f.w, f.err, sizeof f.err))
        abort();
    sim_engine_set_stop_time(f.eng, 3600 * SIM_SEC);
    sim_engine_run(f.eng);
    double a = outage;
    if (sim_world_act(f.w, "cosigner_outage", "w0", &a, 1, f.err, sizeof f.err))
        abort();
    sim_engine_set_stop_time(f.eng, 3 * 3600 * SIM_SEC);
    sim_engine_run(f.eng);
    sim_world_finish(f.w);
    sim_metric *h = sim_metrics_find(f.m, "cosign_quorum_stall");
    *fails = sim_counter_value(sim_metrics_find(f.m, "cosign_quorum_failures"), 0);
    *n = h ? sim_hist_count(h, 0) : 0;
    double mx = h ? sim_hist_max(h, 0) : -1;
    wfx_free(&f);
    return mx;
}

TEST(quorum_stall_duration_tells_outages_apart)
{
    const double c = 60, lat = 1, retry = 5;
    int64_t f20, f60;
    uint64_t n20, n60;
    double s20 = stall_run(1200, &f20, &n20), s60 = stall_run(3600, &f60, &n60);
    fprintf(stderr, "stall: 20 min outage %.0f s (%lld failures), 60 min %.0f s (%lld)\n",
            s20, (long long)f20, s60, (long long)f60);
    ASSERT_EQ(f20, 1);
    ASSERT_EQ(f60, 1);          /* the count cannot tell them apart... */
    ASSERT_EQ_U64(n20, 1);
    ASSERT_EQ_U64(n60, 1);
    /* ...the stall is the outage, to within a checkpoint interval plus a
     * retry and a latency */
    ASSERT_TRUE(s20 >= 1200 - c && s20 <= 1200 + c + retry + lat + 1e-6);
    ASSERT_TRUE(s60 >= 3600 - c && s60 <= 3600 + c + retry + lat + 1e-6);
}

/* A CA presents view B (a forged entry) first to the first k witnesses
 * and view A first to the others, then asks everyone for both. */
static void split_run(int quorum, int k, int64_t *split_quorums,
                      int64_t *refusals, uint64_t *done_growth, int *locked0)
{
    wfx f;
    if (wfx_init(&f, 22, 0, 2 * 3600, 0, 600, 0, 1))
        abort();
    for (int i = 0; i < 3; i++)
        witness(&f, W3[i], 1.0, "witness");
    ca(&f, "evil", 10, 60, 3, W3, quorum, 300);
    if (sim_world_start(f.w, f.err, sizeof f.err))
        abort();
    sim_engine_set_stop_time(f.eng, 1800 * SIM_SEC);
    sim_engine_run(f.eng);
    double a = k;
    if (sim_world_act(f.w, "split_view", "evil", &a, 1, f.err, sizeof f.err))
        abort();
    pki_log *l = pki_ca_current(&pki_state_of(f.w)->ca[0]);
    uint64_t before = l->done_size;
    sim_engine_set_stop_time(f.eng, 2 * 3600 * SIM_SEC);
    sim_engine_run(f.eng);
    sim_world_finish(f.w);
    *split_quorums = sim_counter_value(sim_metrics_find(f.m, "split_view_quorum"), 0);
    *refusals = sim_counter_value(sim_metrics_find(f.m, "cosign_refusals"), SIM_ALL_COHORTS);
    *done_growth = l->done_size - before;
    *locked0 = l->wstate[0].detected;
    wfx_free(&f);
}

TEST(split_view_gets_no_quorum_from_honest_witnesses)
{
    int64_t sq, ref;
    uint64_t grew;
    int locked;
    /* 2 of 3, B shown first to one witness: B gets 1 signature. */
    split_run(2, 1, &sq, &ref, &grew, &locked);
    fprintf(stderr, "split k=1: quorums %lld refusals %lld grew %llu locked %d\n", (long long)sq, (long long)ref, (unsigned long long)grew, locked);
    ASSERT_EQ(sq, 0);
    ASSERT_TRUE(grew > 0);          /* view A kept its quorum */
    ASSERT_TRUE(locked);            /* w0 saw both views: evidence */
    ASSERT_TRUE(ref >= 2 + 25);     /* and refuses A from then on */
    /* 2 of 3, B first to two witnesses: B may win, but then A cannot:
     * never two conflicting views with a quorum. */
    split_run(2, 2, &sq, &ref, &grew, &locked);
    ASSERT_EQ(sq, 1);
    /* A is stuck from the forked checkpoint on (only the batch already
     * in flight when the CA turned completes): one view wins at most. */
    ASSERT_TRUE(grew < 60 * 10 * 1.5);
    /* 1 of 3 (a quorum not above half): both views get one - the draft's
     * warning that monitors must then compare cosigners. */
    split_run(1, 1, &sq, &ref, &grew, &locked);
    ASSERT_EQ(sq, 1);
    ASSERT_TRUE(grew > 0);
}

TEST(shared_cosigner_serves_two_cas)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 23, 0, 3600, 0, 600, 0, 1));
    witness(&f, "shared", 0.5, "witness");
    const char *const S[] = {"shared"};
    ca(&f, "a", 5, 30, 1, S, 1, 300);
    ca(&f, "b", 7, 45, 1, S, 1, 300);
    ASSERT_OK(wfx_run(&f));
    pki_state *ps = pki_state_of(f.w);
    sim_metric *sig = sim_metrics_find(f.m, "signatures");
    /* The shared witness signs for both logs exactly what each CA signs:
     * a checkpoint and its covering subtrees per completed batch. */
    int64_t ca_sigs = sim_counter_value(sig, 0) + sim_counter_value(sig, 1);
    int64_t w_sigs = sim_counter_value(sig, 2);
    ASSERT_TRUE(w_sigs > 100);
    /* in-flight batches at the end: signed by the CA, not yet by it */
    ASSERT_TRUE(ca_sigs - w_sigs >= 0 && ca_sigs - w_sigs <= 6);
    ASSERT_EQ(sim_counter_value(sim_metrics_find(f.m, "cosign_refusals"), 0), 0);
    ASSERT_TRUE(ps->ca[0].logs[0]->done_size > 0 && ps->ca[1].logs[0]->done_size > 0);
    wfx_free(&f);
}

TEST(mirror_fetches_entry_bytes)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 24, 0, 3600, 0, 600, 0, 1));
    void *c = wfx_cfg("cosigner", "m");
    wfx_str("cosigner", c, "role", "mirror");
    wfx_str("cosigner", c, "algorithm", "ed25519");
    wfx_const("cosigner", c, "latency", 1);
    wfx_num("cosigner", c, "mirror_bandwidth", 20000); /* 20 kB/s: slow */
    wfx_add(&f, "cosigner", c);
    const char *const M[] = {"m"};
    ca(&f, "le", 20, 60, 1, M, 1, 300);
    ASSERT_OK(wfx_run(&f));
    pki_log *l = pki_ca_current(&pki_state_of(f.w)->ca[0]);
    int64_t mb = sim_counter_value(sim_metrics_find(f.m, "mirror_fetch_bytes"), 0);
    /* The mirror copied every cosigned entry, with 2 bytes framing each */
    ASSERT_EQ(mb, (int64_t)pki_log_bytes(l, 0, l->done_size));
    ASSERT_TRUE(mb > (int64_t)l->done_size * 150);
    /* Copy time shows in issuance: ~1200 entries * ~200 B / 20 kB/s */
    double mean = sim_hist_mean(sim_metrics_find(f.m, "issuance_delay_standalone"), 0);
    ASSERT_TRUE(mean > 30 + 1 + 8);
    wfx_free(&f);
}

TEST(random_failures_are_survived)
{
    wfx f;
    ASSERT_OK(wfx_init(&f, 25, 0, 6 * 3600, 0, 600, 0, 1));
    for (int i = 0; i < 3; i++) {
        void *c = wfx_cfg("cosigner", W3[i]);
        wfx_str("cosigner", c, "algorithm", "ed25519");
        wfx_exp("cosigner", c, "latency", 0.5);
        wfx_num("cosigner", c, "mtbf", 3600);
        wfx_exp("cosigner", c, "repair_time", 600);
        wfx_add(&f, "cosigner", c);
    }
    ca(&f, "le", 5, 60, 3, W3, 2, 300);
    ASSERT_OK(wfx_run(&f));
    ASSERT_TRUE(sim_counter_value(sim_metrics_find(f.m, "cosign_unavailable"),
                                  SIM_ALL_COHORTS) > 0);
    pki_log *l = pki_ca_current(&pki_state_of(f.w)->ca[0]);
    ASSERT_TRUE(l->done_size + 5 * 600 > pki_log_size(l));
    wfx_free(&f);
}

/* k-of-N availability in closed form. Three witnesses fail independently
 * (exponential time between failures, mean M; exponential repairs, mean
 * R), so each is up a = M / (M + R) of the time, and a CA needing k of
 * them can reach its quorum sum_{j>=k} C(3,j) a^j (1-a)^(3-j) of the
 * time. Three CAs share the witnesses with quorums 1, 2 and 3; the time
 * each could not reach its quorum (cosign_quorum_unreachable_ms), over
 * replications, against the closed form (at M = 3600 s, R = 900 s:
 * unreachable 0.008, 0.104, 0.488). */
static void avail_run(uint64_t rep, double days, double frac[3])
{
    wfx f;
    double warm = 86400;
    if (wfx_init(&f, 41, rep, warm + days * 86400, warm, 86400, 0, 1))
        abort();
    for (int i = 0; i < 3; i++) {
        void *c = wfx_cfg("cosigner", W3[i]);
        wfx_str("cosigner", c, "algorithm", "ed25519");
        wfx_const("cosigner", c, "latency", 0.5);
        wfx_num("cosigner", c, "mtbf", 3600);
        wfx_exp("cosigner", c, "repair_time", 900);
        wfx_add(&f, "cosigner", c);
    }
    /* checkpoints hourly: what is measured does not depend on them */
    ca(&f, "k1", 0.01, 3600, 3, W3, 1, 300);
    ca(&f, "k2", 0.01, 3600, 3, W3, 2, 300);
    ca(&f, "k3", 0.01, 3600, 3, W3, 3, 300);
    if (wfx_run(&f))
        abort();
    sim_metric *m = sim_metrics_find(f.m, "cosign_quorum_unreachable_ms");
    for (int k = 0; k < 3; k++)
        frac[k] = m ? (double)sim_counter_value(m, (size_t)k) / (days * 86400e3) : -1;
    wfx_free(&f);
}

TEST(quorum_availability_k_of_n_closed_form)
{
    const double a = 3600.0 / (3600.0 + 900.0);
    const double cf[3] = {1 - (1 - (1 - a) * (1 - a) * (1 - a)),
                          1 - (a * a * a + 3 * a * a * (1 - a)), 1 - a * a * a};
    const int R = 8;
    double days = 60 * test_scale();
    if (days < 6)
        days = 6;
    double x[8][3], mean[3] = {0}, var[3] = {0};
    for (int r = 0; r < R; r++) {
        avail_run((uint64_t)r, days, x[r]);
        for (int k = 0; k < 3; k++)
            mean[k] += x[r][k] / R;
    }
    for (int r = 0; r < R; r++)
        for (int k = 0; k < 3; k++)
            var[k] += (x[r][k] - mean[k]) * (x[r][k] - mean[k]) / (R - 1);
    for (int k = 0; k < 3; k++) {
        /* Student t, 7 degrees of freedom, 99.9 %: 5.408 */
        double half = 5.408 * sqrt(var[k] / R);
        fprintf(stderr, "quorum %d of 3: unreachable %.4f +-%.4f (closed form %.4f)\n",
                k + 1, mean[k], half, cf[k]);
        ASSERT_TRUE(half > 0);
        ASSERT_TRUE(fabs(mean[k] - cf[k]) <= half);
        /* and the interval is tight enough to tell the quorums apart */
        ASSERT_TRUE(half < 0.25 * cf[k] + 0.005);
    }
}

/* Two of three witnesses down together for D: a 2-of-3 CA cannot reach
 * its quorum for exactly D (cosign_quorum_unreachable_ms), and the
 * requests that arrived meanwhile are stalled (issuance_stalled: delay
 * above checkpoint_interval + quorum_timeout). An entry arriving in
 * [t0 - c, t0 + D - (c + timeout) - retry - latency] certainly waits
 * past the threshold, none outside [t0 - c, t0 + D + retry + latency]
 * can: with Poisson arrivals at rate r the count lies between the two
 * windows' expectations (less and more 5 standard deviations). One
 * witness down alone is within the quorum: nothing stalls. */
static void stall_share_run(int both, double D, int64_t *unreach_ms, int64_t *stalled,
                            int64_t *entries, double *min_stall)
{
    wfx f;
    if (wfx_init(&f, 43, 0, 4 * 3600, 0, 600, 0, 1))
        abort();
    for (int i = 0; i < 3; i++)
        witness(&f, W3[i], 1.0, "witness");
    ca(&f, "le", 10, 60, 3, W3, 2, 300);
    if (sim_world_start(f.w, f.err, sizeof f.err))
        abort();
    sim_engine_set_stop_time(f.eng, 3600 * SIM_SEC);
    sim_engine_run(f.eng);
    if (D > 0) {
        double d = D;
        if (sim_world_act(f.w, "cosigner_outage", "w0", &d, 1, f.err, sizeof f.err) ||
            (both && sim_world_act(f.w, "cosigner_outage", "w1", &d, 1, f.err, sizeof f.err)))
            abort();
    }
    sim_engine_set_stop_time(f.eng, 4 * 3600 * SIM_SEC);
    sim_engine_run(f.eng);
    sim_world_finish(f.w);
    *unreach_ms = sim_counter_value(sim_metrics_find(f.m, "cosign_quorum_unreachable_ms"), 0);
    *stalled = sim_counter_value(sim_metrics_find(f.m, "issuance_stalled"), 0);
    *entries = sim_counter_value(sim_metrics_find(f.m, "log_entries"), 0);
    sim_metric *h = sim_metrics_find(f.m, "issuance_stall_delay");
    *min_stall = h && sim_hist_count(h, 0) ? sim_hist_min(h, 0) : 0;
    wfx_free(&f);
}

TEST(quorum_outage_stalls_the_requests_meanwhile)
{
    const double D = 1800, c = 60, timeout = 300, retry = 5, lat = 1, r = 10;
    int64_t un, st, n;
    double mn;
    stall_share_run(0, 0, &un, &st, &n, &mn);
    ASSERT_EQ(un, 0);
    ASSERT_EQ(st, 0);
    ASSERT_TRUE(n > 0);
    stall_share_run(0, D, &un, &st, &n, &mn);
    ASSERT_EQ(un, 0);
    ASSERT_EQ(st, 0);
    stall_share_run(1, D, &un, &st, &n, &mn);
    fprintf(stderr, "2 of 3 witnesses down %.0f s: unreachable %lld ms, stalled %lld of %lld, "
            "least stall delay %.1f s\n", D, (long long)un, (long long)st, (long long)n, mn);
    ASSERT_EQ(un, (int64_t)(D * 1000));
    double lo = r * (c + D - (c + timeout) - retry - lat), hi = r * (c + D + retry + lat);
    ASSERT_TRUE((double)st >= lo - 5 * sqrt(lo));
    ASSERT_TRUE((double)st <= hi + 5 * sqrt(hi));
    ASSERT_TRUE(mn > c + timeout);
}

static const test_case cases[] = {
    {"witness_outage_delays_by_the_outage_no_more", witness_outage_delays_by_the_outage_no_more},
    {"quorum_stall_duration_tells_outages_apart", quorum_stall_duration_tells_outages_apart},
    {"split_view_gets_no_quorum_from_honest_witnesses", split_view_gets_no_quorum_from_honest_witnesses},
    {"shared_cosigner_serves_two_cas", shared_cosigner_serves_two_cas},
    {"mirror_fetches_entry_bytes", mirror_fetches_entry_bytes},
    {"random_failures_are_survived", random_failures_are_survived},
    {"quorum_availability_k_of_n_closed_form", quorum_availability_k_of_n_closed_form},
    {"quorum_outage_stalls_the_requests_meanwhile", quorum_outage_stalls_the_requests_meanwhile},
};

TEST_MAIN(cases)
