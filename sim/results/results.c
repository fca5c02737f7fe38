/*
 * results.c - the results database writer (sim/results.h).
 *
 * Workload: a handful of small writes per run (the run row, a few hundred
 * parameters) and one large one at its end (series and histogram bins,
 * up to millions of rows), while readers may have the file open. Hence
 * WAL with synchronous=NORMAL (a commit is atomic and the file always
 * consistent; after a power cut the last commits may be lost), prepared
 * statements reused across rows, and one transaction per logical unit.
 *
 * An existing file is inspected through a read-only connection before any
 * read-write connection is made, so a foreign, corrupt or other-version
 * file is never touched.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <sqlite3.h>

#include "mtc/error.h"
#include "sim/results.h"
#include "results_schema.h"

#define ERRMSG_MAX 512

/* A run begun on this handle and not yet ended. */
typedef struct open_run {
    int64_t id;
    double t0;          /* CLOCK_MONOTONIC seconds at run_begin */
} open_run;

struct sim_results {
    sqlite3 *db;
    int readonly;
    int in_batch;       /* a BEGIN of batched param/attr writes is open */
    open_run *runs;
    size_t nruns, capruns;
    char errmsg[ERRMSG_MAX];
};

static const char *const status_names[] = {"running", "completed",
                                           "interrupted", "failed"};

const char *sim_run_status_name(int status)
{
    if (status < 0 || status > SIM_RUN_FAILED)
        return "?";
    return status_names[status];
}

static void put_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int fail(sim_results *r, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->errmsg, sizeof r->errmsg, fmt, ap);
    va_end(ap);
    return rc;
}

static int db_fail(sim_results *r, const char *what)
{
    return fail(r, MTC_ERR_DB, "%s: %s", what, sqlite3_errmsg(r->db));
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ISO 8601 UTC with milliseconds: 2025-01-31T12:34:56.789Z */
static void utc_stamp(char buf[32])
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, 32 - n, ".%03ldZ", ts.tv_nsec / 1000000L);
}

/* ---- SHA-256 ---- */

void sim_sha256_hex(const void *data, size_t len, char hex[65])
{
    unsigned char md[32];
    unsigned int mdlen = 0;
    static const char digits[] = "0123456789abcdef";
    if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL))
        mdlen = 0;
    for (unsigned i = 0; i < 32; i++) {
        hex[2 * i] = i < mdlen ? digits[md[i] >> 4] : '0';
        hex[2 * i + 1] = i < mdlen ? digits[md[i] & 15] : '0';
    }
    hex[64] = '\0';
}

int sim_sha256_file_hex(const char *path, char hex[65])
{
    int rc = MTC_ERR_IO;
    FILE *f = fopen(path, "rb");
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char buf[65536], md[32];
    unsigned int mdlen = 0;
    static const char digits[] = "0123456789abcdef";
    if (!f || !ctx)
        goto done;
    if (!EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
        rc = MTC_ERR_CRYPTO;
        goto done;
    }
    for (;;) {
        size_t n = fread(buf, 1, sizeof buf, f);
        if (n > 0 && !EVP_DigestUpdate(ctx, buf, n)) {
            rc = MTC_ERR_CRYPTO;
            goto done;
        }
        if (n < sizeof buf)
            break;
    }
    if (ferror(f))
        goto done;
    if (!EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != 32) {
        rc = MTC_ERR_CRYPTO;
        goto done;
    }
    for (unsigned i = 0; i < 32; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[64] = '\0';
    rc = MTC_OK;
done:
    EVP_MD_CTX_free(ctx);
    if (f)
        fclose(f);
    return rc;
}

/* ---- opening ---- */

static int exec(sim_results *r, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(r->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fail(r, MTC_ERR_DB, "%.60s: %s", sql, msg ? msg : "?");
        sqlite3_free(msg);
        return MTC_ERR_DB;
    }
    return MTC_OK;
}

/* One integer from a query (a pragma), or an SQLite result code < 0. */
static int query_int(sqlite3 *db, const char *sql, int64_t *v, int *sqlrc)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *v = sqlite3_column_int64(st, 0);
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            *v = 0;
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    *sqlrc = rc;
    return rc == SQLITE_OK ? 0 : -1;
}

/*
 * What an existing file is, through a read-only connection. Returns MTC_OK
 * for a version-1 mtcsim database, 1 for an empty SQLite database (no
 * schema, ids 0: a fresh or zero-length file), or an error code.
 */
static int inspect(const char *path, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    int sqlrc, rc;
    int64_t app = 0, ver = 0, nobj = 0;
    sqlrc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    if (sqlrc != SQLITE_OK) {
        put_err(err, errlen, "%s: cannot open: %s", path,
                db ? sqlite3_errmsg(db) : sqlite3_errstr(sqlrc));
        rc = MTC_ERR_DB;
        goto done;
    }
    if (query_int(db, "PRAGMA application_id", &app, &sqlrc) ||
        query_int(db, "PRAGMA user_version", &ver, &sqlrc) ||
        query_int(db, "SELECT count(*) FROM sqlite_master", &nobj, &sqlrc)) {
        int prim = sqlrc & 0xff;
        if (prim == SQLITE_NOTADB || prim == SQLITE_CORRUPT) {
            put_err(err, errlen,
                    "%s: not an mtcsim results database: the file is not an "
                    "SQLite database or is corrupt (%s)",
                    path, sqlite3_errstr(sqlrc));
            rc = MTC_ERR_DB_NOT_SQLITE;
        } else {
            put_err(err, errlen, "%s: cannot read: %s", path,
                    sqlite3_errmsg(db));
            rc = MTC_ERR_DB;
        }
        goto done;
    }
    if (app == 0 && ver == 0 && nobj == 0) {
        rc = 1;
        goto done;
    }
    if (app != SIM_RESULTS_APPLICATION_ID) {
        put_err(err, errlen,
                "%s: not an mtcsim results database: an SQLite database of "
                "another application (application_id 0x%08llx, expected "
                "0x%08x)",
                path, (unsigned long long)(uint32_t)app,
                (unsigned)SIM_RESULTS_APPLICATION_ID);
        rc = MTC_ERR_DB_FOREIGN;
        goto done;
    }
    if (ver != SIM_RESULTS_SCHEMA_VERSION) {
        put_err(err, errlen,
                "%s: mtcsim results database of schema version %lld; this "
                "program reads and writes version %d",
                path, (long long)ver, SIM_RESULTS_SCHEMA_VERSION);
        rc = MTC_ERR_DB_VERSION;
        goto done;
    }
    static const char *const tables[] = {RESULTS_TABLES};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        char sql[128];
        int64_t n = 0;
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                 "AND name = '%s'",
                 tables[i]);
        if (query_int(db, sql, &n, &sqlrc) || n != 1) {
            put_err(err, errlen,
                    "%s: damaged mtcsim results database: table '%s' is "
                    "missing",
                    path, tables[i]);
            rc = MTC_ERR_DB_FOREIGN;
            goto done;
        }
    }
    rc = MTC_OK;
done:
    sqlite3_close(db);
    return rc;
}

static int create_schema(sim_results *r)
{
    char sql[256];
    int rc = exec(r, "BEGIN IMMEDIATE");
    if (rc)
        return rc;
    /* Re-check under the write lock: another process may have won. */
    int64_t nobj = 0;
    int sqlrc;
    if (query_int(r->db, "SELECT count(*) FROM sqlite_master", &nobj,
                  &sqlrc) || nobj != 0) {
        exec(r, "ROLLBACK");
        return fail(r, MTC_ERR_DB_FOREIGN,
                    "the database gained a schema while being created");
    }
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; "
             "PRAGMA user_version = %d;",
             (int)SIM_RESULTS_APPLICATION_ID, SIM_RESULTS_SCHEMA_VERSION);
    if ((rc = exec(r, RESULTS_SCHEMA_SQL)) || (rc = exec(r, sql))) {
        exec(r, "ROLLBACK");
        return rc;
    }
    return exec(r, "COMMIT");
}

int sim_results_open(const char *path, int mode, sim_results **out, char *err,
                     size_t errlen)
{
    sim_results *r = NULL;
    int rc;
    struct stat sb;
    if (out)
        *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    if (!path || !*path || !out || mode < SIM_RESULTS_READ ||
        mode > SIM_RESULTS_CREATE) {
        put_err(err, errlen, "bad arguments to sim_results_open");
        return MTC_ERR_ARG;
    }
    int exists = stat(path, &sb) == 0;
    int fresh = 0;
    if (!exists) {
        if (errno != ENOENT || mode != SIM_RESULTS_CREATE) {
            put_err(err, errlen, "%s: %s", path, strerror(errno));
            return errno == ENOENT ? MTC_ERR_DB_NOT_FOUND : MTC_ERR_IO;
        }
        fresh = 1;
    } else {
        if (!S_ISREG(sb.st_mode)) {
            put_err(err, errlen, "%s: not a regular file", path);
            return MTC_ERR_DB_NOT_SQLITE;
        }
        rc = inspect(path, err, errlen);
        if (rc < 0)
            return rc;
        if (rc == 1) {
            if (mode != SIM_RESULTS_CREATE) {
                put_err(err, errlen,
                        "%s: not an mtcsim results database: an empty "
                        "SQLite database",
                        path);
                return MTC_ERR_DB_FOREIGN;
            }
            fresh = 1;
        }
    }
    r = calloc(1, sizeof *r);
    if (!r) {
        put_err(err, errlen, "out of memory");
        return MTC_ERR_NOMEM;
    }
    r->readonly = mode == SIM_RESULTS_READ;
    int flags = r->readonly ? SQLITE_OPEN_READONLY
                            : SQLITE_OPEN_READWRITE |
                                  (fresh ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &r->db, flags | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        put_err(err, errlen, "%s: cannot open: %s", path,
                r->db ? sqlite3_errmsg(r->db) : "out of memory");
        rc = MTC_ERR_DB;
        goto fail;
    }
    sqlite3_extended_result_codes(r->db, 1);
    /* Writers may hold the lock for a run's bulk store: wait, don't fail. */
    sqlite3_busy_timeout(r->db, 30000);
    if ((rc = exec(r, "PRAGMA foreign_keys = ON")))
        goto fail_msg;
    if (!r->readonly) {
        if ((rc = exec(r, "PRAGMA journal_mode = WAL")) ||
            (rc = exec(r, "PRAGMA synchronous = NORMAL")))
            goto fail_msg;
        if (fresh && (rc = create_schema(r)))
            goto fail_msg;
    }
    *out = r;
    return MTC_OK;
fail_msg:
    put_err(err, errlen, "%s: %s", path, r->errmsg);
fail:
    sqlite3_close(r->db);
    free(r);
    return rc;
}

const char *sim_results_errmsg(const sim_results *db)
{
    return db ? db->errmsg : "no results database";
}

struct sqlite3 *sim_results_sqlite(sim_results *db)
{
    return db ? db->db : NULL;
}

int sim_results_flush(sim_results *db)
{
    if (!db)
        return MTC_ERR_ARG;
    if (!db->in_batch)
        return MTC_OK;
    db->in_batch = 0;
    int rc = exec(db, "COMMIT");
    if (rc)
        exec(db, "ROLLBACK");
    return rc;
}

int sim_results_close(sim_results *db)
{
    if (!db)
        return MTC_OK;
    int rc = sim_results_flush(db);
    sqlite3_close_v2(db->db);
    free(db->runs);
    free(db);
    return rc;
}

/* ---- statements ---- */

static int prep(sim_results *r, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(r->db, sql, -1, st, NULL) != SQLITE_OK)
        return db_fail(r, "prepare");
    return MTC_OK;
}

/* Steps a statement that returns no rows and resets it for reuse. */
static int step_done(sim_results *r, sqlite3_stmt *st, const char *what)
{
    int s = sqlite3_step(st);
    int rc = s == SQLITE_DONE ? MTC_OK : db_fail(r, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* NaN and infinities have no SQL value: stored as NULL. */
static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isfinite(v))
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

static int writable(sim_results *r)
{
    if (r->readonly)
        return fail(r, MTC_ERR_ARG, "the database was opened read-only");
    return MTC_OK;
}

static open_run *find_run(sim_results *r, int64_t id)
{
    for (size_t i = 0; i < r->nruns; i++)
        if (r->runs[i].id == id)
            return &r->runs[i];
    return NULL;
}

static int need_run(sim_results *r, int64_t id)
{
    int rc = writable(r);
    if (rc)
        return rc;
    if (!find_run(r, id))
        return fail(r, MTC_ERR_DB_NO_RUN,
                    "run %lld was not begun on this handle or has ended",
                    (long long)id);
    return MTC_OK;
}

static int batch_begin(sim_results *r)
{
    if (r->in_batch)
        return MTC_OK;
    int rc = exec(r, "BEGIN IMMEDIATE");
    if (rc == MTC_OK)
        r->in_batch = 1;
    return rc;
}

/* ---- experiments and runs ---- */

int sim_results_experiment_begin(sim_results *db,
                                 const sim_experiment_info *info,
                                 int64_t *experiment_id)
{
    sqlite3_stmt *st = NULL;
    char stamp[32];
    int rc;
    if (!db || !info || !info->name || !experiment_id ||
        info->sweep_points < 1 || info->replications < 1)
        return db ? fail(db, MTC_ERR_ARG, "bad experiment info") : MTC_ERR_ARG;
    if ((rc = writable(db)) || (rc = sim_results_flush(db)))
        return rc;
    if ((rc = prep(db, "INSERT INTO experiment (name, command_line, "
                       "created_at, sweep_points, replications) VALUES "
                       "(?, ?, ?, ?, ?)", &st)))
        return rc;
    utc_stamp(stamp);
    bind_text(st, 1, info->name);
    bind_text(st, 2, info->command_line);
    bind_text(st, 3, stamp);
    sqlite3_bind_int64(st, 4, info->sweep_points);
    sqlite3_bind_int64(st, 5, info->replications);
    rc = step_done(db, st, "insert experiment");
    if (rc == MTC_OK)
        *experiment_id = sqlite3_last_insert_rowid(db->db);
    sqlite3_finalize(st);
    return rc;
}

int sim_results_run_begin(sim_results *db, const sim_run_info *info,
                          int64_t *run_id)
{
    sqlite3_stmt *st = NULL;
    char stamp[32], hex[65], host[256];
    const char *sha = NULL;
    int rc;
    if (!db || !info || !run_id || !info->program_version ||
        info->sweep_point < 0 || info->replication < 0)
        return db ? fail(db, MTC_ERR_ARG, "bad run info") : MTC_ERR_ARG;
    if ((rc = writable(db)) || (rc = sim_results_flush(db)))
        return rc;
    if (info->scenario_sha256) {
        sha = info->scenario_sha256;
        if (strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64)
            return fail(db, MTC_ERR_ARG,
                        "scenario_sha256 is not 64 lowercase hex digits");
    } else if (info->scenario_path) {
        if ((rc = sim_sha256_file_hex(info->scenario_path, hex)))
            return fail(db, rc, "%s: cannot hash the scenario: %s",
                        info->scenario_path, strerror(errno));
        sha = hex;
    }
    if (db->nruns == db->capruns) {
        size_t cap = db->capruns ? 2 * db->capruns : 4;
        open_run *p = realloc(db->runs, cap * sizeof *p);
        if (!p)
            return fail(db, MTC_ERR_NOMEM, "out of memory");
        db->runs = p;
        db->capruns = cap;
    }
    if (gethostname(host, sizeof host) != 0)
        host[0] = '\0';
    host[sizeof host - 1] = '\0';
    if ((rc = prep(db, "INSERT INTO run (experiment_id, sweep_point, "
                       "replication, seed, scenario_path, scenario_sha256, "
                       "program_version, time_unit, sim_start, sim_stop, "
                       "started_at, status, hostname, pid) VALUES "
                       "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?)",
                   &st)))
        return rc;
    utc_stamp(stamp);
    sqlite3_bind_int64(st, 1, info->experiment_id);
    sqlite3_bind_int64(st, 2, info->sweep_point);
    sqlite3_bind_int64(st, 3, info->replication);
    sqlite3_bind_int64(st, 4, (int64_t)info->seed);
    bind_text(st, 5, info->scenario_path);
    bind_text(st, 6, sha);
    bind_text(st, 7, info->program_version);
    bind_text(st, 8, SIM_TIME_UNIT);
    sqlite3_bind_int64(st, 9, info->sim_start);
    if (info->sim_stop != SIM_TIME_MAX)
        sqlite3_bind_int64(st, 10, info->sim_stop);
    bind_text(st, 11, stamp);
    bind_text(st, 12, host);
    sqlite3_bind_int64(st, 13, (int64_t)getpid());
    rc = step_done(db, st, "insert run (is experiment_id valid?)");
    sqlite3_finalize(st);
    if (rc)
        return rc;
    *run_id = sqlite3_last_insert_rowid(db->db);
    db->runs[db->nruns].id = *run_id;
    db->runs[db->nruns].t0 = mono_now();
    db->nruns++;
    return MTC_OK;
}

int sim_results_add_param(sim_results *db, int64_t run_id,
                          const char *entity_kind, const char *entity_name,
                          const char *name, const char *value)
{
    sqlite3_stmt *st = NULL;
    int rc;
    if (!db)
        return MTC_ERR_ARG;
    if (!entity_kind || !entity_name || !name || !*name || !value)
        return fail(db, MTC_ERR_ARG, "parameter with a NULL field");
    if ((rc = need_run(db, run_id)) || (rc = batch_begin(db)))
        return rc;
    if ((rc = prep(db, "INSERT OR REPLACE INTO param (run_id, entity_kind, "
                       "entity_name, name, value) VALUES (?, ?, ?, ?, ?)",
                   &st)))
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, entity_kind);
    bind_text(st, 3, entity_name);
    bind_text(st, 4, name);
    bind_text(st, 5, value);
    rc = step_done(db, st, "insert param");
    sqlite3_finalize(st);
    return rc;
}

int sim_results_add_params(sim_results *db, int64_t run_id,
                           const sim_param_schema *schema,
                           const char *entity_name, const void *cfg)
{
    char small[256];
    int rc = MTC_OK;
    if (!db)
        return MTC_ERR_ARG;
    if (!schema || !entity_name || !cfg)
        return fail(db, MTC_ERR_ARG, "add_params: NULL argument");
    for (size_t i = 0; i < schema->count && rc == MTC_OK; i++) {
        const sim_param_desc *d = &schema->params[i];
        int n = sim_param_format(d, cfg, small, sizeof small);
        if (n < 0)
            return fail(db, MTC_ERR_ARG, "%s: cannot format parameter",
                        d->name);
        if ((size_t)n < sizeof small) {
            rc = sim_results_add_param(db, run_id, schema->kind, entity_name,
                                       d->name, small);
        } else {
            char *big = malloc((size_t)n + 1);
            if (!big)
                return fail(db, MTC_ERR_NOMEM, "out of memory");
            sim_param_format(d, cfg, big, (size_t)n + 1);
            rc = sim_results_add_param(db, run_id, schema->kind, entity_name,
                                       d->name, big);
            free(big);
        }
    }
    return rc;
}

int sim_results_mark_swept(sim_results *db, int64_t run_id,
                           const char *entity_kind, const char *entity_name,
                           const char *name)
{
    sqlite3_stmt *st = NULL;
    int rc;
    if (!db)
        return MTC_ERR_ARG;
    if (!entity_kind || !entity_name || !name)
        return fail(db, MTC_ERR_ARG, "mark_swept: NULL argument");
    if ((rc = need_run(db, run_id)) || (rc = batch_begin(db)))
        return rc;
    if ((rc = prep(db, "UPDATE param SET swept = 1 WHERE run_id = ? AND "
                       "entity_kind = ? AND entity_name = ? AND name = ?",
                   &st)))
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, entity_kind);
    bind_text(st, 3, entity_name);
    bind_text(st, 4, name);
    rc = step_done(db, st, "mark swept");
    sqlite3_finalize(st);
    if (rc == MTC_OK && sqlite3_changes(db->db) != 1)
        rc = fail(db, MTC_ERR_CONFIG,
                  "swept parameter %s.%s.%s was not stored for run %lld",
                  entity_kind, entity_name, name, (long long)run_id);
    return rc;
}

int sim_results_add_attr(sim_results *db, int64_t run_id, const char *name,
                         const char *value)
{
    sqlite3_stmt *st = NULL;
    int rc;
    if (!db)
        return MTC_ERR_ARG;
    if (!name || !*name)
        return fail(db, MTC_ERR_ARG, "attribute without a name");
    if ((rc = need_run(db, run_id)) || (rc = batch_begin(db)))
        return rc;
    if ((rc = prep(db, "INSERT OR REPLACE INTO run_attr (run_id, name, "
                       "value) VALUES (?, ?, ?)", &st)))
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, name);
    bind_text(st, 3, value);
    rc = step_done(db, st, "insert run_attr");
    sqlite3_finalize(st);
    return rc;
}

/* ---- metrics ---- */

typedef struct store_ctx {
    sim_results *r;
    sqlite3_stmt *metric, *scalar, *vector, *vdata, *hist, *bin;
} store_ctx;

/* Cells to store for a metric: each cohort, plus the total ("all", index
 * -1) when there is a breakdown; with one cell that cell is the total. */
static size_t ncells(const sim_metric *mt)
{
    size_t c = sim_metric_cohorts(mt);
    return c > 1 ? c + 1 : 1;
}

static void cell_of(const sim_metric *mt, size_t i, size_t *cohort,
                    int64_t *index, const char **label)
{
    size_t c = sim_metric_cohorts(mt);
    if (c == 1 || i == c) {
        *cohort = SIM_ALL_COHORTS;
        *index = -1;
        *label = "all";
    } else {
        *cohort = i;
        *index = (int64_t)i;
        *label = sim_metric_cohort_label(mt, i);
    }
}

static int store_series(store_ctx *s, const sim_metrics *m,
                        const sim_metric *mt, int64_t metric_id)
{
    sim_results *r = s->r;
    size_t len = sim_metric_series_len(mt);
    int rc;
    for (size_t i = 0; i < ncells(mt); i++) {
        size_t cohort;
        int64_t index;
        const char *label;
        cell_of(mt, i, &cohort, &index, &label);
        sqlite3_bind_int64(s->vector, 1, metric_id);
        sqlite3_bind_int64(s->vector, 2, index);
        bind_text(s->vector, 3, label);
        sqlite3_bind_int64(s->vector, 4, (int64_t)len);
        sqlite3_bind_int(s->vector, 5, sim_metric_series_truncated(mt));
        if ((rc = step_done(r, s->vector, "insert vector")))
            return rc;
        int64_t vid = sqlite3_last_insert_rowid(r->db);
        for (size_t k = 0; k < len; k++) {
            sqlite3_bind_int64(s->vdata, 1, vid);
            sqlite3_bind_int64(s->vdata, 2, (int64_t)k);
            sqlite3_bind_int64(s->vdata, 3, sim_metrics_grid_time(m, k));
            bind_real(s->vdata, 4, sim_metric_series_value(mt, cohort, k));
            if ((rc = step_done(r, s->vdata, "insert vector_data")))
                return rc;
        }
    }
    return MTC_OK;
}

static int store_hist(store_ctx *s, const sim_metric *mt, int64_t metric_id)
{
    sim_results *r = s->r;
    size_t nb = sim_hist_nbins(mt);
    int rc;
    for (size_t i = 0; i < ncells(mt); i++) {
        size_t cohort;
        int64_t index;
        const char *label;
        cell_of(mt, i, &cohort, &index, &label);
        sqlite3_stmt *h = s->hist;
        sqlite3_bind_int64(h, 1, metric_id);
        sqlite3_bind_int64(h, 2, index);
        bind_text(h, 3, label);
        sqlite3_bind_int64(h, 4, (int64_t)sim_hist_count(mt, cohort));
        bind_real(h, 5, sim_hist_sum(mt, cohort));
        bind_real(h, 6, sim_hist_mean(mt, cohort));
        bind_real(h, 7, sim_hist_min(mt, cohort));
        bind_real(h, 8, sim_hist_max(mt, cohort));
        bind_real(h, 9, sim_hist_quantile(mt, cohort, 0.50));
        bind_real(h, 10, sim_hist_quantile(mt, cohort, 0.90));
        bind_real(h, 11, sim_hist_quantile(mt, cohort, 0.99));
        if ((rc = step_done(r, h, "insert histogram")))
            return rc;
        int64_t hid = sqlite3_last_insert_rowid(r->db);
        /* Only non-empty bins: a histogram may have 100,000 bins per
         * cohort, mostly empty; the edges stored make each row
         * self-contained. Underflow has no lower edge, overflow no upper. */
        for (size_t b = 0; b < nb + 2; b++) {
            uint64_t c = sim_hist_bin(mt, cohort, b);
            if (c == 0)
                continue;
            sqlite3_bind_int64(s->bin, 1, hid);
            sqlite3_bind_int64(s->bin, 2, (int64_t)b);
            if (b > 0)
                sqlite3_bind_double(s->bin, 3, sim_hist_edge(mt, b - 1));
            if (b <= nb)
                sqlite3_bind_double(s->bin, 4, sim_hist_edge(mt, b));
            sqlite3_bind_int64(s->bin, 5, (int64_t)c);
            if ((rc = step_done(r, s->bin, "insert histogram_bin")))
                return rc;
        }
    }
    return MTC_OK;
}

static int store_one(store_ctx *s, const sim_metrics *m, const sim_metric *mt,
                     int64_t run_id)
{
    sim_results *r = s->r;
    int kind = sim_metric_kind(mt);
    unsigned flags = sim_metric_flags(mt);
    int rc;
    sqlite3_stmt *st = s->metric;
    sqlite3_bind_int64(st, 1, run_id);
    bind_text(st, 2, sim_metric_name(mt));
    bind_text(st, 3, sim_metric_kind_name(kind));
    bind_text(st, 4, sim_metric_unit(mt));
    sqlite3_bind_int64(st, 5, (int64_t)sim_metric_cohorts(mt));
    sqlite3_bind_int(st, 6, (flags & SIM_METRIC_SERIES) != 0);
    sqlite3_bind_int(st, 7, (flags & SIM_METRIC_REPLICATED) != 0);
    if (kind == SIM_METRIC_HISTOGRAM) {
        size_t nb = sim_hist_nbins(mt);
        sqlite3_bind_int64(st, 8, (int64_t)nb);
        sqlite3_bind_double(st, 9, sim_hist_edge(mt, 0));
        sqlite3_bind_double(st, 10, sim_hist_edge(mt, nb));
    }
    if ((rc = step_done(r, st, "insert metric")))
        return rc;
    int64_t metric_id = sqlite3_last_insert_rowid(r->db);
    if (kind == SIM_METRIC_HISTOGRAM)
        return store_hist(s, mt, metric_id);
    for (size_t i = 0; i < ncells(mt); i++) {
        size_t cohort;
        int64_t index;
        const char *label;
        cell_of(mt, i, &cohort, &index, &label);
        sqlite3_bind_int64(s->scalar, 1, metric_id);
        sqlite3_bind_int64(s->scalar, 2, index);
        bind_text(s->scalar, 3, label);
        if (kind == SIM_METRIC_COUNTER)
            sqlite3_bind_int64(s->scalar, 4, sim_counter_value(mt, cohort));
        else
            bind_real(s->scalar, 4, sim_gauge_value(mt, cohort));
        if ((rc = step_done(r, s->scalar, "insert scalar")))
            return rc;
    }
    if (flags & SIM_METRIC_SERIES)
        return store_series(s, m, mt, metric_id);
    return MTC_OK;
}

int sim_results_store_metrics(sim_results *db, int64_t run_id,
                              const sim_metrics *m)
{
    store_ctx s = {db, NULL, NULL, NULL, NULL, NULL, NULL};
    sqlite3_stmt *del = NULL, *upd = NULL;
    int rc;
    if (!db)
        return MTC_ERR_ARG;
    if (!m)
        return fail(db, MTC_ERR_ARG, "store_metrics: no registry");
    if ((rc = need_run(db, run_id)) || (rc = sim_results_flush(db)))
        return rc;
    if ((rc = exec(db, "BEGIN IMMEDIATE")))
        return rc;
    if ((rc = prep(db, "DELETE FROM metric WHERE run_id = ?", &del)) ||
        (rc = prep(db, "UPDATE run SET warmup_end = ?, grid_start = ?, "
                       "grid_step = ? WHERE run_id = ?", &upd)) ||
        (rc = prep(db, "INSERT INTO metric (run_id, name, kind, unit, "
                       "cohorts, series, replicated, hist_bins, hist_lo, "
                       "hist_hi) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   &s.metric)) ||
        (rc = prep(db, "INSERT INTO scalar (metric_id, cohort_index, "
                       "cohort, value) VALUES (?, ?, ?, ?)", &s.scalar)) ||
        (rc = prep(db, "INSERT INTO vector (metric_id, cohort_index, "
                       "cohort, points, truncated) VALUES (?, ?, ?, ?, ?)",
                   &s.vector)) ||
        (rc = prep(db, "INSERT INTO vector_data (vector_id, k, t, value) "
                       "VALUES (?, ?, ?, ?)", &s.vdata)) ||
        (rc = prep(db, "INSERT INTO histogram (metric_id, cohort_index, "
                       "cohort, count, sum, mean, min, max, p50, p90, p99) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &s.hist)) ||
        (rc = prep(db, "INSERT INTO histogram_bin (histogram_id, bin, lo, "
                       "hi, count) VALUES (?, ?, ?, ?, ?)", &s.bin)))
        goto done;
    sqlite3_bind_int64(del, 1, run_id);
    if ((rc = step_done(db, del, "delete previous metrics")))
        goto done;
    const sim_metrics_config *cfg = sim_metrics_get_config(m);
    sqlite3_bind_int64(upd, 1, cfg->warmup_end);
    sqlite3_bind_int64(upd, 2, cfg->grid_start);
    sqlite3_bind_int64(upd, 3, cfg->grid_step);
    sqlite3_bind_int64(upd, 4, run_id);
    if ((rc = step_done(db, upd, "update run grid")))
        goto done;
    for (size_t i = 0; i < sim_metrics_count(m) && rc == MTC_OK; i++)
        rc = store_one(&s, m, sim_metrics_at(m, i), run_id);
done:
    sqlite3_finalize(del);
    sqlite3_finalize(upd);
    sqlite3_finalize(s.metric);
    sqlite3_finalize(s.scalar);
    sqlite3_finalize(s.vector);
    sqlite3_finalize(s.vdata);
    sqlite3_finalize(s.hist);
    sqlite3_finalize(s.bin);
    if (rc == MTC_OK)
        rc = exec(db, "COMMIT");
    if (rc) {
        /* Keep the message of the first failure. */
        char keep[ERRMSG_MAX];
        memcpy(keep, db->errmsg, sizeof keep);
        exec(db, "ROLLBACK");
        memcpy(db->errmsg, keep, sizeof keep);
    }
    return rc;
}

int sim_results_run_end(sim_results *db, int64_t run_id, int status,
                        sim_time sim_reached, uint64_t events,
                        const char *error)
{
    sqlite3_stmt *st = NULL;
    char stamp[32];
    int rc;
    if (!db)
        return MTC_ERR_ARG;
    if (status != SIM_RUN_COMPLETED && status != SIM_RUN_INTERRUPTED &&
        status != SIM_RUN_FAILED)
        return fail(db, MTC_ERR_ARG, "run_end: status %d is not an end",
                    status);
    if ((rc = need_run(db, run_id)) || (rc = sim_results_flush(db)))
        return rc;
    open_run *o = find_run(db, run_id);
    double wall = mono_now() - o->t0;
    if ((rc = prep(db, "UPDATE run SET status = ?, sim_reached = ?, "
                       "events = ?, error = ?, ended_at = ?, wall_time_s = ? "
                       "WHERE run_id = ?", &st)))
        return rc;
    utc_stamp(stamp);
    bind_text(st, 1, sim_run_status_name(status));
    sqlite3_bind_int64(st, 2, sim_reached);
    sqlite3_bind_int64(st, 3, (int64_t)events);
    bind_text(st, 4, error);
    bind_text(st, 5, stamp);
    sqlite3_bind_double(st, 6, wall);
    sqlite3_bind_int64(st, 7, run_id);
    rc = step_done(db, st, "update run");
    sqlite3_finalize(st);
    if (rc)
        return rc;
    *o = db->runs[--db->nruns];
    return MTC_OK;
}

/* ---- summaries ---- */

/* Per completed run of the point: (metric, cohort, statistic, unit, value),
 * sorted so that the values of one summary row are consecutive. */
#define SUMMARY_SOURCE_SQL                                                   \
    "WITH r AS (SELECT run_id FROM run WHERE experiment_id = ?1 AND "        \
    "  sweep_point = ?2 AND status = 'completed'), "                         \
    "m AS (SELECT metric.* FROM metric JOIN r USING (run_id)), "             \
    "h AS (SELECT m.name, m.unit, h.* FROM histogram h JOIN m "              \
    "  USING (metric_id)) "                                                  \
    "SELECT m.name, s.cohort, 'value', m.unit, s.value FROM scalar s JOIN m " \
    "  USING (metric_id) WHERE s.value IS NOT NULL "                         \
    "UNION ALL SELECT name, cohort, 'count', unit, count FROM h "            \
    "UNION ALL SELECT name, cohort, 'mean', unit, mean FROM h "              \
    "  WHERE mean IS NOT NULL "                                              \
    "UNION ALL SELECT name, cohort, 'p50', unit, p50 FROM h "                \
    "  WHERE p50 IS NOT NULL "                                               \
    "UNION ALL SELECT name, cohort, 'p90', unit, p90 FROM h "                \
    "  WHERE p90 IS NOT NULL "                                               \
    "UNION ALL SELECT name, cohort, 'p99', unit, p99 FROM h "                \
    "  WHERE p99 IS NOT NULL "                                               \
    "ORDER BY 1, 2, 3"

static int same_key(sqlite3_stmt *q, const char *key[3])
{
    for (int i = 0; i < 3; i++) {
        const char *t = (const char *)sqlite3_column_text(q, i);
        if (!t || strcmp(t, key[i]))
            return 0;
    }
    return 1;
}

static int put_summary(sim_results *r, sqlite3_stmt *ins, int64_t exp,
                       int64_t point, char *key[4], const double *x,
                       size_t n, double level)
{
    sim_ci ci;
    sqlite3_bind_int64(ins, 1, exp);
    sqlite3_bind_int64(ins, 2, point);
    for (int i = 0; i < 4; i++)
        bind_text(ins, 3 + i, key[i]);
    sqlite3_bind_int64(ins, 7, (int64_t)n);
    if (n >= 2 && sim_ci_student(x, n, level, &ci) == MTC_OK) {
        bind_real(ins, 8, ci.mean);
        bind_real(ins, 9, ci.sd);
        sqlite3_bind_double(ins, 10, level);
        bind_real(ins, 11, ci.half_width);
        bind_real(ins, 12, ci.lo);
        bind_real(ins, 13, ci.hi);
    } else {
        bind_real(ins, 8, x[0]);
    }
    return step_done(r, ins, "insert summary");
}

int sim_results_summarize(sim_results *db, int64_t experiment_id,
                          int64_t sweep_point, double level)
{
    sqlite3_stmt *q = NULL, *ins = NULL, *del = NULL;
    char *key[4] = {NULL, NULL, NULL, NULL};
    double *x = NULL;
    size_t n = 0, cap = 0;
    int rc, s;
    if (!db)
        return MTC_ERR_ARG;
    if (!(level > 0 && level < 1))
        return fail(db, MTC_ERR_ARG, "summarize: level %g not in (0, 1)",
                    level);
    if ((rc = writable(db)) || (rc = sim_results_flush(db)))
        return rc;
    if ((rc = exec(db, "BEGIN IMMEDIATE")))
        return rc;
    if ((rc = prep(db, "DELETE FROM summary WHERE experiment_id = ? AND "
                       "sweep_point = ?", &del)) ||
        (rc = prep(db, SUMMARY_SOURCE_SQL, &q)) ||
        (rc = prep(db, "INSERT INTO summary (experiment_id, sweep_point, "
                       "metric, cohort, statistic, unit, n, mean, stddev, "
                       "ci_level, ci_half_width, ci_lo, ci_hi) VALUES "
                       "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &ins)))
        goto done;
    sqlite3_bind_int64(del, 1, experiment_id);
    sqlite3_bind_int64(del, 2, sweep_point);
    if ((rc = step_done(db, del, "delete summary")))
        goto done;
    sqlite3_bind_int64(q, 1, experiment_id);
    sqlite3_bind_int64(q, 2, sweep_point);
    while ((s = sqlite3_step(q)) == SQLITE_ROW) {
        if (key[0] && !same_key(q, (const char **)key)) {
            if ((rc = put_summary(db, ins, experiment_id, sweep_point, key, x,
                                  n, level)))
                goto done;
            n = 0;
        }
        if (n == 0) {
            for (int i = 0; i < 4; i++) {
                const char *t = (const char *)sqlite3_column_text(q, i);
                free(key[i]);
                key[i] = strdup(t ? t : "");
                if (!key[i]) {
                    rc = fail(db, MTC_ERR_NOMEM, "out of memory");
                    goto done;
                }
            }
        }
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 16;
            double *p = realloc(x, nc * sizeof *p);
            if (!p) {
                rc = fail(db, MTC_ERR_NOMEM, "out of memory");
                goto done;
            }
            x = p;
            cap = nc;
        }
        x[n++] = sqlite3_column_double(q, 4);
    }
    if (s != SQLITE_DONE) {
        rc = db_fail(db, "summary query");
        goto done;
    }
    if (n > 0)
        rc = put_summary(db, ins, experiment_id, sweep_point, key, x, n,
                         level);
done:
    sqlite3_finalize(q);
    sqlite3_finalize(ins);
    sqlite3_finalize(del);
    for (int i = 0; i < 4; i++)
        free(key[i]);
    free(x);
    if (rc == MTC_OK)
        rc = exec(db, "COMMIT");
    if (rc) {
        char keep[ERRMSG_MAX];
        memcpy(keep, db->errmsg, sizeof keep);
        exec(db, "ROLLBACK");
        memcpy(db->errmsg, keep, sizeof keep);
    }
    return rc;
}

int sim_results_stale_runs(sim_results *db, int64_t *ids, size_t max,
                           size_t *n)
{
    sqlite3_stmt *st = NULL;
    char host[256];
    int rc, s;
    if (!db || !n)
        return MTC_ERR_ARG;
    *n = 0;
    if (gethostname(host, sizeof host) != 0)
        host[0] = '\0';
    host[sizeof host - 1] = '\0';
    if ((rc = prep(db, "SELECT run_id, pid FROM run WHERE status = "
                       "'running' AND hostname = ? ORDER BY run_id", &st)))
        return rc;
    bind_text(st, 1, host);
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        pid_t pid = (pid_t)sqlite3_column_int64(st, 1);
        int alive = pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
        if (pid == getpid())
            alive = find_run(db, id) != NULL;
        if (alive)
            continue;
        if (ids && *n < max)
            ids[*n] = id;
        (*n)++;
    }
    rc = s == SQLITE_DONE ? MTC_OK : db_fail(db, "stale run query");
    sqlite3_finalize(st);
    return rc;
}
