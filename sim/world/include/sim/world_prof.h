/*
 * sim/world_prof.h - the phases, parts and work counters of a run's CPU
 * profile (sim/prof.h): what `mtcsim run --profile` reports.
 *
 * Parts are charged by the engine per event handler (each module
 * registers its handlers at start when a profile is set) and refined
 * around finer work: signing and signature verification wherever they
 * happen, log appends (and their hashing) when a web event asks a CA for
 * a certificate. Metric observations inside a handler belong to that
 * handler's part; "metrics" is the registry's own work at flushes and the
 * end of the run. Work counters count what a floor is computed from
 * (bench-study): SHA-256 compressions of building the logs' trees (leaf
 * hashes and one interior node per entry), signatures made, signatures
 * verified and full handshakes, over the whole run (warm-up included).
 */
#ifndef SIM_WORLD_PROF_H
#define SIM_WORLD_PROF_H

#include "sim/prof.h"

enum sim_world_phase {
    SIM_PHASE_SETUP = 0,    /* world built: keys, entities, start */
    SIM_PHASE_WARMUP,       /* events before the warm-up end */
    SIM_PHASE_WINDOW,       /* events of the measured window */
    SIM_PHASE_FINISH,       /* final gauges, metric flushes, on_finish */
    SIM_PHASE_RESULTS,      /* writing the results database */
    SIM_PHASE_COUNT
};

enum sim_world_part {
    SIM_PART_OTHER = 0,     /* the engine's queue, anything unregistered */
    SIM_PART_LOG,           /* log appends and hashing, checkpoints,
                               cosigners' consistency checks, pruning */
    SIM_PART_SIGN,          /* signing (CA, cosigners) */
    SIM_PART_VERIFY,        /* signature and certificate verification */
    SIM_PART_UPDATE,        /* the update service: fetches, versions,
                               publications, encodings, groups */
    SIM_PART_WEB,           /* handshakes and the clients' and sites' events */
    SIM_PART_METRICS,       /* the metrics registry's own work */
    SIM_PART_SCENARIO,      /* the scenario's Lua (sim:at, on_finish) */
    SIM_PART_RESULTS,       /* the results database */
    SIM_PART_COUNT
};

enum sim_world_work {
    SIM_WORK_LOG_ENTRIES = 0,   /* entries appended to issuance logs */
    SIM_WORK_HASH_BLOCKS,       /* SHA-256 compressions to build the trees */
    SIM_WORK_SIGNATURES,        /* signatures made */
    SIM_WORK_VERIFICATIONS,     /* signatures verified */
    SIM_WORK_HANDSHAKES,        /* full handshakes */
    /* checkpoint signatures the real system makes (the CA's and its
     * quorum's, one each per checkpoint), by algorithm, in the order of
     * the CA parameter `algorithm`'s names: ed25519, ecdsa-p256,
     * ml-dsa-44, ml-dsa-65, ml-dsa-87 */
    SIM_WORK_CKPT_SIGS,
    SIM_WORK_COUNT = SIM_WORK_CKPT_SIGS + 5
};

/* The names of the above, for sim_prof_create. */
const sim_prof_names *sim_world_prof_names(void);

#endif
