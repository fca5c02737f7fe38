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
 *                   [--latency 0|1|2] [--hourly 1]
 *
 * With sites, the same population also runs with a network path per
 * client (rtt lognormal, median 50 ms, jitter, 20 Mbit/s, 1 % loss: every
 * handshake and its three baselines priced in ms), reported as web_lat_*
 * lines and latency_vs_off_handshake_ratio, its full handshakes per CPU
 * second over the world without latency (--latency 0: skip it; --latency
 * 2: only the world with latency, e.g. to profile it alone). The two
 * worlds are built first and then run in alternation, a simulated hour
 * at a time, each hour's CPU time charged to the world that ran it: a
 * change of the shared machine's load falls on both alike, so the ratio
 * holds under load even when the rates do not. Both worlds are the same
 * events and handshakes as when run alone (wrun_step resumes where the
 * last step stopped).
 *
 * --hourly 1: each simulated hour's CPU seconds and full handshakes per
 * world on stderr (`hour H tag cpu_s full`), to see where in the day a
 * world's cost lies.
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

/* One world of the benchmark: latency off or on. */
typedef struct arm {
    const char *tag;
    int latency;
    web_sites_config *site;
    web_browsers_config *co;
    wrun r;
    int made;       /* r was created (wrun_free owes it) */
    double setup_s; /* wall seconds to build it */
    double cpu;     /* CPU seconds spent running it */
} arm;

static int arm_create(arm *a, size_t clients, size_t sites, double hosts,
                      int queue, int in_step)
{
    wfx_config pc;
    wfx_defaults(&pc);
    pc.nca = 2;
    pc.background = 1000;
    a->site = wrun_sites_new();
    a->co = wrun_browsers_new();
    if (!a->site || !a->co) {
        fprintf(stderr, "bench_web: out of memory\n");
        return 1;
    }
    a->site->count = (int64_t)(sites ? sites : 1);
    a->site->issue_spread = 6 * SIM_HOUR;
    web_browsers_config *co = a->co;
    co->count = (int64_t)clients;
    if (in_step) {
        co->update_phase = WEB_PHASE_START;
        co->update_on_start = WEB_START_ALWAYS;
    }
    if (a->latency && (sim_dist_lognormal(&co->rtt, log(50.0), 0.8) != MTC_OK ||
                       sim_dist_exponential(&co->rtt_jitter, 5.0) != MTC_OK ||
                       sim_dist_const(&co->bandwidth, 20e6) != MTC_OK)) {
        fprintf(stderr, "bench_web: out of memory\n");
        return 1;
    }
    co->loss_prob = a->latency ? 0.01 : 0;
    if (hosts != 1) {
        sim_dist_destroy(co->hosts_per_visit);
        sim_dist_const(&co->hosts_per_visit, hosts);
    }
    double t_a = now_s();
    const web_sites_config *sp = a->site;
    a->made = 1;
    if (wrun_create_q(&a->r, queue, &pc, 1, 0, 0, 1, 0, 0, &sp, sites ? 1 : 0,
                      (const web_browsers_config *const *)&a->co, 1)) {
        fprintf(stderr, "bench_web: %s\n", a->r.err);
        return 1;
    }
    a->setup_s = now_s() - t_a;
    return 0;
}

/* Runs the arm to t, adding the CPU time it took to a->cpu. */
static void arm_step(arm *a, sim_time t)
{
    double c0 = cpu_s();
    wrun_step(&a->r, t);
    a->cpu += cpu_s() - c0;
}

/* Prints the arm's lines; *full_rate gets its full handshakes per CPU
 * second. The engine reference (hold model) once, with the first arm. */
static void arm_report(arm *a, size_t clients, size_t sites, double days,
                       int queue, uint64_t hold_events, int reference,
                       double *full_rate)
{
    const char *tag = a->tag;
    double run_s = a->cpu;
    web_stats st;
    web_get_stats(a->r.wb, &st);
    uint64_t hs = st.full + st.resumed;
    uint64_t events = sim_engine_events_executed(a->r.sim);
    printf("%s_setup_s %.3f s\n", tag, a->setup_s);
    printf("%s_run_cpu_s %.3f s\n", tag, run_s);
    printf("%s_events %llu events\n", tag, (unsigned long long)events);
    printf("%s_events_per_s %.0f events/s\n", tag, (double)events / run_s);
    if (sites) {
        printf("%s_handshakes %llu handshakes\n", tag, (unsigned long long)hs);
        printf("%s_full_handshakes %llu handshakes\n", tag, (unsigned long long)st.full);
        printf("%s_handshakes_per_s %.0f handshakes/s\n", tag, (double)hs / run_s);
        printf("%s_full_handshakes_per_s %.0f handshakes/s\n", tag, (double)st.full / run_s);
        printf("%s_signatureless_fraction %.4f ratio\n", tag,
               st.full ? (double)st.signatureless / (double)st.full : 0.0);
        printf("%s_verify_runs %llu verifications\n", tag, (unsigned long long)st.verify_runs);
        printf("%s_memo_hit_ratio %.6f ratio\n", tag,
               (double)st.verify_memo_hits / (double)(st.verify_memo_hits + st.verify_runs));
        printf("%s_cpu_per_sim_day_s %.2f s\n", tag, run_s / days);
        if (!a->latency) {
            printf("handshakes_per_s_per_core %.0f handshakes/s\n", (double)hs / run_s);
            printf("projected_30d_minutes %.1f min\n", run_s / days * 30 / 60);
        }
        *full_rate = (double)st.full / run_s;
    }
    printf("%s_queue %d %s\n", tag, sim_engine_queue_kind(a->r.sim),
           sim_queue_name(sim_engine_queue_kind(a->r.sim)));
    if (reference) {
        double hold = hold_rate(queue, clients, hold_events);
        printf("ref_hold_events_per_s %.0f events/s\n", hold);
        printf("%s_vs_hold_event_ratio %.3f ratio\n", tag,
               hold > 0 ? (double)events / run_s / hold : 0.0);
    }
    printf("%s_client_state_bytes %zu bytes\n", tag, web_client_state_bytes());
}

static void arm_free(arm *a)
{
    if (a->made)
        wrun_free(&a->r);
    if (a->site)
        sim_param_config_free(&sim_sites_schema, a->site);
    if (a->co)
        sim_param_config_free(&sim_browsers_schema, a->co);
}

int main(int argc, char **argv)
{
    size_t clients = 1000000, sites = 10000;
    double days = 1, hosts = 1;
    int queue = 0, in_step = 0, latency = 1, hourly = 0;
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
        else if (!strcmp(argv[i], "--hourly"))
            hourly = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "bench_web: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    /* Both worlds are built, then run in alternation, a simulated hour
     * at a time (which goes first alternating too), so that a change of
     * the machine's load during the benchmark falls on both alike: their
     * ratio is the latency model's own cost. */
    arm arms[2] = {{.tag = "web", .latency = 0}, {.tag = "web_lat", .latency = 1}};
    size_t narms = latency && sites ? 2 : 1;
    if (latency == 2 && sites) { /* the world with latency alone */
        arms[0] = arms[1];
        narms = 1;
    }
    int rc = 0;
    for (size_t i = 0; i < narms && !rc; i++)
        rc = arm_create(&arms[i], clients, sites, hosts, queue, in_step);
    sim_time end = (sim_time)(days * 86400.0) * SIM_SEC;
    for (sim_time t = 0; !rc && t < end;) {
        t = end - t > SIM_HOUR ? t + SIM_HOUR : end;
        int first = (int)((t / SIM_HOUR) & 1) % (int)narms;
        for (size_t i = 0; i < narms; i++) {
            arm *a = &arms[((size_t)first + i) % narms];
            if (!hourly) {
                arm_step(a, t);
                continue;
            }
            double c0 = a->cpu;
            web_stats s0, s1;
            web_get_stats(a->r.wb, &s0);
            arm_step(a, t);
            web_get_stats(a->r.wb, &s1);
            fprintf(stderr, "hour %llu %s %.3f %llu\n",
                    (unsigned long long)((t - 1) / SIM_HOUR), a->tag, a->cpu - c0,
                    (unsigned long long)(s1.full - s0.full));
        }
    }
    double rate[2] = {0, 0};
    for (size_t i = 0; i < narms && !rc; i++) {
        sim_metrics_finish(arms[i].r.metrics, end);
        arm_report(&arms[i], clients, sites, days, queue, hold_events, i == 0, &rate[i]);
    }
    if (!rc && narms == 2)
        printf("latency_vs_off_handshake_ratio %.3f ratio\n",
               rate[0] > 0 ? rate[1] / rate[0] : 0.0);
    struct rusage ru;
    if (!rc && getrusage(RUSAGE_SELF, &ru) == 0)
        printf("peak_rss_mb %.0f MB\n", (double)ru.ru_maxrss / 1024.0);
    for (size_t i = 0; i < narms; i++)
        arm_free(&arms[i]);
    return rc;
}
