/*
 * results_status.c - the results database's block of the simulator's
 * status space (sim/status.h): names and messages of the SIM_ERR_DB*
 * codes of sim/results.h. Kept apart from the SQLite code so that naming a
 * status links no database code.
 */
#include "sim/results.h"

#define E(c, m) {c, #c, m}
static const sim_status_entry results_codes[] = {
    E(SIM_ERR_DB, "the results database (SQLite) reported an error"),
    E(SIM_ERR_DB_NOT_FOUND, "the results database file does not exist"),
    E(SIM_ERR_DB_NOT_SQLITE, "not an SQLite database file, or a corrupt one"),
    E(SIM_ERR_DB_FOREIGN, "an SQLite database that is not an mtcsim results database"),
    E(SIM_ERR_DB_VERSION, "an mtcsim results database of another schema version"),
    E(SIM_ERR_DB_NO_RUN, "no such run in the results database, or the run has ended"),
};
#undef E

const sim_status_block sim_results_status = {
    "results", SIM_STATUS_RESULTS_FIRST, results_codes,
    sizeof results_codes / sizeof results_codes[0],
};
