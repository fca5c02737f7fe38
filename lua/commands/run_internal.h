/*
 * run_internal.h - what the files of `mtcsim run` share (cmd_run.c: the
 * command; run_options.c, run_plan.c, run_loop.c, run_workers.c,
 * run_resume.c, run_summary.c, run_spread.c). Not for other subcommands.
 */
#ifndef MTCSIM_RUN_INTERNAL_H
#define MTCSIM_RUN_INTERNAL_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lhost.h"
#include "lworld.h"
#include "sim/results.h"
#include "sim/run_record.h"
#include "stats.h"

/* A scenario value: number (integer or float), string or boolean. */
typedef struct sval {
    int type;           /* LUA_TNUMBER, LUA_TSTRING, LUA_TBOOLEAN */
    int is_int;
    lua_Integer i;
    double d;
    int b;
    char *s;
} sval;

/* One sweep axis: its parameter name and the n values it takes. */
typedef struct axis {
    char *name;
    size_t n;
    sval *v;
} axis;

/* One declared scenario parameter, every field as text. */
typedef struct sparam {
    char *name, *doc, *value, *def, *source;
} sparam;

/* The parsed command line (set_name/set_value allocated, freed by cmd_run). */
typedef struct run_opts {
    const char *scenario;
    const char **set_name, **set_value;
    size_t nsets;
    const char **sweep_name, **sweep_value;  /* --sweep NAME=V1,V2,... */
    size_t nsweeps;
    uint64_t seed;
    long reps;              /* -1: scenario's or 1 */
    const char *out;
    char out_dir[LHOST_PATH_MAX];
    int quiet, unsafe, list_params, summary_all;
    const char *summary_cohort; /* --cohort NAME: the summary of one cohort */
    int by_cohort;              /* --by-cohort: the total, then each cohort */
    const char *vs_cohort;      /* --vs-cohort REF: each cohort's difference
                                 * to REF within each run */
    int spread;             /* under mpirun: whole runs per rank */
    int jobs;               /* -j N: local worker processes (1: none) */
    const char *resume;     /* --resume FILE.db[:EXP], or NULL */
    int strict;             /* --strict: implausible values are errors */
    int accept_changes;     /* --resume despite other options or files */
    int profile;            /* --profile: CPU time by phase and part */
    int share_warmup;       /* --share-warmup: one warm-up for the runs
                             * whose declarations differ only after it */
    int traceback;          /* --traceback: Lua's stack after an error */
    /* A test hook, from the environment (MTCSIM_TEST_HOLD_RUN=RANK:N):
     * the process of rank hold_rank stops before the first event of the
     * N-th run it starts (hold_run; 0: never), its run already recorded
     * as begun, and waits there for a signal. Tests that kill a process
     * with a run in flight use it to be sure one is in flight: timing
     * it from outside raced with runs of a fraction of a second. */
    int hold_rank;
    long hold_run;
    char resume_db[LHOST_PATH_MAX]; /* --resume: the database (o->out) */
    uint64_t max_instr;
    uint64_t max_mem_mb;
    char cmdline[4096];
    /* the run's SIGINT/SIGTERM flag (cmd_run's): it also stops Lua code
     * that is running when it is set (lhost_set_interrupt) */
    const volatile sig_atomic_t *interrupt;
    /* the output folder's byte account of every run of this command, in
     * memory shared with the -j workers (cmd_run's); NULL: each run its own */
    lhost_account *account;
    /* the baseline chains every world of this command borrows (cmd_run's,
     * mtc/chain_cache.h; -j workers inherit a copy); NULL: none */
    struct mtc_chain_cache *chains;
} run_opts;

/* One run's (point, replication) and its statistics, in collection order
 * (the statistics module's, analysis/stats.h: the same figures `compare`
 * and `report` compute from the stored run). */
#define RUN_TC_SERIES STATS_SERIES
typedef stats_run run_stats;

/* What the scenario declares: params, unfixed sweep axes, points, reps. */
typedef struct plan {
    sparam *params;
    size_t nparams;
    axis *axes;             /* declared sweeps not fixed by --set */
    size_t naxes;
    size_t npoints;
    long reps;
} plan;


/* Rank 0's account of --spread-runs: got[k] once to-do run k is
 * recorded (ntodo entries), done[r] once rank r reported its share done
 * (size entries). Both caller-owned, zeroed. */
typedef struct spread_state {
    uint8_t *got;
    uint8_t *done;
} spread_state;

/* The state of the run loop (run_loop.c, run_workers.c): what every run
 * needs, and what the runs collect. */
typedef struct run_ctx {
    const run_opts *o;
    const plan *pl;
    const sim_shard *shard;
    sim_results *db;            /* NULL: nothing recorded */
    int64_t exp_id;
    const char *sha;            /* the scenario's SHA-256 */
    lhost *h0;                  /* the planning state (point 0, replication 0),
                                   taken by the run that can use it */
    volatile sig_atomic_t *interrupt;
    int spread;                 /* --spread-runs over MPI ranks */
    spread_state *spread_st;    /* --spread-runs, rank 0: what arrived */
    const size_t *todo;         /* --spread-runs, rank 0: the to-do list */
    size_t ntodo;
    run_stats *runs;            /* one per to-do run */
    size_t nruns;
    int status;                 /* HOST_* */
    int db_failed;              /* the results file refused a write */
    size_t last_stored;         /* 1 + the point of the last run stored
                                   as completed; 0: none yet */
    /* --share-warmup (run_share.c): group g is the to-do positions
     * grp_pos[grp_at[g] .. grp_at[g + 1]); NULL: each run alone */
    const size_t *grp_at, *grp_pos;
    size_t ngroups;
    size_t shared_runs;         /* runs recorded that continued the
                                   warm-up another run made */
} run_ctx;

/* The most runs one shared warm-up serves (one hand-out to a worker). */
#define RUN_GROUP_MAX 4096

/* run_options.c */
/* Prints the --help text to f. */
void run_usage(FILE *f);
/* Fills o (zeroed by the caller) from argv; HOST_OK or HOST_USAGE
 * (message printed). With --resume the scenario and the database are
 * checked later (run_resume_open). */
int run_parse_args(int argc, char **argv, run_opts *o);
/* The parsing alone, messages to errs (NULL: none), nothing checked on
 * disk: also for a command line read back from a database, which is only
 * compared, never obeyed. */
int run_parse_only(int argc, char **argv, run_opts *o, FILE *errs);
/* Fills o's hold_rank and hold_run from the test hook's value
 * "RANK:N" (NULL or empty: no hold); HOST_OK or HOST_USAGE. */
int run_hold_from_env(const char *value, run_opts *o);
/* Checks the scenario (readable) and --out (its directory) of o, filling
 * o->out_dir; HOST_OK or HOST_USAGE (printed). */
int run_check_args(run_opts *o);
/* "mtcsim ARGV..." with shell quoting where an argument needs it. */
void run_format_cmdline(int argc, char **argv, char *buf, size_t n);

/* run_plan.c */
/* Writes "name=value ..." for sweep point p into buf (empty without axes). */
void run_point_label(const plan *pl, size_t p, char *buf, size_t n);
/* A fresh state with the scenario executed for (point, replication); pl may
 * be NULL (the planning execution: no point). NULL with err on failure. */
lhost *run_scenario_state(const run_opts *o, const plan *pl, size_t p,
                          uint64_t rep, char *err, size_t errlen);
/* Reads params, sweeps and replications from the planning state and
 * checks --set names. HOST_OK or HOST_USAGE (message printed). */
int run_make_plan(const run_opts *o, lhost *h, plan *pl);
/* Frees what run_make_plan allocated in pl (not pl itself). */
void run_free_plan(plan *pl);
/* The state's effective scenario parameters (after the script) into tmp. */
int run_scenario_params(lhost *h, plan *tmp);
/* Prints --params' table of parameters, sweeps and run count to stdout. */
void run_list_params(const plan *pl);

/* run_summary.c */
/* Appends one run's headline figures and every metric's statistics to rs. */
void run_collect_stats(sim_metrics *m, run_stats *rs);
/* Prints the per-point summary of runs[0..nruns): every statistic with
 * --summary all, of one cohort with --cohort, of the total and each cohort
 * with --by-cohort; steady_start: the world starts steady (1), empty (0),
 * unknown (-1), for the steady-state advice. */
void run_print_summary(const plan *pl, const run_stats *runs, size_t nruns,
                       const run_opts *o, int steady_start);

/* cmd_run.c */
/* Room for a recorder's message (a results error, and what marking the
 * run failed said). */
#define ERRMSG_COPY 1200
/* Writes c's experiment row unless it exists (c->exp_id set) or nothing
 * is recorded: called once the first world is built, so that a scenario
 * refused earlier leaves the results file as it was. HOST_OK or HOST_FAIL
 * (message printed). */
int run_begin_experiment(run_ctx *c);
/* The producer of every executor: fills the start of r (initialised
 * with its identity) from the built world lw of state h: planned stop,
 * cur's scenario parameters, the world's effective parameters, the plan's
 * swept axes, the "sandbox" attribute, "mpi_rank" (mpi_rank >= 0: a run
 * made on that rank and recorded on rank 0), the scheduled sim:at
 * actions (lrecord.h). MTC_OK or MTC_ERR_NOMEM. */
int run_record_start(const run_ctx *c, sim_run_record *r, lhost *h,
                     const plan *cur, lworld *lw, int mpi_rank);
/* The recorder of every executor (sim/run_record.h) in c's database:
 * begins r's run (the experiment first), *run_id its row; ends it.
 * HOST_OK, or HOST_FAIL with the message printed and c->db_failed set
 * (a row begun is never left running). run_record_end notes a completed
 * run's point in c->last_stored. */
int run_record_begin(run_ctx *c, const sim_run_record *r, int64_t *run_id);
int run_record_end(run_ctx *c, int64_t run_id, const sim_run_record *r);

/* run_loop.c */
/* Runs todo[0..ntodo) (indices p * reps + r, ascending) in this process,
 * recording each; stops at the first failure or an interrupt. Returns
 * the command's status (also in c->status). */
int run_sequential(run_ctx *c, const size_t *todo, size_t ntodo);
/* Summarizes the point of todo[k] when it is the point's last to-do run. */
int run_summarize_after(run_ctx *c, const size_t *todo, size_t ntodo, size_t k);
/* After a sweep that stopped early (a failed or interrupted run): says
 * how many of its ntodo runs were not recorded and that --resume makes
 * them (nothing when all were, or without a database). */
void run_note_unfinished(const run_ctx *c, size_t recorded, size_t ntodo);

/* run_pipe.c: the pipes of -j. A message on a worker's pipe is a frame
 * [type u8][length u64][to-do position u64][a run record's encoding]
 * (sim/run_record.h), host-endian: both ends are one binary. */
/* Writes all n bytes to fd (EINTR retried): 0, or -1 on error. */
int fd_write_all(int fd, const void *p, size_t n);
/* Reads exactly n bytes: 1, 0 at EOF before any byte, -1 on error or EOF
 * inside. */
int fd_read_all(int fd, void *p, size_t n);

/* run_worker.c: one worker process's side of -j (run_workers.c forks
 * them). The signals of a worker that dies with its parent (call first
 * after the fork); its loop over the runs handed to it on in_fd,
 * reported on out_fd; why a worker (or its child) with wait status st
 * ended during a run, in words for the run's error. */
void run_worker_signals(pid_t parent);
void run_worker_main(run_ctx *c, int in_fd, int out_fd);
void run_worker_end_reason(long pid, int st, char *why, size_t n);

/* run_workers.c */
/* -j N: the same runs by N worker processes, recorded in todo order, so
 * the database rows equal run_sequential's (wall-clock fields aside). */
int run_parallel(run_ctx *c, const size_t *todo, size_t ntodo);

/* run_resume.c */
/* --resume FILE.db[:EXP]: opens the database for appending and finds the
 * experiment. The options of the resume are o's, as typed: the stored
 * command line is only compared with them (--set, --seed,
 * --replications), and a difference is refused unless --accept-changes.
 * HOST_OK or HOST_USAGE (message printed). */
int run_resume_open(run_opts *o, char *argbuf, size_t arglen, char **argv_store,
                    size_t maxargs, sim_results **db, int64_t *exp);
/* After planning: refuses a changed scenario (SHA-256) unless
 * --accept-changes, or another grid, and lists the runs to redo (missing,
 * failed, interrupted, abandoned) into todo. HOST_OK (*ntodo may be 0:
 * nothing to do) or HOST_USAGE (printed). */
int run_resume_todo(sim_results *db, int64_t exp, const run_opts *o,
                    const plan *pl, const char *sha, size_t *todo, size_t *ntodo);

/* run_profile.c */
struct lcost;
/* Prints the plan's expected CPU time (lcost.h): point 0's run c0 and
 * the plan's total (its runs to do); `varies` 1: the points were priced
 * one by one, 2: only point 0 was (the dry run builds no other).
 * `shared_s` > 0: the seconds of warm-ups --share-warmup makes once for
 * several runs, said as an upper bound on what it saves (plan_cpu is
 * the unshared plan's). */
void run_print_cost(FILE *f, const struct lcost *c0, size_t npoints,
                    long reps, double plan_cpu, int varies, double shared_s);
/* Prints the profile of run `label` (phases x parts, work, the clock's
 * own cost) to f as comment lines. */
void run_print_profile(FILE *f, const sim_prof *p, const char *label);

/* run_share.c */
/* --share-warmup: groups the to-do positions into runs of one
 * replication whose sweep points have equal warm-up keys (keys[p]:
 * lworld_share_key of point p's state; NULL: the point shares nothing),
 * each group in to-do order and the groups by their first position, at
 * most RUN_GROUP_MAX runs each. *at (ngroups + 1 entries) and *pos
 * (ntodo) are malloc'd, the caller's. MTC_OK or MTC_ERR_NOMEM. */
int run_share_groups(const plan *pl, char *const *keys, const size_t *todo,
                     size_t ntodo, size_t **at, size_t **pos, size_t *ngroups);
/* Prints which points share warm-ups (and, for a point that cannot, why:
 * whys[p], or the first declaration in which it differs from the point
 * it would share with) and how many warm-ups the plan makes. */
void run_share_print(FILE *f, const plan *pl, char *const *keys,
                     char *const *whys, size_t ngroups, size_t ntodo);
/* The expected CPU seconds the groups of run_share_groups save: each
 * group makes its warm-up once for its runs, so every run after a
 * group's first saves its point's warm-up cost, warm_s[point] (lcost's
 * warmup_s; equal within a group, whose warm-ups are the same). */
double run_share_saved(const plan *pl, const size_t *todo, const size_t *at,
                       const size_t *pos, size_t ngroups, const double *warm_s);

/* A sharded run's profile (mpirun without --spread-runs): the ranks
 * other than 0 send rank 0 theirs and return 0 (print nothing); rank 0
 * adds every rank's into prof (waiting up to 30 s for each, none when
 * `whole` is 0: a rank's shard is already missing) and returns 1 with
 * note saying what the sum covers. Unsharded: 1, note "". */
int run_profile_gather(const sim_shard *shard, sim_prof *prof, int whole,
                       const volatile sig_atomic_t *interrupt, char *note,
                       size_t n);

/* run_spread.c */
/* A rank other than 0: sends rank 0 the record of a run that just ended,
 * and, after its last run, that its share is done (with c->status).
 * MTC_OK or the error (message printed by run_spread_send). */
int run_spread_send(run_ctx *c, const sim_run_record *r);
int run_spread_done(run_ctx *c);
/* Rank 0: receives and records (into c->db, c->runs) the runs the other
 * ranks sent. wait 0: what has arrived, without blocking (between its own
 * runs). wait 1: until every rank is done or a signal stops rank 0; then
 * the run each unfinished rank had in flight is recorded as interrupted
 * with the reason, and every point is summarized. Failures set c->status
 * (printed). */
void run_spread_receive(run_ctx *c, spread_state *ss, const size_t *todo,
                        size_t ntodo, int wait);
/* The signal that set the interrupt flag, in words for a run's reason. */
const char *run_signal_name(int sig);

#endif
