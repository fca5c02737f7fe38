/*
 * bench_web.c - web-side throughput: a population of browsers on the test
 * PKI fixture (real logs, certificates and relying parties), timed over a
 * simulated span. Prints `name value unit` lines. Rates are per core:
 * process CPU time (the machine is shared). The reference measured in the
 * same run is the raw engine: the hold model (every event reschedules
 * itself at now + Exp) with as many pending events as there are clients,
 * on the same queue; web_vs_hold_event_ratio is the web run's events/s
 * over it (1.0: the model costs nothing beyond the engine).
 *
 *   build/bench_web [--clients N] [--sites N] [--days D] [--hosts H]
 *                   [--queue 0..3] [--hold-events N] [--in-step 1]
 *                   [--latency 0|1]
 *
 * With sites, the same population runs a second time with a network path
 * per client (rtt lognormal, median 50 ms, jitter, 20 Mbit/s, 1 % loss:
 * every handshake and its two baselines priced in ms), reported as
 * web_lat_* lines and latency_vs_off_handshake_ratio, its full handshakes
 * per CPU second over the first run's (--latency 0: skip it).
 *
 * --in-step 1: update_phase "start", update_on_start "always" - the client
 * behaviour before the update model (docs/model.md), event for event, so
 * that the model's own cost can be measured against older builds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/resource.h>

#include <gsl/gsl_randist.h>

#include "lib/web_run.h"
#include "mtc/error.h"
#include "sim/rng.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- reference: the hold model ---- */

typedef struct hold_ctx {
    gsl_rng *r;
    uint64_t left;
    double mean_s;
} hold_ctx;

static void hold_fire(sim_engine *sim, sim_event *ev)
{
    hold_ctx *c = ev->arg;
    if (--c->left == 0)
        sim_engine_stop(sim);
    sim_schedule_in(sim, ev, sim_time_from_sec(gsl_ran_exponential(c->r, c->mean_s)));
}

/* Events per CPU second with n pending events (mean increment: a
 * client's mean time between events in the web run, 3 minutes). */
static double hold_rate(int queue, size_t n, uint64_t events)
{
    sim_engine_config ec = {queue, 0};
    sim_engine *sim = NULL;
    sim_event *ev = calloc(n ? n : 1, sizeof *ev);
    hold_ctx c = {sim_rng_alloc_stream(1, 0, 1, 0), events, 180.0};
    if (!ev || !c.r || sim_engine_create(&sim, &ec) != MTC_OK) {
        free(ev);
        gsl_rng_free(c.r);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        sim_event_init(&ev[i], hold_fire, &c);
        sim_schedule(sim, &ev[i], sim_time_from_sec(gsl_ran_exponential(c.r, c.mean_s)));
    }
    double t0 = cpu_s();
    sim_engine_run(sim);
    double t1 = cpu_s();
    uint64_t done = sim_engine_events_executed(sim);
    sim_engine_destroy(sim);
    free(ev);
    gsl_rng_free(c.r);
    return (double)done / (t1 - t0);
}

static int run(size_t clients, size_t sites, double days, double hosts,
               int queue, uint64_t hold_events, int in_step, int latency,
               const char *tag, double *full_rate)
{
    wfx_config pc;
    wfx_defaults(&pc);
    pc.nca = 2;
    pc.background = 1000;
    web_sites_config *site = wrun_sites_new();
    site->count = (int64_t)(sites ? sites : 1);
    site->issue_spread = 6 * SIM_HOUR;
    web_browsers_config *co = wrun_browsers_new();
    co->count = (int64_t)clients;
    if (in_step) {
        co->update_phase = WEB_PHASE_START;
        co->update_on_start = WEB_START_ALWAYS;
    }
    if (latency && (sim_dist_lognormal(&co->rtt, log(50.0), 0.8) != MTC_OK ||
                    sim_dist_exponential(&co->rtt_jitter, 5.0) != MTC_OK ||
                    sim_dist_const(&co->bandwidth, 20e6) != MTC_OK)) {
        fprintf(stderr, "bench_web: out of memory\n");
        return 1;
    }
    co->loss_prob = latency ? 0.01 : 0;
    if (hosts != 1) {
        sim_dist_destroy(co->hosts_per_visit);
        sim_dist_const(&co->hosts_per_visit, hosts);
    }
    wrun r;
    double t_a = now_s();
    const web_sites_config *sp = site;
    if (wrun_create_q(&r, queue, &pc, 1, 0, 0, 1, 0, 0, &sp, sites ? 1 : 0,
                    (const web_browsers_config *const *)&co, 1)) {
        fprintf(stderr, "bench_web: %s\n", r.err);
        return 1;
    }
    double t_b = now_s(), c_b = cpu_s();
    wrun_until(&r, (sim_time)(days * 86400.0) * SIM_SEC);
    double t_c = now_s(), c_c = cpu_s();
    /* Rates per core: CPU time of this process (the machine is shared). */
    t_c = t_b + (c_c - c_b);
    web_stats st;
    web_get_stats(r.wb, &st);
    uint64_t hs = st.full + st.resumed;
    uint64_t events = sim_engine_events_executed(r.sim);
    printf("%s_setup_s %.3f s\n", tag, t_b - t_a);
    printf("%s_run_cpu_s %.3f s\n", tag, t_c - t_b);
    printf("%s_events %llu events\n", tag, (unsigned long long)events);
    printf("%s_events_per_s %.0f events/s\n", tag, (double)events / (t_c - t_b));
    if (sites) {
        printf("%s_handshakes %llu handshakes\n", tag, (unsigned long long)hs);
        printf("%s_full_handshakes %llu handshakes\n", tag, (unsigned long long)st.full);
        printf("%s_handshakes_per_s %.0f handshakes/s\n", tag, (double)hs / (t_c - t_b));
        printf("%s_full_handshakes_per_s %.0f handshakes/s\n", tag, (double)st.full / (t_c - t_b));
        printf("%s_signatureless_fraction %.4f ratio\n", tag,
               st.full ? (double)st.signatureless / (double)st.full : 0.0);
        printf("%s_verify_runs %llu verifications\n", tag, (unsigned long long)st.verify_runs);
        printf("%s_memo_hit_ratio %.6f ratio\n", tag,
               (double)st.verify_memo_hits / (double)(st.verify_memo_hits + st.verify_runs));
        printf("%s_cpu_per_sim_day_s %.2f s\n", tag, (t_c - t_b) / days);
        if (!latency) {
            printf("handshakes_per_s_per_core %.0f handshakes/s\n", (double)hs / (t_c - t_b));
            printf("projected_30d_minutes %.1f min\n", (t_c - t_b) / days * 30 / 60);
        }
        *full_rate = (double)st.full / (t_c - t_b);
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        printf("%s_peak_rss_mb %.0f MB\n", tag, (double)ru.ru_maxrss / 1024.0);
    printf("%s_queue %d %s\n", tag, sim_engine_queue_kind(r.sim),
           sim_queue_name(sim_engine_queue_kind(r.sim)));
    if (!latency) { /* the engine reference, once */
        double hold = hold_rate(queue, clients, hold_events);
        printf("ref_hold_events_per_s %.0f events/s\n", hold);
        printf("%s_vs_hold_event_ratio %.3f ratio\n", tag,
               hold > 0 ? (double)events / (t_c - t_b) / hold : 0.0);
    }
    printf("%s_client_state_bytes %zu bytes\n", tag, web_client_state_bytes());
    wrun_free(&r);
    sim_param_config_free(&sim_sites_schema, site);
    sim_param_config_free(&sim_browsers_schema, co);
    return 0;
}

int main(int argc, char **argv)
{
    size_t clients = 1000000, sites = 10000;
    double days = 1, hosts = 1;
    int queue = 0, in_step = 0, latency = 1;
    uint64_t hold_events = 20000000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--clients"))
            clients = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--sites"))
            sites = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--days"))
            days = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--hold-events"))
            hold_events = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--queue"))
            queue = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--hosts"))
            hosts = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--in-step"))
            in_step = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--latency"))
            latency = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "bench_web: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    double off = 0, on = 0;
    if (run(clients, sites, days, hosts, queue, hold_events, in_step, 0, "web", &off))
        return 1;
    if (!latency || !sites)
        return 0;
    if (run(clients, sites, days, hosts, queue, hold_events, in_step, 1, "web_lat", &on))
        return 1;
    printf("latency_vs_off_handshake_ratio %.3f ratio\n", off > 0 ? on / off : 0.0);
    return 0;
}
