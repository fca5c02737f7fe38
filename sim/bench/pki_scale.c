/*
 * pki_scale.c - `make bench-pki`: the PKI side at Let's Encrypt scale.
 *
 * One CA issuing 6 million certificates a day (69.4/s, Poisson), 7-day
 * lifetime, a checkpoint every 60 s, hourly landmarks, ML-DSA-44 for the CA
 * and its two witnesses (quorum 1 + the CA, per the Chrome draft policy),
 * an update service fetching every 10 minutes; 30 simulated days by
 * default (argument: days). Every entry is a real log entry in the tree,
 * every checkpoint and subtree really signed, every landmark verified with
 * real proofs. Prints `name value unit` lines; the reference in the same
 * run is the raw leaf-hash + append rate of the tree store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <gsl/gsl_errno.h>

#include "mtc/entry.h"
#include "mtc/error.h"
#include "mtc/tree.h"
#include "sim/world.h"

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set(const char *kind, void *cfg, const char *p, double v)
{
    char err[256];
    if (sim_param_set_number(sim_param_find(sim_world_schema(kind), p), cfg, v,
                             err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        exit(2);
    }
}

static void setstr(const char *kind, void *cfg, const char *p, const char *v)
{
    char err[256];
    const sim_param_desc *d = sim_param_find(sim_world_schema(kind), p);
    int rc = d->type == SIM_PARAM_LIST
                 ? sim_param_list_append(d, cfg, v, err, sizeof err)
                 : sim_param_set_string(d, cfg, v, err, sizeof err);
    if (rc) {
        fprintf(stderr, "%s\n", err);
        exit(2);
    }
}

static void *cfg(const char *kind, const char *name)
{
    void *c;
    if (sim_param_config_new(sim_world_schema(kind), &c))
        exit(2);
    setstr(kind, c, "name", name);
    return c;
}

/* Reference: leaf hash of a 197-byte entry + append to a tile-4 store. */
static double reference_rate(void)
{
    uint8_t buf[197];
    memset(buf, 7, sizeof buf);
    mtc_tree_options o = {4, 1, NULL, NULL};
    mtc_tree *t = mtc_tree_new(&o);
    double t0 = wall();
    uint64_t n = 2000000;
    for (uint64_t i = 0; i < n; i++) {
        mtc_hash h;
        memcpy(buf, &i, sizeof i);
        mtc_hash_leaf(buf, sizeof buf, &h);
        mtc_tree_append(t, &h);
    }
    double r = (double)n / (wall() - t0);
    mtc_tree_free(t);
    return r;
}

int main(int argc, char **argv)
{
    double days = argc > 1 ? atof(argv[1]) : 30;
    if (!(days > 0)) {
        fprintf(stderr, "usage: bench_pki [days]\n");
        return 2;
    }
    gsl_set_error_handler_off();
    double ref = reference_rate();
    void *wc = cfg("world", "world");
    set("world", wc, "duration", days * 86400);
    set("world", wc, "grid_step", 3600);
    sim_metrics_config mc;
    sim_world_metrics_config(wc, &mc);
    sim_engine *eng;
    sim_metrics *m;
    sim_rng *rng;
    sim_world *w;
    char err[512];
    if (sim_engine_create(&eng, NULL) ||
        sim_metrics_create(&m, &mc, sim_engine_clock(eng)) ||
        sim_rng_create(&rng, 1, 0))
        return 1;
    /* eager history: every checkpoint signed when made (this bench
     * measures the signers' load: sign_cpu_us over every signature) */
    sim_world_env env = {.engine = eng, .metrics = m, .rng = rng, .shard = 0,
                         .nshards = 1, .eager_history = 1};
    if (sim_world_create(&w, &env, wc, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    sim_param_config_free(&sim_world_config_schema, wc);
    for (int i = 0; i < 2; i++) {
        void *c = cfg("cosigner", i ? "mirror" : "witness");
        setstr("cosigner", c, "algorithm", "ml-dsa-44");
        if (i)
            setstr("cosigner", c, "role", "mirror");
        sim_world_add(w, "cosigner", c, err, sizeof err);
    }
    void *ca = cfg("ca", "le");
    setstr("ca", ca, "algorithm", "ml-dsa-44");
    /* the hashed log: this bench measures building a Let's Encrypt-scale
     * log entry by entry (synthetic history would only count them) */
    setstr("ca", ca, "log_history", "hashed");
    set("ca", ca, "rate", 6e6 / 86400);
    set("ca", ca, "lifetime", 7 * 86400);
    set("ca", ca, "checkpoint_interval", 60);
    set("ca", ca, "landmark_interval", 3600);
    setstr("ca", ca, "cosigners", "witness");
    setstr("ca", ca, "cosigners", "mirror");
    set("ca", ca, "quorum", 1);
    if (sim_world_add(w, "ca", ca, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    void *us = cfg("update_service", "vendor");
    sim_world_add(w, "update_service", us, err, sizeof err);
    double t0 = wall();
    clock_t c0 = clock();
    if (sim_world_run(w, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double secs = wall() - t0, cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    int64_t entries = sim_counter_value(sim_metrics_find(m, "log_entries"), 0);
    sim_metric *sig = sim_metrics_find(m, "signatures");
    sim_metric *cpuus = sim_metrics_find(m, "sign_cpu_us");
    printf("sim_days %.1f d\n", days);
    printf("log_entries %lld entries\n", (long long)entries);
    printf("wall_time %.1f s\n", secs);
    printf("cpu_time %.1f s\n", cpu);
    printf("entries_per_s %.0f 1/s\n", (double)entries / secs);
    printf("reference_hash_append_per_s %.0f 1/s\n", ref);
    printf("entries_vs_reference %.3f ratio\n", (double)entries / secs / ref);
    printf("max_rss %.1f MiB\n", (double)ru.ru_maxrss / 1024);
    printf("log_storage_final %.1f MiB\n",
           sim_gauge_value(sim_metrics_find(m, "log_storage_bytes"), 0) / 1048576);
    printf("checkpoints %lld\n",
           (long long)sim_counter_value(sim_metrics_find(m, "checkpoints"), 0));
    printf("landmarks %lld\n",
           (long long)sim_counter_value(sim_metrics_find(m, "landmarks_allocated"), 0));
    printf("ca_signatures %lld signatures\n", (long long)sim_counter_value(sig, 0));
    printf("ca_sign_cpu %.2f s\n", (double)sim_counter_value(cpuus, 0) * 1e-6);
    printf("standalone_delay_mean %.2f s\n",
           sim_hist_mean(sim_metrics_find(m, "issuance_delay_standalone"), 0));
    printf("landmark_delay_mean %.1f s\n",
           sim_hist_mean(sim_metrics_find(m, "issuance_delay_landmark"), 0));
    printf("landmark_subtree_mean %.0f entries\n",
           sim_hist_mean(sim_metrics_find(m, "landmark_subtree_size"), 0));
    printf("standalone_proof_mean %.0f bytes\n",
           sim_hist_mean(sim_metrics_find(m, "standalone_proof_bytes"), 0));
    printf("mirror_fetch_per_day %.1f MB\n",
           (double)sim_counter_value(sim_metrics_find(m, "mirror_fetch_bytes"), 1) / days / 1e6);
    printf("monitor_fetch_per_day %.1f MB\n",
           (double)sim_counter_value(sim_metrics_find(m, "monitor_fetch_bytes"), 0) / days / 1e6);
    printf("witness_sign_cpu %.2f s\n", (double)sim_counter_value(cpuus, 1) * 1e-6);
    printf("rp_state %.0f bytes\n",
           sim_gauge_value(sim_metrics_find(m, "rp_state_bytes"), 0));
    printf("update_snapshot_mean %.0f bytes\n",
           sim_hist_mean(sim_metrics_find(m, "update_snapshot_bytes"), 0));
    printf("update_publication_mean %.0f bytes\n",
           sim_hist_mean(sim_metrics_find(m, "update_publication_bytes"), 0));
    sim_world_destroy(w);
    sim_metrics_destroy(m);
    sim_rng_destroy(rng);
    sim_engine_destroy(eng);
    return 0;
}
