/*
 * cmd_run.c - `mtcsim run SCENARIO.lua`: plan, check, run and record a
 * scenario's runs (sweep points x replications), then print a summary.
 *
 * Why the scenario runs once per run: a run is a fresh Lua state and a
 * fresh world, so nothing leaks between runs, and a sweep value is simply
 * what param() returns in that run. The first execution also plans: it
 * reveals the declared params, sweeps and replications. Before any
 * simulation every sweep point is executed and its world built and
 * started, so a scenario that is wrong for any point fails with exit 2
 * before a single event runs.
 * Signals only set a flag; the engine's stop predicate sees it, the run is
 * stored and marked interrupted, and no further run starts.
 * This file keeps the command: planning, preflight and the run loop, the
 * results database, signals and the progress line. Options are in
 * run_options.c, the scenario state and plan in run_plan.c, the summary
 * in run_summary.c, --spread-runs in run_spread.c (run_internal.h).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "run_internal.h"
#include "mtc/error.h"
#include "sim/progress.h"

static volatile sig_atomic_t g_interrupt;   /* main-owned: set by signals */

static void on_signal(int sig)
{
    (void)sig;
    g_interrupt = 1;
}

/* ---- results database ------------------------------------------------------ */

int run_record_params(sim_results *db, int64_t run, const plan *cur,
                      const plan *pl, lworld *lw)
{
    int rc = MTC_OK;
    for (size_t i = 0; i < cur->nparams && rc == MTC_OK; i++)
        rc = sim_results_add_param(db, run, "scenario", "scenario",
                                   cur->params[i].name, cur->params[i].value);
    size_t n;
    const lworld_param *wp = lworld_params(lw, &n);
    for (size_t i = 0; i < n && rc == MTC_OK; i++)
        rc = sim_results_add_param(db, run, wp[i].kind, wp[i].entity,
                                   wp[i].desc->name, wp[i].value);
    for (size_t a = 0; a < pl->naxes && rc == MTC_OK; a++)
        rc = sim_results_mark_swept(db, run, "scenario", "scenario",
                                    pl->axes[a].name);
    return rc;
}

/* Ends a run row that cannot complete normally as failed (why: the
 * reason), so that no row stays 'running' after this process is gone.
 * Prints what fails. */
static void end_failed(sim_results *db, const char *out, int64_t run,
                       sim_time reached, uint64_t events, const char *why)
{
    if (sim_results_run_end(db, run, SIM_RUN_FAILED, reached, events,
                            why) != MTC_OK)
        fprintf(stderr, "mtcsim run: %s: cannot mark run %lld failed: %s\n",
                out, (long long)run, sim_results_errmsg(db));
}

int run_store(sim_results *db, const char *out, int64_t run,
              const sim_metrics *m, int rs, sim_time reached,
              uint64_t events, const char *err)
{
    if (m && sim_results_store_metrics(db, run, m) != MTC_OK) {
        char why[ERRMSG_COPY];
        snprintf(why, sizeof why, "storing the run's metrics failed: %s",
                 sim_results_errmsg(db));
        fprintf(stderr, "mtcsim run: %s: %s\n", out, why);
        end_failed(db, out, run, reached, events, why);
        return MTC_ERR_DB;
    }
    if (sim_results_run_end(db, run, rs, reached, events,
                            rs == SIM_RUN_FAILED ? err : NULL) != MTC_OK) {
        char why[ERRMSG_COPY];
        snprintf(why, sizeof why, "%s", sim_results_errmsg(db));
        fprintf(stderr, "mtcsim run: %s: %s\n", out, why);
        if (rs != SIM_RUN_FAILED)   /* a failed end may still take */
            end_failed(db, out, run, reached, events, why);
        return MTC_ERR_DB;
    }
    return MTC_OK;
}

/* The experiment row of this invocation; MTC_OK or the results error
 * (printed). */
static int begin_experiment(sim_results *db, const run_opts *o,
                            const plan *pl, int64_t *exp_id)
{
    const char *base = strrchr(o->scenario, '/');
    sim_experiment_info ei = {base ? base + 1 : o->scenario, o->cmdline,
                              (int64_t)pl->npoints, pl->reps};
    int rc = sim_results_experiment_begin(db, &ei, exp_id);
    if (rc != MTC_OK)
        fprintf(stderr, "mtcsim run: %s: %s\n", o->out, sim_results_errmsg(db));
    return rc;
}

/* ---- progress ------------------------------------------------------------- */

typedef struct prog_ctx {
    sim_progress p;
} prog_ctx;

static void on_progress(void *ctx, sim_time now, uint64_t events)
{
    prog_ctx *c = ctx;
    char line[256];
    if (sim_progress_tick(&c->p, host_now(), now, events, line, sizeof line))
        fputs(line, stderr);
}

/* ---- the command ----------------------------------------------------------- */

int cmd_run(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            run_usage(stdout);
            return HOST_OK;
        }
    /* Under mpirun every rank runs this command: each simulates its
     * shard of the browsers, rank 0 alone writes results and prints. */
    sim_shard shard;
    if (sim_shard_init(&shard, &argc, &argv) != MTC_OK) {
        fprintf(stderr, "mtcsim run: started by mpirun with several ranks, but "
                        "this mtcsim was built without Open MPI (run make "
                        "deps, then rebuild)\n");
        return HOST_USAGE;
    }
    run_opts o;
    memset(&o, 0, sizeof o);
    plan pl;
    memset(&pl, 0, sizeof pl);
    int status = run_parse_args(argc, argv, &o);
    if (shard.rank != 0) {
        o.out = NULL;
        o.quiet = 1;
    }
    sim_results *db = NULL;
    run_stats *runs = NULL;
    size_t nruns = 0;
    lhost *h0 = NULL;
    char err[8192];
    int spread = 0;
    bytebuf mine = {NULL, 0, 0, 0};
    if (status != HOST_OK)
        goto done;

    /* plan: the scenario's first execution */
    h0 = run_scenario_state(&o, NULL, 0, 0, err, sizeof err);
    if (!h0) {
        fprintf(stderr, "mtcsim run: %s\n", err);
        status = HOST_USAGE;
        goto done;
    }
    if ((status = run_make_plan(&o, h0, &pl)) != HOST_OK)
        goto done;
    if (o.list_params) {
        run_list_params(&pl);
        goto done;
    }

    /* every point must build before anything runs */
    for (size_t p = 1; p < pl.npoints; p++) {
        lhost *h = run_scenario_state(&o, &pl, p, 0, err, sizeof err);
        lworld *lw = NULL;
        int ok = h && lworld_build(h, o.seed, 0, NULL, &lw, err, sizeof err) == MTC_OK;
        if (!ok) {
            char lab[512];
            run_point_label(&pl, p, lab, sizeof lab);
            fprintf(stderr, "mtcsim run: sweep point %zu [%s]: %s\n", p, lab, err);
            lworld_destroy(lw);
            lhost_destroy(h);
            status = HOST_USAGE;
            goto done;
        }
        lworld_destroy(lw);
        lhost_destroy(h);
    }

    if (o.out) {
        if (sim_results_open(o.out, SIM_RESULTS_CREATE, &db, err, sizeof err)) {
            fprintf(stderr, "mtcsim run: --out %s: %s\n", o.out, err);
            status = HOST_USAGE;
            goto done;
        }
    }
    /* The experiment row is written once the first world is built (see
     * begin_experiment): a scenario refused before that leaves the file
     * as it was. */
    int64_t exp_id = 0;
    char sha[65] = "";
    if (sim_sha256_file_hex(o.scenario, sha) != MTC_OK) {
        fprintf(stderr, "mtcsim run: cannot hash '%s'\n", o.scenario);
        status = HOST_FAIL;
        goto done;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;     /* a second signal acts normally */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    size_t total = pl.npoints * (size_t)pl.reps;   /* bounded by run_make_plan */
    runs = calloc(total, sizeof *runs);
    if (!runs) {
        fprintf(stderr, "mtcsim run: out of memory for %zu runs\n", total);
        status = HOST_FAIL;
        goto done;
    }
    spread = o.spread && shard.size > 1;
    double wall0 = host_now();
    int db_failed = 0;
    for (size_t p = 0; p < pl.npoints && status == HOST_OK && !g_interrupt; p++) {
        int point_stored = 0;
        for (long r = 0; r < pl.reps && status == HOST_OK && !g_interrupt; r++) {
            size_t idx = p * (size_t)pl.reps + (size_t)r;
            if (spread && (int)(idx % (size_t)shard.size) != shard.rank)
                continue;   /* another rank's run; rank 0 records it later */
            lhost *h = NULL;
            if (idx == 0) {   /* the planning state is point 0's, rep 0's */
                h = h0;
                h0 = NULL;
            }
            if (!h)
                h = run_scenario_state(&o, &pl, p, (uint64_t)r, err, sizeof err);
            if (!h) {   /* e.g. a replication-dependent scenario error */
                fprintf(stderr, "mtcsim run: %s\n", err);
                status = nruns ? HOST_FAIL : HOST_USAGE;
                break;
            }
            plan cur;
            lworld *lw = NULL;
            if (run_scenario_params(h, &cur) != HOST_OK) {
                /* the declarations of this run are malformed (message
                 * printed): a scenario that changed them after planning */
                status = nruns ? HOST_FAIL : HOST_USAGE;
                lhost_destroy(h);
                run_free_plan(&cur);
                break;
            }
            int rc = lworld_build(h, o.seed, (uint64_t)r,
                                  spread ? NULL : &shard, &lw, err, sizeof err);
            if (rc != MTC_OK) {
                fprintf(stderr, "mtcsim run: %s\n", err);
                status = nruns ? HOST_FAIL : HOST_USAGE;
                lworld_destroy(lw);
                lhost_destroy(h);
                run_free_plan(&cur);
                break;
            }
            int64_t run_id = 0;
            if (db && !exp_id &&
                begin_experiment(db, &o, &pl, &exp_id) != MTC_OK) {
                status = HOST_FAIL;
                db_failed = 1;
            }
            if (db && exp_id) {
                sim_run_info ri = {exp_id, (int64_t)p, r, o.seed, o.scenario,
                                   sha, MTCSIM_VERSION, 0, lworld_duration(lw)};
                if (sim_results_run_begin(db, &ri, &run_id) != MTC_OK ||
                    run_record_params(db, run_id, &cur, &pl, lw) != MTC_OK ||
                    sim_results_add_attr(db, run_id, "sandbox",
                                         o.unsafe ? "off" : "on") != MTC_OK ||
                    sim_results_flush(db) != MTC_OK) {
                    char why[ERRMSG_COPY];
                    snprintf(why, sizeof why, "%s", sim_results_errmsg(db));
                    fprintf(stderr, "mtcsim run: %s: %s\n", o.out, why);
                    status = HOST_FAIL;
                    db_failed = 1;
                    if (run_id)     /* begun: it must not stay 'running' */
                        end_failed(db, o.out, run_id, 0, 0, why);
                }
            }
            prog_ctx pc;
            char label[64];
            snprintf(label, sizeof label, "run %zu/%zu", nruns + 1, total);
            sim_progress_config pcfg = {0, lworld_duration(lw), host_now(),
                                        isatty(2), o.quiet, 0, 0, 0, label};
            sim_progress_init(&pc.p, &pcfg);
            double t0 = host_now();
            if (status == HOST_OK)
                rc = lworld_run(lw, &g_interrupt, on_progress, &pc, err,
                                sizeof err);
            char line[256];
            sim_engine *eng = lworld_engine(lw);
            if (sim_progress_finish(&pc.p, host_now(), sim_now(eng),
                                    sim_engine_events_executed(eng), line,
                                    sizeof line))
                fputs(line, stderr);
            if (status == HOST_OK && rc != MTC_OK)
                fprintf(stderr, "mtcsim run: %s\n", err);
            int rs = rc == MTC_OK ? SIM_RUN_COMPLETED
                     : rc == MTC_ERR_SIM_STATE ? SIM_RUN_INTERRUPTED
                                               : SIM_RUN_FAILED;
            if (spread && shard.rank != 0) {
                remote_run rr = {idx, rs, sim_now(eng),
                                 sim_engine_events_executed(eng), "", NULL, 0};
                uint8_t *enc = NULL;
                size_t elen = 0;
                if (rs == SIM_RUN_FAILED)
                    snprintf(rr.err, sizeof rr.err, "%.511s", err);
                else if (sim_metrics_encode(lworld_metrics(lw), &enc, &elen) != MTC_OK)
                    mine.failed = 1;
                rr.metrics = enc;
                rr.mlen = elen;
                run_remote_put(&mine, &rr);
                free(enc);
            }
            if (db && status == HOST_OK) {
                if (run_store(db, o.out, run_id, lworld_metrics(lw), rs,
                              sim_now(eng), lworld_events(lw), err) != MTC_OK) {
                    status = HOST_FAIL;
                    db_failed = 1;
                } else {
                    point_stored = 1;
                }
            }
            if (status == HOST_OK && rs != SIM_RUN_COMPLETED)
                status = HOST_FAIL;
            if (status == HOST_OK) {
                run_stats *st = &runs[nruns++];
                st->point = p;
                st->rep = (size_t)r;
                run_collect_stats(lworld_metrics(lw), st);
                if (!o.quiet)
                    printf("# run %zu/%zu point %zu replication %ld: %" PRIu64
                           " events, %.2f s wall\n", nruns, total, p, r,
                           lworld_events(lw), host_now() - t0);
                if (!o.quiet && shard.size > 1)
                    printf("# sharded over %d ranks: %zu bytes of metrics "
                           "gathered on rank 0\n", shard.size,
                           lworld_merge_bytes(lw));
            }
            lworld_destroy(lw);
            lhost_destroy(h);
            run_free_plan(&cur);
        }
        /* Summarized whenever it stored a run, also when a later run of
         * the point was interrupted or failed: the summary is over the
         * point's completed runs, and those are already in the file. */
        if (db && point_stored && !db_failed && !spread &&
            sim_results_summarize(db, exp_id, (int64_t)p, 0.95) != MTC_OK) {
            fprintf(stderr, "mtcsim run: %s\n", sim_results_errmsg(db));
            status = HOST_FAIL;
        }
    }
    if (spread && db && !exp_id && status == HOST_OK &&
        begin_experiment(db, &o, &pl, &exp_id) != MTC_OK)
        status = HOST_FAIL;
    if (spread)
        status = run_collect_spread(&o, &pl, &shard, db, exp_id, sha, &mine,
                                    runs, &nruns, status);
    if (g_interrupt && status == HOST_OK)
        status = HOST_FAIL;
    if (!o.quiet && nruns) {
        run_print_summary(&pl, runs, nruns, o.summary_all);
        printf("# %zu run%s in %.2f s wall%s%s\n", nruns, nruns == 1 ? "" : "s",
               host_now() - wall0, db ? "; results in " : "",
               db ? o.out : "");
    }
done:
    if (db && sim_results_close(db) != MTC_OK && status == HOST_OK)
        status = HOST_FAIL;
    for (size_t i = 0; runs && i < nruns; i++)
        free(runs[i].s);
    free(runs);
    free(mine.b);
    lhost_destroy(h0);
    run_free_plan(&pl);
    free(o.set_name);
    free(o.set_value);
    fflush(stdout);
    /* A failure on any rank fails the run on every rank. */
    if (!sim_shard_all_ok(&shard, status == HOST_OK) && status == HOST_OK)
        status = HOST_FAIL;
    sim_shard_finalize(&shard);
    return status;
}
