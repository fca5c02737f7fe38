/*
 * plot_fig.c - a figure of `mtcsim plot` / `compare` and its drawing: lines
 * of rows, natural units, the numbers as text, and one self-contained
 * gnuplot script (data inline as datablocks) run with fork + exec, never a
 * shell. Separate from the database reads (plot_data.c): it knows nothing
 * of metrics, only of lines.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot_internal.h"

plot_line *plot__line(plot_fig *f, const char *fmt, ...)
{
    if (f->nlines >= PLOT_MAX_LINES)
        return NULL;
    plot_line *l = &f->lines[f->nlines++];
    memset(l, 0, sizeof *l);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->title, sizeof l->title, fmt, ap);
    va_end(ap);
    return l;
}

int plot__row(plot_line *l, double x, double y, double lo, double hi)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        plot_row *r = realloc(l->rows, cap * sizeof *r);
        if (!r)
            return -1;
        l->rows = r;
        l->cap = cap;
    }
    l->rows[l->n++] = (plot_row){x, y, lo, hi};
    return 0;
}

size_t plot__prune(plot_fig *f)
{
    size_t k = 0;
    for (size_t i = 0; i < f->nlines; i++) {
        if (f->lines[i].n == 0) {
            free(f->lines[i].rows);
            continue;
        }
        f->lines[k++] = f->lines[i];
    }
    f->nlines = k;
    return k;
}

static int same_rows(const plot_line *a, const plot_line *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t k = 0; k < a->n; k++) {
        const plot_row *x = &a->rows[k], *y = &b->rows[k];
        if (!(x->x == y->x && x->y == y->y && x->lo == y->lo && x->hi == y->hi))
            return 0;
    }
    return 1;
}

/* Why: a reader cannot tell two entries of one title apart, and a line
 * drawn twice hides nothing but doubles its legend. */
size_t plot__dedupe(plot_fig *f)
{
    size_t k = 0;
    for (size_t i = 0; i < f->nlines; i++) {
        plot_line *l = &f->lines[i];
        int drop = 0;
        unsigned same_title = 0;
        for (size_t j = 0; j < k && !drop; j++) {
            if (strcmp(f->lines[j].title, l->title))
                continue;
            drop = same_rows(&f->lines[j], l);
            same_title++;
        }
        if (drop) {
            free(l->rows);
            continue;
        }
        if (same_title) {
            /* a suffix that is itself taken moves on to the next number */
            char base[200];
            snprintf(base, sizeof base, "%s", l->title);
            for (unsigned n = same_title + 1;; n++) {
                snprintf(l->title, sizeof l->title, "%.180s (%u)", base, n);
                size_t j = 0;
                while (j < k && strcmp(f->lines[j].title, l->title))
                    j++;
                if (j == k)
                    break;
            }
        }
        f->lines[k++] = *l;
    }
    f->nlines = k;
    return k;
}

void plot__fig_free(plot_fig *f)
{
    for (size_t i = 0; i < f->nlines; i++) {
        free(f->lines[i].rows);
        f->lines[i].rows = NULL;
        f->lines[i].n = f->lines[i].cap = 0;
    }
}

/* Why natural units: an axis of 1e5 seconds or 3e6 bytes makes the reader
 * divide; hours and megabytes are what a researcher reads and writes. */
double plot__unit_scale(const char *unit, double mag, const char **label)
{
    mag = fabs(mag);
    if (!strcmp(unit, "s") || !strcmp(unit, "us")) {
        double s = !strcmp(unit, "us") ? 1e-6 : 1.0;
        double v = mag * s;
        if (v >= 2 * 86400.0) {
            *label = "days";
            return s / 86400.0;
        }
        if (v >= 2 * 3600.0) {
            *label = "hours";
            return s / 3600.0;
        }
        if (v >= 120.0) {
            *label = "minutes";
            return s / 60.0;
        }
        *label = "s";
        return s;
    }
    if (!strcmp(unit, "bytes")) {
        if (mag >= 2e9) {
            *label = "GB";
            return 1e-9;
        }
        if (mag >= 2e6) {
            *label = "MB";
            return 1e-6;
        }
        if (mag >= 2e4) {
            *label = "kB";
            return 1e-3;
        }
    }
    *label = unit;
    return 1.0;
}

void plot__print(const plot_fig *f, FILE *out)
{
    fprintf(out, "# %s\n# x: %s; y: %s\n", f->title, f->xlabel, f->ylabel);
    for (size_t i = 0; i < f->nlines; i++) {
        const plot_line *l = &f->lines[i];
        fprintf(out, "\n# %s\n", l->title);
        for (size_t k = 0; k < l->n; k++) {
            const plot_row *r = &l->rows[k];
            if (f->style == PLOT_BARS && r->x >= 0 && (size_t)r->x < f->nxtics)
                fprintf(out, "%s\t", f->xtics[(size_t)r->x]);
            fprintf(out, "%.10g\t%.10g\t%.10g\t%.10g\n", r->x, r->y, r->lo, r->hi);
        }
    }
}

/* A gnuplot single-quoted string ('' escapes a quote; no control bytes). */
static void gp_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("''", f);
        else if ((unsigned char)*s >= 32)
            fputc(*s, f);
    }
    fputc('\'', f);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int has_ext(const char *p, const char *ext)
{
    size_t n = strlen(p), e = strlen(ext);
    return n > e && !strcmp(p + n - e, ext);
}

void plot__time_tics(FILE *g)
{
    /* a log axis of seconds, labelled as people say durations */
    fputs("set xtics (\"1 ms\" 0.001, \"10 ms\" 0.01, \"0.1 s\" 0.1, \"1 s\" 1, "
          "\"10 s\" 10, \"1 min\" 60, \"10 min\" 600, \"1 h\" 3600, \"6 h\" 21600, "
          "\"1 d\" 86400, \"7 d\" 604800, \"30 d\" 2592000, \"1 y\" 31536000)\n", g);
}

void plot__write_markers(FILE *g, const plot_fig *f)
{
    if (f->xmark > 0)
        fprintf(g, "set arrow from %.10g, graph 0 to %.10g, graph 1 nohead dt 3 "
                   "lc rgb '#999999'\nset label 'warm-up end' at %.10g, graph 0.02 "
                   "left offset 0.5,0 textcolor rgb '#777777' font ',8'\n",
                f->xmark, f->xmark, f->xmark);
    for (size_t i = 0; i < f->nmarkers; i++) {
        fprintf(g, "set arrow from %.10g, graph 0 to %.10g, graph 1 nohead dt 2 "
                   "lc rgb '#cc6600'\nset label ", f->markers[i].x, f->markers[i].x);
        gp_str(g, f->markers[i].label);
        fprintf(g, " at %.10g, graph 0.97 right rotate by 90 offset -0.4,0 "
                   "textcolor rgb '#cc6600' font ',8'\n", f->markers[i].x);
    }
}

static void write_script(FILE *g, const plot_fig *f, const char *out)
{
    fprintf(g, "# written by mtcsim: `gnuplot %s.gp` in this directory redraws %s\n",
            base_name(out), base_name(out));
    for (size_t i = 0; i < f->nlines; i++) {
        fprintf(g, "$d%zu << EOD\n", i);
        for (size_t k = 0; k < f->lines[i].n; k++) {
            const plot_row *r = &f->lines[i].rows[k];
            if (isfinite(r->x) && isfinite(r->y))
                fprintf(g, "%.10g %.10g %.10g %.10g\n", r->x, r->y,
                        isfinite(r->lo) ? r->lo : r->y,
                        isfinite(r->hi) ? r->hi : r->y);
        }
        fputs("EOD\n", g);
    }
    if (has_ext(out, ".svg"))
        fputs("set terminal svg size 960,600 noenhanced dynamic font 'sans,11' "
              "background '#ffffff'\n", g);
    else
        fputs("if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
              "    set terminal pngcairo size 960,600 noenhanced font ',11'\n"
              "} else {\n    set terminal png size 960,600 noenhanced\n}\n", g);
    fputs("set output ", g);
    gp_str(g, base_name(out));
    fputs("\nset grid lc rgb '#dddddd'\nset key below\nset title ", g);
    gp_str(g, f->title);
    fputs("\nset xlabel ", g);
    gp_str(g, f->xlabel);
    fputs("\nset ylabel ", g);
    gp_str(g, f->ylabel);
    fputs("\n", g);
    if (f->logx)
        fputs("set logscale x\n", g);
    if (f->logx && f->time_tics)
        plot__time_tics(g);
    /* Autoscaled y with a margin: an effect of a few tenths of a percent
     * stays visible (a fixed [0:1] would flatten it). */
    fputs("set offsets graph 0.02, graph 0.02, graph 0.06, graph 0.06\n", g);
    if (f->ymin0 && f->style != PLOT_BARS)
        fputs("set yrange [0:*]\n", g);
    plot__write_markers(g, f);
    if (f->style == PLOT_BARS) {
        double w = 0.8 / (double)(f->nlines ? f->nlines : 1);
        fprintf(g, "set boxwidth %.6g\nset style fill solid 0.45 border -1\n"
                   "set yrange [0:*]\nset xrange [-0.6:%.6g]\nset xtics (", w,
                (double)f->nxtics - 0.4);
        for (size_t i = 0; i < f->nxtics; i++) {
            fputs(i ? ", " : "", g);
            gp_str(g, f->xtics[i]);
            fprintf(g, " %zu", i);
        }
        fputs(")\n", g);
        if (f->nxtics > 4)
            fputs("set xtics rotate by -30\n", g);
    }
    if (f->style == PLOT_BAND)
        fputs("set style fill transparent solid 0.18 noborder\n", g);
    fputs("plot ", g);
    for (size_t i = 0; i < f->nlines; i++) {
        const char *sep = i ? ", \\\n     " : "";
        size_t c = i + 1;
        switch (f->style) {
        case PLOT_BAND:
            fprintf(g, "%s$d%zu using 1:3:4 with filledcurves lc %zu notitle, "
                       "$d%zu using 1:2 with lines lw 2 lc %zu title ", sep, i, c, i, c);
            break;
        case PLOT_LINES:
            fprintf(g, "%s$d%zu using 1:2 with lines lw 2 lc %zu title ", sep, i, c);
            break;
        case PLOT_ERRORBARS:
            fprintf(g, "%s$d%zu using 1:2:3:4 with yerrorlines lw 2 pt 7 lc %zu title ",
                    sep, i, c);
            break;
        default: {
            double w = 0.8 / (double)f->nlines;
            double off = ((double)i - ((double)f->nlines - 1) / 2) * w;
            fprintf(g, "%s$d%zu using ($1%+.6g):2:3:4 with yerrorbars lc rgb '#333333' "
                       "pt -1 notitle, $d%zu using ($1%+.6g):2 with boxes lc %zu title ",
                    sep, i, off, i, off, c);
        }
        }
        gp_str(g, f->lines[i].title);
    }
    fputs("\nunset output\n", g);
}

int plot__draw(const plot_fig *f, const char *out, const char *cmd)
{
    if (!has_ext(out, ".png") && !has_ext(out, ".svg")) {
        fprintf(stderr, "mtcsim %s: --out %s: the image must end in .png or .svg\n",
                cmd, out);
        return -1;
    }
    char gp[4200], dir[4096];
    snprintf(gp, sizeof gp, "%s.gp", out);
    snprintf(dir, sizeof dir, "%s", out);
    char *sl = strrchr(dir, '/');
    if (sl)
        *(sl == dir ? sl + 1 : sl) = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    FILE *g = fopen(gp, "w");
    if (!g) {
        fprintf(stderr, "mtcsim %s: cannot write %s: %s\n", cmd, gp, strerror(errno));
        return -1;
    }
    write_script(g, f, out);
    if (fclose(g) != 0) {
        fprintf(stderr, "mtcsim %s: cannot write %s: %s\n", cmd, gp, strerror(errno));
        return -1;
    }
    remove(out);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        char script[4200];
        snprintf(script, sizeof script, "%s.gp", base_name(out));
        char *argv[] = {"gnuplot", script, NULL};
        execvp("gnuplot", argv);
        fprintf(stderr, "cannot run gnuplot: %s\n", strerror(errno));
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    struct stat sb;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || stat(out, &sb) != 0 ||
        sb.st_size == 0) {
        fprintf(stderr, "mtcsim %s: gnuplot failed on %s%s\n", cmd, gp,
                WIFEXITED(st) && WEXITSTATUS(st) == 127
                    ? " (is gnuplot installed? `make deps` installs gnuplot-nox)"
                    : "");
        return -1;
    }
    return 0;
}
