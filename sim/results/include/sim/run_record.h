/*
 * sim/run_record.h - a finished run as one value: what a run produces and
 * what the results database records of it, however the run was made (in
 * this process, by a -j worker process, on another MPI rank) and however
 * it travelled. Three parts, one owner:
 *
 *  - the record: identity (sweep point, replication, seed); its start,
 *    known once the run's world is built (planned stop, effective
 *    parameters in recording order, the swept ones, run attributes); its
 *    end (status and reason, simulated time reached, events, the wall
 *    seconds it took where it ran, metrics, the scenario's captured
 *    output).
 *  - the codec: the bytes one process sends another. The decoder parses
 *    bytes from another process: every read is checked against the
 *    bytes left, a count allocates nothing by itself (a list ends at its
 *    first entry that is not there), and what is not exactly one whole
 *    record is refused (MTC_ERR_PARSE); it is
 *    fuzzed (tests/fuzz_run_record.c). An accepted encoding re-encodes to
 *    the same bytes. Integers are little-endian.
 *  - the recorder: writes a record through sim/results.h in two steps,
 *    the run's row begun as "running" (with its parameters and attributes)
 *    before its first event, and ended after its last, so that every way
 *    of making runs writes the same rows in the same order.
 *
 * Ownership: a record owns copies of its strings (the add and set
 * functions copy) and its lists; its output and its metrics are
 * borrowed (the producer's, or after decode, the output points into the
 * decoded bytes, which must outlive the record) except metrics a decode
 * made, which the record owns. sim_run_record_free releases what it owns.
 * Functions return MTC_OK or a negative status (MTC_ERR_NOMEM,
 * MTC_ERR_PARSE, MTC_ERR_ARG, the results database's).
 */
#ifndef SIM_RUN_RECORD_H
#define SIM_RUN_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/results.h"

typedef struct sim_run_param {
    char *kind, *entity, *name, *value;
} sim_run_param;

typedef struct sim_run_attr {
    char *name, *value;
} sim_run_attr;

typedef struct sim_run_record {
    /* identity */
    uint64_t point;             /* sweep point, 0-based */
    uint64_t replication;       /* 0-based */
    uint64_t seed;
    /* the start */
    int began;                  /* 1: its world was built, so the run has
                                 * a row; 0: it failed before (the end
                                 * holds only the reason) */
    sim_time stop;              /* planned stop */
    sim_run_param *params;      /* effective parameters, in recording order */
    size_t nparams;
    char **swept;               /* scenario parameters that are sweep axes */
    size_t nswept;
    sim_run_attr *attrs;        /* run attributes, in recording order */
    size_t nattrs;
    /* the end */
    int status;                 /* SIM_RUN_*: RUNNING until it ends */
    sim_time reached;           /* simulated time reached */
    uint64_t events;
    double wall_s;              /* measured where it ran, for the report
                                 * line (the database times its own row) */
    char *reason;               /* why it did not complete; NULL: none */
    const sim_metrics *metrics; /* NULL: nothing to store (a failed run, or
                                 * one that lost part of its population) */
    const uint8_t *output;      /* the scenario's printed output, captured
                                 * where the run was made; NULL: none */
    uint64_t output_len;
    /* owned, internal */
    size_t cap_params, cap_swept, cap_attrs;
    sim_metrics *owned_metrics;
} sim_run_record;

/* A record of (point, replication, seed), nothing else known yet (status
 * RUNNING). Overwrites r without freeing it. */
void sim_run_record_init(sim_run_record *r, uint64_t point,
                         uint64_t replication, uint64_t seed);
/* Releases what r owns and leaves it as sim_run_record_init(r, 0, 0, 0)
 * would. Accepts NULL. */
void sim_run_record_free(sim_run_record *r);

/* Appends copies to the record's lists (MTC_ERR_NOMEM leaves r as it
 * was). */
int sim_run_record_add_param(sim_run_record *r, const char *kind,
                             const char *entity, const char *name,
                             const char *value);
int sim_run_record_add_swept(sim_run_record *r, const char *name);
int sim_run_record_add_attr(sim_run_record *r, const char *name,
                            const char *value);
/* Sets the reason to a copy of why (NULL: none). */
int sim_run_record_set_reason(sim_run_record *r, const char *why);

/* ---- the codec ----
 *
 * An encoding is a head of SIM_RUN_RECORD_HEAD bytes (a magic number and
 * the body's length), the body (every field but the output's bytes,
 * ending with the output's length), then the output's bytes. The output
 * comes last so that a carrier can stream it from wherever it keeps it
 * instead of holding it in memory. */
#define SIM_RUN_RECORD_HEAD 16

/* Encodes r into *buf (malloc'd, the caller frees it) of *len bytes.
 * with_output 1: the whole encoding, the output from r->output; 0: it
 * stops after the body (which declares r->output_len), and the caller
 * sends the output's r->output_len bytes after it. Errors: ARG, NOMEM. */
int sim_run_record_encode(const sim_run_record *r, int with_output,
                          uint8_t **buf, size_t *len);

/* From an encoding's first SIM_RUN_RECORD_HEAD bytes: the length of the
 * body that follows them. Errors: PARSE (not a record's head). */
int sim_run_record_body_len(const uint8_t *head, uint64_t *body_len);

/* The fixed-size fields of an encoding (identity, began, stop, status,
 * reached, events, wall seconds) from its first SIM_RUN_RECORD_PEEK
 * bytes (n may be more), nothing else of r set: what a carrier needs
 * before the record's turn to be recorded. Errors: PARSE. */
#define SIM_RUN_RECORD_PEEK (SIM_RUN_RECORD_HEAD + 58)
int sim_run_record_peek(const uint8_t *p, size_t n, sim_run_record *r);

/* Decodes p[0..n) into r (its previous contents are not freed: pass an
 * initialised and freed, or fresh, record). with_output 1: exactly one
 * whole encoding; r->output points into p. 0: exactly a head and body;
 * r->output is NULL and r->output_len what the body declares (the caller
 * reads those bytes from where it keeps them). On error r is left freed.
 * Errors: PARSE, NOMEM. */
int sim_run_record_decode(sim_run_record *r, const uint8_t *p, size_t n,
                          int with_output);

/* ---- the recorder ---- */

/* Where a record's run belongs: its experiment and provenance. */
typedef struct sim_run_origin {
    int64_t experiment_id;
    const char *scenario_path;      /* may be NULL */
    const char *scenario_sha256;    /* as sim_run_info's */
    const char *program_version;    /* required */
} sim_run_origin;

/* Begins r's run (r->began must be 1): the row ("running"), the
 * parameters, the swept marks and the attributes, in the record's order,
 * committed. On failure *why (whylen bytes) says what failed, and a row
 * already written is ended failed with that reason, never left running
 * (*run_id is then that row, else 0). */
int sim_run_record_begin(sim_results *db, const sim_run_origin *o,
                         const sim_run_record *r, int64_t *run_id, char *why,
                         size_t whylen);

/* Ends run_id (begun from r): its metrics if any (one transaction), then
 * its status, time reached, events and, unless it completed, its reason.
 * A failed store ends the run failed with the reason ("storing the run's
 * metrics failed: ..."), never leaving it running; *why says what failed. */
int sim_run_record_end(sim_results *db, int64_t run_id,
                       const sim_run_record *r, char *why, size_t whylen);

#endif
