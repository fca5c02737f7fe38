/*
 * sim/prof.h - a run's CPU time by phase and by part, measured.
 *
 * A profile divides the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) into
 * cells (phase x part). Exactly one cell is current at any time; moving to
 * another cell reads the CPU clock once and charges the time since the
 * last read to the cell being left. Nothing is sampled or estimated: the
 * cells add up to the CPU time between sim_prof_create() and
 * sim_prof_stop(), and every clock read is counted, so the report can say
 * what the measuring itself cost (reads x the cost of one read, measured
 * at creation).
 *
 * The engine (sim_engine_set_prof) moves to the part its handler was
 * registered with before each event; model code moves to a finer part
 * around a piece of work (signing inside a checkpoint) with
 * sim_prof_enter / sim_prof_leave. A move to the current part reads no
 * clock, so a long stretch of events of one part costs nothing. Without a
 * profile (NULL) every function here is a no-op behind one branch: runs
 * without --profile execute the same instructions on the same data and
 * give the same results.
 *
 * Names of phases, parts and work counters are the caller's (the engine
 * knows nothing of what they mean); the world layer defines them.
 * Not thread-safe: one profile per thread, like the engine.
 */
#ifndef SIM_PROF_H
#define SIM_PROF_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine.h"

#define SIM_PROF_MAX_PARTS 16
#define SIM_PROF_MAX_PHASES 8
#define SIM_PROF_MAX_WORKS 16
#define SIM_PROF_MAX_HANDLERS 64

typedef struct sim_prof sim_prof;

/* The names (static strings, borrowed for the profile's life). */
typedef struct sim_prof_names {
    const char *const *part;    /* nparts <= SIM_PROF_MAX_PARTS */
    size_t nparts;
    const char *const *phase;   /* nphases <= SIM_PROF_MAX_PHASES */
    size_t nphases;
    const char *const *work;    /* nworks <= SIM_PROF_MAX_WORKS */
    size_t nworks;
} sim_prof_names;

/* Creates a profile in phase 0, part 0, and starts its clock (after
 * measuring the cost of a clock read). *out owned by the caller.
 * Errors: SIM_ERR_ARG (too many names), SIM_ERR_NOMEM. */
int sim_prof_create(sim_prof **out, const sim_prof_names *names);
/* Accepts NULL. */
void sim_prof_destroy(sim_prof *p);

/* Internal: the move (reads the clock). Use the inline forms. */
void sim__prof_move(sim_prof *p, int phase, int part);
int sim__prof_phase(const sim_prof *p);
int sim__prof_part(const sim_prof *p);

/* Moves to `part` in the current phase; returns the part it left, for
 * sim_prof_leave. p NULL: nothing, returns 0. */
static inline int sim_prof_enter(sim_prof *p, int part)
{
    if (!p)
        return 0;
    int prev = sim__prof_part(p);
    if (prev != part)
        sim__prof_move(p, sim__prof_phase(p), part);
    return prev;
}

/* Back to the part sim_prof_enter returned. */
static inline void sim_prof_leave(sim_prof *p, int prev)
{
    if (p && sim__prof_part(p) != prev)
        sim__prof_move(p, sim__prof_phase(p), prev);
}

/* Moves to `phase`, keeping the part. */
void sim_prof_phase(sim_prof *p, int phase);

/* Internal: adds n to work counter w. */
void sim__prof_work(sim_prof *p, int w, uint64_t n);

/* Adds n to work counter w of the current phase (what was done, for a
 * floor); p NULL: nothing. */
static inline void sim_prof_work(sim_prof *p, int w, uint64_t n)
{
    if (p)
        sim__prof_work(p, w, n);
}

/* Registers the part the engine moves to before running fn's events.
 * SIM_ERR_LIMIT past SIM_PROF_MAX_HANDLERS handlers; re-registering fn
 * changes its part. */
int sim_prof_handler(sim_prof *p, sim_handler fn, int part);
/* The part registered for fn, or `dflt`. */
int sim_prof_part_of(sim_prof *p, sim_handler fn, int dflt);

/* Charges the time since the last read and stops the clock (later moves
 * charge nothing). Readers may be called before it (they do not include
 * the current cell's running time). */
void sim_prof_stop(sim_prof *p);

/* CPU seconds charged to (phase, part). */
double sim_prof_seconds(const sim_prof *p, int phase, int part);
uint64_t sim_prof_work_count(const sim_prof *p, int phase, int w);
/* Clock reads made, and the CPU seconds one read costs (measured). */
uint64_t sim_prof_reads(const sim_prof *p);
double sim_prof_read_cost(const sim_prof *p);
const sim_prof_names *sim_prof_get_names(const sim_prof *p);

/* A run made by several processes (the MPI ranks of a sharded run) has
 * one profile per process; rank 0 reports their sum. sim_prof_export
 * writes p's cells (CPU ns per phase x part, work counts per phase, clock
 * reads) into out[SIM_PROF_EXPORT_BYTES], host-endian (the same binary
 * on every rank); sim_prof_add adds such cells into p, whose names must
 * be the exporter's. SIM_OK, or SIM_ERR_ARG (len is not an export's). */
#define SIM_PROF_EXPORT_BYTES \
    (8 * (SIM_PROF_MAX_PHASES * (SIM_PROF_MAX_PARTS + SIM_PROF_MAX_WORKS) + 1))
void sim_prof_export(const sim_prof *p, uint8_t *out);
int sim_prof_add(sim_prof *p, const uint8_t *in, size_t len);

/* The thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID). */
double sim_prof_thread_cpu(void);

#endif
