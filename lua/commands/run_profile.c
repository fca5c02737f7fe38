/*
 * run_profile.c - `mtcsim run --profile`: the report of one run's CPU
 * profile (sim/prof.h, phases and parts of sim/world_prof.h).
 *
 * Every figure is the thread's CPU clock, read when the run moved from one
 * (phase, part) cell to another; the report states how many reads that
 * took and what they cost, so the measuring's own share is visible. The
 * work lines are the counts a floor is computed from (make bench-study).
 * A run sharded over MPI ranks is made by every rank: rank 0 reports the
 * sum of all ranks' profiles (run_profile_gather); with --spread-runs each
 * rank makes whole runs and reports its own.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lcost.h"
#include "run_internal.h"

void run_print_profile(FILE *f, const sim_prof *p, const char *label)
{
    const sim_prof_names *n = sim_prof_get_names(p);
    if (!n)
        return;
    double col[SIM_PROF_MAX_PHASES] = {0}, all = 0;
    fprintf(f, "# profile of %s: thread CPU seconds, measured\n", label);
    fprintf(f, "#   %-26s", "part");
    for (size_t ph = 0; ph < n->nphases; ph++)
        fprintf(f, " %9s", n->phase[ph]);
    fprintf(f, " %9s\n", "total");
    for (size_t pt = 0; pt < n->nparts; pt++) {
        double row = 0;
        for (size_t ph = 0; ph < n->nphases; ph++)
            row += sim_prof_seconds(p, (int)ph, (int)pt);
        if (row == 0)
            continue;
        fprintf(f, "#   %-26s", n->part[pt]);
        for (size_t ph = 0; ph < n->nphases; ph++) {
            double v = sim_prof_seconds(p, (int)ph, (int)pt);
            col[ph] += v;
            fprintf(f, " %9.3f", v);
        }
        all += row;
        fprintf(f, " %9.3f\n", row);
    }
    fprintf(f, "#   %-26s", "all parts");
    for (size_t ph = 0; ph < n->nphases; ph++)
        fprintf(f, " %9.3f", col[ph]);
    fprintf(f, " %9.3f\n", all);
    fprintf(f, "#   %-26s", "work (counts)");
    for (size_t ph = 0; ph < n->nphases; ph++)
        fprintf(f, " %9s", n->phase[ph]);
    fprintf(f, "\n");
    for (size_t w = 0; w < n->nworks; w++) {
        uint64_t tot = 0;
        for (size_t ph = 0; ph < n->nphases; ph++)
            tot += sim_prof_work_count(p, (int)ph, (int)w);
        if (!tot)
            continue;
        fprintf(f, "#   %-26.26s", n->work[w]);
        for (size_t ph = 0; ph < n->nphases; ph++)
            fprintf(f, " %9" PRIu64, sim_prof_work_count(p, (int)ph, (int)w));
        fprintf(f, "\n");
    }
    uint64_t reads = sim_prof_reads(p);
    fprintf(f, "#   clock reads %" PRIu64 ", %.2f us each: about %.3f s of "
               "the total is the measuring itself\n", reads,
            sim_prof_read_cost(p) * 1e6, (double)reads * sim_prof_read_cost(p));
}

void run_print_cost(FILE *f, const lcost *c0, size_t npoints, long reps,
                    double plan_cpu, int varies, double shared_s)
{
    fprintf(f, "# expected CPU time (cost model, README \"What a study "
               "costs\"): %.0f s per run%s (%.3g M log entries, %.0f window "
               "signatures, %.3g M host visits)\n",
            c0->cpu_s, varies ? " at point 0" : "", c0->entries * 1e-6,
            c0->signatures, c0->visits * 1e-6);
    fprintf(f, "# expected CPU time of the plan: %.0f s (%.1f min) for %zu "
               "point%s x %ld replication%s%s", plan_cpu, plan_cpu / 60,
            npoints, npoints == 1 ? "" : "s", reps, reps == 1 ? "" : "s",
            varies == 2 ? ", every point priced as point 0 (a run prices "
                          "each point)" : "");
    /* an upper bound: a continuation forks the warmed world and copies
     * the pages it writes, which the model does not price (on a run of
     * 6 x 4 CPU s, 3.6 of the 8.2 s bound were saved) */
    if (shared_s >= 0.05) /* what the printed precision shows */
        fprintf(f, "; --share-warmup makes warm-ups once: at most %.*f s less",
                shared_s < 10 ? 1 : 0, shared_s);
    fprintf(f, "\n");
}

/* The message a rank sends rank 0 with its profile of a sharded run
 * (the tags of lworld_shards.c and run_spread.c are others). */
enum { TAG_PROF = 201 };

int run_profile_gather(const sim_shard *shard, sim_prof *prof, int whole,
                       const volatile sig_atomic_t *interrupt, char *note,
                       size_t n)
{
    note[0] = '\0';
    if (!prof || shard->size <= 1)
        return 1;
    uint8_t cells[SIM_PROF_EXPORT_BYTES];
    sim_prof_stop(prof);
    if (shard->rank != 0) {
        sim_prof_export(prof, cells);
        sim_shard_send(shard, TAG_PROF, cells, sizeof cells);
        return 0;
    }
    /* rank 0: every other rank's, waited for a while (they sent it as
     * their run ended, with their shard's report) unless a rank's shard
     * is already missing or a signal came */
    int got = 1;
    char missing[200] = "";
    size_t used = 0;
    for (int r = 1; r < shard->size; r++) {
        int rc = 0;
        uint8_t *buf = NULL;
        size_t len = 0;
        for (int tries = 0; whole && rc == 0 && tries < 3000 &&
                            !(interrupt && *interrupt); tries++) {
            rc = sim_shard_poll_from(shard, r, TAG_PROF, &buf, &len);
            if (rc == 0) {
                struct timespec ts = {0, 10 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
        }
        if (rc == 1 && sim_prof_add(prof, buf, len) == SIM_OK) {
            got++;
        } else if (used < sizeof missing) {
            int w = snprintf(missing + used, sizeof missing - used, "%s%d",
                             used ? ", " : "", r);
            used += w > 0 ? (size_t)w : 0;
        }
        free(buf);
    }
    if (got == shard->size)
        snprintf(note, n, ", summed over its %d MPI ranks (each its shard of "
                 "the browsers and the whole PKI)", shard->size);
    else
        snprintf(note, n, ", summed over %d of its %d MPI ranks (each its "
                 "shard of the browsers and the whole PKI; none from rank "
                 "%s)", got, shard->size, missing);
    return 1;
}
