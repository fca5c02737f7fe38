/*
 * case_latency.c - case 7: the cost of each extra kilobyte in the server's
 * first flight, in median handshake latency, against the published rule
 * of about 1.5 % per KB (docs/sources.md [latency-kb]).
 *
 * The model's handshake time (sim/web_latency.h) over a population of
 * paths drawn once (assumed distributions, docs/validation.md), for a
 * first flight of 4 KB and of 4 + k KB, k = 1..10: the relative change of
 * the median per extra KB, over the whole sweep. Nothing is fitted: the
 * rows are shown for information with the reason in the docs.
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

/* Median handshake time over the paths for a server flight of `bytes`. */
static double median_ms(web_lat_proto proto, const tls_transport *t,
                        const double *rtt, const double *bw, size_t n,
                        size_t bytes, double *buf)
{
    for (size_t i = 0; i < n; i++) {
        web_lat_path p = {rtt[i], bw[i], 0.0};
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
    /* Assumed paths: rtt lognormal, median 50 ms; bandwidth lognormal,
     * median 20 Mbit/s (docs/validation.md, case 7). */
    for (size_t i = 0; i < LAT_PATHS; i++) {
        rtt[i] = 50.0 * exp(0.8 * gsl_ran_ugaussian(r));
        bw[i] = 20e6 * exp(1.0 * gsl_ran_ugaussian(r));
    }
    tls_transport t;
    tls_transport_defaults(&t);
    t.quic_client_initial = 1250;
    static const web_lat_proto protos[] = {WEB_LAT_TCP_TLS13, WEB_LAT_QUIC};
    static const char *const names[] = {"TCP + TLS 1.3", "QUIC"};
    for (int q = 0; q < 2; q++) {
        double m0 = median_ms(protos[q], &t, rtt, bw, LAT_PATHS, LAT_BASE, buf);
        double m1 = median_ms(protos[q], &t, rtt, bw, LAT_PATHS,
                              LAT_BASE + 1000 * LAT_KB_MAX, buf);
        double mk1 = median_ms(protos[q], &t, rtt, bw, LAT_PATHS, LAT_BASE + 1000, buf);
        char name[80];
        snprintf(name, sizeof name, "%s: median change per KB, 4 to 14 KB", names[q]);
        v_info(c, name, "%/KB", 2, 1.5, 100.0 * (m1 / m0 - 1.0) / LAT_KB_MAX);
        snprintf(name, sizeof name, "%s: median change, first extra KB", names[q]);
        v_info(c, name, "%/KB", 2, 1.5, 100.0 * (mk1 / m0 - 1.0));
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
