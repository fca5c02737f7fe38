/*
 * run_record_store.c - the recorder: a run record into the results
 * database (contract in sim/run_record.h). The one place that decides
 * what a run's rows are and in what order they are written, so that a
 * run made in this process, by a -j worker or on another MPI rank leaves
 * the same rows, ids included.
 */
#include "sim/run_record.h"

#include <stdio.h>
#include <string.h>

#include "mtc/error.h"

/* Ends run as failed with the reason in why (reached, events: as far as
 * it got); a failure to do so is added to why. */
static void end_failed(sim_results *db, int64_t run, sim_time reached,
                       uint64_t events, char *why, size_t whylen)
{
    if (sim_results_run_end(db, run, SIM_RUN_FAILED, reached, events, why) !=
        MTC_OK) {
        size_t k = strlen(why);
        snprintf(why + k, whylen - k, "; cannot mark run %lld failed: %s",
                 (long long)run, sim_results_errmsg(db));
    }
}

int sim_run_record_begin(sim_results *db, const sim_run_origin *o,
                         const sim_run_record *r, int64_t *run_id, char *why,
                         size_t whylen)
{
    *run_id = 0;
    why[0] = '\0';
    if (!db || !o || !r->began) {
        snprintf(why, whylen, "recording a run that never began");
        return MTC_ERR_ARG;
    }
    sim_run_info ri = {o->experiment_id, (int64_t)r->point,
                       (int64_t)r->replication, r->seed, o->scenario_path,
                       o->scenario_sha256, o->program_version, 0, r->stop};
    int rc = sim_results_run_begin(db, &ri, run_id);
    for (size_t i = 0; i < r->nparams && rc == MTC_OK; i++)
        rc = sim_results_add_param(db, *run_id, r->params[i].kind,
                                   r->params[i].entity, r->params[i].name,
                                   r->params[i].value);
    for (size_t i = 0; i < r->nswept && rc == MTC_OK; i++)
        rc = sim_results_mark_swept(db, *run_id, "scenario", "scenario",
                                    r->swept[i]);
    for (size_t i = 0; i < r->nattrs && rc == MTC_OK; i++)
        rc = sim_results_add_attr(db, *run_id, r->attrs[i].name,
                                  r->attrs[i].value);
    if (rc == MTC_OK)
        rc = sim_results_flush(db);
    if (rc != MTC_OK) {
        snprintf(why, whylen, "%s", sim_results_errmsg(db));
        if (*run_id)    /* begun: it must not stay 'running' */
            end_failed(db, *run_id, 0, 0, why, whylen);
    }
    return rc;
}

int sim_run_record_end(sim_results *db, int64_t run_id,
                       const sim_run_record *r, char *why, size_t whylen)
{
    why[0] = '\0';
    int st = r->status;
    if (!db || (st != SIM_RUN_COMPLETED && st != SIM_RUN_INTERRUPTED &&
                st != SIM_RUN_FAILED)) {
        snprintf(why, whylen, "ending a run with status %d", st);
        return MTC_ERR_ARG;
    }
    int rc = MTC_OK;
    if (r->metrics && (rc = sim_results_store_metrics(db, run_id, r->metrics)) != MTC_OK) {
        snprintf(why, whylen, "storing the run's metrics failed: %s",
                 sim_results_errmsg(db));
        end_failed(db, run_id, r->reached, r->events, why, whylen);
        return rc;
    }
    rc = sim_results_run_end(db, run_id, st, r->reached, r->events,
                             st != SIM_RUN_COMPLETED ? r->reason : NULL);
    if (rc != MTC_OK) {
        snprintf(why, whylen, "%s", sim_results_errmsg(db));
        if (st != SIM_RUN_FAILED)   /* a failed end may still take */
            end_failed(db, run_id, r->reached, r->events, why, whylen);
    }
    return rc;
}
