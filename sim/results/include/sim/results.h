/*
 * sim/results.h - the results database: runs, provenance and metrics in
 * SQLite (schema documented in docs/results.md).
 *
 * One database file accumulates experiments (one `mtcsim run` invocation
 * each), and each experiment its runs (sweep point x replication). A run
 * row is written the moment the run begins, with status "running", so a
 * process that dies leaves a visible trace; it becomes "completed",
 * "interrupted" or "failed" when the host ends it. A run's metrics are
 * stored in one transaction (and may be stored again, atomically replacing
 * the previous copy, as a periodic flush), so a reader - or a crash - never
 * sees half of them. The database is in WAL mode: readers (Python, R, the
 * sqlite3 shell, `mtcsim report`) query while a run writes.
 *
 * The writer stores every metric of a sim_metrics registry by name without
 * knowing the model (see docs/metrics.md for the names the model uses).
 *
 * Interruption, as the host is expected to do it (the library installs no
 * signal handler and has no global state):
 *
 *     static volatile sig_atomic_t stop_flag;   // set by SIGINT/SIGTERM
 *     static int stop_pred(sim_engine *e, void *a) { return stop_flag; }
 *     sim_results_run_begin(db, &info, &run);       // row "running"
 *     sim_results_add_params(db, run, schema, ...); // batched
 *     sim_engine_set_stop_predicate(eng, stop_pred, NULL);
 *     rc = sim_engine_run(eng);
 *     sim_metrics_finish(m, sim_now(eng));
 *     sim_results_store_metrics(db, run, m);        // one transaction
 *     sim_results_run_end(db, run, stop_flag ? SIM_RUN_INTERRUPTED
 *                         : SIM_RUN_COMPLETED, sim_now(eng), events, NULL);
 *
 * Every function returns MTC_OK or a negative status: mtc-core's general
 * codes (MTC_ERR_ARG, MTC_ERR_NOMEM, ...) or the results database's own
 * below, its block of the simulator's status space (sim/status.h; their
 * messages in results_status.c, named by sim_strerror()). A message
 * describing the last failure on a handle is in sim_results_errmsg().
 * A handle is not thread-safe; use one per thread (or process).
 */
#ifndef SIM_RESULTS_H
#define SIM_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine.h"
#include "sim/metrics.h"
#include "sim/params.h"
#include "sim/status.h"

/* PRAGMA user_version of the schema this code writes and reads, and
 * PRAGMA application_id of every mtcsim results database ("MTCS"). */
#define SIM_RESULTS_SCHEMA_VERSION 1
#define SIM_RESULTS_APPLICATION_ID 0x4D544353

/* The results database's statuses: block SIM_STATUS_RESULTS_FIRST. */
enum sim_results_status {
    SIM_ERR_DB = SIM_STATUS_RESULTS_FIRST,  /* the SQLite library reported an error */
    SIM_ERR_DB_NOT_FOUND = SIM_STATUS_RESULTS_FIRST - 1,  /* the file does not exist */
    SIM_ERR_DB_NOT_SQLITE = SIM_STATUS_RESULTS_FIRST - 2, /* not an SQLite database (or corrupt) */
    SIM_ERR_DB_FOREIGN = SIM_STATUS_RESULTS_FIRST - 3,    /* SQLite, not an mtcsim results database */
    SIM_ERR_DB_VERSION = SIM_STATUS_RESULTS_FIRST - 4,    /* a results database of another schema version */
    SIM_ERR_DB_NO_RUN = SIM_STATUS_RESULTS_FIRST - 5      /* no such run, or the run is already ended */
};

typedef struct sim_results sim_results;
struct sqlite3;

enum sim_results_mode {
    SIM_RESULTS_READ = 0,   /* must exist; opened read-only */
    SIM_RESULTS_APPEND = 1, /* must exist; runs are appended */
    SIM_RESULTS_CREATE = 2  /* created when missing (or an empty file), else appended */
};

/* Run status, stored as text (the names below). */
enum sim_run_status {
    SIM_RUN_RUNNING = 0,
    SIM_RUN_COMPLETED = 1,
    SIM_RUN_INTERRUPTED = 2,
    SIM_RUN_FAILED = 3
};
const char *sim_run_status_name(int status);   /* "running", ...; "?" */

/*
 * Opens (and, in CREATE mode, creates) a results database. An existing
 * file is first inspected read-only: it must be an SQLite database whose
 * application_id is SIM_RESULTS_APPLICATION_ID and whose user_version is
 * SIM_RESULTS_SCHEMA_VERSION, and in APPEND and CREATE mode every page
 * must pass PRAGMA quick_check; otherwise nothing is written to it and
 * the error says what it is. A file another process is creating at the
 * same moment is waited for (up to 30 s) and appended to. READ mode
 * needs no write access to the directory: without a -wal or -shm beside
 * the file and with no mtcsim writer at work it opens it immutable, and
 * writers leave the main file as it is until it is closed (advisory
 * locks, results_lock.c); where the -shm cannot be created it is opened
 * immutable too (refused if a -wal is left beside it). Errors
 * (message in err, which may be NULL):
 * MTC_ERR_ARG, SIM_ERR_DB_NOT_FOUND (READ/APPEND of a missing file),
 * SIM_ERR_DB_NOT_SQLITE (not an SQLite file, or corrupt anywhere), SIM_ERR_DB_FOREIGN
 * (another application's database), SIM_ERR_DB_VERSION, SIM_ERR_DB (any
 * other SQLite failure, e.g. a locked or unwritable file), MTC_ERR_NOMEM.
 * *out is owned by the caller (sim_results_close).
 */
int sim_results_open(const char *path, int mode, sim_results **out, char *err,
                     size_t errlen);

/* Commits pending batched writes and closes. Accepts NULL. Runs still
 * "running" stay so (a visible sign that the process stopped early).
 * Returns the commit's status. */
int sim_results_close(sim_results *db);

/* The message of the last failure on this handle ("" if none). */
const char *sim_results_errmsg(const sim_results *db);

/* The underlying connection, for the tests and the validation suite,
 * which check the database independently of the read API (programs read
 * through sim/results_read.h). Owned by the handle. Do not change its
 * settings or write through it. */
struct sqlite3 *sim_results_sqlite(sim_results *db);

/* ---- writing ---- */

typedef struct sim_experiment_info {
    const char *name;          /* e.g. the scenario's base name; required */
    const char *command_line;  /* as typed; may be NULL */
    int64_t sweep_points;      /* planned grid size (>= 1) */
    int64_t replications;      /* planned replications per point (>= 1) */
} sim_experiment_info;

/* A new experiment; *experiment_id identifies it. Errors: ARG, DB. */
int sim_results_experiment_begin(sim_results *db,
                                 const sim_experiment_info *info,
                                 int64_t *experiment_id);

typedef struct sim_run_info {
    int64_t experiment_id;
    int64_t sweep_point;       /* 0-based grid index */
    int64_t replication;       /* 0-based */
    uint64_t seed;             /* stored as the int64 of the same bits */
    const char *scenario_path; /* may be NULL (a run built in C) */
    /* 64 lowercase hex digits of the scenario's SHA-256; NULL: computed
     * here from scenario_path (if given). */
    const char *scenario_sha256;
    const char *program_version;  /* required */
    sim_time sim_start;           /* clock at the start */
    sim_time sim_stop;            /* planned stop time; SIM_TIME_MAX: none */
} sim_run_info;

/* Inserts the run row (status "running", start timestamp, host, pid) and
 * commits it at once. Errors: ARG, IO (scenario unreadable for hashing),
 * DB. */
int sim_results_run_begin(sim_results *db, const sim_run_info *info,
                          int64_t *run_id);

/* Parameters and attributes are batched: they join a write transaction
 * that the next call of another kind (or sim_results_flush) commits.
 * value: the text of the effective value (see sim_param_format). A second
 * add of the same (kind, entity, name) replaces the value. Errors: ARG,
 * DB_NO_RUN (not a run begun on this handle and not ended), DB. */
int sim_results_add_param(sim_results *db, int64_t run_id,
                          const char *entity_kind, const char *entity_name,
                          const char *name, const char *value);
/* Every parameter of a config struct described by schema (kind =
 * schema->kind). Errors as above, NOMEM. */
int sim_results_add_params(sim_results *db, int64_t run_id,
                           const sim_param_schema *schema,
                           const char *entity_name, const void *cfg);
/* Marks a stored parameter as a sweep axis (the report's x axis).
 * Errors: ARG, DB_NO_RUN, MTC_ERR_CONFIG (no such parameter), DB. */
int sim_results_mark_swept(sim_results *db, int64_t run_id,
                           const char *entity_kind, const char *entity_name,
                           const char *name);
/* Free-form run attribute (e.g. "mpi_ranks", "queue"). */
int sim_results_add_attr(sim_results *db, int64_t run_id, const char *name,
                         const char *value);

/* Commits the pending batch, if any. */
int sim_results_flush(sim_results *db);

/*
 * Stores every metric of m for the run, in one transaction, replacing what
 * an earlier call stored for it: definitions; counters and gauges (final
 * value per cohort, and the total as cohort "all"); series (per cohort and
 * total: grid time, value); histograms (per cohort and total: count, sum,
 * mean, min, max, p50/p90/p99 and the non-empty bins with their edges).
 * Also records the registry's warm-up and grid on the run. m should be
 * finished (sim_metrics_finish) for series to reach the end. Errors: ARG,
 * DB_NO_RUN, NOMEM, DB (the transaction is rolled back; the previous copy
 * stays).
 */
int sim_results_store_metrics(sim_results *db, int64_t run_id,
                              const sim_metrics *m);

/* Ends a run begun on this handle: status (COMPLETED, INTERRUPTED or
 * FAILED), the simulated time reached, events executed, an error text
 * (FAILED; may be NULL), end timestamp and wall time. Errors: ARG,
 * DB_NO_RUN, DB. */
int sim_results_run_end(sim_results *db, int64_t run_id, int status,
                        sim_time sim_reached, uint64_t events,
                        const char *error);

/*
 * Replication summaries of one sweep point: for every (metric, cohort,
 * statistic) over the point's *completed* runs - statistic "value" of
 * counters and gauges, "count", "mean", "p50", "p90", "p99" of histograms
 * - the mean, standard deviation, Student-t half-width at `level` (e.g.
 * 0.95) and n, into table summary (replacing that point's rows). With one
 * run, stddev and the interval are NULL. Errors: ARG, DB.
 */
int sim_results_summarize(sim_results *db, int64_t experiment_id,
                          int64_t sweep_point, double level);

/* Runs left "running" with no writer (abandoned): by this process but not
 * open on this handle, or of an experiment that no process claims
 * (sim_results_claim_experiment), whatever host the row names. Where the
 * file system has no locks, only rows of this host whose pid is gone.
 * Up to max ids into ids (may be NULL), their total in *n. */
int sim_results_stale_runs(sim_results *db, int64_t *ids, size_t max,
                           size_t *n);

/*
 * Claims experiment_id for this handle until it is closed (or the process
 * ends, however it ends): every process writing an experiment's runs
 * claims it first, so that two cannot (two `mtcsim run --resume` of one
 * database would both rerun every missing run). *busy = 1 when another
 * process (or handle) holds the claim; nothing is claimed then. The claim
 * is a lock on the database file (results_lock.c); on a file system
 * without locks it succeeds without claiming. Errors: ARG (a read-only
 * handle), IO.
 */
int sim_results_claim_experiment(sim_results *db, int64_t experiment_id,
                                 int *busy);

/*
 * What one run may add to the database, whatever the scenario asks: the
 * text of its parameters and attributes (names and values, counted as
 * they are added: sim_results_add_param, _add_params, _add_attr fail
 * with MTC_ERR_LIMIT past it), and the points of its time series (series
 * x cohort cells x grid points: sim_results_store_metrics fails with
 * MTC_ERR_LIMIT, storing nothing, past it). A typical run stores a few
 * kilobytes of text and 10^4-10^5 points; at about 30 bytes a point the
 * series cap is some 300 MB a run.
 */
#define SIM_RESULTS_MAX_TEXT_BYTES ((uint64_t)1 << 20)
#define SIM_RESULTS_MAX_SERIES_POINTS ((uint64_t)10000000)

/* Lowers this handle's caps above (0, or a value above one: the
 * default); for tests, and for a caller that wants a smaller file. */
void sim_results_set_caps(sim_results *db, uint64_t max_text_bytes,
                          uint64_t max_series_points);

/* ---- helpers ---- */

/* SHA-256 as 64 lowercase hex digits + NUL. */
void sim_sha256_hex(const void *data, size_t len, char hex[65]);
/* Of a file's bytes. Errors: MTC_ERR_IO, MTC_ERR_CRYPTO. */
int sim_sha256_file_hex(const char *path, char hex[65]);

#endif
