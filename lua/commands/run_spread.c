/*
 * run_spread.c - --spread-runs under mpirun: the byte record a rank sends
 * rank 0 as soon as each whole run it computed ends, and rank 0's
 * receiving and recording of them. A record travels at once, not at the
 * end of the job, so that a rank killed later loses only the run it had
 * in flight; rank 0 records that run too, as interrupted with the reason.
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

void run_remote_put(bytebuf *bb, const remote_run *rr)
{
    bytebuf_put(bb, &rr->idx, sizeof rr->idx);
    bytebuf_put(bb, &rr->status, sizeof rr->status);
    bytebuf_put(bb, &rr->now, sizeof rr->now);
    bytebuf_put(bb, &rr->events, sizeof rr->events);
    bytebuf_put(bb, rr->err, sizeof rr->err);
    bytebuf_put(bb, &rr->mlen, sizeof rr->mlen);
    bytebuf_put(bb, rr->metrics, (size_t)rr->mlen);
}

/* Reads the record at *off of buf[0..len); 0 at the end, -1 if corrupt. */
static int remote_get(const uint8_t *buf, size_t len, size_t *off,
                      remote_run *rr)
{
    size_t head = sizeof rr->idx + sizeof rr->status + sizeof rr->now +
                  sizeof rr->events + sizeof rr->err + sizeof rr->mlen;
    if (*off == len)
        return 0;
    if (len - *off < head)
        return -1;
    const uint8_t *p = buf + *off;
    memcpy(&rr->idx, p, sizeof rr->idx), p += sizeof rr->idx;
    memcpy(&rr->status, p, sizeof rr->status), p += sizeof rr->status;
    memcpy(&rr->now, p, sizeof rr->now), p += sizeof rr->now;
    memcpy(&rr->events, p, sizeof rr->events), p += sizeof rr->events;
    memcpy(rr->err, p, sizeof rr->err), p += sizeof rr->err;
    rr->err[sizeof rr->err - 1] = 0;
    memcpy(&rr->mlen, p, sizeof rr->mlen), p += sizeof rr->mlen;
    if (rr->mlen > len - *off - head)
        return -1;
    rr->metrics = p;
    *off += head + (size_t)rr->mlen;
    return 1;
}


enum { TAG_RUN = 1, TAG_DONE = 2 };

const char *run_signal_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM (mpirun stops every rank when one dies)"
           : sig == SIGINT ? "SIGINT" : "a signal";
}

int run_spread_send(run_ctx *c, const remote_run *rr)
{
    bytebuf bb = {NULL, 0, 0, 0};
    run_remote_put(&bb, rr);
    int rc = bb.failed ? MTC_ERR_NOMEM
             : sim_shard_send(c->shard, TAG_RUN, bb.b, bb.n) == SIM_OK ? MTC_OK
                                                                     : MTC_ERR_IO;
    free(bb.b);
    if (rc != MTC_OK)
        fprintf(stderr, "mtcsim run: rank %d: sending run %llu to rank 0: %s\n",
                c->shard->rank, (unsigned long long)rr->idx, sim_strerror(rc));
    return rc;
}

int run_spread_done(run_ctx *c)
{
    int32_t st = c->status;
    return sim_shard_send(c->shard, TAG_DONE, &st, sizeof st) == SIM_OK
               ? MTC_OK : MTC_ERR_IO;
}

/* Rank 0: records run rr computed (or stopped) on rank r, with the
 * parameters of a world rebuilt (not run) from the same scenario state. */
static void record_remote(run_ctx *c, int r, const remote_run *rr)
{
    /* Rebuilding the state is bookkeeping, not a run: once a signal came
     * it must still finish (the in-flight runs are recorded after it), so
     * the rebuilt state does not watch the interrupt flag. */
    run_opts ro = *c->o;
    ro.interrupt = NULL;
    const run_opts *o = &ro;
    const plan *pl = c->pl;
    sim_results *db = c->db;
    char err[8192];
    size_t p = (size_t)(rr->idx / (uint64_t)pl->reps);
    long rep = (long)(rr->idx % (uint64_t)pl->reps);
    if (p >= pl->npoints) {
        fprintf(stderr, "mtcsim run: corrupt results from rank %d\n", r);
        c->status = HOST_FAIL;
        return;
    }
    if (db && run_begin_experiment(c) != HOST_OK) {
        c->status = HOST_FAIL;
        c->db_failed = 1;
        return;
    }
    lhost *h = run_scenario_state(o, pl, p, (uint64_t)rep, err, sizeof err);
    lworld *lw = NULL;
    plan cur;
    memset(&cur, 0, sizeof cur);
    sim_metrics *m = NULL;
    int ok = h != NULL;
    if (ok && run_scenario_params(h, &cur) != HOST_OK) {
        ok = 0;
        snprintf(err, sizeof err, "the scenario's declarations changed");
    }
    ok = ok && lworld_build(h, o->seed, (uint64_t)rep, NULL, &lw, err,
                            sizeof err) == MTC_OK;
    if (ok && rr->mlen)
        ok = sim_metrics_decode(&m, rr->metrics, (size_t)rr->mlen) == MTC_OK;
    if (!ok) {
        fprintf(stderr, "mtcsim run: recording run %llu from rank %d: %s\n",
                (unsigned long long)rr->idx, r, err);
        c->status = HOST_FAIL;
    }
    if (ok && db && !c->db_failed) {
        int64_t run_id = 0;
        char rank_text[16];
        snprintf(rank_text, sizeof rank_text, "%d", r);
        sim_run_info ri = {c->exp_id, (int64_t)p, rep, o->seed, o->scenario,
                           c->sha, MTCSIM_VERSION, 0, lworld_duration(lw)};
        if (sim_results_run_begin(db, &ri, &run_id) != MTC_OK ||
            run_record_params(db, run_id, &cur, pl, lw) != MTC_OK ||
            sim_results_add_attr(db, run_id, "sandbox",
                                 o->unsafe ? "off" : "on") != MTC_OK ||
            sim_results_add_attr(db, run_id, "mpi_rank", rank_text) != MTC_OK ||
            run_record_actions(db, run_id, h) != MTC_OK) {
            char why[ERRMSG_COPY];
            snprintf(why, sizeof why, "%s", sim_results_errmsg(db));
            fprintf(stderr, "mtcsim run: %s: %s\n", o->out, why);
            if (run_id)     /* it must not stay 'running' */
                run_end_failed(db, o->out, run_id, why);
            c->status = HOST_FAIL;
            c->db_failed = 1;
        } else if (run_store(db, o->out, run_id, m, rr->status, rr->now,
                             rr->events, rr->err) != MTC_OK ||
                   sim_results_flush(db) != MTC_OK) {
            c->status = HOST_FAIL;
            c->db_failed = 1;
        }
    }
    if (ok && rr->status != SIM_RUN_COMPLETED) {
        fprintf(stderr, "mtcsim run: run %llu on rank %d: %s\n",
                (unsigned long long)rr->idx, r, rr->err);
        c->status = HOST_FAIL;
    }
    if (ok && c->status == HOST_OK && m) {
        run_stats *st = &c->runs[c->nruns++];
        st->point = p;
        st->rep = (size_t)rep;
        run_collect_stats(m, st);
    }
    sim_metrics_destroy(m);
    lworld_destroy(lw);
    lhost_destroy(h);
    run_free_plan(&cur);
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
    size_t off = 0;
    remote_run rr;
    int got;
    while ((got = remote_get(buf, len, &off, &rr)) != 0) {
        if (got < 0) {
            fprintf(stderr, "mtcsim run: corrupt results from rank %d\n", from);
            c->status = HOST_FAIL;
            return;
        }
        for (size_t k = 0; k < ntodo; k++)
            if (todo[k] == rr.idx)
                ss->got[k] = 1;
        record_remote(c, from, &rr);
    }
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
            remote_run rr = {todo[k], SIM_RUN_INTERRUPTED, 0, 0, "", NULL, 0};
            snprintf(rr.err, sizeof rr.err,
                     "rank %d stopped: it sent no result for this run before "
                     "rank 0 was stopped by %s", r,
                     run_signal_name((int)*c->interrupt));
            ss->got[k] = 1;
            record_remote(c, r, &rr);
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
