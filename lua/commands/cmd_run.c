/*
 * cmd_run.c - `mtcsim run SCENARIO.lua`: plan, check, run and record a
 * scenario's runs (sweep points x replications), then print a summary.
 *
 * Why the scenario runs once per run: a run is a fresh Lua state and a
 * fresh world, so nothing leaks between runs, and a sweep value is simply
 * what param() returns in that run. The first execution also plans: it
 * reveals the declared params, sweeps and replications. Before any
 * simulation every sweep point is executed and its world built and
 * started, so a scenario that is wrong for any point fails with exit 2
 * before a single event runs.
 * Signals only set a flag; the engine's stop predicate sees it, the run is
 * stored and marked interrupted, and no further run starts.
 * This file keeps the command: planning, preflight, the results database
 * and experiment, signals, the to-do list and the choice of how to run it.
 * Options are in run_options.c, the scenario state and plan in
 * run_plan.c, the runs themselves in run_loop.c (this process) and
 * run_workers.c (-j N), --resume in run_resume.c, the summary in
 * run_summary.c, --spread-runs in run_spread.c (run_internal.h).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "host.h"
#include "lplaus.h"
#include "lcost.h"
#include "lrecord.h"
#include "lsuggest.h"
#include "run_internal.h"
#include "mtc/chain_cache.h"
#include "mtc/error.h"
#include "sim/progress.h"
#include "sim/status.h"

static volatile sig_atomic_t g_interrupt;   /* main-owned: set by signals */

static void on_signal(int sig)
{
    g_interrupt = sig;     /* nonzero; names the signal in a run's reason */
}

/* ---- results database ------------------------------------------------------ */

/* A (name, value) run attribute of the scenario's into a record. */
typedef struct attr_ctx {
    sim_run_record *r;
    int rc;
} attr_ctx;

static void add_attr(void *ctx, const char *name, const char *value)
{
    attr_ctx *a = ctx;
    if (a->rc == MTC_OK)
        a->rc = sim_run_record_add_attr(a->r, name, value);
}

int run_record_start(const run_ctx *c, sim_run_record *r, lhost *h,
                     const plan *cur, lworld *lw, int mpi_rank)
{
    int rc = MTC_OK;
    r->began = 1;
    r->stop = lworld_duration(lw);
    for (size_t i = 0; i < cur->nparams && rc == MTC_OK; i++)
        rc = sim_run_record_add_param(r, "scenario", "scenario",
                                      cur->params[i].name, cur->params[i].value);
    size_t n;
    const lworld_param *wp = lworld_params(lw, &n);
    for (size_t i = 0; i < n && rc == MTC_OK; i++)
        rc = sim_run_record_add_param(r, wp[i].kind, wp[i].entity,
                                      wp[i].desc->name, wp[i].value);
    for (size_t a = 0; a < c->pl->naxes && rc == MTC_OK; a++)
        rc = sim_run_record_add_swept(r, c->pl->axes[a].name);
    if (rc == MTC_OK)
        rc = sim_run_record_add_attr(r, "sandbox", c->o->unsafe ? "off" : "on");
    if (rc == MTC_OK && mpi_rank >= 0) {
        char rank_text[16];
        snprintf(rank_text, sizeof rank_text, "%d", mpi_rank);
        rc = sim_run_record_add_attr(r, "mpi_rank", rank_text);
    }
    attr_ctx ac = {r, rc};
    if (rc == MTC_OK)
        lrecord_actions(h, add_attr, &ac);
    return ac.rc;
}

int run_record_begin(run_ctx *c, const sim_run_record *r, int64_t *run_id)
{
    *run_id = 0;
    if (run_begin_experiment(c) != HOST_OK) {
        c->db_failed = 1;
        return HOST_FAIL;
    }
    sim_run_origin org = {c->exp_id, c->o->scenario, c->sha, MTCSIM_VERSION};
    char why[ERRMSG_COPY];
    if (sim_run_record_begin(c->db, &org, r, run_id, why, sizeof why) != MTC_OK) {
        fprintf(stderr, "mtcsim run: %s: %s\n", c->o->out, why);
        c->db_failed = 1;
        return HOST_FAIL;
    }
    return HOST_OK;
}

int run_record_end(run_ctx *c, int64_t run_id, const sim_run_record *r)
{
    char why[ERRMSG_COPY];
    if (sim_run_record_end(c->db, run_id, r, why, sizeof why) != MTC_OK) {
        fprintf(stderr, "mtcsim run: %s: %s\n", c->o->out, why);
        c->db_failed = 1;
        return HOST_FAIL;
    }
    if (r->status == SIM_RUN_COMPLETED)
        c->last_stored = (size_t)r->point + 1;
    return HOST_OK;
}

int run_begin_experiment(run_ctx *c)
{
    if (!c->db || c->exp_id)
        return HOST_OK;
    const char *base = strrchr(c->o->scenario, '/');
    sim_experiment_info ei = {base ? base + 1 : c->o->scenario, c->o->cmdline,
                              (int64_t)c->pl->npoints, c->pl->reps};
    if (sim_results_experiment_begin(c->db, &ei, &c->exp_id) != MTC_OK) {
        fprintf(stderr, "mtcsim run: %s: %s\n", c->o->out,
                sim_results_errmsg(c->db));
        c->exp_id = 0;
        return HOST_FAIL;
    }
    /* held until the database is closed: a --resume of this experiment
     * started meanwhile is refused (run_resume.c) */
    int busy = 0;
    if (sim_results_claim_experiment(c->db, c->exp_id, &busy) != MTC_OK || busy) {
        fprintf(stderr, "mtcsim run: %s: experiment %lld: %s\n", c->o->out,
                (long long)c->exp_id, busy ? "claimed by another process "
                "(a --resume started at once?)" : sim_results_errmsg(c->db));
        return HOST_FAIL;
    }
    return HOST_OK;
}

/* ---- the command ----------------------------------------------------------- */

/* The unit-slip warnings of a scenario state (lplaus.h) not printed
 * before (seen keeps them: a sweep's points share most declarations);
 * `point` labels those of a sweep point's own. Returns how many were new. */
typedef struct seen_list {
    char **s;
    size_t n, cap;
} seen_list;

/* Adds the entities each --set KIND.ENTITY.PARAM override of state h was
 * applied to into hits (one per override; NULL: none installed). */
static void count_override_hits(lhost *h, size_t *hits)
{
    char what[8];
    for (size_t i = 0; hits && h && i < lworld_override_count(h); i++)
        hits[i] += lworld_override_matched(h, i, what, sizeof what);
}

/* An override that matched no entity at any point executed is refused
 * (exit 2), with what it was meant to match as h0 declares it. */
static int check_override_hits(lhost *h0, const size_t *hits)
{
    for (size_t i = 0; hits && i < lworld_override_count(h0); i++)
        if (!hits[i]) {
            char what[512];
            lworld_override_matched(h0, i, what, sizeof what);
            fprintf(stderr, "mtcsim run: %s\n", what);
            return HOST_USAGE;
        }
    return HOST_OK;
}

static size_t print_warnings(lhost *h, const run_opts *o, const char *point,
                             seen_list *seen)
{
    lua_State *L = lhost_state(h);
    size_t fresh = 0, n = lplaus_count(L);
    for (size_t i = 0; i < n; i++) {
        const char *w = lplaus_get(L, i);
        int dup = 0;
        for (size_t k = 0; k < seen->n && !dup; k++)
            dup = !strcmp(seen->s[k], w);
        if (dup)
            continue;
        if (seen->n == seen->cap) {
            size_t cap = seen->cap ? 2 * seen->cap : 8;
            char **p = realloc(seen->s, cap * sizeof *p);
            if (!p)
                return fresh;
            seen->s = p;
            seen->cap = cap;
        }
        if (!(seen->s[seen->n] = strdup(w)))
            return fresh;
        seen->n++;
        fresh++;
        fprintf(stderr, "mtcsim run: %s: %s%s%s\n", o->strict ? "error" : "warning",
                point ? point : "", point ? ": " : "", w);
    }
    return fresh;
}

/* A point's warm-up key (lworld_share_key) into *key, or NULL and why
 * into *why. MTC_OK or MTC_ERR_NOMEM. */
static int share_key(lhost *h, char **key, char **why)
{
    char w[512];
    int rc = lworld_share_key(h, key, w, sizeof w);
    if (rc == MTC_OK && !*key && !(*why = strdup(w)))
        rc = MTC_ERR_NOMEM;
    return rc;
}

int cmd_run(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            run_usage(stdout);
            return HOST_OK;
        }
    /* Under mpirun every rank runs this command: each simulates its
     * shard of the browsers, rank 0 alone writes results and prints. */
    sim_shard shard;
    if (sim_shard_init(&shard, &argc, &argv) != MTC_OK) {
        fprintf(stderr, "mtcsim run: started by mpirun with several ranks, but "
                        "this mtcsim was built without Open MPI (run make "
                        "deps, then rebuild)\n");
        return HOST_USAGE;
    }
    run_opts o;
    memset(&o, 0, sizeof o);
    plan pl;
    memset(&pl, 0, sizeof pl);
    int status = run_parse_args(argc, argv, &o);
    o.interrupt = &g_interrupt;
    if (status == HOST_OK && run_hold_from_env(getenv("MTCSIM_TEST_HOLD_RUN"),
                                               &o) != HOST_OK) {
        fprintf(stderr, "mtcsim run: MTCSIM_TEST_HOLD_RUN must be RANK:N "
                        "(a rank >= 0 and a run number >= 1)\n");
        status = HOST_USAGE;
    }
    /* one account of the output folder's bytes for all runs, -j workers
     * included: mapped shared before they are forked */
    lhost_account *account = mmap(NULL, sizeof *account, PROT_READ | PROT_WRITE,
                                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    o.account = account == MAP_FAILED ? NULL : account;
    if (!o.account && status == HOST_OK) {
        fprintf(stderr, "mtcsim run: cannot map the output folder's account\n");
        status = HOST_FAIL;
    }
    /* one cache of built baseline chains for every world this process
     * builds (and, copied by the fork, its -j workers'): each chain is
     * signed once, not once per run; results are the same without it, so
     * a failure to create it only costs that time */
    if (mtc_chain_cache_create(MTC_CHAIN_CACHE_CAP_DEFAULT, &o.chains) != MTC_OK)
        o.chains = NULL;
    if (shard.rank != 0) {
        o.out = NULL;
        o.quiet = 1;
    }
    sim_results *db = NULL;
    run_stats *runs = NULL;
    size_t nruns = 0;
    lhost *h0 = NULL;
    char err[8192];
    int spread = 0;
    size_t *todo = NULL;
    spread_state sst = {NULL, NULL};
    int64_t exp_id = 0;
    char *resume_args = NULL, **resume_argv = NULL;
    seen_list seen = {NULL, 0, 0};
    size_t *hits = NULL;    /* per --set KIND.ENTITY.PARAM: entities matched */
    char **keys = NULL, **whys = NULL;  /* --share-warmup: per point */
    size_t *grp_at = NULL, *grp_pos = NULL, ngroups = 0;
    double *warm_s = NULL;  /* per point: its warm-up's expected CPU s */
    if (status != HOST_OK)
        goto done;
    if ((o.jobs > 1 || o.resume || o.share_warmup) && shard.size > 1) {
        fprintf(stderr, "mtcsim run: %s runs in one process, not under mpirun "
                        "(use --spread-runs there)\n",
                o.resume ? "--resume" : o.share_warmup ? "--share-warmup" : "-j");
        status = HOST_USAGE;
        goto done;
    }
    if (o.resume) {   /* the experiment's own options, its database open */
        resume_args = malloc(sizeof o.cmdline);
        resume_argv = calloc(sizeof o.cmdline / 2, sizeof *resume_argv);
        if (!resume_args || !resume_argv) {
            status = HOST_FAIL;
            goto done;
        }
        status = run_resume_open(&o, resume_args, sizeof o.cmdline, resume_argv,
                                 sizeof o.cmdline / 2, &db, &exp_id);
        if (status != HOST_OK)
            goto done;
    }

    /* plan: the scenario's first execution */
    h0 = run_scenario_state(&o, NULL, 0, 0, err, sizeof err);
    if (!h0) {
        fprintf(stderr, "mtcsim run: %s\n", err);
        status = HOST_USAGE;
        goto done;
    }
    print_warnings(h0, &o, NULL, &seen);
    if ((status = run_make_plan(&o, h0, &pl)) != HOST_OK)
        goto done;
    if (lworld_override_count(h0) &&
        !(hits = calloc(lworld_override_count(h0), sizeof *hits))) {
        status = HOST_FAIL;
        goto done;
    }
    count_override_hits(h0, hits);
    if (o.share_warmup) {
        keys = calloc(pl.npoints ? pl.npoints : 1, sizeof *keys);
        whys = calloc(pl.npoints ? pl.npoints : 1, sizeof *whys);
        if (!keys || !whys || share_key(h0, &keys[0], &whys[0]) != MTC_OK) {
            fprintf(stderr, "mtcsim run: out of memory\n");
            status = HOST_FAIL;
            goto done;
        }
    }
    /* the expected CPU time of the plan (lcost.h): each point's world
     * priced before it is built, times the replications */
    lcost cost0 = {0};
    int have_cost = lcost_estimate(h0, &cost0) == MTC_OK;
    double plan_cpu = cost0.cpu_s * (double)pl.reps;
    if (keys) {
        if (!(warm_s = calloc(pl.npoints ? pl.npoints : 1, sizeof *warm_s))) {
            fprintf(stderr, "mtcsim run: out of memory\n");
            status = HOST_FAIL;
            goto done;
        }
        /* the dry run prices every point as point 0 */
        for (size_t p = 0; p < pl.npoints; p++)
            warm_s[p] = cost0.warmup_s;
    }
    if (o.list_params) {
        /* an override may be meant for an entity of another point only */
        /* (and with --share-warmup, each point's warm-up key) */
        for (size_t p = 1; (hits || keys) && p < pl.npoints; p++) {
            lhost *h = run_scenario_state(&o, &pl, p, 0, err, sizeof err);
            count_override_hits(h, hits);
            if (h && keys && share_key(h, &keys[p], &whys[p]) != MTC_OK) {
                lhost_destroy(h);
                status = HOST_FAIL;
                goto done;
            }
            lhost_destroy(h);
        }
        if ((status = check_override_hits(h0, hits)) != HOST_OK)
            goto done;
        run_list_params(&pl);
        size_t total = pl.npoints * (size_t)pl.reps;
        double saved = 0;
        int grouped = 0;
        if (keys && (todo = calloc(total ? total : 1, sizeof *todo))) {
            for (size_t i = 0; i < total; i++)
                todo[i] = i;
            grouped = run_share_groups(&pl, keys, todo, total, &grp_at, &grp_pos,
                                       &ngroups) == MTC_OK;
            if (grouped)
                saved = run_share_saved(&pl, todo, grp_at, grp_pos, ngroups, warm_s);
        }
        if (have_cost)
            run_print_cost(stdout, &cost0, pl.npoints, pl.reps,
                           plan_cpu * (double)pl.npoints, pl.npoints > 1 ? 2 : 0, saved);
        if (grouped)
            run_share_print(stdout, &pl, keys, whys, ngroups, total);
        goto done;
    }

    /* every point must build before anything runs */
    for (size_t p = 1; p < pl.npoints; p++) {
        lhost *h = run_scenario_state(&o, &pl, p, 0, err, sizeof err);
        lworld *lw = NULL;
        lcost cp;
        if (h && have_cost && lcost_estimate(h, &cp) == MTC_OK) {
            plan_cpu += cp.cpu_s * (double)pl.reps;
            if (warm_s)
                warm_s[p] = cp.warmup_s;
        } else {
            have_cost = 0;
        }
        if (h && keys && share_key(h, &keys[p], &whys[p]) != MTC_OK) {
            fprintf(stderr, "mtcsim run: out of memory\n");
            lhost_destroy(h);
            status = HOST_FAIL;
            goto done;
        }
        int ok = h && lworld_build(h, o.seed, 0, NULL, &lw, err, sizeof err) == MTC_OK;
        char lab[512], pt[600];
        run_point_label(&pl, p, lab, sizeof lab);
        snprintf(pt, sizeof pt, "sweep point %zu [%s]", p, lab);
        if (h)
            print_warnings(h, &o, pt, &seen);
        count_override_hits(h, hits);
        if (!ok) {
            lsuggest_entity(h, err, sizeof err);
            fprintf(stderr, "mtcsim run: sweep point %zu [%s]: %s\n", p, lab, err);
            lworld_destroy(lw);
            lhost_destroy(h);
            status = HOST_USAGE;
            goto done;
        }
        lworld_destroy(lw);
        lhost_destroy(h);
    }

    if ((status = check_override_hits(h0, hits)) != HOST_OK)
        goto done;
    char sha[65] = "";
    if (sim_sha256_file_hex(o.scenario, sha) != MTC_OK) {
        fprintf(stderr, "mtcsim run: cannot hash '%s'\n", o.scenario);
        status = HOST_FAIL;
        goto done;
    }
    /* bounded by run_make_plan */
    size_t total = pl.npoints * (size_t)pl.reps, ntodo = 0;
    runs = calloc(total ? total : 1, sizeof *runs);
    todo = calloc(total ? total : 1, sizeof *todo);
    if (!runs || !todo) {
        fprintf(stderr, "mtcsim run: out of memory\n");
        status = HOST_FAIL;
        goto done;
    }
    if (o.resume) {
        if ((status = run_resume_todo(db, exp_id, &o, &pl, sha, todo, &ntodo)) != HOST_OK)
            goto done;
        if (!o.quiet)
            printf("# resuming experiment %lld of %s: %zu of %zu runs to do\n",
                   (long long)exp_id, o.out, ntodo, total);
    } else {
        for (size_t i = 0; i < total; i++)
            todo[ntodo++] = i;
    }
    if (keys && run_share_groups(&pl, keys, todo, ntodo, &grp_at, &grp_pos,
                                 &ngroups) != MTC_OK) {
        fprintf(stderr, "mtcsim run: out of memory\n");
        status = HOST_FAIL;
        goto done;
    }
    if (keys && !o.quiet && ntodo)
        run_share_print(stdout, &pl, keys, whys, ngroups, ntodo);
    if (have_cost && !o.quiet && ntodo) {
        double saved = keys ? run_share_saved(&pl, todo, grp_at, grp_pos, ngroups, warm_s) : 0;
        run_print_cost(stdout, &cost0, pl.npoints, pl.reps,
                       plan_cpu * (double)ntodo / (double)total, pl.npoints > 1, saved);
    }
    if (o.strict && seen.n) {
        fprintf(stderr, "mtcsim run: --strict: %zu implausible value%s (above); "
                        "nothing was run\n", seen.n, seen.n == 1 ? "" : "s");
        status = HOST_USAGE;
        goto done;
    }
    if (o.out && !db) {
        if (sim_results_open(o.out, SIM_RESULTS_CREATE, &db, err, sizeof err)) {
            fprintf(stderr, "mtcsim run: --out %s: %s\n", o.out, err);
            status = HOST_USAGE;
            goto done;
        }
    }
    /* The experiment row is written once the first world is built
     * (run_begin_experiment): a scenario refused before that leaves the
     * file as it was. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;     /* a second signal acts normally */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    spread = o.spread && shard.size > 1;
    double wall0 = host_now();
    if (spread && shard.rank == 0) {
        sst.got = calloc(ntodo ? ntodo : 1, 1);
        sst.done = calloc((size_t)shard.size, 1);
        if (!sst.got || !sst.done) {
            fprintf(stderr, "mtcsim run: out of memory\n");
            status = HOST_FAIL;
            goto done;
        }
    }
    run_ctx rc = {&o, &pl, &shard, db, exp_id, sha, h0, &g_interrupt, spread,
                  &sst, todo, ntodo, runs, 0, HOST_OK, 0, 0, NULL, NULL, 0, 0};
    h0 = NULL;
    rc.grp_at = grp_at;
    rc.grp_pos = grp_pos;
    rc.ngroups = ngroups;
    if (o.jobs > 1 || o.share_warmup)
        status = run_parallel(&rc, todo, ntodo);
    else
        status = run_sequential(&rc, todo, ntodo);
    lhost_destroy(rc.h0);
    nruns = rc.nruns;
    exp_id = rc.exp_id;
    /* a resumed experiment's points whose runs completed earlier, but which
     * the interruption left without a summary */
    for (size_t p = 0; o.resume && db && status == HOST_OK && p < pl.npoints; p++)
        if (sim_results_summarize(db, exp_id, (int64_t)p, 0.95) != MTC_OK) {
            fprintf(stderr, "mtcsim run: %s\n", sim_results_errmsg(db));
            status = HOST_FAIL;
        }
    if (spread && shard.rank == 0) {
        /* the other ranks' runs: those that arrived during rank 0's own,
         * then the rest; a signal stops the wait (run_spread.c) */
        rc.status = status;
        if (run_begin_experiment(&rc) != HOST_OK)
            rc.status = HOST_FAIL;
        run_spread_receive(&rc, &sst, todo, ntodo, 1);
        status = rc.status;
        nruns = rc.nruns;
    }
    exp_id = rc.exp_id;
    if (g_interrupt && status == HOST_OK)
        status = HOST_FAIL;
    if (!o.quiet && nruns) {
        if (o.resume)
            printf("\n# the summary below covers the %zu runs made now; the "
                   "database's summary table covers every completed run\n", nruns);
        run_print_summary(&pl, runs, nruns, &o,
                          db ? stats_steady_start(db, exp_id) : -1);
        printf("# %zu run%s in %.2f s wall%s%s\n", nruns, nruns == 1 ? "" : "s",
               host_now() - wall0, db ? "; results in " : "",
               db ? o.out : "");
        if (o.share_warmup)
            printf("# --share-warmup: %zu of the runs continued a warm-up "
                   "another run made (%zu warm-ups for %zu runs)\n",
                   rc.shared_runs, nruns - rc.shared_runs, nruns);
    }
done:
    if (db && sim_results_close(db) != MTC_OK && status == HOST_OK)
        status = HOST_FAIL;
    for (size_t i = 0; runs && i < nruns; i++)
        stats_run_free(&runs[i]);
    free(runs);
    free(todo);
    free(resume_args);
    free(resume_argv);
    for (size_t i = 0; i < seen.n; i++)
        free(seen.s[i]);
    free(seen.s);
    free(sst.got);
    free(sst.done);
    lhost_destroy(h0);
    run_free_plan(&pl);
    free(o.set_name);
    free(o.set_value);
    free(hits);
    for (size_t p = 0; keys && p < pl.npoints; p++)
        free(keys[p]);
    for (size_t p = 0; whys && p < pl.npoints; p++)
        free(whys[p]);
    free(keys);
    free(whys);
    free(grp_at);
    free(warm_s);
    free(grp_pos);
    free(o.sweep_name);
    free(o.sweep_value);
    if (o.account)
        munmap(o.account, sizeof *o.account);
    mtc_chain_cache_destroy(o.chains);
    fflush(stdout);
    /* A failure on any rank fails the run on every rank. */
    if (!sim_shard_all_ok(&shard, status == HOST_OK) && status == HOST_OK)
        status = HOST_FAIL;
    sim_shard_finalize(&shard);
    return status;
}
