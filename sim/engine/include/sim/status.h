/*
 * sim/status.h - the simulator's status space, owned by the engine.
 *
 * Every fallible function of the simulator returns SIM_OK (0) or a negative
 * status from one space, split into blocks with one owner each:
 *
 *   -1    .. -999    mtc-core's codes (mtc/error.h), passed through unchanged
 *                    by the layers that call mtc-core; they may also use
 *                    MTC's general codes (MTC_ERR_NOMEM, MTC_ERR_ARG, ...)
 *                    for their own failures, but a refused configuration
 *                    is SIM_ERR_CONFIG everywhere in the simulator
 *   -1000 .. -1099   the engine's (below)
 *   -1100 .. -1199   the results database's (sim/results.h)
 *   -1200 .. -1299   the web module's (sim/tls.h)
 *
 * A new layer with codes of its own takes the next block here, defines its
 * codes and their messages in its own header and source (a sim_status_block)
 * and lists the block in sim_status_blocks (sim/world/world_modules.c).
 * sim_strerror() (sim/world.h) names any status of the space and hands
 * MTC's range to mtc_strerror(). The engine knows nothing of MTC, so it
 * names only its own block (sim_engine_status).
 *
 * Compare a status only with the codes the function called documents: the
 * engine's SIM_ERR_NOMEM and MTC's MTC_ERR_NOMEM are different values.
 */
#ifndef SIM_STATUS_H
#define SIM_STATUS_H

#include <stddef.h>

enum sim_status_space {
    SIM_STATUS_MTC_FIRST = -1,          /* mtc-core: -1 .. -999 */
    SIM_STATUS_MTC_LAST = -999,
    SIM_STATUS_ENGINE_FIRST = -1000,    /* this header */
    SIM_STATUS_RESULTS_FIRST = -1100,   /* sim/results.h */
    SIM_STATUS_WEB_FIRST = -1200,       /* sim/tls.h */
    SIM_STATUS_BLOCK_SIZE = 100
};

enum sim_status {
    SIM_OK = 0,
    SIM_ERR_ARG = -1001,     /* an argument is out of its documented domain */
    SIM_ERR_NOMEM = -1002,   /* allocation failed */
    SIM_ERR_IO = -1003,      /* a transport (file, MPI) failed */
    SIM_ERR_LIMIT = -1004,   /* a size or count limit was exceeded */
    SIM_ERR_UNSUPPORTED = -1005, /* feature not available in this build */
    SIM_ERR_PARSE = -1006,   /* text input is malformed */
    SIM_ERR_CONFIG = -1007,  /* a parameter set is inconsistent */
    SIM_ERR_PAST = -1008,    /* an event was scheduled before the current time */
    SIM_ERR_STATE = -1009,   /* event pending (or not) contrary to the call */
    SIM_ERR_METRIC = -1010   /* metric unknown, of another kind, or definitions differ */
};

/* One code of a block: its value, enumerator name and a short English
 * description (lower case, no final period: it follows "what: "). */
typedef struct sim_status_entry {
    int code;
    const char *name;
    const char *message;
} sim_status_entry;

/* A block of the space: [first - SIM_STATUS_BLOCK_SIZE + 1, first] and the
 * codes it defines. Blocks are constant data owned by their layer. */
typedef struct sim_status_block {
    const char *owner;          /* "engine", "results", "web" */
    int first;                  /* SIM_STATUS_*_FIRST */
    const sim_status_entry *codes;
    size_t ncodes;
} sim_status_block;

/* The engine's block. */
extern const sim_status_block sim_engine_status;

/* Whether rc falls in block b's range (defined there or not). */
int sim_status_in_block(const sim_status_block *b, int rc);

/* The entry of rc in block b, NULL if b does not define it. */
const sim_status_entry *sim_status_find(const sim_status_block *b, int rc);

#endif
