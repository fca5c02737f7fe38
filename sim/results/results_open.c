/*
 * results_open.c - opening a results database: inspecting an existing
 * file, creating the schema, and the handle's errmsg/flush/close. Kept
 * apart because it is the only part that decides what a file is.
 *
 * An existing file is inspected through a read-only connection before any
 * read-write connection is made, so a foreign, corrupt or other-version
 * file is never touched.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "mtc/error.h"
#include "sim/results.h"
#include "results_internal.h"
#include "results_schema.h"

static void put_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
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
