/*
 * run_resume.c - `mtcsim run --resume FILE.db[:EXP]`: finish an experiment
 * that was interrupted, killed or partly failed, as if it had run through.
 *
 * A database may come from someone else, so nothing in it is obeyed: the
 * resume runs with the options typed now (the scenario, --set, --seed,
 * --replications, limits, -j, --unsafe), and the experiment's stored
 * command line is only compared with them. With the same options the
 * same (point, replication) gets the same random streams, so a resumed
 * run equals the one that was lost. What would make the experiment a
 * mixture is refused before anything runs, unless --accept-changes: other
 * --set, --seed or --replications than the stored ones, a scenario file
 * or a file it loaded whose SHA-256 differs from the one recorded; always refused: a grid of
 * another shape, or a run that is still running. Runs already completed are kept;
 * failed, interrupted and abandoned rows stay as the record of what
 * happened, and their replacements are appended to the same experiment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "host.h"
#include "rdb.h"
#include "safetext.h"
#include "run_internal.h"
#include "mtc/error.h"

/* Appends "; " + text to the differences list d (n bytes). */
static void differ(char *d, size_t n, const char *fmt, const char *x, const char *y)
{
    size_t k = strlen(d);
    if (k + 3 >= n)
        return;
    if (k)
        k += (size_t)snprintf(d + k, n - k, "; ");
    char ex[300], ey[300];
    snprintf(d + k, n - k, fmt, safetext(x, ex, sizeof ex), safetext(y, ey, sizeof ey));
}

/* The value o gives NAME with --set, or NULL. */
static const char *set_of(const run_opts *o, const char *name)
{
    for (size_t i = 0; i < o->nsets; i++)
        if (!strcmp(o->set_name[i], name))
            return o->set_value[i];
    return NULL;
}

/* The values o gives NAME with --sweep, or NULL. */
static const char *sweep_of(const run_opts *o, const char *name)
{
    for (size_t i = 0; i < o->nsweeps; i++)
        if (!strcmp(o->sweep_name[i], name))
            return o->sweep_value[i];
    return NULL;
}

/* What differs between the options that make an experiment (--set,
 * --sweep, --seed, --replications) of `was` (its stored command line) and `now`,
 * into d ("" when nothing). */
static void compare_options(const run_opts *was, const run_opts *now, char *d,
                            size_t n)
{
    char a[32], b[32];
    d[0] = 0;
    if (was->seed != now->seed) {
        snprintf(a, sizeof a, "%llu", (unsigned long long)was->seed);
        snprintf(b, sizeof b, "%llu", (unsigned long long)now->seed);
        differ(d, n, "--seed %s then, %s now", a, b);
    }
    if (was->reps != now->reps) {
        snprintf(a, sizeof a, "%ld", was->reps);
        snprintf(b, sizeof b, "%ld", now->reps);
        differ(d, n, "--replications %s then, %s now", was->reps < 0 ? "not given" : a,
               now->reps < 0 ? "not given" : b);
    }
    for (size_t i = 0; i < was->nsets; i++) {
        const char *v = set_of(now, was->set_name[i]);
        if (!v || strcmp(v, was->set_value[i])) {
            char then[600];
            snprintf(then, sizeof then, "%s=%s", was->set_name[i], was->set_value[i]);
            differ(d, n, "--set %s then, %s now", then, v ? v : "not given");
        }
    }
    for (size_t i = 0; i < now->nsets; i++)
        if (!set_of(was, now->set_name[i]))
            differ(d, n, "--set %s=%s now, not then", now->set_name[i],
                   now->set_value[i]);
    for (size_t i = 0; i < was->nsweeps; i++) {
        const char *v = sweep_of(now, was->sweep_name[i]);
        if (!v || strcmp(v, was->sweep_value[i])) {
            char then[600];
            snprintf(then, sizeof then, "%s=%s", was->sweep_name[i],
                     was->sweep_value[i]);
            differ(d, n, "--sweep %s then, %s now", then, v ? v : "not given");
        }
    }
    for (size_t i = 0; i < now->nsweeps; i++)
        if (!sweep_of(was, now->sweep_name[i]))
            differ(d, n, "--sweep %s=%s now, not then", now->sweep_name[i],
                   now->sweep_value[i]);
}

int run_resume_open(run_opts *o, char *argbuf, size_t arglen, char **argv_store,
                    size_t maxargs, sim_results **db, int64_t *exp)
{
    char path[LHOST_PATH_MAX], err[1024];
    rdb_split_spec(o->resume, path, sizeof path, exp);
    if (o->list_params || o->spread || o->out) {
        fprintf(stderr, "mtcsim run: --resume appends to its own database: --out, "
                        "--params and --spread-runs cannot be given with it\n");
        return HOST_USAGE;
    }
    if (!o->scenario) {
        fprintf(stderr, "mtcsim run: --resume: give the scenario and the options "
                        "the experiment ran with (mtcsim run SCENARIO.lua --resume "
                        "%s [--set ...]); nothing is taken from the database\n",
                path);
        return HOST_USAGE;
    }
    if (sim_results_open(path, SIM_RESULTS_APPEND, db, err, sizeof err)) {
        fprintf(stderr, "mtcsim run: --resume %s\n", err);
        return HOST_USAGE;
    }
    if (*exp < 0)
        *exp = rdb_latest_experiment(*db);
    if (*exp < 0 || !rdb_experiment_exists(*db, *exp)) {
        fprintf(stderr, "mtcsim run: --resume: %s %s\n", path,
                *exp < 0 ? "holds no experiment" : "has no such experiment");
        return HOST_USAGE;
    }
    /* one writer per experiment: a run or resume still at work on it holds
     * its claim until it ends (sim_results_claim_experiment) */
    int busy = 0;
    if (sim_results_claim_experiment(*db, *exp, &busy) != MTC_OK || busy) {
        fprintf(stderr, "mtcsim run: --resume: experiment %lld of %s %s\n",
                (long long)*exp, path, busy ? "is being run or resumed by another "
                "process (it holds the experiment's claim): wait for it to end, "
                "or stop it first" : sim_results_errmsg(*db));
        return HOST_USAGE;
    }
    /* The stored command line is data: it is compared with this one, and
     * nothing of it (above all not --unsafe, limits or -j) is used. */
    char line[sizeof o->cmdline] = "";
    sim_experiment_row *e = malloc(sizeof *e);
    if (e && sim_results_experiment(*db, *exp, e) == MTC_OK)
        snprintf(line, sizeof line, "%s", e->command_line);
    free(e);
    char diff[2048] = "";
    long n = cmdline_split(line, argbuf, arglen, argv_store, maxargs);
    run_opts was;
    memset(&was, 0, sizeof was);
    if (n < 3 || strcmp(argv_store[0], "mtcsim") || strcmp(argv_store[1], "run") ||
        run_parse_only((int)n - 1, argv_store + 1, &was, NULL) != HOST_OK ||
        was.resume)
        snprintf(diff, sizeof diff, "its stored command line is not one of "
                                    "`mtcsim run`, so nothing can be compared");
    else
        compare_options(&was, o, diff, sizeof diff);
    free(was.set_name);
    free(was.set_value);
    free(was.sweep_name);
    free(was.sweep_value);
    if (diff[0]) {
        char shown[1200];
        fprintf(stderr, "mtcsim run: --resume: %s experiment %lld of %s ran with "
                        "other options than this command gives (%s); its command "
                        "line: %s\n%s", o->accept_changes ? "warning:" : "",
                (long long)*exp, path, diff, safetext(line, shown, sizeof shown),
                o->accept_changes ? "" : "mtcsim run: give the same --set, --sweep, --seed "
                "and --replications, or --accept-changes to resume with these\n");
        if (!o->accept_changes)
            return HOST_USAGE;
    }
    snprintf(o->resume_db, sizeof o->resume_db, "%s", path);
    o->out = o->resume_db;
    return run_check_args(o);
}

/* 1 when name (from the database) is a plain relative name below a
 * directory: no absolute path, no '.' or '..' or dot-component, no
 * control character (what the sandbox records; anything else is refused
 * rather than opened). */
static int plain_relative(const char *name)
{
    if (!*name || *name == '/' || strlen(name) >= LHOST_PATH_MAX / 2)
        return 0;
    for (const char *c = name; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f ||
            (*c == '.' && (c == name || c[-1] == '/')) || (*c == '/' && c[1] == '/'))
            return 0;
    return 1;
}

/* Every file the experiment's runs loaded from the scenario's directory
 * (run attributes "loaded:NAME", lrecord.h) must hold the bytes it held
 * then: a changed module would mix two worlds in one experiment.
 * HOST_OK, or HOST_USAGE (printed) unless --accept-changes. */
static int check_loaded(sim_results *db, int64_t exp, const run_opts *o)
{
    char dir[LHOST_PATH_MAX], tmp[LHOST_PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", o->scenario);
    char *sl = strrchr(tmp, '/');
    if (sl)
        *(sl == tmp ? sl + 1 : sl) = 0;
    else
        snprintf(tmp, sizeof tmp, ".");
    if (!realpath(tmp, dir))
        return HOST_USAGE;
    sim_attr_row *at;
    size_t nat;
    if (sim_results_attrs(db, exp, "loaded:", 0, &at, &nat) != MTC_OK)
        return HOST_FAIL;
    int status = HOST_OK;
    for (size_t ai = 0; status == HOST_OK && ai < nat; ai++) {
        const char *name = at[ai].name + 7, *then = at[ai].value;
        char path[2 * LHOST_PATH_MAX], now[65] = "", en[600], et[80];
        const char *what = NULL;
        if (!name || !then || !plain_relative(name)) {
            what = "is not a name the sandbox records";
        } else {
            snprintf(path, sizeof path, "%s/%s", dir, name);
            if (sim_sha256_file_hex(path, now) != MTC_OK)
                what = "can no longer be read";
            else if (strcmp(now, then))
                what = "has changed";
        }
        if (!what)
            continue;
        fprintf(stderr, "mtcsim run: --resume: %sthe file '%s' that experiment %lld's "
                        "scenario loaded %s since it ran (SHA-256 %.12s... then%s%.12s%s); "
                        "resuming would mix two scenarios in one experiment%s\n",
                o->accept_changes ? "warning: " : "", safetext(name, en, sizeof en),
                (long long)exp, what, safetext(then, et, sizeof et), *now ? ", " : "",
                now, *now ? "... now" : "", o->accept_changes ? " (--accept-changes)" :
                ": run it as a new experiment instead, or give --accept-changes");
        if (!o->accept_changes)
            status = HOST_USAGE;
    }
    free(at);
    return status;
}

int run_resume_todo(sim_results *db, int64_t exp, const run_opts *o,
                    const plan *pl, const char *sha, size_t *todo, size_t *ntodo)
{
    int status = HOST_OK;
    *ntodo = 0;
    sim_experiment_row *e = malloc(sizeof *e);
    if (!e || sim_results_experiment(db, exp, e) != MTC_OK) {
        free(e);
        return HOST_FAIL;
    }
    if (e->id >= 0 && (e->sweep_points != (int64_t)pl->npoints ||
                       e->replications != (int64_t)pl->reps)) {
        fprintf(stderr, "mtcsim run: --resume: experiment %lld planned %lld sweep "
                        "points x %lld replications; the scenario now plans %zu x "
                        "%ld: not the same experiment\n", (long long)exp,
                (long long)e->sweep_points, (long long)e->replications,
                pl->npoints, pl->reps);
        status = HOST_USAGE;
    }
    free(e);
    if (status != HOST_OK)
        return status;
    sim_run_row *runs;
    size_t nruns;
    if (sim_results_runs(db, exp, &runs, &nruns) != MTC_OK)
        return HOST_FAIL;
    /* the scenario must be the bytes that ran */
    for (size_t i = 0; status == HOST_OK && i < nruns; i++) {
        const char *was = runs[i].scenario_sha256;
        if (was[0] && strcmp(was, sha)) {
            char shown[80];
            fprintf(stderr, "mtcsim run: --resume: %sthe scenario %s has changed "
                            "since experiment %lld ran (SHA-256 %.12s... then, "
                            "%.12s... now); resuming would mix two scenarios in one "
                            "experiment%s\n", o->accept_changes ? "warning: " : "",
                    o->scenario, (long long)exp, safetext(was, shown, sizeof shown),
                    sha, o->accept_changes ? " (--accept-changes)" :
                    ": run it as a new experiment instead, or give --accept-changes");
            if (!o->accept_changes)
                status = HOST_USAGE;
            break;
        }
    }
    if (status == HOST_OK)
        status = check_loaded(db, exp, o);
    /* a live run would be duplicated (with the experiment claimed, a
     * running row has no writer left, whatever host it names) */
    size_t nstale = 0;
    int64_t stale[256];
    if (status == HOST_OK && sim_results_stale_runs(db, stale, 256, &nstale) != MTC_OK)
        nstale = 0;
    for (size_t i = 0; status == HOST_OK && i < nruns; i++) {
        if (runs[i].status != SIM_RUN_RUNNING)
            continue;
        int64_t id = runs[i].id;
        int dead = 0;
        for (size_t k = 0; k < nstale && k < 256; k++)
            dead |= stale[k] == id;
        if (!dead) {
            fprintf(stderr, "mtcsim run: --resume: run %lld (point %lld, "
                            "replication %lld) is still running (pid %lld on %s); "
                            "wait for it or stop it first\n", (long long)id,
                    (long long)runs[i].sweep_point, (long long)runs[i].replication,
                    (long long)runs[i].pid,
                    runs[i].hostname[0] ? runs[i].hostname : "?");
            status = HOST_USAGE;
        }
    }
    size_t total = pl->npoints * (size_t)pl->reps;
    unsigned char *done = status == HOST_OK ? calloc(total ? total : 1, 1) : NULL;
    if (status == HOST_OK && !done)
        status = HOST_FAIL;
    for (size_t i = 0; done && i < nruns; i++) {
        int64_t p = runs[i].sweep_point, r = runs[i].replication;
        if (runs[i].status == SIM_RUN_COMPLETED && p >= 0 && r >= 0 &&
            p < (int64_t)pl->npoints && r < pl->reps)
            done[(size_t)p * (size_t)pl->reps + (size_t)r] = 1;
    }
    for (size_t i = 0; done && i < total; i++)
        if (!done[i])
            todo[(*ntodo)++] = i;
    free(done);
    free(runs);
    return status;
}
