/*
 * test_web_path.c - handshake latency inside the web model (web_path.c):
 * a cohort without rtt changes nothing and creates no latency metric; a
 * path in every cohort or in one of two leaves every other figure as it
 * was (the path has its own stream) and prices every full and resumed
 * handshake of its cohorts, no other; a constant loss-free path gives the
 * closed form's floor, and a retry a second handshake.
 */
#include <math.h>
#include <string.h>

#include "lib/web_run.h"
#include "mtc/error.h"
#include "sim/web_latency.h"
#include "sim/web_verify.h"
#include "test.h"

static web_browsers_config *cohort(const char *name, size_t n)
{
    web_browsers_config *c = wrun_browsers_new();
    snprintf(c->name, sizeof c->name, "%s", name);
    c->count = (int64_t)n;
    c->sessions_per_day = 0;
    c->visits_per_hour = 4;
    c->update_first_delay = 0;
    c->update_fail_prob = 0;
    c->ticket_lifetime = 2 * SIM_HOUR;
    sim_dist_destroy(c->update_interval);
    sim_dist_const(&c->update_interval, 1800);
    return c;
}

static web_sites_config *sites(size_t n)
{
    web_sites_config *s = wrun_sites_new();
    s->count = (int64_t)n;
    s->issue_spread = 2 * SIM_HOUR;
    s->retry_after = SIM_SEC;
    return s;
}

typedef struct outcome {
    web_stats st;
    double auth_sum;
    int has_lat;
    uint64_t lat_n[2], res_n[2], full_n[2], resumed_n[2];
    double lat_min[2], lat_max[2], base_p50[2], lat_p50[2];
} outcome;

/* Two cohorts; bit k of `path` gives cohort k a path (cohort 1
 * mis-signals: retries). */
static void run(int path, double loss, outcome *o, test_ctx *tc_)
{
    wfx_config pc;
    wfx_defaults(&pc);
    web_sites_config *s = sites(10);
    web_browsers_config *c[2] = {cohort("a", test_scaled(200)), cohort("b", test_scaled(200))};
    c[1]->missignal_prob = 0.3;
    for (int i = 0; i < 2; i++) {
        if (!(path >> i & 1))
            continue;
        ASSERT_OK(sim_dist_const(&c[i]->rtt, 100.0));
        c[i]->loss_prob = loss;
        if (loss > 0) {
            ASSERT_OK(sim_dist_exponential(&c[i]->rtt_jitter, 10.0));
            ASSERT_OK(sim_dist_const(&c[i]->bandwidth, 5e6));
        }
    }
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 21, 0, 0, 1, 0, 1, (const web_sites_config *const *)&s, 1,
                          (const web_browsers_config *const *)c, 2));
    wrun_until(&r, 8 * SIM_HOUR);
    memset(o, 0, sizeof *o);
    web_get_stats(r.wb, &o->st);
    o->auth_sum = sim_hist_sum(sim_metrics_find(r.metrics, "auth_bytes"), SIM_ALL_COHORTS);
    sim_metric *lat = sim_metrics_find(r.metrics, "handshake_ms");
    sim_metric *res = sim_metrics_find(r.metrics, "handshake_ms_resumed");
    sim_metric *base = sim_metrics_find(r.metrics, "handshake_ms_baseline_mldsa44");
    o->has_lat = lat != NULL;
    for (size_t k = 0; k < 2; k++) {
        o->full_n[k] = (uint64_t)sim_counter_value(sim_metrics_find(r.metrics, "handshake_full"), k);
        o->resumed_n[k] = (uint64_t)sim_counter_value(sim_metrics_find(r.metrics, "handshake_resumed"), k);
    }
    for (size_t k = 0; lat && k < 2; k++) {
        o->lat_n[k] = sim_hist_count(lat, k);
        o->res_n[k] = sim_hist_count(res, k);
        o->lat_min[k] = sim_hist_min(lat, k);
        o->lat_max[k] = sim_hist_max(lat, k);
        o->lat_p50[k] = sim_hist_quantile(lat, k, 0.5);
        o->base_p50[k] = sim_hist_quantile(base, k, 0.5);
    }
    wrun_free(&r);
    sim_param_config_free(&sim_sites_schema, s);
    for (int i = 0; i < 2; i++)
        sim_param_config_free(&sim_browsers_schema, c[i]);
}

TEST(path_is_opt_in_and_changes_nothing_else)
{
    outcome off, on;
    run(0, 0, &off, tc_);
    run(3, 0.02, &on, tc_);
    ASSERT_FALSE(off.has_lat);
    ASSERT_TRUE(on.has_lat);
    /* the path's draws come from a stream of their own */
    ASSERT_EQ(off.st.full, on.st.full);
    ASSERT_EQ(off.st.signatureless, on.st.signatureless);
    ASSERT_EQ(off.st.resumed, on.st.resumed);
    ASSERT_EQ(off.st.retries, on.st.retries);
    ASSERT_EQ(off.st.update_fetches, on.st.update_fetches);
    ASSERT_TRUE(off.auth_sum == on.auth_sum);
    /* every full and resumed handshake is priced */
    ASSERT_TRUE(on.st.full > 0 && on.st.resumed > 0 && on.st.retries > 0);
    ASSERT_EQ_U64(on.lat_n[0] + on.lat_n[1], on.st.full);
    ASSERT_EQ_U64(on.res_n[0] + on.res_n[1], on.st.resumed);
}

/* A path in one cohort only: every client record then carries a path
 * line (web__path), the other cohort's unused; the other cohort is priced
 * nowhere, and the path's cohort on every handshake, as when all have one. */
TEST(path_in_one_cohort_prices_that_cohort_alone)
{
    outcome off, one;
    run(0, 0, &off, tc_);
    run(2, 0.02, &one, tc_);
    ASSERT_TRUE(one.has_lat);
    ASSERT_EQ(off.st.full, one.st.full);
    ASSERT_EQ(off.st.resumed, one.st.resumed);
    ASSERT_EQ(off.st.retries, one.st.retries);
    ASSERT_TRUE(off.auth_sum == one.auth_sum);
    ASSERT_TRUE(one.full_n[1] > 0 && one.resumed_n[1] > 0);
    ASSERT_EQ_U64(one.lat_n[0], 0);
    ASSERT_EQ_U64(one.res_n[0], 0);
    ASSERT_EQ_U64(one.lat_n[1], one.full_n[1]);
    ASSERT_EQ_U64(one.res_n[1], one.resumed_n[1]);
}

TEST(constant_path_floor_and_retry)
{
    outcome o;
    run(3, 0, &o, tc_);
    /* TCP: 1 RTT set-up + at least 1 RTT of flight, plus signing time */
    for (int k = 0; k < 2; k++) {
        ASSERT_TRUE(o.lat_min[k] >= 200.0);
        ASSERT_TRUE(o.lat_min[k] < 200.0 * 1.05); /* one bin of the histogram */
    }
    /* the mis-signalling cohort's retries are second handshakes */
    ASSERT_TRUE(o.st.retries > 0);
    ASSERT_TRUE(o.lat_max[1] >= 400.0);
    /* the ML-DSA-44 chain is never faster than MTC on the same path */
    ASSERT_TRUE(o.base_p50[0] >= o.lat_p50[0] * 0.98);
}

typedef struct vsums {
    uint64_t n;
    double lat, net, ver, today, cl, pq, lat_cl, ver_cl, lat_today;
} vsums;

/* A loss-free constant path; the cohort's CPU is `slow` times the
 * development machine's; every site serves today the chain of profile
 * `chain` (mtc/chain.h). */
static void run_verify_sample(double slow, const char *chain, size_t nsites,
                              int64_t represents, vsums *v, test_ctx *tc_)
{
    wfx_config pc;
    wfx_defaults(&pc);
    web_sites_config *s = sites(nsites);
    s->represents = represents;
    s->chain_mix.count = 1;
    snprintf(s->chain_mix.item[0], sizeof s->chain_mix.item[0], "%s:1", chain);
    web_browsers_config *c = cohort("a", test_scaled(300));
    /* no session tickets: every revisit is a full handshake, so the
     * verification cache serves the repeats within its lifetime (with
     * tickets it would hardly ever be asked: a site still in the cache
     * still has its ticket) */
    c->ticket_lifetime = 0;
    ASSERT_OK(sim_dist_const(&c->rtt, 80.0));
    c->cpu_slowdown = slow;
    wrun r;
    ASSERT_OK(wrun_create(&r, &pc, 23, 0, 0, 1, 0, 1, (const web_sites_config *const *)&s, 1,
                          (const web_browsers_config *const *)&c, 1));
    wrun_until(&r, 8 * SIM_HOUR);
    const char *names[] = {"handshake_ms", "handshake_ms_network", "verify_ms",
                           "verify_ms_today", "verify_ms_baseline_classical",
                           "verify_ms_baseline_mldsa44", "handshake_ms_baseline_classical",
                           "handshake_ms_today"};
    double sum[8];
    for (int i = 0; i < 8; i++) {
        sim_metric *h = sim_metrics_find(r.metrics, names[i]);
        ASSERT_TRUE(h != NULL);
        sum[i] = sim_hist_sum(h, 0);
        if (i == 0)
            v->n = sim_hist_count(h, 0);
        else
            ASSERT_EQ_U64(sim_hist_count(h, 0), v->n);
    }
    v->lat = sum[0];
    v->net = sum[1];
    v->ver = sum[2];
    v->today = sum[3];
    v->cl = sum[4];
    v->pq = sum[5];
    v->lat_cl = sum[6];
    v->lat_today = sum[7];
    wrun_free(&r);
    sim_param_config_free(&sim_sites_schema, s);
    sim_param_config_free(&sim_browsers_schema, c);
}

static void run_verify(double slow, const char *chain, vsums *v, test_ctx *tc_)
{
    run_verify_sample(slow, chain, 10, 0, v, tc_);
}

/* The share of today's verifications the cache answers, from a run whose
 * sites all serve le-ecdsa: each costs a P-256 CertificateVerify, and a
 * miss the chain's two P-384 and two P-256 checks and a path too. */
static double cache_hit_share(const vsums *a)
{
    const double *us = web_verify_cost_us;
    double chain = 2 * us[WEB_VOP_ECDSA_P384] + 2 * us[WEB_VOP_ECDSA_P256] +
                   us[WEB_VOP_X509_PATH];
    double misses = (a->today - (double)a->n * us[WEB_VOP_ECDSA_P256] / 1000.0) /
                    (chain / 1000.0);
    return 1.0 - misses / (double)a->n;
}

/* Verification time adds exactly the priced signature verifications:
 * handshake_ms is the network part plus verify_ms; a baseline chain costs
 * its CertificateVerify plus, unless cached, its four signatures (leaf,
 * intermediate, two SCTs) and one certificate path, from the measured
 * table; the CPU's slowdown scales every verification and nothing else.
 * Today's chain is priced as its profile has it: Let's Encrypt's RSA
 * chain (an RSA-2048 leaf key, the leaf signed by an RSA-2048
 * intermediate, the intermediate by an RSA-4,096 root, two SCTs by P-256
 * logs; its cross-signed root is not checked by a client that trusts the
 * newer root), with an RSA-2048 CertificateVerify signed and verified. */
TEST(verification_adds_exactly_the_priced_verifications)
{
    vsums a, b;
    run_verify(1.0, "le-rsa-cross", &a, tc_);
    run_verify(3.0, "le-rsa-cross", &b, tc_);
    ASSERT_TRUE(a.n > 100 && a.n == b.n);
    ASSERT_NEAR(a.lat, a.net + a.ver, 1e-9 * a.lat);
    ASSERT_NEAR(b.lat, b.net + b.ver, 1e-9 * b.lat);
    /* the network part does not depend on the CPU */
    ASSERT_NEAR(a.net, b.net, 1e-9 * a.net);
    ASSERT_NEAR(3.0 * a.ver, b.ver, 1e-9 * b.ver);
    ASSERT_NEAR(3.0 * a.cl, b.cl, 1e-9 * b.cl);
    ASSERT_NEAR(3.0 * a.today, b.today, 1e-9 * b.today);
    /* today's chain: an RSA-2048 CertificateVerify always; on a cache
     * miss the chain's own signatures and a path: the misses come out
     * whole */
    const double *us = web_verify_cost_us;
    double chain = us[WEB_VOP_RSA2048] + us[WEB_VOP_RSA4096] + 2 * us[WEB_VOP_ECDSA_P256] +
                   us[WEB_VOP_X509_PATH];
    double hit = us[WEB_VOP_RSA2048] / 1000.0;
    double miss = hit + chain / 1000.0;
    double misses = (a.today - (double)a.n * hit) / (miss - hit);
    ASSERT_NEAR(misses, round(misses), 1e-6 * (double)a.n);
    /* the cache hits too (about a quarter of the handshakes here) */
    ASSERT_TRUE(misses >= 1 && (double)a.n - misses > 0.05 * (double)a.n);
    /* the classical chain around the sites' Ed25519 key: the same chain
     * and misses, an Ed25519 CertificateVerify */
    double m = round(misses);
    double cl = ((double)a.n * us[WEB_VOP_ED25519] + m * chain) / 1000.0;
    ASSERT_NEAR(a.cl, cl, 1e-9 * cl);
    /* post-quantum: every CA and log ML-DSA-44, no cross-sign */
    double pq = ((double)a.n * us[WEB_VOP_ED25519] +
                 m * (4 * us[WEB_VOP_MLDSA44] + us[WEB_VOP_X509_PATH])) / 1000.0;
    ASSERT_NEAR(a.pq, pq, 1e-9 * pq);
    /* the server signs today's CertificateVerify with its RSA-2048 key,
     * the classical one with the site's Ed25519 key: on this loss-free
     * path both flights take the same rounds, so the network parts differ
     * by the signing times alone */
    double sign = web_latency_sign_ms_chain(MTC_CHAIN_ALG_RSA2048) -
                  web_latency_sign_ms(MTC_SIG_ED25519);
    ASSERT_TRUE(sign > 0.1);
    ASSERT_NEAR((a.lat_today - a.today) - (a.lat_cl - a.cl), (double)a.n * sign,
                1e-6 * a.lat_today);
    /* signatureless handshakes verify less than the classical chain */
    ASSERT_TRUE(a.ver < a.cl);
}

/* A chain of ECDSA P-256 leaf, P-384 intermediate and root (Let's
 * Encrypt's ECDSA chain) prices a P-256 CertificateVerify and the P-384
 * signatures of its CAs. */
TEST(today_follows_the_sites_chain_profile)
{
    vsums a;
    run_verify(1.0, "le-ecdsa", &a, tc_);
    ASSERT_TRUE(a.n > 100);
    const double *us = web_verify_cost_us;
    double chain = 2 * us[WEB_VOP_ECDSA_P384] + 2 * us[WEB_VOP_ECDSA_P256] +
                   us[WEB_VOP_X509_PATH];
    double hit = us[WEB_VOP_ECDSA_P256] / 1000.0;
    double misses = (a.today - (double)a.n * hit) / (chain / 1000.0);
    ASSERT_NEAR(misses, round(misses), 1e-6 * (double)a.n);
    ASSERT_TRUE(misses >= 1 && (double)a.n - misses > 0.05 * (double)a.n);
    double sign = web_latency_sign_ms_chain(MTC_CHAIN_ALG_ECDSA_P256) -
                  web_latency_sign_ms(MTC_SIG_ED25519);
    ASSERT_NEAR((a.lat_today - a.today) - (a.lat_cl - a.cl), (double)a.n * sign,
                1e-6 * a.lat_today);
}

/* flight_over_quic_amp: a server may send three times what it received,
 * so a ClientHello spanning two Initials doubles its budget. ML-DSA-44
 * site keys make a signatureless flight of about 4.5 kB: over the 3,750
 * bytes after one 1,250-byte Initial (X25519), within the 7,500 after
 * two (X25519MLKEM768's 1,216-byte share). The counters cover every
 * cohort, with or without a path. */
TEST(two_initials_double_the_amplification_budget)
{
    uint64_t over[2], full[2], iw[2];
    for (int two = 0; two < 2; two++) {
        wfx_config pc;
        wfx_defaults(&pc);
        web_sites_config *s = sites(10);
        s->key_alg = 2; /* ml-dsa-44 */
        web_browsers_config *c = cohort("a", test_scaled(100));
        c->key_share = two ? 0 : 1; /* x25519mlkem768, x25519 */
        c->transport = 1;
        wrun r;
        ASSERT_OK(wrun_create(&r, &pc, 29, 0, 0, 1, 0, 1, (const web_sites_config *const *)&s, 1,
                              (const web_browsers_config *const *)&c, 1));
        wrun_until(&r, 6 * SIM_HOUR);
        full[two] = (uint64_t)wrun_counter(&r, "handshake_full");
        over[two] = (uint64_t)wrun_counter(&r, "flight_over_quic_amp");
        iw[two] = (uint64_t)wrun_counter(&r, "flight_over_tcp_iw");
        /* the ML-DSA-44 chain (about 11 kB) is over both budgets */
        ASSERT_EQ_U64((uint64_t)wrun_counter(&r, "flight_over_quic_amp_baseline_mldsa44"),
                      full[two]);
        wrun_free(&r);
        sim_param_config_free(&sim_sites_schema, s);
        sim_param_config_free(&sim_browsers_schema, c);
    }
    ASSERT_TRUE(full[0] > 0 && full[1] > 0);
    ASSERT_EQ_U64(over[0], full[0]);
    ASSERT_EQ_U64(over[1], 0);
    /* and within TCP's 14,600-byte initial window either way */
    ASSERT_EQ_U64(iw[0], 0);
    ASSERT_EQ_U64(iw[1], 0);
}

/* Scale the sample, not the world: the same 400 sites of the full-size
 * world sampled by 20 or by 200 sites give the same cache behaviour. The
 * clients choose among the world's ranks (their draws do not depend on
 * the sample) and the cache is keyed by rank, as the session tickets are;
 * keyed by the sampled site, 20 sites would make ranks share entries and
 * hit far more often than 200. */
TEST(verification_cache_does_not_depend_on_the_sample)
{
    vsums small, big;
    run_verify_sample(1.0, "le-ecdsa", 20, 400, &small, tc_);
    run_verify_sample(1.0, "le-ecdsa", 200, 400, &big, tc_);
    double hs = cache_hit_share(&small), hb = cache_hit_share(&big);
    ASSERT_TRUE(small.n > 100 && big.n > 100);
    /* about 5.5 % each here; keyed by site, 20 sites gave 9.7 % */
    ASSERT_TRUE(hb > 0.02);
    ASSERT_TRUE(fabs(hs - hb) < 0.1 * hb);
}

static const test_case tests[] = {
    {"verification_cache_does_not_depend_on_the_sample", verification_cache_does_not_depend_on_the_sample},
    {"path_is_opt_in_and_changes_nothing_else", path_is_opt_in_and_changes_nothing_else},
    {"path_in_one_cohort_prices_that_cohort_alone", path_in_one_cohort_prices_that_cohort_alone},
    {"constant_path_floor_and_retry", constant_path_floor_and_retry},
    {"verification_adds_exactly_the_priced_verifications", verification_adds_exactly_the_priced_verifications},
    {"today_follows_the_sites_chain_profile", today_follows_the_sites_chain_profile},
    {"two_initials_double_the_amplification_budget", two_initials_double_the_amplification_budget},
};
TEST_MAIN(tests)
