/*
 * web_path.c - handshake latency over each client's network path: the
 * bytes a handshake already counted (web_handshake.c), framed for the
 * cohort's transport, priced by sim/web_latency.h, recorded per cohort
 * beside the same handshake under each baseline chain.
 *
 * Opt-in per cohort (an rtt distribution): a cohort without one has no
 * path array, takes no draw and records nothing here, and when no cohort
 * has one the latency metrics are not even created, so a run without
 * latency is the run it was. Draws come from the client's path stream
 * (WEB_STREAM_CLIENT_PATH) through a generator of its own, so the
 * client's other draws are the same with or without a path (common
 * random numbers). The baselines are priced on the same connection's rtt
 * (jitter included) and the same loss draw.
 */
#include <stdlib.h>

#include "mtc/error.h"
#include "sim/web_latency.h"
#include "web_internal.h"

int web__path_create(web *wb)
{
    int any = 0;
    for (size_t k = 0; k < wb->ncohorts; k++)
        any |= wb->cohorts[k].cfg.rtt != NULL;
    if (!any)
        return MTC_OK;
    int rc = sim_rng_create(&wb->path_rng, sim_rng_seed(wb->env.rng),
                            sim_rng_replication(wb->env.rng));
    if (rc != 0)
        return MTC_ERR_NOMEM;
    sim_metrics *m = wb->env.metrics;
    size_t nc = wb->ncohorts;
    web_metrics *x = &wb->m;
    rc = 0;
    rc |= sim_metrics_histogram(m, "handshake_ms", "ms", nc, 0, 0.1, 1e6, 100, &x->lat);
    rc |= sim_metrics_histogram(m, "handshake_ms_baseline_classical", "ms", nc, 0, 0.1, 1e6, 100, &x->lat_base[0]);
    rc |= sim_metrics_histogram(m, "handshake_ms_baseline_mldsa44", "ms", nc, 0, 0.1, 1e6, 100, &x->lat_base[1]);
    rc |= sim_metrics_histogram(m, "handshake_ms_resumed", "ms", nc, 0, 0.1, 1e6, 100, &x->lat_resumed);
    if (rc)
        return MTC_ERR_SIM_METRIC;
    const char **lab = calloc(nc, sizeof *lab);
    if (!lab)
        return MTC_ERR_NOMEM;
    for (size_t i = 0; i < nc; i++)
        lab[i] = wb->cohorts[i].cfg.name;
    sim_metric *cm[] = {x->lat, x->lat_base[0], x->lat_base[1], x->lat_resumed};
    for (size_t i = 0; i < sizeof cm / sizeof cm[0]; i++)
        sim_metric_set_cohort_labels(cm[i], lab, nc);
    free(lab);
    return MTC_OK;
}

void web__path_destroy(web *wb)
{
    sim_rng_destroy(wb->path_rng);
    wb->path_rng = NULL;
}

void web__path_init(web *wb, web_path *p, const web_cohort *co, uint64_t cid)
{
    sim_stream ps = {cid, 0, WEB_STREAM_CLIENT_PATH, 0};
    gsl_rng *r = sim_rng_use(wb->path_rng, &ps);
    double rtt = sim_dist_sample(co->cfg.rtt, r);
    /* a distribution with mass at or below 0 (normal...) is cut at 1 us */
    p->rtt_ms = rtt >= 0.001 ? rtt : 0.001;
    /* the bandwidth next (a constant takes no draw, so a cohort with a
     * constant bandwidth draws as it did when bandwidth was a number);
     * a draw at or below 0 means no serialization, as 0 does */
    double bw = co->cfg.bandwidth ? sim_dist_sample(co->cfg.bandwidth, r) : 0.0;
    p->bandwidth_bps = bw > 0 ? bw : 0.0;
    p->n = ps.n;
}

/* One connection's path: the client's rtt plus its jitter draw. */
static gsl_rng *connection(web *wb, const web_cohort *co, web_path *p,
                           sim_stream *ps, web_lat_path *out)
{
    gsl_rng *r = sim_rng_use(wb->path_rng, ps);
    out->rtt_ms = p->rtt_ms;
    if (co->cfg.rtt_jitter) {
        double j = sim_dist_sample(co->cfg.rtt_jitter, r);
        if (j > 0)
            out->rtt_ms += j;
    }
    out->bandwidth_bps = p->bandwidth_bps;
    out->loss_prob = co->cfg.loss_prob;
    return r;
}

/* The wire bytes of one attempt on the cohort's transport. */
static void flights(const web_cohort *co, uint32_t name_len, uint32_t ch_ext,
                    uint32_t enc, double server_ms, web_lat_flights *f)
{
    const web_flight *fl = &co->fl;
    if (co->cfg.transport == 1) {
        unsigned dg = web__flight_dgrams(fl, name_len, ch_ext);
        f->client_first = (size_t)dg * fl->t.quic_client_initial;
        f->server_first = tls_quic_flight_bytes(&fl->t, fl->sh_quic, enc, NULL);
        f->client_second = fl->fin_quic;
    } else {
        f->client_first = (size_t)fl->ch_tcp_base + name_len + ch_ext;
        f->server_first = tls_tcp_flight_bytes(&fl->t, fl->sh_tcp, enc);
        f->client_second = fl->fin_tcp;
    }
    f->server_ms = server_ms;
}

static web_lat_proto proto_of(const web_cohort *co)
{
    return co->cfg.transport == 1 ? WEB_LAT_QUIC : WEB_LAT_TCP_TLS13;
}

void web__path_full(web *wb, const web_client *c, const web_cohort *co,
                    uint32_t site, unsigned n, const uint32_t *ch_ext,
                    const uint32_t *enc)
{
    web_path *p = web__path(wb, c, co);
    sim_stream ps = {web__client_id(wb, c), p->n, WEB_STREAM_CLIENT_PATH, 0};
    web_lat_path path;
    gsl_rng *r = connection(wb, co, p, &ps, &path);
    const web_site_hot *sh = &wb->siteh[site];
    double sign = web_latency_sign_ms((mtc_sig_alg)sh->alg);
    size_t k = c->cohort;
    web_lat_flights f[2];
    for (unsigned i = 0; i < n && i < 2; i++)
        flights(co, sh->name_len, ch_ext[i], enc[i], sign, &f[i]);
    /* MTC and the baselines see the same loss (common random numbers):
     * each pricing takes at most one draw, the stream's next, so it is
     * drawn once and shared by the three (web_latency_ms_paired), which
     * also prices the set-up and the client's first flight once.
     * the baselines: no trust_anchors, no retry, the site's own key */
    web_lat_flights b[2];
    for (int i = 0; i < 2; i++)
        flights(co, sh->name_len, 0, sh->base_auth[i] + wb->enc_fixed, sign, &b[i]);
    double ms[3];
    if (web_latency_ms_paired(proto_of(co), &co->fl.t, &path, &f[0],
                              n > 1 ? &f[1] : NULL, b, 2, r, -1.0, ms) == 0) {
        if (ms[0] >= 0)
            sim_hist_observe(wb->m.lat, k, ms[0]);
        for (int i = 0; i < 2; i++)
            if (ms[1 + i] >= 0)
                sim_hist_observe(wb->m.lat_base[i], k, ms[1 + i]);
    }
    p->n = ps.n;
}

void web__path_resumed(web *wb, const web_client *c, const web_cohort *co,
                       uint32_t site)
{
    web_path *p = web__path(wb, c, co);
    sim_stream ps = {web__client_id(wb, c), p->n, WEB_STREAM_CLIENT_PATH, 0};
    web_lat_path path;
    gsl_rng *r = connection(wb, co, p, &ps, &path);
    /* PSK: ServerHello, EncryptedExtensions and Finished, no signature;
     * the ClientHello's pre_shared_key is not modelled. */
    web_lat_flights f;
    flights(co, wb->siteh[site].name_len, 0, wb->enc_fixed, 0.0, &f);
    double ms = web_latency_ms(proto_of(co), &co->fl.t, &path, &f, NULL, r);
    if (ms >= 0)
        sim_hist_observe(wb->m.lat_resumed, c->cohort, ms);
    p->n = ps.n;
}
