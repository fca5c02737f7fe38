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
 *
 * Client verification (docs/model.md "Client verification time"): each
 * full handshake adds the time the client spends verifying what it was
 * sent, from the measured cost table (sim/web_verify.h) scaled by the
 * cohort's cpu_slowdown: the CertificateVerify always; a signatureless
 * certificate's proof hashes; a standalone one's cosignatures under the
 * policy too; a baseline chain's leaf, intermediate and SCT signatures.
 * A small per-client cache (Chrome's CachingCertVerifier, WEB_VCACHE
 * entries for WEB_VCACHE_TTL s) makes a repeat certificate cost the
 * CertificateVerify alone. It is keyed by the full-size world's rank the
 * sampled site stands in for, as the session tickets are (Chrome's keys
 * the certificate with the host name): keyed by the sampled site, a
 * small sample would make different sites share entries, and hit more
 * often the smaller the sample.
 */
#include <math.h>
#include <stdlib.h>

#include "mtc/error.h"
#include "sim/status.h"
#include "sim/web_latency.h"
#include "sim/web_verify.h"
#include "web_internal.h"

/* us of a list of (operation, count) at the development machine's speed */
static double list_us(const web_vcount *l, size_t n)
{
    double ms = 0.0;
    return web_verify_ms(l, n, 1.0, &ms) == 0 ? 1000.0 * ms : 0.0;
}

/* us of what a client verifies of profile p's chain built with `o`,
 * besides the CertificateVerify: the leaf's, the intermediate's and the
 * SCTs' signatures, each with its signer's key type (mtc/chain.h), and
 * one certificate path. The client's store holds the newest root
 * (Chrome's does), so it checks no cross-sign. -1 when an algorithm has
 * no cost. */
static double chain_us(const mtc_chain_profile *p, const mtc_chain_opts *o)
{
    mtc_chain_verif v[MTC_CHAIN_VERIF_MAX];
    web_vcount l[MTC_CHAIN_VERIF_MAX + 1];
    int n = web_verify_from_chain(v, mtc_chain_verifications(p, o, v), 1, 0, l);
    if (n < 0)
        return -1.0;
    l[n++] = (web_vcount){WEB_VOP_X509_PATH, 1};
    return list_us(l, (size_t)n);
}

/* The verification prices (web_vprice) of this world's CAs and chains. */
static int vprice_init(web *wb)
{
    web_vprice *v = &wb->vp;
    for (int a = 0; a < 8; a++) {
        web_vop op = web_verify_op_of_sig((mtc_sig_alg)a);
        v->cv_us[a] = op < WEB_VOP_COUNT ? web_verify_cost_us[op] : 0.0;
    }
    v->node_us = web_verify_cost_us[WEB_VOP_SHA256_NODE];
    v->path_us = web_verify_cost_us[WEB_VOP_X509_PATH];
    size_t np;
    const mtc_chain_profile *prof = mtc_chain_profiles(&np);
    v->base_us = calloc(np * 3 + 1, sizeof *v->base_us);
    v->today_cv_us = calloc(np + 1, sizeof *v->today_cv_us);
    v->today_sign_ms = calloc(np + 1, sizeof *v->today_sign_ms);
    v->sa_us = calloc(wb->nca ? wb->nca : 1, sizeof *v->sa_us);
    if (!v->base_us || !v->today_cv_us || !v->today_sign_ms || !v->sa_us)
        return MTC_ERR_NOMEM;
    /* the chains of web_flight.c's baselines: the profile's CAs
     * (classical; the leaf key does not sign anything verified here), all
     * CAs and logs ML-DSA-44 without cross-signs, today's as served */
    const mtc_chain_opts pq = {.ca_alg = MTC_CHAIN_ALG_MLDSA44, .drop_cross = 1};
    for (size_t p = 0; p < np; p++) {
        double c = chain_us(&prof[p], NULL), q = chain_us(&prof[p], &pq);
        web_vop cv = web_verify_op_of_chain_alg(prof[p].leaf_key);
        if (c < 0 || q < 0 || cv == WEB_VOP_COUNT)
            return MTC_ERR_UNSUPPORTED;
        v->base_us[p * 3 + WEB_BASE_CLASSICAL] = c;
        v->base_us[p * 3 + WEB_BASE_MLDSA44] = q;
        v->base_us[p * 3 + WEB_BASE_TODAY] = c;
        v->today_cv_us[p] = web_verify_cost_us[cv];
        v->today_sign_ms[p] = web_latency_sign_ms_chain(prof[p].leaf_key);
    }
    /* a standalone certificate: the CA's cosignature and the first
     * `quorum` external ones (the policy "pki": CA + quorum; a client
     * stops verifying once the policy is met) */
    for (size_t ca = 0; ca < wb->nca; ca++) {
        const sim_ca_info *ci = wb->pki->ca(wb->pki->ctx, ca);
        if (!ci)
            continue;
        web_vcount l[1 + 16];
        size_t n = 0;
        l[n++] = (web_vcount){web_verify_op_of_sig(ci->alg), 1};
        for (unsigned i = 0; i < ci->quorum && n < sizeof l / sizeof l[0]; i++) {
            mtc_sig_alg a = wb->pki->cosigner_alg
                                ? wb->pki->cosigner_alg(wb->pki->ctx, ca, i)
                                : ci->alg;
            l[n++] = (web_vcount){web_verify_op_of_sig(a), 1};
        }
        /* an unknown algorithm costs nothing rather than failing a run */
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (l[i].op < WEB_VOP_COUNT)
                l[k++] = l[i];
        v->sa_us[ca] = list_us(l, k);
    }
    return MTC_OK;
}

/* The baselines' verification time of a handshake of cohort k with a
 * site of chain profile `prof` whose key is `alg`, the site cached (hit)
 * or not: WEB_BASE_*. */
static double base_verify(const web *wb, size_t k, size_t prof, unsigned alg, int hit,
                          int i)
{
    const web_vprice *vp = &wb->vp;
    double cv = i == WEB_BASE_TODAY ? vp->today_cv_us[prof] : vp->cv_us[alg & 7];
    return wb->cohorts[k].cfg.cpu_slowdown * 1e-3 *
           (cv + (hit ? 0.0 : vp->base_us[prof * 3 + (size_t)i]));
}

/* Records the deferred baseline verifications: they depend on the
 * cohort, the site's key algorithm and whether the site was cached
 * alone, so they are counted per such cell and recorded n at a time (a
 * histogram keeps no order: the same values, bit for bit, as one at a
 * time). */
static void vflush(void *ctx)
{
    web *wb = ctx;
    web__obsbuf_flush(wb->latbuf);
    for (size_t k = 0; k < wb->ncohorts; k++)
        for (size_t prof = 0; prof < wb->nprof; prof++)
            for (unsigned alg = 0; alg < 8; alg++)
                for (int hit = 0; hit < 2; hit++) {
                    uint64_t *n = &wb->vpend[((k * wb->nprof + prof) * 8 + alg) * 2 +
                                             (unsigned)hit];
                    if (!*n)
                        continue;
                    for (int i = 0; i < 3; i++)
                        sim_hist_observe_n(wb->m.lat_verify_base[i], k,
                                           base_verify(wb, k, prof, alg, hit, i), *n);
                    *n = 0;
                }
}

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
    rc |= sim_metrics_histogram(m, "handshake_ms_today", "ms", nc, 0, 0.1, 1e6, 100, &x->lat_base[2]);
    rc |= sim_metrics_histogram(m, "handshake_ms_network", "ms", nc, 0, 0.1, 1e6, 100, &x->lat_network);
    rc |= sim_metrics_histogram(m, "verify_ms", "ms", nc, 0, 1e-4, 1e4, 100, &x->lat_verify);
    rc |= sim_metrics_histogram(m, "verify_ms_baseline_classical", "ms", nc, 0, 1e-4, 1e4, 100, &x->lat_verify_base[0]);
    rc |= sim_metrics_histogram(m, "verify_ms_baseline_mldsa44", "ms", nc, 0, 1e-4, 1e4, 100, &x->lat_verify_base[1]);
    rc |= sim_metrics_histogram(m, "verify_ms_today", "ms", nc, 0, 1e-4, 1e4, 100, &x->lat_verify_base[2]);
    if (rc)
        return SIM_ERR_METRIC;
    for (size_t k = 0; k < nc; k++)
        web_latency_keep_pows(wb->cohorts[k].cfg.loss_prob, wb->cohorts[k].keep_pow);
    rc = vprice_init(wb);
    if (rc != MTC_OK)
        return rc;
    wb->vpend = calloc(nc * wb->nprof * 16 + 1, sizeof *wb->vpend);
    wb->site_prof = calloc(wb->nsites + 1, sizeof *wb->site_prof);
    sim_metric *cols[WEB_LB_COUNT] = {x->lat, x->lat_network, x->lat_verify, x->lat_base[0],
                                      x->lat_base[1], x->lat_base[2]};
    wb->latbuf = web__obsbuf_new(cols, WEB_LB_COUNT);
    if (!wb->vpend || !wb->site_prof || !wb->latbuf || wb->nprof > UINT16_MAX) {
        free(wb->vpend);
        wb->vpend = NULL;
        return MTC_ERR_NOMEM;
    }
    /* the site's profile is drawn once, at creation (web_site.c) */
    for (size_t i = 0; i < wb->nsites; i++)
        wb->site_prof[i] = wb->sites[i].chain;
    if (sim_metrics_add_flush(m, vflush, wb) != 0) {
        free(wb->vpend);
        wb->vpend = NULL;
        return MTC_ERR_NOMEM;
    }
    sim_metric *cm[] = {x->lat, x->lat_base[0], x->lat_base[1], x->lat_resumed,
                        x->lat_base[2], x->lat_network, x->lat_verify,
                        x->lat_verify_base[0], x->lat_verify_base[1],
                        x->lat_verify_base[2]};
    return web__label_by_cohort(wb, cm, sizeof cm / sizeof cm[0]);
}

void web__path_destroy(web *wb)
{
    if (wb->vpend) {
        sim_metrics_remove_flush(wb->env.metrics, vflush, wb);
        free(wb->vpend);
        wb->vpend = NULL;
    }
    free(wb->vp.sa_us);
    free(wb->vp.base_us);
    free(wb->vp.today_cv_us);
    free(wb->vp.today_sign_ms);
    free(wb->site_prof);
    free(wb->latbuf);
    wb->latbuf = NULL;
    wb->vp.sa_us = NULL;
    wb->vp.base_us = wb->vp.today_cv_us = wb->vp.today_sign_ms = NULL;
    wb->site_prof = NULL;
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
    out->keep_pow = co->keep_pow;
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

/* The cache slot of `rank` while still good at now_s, else -1. */
static int vcache_find(const web_path *p, uint32_t rank, uint32_t now_s)
{
    for (int i = 0; i < WEB_VCACHE; i++)
        if (p->vc_rank[i] == rank + 1 && p->vc_exp[i] > now_s)
            return i;
    return -1;
}

/* Remembers the certificate obj of `rank` as verified at now_s: in the
 * rank's slot if it has one, else in the slot that runs out first (empty
 * or least recently verified: every entry lives WEB_VCACHE_TTL). */
static void vcache_put(web_path *p, uint32_t rank, uint64_t obj, uint32_t now_s)
{
    int i = 0, old = 0;
    while (i < WEB_VCACHE && p->vc_rank[i] != rank + 1) {
        if (p->vc_exp[i] < p->vc_exp[old])
            old = i;
        i++;
    }
    if (i == WEB_VCACHE)
        i = old;
    p->vc_rank[i] = rank + 1;
    p->vc_obj[i] = (uint32_t)obj;
    p->vc_exp[i] = now_s + WEB_VCACHE_TTL;
}

/* Holds a priced handshake's observations (what each histogram would
 * record now; NAN where it records nothing), recording the batch when
 * full: ms as web_latency_ms_paired gave them, the fetch's ms, the
 * client's verification (v, and fetch_v of the fetched proofs) and the
 * baselines'. Only while the metrics
 * record, as the observations would have counted. */
static void latbuf_add(web *wb, size_t k, const double *ms, double fetch_ms,
                       double v, double fetch_v, const double *vb)
{
    web_obsbuf *b = wb->latbuf;
    size_t i = b->n;
    int ok = ms[0] >= 0;
    b->k[i] = (uint32_t)k;
    b->x[WEB_LB_LAT][i] = ok ? ms[0] + fetch_ms + v + fetch_v : NAN;
    b->x[WEB_LB_NETWORK][i] = ok ? ms[0] + fetch_ms : NAN;
    b->x[WEB_LB_VERIFY][i] = ok ? v + fetch_v : NAN;
    for (int j = 0; j < 3; j++)
        b->x[WEB_LB_BASE + j][i] = ms[1 + j] >= 0 ? ms[1 + j] + vb[j] : NAN;
    web__obsbuf_commit(b);
}

void web__path_full(web *wb, const web_client *c, const web_cohort *co,
                    uint32_t site, uint32_t rank, const web_cert_hot *ch, sim_time now,
                    unsigned n, const uint32_t *ch_ext, const uint32_t *enc,
                    const web_ldp_fetch *fetch)
{
    web_path *p = web__path(c);
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
     * drawn once and shared by the four (web_latency_ms_paired), which
     * also prices the set-up and the client's first flight once.
     * the baselines: no trust_anchors, no retry, the site's own key;
     * today's: the key of the site's chain as served (its profile's) */
    const web_vprice *vp = &wb->vp;
    size_t prof = wb->site_prof[site];
    web_lat_flights b[3];
    for (int i = 0; i < 3; i++)
        flights(co, sh->name_len, 0, web__base_auth(wb, site, k, i) + wb->enc_fixed,
                i == WEB_BASE_TODAY ? vp->today_sign_ms[prof] : sign, &b[i]);
    /* the client's verification: cached, only its CertificateVerify */
    uint32_t now_s = (uint32_t)(now / SIM_SEC);
    int slot = vcache_find(p, rank, now_s);
    int mtc_hit = slot >= 0 && p->vc_obj[slot] == (uint32_t)ch->obj;
    double chain = (ch->kind == WEB_LR ? 0.0 : vp->sa_us[ch->ca]) +
                   (double)ch->hash_nodes * vp->node_us + vp->path_us;
    double us_ms = co->cfg.cpu_slowdown * 1e-3;
    double cv = vp->cv_us[sh->alg & 7];
    double v = us_ms * (cv + (mtc_hit ? 0.0 : chain));
    double vb[3];
    for (int i = 0; i < 3; i++)
        vb[i] = base_verify(wb, k, prof, sh->alg, slot >= 0, i);
    /* their verification_ms: counted here, recorded n at a time (vflush) */
    int recording = sim_metrics_recording(wb->env.metrics);
    if (recording)
        wb->vpend[((k * wb->nprof + prof) * 8 + (sh->alg & 7u)) * 2 + (slot >= 0)]++;
    vcache_put(p, rank, ch->obj, now_s);
    /* a proof set fetched on demand (web_ldp.c): plain HTTP on a new TCP
     * connection over the same path (set-up, request, the answer in slow
     * start from the initial window), with its own loss uniform; its
     * verification: the checkpoint's signatures under the policy and
     * every hash it carries */
    double fetch_ms = 0.0, fetch_v = 0.0;
    if (fetch && (fetch->state == WEB_LDPF_OK || fetch->state == WEB_LDPF_FAILED)) {
        web_lat_flights ff = {fetch->req, fetch->resp, 0, 0.0};
        fetch_ms = web_latency_ms_u(WEB_LAT_TCP_TLS13, &co->fl.t, &path, &ff, NULL, NULL,
                                    fetch->u);
        if (fetch_ms >= 0)
            web__ldp_observe_ms(wb, k, fetch_ms);
        else
            fetch_ms = 0.0;
        if (fetch->state == WEB_LDPF_OK)
            fetch_v = us_ms * (vp->sa_us[ch->ca] + (double)(fetch->resp / 32) * vp->node_us);
    }
    double ms[4];
    if (web_latency_ms_paired(proto_of(co), &co->fl.t, &path, &f[0],
                              n > 1 ? &f[1] : NULL, b, 3, r, -1.0, ms) == 0 &&
        recording)
        latbuf_add(wb, k, ms, fetch_ms, v, fetch_v, vb);
    p->n = ps.n;
}

void web__path_resumed(web *wb, const web_client *c, const web_cohort *co,
                       uint32_t site)
{
    web_path *p = web__path(c);
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
