/*
 * results_runs.c - experiments and runs with their provenance: the run
 * row's lifecycle (begin, parameters, attributes, end, stale runs) and the
 * SHA-256 of scenarios. Kept apart from the bulk metric store.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <sqlite3.h>

#include "mtc/error.h"
#include "sim/results.h"
#include "results_internal.h"

static const char *const status_names[] = {"running", "completed",
                                           "interrupted", "failed"};

const char *sim_run_status_name(int status)
{
    if (status < 0 || status > SIM_RUN_FAILED)
        return "?";
    return status_names[status];
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
    db->runs[db->nruns].text_bytes = 0;
    db->nruns++;
    return MTC_OK;
}

/* Counts bytes more text of run (parameters, attributes) against
 * SIM_RESULTS_MAX_TEXT_BYTES; MTC_OK or MTC_ERR_LIMIT naming what. */
static int charge_text(sim_results *db, int64_t run_id, const char *what,
                       const char *name, uint64_t bytes)
{
    open_run *o = find_run(db, run_id);
    if (o->text_bytes + bytes > db->max_text)
        return fail(db, MTC_ERR_LIMIT, "run %lld: its parameters and attributes "
                    "would take more than %llu bytes in the results database "
                    "(the cap per run), at %s '%.80s' (%llu bytes): shorten the "
                    "values", (long long)run_id,
                    (unsigned long long)db->max_text, what, name,
                    (unsigned long long)bytes);
    o->text_bytes += bytes;
    return MTC_OK;
}

/* One write of run_id's rows: sql's ?1 is the run, ?2 on the ntext
 * strings of text (NULL binds NULL); what names it in an error. */
static int write_run_rows(sim_results *db, const char *sql, int64_t run_id,
                          const char *const *text, int ntext, const char *what)
{
    sqlite3_stmt *st = NULL;
    int rc = prep(db, sql, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    for (int i = 0; i < ntext; i++)
        bind_text(st, i + 2, text[i]);
    rc = step_done(db, st, what);
    sqlite3_finalize(st);
    return rc;
}

int sim_results_add_param(sim_results *db, int64_t run_id,
                          const char *entity_kind, const char *entity_name,
                          const char *name, const char *value)
{
    int rc;
    if (!db)
        return MTC_ERR_ARG;
    if (!entity_kind || !entity_name || !name || !*name || !value)
        return fail(db, MTC_ERR_ARG, "parameter with a NULL field");
    if ((rc = need_run(db, run_id)) ||
        (rc = charge_text(db, run_id, "parameter", name,
                          strlen(entity_kind) + strlen(entity_name) +
                              strlen(name) + strlen(value))) ||
        (rc = batch_begin(db)))
        return rc;
    const char *text[] = {entity_kind, entity_name, name, value};
    return write_run_rows(db, "INSERT OR REPLACE INTO param (run_id, "
                              "entity_kind, entity_name, name, value) VALUES "
                              "(?, ?, ?, ?, ?)", run_id, text, 4,
                          "insert param");
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
    int rc;
    if (!db)
        return MTC_ERR_ARG;
    if (!entity_kind || !entity_name || !name)
        return fail(db, MTC_ERR_ARG, "mark_swept: NULL argument");
    if ((rc = need_run(db, run_id)) || (rc = batch_begin(db)))
        return rc;
    const char *text[] = {entity_kind, entity_name, name};
    rc = write_run_rows(db, "UPDATE param SET swept = 1 WHERE run_id = ? AND "
                            "entity_kind = ? AND entity_name = ? AND name = ?",
                        run_id, text, 3, "mark swept");
    if (rc == MTC_OK && sqlite3_changes(db->db) != 1)
        rc = fail(db, MTC_ERR_CONFIG,
                  "swept parameter %s.%s.%s was not stored for run %lld",
                  entity_kind, entity_name, name, (long long)run_id);
    return rc;
}

int sim_results_add_attr(sim_results *db, int64_t run_id, const char *name,
                         const char *value)
{
    int rc;
    if (!db)
        return MTC_ERR_ARG;
    if (!name || !*name)
        return fail(db, MTC_ERR_ARG, "attribute without a name");
    if ((rc = need_run(db, run_id)) ||
        (rc = charge_text(db, run_id, "attribute", name,
                          strlen(name) + (value ? strlen(value) : 0))) ||
        (rc = batch_begin(db)))
        return rc;
    const char *text[] = {name, value};
    return write_run_rows(db, "INSERT OR REPLACE INTO run_attr (run_id, name, "
                              "value) VALUES (?, ?, ?)", run_id, text, 2,
                          "insert run_attr");
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
    if ((rc = prep(db, "SELECT run_id, pid, coalesce(hostname, '') = ?, "
                       "experiment_id FROM run WHERE status = 'running' "
                       "ORDER BY run_id", &st)))
        return rc;
    bind_text(st, 1, host);
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        pid_t pid = (pid_t)sqlite3_column_int64(st, 1);
        int here = sqlite3_column_int(st, 2);
        int alive;
        if (here && pid == getpid()) {
            alive = find_run(db, id) != NULL;
        } else {
            /* whoever writes an experiment claims it (results_lock.c):
             * unclaimed, its running rows have no writer, whatever host
             * they name; without locks, only a pid of this host tells */
            int claim = results__claim_state(db, sqlite3_column_int64(st, 3));
            alive = claim >= 0 ? claim
                               : !here || (pid > 0 && (kill(pid, 0) == 0 ||
                                                       errno == EPERM));
        }
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
