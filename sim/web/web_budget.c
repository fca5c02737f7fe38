/*
 * web_budget.c - which server first flights overflow what a server may
 * send in its first round: the TCP initial window (RFC 6928: IW x MSS)
 * and the QUIC anti-amplification budget (RFC 9000 section 8.1: three
 * times the bytes received from an unvalidated client, so a ClientHello
 * that needs two Initial datagrams doubles it). Counted per arm: the
 * handshake as negotiated and each baseline chain (docs/metrics.md
 * flight_over_tcp_iw, flight_over_quic_amp).
 *
 * Per handshake this is two comparisons against thresholds on the
 * encrypted part of the flight (`enc`, as web_flight.c tables round
 * trips), precomputed per cohort by bisection over the framing formulas
 * of sim/tls.h.
 */
#include <stdlib.h>

#include "mtc/error.h"
#include "web_internal.h"
#include "sim/status.h"

/* The smallest enc whose flight (framed by `bytes`) exceeds `budget`. */
static uint32_t first_over(const web_flight *f, int quic, uint64_t budget)
{
    uint32_t lo = 0, hi = UINT32_C(1) << 26; /* beyond any flight */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint64_t b = quic ? tls_quic_flight_bytes(&f->t, f->sh_quic, mid, NULL)
                          : tls_tcp_flight_bytes(&f->t, f->sh_tcp, mid);
        if (b > budget)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static uint64_t amp_budget(const web_flight *f, unsigned dgrams)
{
    return (uint64_t)f->t.quic_amplification * dgrams * f->t.quic_client_initial;
}

int web__budget_create(web *wb)
{
    for (size_t k = 0; k < wb->ncohorts; k++) {
        web_cohort *co = &wb->cohorts[k];
        const web_flight *f = &co->fl;
        co->iw_thr = first_over(f, 0, (uint64_t)f->t.tcp_iw_segments * f->t.tcp_mss);
        for (unsigned d = 1; d <= WEB_QUIC_DGRAMS; d++)
            co->amp_thr[d - 1] = first_over(f, 1, amp_budget(f, d));
    }
    sim_metrics *m = wb->env.metrics;
    size_t nc = wb->ncohorts ? wb->ncohorts : 1;
    static const char *const iw[4] = {
        "flight_over_tcp_iw", "flight_over_tcp_iw_baseline_classical",
        "flight_over_tcp_iw_baseline_mldsa44", "flight_over_tcp_iw_today"};
    static const char *const amp[4] = {
        "flight_over_quic_amp", "flight_over_quic_amp_baseline_classical",
        "flight_over_quic_amp_baseline_mldsa44", "flight_over_quic_amp_today"};
    int rc = 0;
    for (int a = 0; a < 4; a++) {
        rc |= sim_metrics_counter(m, iw[a], "handshakes", nc, 0, &wb->m.over_iw[a]);
        rc |= sim_metrics_counter(m, amp[a], "handshakes", nc, 0, &wb->m.over_amp[a]);
    }
    if (rc)
        return SIM_ERR_METRIC;
    rc = web__label_by_cohort(wb, wb->m.over_iw, 4);
    return rc == MTC_OK ? web__label_by_cohort(wb, wb->m.over_amp, 4) : rc;
}

int web__budget_over_amp(const web_cohort *co, unsigned dgrams, uint32_t enc)
{
    if (dgrams >= 1 && dgrams <= WEB_QUIC_DGRAMS)
        return enc >= co->amp_thr[dgrams - 1];
    const web_flight *f = &co->fl;
    return tls_quic_flight_bytes(&f->t, f->sh_quic, enc, NULL) > amp_budget(f, dgrams);
}

void web__budget_count(web *wb, size_t k, int arm, uint32_t name_len,
                       uint32_t ch_ext, uint32_t enc, uint64_t n)
{
    const web_cohort *co = &wb->cohorts[k];
    if (enc >= co->iw_thr)
        sim_counter_add(wb->m.over_iw[arm], k, n);
    if (web__budget_over_amp(co, web__flight_dgrams(&co->fl, name_len, ch_ext), enc))
        sim_counter_add(wb->m.over_amp[arm], k, n);
}
