/*
 * report_gnuplot.c - gnuplot for `mtcsim report`: the embedded scripts and
 * per-figure settings written to DIR/gp/, and gnuplot run on them (fork +
 * exec, argv, never a shell). Separate: the one place a process is run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis_scripts.h"
#include "report_internal.h"

/* Text safe inside a gnuplot double-quoted column header. */
void report__gp_label(char *dst, size_t n, const char *src)
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

int report__write_vars(report *r, const figure *g, size_t nblocks,
                       const char *xlabel, const char *ylabel, int logx)
{
    char fn[96];
    snprintf(fn, sizeof fn, "%s.vars.gp", g->name);
    FILE *f = report__open_in(r, "gp", fn, "w");
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
int report__run_gnuplot(report *r, figure *g, const char *script)
{
    char vars[128], scr[128], log[128];
    snprintf(vars, sizeof vars, "gp/%s.vars.gp", g->name);
    snprintf(scr, sizeof scr, "gp/%s", script);
    snprintf(log, sizeof log, "gp/%s.log", g->name);
    /* the command that draws it again, in its settings */
    char fn[96];
    snprintf(fn, sizeof fn, "%s.vars.gp", g->name);
    FILE *v = report__open_in(r, "gp", fn, "a");
    if (v) {
        fprintf(v, "# drawn by: gnuplot %s %s\n", vars, scr);
        fclose(v);
    }
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
        report__fig_note(g, "gnuplot failed (see gp/%s.log). ", g->name);
        r->failures++;
        return -1;
    }
    g->drawn = 1;
    return 0;
}

int report__write_scripts(report *r)
{
    for (size_t i = 0; i < analysis_nscripts; i++) {
        FILE *f = report__open_in(r, "gp", analysis_scripts[i].name, "w");
        if (!f)
            return -1;
        fputs(analysis_scripts[i].text, f);
        if (fclose(f) != 0)
            return -1;
    }
    return 0;
}
