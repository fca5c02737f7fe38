/*
 * case_latency.c - case 7: the cost of each extra kilobyte in the server's
 * first flight, in median handshake latency, against the published rule
 * of about 1.5 % per KB (docs/sources.md [latency-kb]).
 *
 * The model's handshake time (sim/web_latency.h) over a population of
 * paths from the sourced distributions quickstart uses (docs/sources.md
 * [path-model]: 30 % desktops, 70 % mobile, RTT after Chrome's own
 * estimates, bandwidth after Speedtest medians), for a first flight of
 * 4 KB and of 4 + k KB, k = 1 and 10: the relative change of the median
 * per extra KB. Ten replications, each a population drawn anew, give the
 * rows' intervals. Nothing is fitted: the rows are shown for information
 * with the reason in the docs.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "sim/rng.h"
#include "sim/tls.h"
#include "sim/web_latency.h"
#include "vcases.h"

#define LAT_PATHS 20001
#define LAT_BASE 4000
#define LAT_KB_MAX 10
#define LAT_REPS 10

/* A path class of docs/sources.md [path-model]: lognormal RTT (median,
 * sigma) and bandwidth (median, sigma), its share of the clients. The
 * paths of scenarios/lib/platform.lua (tests/sh_scenarios.sh checks that
 * the numbers agree); verification is not priced here. */
typedef struct lat_class {
    double share, rtt_ms, rtt_sigma, bw_bps, bw_sigma;
} lat_class;

static const lat_class lat_classes[] = {
    {0.3, 74.0, 0.38, 107.5e6, 1.0}, /* desktop */
    {0.7, 113.0, 0.43, 55.1e6, 1.0}, /* mobile */
};

/* Median handshake time over the paths for a server flight of `bytes`. */
static double median_ms(web_lat_proto proto, const tls_transport *t,
                        const double *rtt, const double *bw, size_t n,
                        size_t bytes, double *buf)
{
    for (size_t i = 0; i < n; i++) {
        web_lat_path p = {.rtt_ms = rtt[i], .bandwidth_bps = bw[i], .loss_prob = 0.0};
        web_lat_flights f = {proto == WEB_LAT_QUIC ? 1250 : 1600, bytes, 80, 0.03};
        buf[i] = web_latency_ms(proto, t, &p, &f, NULL, NULL);
    }
    gsl_sort(buf, 1, n);
    return gsl_stats_median_from_sorted_data(buf, 1, n);
}

int case_7(vctx *c)
{
    double *rtt = malloc(LAT_PATHS * sizeof *rtt);
    double *bw = malloc(LAT_PATHS * sizeof *bw);
    double *buf = malloc(LAT_PATHS * sizeof *buf);
    gsl_rng *r = sim_rng_alloc_stream(7, 0, SIM_STREAM_TEST, 7);
    int rc = -1;
    if (!rtt || !bw || !buf || !r)
        goto done;
    tls_transport t;
    tls_transport_defaults(&t);
    t.quic_client_initial = 1250;
    static const web_lat_proto protos[] = {WEB_LAT_TCP_TLS13, WEB_LAT_QUIC};
    static const char *const names[] = {"TCP + TLS 1.3", "QUIC"};
    /* per replication: [protocol][0: per KB over 4-14 KB, 1: first KB,
     * 2: the median itself at 4 KB] */
    double x[2][3][LAT_REPS];
    for (int rep = 0; rep < LAT_REPS; rep++) {
        for (size_t i = 0; i < LAT_PATHS; i++) {
            const lat_class *k = &lat_classes[gsl_rng_uniform(r) < lat_classes[0].share ? 0 : 1];
            rtt[i] = k->rtt_ms * exp(k->rtt_sigma * gsl_ran_ugaussian(r));
            bw[i] = k->bw_bps * exp(k->bw_sigma * gsl_ran_ugaussian(r));
        }
        for (int q = 0; q < 2; q++) {
            double m0 = median_ms(protos[q], &t, rtt, bw, LAT_PATHS, LAT_BASE, buf);
            double m1 = median_ms(protos[q], &t, rtt, bw, LAT_PATHS,
                                  LAT_BASE + 1000 * LAT_KB_MAX, buf);
            double mk1 = median_ms(protos[q], &t, rtt, bw, LAT_PATHS, LAT_BASE + 1000, buf);
            x[q][0][rep] = 100.0 * (m1 / m0 - 1.0) / LAT_KB_MAX;
            x[q][1][rep] = 100.0 * (mk1 / m0 - 1.0);
            x[q][2][rep] = m0;
        }
    }
    for (int q = 0; q < 2; q++) {
        static const char *const what[] = {"median change per KB, 4 to 14 KB",
                                           "median change, first extra KB",
                                           "median handshake at 4 KB"};
        for (int w = 0; w < 3; w++) {
            vstat st;
            v_stat(x[q][w], LAT_REPS, &st);
            char name[80];
            snprintf(name, sizeof name, "%s: %s", names[q], what[w]);
            v_info_ci(c, name, w < 2 ? "%/KB" : "ms", w < 2 ? 3 : 1, w < 2 ? 1.5 : NAN, &st);
        }
    }
    rc = 0;
done:
    free(rtt);
    free(bw);
    free(buf);
    if (r)
        gsl_rng_free(r);
    return rc;
}
