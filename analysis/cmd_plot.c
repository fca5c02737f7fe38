/*
 * cmd_plot.c - `mtcsim plot FILE.db METRIC`: any metric of an experiment,
 * drawn the way its kind calls for:
 *   - a histogram as its CDF (bins pooled over the completed replications),
 *     one line per sweep point and/or cohort;
 *   - a counter or gauge of a sweep as its final value against the swept
 *     parameter, mean and Student-t interval over replications (error
 *     bars; bars with error bars when the swept values are text);
 *   - a counter or gauge of one point as its series over time: a gauge's
 *     level, a counter's rate per hour per grid interval, mean line and
 *     replication band, the warm-up end and the sim:at actions marked.
 * `signatureless_fraction` (handshake_signatureless / handshake_full) is
 * accepted as a metric; `auth_bytes.p99` names a histogram's statistic.
 *
 * This file keeps the options and the choice of view; the numbers are read
 * in plot_data.c, drawn in plot_fig.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "plot_internal.h"
#include "rdb.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mtcsim plot FILE.db METRIC [--experiment N]\n"
        "                   [--cohort NAME | --by-cohort] [--point K | --by-point]\n"
        "                   [--as series|cdf|sweep|bars] [--stat mean|p50|p90|p99|count]\n"
        "                   [--out FILE.png|FILE.svg] [--print]\n\n"
        "Draws one metric of an experiment (default: the latest) with gnuplot:\n"
        "  histogram          CDF, pooled over replications (one line per point\n"
        "                     of a sweep, or per cohort with --by-cohort)\n"
        "  counter, gauge     in a sweep: final value against the swept parameter,\n"
        "                     mean and 95 %% Student-t interval over replications\n"
        "                     (bars when the swept values are text); at one point\n"
        "                     (--point K, or no sweep): the series over time with\n"
        "                     its replication band (counters: rate per hour)\n"
        "METRIC is a metric name (mtcsim ls FILE.db --metrics), or\n"
        "signatureless_fraction, or HISTOGRAM.STAT (e.g. auth_bytes.p99).\n\n"
        "  --experiment N   the experiment (mtcsim ls lists them)\n"
        "  --cohort NAME    one cohort of the breakdown (default: all)\n"
        "  --by-cohort      one line per cohort\n"
        "  --point K        only sweep point K\n"
        "  --by-point       one line per sweep point (series, CDFs)\n"
        "  --as VIEW        force a view: series, cdf, sweep, bars\n"
        "  --stat S         a histogram's statistic in sweep and bar views\n"
        "                   (default mean)\n"
        "  --out FILE       the image, .png or .svg (default: FILE-METRIC.png\n"
        "                   beside the database); FILE.gp beside it redraws it\n"
        "  --print          also print the numbers drawn (tab-separated)\n\n"
        "Axes use natural units (hours, days, kB, MB). Exit status 0, 1 when\n"
        "gnuplot fails, 2 for bad usage, an unknown metric or experiment.\n");
}

static int parse_view(const char *v)
{
    static const char *const names[] = {"auto", "series", "cdf", "sweep", "bars"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(v, names[i]))
            return i;
    return -1;
}

typedef struct plot_opts {
    const char *db, *metric, *cohort, *out, *stat;
    int64_t exp, point;
    int by_cohort, by_point, view, print;
} plot_opts;

static int parse(int argc, char **argv, plot_opts *o)
{
    o->exp = o->point = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_v = i + 1 < argc;
        if (!strcmp(a, "--experiment") && has_v) {
            if (rdb_parse_id("plot", a, argv[++i], &o->exp))
                return HOST_USAGE;
        } else if (!strcmp(a, "--point") && has_v) {
            if (rdb_parse_id("plot", a, argv[++i], &o->point))
                return HOST_USAGE;
        } else if (!strcmp(a, "--cohort") && has_v) {
            o->cohort = argv[++i];
        } else if (!strcmp(a, "--out") && has_v) {
            o->out = argv[++i];
        } else if (!strcmp(a, "--stat") && has_v) {
            o->stat = argv[++i];
        } else if (!strcmp(a, "--as") && has_v) {
            if ((o->view = parse_view(argv[++i])) < 0) {
                fprintf(stderr, "mtcsim plot: --as takes series, cdf, sweep or "
                                "bars, not '%s'\n", argv[i]);
                return HOST_USAGE;
            }
        } else if (!strcmp(a, "--by-cohort")) {
            o->by_cohort = 1;
        } else if (!strcmp(a, "--by-point")) {
            o->by_point = 1;
        } else if (!strcmp(a, "--print")) {
            o->print = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "mtcsim plot: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return HOST_USAGE;
        } else if (!o->db) {
            o->db = a;
        } else if (!o->metric) {
            o->metric = a;
        } else {
            fprintf(stderr, "mtcsim plot: unexpected argument '%s'\n", a);
            return HOST_USAGE;
        }
    }
    if (!o->db || !o->metric) {
        fprintf(stderr, "mtcsim plot: missing %s\n", !o->db ? "FILE.db" : "METRIC");
        usage(stderr);
        return HOST_USAGE;
    }
    if (o->cohort && o->by_cohort) {
        fprintf(stderr, "mtcsim plot: --cohort and --by-cohort exclude each other\n");
        return HOST_USAGE;
    }
    if (o->point >= 0 && o->by_point) {
        fprintf(stderr, "mtcsim plot: --point and --by-point exclude each other\n");
        return HOST_USAGE;
    }
    size_t ol = o->out ? strlen(o->out) : 0;
    if (o->out && (ol < 5 || (strcmp(o->out + ol - 4, ".png") &&
                              strcmp(o->out + ol - 4, ".svg")))) {
        fprintf(stderr, "mtcsim plot: --out %s: the image must end in .png or .svg\n",
                o->out);
        return HOST_USAGE;
    }
    static const char *const stats[] = {"mean", "p50", "p90", "p99", "count",
                                        "min", "max", "sum", NULL};
    int ok = !o->stat;
    for (int i = 0; !ok && stats[i]; i++)
        ok = !strcmp(o->stat, stats[i]);
    if (!ok) {
        fprintf(stderr, "mtcsim plot: --stat takes mean, p50, p90, p99, count, "
                        "min, max or sum, not '%s'\n", o->stat);
        return HOST_USAGE;
    }
    return HOST_OK;
}

/* Points and cohorts of the selection; HOST_OK or HOST_USAGE (printed). */
static int select_lines(plot_sel *s, const plot_opts *o)
{
    if (o->point >= 0) {
        size_t k = 0;
        while (k < s->r.npoints && s->r.points[k] != o->point)
            k++;
        if (k == s->r.npoints) {
            fprintf(stderr, "mtcsim plot: experiment %lld has no sweep point %lld "
                            "(it has 0..%zu)\n", (long long)s->r.exp,
                    (long long)o->point, s->r.npoints - 1);
            return HOST_USAGE;
        }
        s->points[s->npoints++] = k;
    } else {
        for (size_t p = 0; p < s->r.npoints && s->npoints < PLOT_MAX_POINTS; p++)
            s->points[s->npoints++] = p;
    }
    char (*all)[64] = calloc(PLOT_MAX_LINES, 64);
    size_t n = all ? plot__cohorts(s, all, PLOT_MAX_LINES) : 0;
    if (o->cohort) {
        int found = !strcmp(o->cohort, "all");
        for (size_t i = 0; i < n; i++)
            found |= !strcmp(all[i], o->cohort);
        if (!found) {
            fprintf(stderr, "mtcsim plot: metric %s has no cohort '%s' (cohorts: all",
                    s->metric, o->cohort);
            for (size_t i = 0; i < n; i++)
                fprintf(stderr, ", %s", all[i]);
            fprintf(stderr, ")\n");
            free(all);
            return HOST_USAGE;
        }
        snprintf(s->cohorts[s->ncohorts++], 64, "%s", o->cohort);
    } else if (o->by_cohort && n) {
        for (size_t i = 0; i < n; i++)
            snprintf(s->cohorts[s->ncohorts++], 64, "%s", all[i]);
    } else {
        if (o->by_cohort)
            fprintf(stderr, "mtcsim plot: note: %s has no breakdown by cohort; "
                            "drawing the total\n", s->metric);
        snprintf(s->cohorts[s->ncohorts++], 64, "all");
    }
    free(all);
    return HOST_OK;
}

/* The view the metric's kind calls for, unless --as chose one. */
static int choose_view(const plot_sel *s, const plot_opts *o)
{
    if (o->view != VIEW_AUTO)
        return o->view;
    int sweep = s->r.npoints > 1 && o->point < 0 && !o->by_point;
    if (!strcmp(s->kind, "histogram"))
        return sweep && s->stat[0] ? VIEW_SWEEP : VIEW_CDF;
    if (sweep)
        return VIEW_SWEEP;
    return s->has_series ? VIEW_SERIES : VIEW_BARS;
}

int cmd_plot(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return HOST_OK;
        }
    plot_opts o;
    memset(&o, 0, sizeof o);
    if (parse(argc, argv, &o) != HOST_OK)
        return HOST_USAGE;
    sim_results *res = NULL;
    if (rdb_open("plot", o.db, &res) != HOST_OK)
        return HOST_USAGE;
    plot_sel *s = calloc(1, sizeof *s);
    plot_fig *f = calloc(1, sizeof *f);
    int status = HOST_USAGE;
    char outbuf[4400];
    if (!s || !f)
        goto done;
    s->r.db = res;
    s->r.dbpath = o.db;
    s->r.exp = o.exp >= 0 ? o.exp : rdb_latest_experiment(s->r.db);
    if (s->r.exp < 0 || !rdb_experiment_exists(s->r.db, s->r.exp)) {
        fprintf(stderr, "mtcsim plot: %s %s\n", o.db,
                o.exp >= 0 ? "has no such experiment" : "holds no experiment yet");
        goto done;
    }
    if (report__load_points(&s->r) != 0 || s->r.npoints == 0) {
        fprintf(stderr, "mtcsim plot: %s: experiment %lld has no runs\n", o.db,
                (long long)s->r.exp);
        goto done;
    }
    snprintf(s->metric, sizeof s->metric, "%s", o.metric);
    if (plot__resolve(s, "plot") != HOST_OK)
        goto done;
    if (o.stat)
        snprintf(s->stat, sizeof s->stat, "%s", o.stat);
    if (select_lines(s, &o) != HOST_OK)
        goto done;
    int view = choose_view(s, &o);
    if (view == VIEW_SERIES && !s->has_series && strcmp(s->kind, "derived")) {
        fprintf(stderr, "mtcsim plot: metric %s has no series (recorded without "
                        "a grid); try --as sweep or --as bars\n", s->metric);
        goto done;
    }
    if (view == VIEW_CDF && strcmp(s->kind, "histogram")) {
        fprintf(stderr, "mtcsim plot: --as cdf needs a histogram; %s is a %s\n",
                s->metric, s->kind);
        goto done;
    }
    if (view == VIEW_BARS)
        s->r.x_numeric = 0;
    char stat[200];
    plot__stat_name(s, stat, sizeof stat);
    snprintf(f->title, sizeof f->title, "%s - experiment %lld of %s",
             view == VIEW_SWEEP || view == VIEW_BARS ? stat : s->metric,
             (long long)s->r.exp, o.db);
    /* series and CDFs: one line per point and cohort, at most 16 */
    if ((view == VIEW_SERIES || view == VIEW_CDF) &&
        s->npoints * s->ncohorts > PLOT_MAX_LINES) {
        size_t keep = PLOT_MAX_LINES / s->ncohorts ? PLOT_MAX_LINES / s->ncohorts : 1;
        fprintf(stderr, "mtcsim plot: note: only the first %zu of %zu sweep "
                        "points are drawn (use --point K)\n", keep, s->npoints);
        s->npoints = keep;
    }
    size_t drawn = view == VIEW_SERIES ? plot__series(s, f)
                   : view == VIEW_CDF  ? plot__cdf(s, f)
                                       : plot__sweep(s, f);
    if (drawn == 0 || plot__prune(f) == 0 || plot__dedupe(f) == 0) {
        fprintf(stderr, "mtcsim plot: nothing to draw: experiment %lld has no "
                        "completed run with %s\n", (long long)s->r.exp, stat);
        status = HOST_FAIL;
        goto done;
    }
    plot__finish(s, f, view);
    if (o.print)
        plot__print(f, stdout);
    if (!o.out) {
        size_t n = strlen(o.db);
        if (n > 3 && !strcmp(o.db + n - 3, ".db"))
            n -= 3;
        snprintf(outbuf, sizeof outbuf, "%.*s-%s.png", (int)n, o.db, o.metric);
        o.out = outbuf;
    }
    status = plot__draw(f, o.out, "plot") == 0 ? HOST_OK : HOST_FAIL;
    if (status == HOST_OK)
        printf("%s\n", o.out);
done:
    if (f)
        plot__fig_free(f);
    if (s) {
        free(s->r.points);
        free(s->r.label);
        free(s->r.xval);
    }
    free(s);
    free(f);
    sim_results_close(res);
    return status;
}
