/*
 * run_spread.c - --spread-runs under mpirun: the run record
 * (sim/run_record.h) a rank sends rank 0 as soon as each whole run it
 * computed ends, and rank 0's receiving and recording of them. A record
 * travels at once, not at the end of the job, so that a rank killed later
 * loses only the run it had in flight; rank 0 records that run too, as
 * interrupted with the reason, from a world it rebuilds (not runs) for
 * the record's start.
 * Separate because only the spread mode uses it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host.h"
#include "run_internal.h"
#include "mtc/error.h"
#include "sim/status.h"

enum { TAG_RUN = 1, TAG_DONE = 2 };

const char *run_signal_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM (mpirun stops every rank when one dies)"
           : sig == SIGINT ? "SIGINT" : "a signal";
}

int run_spread_send(run_ctx *c, const sim_run_record *r)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = sim_run_record_encode(r, 1, &buf, &len);
    if (rc == MTC_OK && sim_shard_send(c->shard, TAG_RUN, buf, len) != SIM_OK)
        rc = MTC_ERR_IO;
    free(buf);
    if (rc != MTC_OK)
        fprintf(stderr, "mtcsim run: rank %d: sending run %llu to rank 0: %s\n",
                c->shard->rank,
                (unsigned long long)(r->point * (uint64_t)c->pl->reps +
                                     r->replication), sim_strerror(rc));
    return rc;
}

int run_spread_done(run_ctx *c)
{
    int32_t st = c->status;
    return sim_shard_send(c->shard, TAG_DONE, &st, sizeof st) == SIM_OK
               ? MTC_OK : MTC_ERR_IO;
}

/* Rank 0: records run r, made (or stopped) on rank `from`, and collects
 * its statistics. */
static void record_remote(run_ctx *c, int from, const sim_run_record *r)
{
    if (c->db && !c->db_failed) {
        int64_t run_id = 0;
        if (run_record_begin(c, r, &run_id) != HOST_OK ||
            run_record_end(c, run_id, r) != HOST_OK)
            c->status = HOST_FAIL;
    }
    if (r->status != SIM_RUN_COMPLETED) {
        fprintf(stderr, "mtcsim run: run %llu on rank %d: %s\n",
                (unsigned long long)(r->point * (uint64_t)c->pl->reps +
                                     r->replication),
                from, r->reason ? r->reason : "");
        c->status = HOST_FAIL;
    }
    if (c->status == HOST_OK && r->metrics) {
        run_stats *st = &c->runs[c->nruns++];
        st->point = (size_t)r->point;
        st->rep = (size_t)r->replication;
        run_collect_stats((sim_metrics *)r->metrics, st);
    }
}

/* Rank 0: the record of the run rank `from` had in flight when it was
 * stopped, which it never sent: its start from the same scenario state
 * and world rebuilt here (not run), its end interrupted with the reason.
 * HOST_OK, or HOST_FAIL (printed). */
static int in_flight_record(run_ctx *c, int from, size_t idx, sim_run_record *r)
{
    /* Rebuilding the state is bookkeeping, not a run: once a signal came
     * it must still finish, so it does not watch the interrupt flag. */
    run_opts ro = *c->o;
    ro.interrupt = NULL;
    run_ctx rc = *c;
    rc.o = &ro;
    size_t p = idx / (size_t)c->pl->reps;
    uint64_t rep = idx % (uint64_t)c->pl->reps;
    char err[8192];
    sim_run_record_init(r, p, rep, ro.seed);
    lhost *h = run_scenario_state(&ro, c->pl, p, rep, err, sizeof err);
    lworld *lw = NULL;
    plan cur;
    memset(&cur, 0, sizeof cur);
    int ok = h != NULL;
    if (ok && run_scenario_params(h, &cur) != HOST_OK) {
        ok = 0;
        snprintf(err, sizeof err, "the scenario's declarations changed");
    }
    ok = ok && lworld_build(h, ro.seed, rep, NULL, &lw, err, sizeof err) == MTC_OK;
    if (ok && run_record_start(&rc, r, h, &cur, lw, from) != MTC_OK) {
        ok = 0;
        snprintf(err, sizeof err, "out of memory");
    }
    r->status = SIM_RUN_INTERRUPTED;
    snprintf(err, sizeof err, "rank %d stopped: it sent no result for this run "
             "before rank 0 was stopped by %s", from,
             run_signal_name((int)*c->interrupt));
    if (ok && sim_run_record_set_reason(r, err) != MTC_OK) {
        ok = 0;
        snprintf(err, sizeof err, "out of memory");
    }
    if (!ok)
        fprintf(stderr, "mtcsim run: recording run %zu from rank %d: %s\n", idx,
                from, err);
    lworld_destroy(lw);
    lhost_destroy(h);
    run_free_plan(&cur);
    return ok ? HOST_OK : HOST_FAIL;
}

/* Rank 0: handles one message from another rank. */
static void take_message(run_ctx *c, spread_state *ss, const size_t *todo,
                         size_t ntodo, int from, int tag, const uint8_t *buf,
                         size_t len)
{
    if (from <= 0 || from >= c->shard->size)
        return;
    if (tag == TAG_DONE) {
        int32_t st = HOST_FAIL;
        if (len == sizeof st)
            memcpy(&st, buf, sizeof st);
        ss->done[from] = 1;
        if (st != HOST_OK && c->status == HOST_OK)
            c->status = HOST_FAIL;
        return;
    }
    sim_run_record r;
    uint64_t reps = (uint64_t)c->pl->reps;
    if (sim_run_record_decode(&r, buf, len, 1) != MTC_OK || !r.began ||
        r.point >= c->pl->npoints || r.replication >= reps ||
        r.status == SIM_RUN_RUNNING) {
        fprintf(stderr, "mtcsim run: corrupt results from rank %d\n", from);
        c->status = HOST_FAIL;
        sim_run_record_free(&r);
        return;
    }
    size_t idx = (size_t)(r.point * reps + r.replication);
    for (size_t k = 0; k < ntodo; k++)
        if (todo[k] == idx)
            ss->got[k] = 1;
    record_remote(c, from, &r);
    sim_run_record_free(&r);
}

/* Rank 0, once stopped by a signal: the run each unfinished rank had in
 * flight (its first to-do run not received: a rank does its share in
 * order) is recorded as interrupted, with the reason, so that no run is
 * left 'running' or unrecorded and --resume redoes exactly it. */
static void record_in_flight(run_ctx *c, spread_state *ss, const size_t *todo,
                             size_t ntodo)
{
    int size = c->shard->size;
    for (int r = 1; r < size; r++) {
        if (ss->done[r])
            continue;
        for (size_t k = (size_t)r; k < ntodo; k += (size_t)size) {
            if (ss->got[k])
                continue;
            sim_run_record rec;
            ss->got[k] = 1;
            if (in_flight_record(c, r, todo[k], &rec) == HOST_OK)
                record_remote(c, r, &rec);
            else
                c->status = HOST_FAIL;
            sim_run_record_free(&rec);
            break;
        }
    }
}

static void nap_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

void run_spread_receive(run_ctx *c, spread_state *ss, const size_t *todo,
                        size_t ntodo, int wait)
{
    int size = c->shard->size;
    double grace_until = -1;
    for (;;) {
        int from = -1, tag = 0;
        uint8_t *buf = NULL;
        size_t len = 0;
        int got = sim_shard_poll(c->shard, &from, &tag, &buf, &len);
        if (got < 0) {
            fprintf(stderr, "mtcsim run: receiving from the ranks: %s\n",
                    got == SIM_ERR_NOMEM ? "out of memory" : "MPI failed");
            c->status = HOST_FAIL;
            return;
        }
        if (got) {
            take_message(c, ss, todo, ntodo, from, tag, buf, len);
            free(buf);
            continue;
        }
        if (!wait)
            return;
        int all = 1;
        for (int r = 1; r < size; r++)
            all = all && ss->done[r];
        if (all)
            break;
        if (*c->interrupt) {
            /* the other ranks got the signal too: a short grace for the
             * records of the runs they stop now (mpirun follows its
             * SIGTERM with SIGKILL one second later by default) */
            if (grace_until < 0)
                grace_until = host_now() + 0.3;
            else if (host_now() > grace_until) {
                record_in_flight(c, ss, todo, ntodo);
                break;
            }
        }
        nap_ms(5);
    }
    /* every point's completed runs, also after a failed or interrupted
     * one (not after the file itself failed) */
    for (size_t p = 0; c->db && c->exp_id && !c->db_failed && p < c->pl->npoints; p++)
        if (sim_results_summarize(c->db, c->exp_id, (int64_t)p, 0.95) != MTC_OK) {
            fprintf(stderr, "mtcsim run: %s\n", sim_results_errmsg(c->db));
            c->status = HOST_FAIL;
            c->db_failed = 1;
        }
}
