/*
 * lworld_shards.c - the end of a run sharded over MPI ranks (lworld_run):
 * every rank other than 0 sends rank 0 a report of its shard (how it
 * ended, its events, its metrics), rank 0 merges them in rank order, runs
 * on_finish, and tells each rank how the run ended.
 *
 * Why messages and not collectives: a rank waiting inside a collective
 * cannot be stopped, so when one rank died (killed, out of memory) rank 0
 * waited there until mpirun killed it, and the run stayed 'running' with
 * no reason. Rank 0 waits here for each report with a non-blocking probe
 * and looks at the interrupt flag in between: once a signal has stopped it
 * (mpirun sends every rank SIGTERM when one dies, SIGKILL a second later),
 * it takes the reports still arriving for 0.3 s (the live ranks stop
 * their shards and report too), and the ranks that sent none are named
 * in the run's reason. Merging in rank order with sim_metrics_merge keeps
 * the results identical to the collective merge.
 */
#include "lworld_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mtc/error.h"
#include "sim/status.h"

/* Message kinds of this protocol (the spread-runs mode has its own). */
enum { TAG_SHARD = 101, TAG_OUTCOME = 102 };

/* How a shard or the run ended. */
enum { END_OK = 0, END_INTERRUPTED = 1, END_FAILED = 2 };

/* The report's fixed head, host-endian (one binary on one kind of machine
 * per job); then errlen bytes of message, then the metrics' encoding. */
typedef struct report_head {
    int32_t end;
    uint32_t errlen;
    uint64_t events;
} report_head;

/* Rank 0's wait for the others once a signal stopped it (s). */
#define GRACE_S 0.3
/* A rank's wait for rank 0's answer once a signal stopped it (s): rank 0
 * may still be taking the others' reports. */
#define ANSWER_GRACE_S 2.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void nap_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* A rank other than 0: its report to rank 0. MTC_OK or an error. */
static int send_report(lworld *lw, int end)
{
    uint8_t *enc = NULL;
    size_t elen = 0;
    if (end != END_FAILED &&
        sim_metrics_encode(lw->metrics, &enc, &elen) != SIM_OK) {
        end = END_FAILED;
        snprintf(lw->err, sizeof lw->err, "rank %d: cannot encode its metrics",
                 lw->shard->rank);
    }
    const char *msg = end == END_OK ? "" : lw->err;
    report_head hd = {end, (uint32_t)strlen(msg),
                      sim_engine_events_executed(lw->engine)};
    size_t n = sizeof hd + hd.errlen + elen;
    uint8_t *b = malloc(n);
    int rc = MTC_ERR_NOMEM;
    if (b) {
        memcpy(b, &hd, sizeof hd);
        memcpy(b + sizeof hd, msg, hd.errlen);
        if (elen)
            memcpy(b + sizeof hd + hd.errlen, enc, elen);
        rc = sim_shard_send(lw->shard, TAG_SHARD, b, n) == SIM_OK ? MTC_OK
                                                                  : MTC_ERR_IO;
    }
    free(b);
    free(enc);
    return rc;
}

/* Rank 0: one rank's report into the run (rank order). */
static void take_report(lworld *lw, int r, const uint8_t *b, size_t n,
                        int *interrupted, char *why, size_t whylen)
{
    report_head hd;
    if (n < sizeof hd || (memcpy(&hd, b, sizeof hd), hd.errlen > n - sizeof hd) ||
        hd.end < END_OK || hd.end > END_FAILED) {
        if (!lw->failed) {
            lw->failed = 1;
            snprintf(lw->err, sizeof lw->err, "rank %d sent a corrupt report "
                     "of its shard", r);
        }
        return;
    }
    lw->events += hd.events;
    const char *msg = (const char *)b + sizeof hd;
    if (hd.end == END_FAILED) {
        if (!lw->failed) {
            lw->failed = 1;
            snprintf(lw->err, sizeof lw->err, "rank %d: %.*s", r,
                     (int)(hd.errlen < 3000 ? hd.errlen : 3000), msg);
        }
        return;
    }
    if (hd.end == END_INTERRUPTED) {
        if (!*interrupted && !why[0])
            snprintf(why, whylen, "%.*s", (int)(hd.errlen < 400 ? hd.errlen : 400),
                     msg);
        *interrupted = 1;
    }
    if (lw->failed)
        return;
    const uint8_t *enc = b + sizeof hd + hd.errlen;
    size_t elen = n - sizeof hd - hd.errlen;
    lw->merge_bytes += elen;
    sim_metrics *other = NULL;
    int rc = sim_metrics_decode(&other, enc, elen);
    if (rc == SIM_OK)
        rc = sim_metrics_merge(lw->metrics, other);
    sim_metrics_destroy(other);
    if (rc != SIM_OK) {
        lw->failed = 1;
        snprintf(lw->err, sizeof lw->err, "merging the shards' metrics "
                 "(rank %d): %s", r, sim_strerror(rc));
    }
}

/* Rank 0: every other rank's report, merged in rank order; on a signal,
 * the ranks that sent none are named in lw->err and lw->shards_missing
 * is set. */
static void collect_reports(lworld *lw, int *interrupted)
{
    int size = lw->shard->size;
    uint8_t **got = calloc((size_t)size, sizeof *got);
    size_t *len = calloc((size_t)size, sizeof *len);
    if (!got || !len) {
        free(got);
        free(len);
        lw->failed = 1;
        snprintf(lw->err, sizeof lw->err, "merging the shards: out of memory");
        return;
    }
    int have = 0;
    double grace_until = -1;
    while (have < size - 1) {
        int any = 0;
        for (int r = 1; r < size; r++) {
            if (got[r])
                continue;
            int prc = sim_shard_poll_from(lw->shard, r, TAG_SHARD, &got[r], &len[r]);
            if (prc < 0) {
                lw->failed = 1;
                snprintf(lw->err, sizeof lw->err, "receiving rank %d's shard: %s",
                         r, sim_strerror(prc));
                goto out;
            }
            if (prc > 0) {
                have++;
                any = 1;
            }
        }
        if (any)
            continue;
        if (lw->interrupt && *lw->interrupt) {
            if (grace_until < 0)
                grace_until = now_s() + GRACE_S;
            else if (now_s() > grace_until)
                break;
        }
        nap_ms(2);
    }
    char why[512] = "";
    for (int r = 1; r < size; r++)
        if (got[r])
            take_report(lw, r, got[r], len[r], interrupted, why, sizeof why);
    if (have < size - 1) {
        /* stopped by a signal before every shard arrived */
        *interrupted = 1;
        lw->shards_missing = 1;
        char list[256] = "";
        size_t k = 0;
        for (int r = 1; r < size && k + 16 < sizeof list; r++)
            if (!got[r])
                k += (size_t)snprintf(list + k, sizeof list - k, "%s%d",
                                      k ? ", " : "", r);
        snprintf(lw->shard_why, sizeof lw->shard_why,
                 "rank%s %s sent no shard of this run before rank 0 was "
                 "stopped (a rank that died, or one still at work)",
                 size - 1 - have > 1 ? "s" : "", list);
    } else if (*interrupted && why[0]) {
        snprintf(lw->shard_why, sizeof lw->shard_why, "%s", why);
    }
out:
    for (int r = 0; r < size; r++)
        free(got[r]);
    free(got);
    free(len);
}

void lworld__shards_gather(lworld *lw, int *interrupted)
{
    lw->merge_bytes = 0;
    lw->events = sim_engine_events_executed(lw->engine);
    if (lw->shard->rank == 0) {
        collect_reports(lw, interrupted);
        return;
    }
    int end = lw->failed ? END_FAILED : *interrupted ? END_INTERRUPTED : END_OK;
    if (end == END_INTERRUPTED)
        snprintf(lw->err, sizeof lw->err, "rank %d stopped at simulated time "
                 "%.6g s", lw->shard->rank,
                 sim_time_to_sec(sim_now(lw->engine)));
    if (send_report(lw, end) != MTC_OK && !lw->failed) {
        lw->failed = 1;
        snprintf(lw->err, sizeof lw->err, "rank %d: cannot send its shard to "
                 "rank 0", lw->shard->rank);
    }
}

void lworld__shards_answer(lworld *lw, int *interrupted)
{
    const sim_shard *sh = lw->shard;
    if (sh->rank == 0) {
        int32_t end = lw->failed ? END_FAILED : *interrupted ? END_INTERRUPTED
                                                              : END_OK;
        /* to every rank that may be waiting: a rank that died is not
         * (a small message is buffered, not waited for) */
        for (int r = 1; r < sh->size; r++)
            sim_shard_send_to(sh, r, TAG_OUTCOME, &end, sizeof end);
        return;
    }
    double grace_until = -1;
    for (;;) {
        uint8_t *b = NULL;
        size_t n = 0;
        int prc = sim_shard_poll_from(sh, 0, TAG_OUTCOME, &b, &n);
        if (prc > 0) {
            int32_t end = END_FAILED;
            if (n == sizeof end)
                memcpy(&end, b, sizeof end);
            free(b);
            if (end == END_FAILED && !lw->failed) {
                lw->failed = 1;
                snprintf(lw->err, sizeof lw->err, "the run failed on another "
                         "rank (rank 0 says why)");
            } else if (end == END_INTERRUPTED) {
                *interrupted = 1;
            }
            return;
        }
        if (prc < 0 ||
            (lw->interrupt && *lw->interrupt && grace_until >= 0 &&
             now_s() > grace_until)) {
            /* rank 0 is gone or does not answer: the run did not end here */
            if (!lw->failed)
                *interrupted = 1;
            return;
        }
        if (lw->interrupt && *lw->interrupt && grace_until < 0)
            grace_until = now_s() + ANSWER_GRACE_S;
        nap_ms(2);
    }
}
