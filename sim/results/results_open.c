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
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* Whether SQLite's result code sqlrc says the file at path is no SQLite
 * database (or a corrupt one); if so, says so in err. */
static int not_sqlite(const char *path, int sqlrc, char *err, size_t errlen)
{
    int prim = sqlrc & 0xff;
    if (prim != SQLITE_NOTADB && prim != SQLITE_CORRUPT)
        return 0;
    put_err(err, errlen,
            "%s: not an mtcsim results database: the file is not an SQLite "
            "database or is corrupt (%s)",
            path, sqlite3_errstr(sqlrc));
    return 1;
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

/* Writers may hold a lock for a run's bulk store, and a file being
 * created by another process is locked while it gets its schema: wait,
 * don't fail. */
#define BUSY_MS 30000

/* Writes "file:" + path, percent-escaped, + "?immutable=1" into out. */
static int immutable_uri(const char *path, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    const char *pre = "file:";
    for (const char *p = pre; *p && n < cap; p++)
        out[n++] = *p;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || strchr("/._-~", *p);
        if (n + 4 >= cap)
            return -1;
        if (plain) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    int k = snprintf(out + n, cap - n, "?immutable=1");
    return k < 0 || (size_t)k >= cap - n ? -1 : 0;
}

/* 1 when path + suffix exists. */
static int beside(const char *path, const char *suffix)
{
    char p[4200];
    struct stat sb;
    return snprintf(p, sizeof p, "%s%s", path, suffix) < (int)sizeof p &&
           lstat(p, &sb) == 0;
}

/* 1 when path has a non-empty write-ahead log beside it. */
static int has_wal(const char *path)
{
    char wal[4200];
    struct stat sb;
    if (snprintf(wal, sizeof wal, "%s-wal", path) >= (int)sizeof wal)
        return 0;
    return stat(wal, &sb) == 0 && sb.st_size > 0;
}

/* An immutable connection to path: SQLite reads the main file only, takes
 * no lock and creates nothing beside it. SQLITE_OK or an SQLite code. */
static int open_immutable(const char *path, sqlite3 **out)
{
    char uri[8400];
    sqlite3 *db = NULL;
    *out = NULL;
    if (immutable_uri(path, uri, sizeof uri))
        return SQLITE_CANTOPEN;
    int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
                                           SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_extended_result_codes(db, 1);
        rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL,
                          NULL);
    }
    if (rc == SQLITE_OK)
        *out = db;
    else
        sqlite3_close(db);
    return rc;
}

/*
 * A read-only connection to an existing file, with the busy timeout set.
 * When neither -wal nor -shm is beside the file and no writer is at work
 * (results__reader_lock), it is read immutable at once: a reader (of a
 * damaged file above all) creates nothing beside it, and the reader's
 * lock keeps writers that start meanwhile from changing the main file
 * under it (results_lock.c). *lock_fd is then the descriptor holding
 * that lock, to be closed after the connection; else -1.
 * Otherwise SQLite's usual WAL reader is used, which needs the -shm index
 * beside the file and creates it there; in a directory the reader cannot
 * write (another user's results, read-only media) that fails, and the
 * file is opened immutable after all. A -wal left beside it (a writer
 * that crashed) holds commits an immutable reader would not see: that is
 * refused instead.
 * SQLITE_OK with *out, or an SQLite code with the message in err (*out
 * NULL).
 */
static int open_readonly(const char *path, int *lock_fd, sqlite3 **out,
                         char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    *out = NULL;
    *lock_fd = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int locked = fd >= 0 ? results__reader_lock(fd) : -1;
    int quiet = !beside(path, "-wal") && !beside(path, "-shm");
    int rc;
    if (quiet && locked != 0) {
        /* locked < 0: a file system without locks, where nothing can be
         * coordinated; the file is read as found */
        rc = open_immutable(path, &db);
        if (rc == SQLITE_OK) {
            *out = db;
            if (locked > 0)
                *lock_fd = fd;
            else if (fd >= 0)
                close(fd);
            return SQLITE_OK;
        }
        if (fd >= 0)
            close(fd);
        put_err(err, errlen, "%s: cannot open: %s", path, sqlite3_errstr(rc));
        return rc;
    }
    if (fd >= 0)
        close(fd);      /* before SQLite's connection, which it would unlock */
    rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                         NULL);
    if (rc == SQLITE_OK) {
        sqlite3_extended_result_codes(db, 1);
        sqlite3_busy_timeout(db, BUSY_MS);
        rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL,
                          NULL, NULL);
        if (rc == SQLITE_OK) {
            *out = db;
            return SQLITE_OK;
        }
    }
    int prim = rc & 0xff;
    put_err(err, errlen, "%s: cannot open: %s", path,
            db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    if (prim != SQLITE_CANTOPEN && prim != SQLITE_READONLY)
        return rc;
    if (has_wal(path)) {
        put_err(err, errlen, "%s: cannot open read-only: its write-ahead log "
                "(-wal) needs an index (-shm) that cannot be created beside "
                "it (is the directory writable?); a writer of the file, or "
                "'sqlite3 FILE \"PRAGMA wal_checkpoint\"' by its owner, "
                "folds the log in", path);
        return rc;
    }
    rc = open_immutable(path, &db);
    if (rc == SQLITE_OK) {
        *out = db;
        if (err && errlen)
            err[0] = '\0';     /* the first attempt's message is moot */
        return SQLITE_OK;
    }
    put_err(err, errlen, "%s: cannot open: %s", path, sqlite3_errstr(rc));
    return rc;
}

/*
 * What the database behind db is. Returns MTC_OK for a version-1 mtcsim
 * database, 1 for an empty SQLite database (no schema, ids 0: a fresh or
 * zero-length file), or an error code with the message in err.
 */
static int check_identity(sqlite3 *db, const char *path, char *err,
                          size_t errlen)
{
    int sqlrc;
    int64_t app = 0, ver = 0, nobj = 0;
    if (query_int(db, "PRAGMA application_id", &app, &sqlrc) ||
        query_int(db, "PRAGMA user_version", &ver, &sqlrc) ||
        query_int(db, "SELECT count(*) FROM sqlite_master", &nobj, &sqlrc)) {
        if (not_sqlite(path, sqlrc, err, errlen))
            return SIM_ERR_DB_NOT_SQLITE;
        put_err(err, errlen, "%s: cannot read: %s", path, sqlite3_errmsg(db));
        return SIM_ERR_DB;
    }
    if (app == 0 && ver == 0 && nobj == 0)
        return 1;
    if (app != SIM_RESULTS_APPLICATION_ID) {
        put_err(err, errlen,
                "%s: not an mtcsim results database: an SQLite database of "
                "another application (application_id 0x%08llx, expected "
                "0x%08x)",
                path, (unsigned long long)(uint32_t)app,
                (unsigned)SIM_RESULTS_APPLICATION_ID);
        return SIM_ERR_DB_FOREIGN;
    }
    if (ver != SIM_RESULTS_SCHEMA_VERSION) {
        put_err(err, errlen,
                "%s: mtcsim results database of schema version %lld; this "
                "program reads and writes version %d",
                path, (long long)ver, SIM_RESULTS_SCHEMA_VERSION);
        return SIM_ERR_DB_VERSION;
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
            return SIM_ERR_DB_FOREIGN;
        }
    }
    return MTC_OK;
}

/*
 * Every page of the file, checked before a writer touches it: the
 * identity checks read only the header and the schema, and a file
 * damaged further in would otherwise be written to and lose the run at
 * its store step. quick_check is one pass over the file (of the order of
 * ten seconds per gigabyte), paid once per `mtcsim run`.
 */
static int check_pages(sqlite3 *db, const char *path, char *err,
                       size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL);
    char first[256] = "";
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            const unsigned char *t = sqlite3_column_text(st, 0);
            snprintf(first, sizeof first, "%s", t ? (const char *)t : "?");
            rc = SQLITE_OK;
        }
    }
    if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_CORRUPT &&
        (rc & 0xff) != SQLITE_NOTADB) {
        put_err(err, errlen, "%s: cannot check: %s", path, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return SIM_ERR_DB;
    }
    if (rc != SQLITE_OK)
        snprintf(first, sizeof first, "%s", sqlite3_errstr(rc));
    sqlite3_finalize(st);
    if (!strcmp(first, "ok"))
        return MTC_OK;
    put_err(err, errlen,
            "%s: damaged mtcsim results database: the file is corrupt past "
            "its header (%s); it is left as it is: write to a new file (the "
            "sqlite3 shell's .recover may save what is readable)",
            path, first);
    return SIM_ERR_DB_NOT_SQLITE;
}

/*
 * What an existing file is, through a read-only connection. Returns MTC_OK
 * for a version-1 mtcsim database, 1 for an empty SQLite database, or an
 * error code. `writer`: the caller will write to it, so every page is
 * checked too.
 */
static int inspect(const char *path, int writer, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    int fd;
    int sqlrc = open_readonly(path, &fd, &db, err, errlen);
    if (sqlrc != SQLITE_OK) {
        if (not_sqlite(path, sqlrc, err, errlen))
            return SIM_ERR_DB_NOT_SQLITE;
        return SIM_ERR_DB;
    }
    /* one read transaction: every answer from the same snapshot, not a
     * header before and a schema after another process created it */
    int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK
                 ? check_identity(db, path, err, errlen)
                 : SIM_ERR_DB;
    if (rc == SIM_ERR_DB && !(err && *err))
        put_err(err, errlen, "%s: cannot read: %s", path, sqlite3_errmsg(db));
    if (rc == MTC_OK && writer)
        rc = check_pages(db, path, err, errlen);
    sqlite3_close(db);      /* ends the read transaction */
    if (fd >= 0)
        close(fd);          /* after SQLite's connection: ends the lock */
    return rc;
}

/*
 * WAL mode for a writer. Switching a file to WAL takes a moment of
 * exclusive access and does not wait through the busy handler, so while
 * another process creates the same new file it fails with "database is
 * locked": retry for up to BUSY_MS.
 */
static int set_wal_now(sim_results *r)
{
    for (int waited = 0;; waited += 10) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(r->db, "PRAGMA journal_mode = WAL", -1,
                                    &st, NULL);
        int wal = 0;
        if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
            const unsigned char *m = sqlite3_column_text(st, 0);
            wal = m && !strcmp((const char *)m, "wal");
            rc = SQLITE_OK;
        }
        sqlite3_finalize(st);
        if (wal)
            return MTC_OK;
        int prim = rc & 0xff;
        if ((rc != SQLITE_OK && prim != SQLITE_BUSY && prim != SQLITE_LOCKED) ||
            waited >= BUSY_MS)
            return fail(r, SIM_ERR_DB, "cannot switch to WAL mode: %s",
                        rc == SQLITE_OK ? "the file stays in another journal "
                                          "mode" : sqlite3_errmsg(r->db));
        sqlite3_sleep(10);
    }
}

/* 1 when the file's header says WAL (read and write versions 2): the
 * switch then writes nothing. */
static int header_is_wal(int fd)
{
    unsigned char h[20];
    return fd >= 0 && pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h &&
           h[18] == 2 && h[19] == 2;
}

/* WAL mode; a switch writes the main file, so it waits for immutable
 * readers to end (results_lock.c). */
static int set_wal(sim_results *r)
{
    if (r->lock_fd < 0 || header_is_wal(r->lock_fd))
        return set_wal_now(r);
    if (results__main_file_lock(r->lock_fd, 1))
        return fail(r, SIM_ERR_DB, "cannot switch to WAL mode: another "
                    "process has read the file for more than %d s", BUSY_MS / 1000);
    int rc = set_wal_now(r);
    results__main_file_unlock(r->lock_fd);
    return rc;
}

/*
 * SQLite's automatic checkpoint, replaced: the log is copied into the
 * main file (after 1000 pages, as SQLite does) only while no immutable
 * reader holds the file; otherwise it waits for a later commit or writer.
 */
#define CHECKPOINT_PAGES 1000

static int wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
    sim_results *r = arg;
    if (pages < CHECKPOINT_PAGES)
        return SQLITE_OK;
    if (r->lock_fd >= 0 && results__main_file_lock(r->lock_fd, 0))
        return SQLITE_OK;
    sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    if (r->lock_fd >= 0)
        results__main_file_unlock(r->lock_fd);
    return SQLITE_OK;
}

/*
 * The schema of a fresh file, under the write lock. Another process may
 * have created the same new file a moment earlier (two runs started with
 * one --out): then its schema is checked like any existing file's and
 * this run appends to it.
 */
static int create_schema(sim_results *r)
{
    char sql[256];
    int rc = exec(r, "BEGIN IMMEDIATE");
    if (rc)
        return rc;
    char why[ERRMSG_MAX];
    rc = check_identity(r->db, "created meanwhile by another process", why,
                        sizeof why);
    if (rc != 1) {
        exec(r, "ROLLBACK");
        return rc == MTC_OK ? MTC_OK : fail(r, rc, "%s", why);
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
            return errno == ENOENT ? SIM_ERR_DB_NOT_FOUND : MTC_ERR_IO;
        }
        fresh = 1;
    } else {
        if (!S_ISREG(sb.st_mode)) {
            put_err(err, errlen, "%s: not a regular file", path);
            return SIM_ERR_DB_NOT_SQLITE;
        }
        rc = inspect(path, mode != SIM_RESULTS_READ, err, errlen);
        if (rc < 0)
            return rc;
        if (rc == 1) {
            if (mode != SIM_RESULTS_CREATE) {
                put_err(err, errlen,
                        "%s: not an mtcsim results database: an empty "
                        "SQLite database",
                        path);
                return SIM_ERR_DB_FOREIGN;
            }
            fresh = 1;
        }
    }
    r = calloc(1, sizeof *r);
    if (!r) {
        put_err(err, errlen, "out of memory");
        return MTC_ERR_NOMEM;
    }
    r->lock_fd = -1;
    r->max_text = SIM_RESULTS_MAX_TEXT_BYTES;
    r->max_points = SIM_RESULTS_MAX_SERIES_POINTS;
    r->readonly = mode == SIM_RESULTS_READ;
    if (r->readonly) {
        if (open_readonly(path, &r->lock_fd, &r->db, err, errlen) != SQLITE_OK) {
            rc = SIM_ERR_DB;
            goto fail;
        }
    } else {
        int flags = SQLITE_OPEN_READWRITE | (fresh ? SQLITE_OPEN_CREATE : 0);
        if (sqlite3_open_v2(path, &r->db, flags | SQLITE_OPEN_NOMUTEX, NULL) !=
            SQLITE_OK) {
            put_err(err, errlen, "%s: cannot open: %s", path,
                    r->db ? sqlite3_errmsg(r->db) : "out of memory");
            rc = SIM_ERR_DB;
            goto fail;
        }
        sqlite3_extended_result_codes(r->db, 1);
        sqlite3_busy_timeout(r->db, BUSY_MS);
        /* a writer is at work from here to its close (results_lock.c) */
        r->lock_fd = open(path, O_RDWR | O_CLOEXEC);
        if (r->lock_fd < 0 || results__writer_lock(r->lock_fd)) {
            put_err(err, errlen, "%s: cannot lock: %s", path, strerror(errno));
            rc = MTC_ERR_IO;
            goto fail;
        }
        sqlite3_wal_hook(r->db, wal_hook, r);
    }
    if ((rc = exec(r, "PRAGMA foreign_keys = ON")))
        goto fail_msg;
    if (!r->readonly) {
        if ((rc = set_wal(r)) ||
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
    if (r->lock_fd >= 0)
        close(r->lock_fd);
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

void sim_results_set_caps(sim_results *db, uint64_t max_text, uint64_t max_points)
{
    if (!db)
        return;
    db->max_text = max_text && max_text < SIM_RESULTS_MAX_TEXT_BYTES
                       ? max_text : SIM_RESULTS_MAX_TEXT_BYTES;
    db->max_points = max_points && max_points < SIM_RESULTS_MAX_SERIES_POINTS
                         ? max_points : SIM_RESULTS_MAX_SERIES_POINTS;
}

int sim_results_close(sim_results *db)
{
    if (!db)
        return MTC_OK;
    int rc = sim_results_flush(db);
    /* the last connection's close copies the log into the main file: not
     * under an immutable reader, the log then stays for the next writer */
    int keep_log = !db->readonly && db->lock_fd >= 0 &&
                   results__main_file_lock(db->lock_fd, 0);
    if (keep_log)
        sqlite3_db_config(db->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    sqlite3_close_v2(db->db);
    if (db->lock_fd >= 0)
        close(db->lock_fd);     /* after SQLite's: the claim ends last */
    free(db->runs);
    free(db);
    return rc;
}
