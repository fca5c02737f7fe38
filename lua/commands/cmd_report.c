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
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis_scripts.h"
#include "host.h"
#include "mtc/error.h"
#include "sim/metrics.h"
#include "sim/results.h"

#define MAX_LINES 8       /* lines per figure (sweep points, signers) */
#define CI_LEVEL 0.95

typedef struct figure {
    char name[48];
    char title[160];
    char caption[1024];
    char note[512];     /* why it is missing / partial, or "" */
    int drawn;
} figure;

typedef struct report {
    sqlite3 *db;
    const char *dbpath, *out;
    int64_t exp;
    int quiet;
    /* sweep points of the experiment */
    size_t npoints;
    int64_t *points;
    char (*label)[128];     /* "landmark_interval=3600" or "point 0" */
    double *xval;           /* value of the first swept parameter */
    int x_numeric;
    char xname[128];        /* name of the first swept parameter, or "" */
    figure figs[16];
    size_t nfigs;
    int failures;
} report;

/* ---- small helpers ---- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mtcsim report FILE.db [--out DIR] [--experiment ID] [--quiet]\n\n"
            "Renders the figures of one experiment (default: the latest) of a\n"
            "results database with gnuplot (PNG and SVG) and writes DIR/index.html\n"
            "with captions, a summary table and the runs. DIR defaults to FILE\n"
            "without .db, plus -report. The database is opened read-only.\n");
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

static FILE *open_in(const report *r, const char *sub, const char *name,
                     const char *mode)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s%s%s", r->out, sub, *sub ? "/" : "", name);
    return fopen(p, mode);
}

/* Text safe inside a gnuplot double-quoted column header. */
static void gp_label(char *dst, size_t n, const char *src)
{
    size_t j = 0;
    for (; *src && j + 1 < n; src++)
        dst[j++] = (*src == '"' || *src == '\\' || (unsigned char)*src < 32) ? '\'' : *src;
    dst[j] = '\0';
}

/* A gnuplot single-quoted string literal ('' escapes a quote). */
static void gp_string(FILE *f, const char *var, const char *s)
{
    fprintf(f, "%s = '", var);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("''", f);
        else if ((unsigned char)*s >= 32)
            fputc(*s, f);
    }
    fputs("'\n", f);
}

static void html_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static figure *fig_new(report *r, const char *name, const char *title)
{
    figure *g = &r->figs[r->nfigs++];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    snprintf(g->title, sizeof g->title, "%s", title);
    return g;
}

static void fig_note(figure *g, const char *fmt, ...)
{
    size_t n = strlen(g->note);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->note + n, sizeof g->note - n, fmt, ap);
    va_end(ap);
}

/* Number of completed runs of the experiment that hold metric `name`. */
static int64_t have_metric(report *r, const char *name)
{
    sqlite3_stmt *st;
    int64_t n = 0;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT count(*) FROM metric JOIN run USING (run_id) "
                           "WHERE experiment_id = ? AND status = 'completed' "
                           "AND name = ?", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, r->exp);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* Completed runs of a sweep point (replication order). Caller frees. */
static size_t point_runs(report *r, int64_t point, int64_t **ids)
{
    sqlite3_stmt *st;
    size_t n = 0, cap = 0;
    *ids = NULL;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT run_id FROM run WHERE experiment_id = ? AND "
                           "sweep_point = ? AND status = 'completed' ORDER BY "
                           "replication, run_id", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, r->exp);
    sqlite3_bind_int64(st, 2, point);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            int64_t *p = realloc(*ids, cap * sizeof *p);
            if (!p)
                break;
            *ids = p;
        }
        (*ids)[n++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return n;
}

typedef struct series {
    size_t n;
    int64_t *t;
    double *v;
} series;

static void series_free(series *s)
{
    free(s->t);
    free(s->v);
    s->t = NULL;
    s->v = NULL;
    s->n = 0;
}

/* The series of metric `name`, cohort_index `cohort` (-1: total) of a run. */
static int series_read(report *r, int64_t run, const char *name, int64_t cohort,
                       series *s)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    memset(s, 0, sizeof *s);
    if (sqlite3_prepare_v2(r->db,
                           "SELECT d.t, d.value FROM vector_data d JOIN vector v "
                           "USING (vector_id) JOIN metric m USING (metric_id) "
                           "WHERE m.run_id = ? AND m.name = ? AND "
                           "v.cohort_index = ? ORDER BY d.k", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, cohort);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (s->n == cap) {
            cap = cap ? 2 * cap : 256;
            int64_t *t = realloc(s->t, cap * sizeof *t);
            if (t)
                s->t = t;
            double *v = realloc(s->v, cap * sizeof *v);
            if (v)
                s->v = v;
            if (!t || !v)
                break;
        }
        s->t[s->n] = sqlite3_column_int64(st, 0);
        s->v[s->n] = sqlite3_column_double(st, 1);
        s->n++;
    }
    sqlite3_finalize(st);
    return 0;
}

/* Mean and Student-t band of x[0..n); the band collapses with n < 2. */
static void band(const double *x, size_t n, double *mean, double *lo,
                 double *hi)
{
    sim_ci ci;
    if (n >= 2 && sim_ci_student(x, n, CI_LEVEL, &ci) == MTC_OK) {
        *mean = ci.mean;
        *lo = ci.lo;
        *hi = ci.hi;
        return;
    }
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *mean = *lo = *hi = n ? s / (double)n : NAN;
}

/* Time axis: days for spans of 3 days or more, else hours. */
static double time_scale(int64_t span_us, const char **unit)
{
    if (span_us >= 3 * SIM_DAY) {
        *unit = "days";
        return 1.0 / (double)SIM_DAY;
    }
    *unit = "hours";
    return 1.0 / (double)SIM_HOUR;
}

/* ---- gnuplot ---- */

static int write_vars(report *r, const figure *g, size_t nblocks,
                      const char *xlabel, const char *ylabel, int logx)
{
    char fn[96];
    snprintf(fn, sizeof fn, "%s.vars.gp", g->name);
    FILE *f = open_in(r, "gp", fn, "w");
    if (!f)
        return -1;
    char data[96];
    snprintf(data, sizeof data, "data/%s.dat", g->name);
    fprintf(f, "# settings of figure %s, written by mtcsim report\n", g->name);
    gp_string(f, "name", g->name);
    gp_string(f, "datafile", data);
    fprintf(f, "nblocks = %zu\n", nblocks);
    gp_string(f, "xlabel", xlabel);
    gp_string(f, "ylabel", ylabel);
    gp_string(f, "title", g->title);
    fprintf(f, "logx = %d\n", logx);
    return fclose(f) == 0 ? 0 : -1;
}

/* Runs `gnuplot gp/NAME.vars.gp gp/SCRIPT` in the report directory;
 * gnuplot's output goes to gp/NAME.log. 0 when both images exist. */
static int run_gnuplot(report *r, figure *g, const char *script)
{
    char vars[128], scr[128], log[128];
    snprintf(vars, sizeof vars, "gp/%s.vars.gp", g->name);
    snprintf(scr, sizeof scr, "gp/%s", script);
    snprintf(log, sizeof log, "gp/%s.log", g->name);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (chdir(r->out) != 0)
            _exit(126);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        char *argv[] = {"gnuplot", vars, scr, NULL};
        execvp("gnuplot", argv);
        fprintf(stderr, "cannot run gnuplot: %s\n", strerror(errno));
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (ok) {
        for (int k = 0; k < 2 && ok; k++) {
            char img[4200];
            struct stat sb;
            snprintf(img, sizeof img, "%s/%s.%s", r->out, g->name, k ? "svg" : "png");
            ok = stat(img, &sb) == 0 && sb.st_size > 0;
        }
    }
    if (!ok) {
        char lp[4200], line[512];
        snprintf(lp, sizeof lp, "%s/%s", r->out, log);
        fprintf(stderr, "mtcsim report: gnuplot failed on figure %s%s\n", g->name,
                WIFEXITED(st) && WEXITSTATUS(st) == 127
                    ? " (is gnuplot installed? `make deps` installs gnuplot-nox)"
                    : "");
        FILE *f = fopen(lp, "r");
        while (f && fgets(line, sizeof line, f))
            fprintf(stderr, "  %s", line);
        if (f)
            fclose(f);
        fig_note(g, "gnuplot failed (see gp/%s.log). ", g->name);
        r->failures++;
        return -1;
    }
    g->drawn = 1;
    return 0;
}

/* ---- sweep points ---- */

static int load_points(report *r)
{
    sqlite3_stmt *st = NULL, *pq = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT DISTINCT sweep_point FROM run WHERE "
                           "experiment_id = ? ORDER BY 1", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(r->db,
                           "SELECT p.name, p.value FROM param p JOIN run USING "
                           "(run_id) WHERE experiment_id = ? AND sweep_point = ? "
                           "AND swept = 1 AND run_id = (SELECT min(run_id) FROM "
                           "run WHERE experiment_id = ?1 AND sweep_point = ?2) "
                           "ORDER BY p.entity_kind, p.entity_name, p.name",
                           -1, &pq, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_int64(st, 1, r->exp);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (r->npoints == cap) {
            cap = cap ? 2 * cap : 8;
            int64_t *p = realloc(r->points, cap * sizeof *p);
            if (p)
                r->points = p;
            char(*l)[128] = realloc(r->label, cap * sizeof *l);
            if (l)
                r->label = l;
            double *x = realloc(r->xval, cap * sizeof *x);
            if (x)
                r->xval = x;
            if (!p || !l || !x)
                goto done;
        }
        r->points[r->npoints++] = sqlite3_column_int64(st, 0);
    }
    r->x_numeric = 1;
    for (size_t i = 0; i < r->npoints; i++) {
        char *l = r->label[i];
        l[0] = '\0';
        r->xval[i] = (double)r->points[i];
        int first = 1;
        sqlite3_reset(pq);
        sqlite3_bind_int64(pq, 1, r->exp);
        sqlite3_bind_int64(pq, 2, r->points[i]);
        while (sqlite3_step(pq) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(pq, 0);
            const char *val = (const char *)sqlite3_column_text(pq, 1);
            size_t n = strlen(l);
            snprintf(l + n, 128 - n, "%s%s=%s", n ? ", " : "", name, val);
            if (first) {
                char *end;
                double v = strtod(val, &end);
                if (end == val || *end || !isfinite(v))
                    r->x_numeric = 0;
                else
                    r->xval[i] = v;
                if (i == 0)
                    snprintf(r->xname, sizeof r->xname, "%s", name);
                first = 0;
            }
        }
        if (!l[0])
            snprintf(l, 128, "point %lld", (long long)r->points[i]);
    }
    if (!r->x_numeric)
        for (size_t i = 0; i < r->npoints; i++)
            r->xval[i] = (double)r->points[i];
    rc = 0;
done:
    sqlite3_finalize(st);
    sqlite3_finalize(pq);
    return rc;
}

/* ---- figures ---- */

static void fig_fraction(report *r)
{
    figure *g = fig_new(r, "fraction", "Signatureless fraction over time");
    snprintf(g->caption, sizeof g->caption,
             "Fraction of full handshakes in each grid interval that used a "
             "landmark-relative (signatureless) certificate "
             "(handshake_signatureless / handshake_full, all cohorts). Line: "
             "mean over the completed replications of each sweep point; "
             "band: %.0f %% Student-t confidence interval across "
             "replications (absent with one replication).",
             100 * CI_LEVEL);
    const char *need[] = {"handshake_full", "handshake_signatureless"};
    for (int i = 0; i < 2; i++)
        if (!have_metric(r, need[i])) {
            fig_note(g, "Not drawn: metric %s is missing from this "
                        "experiment's completed runs.", need[i]);
            return;
        }
    FILE *f = open_in(r, "data", "fraction.dat", "w");
    if (!f)
        return;
    size_t nblocks = 0;
    const char *unit = "hours";
    double scale = 1.0 / (double)SIM_HOUR;
    for (size_t p = 0; p < r->npoints && nblocks < MAX_LINES; p++) {
        int64_t *ids;
        size_t nr = point_runs(r, r->points[p], &ids);
        series *S = calloc(nr ? nr : 1, sizeof *S), *F = calloc(nr ? nr : 1, sizeof *F);
        size_t len = SIZE_MAX;
        for (size_t k = 0; S && F && k < nr; k++) {
            series_read(r, ids[k], "handshake_signatureless", -1, &S[k]);
            series_read(r, ids[k], "handshake_full", -1, &F[k]);
            len = S[k].n < len ? S[k].n : len;
            len = F[k].n < len ? F[k].n : len;
        }
        if (S && F && nr > 0 && len != SIZE_MAX && len > 0) {
            if (nblocks == 0)
                scale = time_scale(F[0].t[len - 1], &unit);
            char lab[160];
            gp_label(lab, sizeof lab, r->label[p]);
            fprintf(f, "%s\"%s (n=%zu)\" \"mean\" \"lo\" \"hi\"\n",
                    nblocks ? "\n\n" : "", lab, nr);
            double *x = malloc(nr * sizeof *x);
            for (size_t k = 0; x && k < len; k++) {
                size_t n = 0;
                for (size_t j = 0; j < nr; j++) {
                    double ds = S[j].v[k] - (k ? S[j].v[k - 1] : 0);
                    double df = F[j].v[k] - (k ? F[j].v[k - 1] : 0);
                    if (df > 0)
                        x[n++] = ds / df;
                }
                if (n == 0)
                    continue;
                double m, lo, hi;
                band(x, n, &m, &lo, &hi);
                fprintf(f, "%.10g %.10g %.10g %.10g\n", (double)F[0].t[k] * scale,
                        m, lo < 0 ? 0 : lo, hi > 1 ? 1 : hi);
            }
            free(x);
            nblocks++;
        }
        for (size_t k = 0; S && F && k < nr; k++) {
            series_free(&S[k]);
            series_free(&F[k]);
        }
        free(S);
        free(F);
        free(ids);
    }
    fclose(f);
    if (r->npoints > MAX_LINES)
        fig_note(g, "Only the first %d of %zu sweep points are drawn. ",
                 MAX_LINES, r->npoints);
    if (nblocks == 0) {
        fig_note(g, "Not drawn: the metrics have no series (created without "
                    "SIM_METRIC_SERIES, or no grid).");
        return;
    }
    char xl[64];
    snprintf(xl, sizeof xl, "simulated time (%s)", unit);
    if (write_vars(r, g, nblocks, xl, "signatureless fraction", 0) == 0)
        run_gnuplot(r, g, "fraction.gp");
}

/* Writes the CDF of metric `name` pooled over the completed runs of the
 * experiment (point < 0) or of one point, as a data block. Returns 1 when
 * a block was written. *allpos: all x > 0 (log scale possible). */
static int cdf_block(report *r, FILE *f, const char *name, int64_t point,
                     const char *label, size_t *nblocks, int *allpos)
{
    static const char *const where =
        "FROM histogram_bin b JOIN histogram h USING (histogram_id) JOIN "
        "metric m USING (metric_id) JOIN run USING (run_id) WHERE "
        "experiment_id = ?1 AND status = 'completed' AND (?2 < 0 OR "
        "sweep_point = ?2) AND m.name = ?3 AND h.cohort_index = -1";
    char sql[1024];
    sqlite3_stmt *st = NULL, *mm = NULL;
    double mn = NAN, mx = NAN, total = 0;
    int wrote = 0;
    snprintf(sql, sizeof sql,
             "SELECT min(h.min), max(h.max), sum(b.count) %s", where);
    if (sqlite3_prepare_v2(r->db, sql, -1, &mm, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_int64(mm, 1, r->exp);
    sqlite3_bind_int64(mm, 2, point);
    sqlite3_bind_text(mm, 3, name, -1, SQLITE_STATIC);
    if (sqlite3_step(mm) != SQLITE_ROW || sqlite3_column_type(mm, 2) == SQLITE_NULL)
        goto done;
    mn = sqlite3_column_double(mm, 0);
    mx = sqlite3_column_double(mm, 1);
    total = sqlite3_column_double(mm, 2);
    if (!(total > 0))
        goto done;
    snprintf(sql, sizeof sql,
             "SELECT b.bin, min(b.hi), sum(b.count) %s GROUP BY b.bin ORDER BY b.bin",
             where);
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_int64(st, 1, r->exp);
    sqlite3_bind_int64(st, 2, point);
    sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
    char lab[160];
    gp_label(lab, sizeof lab, label);
    fprintf(f, "%s\"%s\" \"F\"\n", *nblocks ? "\n\n" : "", lab);
    fprintf(f, "%.10g 0\n", mn);
    if (!(mn > 0))
        *allpos = 0;
    double cum = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        cum += sqlite3_column_double(st, 2);
        double x = sqlite3_column_type(st, 1) == SQLITE_NULL
                       ? mx : sqlite3_column_double(st, 1);
        if (x > mx)
            x = mx;
        if (x < mn)
            x = mn;
        fprintf(f, "%.10g %.10g\n", x, cum / total);
    }
    (*nblocks)++;
    wrote = 1;
done:
    sqlite3_finalize(st);
    sqlite3_finalize(mm);
    return wrote;
}

typedef struct cdf_line {
    const char *metric;
    int per_point;      /* one line per sweep point when there is a sweep */
    int required;       /* the figure is omitted without it */
} cdf_line;

static void fig_cdf(report *r, const char *name, const char *title,
                    const char *caption, const char *xlabel,
                    const cdf_line *lines, size_t nlines)
{
    figure *g = fig_new(r, name, title);
    snprintf(g->caption, sizeof g->caption, "%s", caption);
    for (size_t i = 0; i < nlines; i++)
        if (lines[i].required && !have_metric(r, lines[i].metric)) {
            fig_note(g, "Not drawn: metric %s is missing from this "
                        "experiment's completed runs.", lines[i].metric);
            return;
        }
    char fn[96];
    snprintf(fn, sizeof fn, "%s.dat", name);
    FILE *f = open_in(r, "data", fn, "w");
    if (!f)
        return;
    size_t nblocks = 0;
    int allpos = 1;
    for (size_t i = 0; i < nlines; i++) {
        if (!have_metric(r, lines[i].metric)) {
            fig_note(g, "Metric %s is missing: its line is not drawn. ",
                     lines[i].metric);
            continue;
        }
        if (lines[i].per_point && r->npoints > 1) {
            for (size_t p = 0; p < r->npoints && p < MAX_LINES; p++) {
                char lab[200];
                snprintf(lab, sizeof lab, "%s, %s", lines[i].metric, r->label[p]);
                cdf_block(r, f, lines[i].metric, r->points[p], lab, &nblocks, &allpos);
            }
        } else {
            cdf_block(r, f, lines[i].metric, -1, lines[i].metric, &nblocks, &allpos);
        }
    }
    fclose(f);
    if (nblocks == 0) {
        fig_note(g, "Not drawn: the histograms are empty.");
        return;
    }
    if (write_vars(r, g, nblocks, xlabel, "fraction of observations <= x", allpos) == 0)
        run_gnuplot(r, g, "cdf.gp");
}

/* A value per completed run of a point, from `sql` (?1 experiment, ?2
 * point); returns the count, values in *out (caller frees). */
static size_t per_run_values(report *r, const char *sql, int64_t point, double **out)
{
    sqlite3_stmt *st;
    size_t n = 0, cap = 0;
    *out = NULL;
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, r->exp);
    sqlite3_bind_int64(st, 2, point);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) == SQLITE_NULL)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            double *p = realloc(*out, cap * sizeof *p);
            if (!p)
                break;
            *out = p;
        }
        (*out)[n++] = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    return n;
}

#define RUNS_OF_POINT \
    "run_id IN (SELECT run_id FROM run WHERE experiment_id = ?1 AND " \
    "sweep_point = ?2 AND status = 'completed')"

static const char fraction_sql[] =
    "SELECT CAST(s.value AS REAL) / f.value FROM scalar_v s JOIN scalar_v f "
    "USING (run_id, cohort_index) WHERE s.metric = 'handshake_signatureless' "
    "AND f.metric = 'handshake_full' AND s.cohort_index = -1 AND f.value > 0 "
    "AND s." RUNS_OF_POINT;

static void fig_sweep(report *r, const char *name, const char *title,
                      const char *what, const char *ylabel, const char *sql,
                      const char *const *need, size_t nneed)
{
    figure *g = fig_new(r, name, title);
    snprintf(g->caption, sizeof g->caption,
             "%s against the swept parameter %s: mean over the completed "
             "replications of each sweep point, with %.0f %% Student-t "
             "confidence intervals.", what, r->xname[0] ? r->xname : "(none)",
             100 * CI_LEVEL);
    for (size_t i = 0; i < nneed; i++)
        if (!have_metric(r, need[i])) {
            fig_note(g, "Not drawn: metric %s is missing from this "
                        "experiment's completed runs.", need[i]);
            return;
        }
    char fn[96];
    snprintf(fn, sizeof fn, "%s.dat", name);
    FILE *f = open_in(r, "data", fn, "w");
    if (!f)
        return;
    char lab[160];
    gp_label(lab, sizeof lab, what);
    fprintf(f, "\"%s\" \"mean\" \"lo\" \"hi\"\n", lab);
    size_t rows = 0;
    for (size_t p = 0; p < r->npoints; p++) {
        double *x, m, lo, hi;
        size_t n = per_run_values(r, sql, r->points[p], &x);
        if (n > 0) {
            band(x, n, &m, &lo, &hi);
            fprintf(f, "%.10g %.10g %.10g %.10g\n", r->xval[p], m, lo, hi);
            rows++;
        }
        free(x);
    }
    fclose(f);
    if (rows < 2) {
        fig_note(g, "Not drawn: fewer than two sweep points have completed runs.");
        return;
    }
    int logx = 0;
    if (r->x_numeric) {
        double mn = r->xval[0], mx = r->xval[0];
        for (size_t p = 1; p < r->npoints; p++) {
            mn = r->xval[p] < mn ? r->xval[p] : mn;
            mx = r->xval[p] > mx ? r->xval[p] : mx;
        }
        logx = mn > 0 && mx / mn >= 20;
    }
    char xl[200];
    if (r->x_numeric)
        snprintf(xl, sizeof xl, "%s", r->xname);
    else
        snprintf(xl, sizeof xl, "sweep point (%s is not numeric)", r->xname);
    if (write_vars(r, g, 1, xl, ylabel, logx) == 0)
        run_gnuplot(r, g, "sweep.gp");
}

static void fig_signers(report *r)
{
    figure *g = fig_new(r, "signer_load", "Signer load");
    snprintf(g->caption, sizeof g->caption,
             "Signatures per hour made by each signer (CA and cosigners; "
             "metric signatures), per grid interval, mean over the "
             "completed replications of %s.",
             r->npoints > 1 ? "the first sweep point" : "the experiment");
    if (!have_metric(r, "signatures")) {
        fig_note(g, "Not drawn: metric signatures is missing from this "
                    "experiment's completed runs.");
        return;
    }
    int64_t *ids;
    size_t nr = point_runs(r, r->points[0], &ids);
    sqlite3_stmt *st;
    size_t nblocks = 0;
    FILE *f = open_in(r, "data", "signer_load.dat", "w");
    if (!f || nr == 0 ||
        sqlite3_prepare_v2(r->db,
                           "SELECT v.cohort_index, v.cohort FROM vector v JOIN "
                           "metric m USING (metric_id) WHERE m.run_id = ? AND "
                           "m.name = 'signatures' AND v.cohort_index >= 0 "
                           "ORDER BY v.cohort_index", -1, &st, NULL) != SQLITE_OK) {
        if (f)
            fclose(f);
        free(ids);
        fig_note(g, "Not drawn: no completed run with a signatures series.");
        return;
    }
    const char *unit = "hours";
    double scale = 1.0 / (double)SIM_HOUR;
    sqlite3_bind_int64(st, 1, ids[0]);
    while (sqlite3_step(st) == SQLITE_ROW && nblocks < 12) {
        int64_t c = sqlite3_column_int64(st, 0);
        char lab[160];
        gp_label(lab, sizeof lab, (const char *)sqlite3_column_text(st, 1));
        series *S = calloc(nr, sizeof *S);
        size_t len = SIZE_MAX;
        for (size_t k = 0; S && k < nr; k++) {
            series_read(r, ids[k], "signatures", c, &S[k]);
            len = S[k].n < len ? S[k].n : len;
        }
        if (S && len != SIZE_MAX && len > 1) {
            if (nblocks == 0)
                scale = time_scale(S[0].t[len - 1], &unit);
            fprintf(f, "%s\"%s\" \"per hour\"\n", nblocks ? "\n\n" : "", lab);
            for (size_t k = 1; k < len; k++) {
                double sum = 0, dt_h = (double)(S[0].t[k] - S[0].t[k - 1]) / (double)SIM_HOUR;
                for (size_t j = 0; j < nr; j++)
                    sum += S[j].v[k] - S[j].v[k - 1];
                if (dt_h > 0)
                    fprintf(f, "%.10g %.10g\n", (double)S[0].t[k] * scale,
                            sum / (double)nr / dt_h);
            }
            nblocks++;
        }
        for (size_t k = 0; S && k < nr; k++)
            series_free(&S[k]);
        free(S);
    }
    sqlite3_finalize(st);
    fclose(f);
    free(ids);
    if (nblocks == 0) {
        fig_note(g, "Not drawn: the signatures metric has no per-signer series.");
        return;
    }
    char xl[64];
    snprintf(xl, sizeof xl, "simulated time (%s)", unit);
    if (write_vars(r, g, nblocks, xl, "signatures per hour", 0) == 0)
        run_gnuplot(r, g, "lines.gp");
}

/* ---- HTML ---- */

static void html_provenance(report *r, FILE *h)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT name, command_line, created_at, sweep_points, "
                           "replications FROM experiment WHERE experiment_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, r->exp);
    if (sqlite3_step(st) == SQLITE_ROW) {
        fputs("<table class=\"kv\">\n<tr><th>database</th><td>", h);
        html_text(h, r->dbpath);
        fprintf(h, "</td></tr>\n<tr><th>experiment</th><td>%lld: ", (long long)r->exp);
        html_text(h, (const char *)sqlite3_column_text(st, 0));
        fputs("</td></tr>\n<tr><th>command</th><td><code>", h);
        html_text(h, (const char *)sqlite3_column_text(st, 1));
        fputs("</code></td></tr>\n<tr><th>created</th><td>", h);
        html_text(h, (const char *)sqlite3_column_text(st, 2));
        fprintf(h, "</td></tr>\n<tr><th>planned</th><td>%lld sweep point(s) &times; "
                   "%lld replication(s)</td></tr>\n",
                (long long)sqlite3_column_int64(st, 3),
                (long long)sqlite3_column_int64(st, 4));
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(r->db,
                           "SELECT DISTINCT coalesce(scenario_path, '(none)'), "
                           "coalesce(scenario_sha256, ''), program_version FROM run "
                           "WHERE experiment_id = ?", -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, r->exp);
    while (sqlite3_step(st) == SQLITE_ROW) {
        fputs("<tr><th>scenario</th><td>", h);
        html_text(h, (const char *)sqlite3_column_text(st, 0));
        fputs(" <small>sha256 ", h);
        html_text(h, (const char *)sqlite3_column_text(st, 1));
        fputs("</small>, mtcsim ", h);
        html_text(h, (const char *)sqlite3_column_text(st, 2));
        fputs("</td></tr>\n", h);
    }
    sqlite3_finalize(st);
    fputs("</table>\n", h);
}

static void html_summary(report *r, FILE *h)
{
    sqlite3_stmt *st;
    fprintf(h, "<h2>Summary</h2>\n<p>Mean over completed replications &plusmn; "
               "half-width of the %.0f %% Student-t confidence interval "
               "(cohort: all). Counters and gauges: final value; histograms: "
               "mean and quantiles of the observations.</p>\n",
            100 * CI_LEVEL);
    /* The headline number first, computed from the scalars. */
    fputs("<table>\n<tr><th>sweep point</th><th>metric</th><th>statistic</th>"
          "<th>unit</th><th>n</th><th>mean</th><th>&plusmn; CI</th></tr>\n", h);
    if (have_metric(r, "handshake_full") && have_metric(r, "handshake_signatureless")) {
        for (size_t p = 0; p < r->npoints; p++) {
            double *x, m, lo, hi;
            size_t n = per_run_values(r, fraction_sql, r->points[p], &x);
            if (n) {
                band(x, n, &m, &lo, &hi);
                fputs("<tr class=\"head\"><td>", h);
                html_text(h, r->label[p]);
                fprintf(h, "</td><td>signatureless fraction</td><td>ratio</td><td></td>"
                           "<td>%zu</td><td>%.4f</td><td>%s%.4f</td></tr>\n",
                        n, m, n > 1 ? "" : "(n=1) ", n > 1 ? hi - m : 0.0);
            }
            free(x);
        }
    }
    size_t rows = 0;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT sweep_point, metric, statistic, unit, n, mean, "
                           "ci_half_width FROM summary WHERE experiment_id = ? AND "
                           "cohort = 'all' AND statistic IN ('value', 'mean', "
                           "'p50', 'p99') ORDER BY metric, statistic, sweep_point",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, r->exp);
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t pt = sqlite3_column_int64(st, 0);
            const char *lab = "?";
            for (size_t p = 0; p < r->npoints; p++)
                if (r->points[p] == pt)
                    lab = r->label[p];
            fputs("<tr><td>", h);
            html_text(h, lab);
            for (int c = 1; c <= 3; c++) {
                fputs("</td><td>", h);
                html_text(h, (const char *)sqlite3_column_text(st, c));
            }
            fprintf(h, "</td><td>%lld</td><td>%.6g</td><td>",
                    (long long)sqlite3_column_int64(st, 4), sqlite3_column_double(st, 5));
            if (sqlite3_column_type(st, 6) != SQLITE_NULL)
                fprintf(h, "%.4g", sqlite3_column_double(st, 6));
            fputs("</td></tr>\n", h);
            rows++;
        }
        sqlite3_finalize(st);
    }
    fputs("</table>\n", h);
    if (rows == 0)
        fputs("<p class=\"note\">No replication summaries are stored for this "
              "experiment (the run command stores them with "
              "sim_results_summarize after each sweep point).</p>\n", h);
}

static void html_runs(report *r, FILE *h)
{
    sqlite3_stmt *st;
    fputs("<h2>Runs</h2>\n<table>\n<tr><th>run</th><th>sweep point</th>"
          "<th>replication</th><th>seed</th><th>status</th><th>simulated</th>"
          "<th>events</th><th>wall (s)</th><th>started</th><th>error</th></tr>\n", h);
    if (sqlite3_prepare_v2(r->db,
                           "SELECT run_id, sweep_point, replication, seed, status, "
                           "sim_reached, events, wall_time_s, started_at, error "
                           "FROM run WHERE experiment_id = ? ORDER BY run_id",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, r->exp);
    size_t excluded = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *status = (const char *)sqlite3_column_text(st, 4);
        int ok = status && !strcmp(status, "completed");
        excluded += !ok;
        fprintf(h, "<tr%s><td>%lld</td><td>%lld</td><td>%lld</td><td>%llu</td><td>",
                ok ? "" : " class=\"bad\"", (long long)sqlite3_column_int64(st, 0),
                (long long)sqlite3_column_int64(st, 1),
                (long long)sqlite3_column_int64(st, 2),
                (unsigned long long)sqlite3_column_int64(st, 3));
        html_text(h, status);
        fputs("</td><td>", h);
        if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
            char t[48];
            sim_time reached = sqlite3_column_int64(st, 5);
            snprintf(t, sizeof t, "%.3f d", (double)reached / (double)SIM_DAY);
            fputs(t, h);
        }
        fprintf(h, "</td><td>%lld</td><td>", (long long)sqlite3_column_int64(st, 6));
        if (sqlite3_column_type(st, 7) != SQLITE_NULL)
            fprintf(h, "%.3f", sqlite3_column_double(st, 7));
        fputs("</td><td>", h);
        html_text(h, (const char *)sqlite3_column_text(st, 8));
        fputs("</td><td>", h);
        html_text(h, (const char *)sqlite3_column_text(st, 9));
        fputs("</td></tr>\n", h);
    }
    sqlite3_finalize(st);
    fputs("</table>\n", h);
    if (excluded)
        fprintf(h, "<p class=\"note\">%zu run(s) did not complete (interrupted, "
                   "failed, or still marked running) and are excluded from the "
                   "figures and summaries.</p>\n", excluded);
}

static int write_html(report *r)
{
    FILE *h = open_in(r, "", "index.html", "w");
    if (!h)
        return -1;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>mtcsim report</title>\n<style>\n"
          "body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}\n"
          "table{border-collapse:collapse;margin:1em 0;font-size:90%}\n"
          "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}\n"
          "tr.bad td{background:#fee} tr.head td{font-weight:bold}\n"
          "figure{margin:2em 0} img{max-width:100%;border:1px solid #eee}\n"
          ".note{color:#a40}\n</style>\n</head>\n<body>\n<h1>mtcsim report</h1>\n", h);
    html_provenance(r, h);
    fputs("<h2>Figures</h2>\n", h);
    for (size_t i = 0; i < r->nfigs; i++) {
        figure *g = &r->figs[i];
        fprintf(h, "<figure id=\"%s\">\n<h3>", g->name);
        html_text(h, g->title);
        fputs("</h3>\n", h);
        if (g->drawn)
            fprintf(h, "<a href=\"%s.svg\"><img src=\"%s.png\" alt=\"", g->name, g->name);
        if (g->drawn) {
            html_text(h, g->title);
            fprintf(h, "\"></a>\n");
        }
        fputs("<figcaption>", h);
        html_text(h, g->caption);
        if (g->drawn)
            fprintf(h, " <small>[<a href=\"%s.svg\">SVG</a>, <a href=\"data/%s.dat\">"
                       "data</a>]</small>", g->name, g->name);
        fputs("</figcaption>\n", h);
        if (g->note[0]) {
            fputs("<p class=\"note\">", h);
            html_text(h, g->note);
            fputs("</p>\n", h);
        }
        fputs("</figure>\n", h);
    }
    html_summary(r, h);
    html_runs(r, h);
    fputs("<p><small>Generated by mtcsim " MTCSIM_VERSION " (mtcsim report). "
          "Re-render a figure by hand in this directory with "
          "<code>gnuplot gp/NAME.vars.gp gp/SCRIPT.gp</code>.</small></p>\n"
          "</body>\n</html>\n", h);
    return fclose(h) == 0 ? 0 : -1;
}

/* ---- command ---- */

static int write_scripts(report *r)
{
    for (size_t i = 0; i < analysis_nscripts; i++) {
        FILE *f = open_in(r, "gp", analysis_scripts[i].name, "w");
        if (!f)
            return -1;
        fputs(analysis_scripts[i].text, f);
        if (fclose(f) != 0)
            return -1;
    }
    return 0;
}

int cmd_report(int argc, char **argv)
{
    const char *dbpath = NULL, *out = NULL;
    char outbuf[4096];
    int64_t exp = -1;
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
    r.db = sim_results_sqlite(res);
    r.dbpath = dbpath;
    r.out = out;
    r.quiet = quiet;
    int status = HOST_FAIL;
    sqlite3_stmt *st;
    if (exp < 0 && sqlite3_prepare_v2(r.db, "SELECT max(experiment_id) FROM experiment",
                                      -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
            exp = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    if (exp < 0) {
        fprintf(stderr, "mtcsim report: %s holds no experiment yet\n", dbpath);
        goto done;
    }
    r.exp = exp;
    if (load_points(&r) != 0 || r.npoints == 0) {
        fprintf(stderr, "mtcsim report: %s: experiment %lld %s\n", dbpath,
                (long long)exp, r.npoints == 0 ? "does not exist or has no runs"
                                               : "could not be read");
        status = r.npoints == 0 ? HOST_USAGE : HOST_FAIL;
        goto done;
    }
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/gp", out);
    int okdirs = mkdir_p(out) == 0 && mkdir_p(sub) == 0;
    snprintf(sub, sizeof sub, "%s/data", out);
    if (!okdirs || mkdir_p(sub) != 0 || write_scripts(&r) != 0) {
        fprintf(stderr, "mtcsim report: cannot write into %s: %s\n", out, strerror(errno));
        goto done;
    }

    fig_fraction(&r);
    static const cdf_line auth[] = {
        {"auth_bytes", 1, 1},
        {"auth_bytes_baseline_classical", 0, 0},
        {"auth_bytes_baseline_mldsa44", 0, 0},
    };
    fig_cdf(&r, "auth_bytes_cdf", "Authentication bytes per handshake",
            "Distribution (CDF) of the authentication bytes of each full "
            "handshake (trust-anchor extension + Certificate + CertificateVerify, "
            "as negotiated; metric auth_bytes), pooled over the completed "
            "replications, against the same handshakes priced with the classical "
            "ECDSA chain with SCTs and with its ML-DSA-44 equivalent. Read from "
            "log-binned histograms: the resolution is the bin width.",
            "bytes per handshake", auth, 3);
    if (r.npoints > 1 && r.xname[0]) {
        const char *nf[] = {"handshake_full", "handshake_signatureless"};
        fig_sweep(&r, "sweep_fraction", "Signatureless fraction across the sweep",
                  "Signatureless fraction of all full handshakes of a run",
                  "signatureless fraction", fraction_sql, nf, 2);
        const char *na[] = {"auth_bytes"};
        fig_sweep(&r, "sweep_auth_bytes", "Mean authentication bytes across the sweep",
                  "Mean authentication bytes per full handshake", "bytes",
                  "SELECT h.mean FROM histogram_v h WHERE h.metric = 'auth_bytes' "
                  "AND h.cohort_index = -1 AND h." RUNS_OF_POINT, na, 1);
    } else {
        figure *g = fig_new(&r, "sweep", "Sweep curves");
        snprintf(g->caption, sizeof g->caption,
                 "Summary metrics against the swept parameter.");
        fig_note(g, "Not drawn: this experiment is not a sweep (%zu sweep point%s%s).",
                 r.npoints, r.npoints == 1 ? "" : "s",
                 r.xname[0] ? "" : ", no parameter marked as swept");
    }
    static const cdf_line delays[] = {
        {"issuance_delay_standalone", 0, 0},
        {"issuance_delay_landmark", 1, 0},
    };
    if (!have_metric(&r, "issuance_delay_standalone") &&
        !have_metric(&r, "issuance_delay_landmark")) {
        figure *g = fig_new(&r, "issuance_delay_cdf", "Issuance delays");
        snprintf(g->caption, sizeof g->caption, "Issuance delays.");
        fig_note(g, "Not drawn: metrics issuance_delay_standalone and "
                    "issuance_delay_landmark are missing from this experiment's "
                    "completed runs.");
    } else {
        fig_cdf(&r, "issuance_delay_cdf", "Issuance delays",
                "Distribution (CDF) of the delay from a certificate request to "
                "the standalone certificate being ready (after cosigning) and to "
                "the landmark-relative certificate being ready (after the next "
                "landmark), all CAs, pooled over the completed replications.",
                "seconds", delays, 2);
    }
    fig_signers(&r);

    if (write_html(&r) != 0) {
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
