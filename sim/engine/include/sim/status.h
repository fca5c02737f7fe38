/*
 * sim/status.h - the engine's return codes.
 *
 * The engine knows nothing of MTC, so it does not include mtc/error.h; but
 * its codes travel unchanged through the world model and the host, which
 * name them with mtc_strerror(). Each SIM_* code therefore has the value of
 * the mtc/error.h code of the same meaning (MTC_ERR_ARG, MTC_ERR_SIM_PAST,
 * ...); sim/world/world.c checks the equality at compile time, where both
 * headers are visible. Add a code here only together with its twin there.
 */
#ifndef SIM_STATUS_H
#define SIM_STATUS_H

enum sim_status {
    SIM_OK = 0,
    SIM_ERR_ARG = -1,      /* an argument is out of its documented domain */
    SIM_ERR_NOMEM = -2,    /* allocation failed */
    SIM_ERR_IO = -3,       /* a transport (file, MPI) failed */
    SIM_ERR_LIMIT = -6,    /* a size or count limit was exceeded */
    SIM_ERR_UNSUPPORTED = -7, /* feature not available in this build */
    SIM_ERR_PARSE = -8,    /* text input is malformed */
    SIM_ERR_CONFIG = -66,  /* a parameter set is inconsistent */
    SIM_ERR_PAST = -120,   /* an event was scheduled before the current time */
    SIM_ERR_STATE = -121,  /* event pending (or not) contrary to the call */
    SIM_ERR_METRIC = -122  /* metric unknown, of another kind, or definitions differ */
};

#endif
