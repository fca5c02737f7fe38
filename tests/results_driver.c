/*
 * results_driver.c - writes synthetic experiments (tests/lib/toy_world.h)
 * into a results database for the report and export shell tests. Test-only;
 * built by mk/analysis.mk, never run by tests/run.sh directly.
 *
 *   results_driver sweep FILE.db POINTS REPS   a sweep, summarized
 *   results_driver mixed FILE.db               2 completed runs, one
 *                                              interrupted, one failed, one
 *                                              left running
 *   results_driver bare FILE.db                one completed run, no metrics
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/toy_world.h"
#include "mtc/error.h"
#include "sim/world.h"

static int die(const char *what, sim_results *db, int rc)
{
    fprintf(stderr, "results_driver: %s: %s (%s)\n", what, sim_strerror(rc),
            db ? sim_results_errmsg(db) : "");
    return 1;
}

int main(int argc, char **argv)
{
    sim_results *db = NULL;
    char err[512];
    int64_t exp, run;
    int rc;
    if (argc < 3) {
        fprintf(stderr, "usage: results_driver sweep|mixed|bare FILE.db [POINTS REPS]\n");
        return 2;
    }
    if ((rc = sim_results_open(argv[2], SIM_RESULTS_CREATE, &db, err, sizeof err))) {
        fprintf(stderr, "results_driver: %s\n", err);
        return 1;
    }
    if (!strcmp(argv[1], "sweep") && argc == 5) {
        if ((rc = toy_record_sweep(db, atoi(argv[3]), atoi(argv[4]), &exp)))
            return die("sweep", db, rc);
    } else if (!strcmp(argv[1], "mixed")) {
        sim_experiment_info ei = {"toy-mixed", "results_driver mixed", 1, 5};
        if ((rc = sim_results_experiment_begin(db, &ei, &exp)))
            return die("experiment", db, rc);
        for (int r = 0; r < 2; r++) {
            toy_config c;
            toy_defaults(&c);
            c.replication = r;
            if ((rc = toy_record_run(db, exp, &c, &run)) != SIM_RUN_COMPLETED)
                return die("run", db, rc);
        }
        sim_run_info ri = {exp, 0, 2, 1, NULL, NULL, "toy-1", 0, 2 * SIM_DAY};
        if ((rc = sim_results_run_begin(db, &ri, &run)) ||
            (rc = sim_results_run_end(db, run, SIM_RUN_INTERRUPTED, SIM_DAY, 10, NULL)))
            return die("interrupted run", db, rc);
        ri.replication = 3;
        if ((rc = sim_results_run_begin(db, &ri, &run)) ||
            (rc = sim_results_run_end(db, run, SIM_RUN_FAILED, 0, 0,
                                      "scenario.lua:12: <bad> & \"quoted\" error")))
            return die("failed run", db, rc);
        ri.replication = 4;
        if ((rc = sim_results_run_begin(db, &ri, &run)))
            return die("running run", db, rc);
        if ((rc = sim_results_summarize(db, exp, 0, 0.95)))
            return die("summarize", db, rc);
    } else if (!strcmp(argv[1], "bare")) {
        sim_experiment_info ei = {"toy-bare", NULL, 1, 1};
        sim_run_info ri = {0, 0, 0, 1, NULL, NULL, "toy-1", 0, SIM_DAY};
        if ((rc = sim_results_experiment_begin(db, &ei, &exp)))
            return die("experiment", db, rc);
        ri.experiment_id = exp;
        if ((rc = sim_results_run_begin(db, &ri, &run)) ||
            (rc = sim_results_run_end(db, run, SIM_RUN_COMPLETED, SIM_DAY, 0, NULL)))
            return die("bare run", db, rc);
    } else {
        fprintf(stderr, "results_driver: bad arguments\n");
        return 2;
    }
    if ((rc = sim_results_close(db)))
        return die("close", NULL, rc);
    return 0;
}
