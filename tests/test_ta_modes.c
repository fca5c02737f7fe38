/*
 * test_ta_modes.c - the trust_anchors modes of a cohort (full, dns,
 * retry; docs/model.md "Many trust anchors") in the closed-form world of
 * test_web_closed_form.c: one CA, landmarks every L, each site requests
 * at a uniform time in [0, S), clients always online with Poisson update
 * checks of rate mu, handshakes counted on [t0, t1]. There a client
 * holds the landmark of a site's certificate with probability
 *
 *   f = 1 - (1/m) sum_{k=1..m} exp(-mu (t0 - k L)) (1 - exp(-mu T)) / (mu T)
 *
 * and, by the modes' rules:
 *   retry: the ClientHello lists nothing (6 bytes); the server guesses
 *          its landmark-relative certificate; a client holding the
 *          landmark accepts it (signatureless share f), one lacking it
 *          retries once with the CA ID (retry share 1 - f);
 *   dns:   with a fresh record (TTL 0) the ClientHello lists the CA ID,
 *          plus the landmark ID exactly when the client holds it: the
 *          signatureless share is f, there are no retries, and the
 *          ClientHello bytes sum to full x (6 + 1 + |CA ID|) +
 *          signatureless x (1 + |landmark ID|), exactly; a stale record
 *          (a TTL of hours) loses signatureless handshakes, never causes
 *          a retry.
 * Shares are checked against f with a 99 % Student-t interval over R
 * replications, which must exclude the formula at 2 mu (power).
 */
#include <math.h>

#include "lib/web_run.h"
#include "mtc/error.h"
#include "mtc/taid.h"
#include "test.h"

#define L_S 3600.0
#define M_INT 6
#define MU (1.0 / (6 * 3600.0))
#define T0 (7 * 3600.0 + 60)
#define T1 (13 * 3600.0 + 60)

static double formula(double mu)
{
    double s = 0, T = T1 - T0;
    for (int k = 1; k <= M_INT; k++)
        s += exp(-mu * (T0 - k * L_S));
    return 1 - s / M_INT * (1 - exp(-mu * T)) / (mu * T);
}

typedef struct out {
    double full, sigless, retry, ch_sum, lookups, stale, missing, ee_sum;
    uint64_t violations;
    size_t ca_len, lm_len;
} out;

static int run(int mode, sim_time ttl, size_t rep, double scale, int check, out *o)
{
    wfx_config pc;
    wfx_defaults(&pc);
    pc.landmark_interval = (sim_time)L_S * SIM_SEC;
    web_sites_config *site = wrun_sites_new();
    site->count = 60;
    site->issue_spread = (sim_time)(M_INT * L_S) * SIM_SEC;
    site->retry_after = SIM_SEC;
    site->https_record_ttl = ttl;
    web_browsers_config *co = wrun_browsers_new();
    co->count = (int64_t)(1500 * scale);
    co->sessions_per_day = 0;
    co->visits_per_hour = 3;
    co->zipf_exponent = 0;
    co->update_first_delay = 0;
    co->update_fail_prob = 0;
    co->ticket_lifetime = 0;
    co->trust_anchors = mode;
    sim_dist_destroy(co->update_interval);
    sim_dist_exponential(&co->update_interval, 1 / MU);
    wrun r;
    int rc = wrun_create(&r, &pc, 77, rep, 0, 1, (sim_time)T0 * SIM_SEC, check,
                         (const web_sites_config *const *)&site, 1,
                         (const web_browsers_config *const *)&co, 1);
    if (rc == 0) {
        wrun_until(&r, (sim_time)T1 * SIM_SEC);
        o->full = (double)wrun_counter(&r, "handshake_full");
        o->sigless = (double)wrun_counter(&r, "handshake_signatureless");
        o->retry = (double)wrun_counter(&r, "handshake_retry");
        o->lookups = (double)wrun_counter(&r, "dns_https_lookups");
        o->stale = (double)wrun_counter(&r, "dns_record_stale");
        o->missing = (double)wrun_counter(&r, "dns_record_missing");
        sim_metric *h = sim_metrics_find(r.metrics, "clienthello_trust_anchors_bytes");
        o->ch_sum = h ? sim_hist_sum(h, 0) : -1;
        h = sim_metrics_find(r.metrics, "ee_trust_anchors_bytes");
        o->ee_sum = h ? sim_hist_sum(h, 0) : -1;
        web_stats st;
        web_get_stats(r.wb, &st);
        o->violations = st.invariant_violations;
        const web_pki *pk = wfx_pki(r.pki);
        mtc_taid ca = pk->ca(pk->ctx, 0)->ca_id, lm;
        mtc_taid_landmark_id(&ca, 1, 5, &lm);
        o->ca_len = ca.len;
        o->lm_len = lm.len;
        wrun_free(&r);
    }
    sim_param_config_free(&sim_sites_schema, site);
    sim_param_config_free(&sim_browsers_schema, co);
    return rc;
}

static int in_ci(const double *x, size_t n, double v, double wrong, double *lo, double *hi)
{
    sim_ci ci;
    if (sim_ci_student(x, n, 0.99, &ci) != MTC_OK)
        return 0;
    *lo = ci.lo;
    *hi = ci.hi;
    if (getenv("WEB_TEST_VERBOSE"))
        fprintf(stderr, "formula %.4f ci [%.4f, %.4f] wrong %.4f\n", v, ci.lo, ci.hi, wrong);
    return ci.lo <= v && v <= ci.hi && ci.half_width < 0.04 && (wrong < ci.lo || wrong > ci.hi);
}

TEST(retry_mode_matches_formula)
{
    const size_t R = 10;
    double sl[16], rt[16], lo, hi;
    for (size_t rep = 0; rep < R; rep++) {
        out o;
        ASSERT_OK(run(WEB_TA_RETRY, 0, rep, test_scale(), 0, &o));
        ASSERT_TRUE(o.full > 1000 * test_scale());
        sl[rep] = o.sigless / o.full;
        rt[rep] = o.retry / o.full;
        /* every first ClientHello lists nothing: 6 bytes exactly */
        ASSERT_NEAR(o.ch_sum, 6 * o.full, 1e-6);
        /* no DNS in this mode; every attempt gets the server's list, one
         * landmark ID and the CA ID (6 + 1 + |landmark ID| + 1 + |CA ID|) */
        ASSERT_EQ((int64_t)o.lookups, 0);
        ASSERT_NEAR(o.ee_sum, (o.full + o.retry) * (8.0 + (double)o.lm_len + (double)o.ca_len),
                    1e-6);
    }
    double f = formula(MU), w = formula(2 * MU);
    ASSERT_TRUE(in_ci(sl, R, f, w, &lo, &hi));
    ASSERT_TRUE(in_ci(rt, R, 1 - f, 1 - w, &lo, &hi));
}

TEST(dns_mode_matches_formula)
{
    const size_t R = 10;
    double sl[16], lo, hi;
    for (size_t rep = 0; rep < R; rep++) {
        out o;
        ASSERT_OK(run(WEB_TA_DNS, 0, rep, test_scale(), 0, &o));
        ASSERT_TRUE(o.full > 1000 * test_scale());
        sl[rep] = o.sigless / o.full;
        ASSERT_EQ((int64_t)o.retry, 0);
        ASSERT_EQ((int64_t)o.lookups, (int64_t)o.full);
        ASSERT_EQ((int64_t)o.stale, 0);
        ASSERT_EQ((int64_t)o.missing, 0);
        double want = o.full * (6.0 + 1 + (double)o.ca_len) +
                      o.sigless * (1.0 + (double)o.lm_len);
        ASSERT_NEAR(o.ch_sum, want, 1e-6);
    }
    ASSERT_TRUE(in_ci(sl, R, formula(MU), formula(2 * MU), &lo, &hi));
}

/* A record cached for up to two hours: a stale one still lists the
 * standalone path, so it loses signatureless handshakes (the new
 * landmark is not listed yet) but causes no retry; only a lookup that
 * finds no parameter at all (a copy older than the site's first record,
 * in this world where sites start at [0, S)) sends the empty list, and
 * may retry. */
TEST(dns_stale_records)
{
    out fresh, stale;
    ASSERT_OK(run(WEB_TA_DNS, 0, 3, test_scale(), 0, &fresh));
    ASSERT_OK(run(WEB_TA_DNS, 2 * 3600 * SIM_SEC, 3, test_scale(), 0, &stale));
    ASSERT_TRUE(stale.stale > 0);
    ASSERT_TRUE(stale.missing > 0);
    ASSERT_TRUE(stale.retry <= stale.missing);
    ASSERT_EQ((int64_t)fresh.missing, 0);
    ASSERT_EQ((int64_t)fresh.retry, 0);
    ASSERT_TRUE(stale.sigless < fresh.sigless);
    ASSERT_EQ((int64_t)stale.lookups, (int64_t)stale.full);
}

/* Every handshake of both modes redone from real bytes (check_invariants:
 * the ClientHello encoded and parsed, the server's choice made again). */
TEST(slow_path_agrees)
{
    for (int mode = WEB_TA_DNS; mode <= WEB_TA_RETRY; mode++) {
        out o;
        ASSERT_OK(run(mode, 600 * SIM_SEC, 0, 0.1 * test_scale(), 1, &o));
        ASSERT_TRUE(o.full > 0);
        ASSERT_EQ((int64_t)o.violations, 0);
    }
}

static const test_case tests[] = {
    {"retry_mode_matches_formula", retry_mode_matches_formula},
    {"dns_mode_matches_formula", dns_mode_matches_formula},
    {"dns_stale_records", dns_stale_records},
    {"slow_path_agrees", slow_path_agrees},
};
TEST_MAIN(tests)
