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
 * replication and swept values (one text column, then a column per swept
 * parameter) joined in, so that one file answers a
 * question without joins. --experiment, --metric and --cohort restrict
 * every file to one experiment, some metrics, one cohort.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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
               "row's run joined in (one column per swept parameter too). The database is opened read-only.\n\n"
               "  --experiment N   only experiment N (its runs, metrics, summaries)\n"
               "  --metric NAMES   only these metrics (comma-separated; repeatable)\n"
               "  --cohort NAME    only this cohort's rows ('all': the totals)\n"
               "  --digits D       significant digits of reals (default 10; 17\n"
               "                   reads back to the same double)\n");
}

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

static void csv_value(FILE *f, const sim_value *v, int digits)
{
    switch (v->type) {
    case SIM_VALUE_NULL:
        break;
    case SIM_VALUE_INT:
        fprintf(f, "%lld", (long long)v->i);
        break;
    case SIM_VALUE_REAL:
        fprintf(f, "%.*g", digits, v->d);
        break;
    case SIM_VALUE_BLOB: {
        const unsigned char *b = v->bytes;
        for (size_t i = 0; i < v->len; i++)
            fprintf(f, "%02x", b[i]);
        break;
    }
    default:
        csv_text(f, v->bytes ? v->bytes : "", v->len);
    }
}

typedef struct csv_out {
    FILE *f;
    int digits;
} csv_out;

/* One row (or the header, vals == NULL) of a dump as a CSV record. */
static int csv_row(void *arg, size_t ncols, const char *const *names,
                   const sim_value *vals)
{
    csv_out *o = arg;
    for (size_t c = 0; c < ncols; c++) {
        if (c)
            fputc(',', o->f);
        if (vals)
            csv_value(o->f, &vals[c], o->digits);
        else
            csv_text(o->f, names[c], strlen(names[c]));
    }
    fputc('\n', o->f);
    return ferror(o->f) ? -1 : 0;
}

/* Writes one table (or view, with the run's place joined in); returns its
 * row count or -1. */
static long long export_table(sim_results *db, const char *table, const char *dir,
                              const export_opts *o)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.csv", dir, table);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "mtcsim export: %s: %s\n", path, strerror(errno));
        return -1;
    }
    sim_results_filter flt = {o->exp, o->metrics, o->cohort};
    csv_out out = {f, o->digits};
    int64_t rows = 0;
    long long ret = 0;
    if (sim_results_dump(db, table, &flt, csv_row, &out, &rows) != 0) {
        fprintf(stderr, "mtcsim export: table %s: %s\n", table,
                ferror(f) ? strerror(errno) : sim_results_errmsg(db));
        ret = -1;
    } else {
        ret = rows;
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "mtcsim export: %s: %s\n", path, strerror(errno));
        ret = -1;
    }
    return ret;
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
    sim_results *db = res;
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
    int status = HOST_OK;
    /* One read transaction: all files show the same state of the database
     * even while a run is appending. */
    sim_results_read_begin(db);
    char(*names)[64];
    size_t nn, nt;
    if (sim_results_table_names(db, &names, &nn, &nt) != 0) {
        fprintf(stderr, "mtcsim export: %s\n", sim_results_errmsg(db));
        sim_results_read_end(db);
        sim_results_close(res);
        return HOST_FAIL;
    }
    long long picked = 0;
    for (size_t i = 0; i < nn; i++) {
        long long n = export_table(db, names[i], dir, &o);
        if (n < 0)
            status = HOST_FAIL;
        else
            printf("%s/%s.csv %lld\n", dir, names[i], n);
        if (i < nt && !strcmp(names[i], "metric"))
            picked = n;
    }
    free(names);
    sim_results_read_end(db);
    if (o.metrics && picked == 0) {
        fprintf(stderr, "mtcsim export: no metric named %s%s (mtcsim ls %s "
                        "--metrics lists them)\n", o.metrics,
                o.exp >= 0 ? " in that experiment" : "", dbpath);
        status = HOST_USAGE;
    }
    sim_results_close(res);
    return status;
}
