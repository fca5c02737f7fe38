/*
 * lcost.h - the expected CPU time of a run, from what the scenario
 * declared (before anything is built or run): `mtcsim run` and its
 * `--params` dry run print it for the plan.
 *
 * The cost model (README "What a study costs", docs/model.md "The cost
 * of a run"): a run costs
 *   C_ENTRY x log entries (every CA's rate x the whole run, warm-up
 *             included; per entry of synthetic history: the arrival
 *             draws and the count; of hashed history: also building and
 *             hashing the entry)
 * + sign(alg) x SIGN_MADE_SHARE x window signatures (three per
 *             checkpoint of the measured window for the CA and for each
 *             cosigner it lists, of which the simulator makes only those
 *             something reads; the warm-up's are not counted)
 * + C_VISIT x host visits (per browser cohort: count x online hours per
 *             day x visits_per_hour x mean hosts_per_visit x days, the
 *             whole run: clients browse in the warm-up too)
 * + C_RUN    (setup, finish, results)
 * with unit costs measured on the reference machine (lcost.c says where
 * each comes from). It is an estimate to plan by, not a measurement:
 * `--profile` measures.
 */
#ifndef MTCSIM_LCOST_H
#define MTCSIM_LCOST_H

#include "lhost.h"

typedef struct lcost {
    double entries;         /* log entries appended over the run */
    double log_s;           /* their CPU seconds */
    double signatures;      /* window signatures */
    double sign_s;          /* their CPU seconds */
    double visits;          /* host visits over the run */
    double cpu_s;           /* expected CPU seconds of the run */
    double warmup_s;        /* of which before the warm-up end (its log
                             * entries and host visits): what
                             * --share-warmup makes once per group */
} lcost;

/* The expected cost of one run of h's declared world (after the scenario
 * ran, before lworld_build takes the declarations). MTC_OK, or
 * SIM_ERR_CONFIG when nothing usable is declared (no world). */
int lcost_estimate(lhost *h, lcost *out);

#endif
