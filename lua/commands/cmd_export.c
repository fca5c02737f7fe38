/*
 * cmd_export.c - `mtcsim export FILE.db --csv DIR`: every table of a
 * results database as DIR/<table>.csv.
 *
 * CSV per RFC 4180: a header row of column names, then one record per row;
 * a field is quoted when it holds a comma, a quote, CR, LF or leading or
 * trailing blanks, and quotes inside are doubled. NULL is an empty field,
 * an empty string is "" (so the two stay distinguishable); reals are
 * written with 17 significant digits (they read back to the same double),
 * integers exactly, blobs as hex. Records end in "\n".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "host.h"
#include "sim/results.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: mtcsim export FILE.db --csv DIR\n\n"
               "Writes each table of the results database as DIR/TABLE.csv\n"
               "(header row, RFC 4180 quoting; NULL is an empty field). The\n"
               "database is opened read-only.\n");
}

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

static void csv_value(FILE *f, sqlite3_stmt *st, int c)
{
    switch (sqlite3_column_type(st, c)) {
    case SQLITE_NULL:
        break;
    case SQLITE_INTEGER:
        fprintf(f, "%lld", (long long)sqlite3_column_int64(st, c));
        break;
    case SQLITE_FLOAT:
        fprintf(f, "%.17g", sqlite3_column_double(st, c));
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

/* Writes one table; returns its row count or -1. */
static long long export_table(sqlite3 *db, const char *table, const char *dir)
{
    char path[4200], sql[512], qname[256];
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
    snprintf(sql, sizeof sql, "SELECT * FROM %s", qname);
    snprintf(path, sizeof path, "%s/%s.csv", dir, table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "mtcsim export: table %s: %s\n", table, sqlite3_errmsg(db));
        return -1;
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
            csv_value(f, st, c);
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
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return HOST_OK;
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            dir = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "mtcsim export: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return HOST_USAGE;
        } else if (!dbpath) {
            dbpath = argv[i];
        } else {
            fprintf(stderr, "mtcsim export: unexpected argument '%s'\n", argv[i]);
            return HOST_USAGE;
        }
    }
    if (!dbpath || !dir) {
        fprintf(stderr, "mtcsim export: %s\n", !dbpath ? "missing FILE.db" : "missing --csv DIR");
        usage(stderr);
        return HOST_USAGE;
    }
    char err[1024];
    sim_results *res;
    if (sim_results_open(dbpath, SIM_RESULTS_READ, &res, err, sizeof err)) {
        fprintf(stderr, "mtcsim export: %s\n", err);
        return HOST_USAGE;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "mtcsim export: cannot create %s: %s\n", dir, strerror(errno));
        sim_results_close(res);
        return HOST_FAIL;
    }
    sqlite3 *db = sim_results_sqlite(res);
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
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        long long n = export_table(db, t, dir);
        if (n < 0)
            status = HOST_FAIL;
        else
            printf("%s/%s.csv %lld\n", dir, t, n);
    }
    sqlite3_finalize(st);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sim_results_close(res);
    return status;
}
