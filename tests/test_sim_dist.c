/*
 * test_sim_dist.c - each distribution against its law, at a fixed seed.
 *
 * Continuous laws: the probability integral transform u = F(x) of the
 * samples must be uniform; chi-square over 50 equiprobable cells with
 * gsl_cdf_chisq_Q, where F is GSL's own CDF (gsl_cdf_*_P), independent of
 * sim_dist_cdf, which is checked against it separately. Discrete laws:
 * chi-square over the outcomes (tail cells merged to expected >= 5). NHPP:
 * counts per hour of day against the profile, and the homogeneous case's
 * gaps against the exponential law. Each goodness-of-fit check also runs a
 * wrong law on the same samples and requires it to be rejected, so the
 * test has the power to fail.
 */
#include "test.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

#include "sim/status.h"
#include "sim/dist.h"
#include "sim/rng.h"

#define CELLS 50
#define P_ACCEPT 1e-3
#define P_REJECT 1e-6

typedef double (*cdf_fn)(double x, const double *par);

static double cdf_exp(double x, const double *p) { return gsl_cdf_exponential_P(x, p[0]); }
static double cdf_lognormal(double x, const double *p) { return gsl_cdf_lognormal_P(x, p[0], p[1]); }
static double cdf_weibull(double x, const double *p) { return gsl_cdf_weibull_P(x, p[0], p[1]); }
static double cdf_pareto(double x, const double *p) { return gsl_cdf_pareto_P(x, p[0], p[1]); }
static double cdf_gamma(double x, const double *p) { return gsl_cdf_gamma_P(x, p[0], p[1]); }
static double cdf_flat(double x, const double *p) { return gsl_cdf_flat_P(x, p[0], p[1]); }

/* p-value of the PIT chi-square of xs under cdf(., par). */
static double pit_pvalue(const double *xs, size_t n, cdf_fn cdf, const double *par)
{
    size_t cnt[CELLS] = {0};
    for (size_t i = 0; i < n; i++) {
        double u = cdf(xs[i], par);
        size_t c = (size_t)(u * CELLS);
        cnt[c >= CELLS ? CELLS - 1 : c]++;
    }
    double e = (double)n / CELLS, chi2 = 0;
    for (size_t i = 0; i < CELLS; i++)
        chi2 += ((double)cnt[i] - e) * ((double)cnt[i] - e) / e;
    return gsl_cdf_chisq_Q(chi2, CELLS - 1);
}

/* Not scaled under sanitizers: sampling is cheap and the power of the
 * rejection checks needs the full size. */
static size_t nsamples(void) { return 40000; }

/* Samples d, checks GOF against (cdf, par), rejection against (cdf, bad),
 * sim_dist_cdf == cdf, and the sample mean against sim_dist_mean. */
static int check_continuous(test_ctx *t, sim_dist *d, cdf_fn cdf,
                            const double *par, const double *bad,
                            double mean_tol_sd)
{
    size_t n = nsamples();
    double *xs = malloc(n * sizeof *xs);
    gsl_rng *r = sim_rng_alloc_stream(2024, 0, SIM_STREAM_TEST, (uint64_t)sim_dist_kind(d));
    double sum = 0, sum2 = 0;
    for (size_t i = 0; i < n; i++) {
        xs[i] = sim_dist_sample(d, r);
        sum += xs[i];
        sum2 += xs[i] * xs[i];
    }
    gsl_rng_free(r);
    double p_ok = pit_pvalue(xs, n, cdf, par);
    double p_bad = pit_pvalue(xs, n, cdf, bad);
    int ok = 1;
    if (!(p_ok > P_ACCEPT)) {
        fprintf(stderr, "  %s: GOF p = %g\n", sim_dist_name(d), p_ok);
        ok = 0;
    }
    if (!(p_bad < P_REJECT)) {
        fprintf(stderr, "  %s: wrong law not rejected, p = %g\n", sim_dist_name(d), p_bad);
        ok = 0;
    }
    for (size_t i = 0; i < 100; i++)
        if (fabs(sim_dist_cdf(d, xs[i]) - cdf(xs[i], par)) > 1e-12)
            ok = 0;
    double m = sum / (double)n, sd = sqrt(sum2 / (double)n - m * m);
    if (mean_tol_sd > 0 && fabs(m - sim_dist_mean(d)) > mean_tol_sd * sd / sqrt((double)n)) {
        fprintf(stderr, "  %s: mean %g vs %g\n", sim_dist_name(d), m, sim_dist_mean(d));
        ok = 0;
    }
    free(xs);
    (void)t;
    return ok;
}

TEST(exponential)
{
    sim_dist *d;
    ASSERT_OK(sim_dist_exponential(&d, 2.5));
    double par[] = {2.5}, bad[] = {2.8};
    ASSERT_TRUE(check_continuous(tc_, d, cdf_exp, par, bad, 5));
    ASSERT_NEAR(sim_dist_mean(d), 2.5, 0);
    ASSERT_STR_EQ(sim_dist_name(d), "exponential");
    sim_dist_destroy(d);
    ASSERT_EQ(sim_dist_exponential(&d, 0), SIM_ERR_ARG);
    ASSERT_EQ(sim_dist_exponential(&d, NAN), SIM_ERR_ARG);
    ASSERT_TRUE(d == NULL);
}

TEST(lognormal)
{
    sim_dist *d;
    ASSERT_OK(sim_dist_lognormal(&d, 1.0, 0.75));
    double par[] = {1.0, 0.75}, bad[] = {1.0, 0.85};
    ASSERT_TRUE(check_continuous(tc_, d, cdf_lognormal, par, bad, 5));
    ASSERT_NEAR(sim_dist_mean(d), exp(1.0 + 0.75 * 0.75 / 2), 1e-12);
    sim_dist_destroy(d);
    ASSERT_EQ(sim_dist_lognormal(&d, 0, -1), SIM_ERR_ARG);
}

TEST(weibull)
{
    sim_dist *d;
    ASSERT_OK(sim_dist_weibull(&d, 3.0, 1.7));
    double par[] = {3.0, 1.7}, bad[] = {3.0, 1.5};
    ASSERT_TRUE(check_continuous(tc_, d, cdf_weibull, par, bad, 5));
    ASSERT_NEAR(sim_dist_mean(d), 3.0 * tgamma(1 + 1 / 1.7), 1e-12);
    sim_dist_destroy(d);
    ASSERT_EQ(sim_dist_weibull(&d, 1, 0), SIM_ERR_ARG);
}

TEST(pareto)
{
    sim_dist *d;
    ASSERT_OK(sim_dist_pareto(&d, 2.5, 1.5));
    double par[] = {2.5, 1.5}, bad[] = {2.2, 1.5};
    /* variance is finite for shape > 2 but the tail is heavy: mean check
     * with a wide tolerance */
    ASSERT_TRUE(check_continuous(tc_, d, cdf_pareto, par, bad, 8));
    ASSERT_NEAR(sim_dist_mean(d), 2.5 * 1.5 / 1.5, 1e-12);
    sim_dist_destroy(d);
    ASSERT_OK(sim_dist_pareto(&d, 0.9, 1.0));
    ASSERT_TRUE(isinf(sim_dist_mean(d)));
    sim_dist_destroy(d);
}

TEST(gamma_dist)
{
    sim_dist *d;
    ASSERT_OK(sim_dist_gamma(&d, 2.2, 0.5));
    double par[] = {2.2, 0.5}, bad[] = {2.0, 0.6};
    ASSERT_TRUE(check_continuous(tc_, d, cdf_gamma, par, bad, 5));
    sim_dist_destroy(d);
    /* shape < 1 takes another GSL path */
    ASSERT_OK(sim_dist_gamma(&d, 0.4, 3.0));
    double par2[] = {0.4, 3.0}, bad2[] = {0.45, 3.0};
    ASSERT_TRUE(check_continuous(tc_, d, cdf_gamma, par2, bad2, 5));
    sim_dist_destroy(d);
}

TEST(uniform)
{
    sim_dist *d;
    ASSERT_OK(sim_dist_uniform(&d, -2.0, 5.0));
    double par[] = {-2.0, 5.0}, bad[] = {-2.0, 5.2};
    ASSERT_TRUE(check_continuous(tc_, d, cdf_flat, par, bad, 5));
    sim_dist_destroy(d);
    ASSERT_EQ(sim_dist_uniform(&d, 1, 1), SIM_ERR_ARG);
}

TEST(constant_and_duration)
{
    sim_dist *d;
    gsl_rng *r = sim_rng_alloc_stream(1, 0, SIM_STREAM_TEST, 0);
    ASSERT_OK(sim_dist_const(&d, 1.5));
    ASSERT_NEAR(sim_dist_sample(d, r), 1.5, 0);
    ASSERT_EQ(sim_dist_sample_duration(d, r), 1500000);
    ASSERT_NEAR(sim_dist_cdf(d, 1.49), 0, 0);
    ASSERT_NEAR(sim_dist_cdf(d, 1.5), 1, 0);
    sim_dist_destroy(d);
    ASSERT_OK(sim_dist_const(&d, -3));
    ASSERT_EQ(sim_dist_sample_duration(d, r), 0);
    sim_dist_destroy(d);
    sim_dist_destroy(NULL);
    gsl_rng_free(r);
}

/* a duration drawn from any distribution can be added to a
 * time without overflow, and a distribution states its range. */
TEST(extreme_values)
{
    sim_dist *d;
    gsl_rng *r = sim_rng_alloc_stream(1, 0, SIM_STREAM_TEST, 1);
    ASSERT_OK(sim_dist_uniform(&d, -1e308, 1e308));
    double lo, hi;
    sim_dist_support(d, &lo, &hi);
    ASSERT_NEAR(lo, -1e308, 0);
    ASSERT_NEAR(hi, 1e308, 0);
    for (int i = 0; i < 1000; i++) {
        sim_time t = sim_dist_sample_duration(d, r);
        ASSERT_TRUE(t >= 0 && t <= SIM_DURATION_MAX);
        ASSERT_TRUE(SIM_TIME_MAX - t > (sim_time)4e15 * 8);  /* room for sums */
    }
    sim_dist_destroy(d);
    ASSERT_OK(sim_dist_const(&d, 1e300));
    ASSERT_EQ(sim_dist_sample_duration(d, r), SIM_DURATION_MAX);
    sim_dist_destroy(d);
    static const double v[] = {5, -2, 9, 100}, w[] = {1, 1, 1, 0};
    ASSERT_OK(sim_dist_empirical(&d, v, w, 4));
    sim_dist_support(d, &lo, &hi);
    ASSERT_NEAR(lo, -2, 0);
    ASSERT_NEAR(hi, 9, 0);      /* 100 has weight 0: never drawn */
    sim_dist_destroy(d);
    ASSERT_OK(sim_dist_exponential(&d, 3));
    sim_dist_support(d, &lo, &hi);
    ASSERT_TRUE(lo == 0 && isinf(hi));
    sim_dist_destroy(d);
    ASSERT_OK(sim_dist_zipf(&d, 50, 1));
    sim_dist_support(d, &lo, &hi);
    ASSERT_TRUE(lo == 1 && hi == 50);
    sim_dist_destroy(d);
    ASSERT_TRUE(sim_dist_footprint(SIM_DIST_ZIPF, 1000) >= 1000 * 32);
    ASSERT_TRUE(sim_dist_footprint(SIM_DIST_EXPONENTIAL, 1000) < 1000);
    ASSERT_EQ(sim_dist_footprint(SIM_DIST_EMPIRICAL, UINT64_MAX / 2), SIZE_MAX);
    gsl_rng_free(r);
}

/* Chi-square over discrete outcomes with expected counts p[i]*n; cells
 * with expected < 5 are merged into their neighbours. */
static double discrete_pvalue(const size_t *cnt, const double *p, size_t k, size_t n)
{
    double chi2 = 0, o = 0, e = 0;
    size_t df = 0;
    for (size_t i = 0; i < k; i++) {
        o += (double)cnt[i];
        e += p[i] * (double)n;
        if (e >= 5 || i == k - 1) {
            if (e > 0) {
                chi2 += (o - e) * (o - e) / e;
                df++;
            }
            o = e = 0;
        }
    }
    return gsl_cdf_chisq_Q(chi2, (double)(df - 1));
}

TEST(empirical)
{
    double vals[] = {10, 20, 30, 40, 50}, w[] = {1, 0, 3, 5, 1};
    sim_dist *d;
    ASSERT_OK(sim_dist_empirical(&d, vals, w, 5));
    ASSERT_EQ(sim_dist_outcomes(d), 5);
    ASSERT_NEAR(sim_dist_pmf(d, 3), 0.5, 1e-15);
    ASSERT_NEAR(sim_dist_cdf(d, 30), 0.4, 1e-15);
    ASSERT_NEAR(sim_dist_mean(d), 1 + 9 + 20 + 5, 1e-12);
    size_t n = nsamples(), cnt[5] = {0};
    gsl_rng *r = sim_rng_alloc_stream(3, 0, SIM_STREAM_TEST, 0);
    for (size_t i = 0; i < n; i++) {
        double v = sim_dist_sample(d, r);
        size_t k = (size_t)(v / 10) - 1;
        ASSERT_TRUE(k < 5 && vals[k] == v);
        cnt[k]++;
    }
    ASSERT_EQ(cnt[1], 0); /* weight 0 never drawn */
    double p[5], bad[5] = {0.1, 0.0, 0.33, 0.45, 0.12};
    for (int i = 0; i < 5; i++)
        p[i] = sim_dist_pmf(d, (size_t)i);
    ASSERT_TRUE(discrete_pvalue(cnt, p, 5, n) > P_ACCEPT);
    ASSERT_TRUE(discrete_pvalue(cnt, bad, 5, n) < P_REJECT);
    gsl_rng_free(r);
    sim_dist_destroy(d);
    double neg[] = {1, -1};
    ASSERT_EQ(sim_dist_empirical(&d, vals, neg, 2), SIM_ERR_ARG);
    double zero[] = {0, 0};
    ASSERT_EQ(sim_dist_empirical(&d, vals, zero, 2), SIM_ERR_ARG);
    ASSERT_EQ(sim_dist_empirical(&d, vals, w, 0), SIM_ERR_ARG);
}

TEST(zipf)
{
    const size_t N = 1000;
    const double s = 1.1;
    sim_dist *d;
    ASSERT_OK(sim_dist_zipf(&d, N, s));
    /* closed form of the pmf */
    double h = 0;
    for (size_t k = 1; k <= N; k++)
        h += pow((double)k, -s);
    ASSERT_NEAR(sim_dist_pmf(d, 0), 1 / h, 1e-12);
    ASSERT_NEAR(sim_dist_pmf(d, 9), pow(10, -s) / h, 1e-12);
    ASSERT_NEAR(sim_dist_cdf(d, 2.5), (1 + pow(2, -s)) / h, 1e-12);
    ASSERT_NEAR(sim_dist_cdf(d, (double)N), 1, 0);
    size_t n = 200000;
    size_t *cnt = calloc(N, sizeof *cnt);
    double *p = malloc(N * sizeof *p), *bad = malloc(N * sizeof *bad);
    double hb = 0;
    for (size_t k = 1; k <= N; k++)
        hb += pow((double)k, -1.0);
    for (size_t k = 0; k < N; k++) {
        p[k] = sim_dist_pmf(d, k);
        bad[k] = pow((double)(k + 1), -1.0) / hb; /* s = 1 instead of 1.1 */
    }
    gsl_rng *r = sim_rng_alloc_stream(4, 0, SIM_STREAM_TEST, 0);
    for (size_t i = 0; i < n; i++) {
        double v = sim_dist_sample(d, r);
        ASSERT_TRUE(v >= 1 && v <= (double)N && v == floor(v));
        cnt[(size_t)v - 1]++;
    }
    ASSERT_TRUE(discrete_pvalue(cnt, p, N, n) > P_ACCEPT);
    ASSERT_TRUE(discrete_pvalue(cnt, bad, N, n) < P_REJECT);
    /* sample_index is rank - 1 */
    ASSERT_TRUE(sim_dist_sample_index(d, r) < N);
    gsl_rng_free(r);
    free(cnt);
    free(p);
    free(bad);
    sim_dist_destroy(d);
    ASSERT_EQ(sim_dist_zipf(&d, 0, 1), SIM_ERR_ARG);
    ASSERT_EQ(sim_dist_zipf(&d, 10, -1), SIM_ERR_ARG);
}

/* NHPP with a daily profile: arrivals per hour of day follow the profile. */
TEST(nhpp_daily_profile)
{
    double prof[24];
    for (int i = 0; i < 24; i++)
        prof[i] = 1.0 + 0.8 * sin(2 * M_PI * (i - 6) / 24.0); /* peak noon-ish */
    prof[3] = 0; /* a dead hour */
    sim_nhpp *p;
    double rate = 0.05; /* per second: 4320 per day */
    ASSERT_OK(sim_nhpp_create(&p, rate, prof, 24, SIM_DAY, 2 * SIM_HOUR));
    int days = (int)(20 * test_scale()) + 1;
    size_t cnt[24] = {0}, total = 0;
    gsl_rng *r = sim_rng_alloc_stream(6, 0, SIM_STREAM_TEST, 0);
    sim_time now = 0, end = days * SIM_DAY;
    for (;;) {
        now = sim_nhpp_next(p, r, now);
        if (now >= end)
            break;
        /* hour of the profile: phase 2 h */
        size_t h = (size_t)(((now - 2 * SIM_HOUR) % SIM_DAY + SIM_DAY) % SIM_DAY / SIM_HOUR);
        cnt[h]++;
        total++;
    }
    ASSERT_EQ(cnt[3], 0);
    double e_total = sim_nhpp_expected(p, 0, end);
    ASSERT_NEAR(e_total, rate * 86400.0 * days, 1e-6 * e_total);
    /* Poisson total within 5 sd */
    ASSERT_TRUE(fabs((double)total - e_total) < 5 * sqrt(e_total));
    double pr[24], bad[24], sum = 0;
    for (int i = 0; i < 24; i++)
        sum += prof[i];
    for (int i = 0; i < 24; i++) {
        pr[i] = prof[i] / sum;
        bad[i] = 1.0 / 24;
        /* intensity and exact integral agree with the profile */
        sim_time at = 2 * SIM_HOUR + i * SIM_HOUR + SIM_MIN;
        ASSERT_NEAR(sim_nhpp_rate_at(p, at), rate * 24 * prof[i] / sum, 1e-12);
        ASSERT_NEAR(sim_nhpp_expected(p, at - SIM_MIN, at - SIM_MIN + SIM_HOUR),
                    rate * 3600 * 24 * prof[i] / sum, 1e-6);
    }
    ASSERT_TRUE(discrete_pvalue(cnt, pr, 24, total) > P_ACCEPT);
    ASSERT_TRUE(discrete_pvalue(cnt, bad, 24, total) < P_REJECT);
    gsl_rng_free(r);
    sim_nhpp_destroy(p);
}

/* Homogeneous: gaps are exponential with mean 1/rate. */
static double cdf_gap(double x, const double *par) { return gsl_cdf_exponential_P(x, par[0]); }

TEST(nhpp_homogeneous)
{
    sim_nhpp *p;
    ASSERT_OK(sim_nhpp_create(&p, 2.0, NULL, 0, SIM_DAY, 0));
    size_t n = nsamples();
    double *gaps = malloc(n * sizeof *gaps);
    gsl_rng *r = sim_rng_alloc_stream(7, 0, SIM_STREAM_TEST, 0);
    sim_time now = 0;
    for (size_t i = 0; i < n; i++) {
        sim_time u = sim_nhpp_next(p, r, now);
        ASSERT_TRUE(u >= now);
        gaps[i] = sim_time_to_sec(u - now);
        now = u;
    }
    /* gaps are rounded to 1 us; the law's cells are 10 ms wide on average */
    double par[] = {0.5}, bad[] = {0.55};
    ASSERT_TRUE(pit_pvalue(gaps, n, cdf_gap, par) > P_ACCEPT);
    ASSERT_TRUE(pit_pvalue(gaps, n, cdf_gap, bad) < P_REJECT);
    free(gaps);
    gsl_rng_free(r);
    sim_nhpp_destroy(p);
    /* rate 0: never */
    ASSERT_OK(sim_nhpp_create(&p, 0, NULL, 0, SIM_DAY, 0));
    r = sim_rng_alloc_stream(7, 0, SIM_STREAM_TEST, 1);
    ASSERT_EQ(sim_nhpp_next(p, r, 5), SIM_TIME_MAX);
    gsl_rng_free(r);
    sim_nhpp_destroy(p);
    double zero[2] = {0, 0}, neg[2] = {1, -1};
    ASSERT_EQ(sim_nhpp_create(&p, 1, zero, 2, SIM_DAY, 0), SIM_ERR_ARG);
    ASSERT_EQ(sim_nhpp_create(&p, 1, neg, 2, SIM_DAY, 0), SIM_ERR_ARG);
    ASSERT_EQ(sim_nhpp_create(&p, -1, NULL, 0, SIM_DAY, 0), SIM_ERR_ARG);
    ASSERT_EQ(sim_nhpp_create(&p, 1, NULL, 0, 0, 0), SIM_ERR_ARG);
}

/* A run records a distribution parameter with every parameter it was
 * built with (a lognormal's sigma too, not its mean alone), and the
 * length snprintf would give however small the buffer. */
TEST(format_records_every_parameter)
{
    char buf[256];
    sim_dist *d;
    ASSERT_OK(sim_dist_lognormal(&d, 3.5, 0.25));
    ASSERT_EQ(sim_dist_format(d, buf, sizeof buf), (int)strlen("lognormal(mu=3.5,sigma=0.25)"));
    ASSERT_STR_EQ(buf, "lognormal(mu=3.5,sigma=0.25)");
    sim_dist_destroy(d);
    ASSERT_OK(sim_dist_pareto(&d, 1.5, 86400));
    sim_dist_format(d, buf, sizeof buf);
    ASSERT_STR_EQ(buf, "pareto(shape=1.5,scale=86400)");
    sim_dist_destroy(d);
    ASSERT_OK(sim_dist_const(&d, 20));
    sim_dist_format(d, buf, sizeof buf);
    ASSERT_STR_EQ(buf, "const(mean=20)");
    sim_dist_destroy(d);
    ASSERT_OK(sim_dist_uniform(&d, -1, 2));
    sim_dist_format(d, buf, sizeof buf);
    ASSERT_STR_EQ(buf, "uniform(lo=-1,hi=2)");
    sim_dist_destroy(d);
    ASSERT_OK(sim_dist_zipf(&d, 100, 1.2));
    sim_dist_format(d, buf, sizeof buf);
    ASSERT_STR_EQ(buf, "zipf(n=100,s=1.2)");
    sim_dist_destroy(d);
    const double v[] = {1, 3}, w[] = {1, 3};
    ASSERT_OK(sim_dist_empirical(&d, v, w, 2));
    const char *want = "empirical(values=[1,3],p=[0.25,0.75])";
    ASSERT_EQ(sim_dist_format(d, buf, sizeof buf), (int)strlen(want));
    ASSERT_STR_EQ(buf, want);
    char small[10];
    ASSERT_EQ(sim_dist_format(d, small, sizeof small), (int)strlen(want));
    ASSERT_EQ(strlen(small), sizeof small - 1);
    ASSERT_EQ(strncmp(small, want, sizeof small - 1), 0);
    sim_dist_destroy(d);
}

static const test_case cases[] = {
    {"format_records_every_parameter", format_records_every_parameter},
    {"exponential", exponential},
    {"lognormal", lognormal},
    {"weibull", weibull},
    {"pareto", pareto},
    {"gamma_dist", gamma_dist},
    {"uniform", uniform},
    {"constant_and_duration", constant_and_duration},
    {"extreme_values", extreme_values},
    {"empirical", empirical},
    {"zipf", zipf},
    {"nhpp_daily_profile", nhpp_daily_profile},
    {"nhpp_homogeneous", nhpp_homogeneous},
};

TEST_MAIN(cases)
