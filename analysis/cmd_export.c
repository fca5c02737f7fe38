/*
 * cmd_export.c - `mtcsim export FILE.db --csv DIR`: every table of a
 * results database as DIR/<table>.csv.
 *
 * CSV per RFC 4180: a header row of column names, then one record per row;
 * a field is quoted when it holds a comma, a quote, CR, LF or leading or
 * trailing blanks, and quotes inside are doubled. NULL is an empty field,
 * an empty string is "" (so the two stay distinguishable); reals are
 * written with 10 significant digits (what a table or a plot reads;
 * --digits 17 reads back to the same double), integers exactly, blobs as
 * hex. Records end in "\n".
 *
 * Besides the tables, the views (scalar_v, vector_v, histogram_v,
 * histogram_bin_v) are written with each row's experiment, sweep point,
 * replication and swept values joined in, so that one file answers a
 * question without joins. --experiment, --metric and --cohort restrict
 * every file to one experiment, some metrics, one cohort.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "analysis.h"
#include "rdb.h"
#include "sim/results.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: mtcsim export FILE.db --csv DIR [--experiment N]\n"
               "                     [--metric NAME[,NAME...]] [--cohort NAME] [--digits D]\n\n"
               "Writes each table of the results database as DIR/TABLE.csv\n"
               "(header row, RFC 4180 quoting; NULL is an empty field), and the\n"
               "views scalar_v, vector_v, histogram_v, histogram_bin_v with the\n"
               "experiment, sweep point, replication and swept values of each\n"
               "row's run joined in. The database is opened read-only.\n\n"
               "  --experiment N   only experiment N (its runs, metrics, summaries)\n"
               "  --metric NAMES   only these metrics (comma-separated; repeatable)\n"
               "  --cohort NAME    only this cohort's rows ('all': the totals)\n"
               "  --digits D       significant digits of reals (default 10; 17\n"
               "                   reads back to the same double)\n");
}

/* The rows of each table that pass the filters: ?1 experiment (< 0: all),
 * ?2 comma-separated metric names (NULL: all), ?3 cohort (NULL: all). */
#define F_RUN "(?1 < 0 OR run_id IN (SELECT run_id FROM run WHERE experiment_id = ?1))"
#define F_METRIC "metric_id IN (SELECT metric_id FROM metric WHERE " F_RUN \
    " AND (?2 IS NULL OR instr(',' || ?2 || ',', ',' || name || ',') > 0))"
#define F_COHORT "(?3 IS NULL OR cohort = ?3)"

typedef struct filtered {
    const char *table, *where;
} filtered;

static const filtered filters[] = {
    {"experiment", "?1 < 0 OR experiment_id = ?1"},
    {"run", "?1 < 0 OR experiment_id = ?1"},
    {"run_attr", F_RUN},
    {"param", F_RUN},
    {"metric", F_METRIC},
    {"scalar", F_METRIC " AND " F_COHORT},
    {"vector", F_METRIC " AND " F_COHORT},
    {"histogram", F_METRIC " AND " F_COHORT},
    {"vector_data", "vector_id IN (SELECT vector_id FROM vector WHERE " F_METRIC
                    " AND " F_COHORT ")"},
    {"histogram_bin", "histogram_id IN (SELECT histogram_id FROM histogram WHERE "
                      F_METRIC " AND " F_COHORT ")"},
    {"summary", "(?1 < 0 OR experiment_id = ?1) AND (?2 IS NULL OR instr(',' || "
                "?2 || ',', ',' || metric || ',') > 0) AND " F_COHORT},
};

/* The views, with the run's place in its experiment joined in. */
static const char *const views[] = {"scalar_v", "vector_v", "histogram_v",
                                    "histogram_bin_v"};

typedef struct export_opts {
    int64_t exp;
    const char *metrics;    /* comma-separated, or NULL */
    const char *cohort;
    int digits;
} export_opts;

static void csv_text(FILE *f, const char *s, size_t n)
{
    int quote = n == 0 || s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' ||
                s[n - 1] == '\t';
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!quote) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

static void csv_value(FILE *f, sqlite3_stmt *st, int c, int digits)
{
    switch (sqlite3_column_type(st, c)) {
    case SQLITE_NULL:
        break;
    case SQLITE_INTEGER:
        fprintf(f, "%lld", (long long)sqlite3_column_int64(st, c));
        break;
    case SQLITE_FLOAT:
        fprintf(f, "%.*g", digits, sqlite3_column_double(st, c));
        break;
    case SQLITE_BLOB: {
        const unsigned char *b = sqlite3_column_blob(st, c);
        int n = sqlite3_column_bytes(st, c);
        for (int i = 0; i < n; i++)
            fprintf(f, "%02x", b[i]);
        break;
    }
    default: {
        const char *t = (const char *)sqlite3_column_text(st, c);
        csv_text(f, t ? t : "", (size_t)sqlite3_column_bytes(st, c));
    }
    }
}

/* Writes one table (or view, with the run's place joined in); returns its
 * row count or -1. */
static long long export_table(sqlite3 *db, const char *table, const char *dir,
                              const export_opts *o)
{
    char path[4200], sql[2048], qname[256];
    size_t j = 0;
    /* Identifier quoting: "name" with inner quotes doubled. */
    qname[j++] = '"';
    for (const char *p = table; *p && j + 3 < sizeof qname; p++) {
        if (*p == '"')
            qname[j++] = '"';
        qname[j++] = *p;
    }
    qname[j++] = '"';
    qname[j] = '\0';
    const char *where = NULL;
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++)
        if (!strcmp(filters[i].table, table))
            where = filters[i].where;
    int view = 0;
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
        view |= !strcmp(views[i], table);
    char sqlbuf[2048];
    if (view)
        snprintf(sqlbuf, sizeof sqlbuf,
                 "SELECT r.experiment_id, r.sweep_point, r.replication, (SELECT "
                 "group_concat(p.name || '=' || p.value, ' ') FROM param p WHERE "
                 "p.run_id = v.run_id AND p.swept = 1) AS swept, v.* FROM %s v "
                 "JOIN run r USING (run_id) WHERE (?1 < 0 OR r.experiment_id = ?1) "
                 "AND (?2 IS NULL OR instr(',' || ?2 || ',', ',' || v.metric || "
                 "',') > 0) AND (?3 IS NULL OR v.cohort = ?3)", qname);
    else
        snprintf(sqlbuf, sizeof sqlbuf, "SELECT * FROM %s%s%s", qname,
                 where ? " WHERE " : "", where ? where : "");
    snprintf(sql, sizeof sql, "%s", sqlbuf);
    snprintf(path, sizeof path, "%s/%s.csv", dir, table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "mtcsim export: table %s: %s\n", table, sqlite3_errmsg(db));
        return -1;
    }
    if (where || view) {
        sqlite3_bind_int64(st, 1, o->exp);
        if (o->metrics)
            sqlite3_bind_text(st, 2, o->metrics, -1, SQLITE_STATIC);
        if (o->cohort)
            sqlite3_bind_text(st, 3, o->cohort, -1, SQLITE_STATIC);
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "mtcsim export: %s: %s\n", path, strerror(errno));
        sqlite3_finalize(st);
        return -1;
    }
    int nc = sqlite3_column_count(st);
    for (int c = 0; c < nc; c++) {
        const char *name = sqlite3_column_name(st, c);
        if (c)
            fputc(',', f);
        csv_text(f, name, strlen(name));
    }
    fputc('\n', f);
    long long rows = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < nc; c++) {
            if (c)
                fputc(',', f);
            csv_value(f, st, c, o->digits);
        }
        fputc('\n', f);
        rows++;
    }
    if (s != SQLITE_DONE) {
        fprintf(stderr, "mtcsim export: table %s: %s\n", table, sqlite3_errmsg(db));
        rows = -1;
    }
    sqlite3_finalize(st);
    if (fclose(f) != 0) {
        fprintf(stderr, "mtcsim export: %s: %s\n", path, strerror(errno));
        rows = -1;
    }
    return rows;
}

int cmd_export(int argc, char **argv)
{
    const char *dbpath = NULL, *dir = NULL;
    export_opts o = {-1, NULL, NULL, 10};
    char metrics[4096] = "";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_v = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return HOST_OK;
        } else if (!strcmp(a, "--csv") && has_v) {
            dir = argv[++i];
        } else if (!strcmp(a, "--experiment") && has_v) {
            if (rdb_parse_id("export", a, argv[++i], &o.exp) != HOST_OK)
                return HOST_USAGE;
        } else if (!strcmp(a, "--metric") && has_v) {
            size_t n = strlen(metrics);
            snprintf(metrics + n, sizeof metrics - n, "%s%s", n ? "," : "", argv[++i]);
            o.metrics = metrics;
        } else if (!strcmp(a, "--cohort") && has_v) {
            o.cohort = argv[++i];
        } else if (!strcmp(a, "--digits") && has_v) {
            int64_t d;
            if (rdb_parse_id("export", a, argv[++i], &d) != HOST_OK || d < 1 || d > 17) {
                fprintf(stderr, "mtcsim export: --digits takes 1..17\n");
                return HOST_USAGE;
            }
            o.digits = (int)d;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "mtcsim export: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return HOST_USAGE;
        } else if (!dbpath) {
            dbpath = a;
        } else {
            fprintf(stderr, "mtcsim export: unexpected argument '%s'\n", a);
            return HOST_USAGE;
        }
    }
    if (!dbpath || !dir) {
        fprintf(stderr, "mtcsim export: %s\n", !dbpath ? "missing FILE.db" : "missing --csv DIR");
        usage(stderr);
        return HOST_USAGE;
    }
    sim_results *res;
    if (rdb_open("export", dbpath, &res) != HOST_OK)
        return HOST_USAGE;
    sqlite3 *db = sim_results_sqlite(res);
    if (o.exp >= 0 && !rdb_experiment_exists(db, o.exp)) {
        fprintf(stderr, "mtcsim export: %s has no experiment %lld\n", dbpath,
                (long long)o.exp);
        sim_results_close(res);
        return HOST_USAGE;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "mtcsim export: cannot create %s: %s\n", dir, strerror(errno));
        sim_results_close(res);
        return HOST_FAIL;
    }
    sqlite3_stmt *st;
    int status = HOST_OK;
    /* One read transaction: all files show the same state of the database
     * even while a run is appending. */
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' "
                               "AND name NOT LIKE 'sqlite_%' ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "mtcsim export: %s\n", sqlite3_errmsg(db));
        sim_results_close(res);
        return HOST_FAIL;
    }
    long long picked = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        long long n = export_table(db, t, dir, &o);
        if (n < 0)
            status = HOST_FAIL;
        else
            printf("%s/%s.csv %lld\n", dir, t, n);
        if (!strcmp(t, "metric"))
            picked = n;
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        long long n = export_table(db, views[i], dir, &o);
        if (n < 0)
            status = HOST_FAIL;
        else
            printf("%s/%s.csv %lld\n", dir, views[i], n);
    }
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (o.metrics && picked == 0) {
        fprintf(stderr, "mtcsim export: no metric named %s%s (mtcsim ls %s "
                        "--metrics lists them)\n", o.metrics,
                o.exp >= 0 ? " in that experiment" : "", dbpath);
        status = HOST_USAGE;
    }
    sim_results_close(res);
    return status;
}
