/*
 * run_loop.c - the runs of `mtcsim run` in this process, one after another
 * (also each rank's share under mpirun): a fresh scenario state and world
 * per (point, replication) of the to-do list, the run row committed as
 * "running" before the first event, metrics and status after the last,
 * and each point's summary once its runs are done. -j N hands the same
 * list to worker processes instead (run_workers.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "host.h"
#include "lsuggest.h"
#include "run_internal.h"
#include "mtc/error.h"
#include "sim/progress.h"
#include "sim/status.h"

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

/* Summarizes point p into the database once the last to-do run of p
 * (todo[k]) is done, or once a failed or interrupted run ends the loop:
 * the summary is over the point's completed runs, and those are already
 * in the file. Not after the file itself refused a write. */
int run_summarize_after(run_ctx *c, const size_t *todo, size_t ntodo, size_t k)
{
    size_t reps = (size_t)c->pl->reps, p = todo[k] / reps;
    if (!c->db || c->spread || c->db_failed || c->last_stored != p + 1)
        return HOST_OK;
    int last = k + 1 >= ntodo || todo[k + 1] / reps != p;
    if (!last && c->status == HOST_OK && !*c->interrupt)
        return HOST_OK;
    if (sim_results_summarize(c->db, c->exp_id, (int64_t)p, 0.95) != MTC_OK) {
        fprintf(stderr, "mtcsim run: %s\n", sim_results_errmsg(c->db));
        c->db_failed = 1;
        return HOST_FAIL;
    }
    return HOST_OK;
}

/* The command that finishes this experiment: the one typed, --out FILE
 * replaced by --resume FILE (a resume must give every option the
 * experiment ran with: --set, --sweep, --seed, --replications), quoted
 * for the shell again. */
static void resume_command(const run_opts *o, char *buf, size_t n)
{
    enum { MAXW = 512 };
    size_t blen = sizeof o->cmdline;
    char *words = malloc(blen), *w[MAXW];
    long nw = words ? cmdline_split(o->cmdline, words, blen, w, MAXW) : -1;
    for (long i = 1; i + 1 < nw; i++)
        if (!strcmp(w[i], "--out"))
            w[i] = "--resume";
    if (nw >= 2)
        run_format_cmdline((int)nw - 1, w + 1, buf, n);
    else
        snprintf(buf, n, "mtcsim run %s --resume %s", o->scenario, o->out);
    free(words);
}

void run_note_unfinished(const run_ctx *c, size_t recorded, size_t ntodo)
{
    if (!c->db || c->spread || recorded >= ntodo)
        return;
    char cmd[sizeof c->o->cmdline + 64];
    resume_command(c->o, cmd, sizeof cmd);
    fprintf(stderr, "mtcsim run: the sweep stopped: %zu of %zu runs were not "
                    "made; `%s` makes them (and redoes the failed or "
                    "interrupted one)\n",
            ntodo - recorded, ntodo, cmd);
}

int run_sequential(run_ctx *c, const size_t *todo, size_t ntodo)
{
    const run_opts *o = c->o;
    const sim_shard *shard = c->shard;
    /* --spread-runs: each rank makes whole runs (and profiles its own) */
    const sim_shard one_shard = {0, 1, 0};
    char err[8192];
    size_t done = 0;    /* runs recorded, in to-do order */
    long started = 0;   /* runs this process began (the test hold's count) */
    for (size_t k = 0; k < ntodo && c->status == HOST_OK && !*c->interrupt; k++) {
        size_t idx = todo[k], p = idx / (size_t)c->pl->reps;
        long r = (long)(idx % (size_t)c->pl->reps);
        if (c->spread && (int)(k % (size_t)shard->size) != shard->rank)
            continue;   /* another rank's run; it sends rank 0 the result */
        lhost *h = NULL;
        if (idx == 0 && c->h0) {   /* the planning state is point 0's, rep 0's */
            h = c->h0;
            c->h0 = NULL;
        }
        if (!h)
            h = run_scenario_state(o, c->pl, p, (uint64_t)r, err, sizeof err);
        if (!h) {   /* e.g. a replication-dependent scenario error */
            fprintf(stderr, "mtcsim run: %s\n", err);
            c->status = c->nruns ? HOST_FAIL : HOST_USAGE;
            break;
        }
        plan cur;
        lworld *lw = NULL;
        if (run_scenario_params(h, &cur) != HOST_OK) {
            /* the declarations of this run are malformed (message
             * printed): a scenario that changed them after planning */
            c->status = c->nruns ? HOST_FAIL : HOST_USAGE;
            lhost_destroy(h);
            run_free_plan(&cur);
            break;
        }
        sim_prof *prof = NULL;
        if (o->profile &&
            sim_prof_create(&prof, sim_world_prof_names()) != SIM_OK) {
            fprintf(stderr, "mtcsim run: --profile: out of memory\n");
            c->status = HOST_FAIL;
            lhost_destroy(h);
            run_free_plan(&cur);
            break;
        }
        int rc = lworld_build_prof(h, o->seed, (uint64_t)r,
                                   c->spread ? NULL : shard, prof, &lw, err,
                                   sizeof err);
        /* a signal during the start (the steady warm-up): the run is
         * recorded, as interrupted at time 0 */
        int start_stopped = rc == SIM_ERR_STATE && lw;
        if (rc != MTC_OK && !start_stopped) {
            lsuggest_entity(h, err, sizeof err);
            fprintf(stderr, "mtcsim run: %s\n", err);
            c->status = c->nruns ? HOST_FAIL : HOST_USAGE;
            lworld_destroy(lw);
            sim_prof_destroy(prof);
            lhost_destroy(h);
            run_free_plan(&cur);
            break;
        }
        /* the record of this run, begun in the database before its
         * first event */
        sim_run_record rec;
        sim_run_record_init(&rec, p, (uint64_t)r, o->seed);
        int64_t run_id = 0;
        if (run_record_start(c, &rec, h, &cur, lw,
                             c->spread && shard->rank != 0 ? shard->rank : -1) !=
            MTC_OK) {
            fprintf(stderr, "mtcsim run: out of memory\n");
            c->status = HOST_FAIL;
        } else if (c->db && run_record_begin(c, &rec, &run_id) != HOST_OK) {
            c->status = HOST_FAIL;
        }
        prog_ctx pc;
        char label[64];
        snprintf(label, sizeof label, "run %zu/%zu", k + 1, ntodo);
        sim_progress_config pcfg = {0, lworld_duration(lw), host_now(),
                                    isatty(2), o->quiet, 0, 0, 0, label};
        sim_progress_init(&pc.p, &pcfg);
        double t0 = host_now();
        started++;
        if (o->hold_run == started && o->hold_rank == shard->rank) {
            /* the test hook: a run surely in flight until a signal (or
             * the SIGKILL the test sends) */
            fprintf(stderr, "mtcsim run: rank %d held before run %ld's first "
                            "event (MTCSIM_TEST_HOLD_RUN)\n", shard->rank, started);
            while (!*c->interrupt)
                usleep(20000);
        }
        if (c->status == HOST_OK && !start_stopped)
            rc = lworld_run(lw, c->interrupt, on_progress, &pc, err, sizeof err);
        char line[256];
        sim_engine *eng = lworld_engine(lw);
        if (sim_progress_finish(&pc.p, host_now(), sim_now(eng),
                                sim_engine_events_executed(eng), line, sizeof line))
            fputs(line, stderr);
        if (c->status == HOST_OK && rc != MTC_OK)
            fprintf(stderr, "mtcsim run: %s\n", err);
        int rs = rc == MTC_OK ? SIM_RUN_COMPLETED
                 : rc == SIM_ERR_STATE ? SIM_RUN_INTERRUPTED
                                           : SIM_RUN_FAILED;
        if (rs == SIM_RUN_INTERRUPTED && shard->size > 1 && *c->interrupt) {
            /* say which rank stopped and why: rank 0 records it */
            char why[600];
            snprintf(why, sizeof why, "rank %d stopped by %s: %.400s",
                     shard->rank, run_signal_name((int)*c->interrupt), err);
            snprintf(err, sizeof err, "%s", why);
        }
        rec.status = rs;
        rec.reached = sim_now(eng);
        if (rs != SIM_RUN_COMPLETED && sim_run_record_set_reason(&rec, err) != MTC_OK)
            c->status = HOST_FAIL;
        if (c->spread && shard->rank != 0 && c->status == HOST_OK) {
            /* to rank 0 now: a rank killed later loses only its run in
             * flight, not those it completed. Rank 0 records the
             * engine's count of events and no metrics of a failed run. */
            rec.events = sim_engine_events_executed(eng);
            rec.metrics = rs != SIM_RUN_FAILED ? lworld_metrics(lw) : NULL;
            if (run_spread_send(c, &rec) != MTC_OK)
                c->status = HOST_FAIL;
        }
        sim_prof_phase(prof, SIM_PHASE_RESULTS);
        int pprev = sim_prof_enter(prof, SIM_PART_RESULTS);
        if (c->db && c->status == HOST_OK) {
            /* a run that lost shards of its population stores none of
             * its metrics: they would describe part of it */
            rec.events = lworld_events(lw);
            rec.metrics = lworld_shards_whole(lw) ? lworld_metrics(lw) : NULL;
            if (run_record_end(c, run_id, &rec) != HOST_OK)
                c->status = HOST_FAIL;
        }
        sim_prof_leave(prof, pprev);
        sim_prof_stop(prof);
        if (c->status == HOST_OK && rs != SIM_RUN_COMPLETED)
            c->status = HOST_FAIL;
        if (c->status == HOST_OK) {
            run_stats *st = &c->runs[c->nruns++];
            st->point = p;
            st->rep = (size_t)r;
            run_collect_stats(lworld_metrics(lw), st);
            if (!o->quiet)
                printf("# run %zu/%zu point %zu replication %ld: %" PRIu64
                       " events, %.2f s wall\n", k + 1, ntodo, p, r,
                       lworld_events(lw), host_now() - t0);
            if (!o->quiet && shard->size > 1)
                printf("# sharded over %d ranks: %zu bytes of metrics "
                       "gathered on rank 0\n", shard->size, lworld_merge_bytes(lw));
        }
        /* a sharded run's profile is every rank's: summed on rank 0 */
        char pnote[300] = "";
        int pshow = prof && run_profile_gather(c->spread ? &one_shard : shard,
                                               prof, lworld_shards_whole(lw),
                                               c->interrupt, pnote, sizeof pnote);
        if (pshow && (c->status == HOST_OK || rs == SIM_RUN_COMPLETED)) {
            char plabel[400];
            snprintf(plabel, sizeof plabel, "run %zu/%zu point %zu replication %ld%s",
                     k + 1, ntodo, p, r, pnote);
            run_print_profile(stdout, prof, plabel);
        }
        /* the scenario's output of this run reaches a file or pipe now,
         * not at exit (nor never, if the process is killed) */
        fflush(stdout);
        sim_run_record_free(&rec);
        lworld_destroy(lw);
        sim_prof_destroy(prof);
        lhost_destroy(h);
        run_free_plan(&cur);
        if (run_summarize_after(c, todo, ntodo, k) != HOST_OK)
            c->status = HOST_FAIL;
        if (c->spread && shard->rank == 0)   /* what the others sent meanwhile */
            run_spread_receive(c, c->spread_st, todo, ntodo, 0);
        done = k + 1;
    }
    if (c->spread && shard->rank != 0 && run_spread_done(c) != MTC_OK)
        c->status = HOST_FAIL;
    if (c->status != HOST_OK || *c->interrupt)
        run_note_unfinished(c, done, ntodo);
    return c->status;
}
