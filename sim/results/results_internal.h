/*
 * results_internal.h - the handle and the error and statement helpers
 * shared by results_open.c, results_runs.c, results_metrics.c and
 * results_summary.c (internal to sim/; the contract is sim/results.h).
 *
 * Workload: a handful of small writes per run (the run row, a few hundred
 * parameters) and one large one at its end (series and histogram bins,
 * up to millions of rows), while readers may have the file open. Hence
 * WAL with synchronous=NORMAL (a commit is atomic and the file always
 * consistent; after a power cut the last commits may be lost), prepared
 * statements reused across rows, and one transaction per logical unit.
 *
 * The helpers are static inline, so that no short name (fail, exec, prep)
 * becomes a symbol of libsim.
 */
#ifndef SIM_RESULTS_INTERNAL_H
#define SIM_RESULTS_INTERNAL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "mtc/error.h"
#include "sim/results.h"

#define ERRMSG_MAX 512

/* A run begun on this handle and not yet ended. */
typedef struct open_run {
    int64_t id;
    double t0;          /* CLOCK_MONOTONIC seconds at run_begin */
    uint64_t text_bytes;    /* of its parameters and attributes so far */
} open_run;

struct sim_results {
    sqlite3 *db;
    int readonly;
    int in_batch;       /* a BEGIN of batched param/attr writes is open */
    open_run *runs;
    size_t nruns, capruns;
    char errmsg[ERRMSG_MAX];
    int lock_fd;        /* the file, for the locks of results_lock.c
                         * (claims; a writer's presence; an immutable
                         * reader's); -1: not open. Closed after SQLite's
                         * connection: closing any descriptor of a file
                         * drops the process's POSIX locks on it, SQLite's
                         * included */
    uint64_t max_text, max_points;  /* per run (SIM_RESULTS_MAX_*) */
};

/* Whether experiment exp is claimed by another open file description
 * (results_lock.c): 1 claimed, 0 free (or claimed by this handle), -1
 * unknown (no locks on this file system, or the file cannot be opened). */
int results__claim_state(sim_results *r, int64_t exp);

/*
 * Immutable readers and writers of one file (results_lock.c). fd is a
 * descriptor of the database file; the locks belong to it and end when
 * it is closed.
 * results__reader_lock: 1 when the file may be read immutable (no writer
 * at work; no writer will change the main file until the descriptor is
 * closed or results__reader_unlock), 0 when a writer is at work (nothing
 * held), -1 when the file system has no locks.
 * results__writer_lock: marks a writer at work for the descriptor's life;
 * 0, or -1 on an unexpected lock error.
 * results__main_file_lock: before a writer changes the main file; 0 when
 * it may (unlock after), 1 when an immutable reader holds it (waited for
 * up to 30 s when wait is set).
 */
int results__reader_lock(int fd);
void results__reader_unlock(int fd);
int results__writer_lock(int fd);
int results__main_file_lock(int fd, int wait);
void results__main_file_unlock(int fd);

/* Formats the handle's error message; returns rc. */
static inline int fail(sim_results *r, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->errmsg, sizeof r->errmsg, fmt, ap);
    va_end(ap);
    return rc;
}

/* SIM_ERR_DB with "what: <SQLite's message>" as the handle's message. */
static inline int db_fail(sim_results *r, const char *what)
{
    return fail(r, SIM_ERR_DB, "%s: %s", what, sqlite3_errmsg(r->db));
}

/* Runs SQL without results (BEGIN, COMMIT, pragmas); MTC_OK or SIM_ERR_DB. */
static inline int exec(sim_results *r, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(r->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fail(r, SIM_ERR_DB, "%.60s: %s", sql, msg ? msg : "?");
        sqlite3_free(msg);
        return SIM_ERR_DB;
    }
    return MTC_OK;
}

/* Prepares one statement into *st (the caller finalizes it). */
static inline int prep(sim_results *r, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(r->db, sql, -1, st, NULL) != SQLITE_OK)
        return db_fail(r, "prepare");
    return MTC_OK;
}

/* Steps a statement that returns no rows and resets it for reuse. */
static inline int step_done(sim_results *r, sqlite3_stmt *st,
                            const char *what)
{
    int s = sqlite3_step(st);
    int rc = s == SQLITE_DONE ? MTC_OK : db_fail(r, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

/* Ends the transaction a store opened: COMMIT when rc is MTC_OK, else
 * (or when COMMIT fails) ROLLBACK, keeping the message of the first
 * failure. Returns the first failure, or MTC_OK. */
static inline int end_transaction(sim_results *r, int rc)
{
    if (rc == MTC_OK)
        rc = exec(r, "COMMIT");
    if (rc) {
        char keep[ERRMSG_MAX];
        memcpy(keep, r->errmsg, sizeof keep);
        exec(r, "ROLLBACK");
        memcpy(r->errmsg, keep, sizeof keep);
    }
    return rc;
}

/* Binds a string (copied), or NULL for a NULL pointer. */
static inline void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* NaN and infinities have no SQL value: stored as NULL. */
static inline void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isfinite(v))
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

/* MTC_ERR_ARG if the handle was opened read-only. */
static inline int writable(sim_results *r)
{
    if (r->readonly)
        return fail(r, MTC_ERR_ARG, "the database was opened read-only");
    return MTC_OK;
}

/* The run begun on this handle with this id and not ended, or NULL. */
static inline open_run *find_run(sim_results *r, int64_t id)
{
    for (size_t i = 0; i < r->nruns; i++)
        if (r->runs[i].id == id)
            return &r->runs[i];
    return NULL;
}

/* MTC_OK if writable and the run is open here, else SIM_ERR_DB_NO_RUN. */
static inline int need_run(sim_results *r, int64_t id)
{
    int rc = writable(r);
    if (rc)
        return rc;
    if (!find_run(r, id))
        return fail(r, SIM_ERR_DB_NO_RUN,
                    "run %lld was not begun on this handle or has ended",
                    (long long)id);
    return MTC_OK;
}

/* ---- the read API's helpers (results_read.c, results_values.c) ---- */

/* Text column c copied into buf[0..n) (cut to fit); "" for NULL. */
static inline void rd_text(sqlite3_stmt *st, int c, char *buf, size_t n)
{
    const char *t = (const char *)sqlite3_column_text(st, c);
    snprintf(buf, n, "%s", t ? t : "");
}

/* Real column c, NAN for NULL. */
static inline double rd_real(sqlite3_stmt *st, int c)
{
    return sqlite3_column_type(st, c) == SQLITE_NULL ? NAN
                                                     : sqlite3_column_double(st, c);
}

/* Room for element n of *a (elements of size sz, capacity *cap): 0, or
 * -1 when out of memory (*a unchanged). */
static inline int rd_grow(void **a, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 16;
    void *p = realloc(*a, nc * sz);
    if (!p)
        return -1;
    *a = p;
    *cap = nc;
    return 0;
}

/* The body of a function returning every row of `sql` as an array: binds
 * with the statement expression `bind` (the statement is `st`), fills
 * each zeroed element with fill(st, element). */
#define RD_LIST(db, rowsp, np, sql, bind, fill)                              \
    do {                                                                     \
        if (!(db) || !(rowsp) || !(np))                                      \
            return MTC_ERR_ARG;                                              \
        *(rowsp) = NULL;                                                     \
        *(np) = 0;                                                           \
        sqlite3_stmt *st;                                                    \
        size_t cap_ = 0;                                                     \
        int s_, rc_ = prep((db), (sql), &st);                                \
        if (rc_)                                                             \
            return rc_;                                                      \
        bind;                                                                \
        while ((s_ = sqlite3_step(st)) == SQLITE_ROW) {                      \
            if (rd_grow((void **)(rowsp), &cap_, *(np), sizeof **(rowsp))) { \
                rc_ = fail((db), MTC_ERR_NOMEM, "out of memory");            \
                break;                                                       \
            }                                                                \
            memset(*(rowsp) + *(np), 0, sizeof **(rowsp));                   \
            fill(st, *(rowsp) + *(np));                                      \
            (*(np))++;                                                       \
        }                                                                    \
        if (!rc_ && s_ != SQLITE_DONE)                                       \
            rc_ = db_fail((db), "read");                                     \
        sqlite3_finalize(st);                                                \
        if (rc_) {                                                           \
            free(*(rowsp));                                                  \
            *(rowsp) = NULL;                                                 \
            *(np) = 0;                                                       \
        }                                                                    \
        return rc_;                                                          \
    } while (0)

/* The body of a function reading at most one row of `sql`: binds with the
 * statement expression `bind` (the statement is `st`) and, when there is a
 * row, runs the statement expression `fill`; no row is not an error (the
 * caller's defaults stand). A step error names `what`. */
#define RD_ROW(db, sql, bind, fill, what)                                    \
    do {                                                                     \
        sqlite3_stmt *st;                                                    \
        int rc_ = prep((db), (sql), &st);                                    \
        if (rc_)                                                             \
            return rc_;                                                      \
        bind;                                                                \
        int s_ = sqlite3_step(st);                                           \
        if (s_ == SQLITE_ROW)                                                \
            fill;                                                            \
        else if (s_ != SQLITE_DONE)                                          \
            rc_ = db_fail((db), (what));                                     \
        sqlite3_finalize(st);                                                \
        return rc_;                                                          \
    } while (0)

#endif
