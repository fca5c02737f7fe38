/*
 * cmd_report.c - `mtcsim report FILE.db [--out DIR]`: figures and an HTML
 * page for one experiment of a results database.
 *
 * The report reads only the database (read-only connection), writes the
 * numbers of each figure to DIR/data/<figure>.dat, the embedded gnuplot
 * scripts (the .gp files of analysis/) and per-figure settings to DIR/gp/, runs gnuplot
 * in DIR (fork + exec, arguments passed as an argv, never through a shell)
 * to render DIR/<figure>.png and .svg, and writes DIR/index.html with
 * every figure, its caption and the summary and run tables. A figure whose
 * metrics are absent from the database is left out with a note naming the
 * missing metric; it is never drawn from anything else.
 *
 * Statistics: only completed runs enter figures and summaries; confidence
 * bands are Student-t intervals across replications (sim_ci_student).
 *
 * This file keeps the command: options, the database and experiment, the
 * output directories and the order of the work. The work itself is in
 * report_data.c (queries), report_figures.c (the figures),
 * report_gnuplot.c (gnuplot) and report_html.c (the page).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis.h"
#include "report_internal.h"
#include "sim/results.h"

/* ---- small helpers ---- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mtcsim report FILE.db [--out DIR] [--experiment ID] [--reference K]\n"
            "                     [--quiet]\n\n"
            "Renders the figures of one experiment (default: the latest) of a\n"
            "results database with gnuplot (PNG and SVG) and writes DIR/index.html\n"
            "with captions, a summary table and the runs. DIR defaults to FILE\n"
            "without .db, plus -report. The database is opened read-only.\n"
            "A sweep's figures include each point's paired difference to a\n"
            "reference point (--reference K, default the first point); a\n"
            "population of several browser cohorts gets per-cohort figures and\n"
            "rows.\n");
}

static int mkdir_p(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            buf[i] = c;
        }
    }
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) ? 0 : -1;
}

FILE *report__open_in(const report *r, const char *sub, const char *name,
                      const char *mode)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s%s%s", r->out, sub, *sub ? "/" : "", name);
    return fopen(p, mode);
}

/* ---- command ---- */

int cmd_report(int argc, char **argv)
{
    const char *dbpath = NULL, *out = NULL;
    char outbuf[4096];
    int64_t exp = -1, ref = -1;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return HOST_OK;
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--experiment") && i + 1 < argc) {
            char *end;
            long long v = strtoll(argv[++i], &end, 10);
            if (*end || end == argv[i] || v < 1) {
                fprintf(stderr, "mtcsim report: --experiment: '%s' is not an "
                                "experiment id (a positive integer)\n", argv[i]);
                return HOST_USAGE;
            }
            exp = v;
        } else if (!strcmp(argv[i], "--reference") && i + 1 < argc) {
            char *end;
            long long v = strtoll(argv[++i], &end, 10);
            if (*end || end == argv[i] || v < 0) {
                fprintf(stderr, "mtcsim report: --reference: '%s' is not a sweep "
                                "point (a non-negative integer)\n", argv[i]);
                return HOST_USAGE;
            }
            ref = v;
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "mtcsim report: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return HOST_USAGE;
        } else if (!dbpath) {
            dbpath = argv[i];
        } else {
            fprintf(stderr, "mtcsim report: unexpected argument '%s'\n", argv[i]);
            return HOST_USAGE;
        }
    }
    if (!dbpath) {
        fprintf(stderr, "mtcsim report: missing FILE.db\n");
        usage(stderr);
        return HOST_USAGE;
    }
    if (!out) {
        size_t n = strlen(dbpath);
        if (n > 3 && !strcmp(dbpath + n - 3, ".db"))
            n -= 3;
        snprintf(outbuf, sizeof outbuf, "%.*s-report", (int)n, dbpath);
        out = outbuf;
    }
    char err[1024];
    sim_results *res = NULL;
    int rc = sim_results_open(dbpath, SIM_RESULTS_READ, &res, err, sizeof err);
    if (rc) {
        fprintf(stderr, "mtcsim report: %s\n", err);
        return HOST_USAGE;
    }
    report r;
    memset(&r, 0, sizeof r);
    r.db = res;
    r.dbpath = dbpath;
    r.out = out;
    r.quiet = quiet;
    int status = HOST_FAIL;
    if (exp < 0 && sim_results_latest_experiment(res, &exp) != 0)
        exp = -1;
    if (exp < 0) {
        fprintf(stderr, "mtcsim report: %s holds no experiment yet\n", dbpath);
        goto done;
    }
    r.exp = exp;
    if (report__load_points(&r) != 0 || r.npoints == 0) {
        fprintf(stderr, "mtcsim report: %s: experiment %lld %s\n", dbpath,
                (long long)exp, r.npoints == 0 ? "does not exist or has no runs"
                                               : "could not be read");
        status = r.npoints == 0 ? HOST_USAGE : HOST_FAIL;
        goto done;
    }
    if (ref >= 0) {
        while (r.ref < r.npoints && r.points[r.ref] != ref)
            r.ref++;
        if (r.ref == r.npoints) {
            fprintf(stderr, "mtcsim report: --reference %lld: experiment %lld has "
                            "no such sweep point\n", (long long)ref, (long long)exp);
            status = HOST_USAGE;
            goto done;
        }
    }
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/gp", out);
    int okdirs = mkdir_p(out) == 0 && mkdir_p(sub) == 0;
    snprintf(sub, sizeof sub, "%s/data", out);
    if (!okdirs || mkdir_p(sub) != 0 || report__write_scripts(&r) != 0) {
        fprintf(stderr, "mtcsim report: cannot write into %s: %s\n", out, strerror(errno));
        goto done;
    }

    report__figures(&r);

    if (report__write_html(&r) != 0) {
        fprintf(stderr, "mtcsim report: cannot write %s/index.html\n", out);
        goto done;
    }
    if (!quiet) {
        size_t drawn = 0;
        for (size_t i = 0; i < r.nfigs; i++)
            drawn += r.figs[i].drawn;
        fprintf(stderr, "mtcsim report: experiment %lld, %zu of %zu figures drawn\n",
                (long long)exp, drawn, r.nfigs);
        for (size_t i = 0; i < r.nfigs; i++)
            if (!r.figs[i].drawn)
                fprintf(stderr, "  %s: %s\n", r.figs[i].name, r.figs[i].note);
    }
    printf("%s/index.html\n", out);
    status = r.failures ? HOST_FAIL : HOST_OK;
done:
    free(r.points);
    free(r.label);
    free(r.xval);
    sim_results_close(res);
    return status;
}
