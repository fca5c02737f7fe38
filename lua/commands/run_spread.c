/*
 * run_spread.c - --spread-runs under mpirun: the byte records a rank sends
 * rank 0 for each whole run it computed, and rank 0's gathering and
 * recording of them. Separate because only the spread mode uses it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "run_internal.h"
#include "mtc/error.h"

static void bb_put(bytebuf *bb, const void *p, size_t len)
{
    if (bb->failed)
        return;
    if (bb->n + len > bb->cap) {
        size_t cap = bb->cap ? bb->cap : 4096;
        while (cap < bb->n + len)
            cap *= 2;
        uint8_t *nb = realloc(bb->b, cap);
        if (!nb) {
            bb->failed = 1;
            return;
        }
        bb->b = nb;
        bb->cap = cap;
    }
    memcpy(bb->b + bb->n, p, len);
    bb->n += len;
}

void run_remote_put(bytebuf *bb, const remote_run *rr)
{
    bb_put(bb, &rr->idx, sizeof rr->idx);
    bb_put(bb, &rr->status, sizeof rr->status);
    bb_put(bb, &rr->now, sizeof rr->now);
    bb_put(bb, &rr->events, sizeof rr->events);
    bb_put(bb, rr->err, sizeof rr->err);
    bb_put(bb, &rr->mlen, sizeof rr->mlen);
    bb_put(bb, rr->metrics, (size_t)rr->mlen);
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

/*
 * --spread-runs, after every rank has done its runs: rank 0 gathers the
 * other ranks' results and records each as its own run, with the
 * parameters of a world rebuilt (not run) from the same scenario state.
 * Collective. Returns the command's status.
 */
int run_collect_spread(const run_opts *o, const plan *pl,
                       const sim_shard *shard, sim_results *db,
                       int64_t exp_id, const char *sha, const bytebuf *mine,
                       run_stats *runs, size_t *nruns, int status)
{
    uint8_t *all = NULL;
    int db_failed = 0;
    size_t *lens = calloc((size_t)shard->size, sizeof *lens);
    int rc = lens ? MTC_OK : MTC_ERR_NOMEM;
    /* every rank must reach the gather, even after a local failure */
    if (sim_shard_gather(shard, mine->failed ? NULL : mine->b,
                         mine->failed ? 0 : mine->n, &all, lens ? lens : &(size_t){0}) != MTC_OK)
        rc = MTC_ERR_IO;
    if (mine->failed)
        rc = MTC_ERR_NOMEM;
    if (shard->rank == 0 && rc == MTC_OK) {
        size_t base = 0;
        char err[8192];
        for (int r = 1; r < shard->size && status == HOST_OK; r++) {
            base += lens[r - 1];
            size_t off = 0;
            remote_run rr;
            int got;
            while (status == HOST_OK &&
                   (got = remote_get(all + base, lens[r], &off, &rr)) != 0) {
                if (got < 0) {
                    fprintf(stderr, "mtcsim run: corrupt results from rank %d\n", r);
                    status = HOST_FAIL;
                    break;
                }
                size_t p = (size_t)(rr.idx / (uint64_t)pl->reps);
                long rep = (long)(rr.idx % (uint64_t)pl->reps);
                lhost *h = run_scenario_state(o, pl, p, (uint64_t)rep, err, sizeof err);
                lworld *lw = NULL;
                plan cur;
                memset(&cur, 0, sizeof cur);
                sim_metrics *m = NULL;
                int ok = h != NULL;
                if (ok && run_scenario_params(h, &cur) != HOST_OK) {
                    ok = 0;
                    snprintf(err, sizeof err, "the scenario's declarations "
                             "changed");
                }
                ok = ok && lworld_build(h, o->seed, (uint64_t)rep, NULL, &lw, err,
                                        sizeof err) == MTC_OK;
                if (ok && rr.mlen)
                    ok = sim_metrics_decode(&m, rr.metrics, (size_t)rr.mlen) == MTC_OK;
                if (!ok) {
                    fprintf(stderr, "mtcsim run: recording run %llu from rank %d: %s\n",
                            (unsigned long long)rr.idx, r, err);
                    status = HOST_FAIL;
                }
                if (ok && db) {
                    int64_t run_id = 0;
                    char rank_text[16];
                    snprintf(rank_text, sizeof rank_text, "%d", r);
                    sim_run_info ri = {exp_id, (int64_t)p, rep, o->seed, o->scenario,
                                       sha, MTCSIM_VERSION, 0, lworld_duration(lw)};
                    if (sim_results_run_begin(db, &ri, &run_id) != MTC_OK ||
                        run_record_params(db, run_id, &cur, pl, lw) != MTC_OK ||
                        sim_results_add_attr(db, run_id, "sandbox",
                                             o->unsafe ? "off" : "on") != MTC_OK ||
                        sim_results_add_attr(db, run_id, "mpi_rank", rank_text) !=
                            MTC_OK ||
                        run_record_actions(db, run_id, h) != MTC_OK) {
                        fprintf(stderr, "mtcsim run: %s: %s\n", o->out,
                                sim_results_errmsg(db));
                        if (run_id)     /* it must not stay 'running' */
                            sim_results_run_end(db, run_id, SIM_RUN_FAILED, 0,
                                                0, sim_results_errmsg(db));
                        status = HOST_FAIL;
                        db_failed = 1;
                    } else if (run_store(db, o->out, run_id, m, rr.status,
                                         rr.now, rr.events, rr.err) != MTC_OK) {
                        status = HOST_FAIL;
                        db_failed = 1;
                    }
                }
                if (ok && rr.status != SIM_RUN_COMPLETED) {
                    if (rr.status == SIM_RUN_FAILED)
                        fprintf(stderr, "mtcsim run: run %llu on rank %d: %s\n",
                                (unsigned long long)rr.idx, r, rr.err);
                    status = HOST_FAIL;
                }
                if (ok && status == HOST_OK && m) {
                    run_stats *st = &runs[(*nruns)++];
                    st->point = p;
                    st->rep = (size_t)rep;
                    run_collect_stats(m, st);
                }
                sim_metrics_destroy(m);
                lworld_destroy(lw);
                lhost_destroy(h);
                run_free_plan(&cur);
            }
        }
        /* every point's completed runs, also after a failed or
         * interrupted one (not after the file itself failed) */
        for (size_t p = 0; db && !db_failed && p < pl->npoints; p++)
            if (sim_results_summarize(db, exp_id, (int64_t)p, 0.95) != MTC_OK) {
                fprintf(stderr, "mtcsim run: %s\n", sim_results_errmsg(db));
                status = HOST_FAIL;
            }
    }
    if (rc != MTC_OK && status == HOST_OK) {
        fprintf(stderr, "mtcsim run: gathering runs from the ranks: %s\n",
                mtc_strerror(rc));
        status = HOST_FAIL;
    }
    free(all);
    free(lens);
    return status;
}
