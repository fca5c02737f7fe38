/*
 * run_options.c - `mtcsim run`'s command line: the --help text and the
 * parsing and checking of every option into a run_opts. Apart from the run
 * itself because it touches nothing but argv, the scenario path and --out.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "run_internal.h"
#include "mtc/error.h"

#define DEFAULT_MAX_INSTRUCTIONS 10000000000ULL   /* ~10-30 s of Lua */
#define DEFAULT_MAX_MEMORY_MB 4096

void run_usage(FILE *f)
{
    fprintf(f,
        "usage: mtcsim run SCENARIO.lua [--set NAME=VALUE ...] [--sweep NAME=V1,...]\n"
        "                  [--seed N] [--replications R] [--out FILE.db] [--quiet]\n"
        "                  [--unsafe]\n"
        "                  [--max-instructions N] [--max-memory MIB] [--params]\n"
        "                  [--summary short|all] [--cohort NAME | --by-cohort]\n"
        "                  [--vs-cohort REF]\n"
        "                  [-j N] [--strict] [--traceback]\n"
        "       mtcsim run SCENARIO.lua --resume FILE.db[:EXP] [the experiment's\n"
        "                  --set, --seed, --replications] [other options]\n\n"
        "Runs a scenario: every sweep point it declares times R replications,\n"
        "each a fresh world, recorded in FILE.db (runs, every effective\n"
        "parameter, metrics), then prints a summary table.\n\n"
        "  --set NAME=VALUE    override the scenario parameter NAME (declared with\n"
        "                      param); VALUE is a number, a Lua expression such as\n"
        "                      hours(2), true/false, or text. Fixes a swept NAME\n"
        "                      (it stays an axis, of that one value).\n"
        "  --set KIND.ENTITY.PARAM=VALUE  an entity's parameter, whatever the\n"
        "                      scenario gives it: browsers.enterprise.rtt=\n"
        "                      'lognormal{median=30,sigma=0.5}'; ENTITY may be *\n"
        "                      (every entity of KIND), *.PARAM is every entity\n"
        "                      that has PARAM, world.PARAM the world's\n"
        "  --sweep NAME=V1,V2,...  sweep the scenario parameter NAME over these\n"
        "                      values (replacing its declared sweep, if any)\n"
        "  --seed N            random seed (default 1); replication r uses (N, r)\n"
        "  --replications R   runs per sweep point (default: the scenario's, or 1)\n"
        "  --out FILE.db       results database (created or appended); the\n"
        "                      sandbox lets the scenario write files only beside it\n"
        "  --quiet             no progress line and no summary table\n"
        "  --summary all       the summary lists every metric (default: headline\n"
        "                      figures: signatureless fraction, bytes, delays...)\n"
        "  --cohort NAME       the summary of one browser cohort (its handshakes,\n"
        "                      bytes, fractions) instead of the total\n"
        "  --by-cohort         the summary of the total, then of each cohort\n"
        "  --vs-cohort REF     with --cohort or --by-cohort: after each cohort's\n"
        "                      table, its difference to cohort REF within each run,\n"
        "                      mean and Student-t interval over the replications\n"
        "  --unsafe            full Lua (io, os, package, debug), no limits\n"
        "  --max-instructions N  sandbox limit per scenario entry (default 1e10)\n"
        "  --max-memory MIB    sandbox limit on the scenario's Lua memory (default 4096)\n"
        "  --params            list the scenario's parameters and sweeps, run nothing\n"
        "  --profile           after each run, its CPU time by phase (setup, warm-up,\n"
        "                      window, finish, results) and part (log, signing,\n"
        "                      verification, update channel, handshakes, metrics,\n"
        "                      ...), measured with the thread's CPU clock (-j 1;\n"
        "                      under mpirun, summed over the ranks)\n"
        "  --share-warmup      runs of one replication whose sweep points differ only\n"
        "                      at or after the warm-up end (sim:at, on_finish)\n"
        "                      share one warm-up: run once, continued by a forked\n"
        "                      process per run; results bit-identical (README)\n"
        "  -j N, --jobs N      N local worker processes run the runs (sweep points x\n"
        "                      replications) side by side; the database rows are\n"
        "                      those of -j 1 (wall-clock and measured CPU aside)\n"
        "  --resume FILE.db[:EXP]  finish experiment EXP (default: the latest):\n"
        "                      rerun its missing, failed, interrupted and abandoned\n"
        "                      runs, with the options of this command line (nothing\n"
        "                      is taken from the database); refused when they or\n"
        "                      the scenario's files differ from the experiment's\n"
        "  --accept-changes    resume even so (the experiment then mixes the two)\n"
        "  --strict            implausible parameter values (a unit slip such as\n"
        "                      update_interval = 5) are errors, not warnings\n"
        "  --traceback         after a scenario error, Lua's stack traceback too\n"
        "                      (the message alone names the file:line)\n"
        "  --spread-runs       under mpirun: give whole runs (sweep points x\n"
        "                      replications) to ranks in turn, instead of sharding\n"
        "                      every run's browsers over all ranks (the default)\n\n"
        "Exit status: 0 success, 1 a run failed or was interrupted, 2 bad usage or\n"
        "a scenario error found before the simulation. See docs/scenarios.md.\n");
}

/* Parsing messages go to errs; NULL: none (a command line read back from a
 * database is parsed only to compare it, and its text is not printed raw). */
static void perr(FILE *errs, const char *fmt, ...)
{
    if (!errs)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(errs, fmt, ap);
    va_end(ap);
}

static int parse_u64(FILE *errs, const char *opt, const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-') {
        perr(errs, "mtcsim run: %s '%s' is not a non-negative integer\n", opt, v);
        return -1;
    }
    *out = x;
    return 0;
}

/* Quoted for a POSIX shell where needed, so that the experiment's
 * command_line both reads as typed and splits back into the same argv
 * (--resume does, run_resume.c). */
void run_format_cmdline(int argc, char **argv, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "mtcsim");
    for (int i = 0; i < argc && k + 4 < n; i++) {
        const char *a = argv[i];
        int plain = *a != '\0';
        for (const char *c = a; *c && plain; c++)
            plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                           "0123456789-_=.,/:+@%", *c) != NULL;
        buf[k++] = ' ';
        if (plain) {
            k += (size_t)snprintf(buf + k, n - k, "%s", a);
        } else {
            buf[k++] = '\'';
            for (const char *c = a; *c && k + 5 < n; c++) {
                if (*c == '\'') {
                    memcpy(buf + k, "'\\''", 4);
                    k += 4;
                } else {
                    buf[k++] = *c;
                }
            }
            buf[k++] = '\'';
        }
        if (k >= n)
            k = n - 1;
        buf[k] = '\0';
    }
}

int run_parse_only(int argc, char **argv, run_opts *o, FILE *errs)
{
    o->seed = 1;
    o->reps = -1;
    o->max_instr = DEFAULT_MAX_INSTRUCTIONS;
    o->max_mem_mb = DEFAULT_MAX_MEMORY_MB;
    o->set_name = calloc((size_t)argc, sizeof *o->set_name);
    o->set_value = calloc((size_t)argc, sizeof *o->set_value);
    o->sweep_name = calloc((size_t)argc, sizeof *o->sweep_name);
    o->sweep_value = calloc((size_t)argc, sizeof *o->sweep_value);
    run_format_cmdline(argc, argv, o->cmdline, sizeof o->cmdline);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_v = i + 1 < argc;
        if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--unsafe")) {
            o->unsafe = 1;
        } else if (!strcmp(a, "--params")) {
            o->list_params = 1;
        } else if (!strcmp(a, "--spread-runs")) {
            o->spread = 1;
        } else if (!strcmp(a, "--profile")) {
            o->profile = 1;
        } else if (!strcmp(a, "--share-warmup")) {
            o->share_warmup = 1;
        } else if (!strcmp(a, "--strict")) {
            o->strict = 1;
        } else if (!strcmp(a, "--traceback")) {
            o->traceback = 1;
        } else if (!strcmp(a, "--accept-changes")) {
            o->accept_changes = 1;
        } else if ((!strcmp(a, "-j") || !strcmp(a, "--jobs")) && has_v) {
            uint64_t j;
            if (parse_u64(errs, a, argv[++i], &j) || j < 1 || j > 1024) {
                perr(errs, "mtcsim run: %s must be 1..1024\n", a);
                return HOST_USAGE;
            }
            o->jobs = (int)j;
        } else if (!strncmp(a, "-j", 2) && a[2] >= '0' && a[2] <= '9') {
            uint64_t j;
            if (parse_u64(errs, "-j", a + 2, &j) || j < 1 || j > 1024) {
                perr(errs, "mtcsim run: -j must be 1..1024\n");
                return HOST_USAGE;
            }
            o->jobs = (int)j;
        } else if (!strcmp(a, "--resume") && has_v) {
            o->resume = argv[++i];
        } else if (!strcmp(a, "--summary") && has_v &&
                   (!strcmp(argv[i + 1], "all") || !strcmp(argv[i + 1], "short"))) {
            o->summary_all = !strcmp(argv[++i], "all");
        } else if (!strcmp(a, "--summary")) {
            perr(errs, "mtcsim run: --summary takes 'short' or 'all'\n");
            return HOST_USAGE;
        } else if (!strcmp(a, "--cohort") && has_v) {
            o->summary_cohort = argv[++i];
        } else if (!strcmp(a, "--by-cohort")) {
            o->by_cohort = 1;
        } else if (!strcmp(a, "--vs-cohort") && has_v) {
            o->vs_cohort = argv[++i];
        } else if (!strcmp(a, "--sweep")) {
            if (!has_v) {
                perr(errs, "mtcsim run: --sweep needs NAME=V1,V2,...\n");
                return HOST_USAGE;
            }
            char *v = argv[++i], *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1]) {
                perr(errs, "mtcsim run: --sweep '%s': expected NAME=V1,V2,...\n", v);
                return HOST_USAGE;
            }
            *eq = 0;
            if (strpbrk(v, ".*")) {
                perr(errs, "mtcsim run: --sweep %s: a sweep is of a scenario "
                           "parameter (declared with param); an entity's "
                           "parameter is set with --set KIND.NAME.PARAM=VALUE\n", v);
                return HOST_USAGE;
            }
            for (size_t s = 0; s < o->nsweeps; s++)
                if (!strcmp(o->sweep_name[s], v)) {
                    perr(errs, "mtcsim run: --sweep %s given twice\n", v);
                    return HOST_USAGE;
                }
            o->sweep_name[o->nsweeps] = v;
            o->sweep_value[o->nsweeps++] = eq + 1;
        } else if (!strcmp(a, "--set") || !strcmp(a, "--seed") ||
                   !strcmp(a, "--replications") || !strcmp(a, "--out") ||
                   !strcmp(a, "--max-instructions") ||
                   !strcmp(a, "--max-memory")) {
            if (!has_v) {
                perr(errs, "mtcsim run: %s needs a value\n", a);
                return HOST_USAGE;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--set")) {
                char *eq = strchr(v, '=');
                if (!eq || eq == v) {
                    perr(errs, "mtcsim run: --set '%s': expected NAME=VALUE\n", v);
                    return HOST_USAGE;
                }
                *eq = 0;
                for (size_t s = 0; s < o->nsets; s++)
                    if (!strcmp(o->set_name[s], v)) {
                        perr(errs, "mtcsim run: --set %s given twice\n", v);
                        return HOST_USAGE;
                    }
                o->set_name[o->nsets] = v;
                o->set_value[o->nsets++] = eq + 1;
            } else if (!strcmp(a, "--seed")) {
                if (parse_u64(errs, a, v, &o->seed))
                    return HOST_USAGE;
            } else if (!strcmp(a, "--replications")) {
                uint64_t r;
                if (parse_u64(errs, a, v, &r) || r < 1 || r > 100000) {
                    perr(errs, "mtcsim run: --replications must be 1..100000\n");
                    return HOST_USAGE;
                }
                o->reps = (long)r;
            } else if (!strcmp(a, "--max-memory")) {
                if (parse_u64(errs, a, v, &o->max_mem_mb) || o->max_mem_mb < 16 ||
                    o->max_mem_mb > ((uint64_t)1 << 30)) {
                    perr(errs, "mtcsim run: --max-memory must be >= 16 (MiB)\n");
                    return HOST_USAGE;
                }
            } else if (!strcmp(a, "--max-instructions")) {
                if (parse_u64(errs, a, v, &o->max_instr) || o->max_instr < 100000) {
                    perr(errs, "mtcsim run: --max-instructions must be "
                                    ">= 100000\n");
                    return HOST_USAGE;
                }
            } else {
                o->out = v;
            }
        } else if (a[0] == '-' && a[1]) {
            perr(errs, "mtcsim run: unknown option '%s'\n", a);
            return HOST_USAGE;
        } else if (!o->scenario) {
            o->scenario = a;
        } else {
            perr(errs, "mtcsim run: unexpected argument '%s'\n", a);
            return HOST_USAGE;
        }
    }
    for (size_t s = 0; s < o->nsweeps; s++)
        for (size_t k = 0; k < o->nsets; k++)
            if (!strcmp(o->sweep_name[s], o->set_name[k])) {
                perr(errs, "mtcsim run: %s is given both --set and --sweep: "
                           "one value is --sweep %s=V, or --set alone\n",
                     o->sweep_name[s], o->sweep_name[s]);
                return HOST_USAGE;
            }
    if (o->profile && o->share_warmup) {
        perr(errs, "mtcsim run: --profile measures each run's own CPU time, "
                   "and under --share-warmup runs share one warm-up's: use "
                   "one or the other\n");
        return HOST_USAGE;
    }
    if (o->profile && o->jobs > 1) {
        perr(errs, "mtcsim run: --profile measures the runs of this "
                   "process: use it without -j\n");
        return HOST_USAGE;
    }
    return HOST_OK;
}

int run_hold_from_env(const char *value, run_opts *o)
{
    o->hold_rank = 0;
    o->hold_run = 0;
    if (!value || !*value)
        return HOST_OK;
    char *end = NULL;
    errno = 0;
    long rank = strtol(value, &end, 10);
    if (errno || end == value || *end != ':' || rank < 0 || rank > 1000000)
        return HOST_USAGE;
    const char *n = end + 1;
    errno = 0;
    long run = strtol(n, &end, 10);
    if (errno || end == n || *end || run < 1)
        return HOST_USAGE;
    o->hold_rank = (int)rank;
    o->hold_run = run;
    return HOST_OK;
}

int run_parse_args(int argc, char **argv, run_opts *o)
{
    int rc = run_parse_only(argc, argv, o, stderr);
    if (rc != HOST_OK || o->resume)
        return rc;      /* --resume: checked with its database (run_resume.c) */
    return run_check_args(o);
}


int run_check_args(run_opts *o)
{
    if (o->summary_cohort && o->by_cohort) {
        fprintf(stderr, "mtcsim run: --cohort and --by-cohort exclude each other\n");
        return HOST_USAGE;
    }
    if (o->vs_cohort && !o->summary_cohort && !o->by_cohort) {
        fprintf(stderr, "mtcsim run: --vs-cohort REF needs --cohort NAME or "
                        "--by-cohort (the cohorts set against REF)\n");
        return HOST_USAGE;
    }
    if (!o->scenario) {
        fprintf(stderr, "mtcsim run: no scenario given\n");
        run_usage(stderr);
        return HOST_USAGE;
    }
    if (access(o->scenario, R_OK)) {
        fprintf(stderr, "mtcsim run: cannot read scenario '%s': %s\n",
                o->scenario, strerror(errno));
        return HOST_USAGE;
    }
    if (o->out) {
        char tmp[LHOST_PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s", o->out);
        char *sl = strrchr(tmp, '/');
        if (sl)
            *(sl == tmp ? sl + 1 : sl) = 0;
        else
            snprintf(tmp, sizeof tmp, ".");
        char dir[LHOST_PATH_MAX], db[2 * LHOST_PATH_MAX];
        if (!realpath(tmp, dir)) {
            fprintf(stderr, "mtcsim run: --out '%s': directory '%s': %s\n",
                    o->out, tmp, strerror(errno));
            return HOST_USAGE;
        }
        /* the scenario writes only into the run's own folder beside the
         * database (NAME.files for NAME.db), never beside the database */
        const char *base = strrchr(o->out, '/');
        base = base ? base + 1 : o->out;
        snprintf(db, sizeof db, "%s/%s", strcmp(dir, "/") ? dir : "", base);
        if (!*base || lhost_output_folder(db, o->out_dir, sizeof o->out_dir) != MTC_OK) {
            fprintf(stderr, "mtcsim run: --out '%s': not a file name, or too "
                            "long a path\n", o->out);
            return HOST_USAGE;
        }
    }
    return HOST_OK;
}
