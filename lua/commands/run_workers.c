/*
 * run_workers.c - `mtcsim run -j N`: the runs of a sweep in N local worker
 * processes (fork, two pipes each; no MPI), recorded by the parent.
 *
 * Why processes, not threads: a run is a Lua state and a world that share
 * nothing with other runs, and the results handle is single-threaded; a
 * process per worker keeps both true without locks, and a crash in one run
 * costs one worker, not the sweep.
 *
 * Why the parent records in to-do order: a run's rows get their ids (run,
 * metric, vector, histogram) from the order they are written. The parent
 * begins run k only after runs 0..k-1 have begun, and stores run k's
 * metrics only after those of 0..k-1, so every row and id equals what
 * `-j 1` writes; only wall-clock fields (timestamps, wall time, pid) and
 * measured CPU metrics differ. Like `-j 1`, which begins run k only after
 * run k-1 succeeded, the parent begins run k's row only once run k-1 is
 * recorded, and after a failed run records nothing more: the runs after
 * it that other workers were making are stopped and left to --resume,
 * so a failure leaves the same rows whatever N is. The scenario's own output (print) of a run
 * is captured by its worker and printed by the parent in the same order,
 * so stdout matches `-j 1` too ('#' lines aside).
 *
 * Protocol: parent -> worker, a uint64 to-do index per run (EOF: exit).
 * Worker -> parent, messages [type u8][length u64][payload]:
 *   'S' started: k, planned stop, then (kind, entity, name, value) strings
 *       of every effective parameter (the run row can now be begun);
 *   'E' ended: k, status, sim time reached, events, wall seconds, whether
 *       the world was built, error text, captured output, sim_metrics
 *       encoding. A worker that dies mid-run fails that run.
 * Fields are host-endian: both ends are the same binary on one machine.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include "host.h"
#include "lrecord.h"
#include "lsuggest.h"
#include "run_internal.h"
#include "mtc/error.h"
#include "sim/status.h"

/* ---- messages ---- */

/* A worker's exit statuses when it cannot report its run: its message
 * could not be built (out of memory), or the pipe to the parent broke. */
#define WORKER_EXIT_PIPE 3
#define WORKER_EXIT_NOMEM 4
/* ... or it could not fork the child that continues a shared warm-up. */
#define WORKER_EXIT_FORK 5

/* Why a worker ended during a run, from its wait status, for the run's
 * error: out of memory named as such. */
static void worker_end_reason(long pid, int st, char *why, size_t n)
{
    if (WIFEXITED(st) && WEXITSTATUS(st) == WORKER_EXIT_NOMEM)
        snprintf(why, n, "worker process %ld ran out of memory during the run "
                 "(its results could not be assembled)", pid);
    else if (WIFEXITED(st) && WEXITSTATUS(st) == WORKER_EXIT_FORK)
        snprintf(why, n, "worker process %ld could not fork the process that "
                 "continues its shared warm-up (--share-warmup)", pid);
    else if (WIFEXITED(st) && WEXITSTATUS(st) == WORKER_EXIT_PIPE)
        snprintf(why, n, "worker process %ld lost its pipe to the parent "
                 "during the run", pid);
    else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
        snprintf(why, n, "worker process %ld was killed during the run (signal "
                 "9: by someone, or by the kernel when the machine ran out of "
                 "memory)", pid);
    else if (WIFSIGNALED(st))
        snprintf(why, n, "worker process %ld ended during the run (signal %d: "
                 "%s)", pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(why, n, "worker process %ld ended during the run (exit "
                 "status %d)", pid, WEXITSTATUS(st));
}

static int send_msg(int fd, uint8_t type, const bytebuf *b)
{
    uint64_t len = b->n;
    if (b->failed)
        return -1;
    return fd_write_all(fd, &type, 1) || fd_write_all(fd, &len, sizeof len) ||
                   fd_write_all(fd, b->b, b->n)
               ? -1 : 0;
}

/* ---- the worker ---- */

/* What the -j parent may hold for runs waiting to be recorded in order
 * (their printed output above all): the scenario's memory cap, none with
 * --unsafe. 0: no cap. */
static size_t held_cap(const run_opts *o)
{
    return o->unsafe ? 0 : (size_t)o->max_mem_mb << 20;
}

/* The length of what f holds, or -1. */
static long file_size(FILE *f)
{
    return f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
}

/* Copies n bytes from f (from its current position) to fd, in chunks;
 * what f lacks is sent as zeros. 0, or -1 when fd fails. */
static int copy_out(FILE *f, uint64_t n, int fd)
{
    uint8_t chunk[65536];
    while (n) {
        size_t k = n < sizeof chunk ? (size_t)n : sizeof chunk;
        size_t got = f ? fread(chunk, 1, k, f) : 0;
        if (got < k)
            memset(chunk + got, 0, k - got);
        if (fd_write_all(fd, chunk, k))
            return -1;
        n -= k;
    }
    return 0;
}

/* The 'E' message: head (to-do position .. error text), then the output
 * captured in f (olen bytes) streamed from the file, then the metrics'
 * encoding. The output is never held in the worker's memory: it may be
 * as large as the output cap. 0, or -1. */
static int send_end(int fd, const bytebuf *head, FILE *f, uint64_t olen,
                    const uint8_t *enc, uint64_t elen)
{
    uint8_t type = 'E';
    uint64_t len = head->n + sizeof olen + olen + sizeof elen + elen;
    if (head->failed)
        return -1;
    if (f)
        rewind(f);
    return fd_write_all(fd, &type, 1) || fd_write_all(fd, &len, sizeof len) ||
                   fd_write_all(fd, head->b, head->n) ||
                   fd_write_all(fd, &olen, sizeof olen) || copy_out(f, olen, fd) ||
                   fd_write_all(fd, &elen, sizeof elen) ||
                   (elen && fd_write_all(fd, enc, elen))
               ? -1 : 0;
}

/* A (name, value) run attribute into the 'S' message. */
static void put_attr(void *ctx, const char *name, const char *value)
{
    bytebuf_put_str(ctx, name);
    bytebuf_put_str(ctx, value);
}

/* The capture of a run's printed output: stdout into a temporary file
 * from the run's first Lua line to its end, for the parent to print in
 * order. */
typedef struct capture {
    FILE *f;
    int saved;          /* the real stdout, or -1 */
} capture;

static void capture_begin(capture *cp)
{
    fflush(stdout);
    cp->f = tmpfile();
    cp->saved = dup(1);
    if (cp->f && cp->saved >= 0)
        dup2(fileno(cp->f), 1);
}

/* Ends the capture: stdout back; the length captured, or 0. */
static long capture_end(capture *cp)
{
    long olen = 0;
    fflush(stdout);
    if (cp->f && cp->saved >= 0) {
        dup2(cp->saved, 1);
        close(cp->saved);
        cp->saved = -1;
        olen = file_size(cp->f);
    }
    return olen;
}

/*
 * The rest of run k (to-do index idx) once its state h (NULL: it failed,
 * err says why) and world lw exist, brc being the build's result:
 * the 'S' message (with the attribute warmup_shared when `shared`, the
 * run that made the warm-up this one continues), the run, the 'E'
 * message, and the run's memory freed (h, lw, cur, the capture).
 */
static void worker_finish(run_ctx *c, uint64_t k, int out_fd, capture *cp,
                          lhost *h, plan *cur, lworld *lw, int brc,
                          char *err, size_t errlen, const char *shared)
{
    bytebuf b = {NULL, 0, 0, 0};
    /* a signal during the start (the steady warm-up): recorded as an
     * interrupted run, as run_sequential does */
    int start_stopped = brc == SIM_ERR_STATE && lw;
    int built = brc == MTC_OK || start_stopped;
    if (h && !built)
        lsuggest_entity(h, err, errlen);
    if (built) {
        bytebuf_put_u64(&b, k);
        bytebuf_put_u64(&b, (uint64_t)lworld_duration(lw));
        size_t n;
        const lworld_param *wp = lworld_params(lw, &n);
        bytebuf_put_u64(&b, cur->nparams + n);
        for (size_t i = 0; i < cur->nparams; i++) {
            bytebuf_put_str(&b, "scenario");
            bytebuf_put_str(&b, "scenario");
            bytebuf_put_str(&b, cur->params[i].name);
            bytebuf_put_str(&b, cur->params[i].value);
        }
        for (size_t i = 0; i < n; i++) {
            bytebuf_put_str(&b, wp[i].kind);
            bytebuf_put_str(&b, wp[i].entity);
            bytebuf_put_str(&b, wp[i].desc->name);
            bytebuf_put_str(&b, wp[i].value);
        }
        bytebuf acts = {NULL, 0, 0, 0};
        size_t na = lrecord_actions(h, put_attr, &acts);
        if (shared) {
            put_attr(&acts, "warmup_shared", shared);
            na++;
        }
        bytebuf_put_u64(&b, na);
        bytebuf_put(&b, acts.b, acts.n);
        b.failed |= acts.failed;
        free(acts.b);
        if (send_msg(out_fd, 'S', &b))
            _exit(b.failed ? WORKER_EXIT_NOMEM : WORKER_EXIT_PIPE);
        b.n = 0;
    }
    double t0 = host_now();
    int rc = brc == MTC_OK ? lworld_run(lw, c->interrupt, NULL, NULL, err, errlen)
             : start_stopped ? SIM_ERR_STATE : SIM_ERR_CONFIG;
    int rs = rc == MTC_OK ? SIM_RUN_COMPLETED
             : rc == SIM_ERR_STATE ? SIM_RUN_INTERRUPTED
                                       : SIM_RUN_FAILED;
    sim_engine *eng = built ? lworld_engine(lw) : NULL;
    double wall = host_now() - t0;
    long olen = capture_end(cp);
    bytebuf_put_u64(&b, k);
    bytebuf_put_u64(&b, (uint64_t)rs);
    bytebuf_put_u64(&b, eng ? (uint64_t)sim_now(eng) : 0);
    bytebuf_put_u64(&b, built ? lworld_events(lw) : 0);
    bytebuf_put(&b, &wall, sizeof wall);
    bytebuf_put_u64(&b, (uint64_t)built);
    bytebuf_put_str(&b, rc == MTC_OK ? "" : err);
    uint8_t *enc = NULL;
    size_t elen = 0;
    if (built && sim_metrics_encode(lworld_metrics(lw), &enc, &elen) != MTC_OK)
        b.failed = 1;
    int sent = send_end(out_fd, &b, cp->f, olen > 0 ? (uint64_t)olen : 0, enc, elen);
    free(enc);
    if (cp->f)
        fclose(cp->f);
    cp->f = NULL;
    if (sent)
        _exit(b.failed ? WORKER_EXIT_NOMEM : WORKER_EXIT_PIPE);
    free(b.b);
    lworld_destroy(lw);
    lhost_destroy(h);
    run_free_plan(cur);
}

/* The scenario state of to-do index idx (the planning state for index 0,
 * while it is there), or NULL with err; *ok: its declared parameters are
 * in cur (0: malformed, message printed). */
static lhost *worker_state(run_ctx *c, size_t idx, plan *cur, int *ok,
                           char *err, size_t errlen)
{
    size_t p = idx / (size_t)c->pl->reps;
    uint64_t r = idx % (size_t)c->pl->reps;
    lhost *h = NULL;
    memset(cur, 0, sizeof *cur);
    if (idx == 0 && c->h0) {
        h = c->h0;
        c->h0 = NULL;
    }
    if (!h)
        h = run_scenario_state(c->o, c->pl, p, r, err, errlen);
    *ok = h && run_scenario_params(h, cur) == HOST_OK;
    return h;
}

static void worker_run(run_ctx *c, uint64_t k, size_t idx, int out_fd)
{
    uint64_t r = idx % (size_t)c->pl->reps;
    char err[8192] = "";
    capture cp;
    capture_begin(&cp);
    plan cur;
    int ok;
    lhost *h = worker_state(c, idx, &cur, &ok, err, sizeof err);
    lworld *lw = NULL;
    int brc = ok ? lworld_build(h, c->o->seed, r, NULL, &lw, err, sizeof err)
                 : SIM_ERR_CONFIG;
    worker_finish(c, k, out_fd, &cp, h, &cur, lw, brc, err, sizeof err, NULL);
}

/*
 * Signals in a worker. SIGINT and SIGTERM keep the parent's handler
 * (it sets the worker's copy of the flag: the current run ends as
 * interrupted) with SA_RESETHAND: a second one ends the worker, as it
 * ends the parent. The parent passes its own interruption on with
 * SIGUSR1, which sets the same flag and is never reset, so a terminal's
 * Ctrl-C, which reaches the parent and every worker, plus the parent's
 * SIGUSR1 count as one signal, not two. The parent blocks SIGUSR1 before
 * it forks, so one that it sends early waits for this handler.
 * A worker dies with its parent: PR_SET_PDEATHSIG, and a parent that was
 * already gone before the call (the worker then belongs to another
 * process) is caught by comparing getppid() with the parent's pid.
 */
static void worker_signals(pid_t parent)
{
#ifdef __linux__
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(3);
#else
#error "-j workers need PR_SET_PDEATHSIG (Linux): port worker_signals"
#endif
    struct sigaction sa;
    if (sigaction(SIGINT, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL &&
        sa.sa_handler != SIG_IGN) {
        sa.sa_flags &= ~SA_RESETHAND;
        sigaction(SIGUSR1, &sa, NULL);
    }
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_UNBLOCK, &usr1, NULL);
}

/* Waits for the worker's child pid, passing the worker's interruption on
 * to it (SIGUSR1, as the parent passes it to the worker: see
 * worker_signals); its wait status. Polled, so that a signal that comes
 * between the check and the wait is not missed. */
static int wait_child(run_ctx *c, pid_t pid)
{
    int st = 0, fwd = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return st;
        if (w < 0 && errno != EINTR)
            return WORKER_EXIT_PIPE << 8;   /* lost: as an exit status 3 */
        if (*c->interrupt && !fwd) {
            kill(pid, SIGUSR1);
            fwd = 1;
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/*
 * A continuing run's messages, which its child wrote into the file fd,
 * passed on to the parent: only whole ones, so that a child killed while
 * it wrote leaves the pipe clean. A child that did not end well (status
 * st) gets the 'E' message the parent gives a dead worker's run: failed,
 * with the reason. 0, or -1 when the pipe to the parent fails.
 */
static int relay(int fd, int out_fd, uint64_t k, pid_t child, int st)
{
    struct stat sb;
    off_t size = fstat(fd, &sb) == 0 ? sb.st_size : 0, off = 0;
    int started = 0, ended = 0;
    if (lseek(fd, 0, SEEK_SET) != 0)
        size = 0;
    while (size - off >= 9) {
        uint8_t type;
        uint64_t len;
        if (fd_read_all(fd, &type, 1) != 1 || fd_read_all(fd, &len, sizeof len) != 1 ||
            len > (uint64_t)(size - off - 9))
            break;
        if (fd_write_all(out_fd, &type, 1) || fd_write_all(out_fd, &len, sizeof len))
            return -1;
        uint8_t chunk[65536];
        for (uint64_t left = len; left;) {
            size_t n = left < sizeof chunk ? (size_t)left : sizeof chunk;
            if (fd_read_all(fd, chunk, n) != 1 || fd_write_all(out_fd, chunk, n))
                return -1;
            left -= n;
        }
        off += 9 + (off_t)len;
        started |= type == 'S';
        ended |= type == 'E';
    }
    if (ended)
        return 0;
    char why[200];
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        snprintf(why, sizeof why, "the process %ld that continued its shared "
                 "warm-up ended without its results", (long)child);
    else
        worker_end_reason((long)child, st, why, sizeof why);
    bytebuf e = {NULL, 0, 0, 0};
    bytebuf_put_u64(&e, k);
    bytebuf_put_u64(&e, SIM_RUN_FAILED);
    bytebuf_put_u64(&e, 0);
    bytebuf_put_u64(&e, 0);
    double zero = 0;
    bytebuf_put(&e, &zero, sizeof zero);
    bytebuf_put_u64(&e, (uint64_t)started);
    bytebuf_put_str(&e, why);
    bytebuf_put_bytes(&e, "", 0);
    bytebuf_put_bytes(&e, "", 0);
    int rc = send_msg(out_fd, 'E', &e);
    free(e.b);
    return rc;
}

/*
 * --share-warmup: the runs ks[0..n) (to-do indices idxs, one replication,
 * equal warm-up keys by the parent's grouping) from one warm-up. The
 * worker builds the first run's world holding back its later calls and
 * runs it to the warm-up end (lworld_share_warmup); then, one at a time,
 * a child per run continues it (lworld_share_continue: the run's own
 * state, checked against the key; a run whose declarations differ makes
 * its own world instead) and reports the run as worker_run does, into a
 * temporary file the worker then passes on (relay). The children die
 * with the worker (PR_SET_PDEATHSIG); a child that dies fails its run
 * alone, as a dead worker does, and the warm-up serves the next.
 */
static void worker_group(run_ctx *c, const uint64_t *ks, const uint64_t *idxs,
                         size_t n, int out_fd)
{
    size_t reps = (size_t)c->pl->reps;
    uint64_t r = idxs[0] % reps;
    char err[8192] = "", why[512] = "";
    capture cp0;
    capture_begin(&cp0);
    plan cur0;
    int ok;
    lhost *h1 = worker_state(c, (size_t)idxs[0], &cur0, &ok, err, sizeof err);
    char *key = NULL;
    if (ok && lworld_share_key(h1, &key, why, sizeof why) != MTC_OK)
        _exit(WORKER_EXIT_NOMEM);
    lworld *lw = NULL;
    int brc = !ok ? SIM_ERR_CONFIG
              : key ? lworld_share_warmup(h1, c->o->seed, r, c->interrupt, &lw,
                                          err, sizeof err)
                    : lworld_build(h1, c->o->seed, r, NULL, &lw, err, sizeof err);
    if (!key || brc != MTC_OK) {
        /* nothing to share (this replication's declarations say so, or
         * the first run failed to build): each run alone */
        worker_finish(c, ks[0], out_fd, &cp0, h1, &cur0, lw, brc, err,
                      sizeof err, NULL);
        free(key);
        for (size_t i = 1; i < n; i++)
            worker_run(c, ks[i], (size_t)idxs[i], out_fd);
        return;
    }
    char label[96];
    snprintf(label, sizeof label, "point %zu replication %llu",
             (size_t)idxs[0] / reps, (unsigned long long)r);
    pid_t me = getpid();
    for (size_t i = 0; i < n; i++) {
        FILE *mf = tmpfile();
        if (!mf)
            _exit(WORKER_EXIT_FORK);
        int mfd = fileno(mf);
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0)
            _exit(WORKER_EXIT_FORK);
        if (pid == 0) {
#ifdef __linux__
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != me)
                _exit(WORKER_EXIT_PIPE);
#endif
            if (i == 0) {
                int rc = lworld_share_continue(lw, h1, r, key, err, sizeof err);
                worker_finish(c, ks[0], mfd, &cp0, h1, &cur0, lw,
                              rc == MTC_OK ? MTC_OK : SIM_ERR_CONFIG, err,
                              sizeof err, label);
                fflush(NULL);
                _exit(0);
            }
            capture cp;
            capture_begin(&cp);
            plan cur;
            int okm;
            lhost *hm = worker_state(c, (size_t)idxs[i], &cur, &okm, err, sizeof err);
            int rc = okm ? lworld_share_continue(lw, hm, r, key, err, sizeof err)
                         : SIM_ERR_CONFIG;
            if (rc == MTC_OK) {
                lhost_destroy(h1);      /* its world is hm's run now */
                worker_finish(c, ks[i], mfd, &cp, hm, &cur, lw, MTC_OK, err,
                              sizeof err, label);
            } else if (okm && rc == SIM_ERR_STATE) {
                /* its declarations before the warm-up end differ from the
                 * first run's (a replication-dependent scenario): its own */
                lworld *own = NULL;
                int orc = lworld_build(hm, c->o->seed, r, NULL, &own, err,
                                       sizeof err);
                worker_finish(c, ks[i], mfd, &cp, hm, &cur, own, orc, err,
                              sizeof err, NULL);
            } else {
                worker_finish(c, ks[i], mfd, &cp, hm, &cur, NULL,
                              SIM_ERR_CONFIG, err, sizeof err, NULL);
            }
            fflush(NULL);
            _exit(0);
        }
        if (i == 0 && cp0.f && cp0.saved >= 0) {
            /* the first run's output is its child's to send */
            dup2(cp0.saved, 1);
            close(cp0.saved);
            cp0.saved = -1;
        }
        if (i == 0 && cp0.f) {
            fclose(cp0.f);
            cp0.f = NULL;
        }
        int st = wait_child(c, pid);
        int rrc = relay(mfd, out_fd, ks[i], pid, st);
        fclose(mf);
        if (rrc)
            _exit(WORKER_EXIT_PIPE);
    }
    lworld_destroy(lw);
    lhost_destroy(h1);
    run_free_plan(&cur0);
    free(key);
}

/* Reads the runs of one hand-out: n, then n (to-do position, index). */
static void worker_main(run_ctx *c, int in_fd, int out_fd)
{
    enum { GMAX = 4096 };
    uint64_t n, ks[GMAX], idxs[GMAX];
    for (;;) {
        if (fd_read_all(in_fd, &n, sizeof n) != 1 || n == 0 || n > GMAX)
            break;
        int ok = 1;
        for (uint64_t i = 0; i < n && ok; i++)
            ok = fd_read_all(in_fd, &ks[i], sizeof ks[i]) == 1 &&
                 fd_read_all(in_fd, &idxs[i], sizeof idxs[i]) == 1;
        if (!ok)
            break;
        if (n == 1)
            worker_run(c, ks[0], (size_t)idxs[0], out_fd);
        else
            worker_group(c, ks, idxs, (size_t)n, out_fd);
    }
}

/* ---- the parent ---- */

/* What the parent holds of to-do run k until it is recorded in order. */
typedef struct slot {
    int started, begun, ended, recorded;
    int64_t run_id;
    uint8_t *start, *end;       /* the 'S' and 'E' payloads */
    size_t slen, elen;
    FILE *spill;                /* the 'E' payload when memory could not
                                 * hold it (held_cap), else NULL */
} slot;

typedef struct worker {
    pid_t pid;
    int in_fd, out_fd;          /* parent's ends: writes to in, reads out */
    int64_t busy;               /* to-do position running, or -1 */
    const size_t *gq;           /* the positions of its group after busy */
    size_t gn, gi;              /* how many, how many begun */
} worker;

int run_record_param_list(sim_results *db, int64_t run, char *const *quads,
                          size_t n, const plan *pl)
{
    int rc = MTC_OK;
    for (size_t i = 0; i < n && rc == MTC_OK; i++)
        rc = sim_results_add_param(db, run, quads[4 * i], quads[4 * i + 1],
                                   quads[4 * i + 2], quads[4 * i + 3]);
    for (size_t a = 0; a < pl->naxes && rc == MTC_OK; a++)
        rc = sim_results_mark_swept(db, run, "scenario", "scenario",
                                    pl->axes[a].name);
    return rc;
}

static int add_attrs(sim_results *db, int64_t run, char *const *pairs, size_t n)
{
    int rc = MTC_OK;
    for (size_t i = 0; i < n && rc == MTC_OK; i++)
        rc = sim_results_add_attr(db, run, pairs[2 * i], pairs[2 * i + 1]);
    return rc;
}

/* The run row and parameters of slot s ('S' payload). */
static int record_begin(run_ctx *c, slot *s, size_t idx)
{
    bytereader rd = {s->start, s->slen, 0, 0};
    bytereader_u64(&rd);
    sim_time stop = (sim_time)bytereader_u64(&rd);
    size_t n = (size_t)bytereader_u64(&rd);
    if (rd.bad || n > s->slen)
        return HOST_FAIL;
    char **q = calloc(4 * n + 1, sizeof *q);
    for (size_t i = 0; q && i < 4 * n; i++)
        q[i] = (char *)bytereader_str(&rd);
    size_t na = (size_t)bytereader_u64(&rd);
    char **attr = na <= s->slen ? calloc(2 * na + 1, sizeof *attr) : NULL;
    for (size_t i = 0; attr && i < 2 * na; i++)
        attr[i] = (char *)bytereader_str(&rd);
    if (!q || !attr || rd.bad) {
        free(attr);
        free(q);
        return HOST_FAIL;
    }
    const run_opts *o = c->o;
    size_t p = idx / (size_t)c->pl->reps;
    int64_t r = (int64_t)(idx % (size_t)c->pl->reps);
    sim_run_info ri = {c->exp_id, (int64_t)p, r, o->seed, o->scenario, c->sha,
                       MTCSIM_VERSION, 0, stop};
    int status = HOST_OK;
    char own[96];
    snprintf(own, sizeof own, "point %zu replication %lld", p, (long long)r);
    for (size_t i = 0; i < na; i++)
        if (!strcmp(attr[2 * i], "warmup_shared") && strcmp(attr[2 * i + 1], own))
            c->shared_runs++;
    if (run_begin_experiment(c) != HOST_OK) {
        c->db_failed = 1;
        free(q);
        free(attr);
        return HOST_FAIL;
    }
    ri.experiment_id = c->exp_id;
    if (sim_results_run_begin(c->db, &ri, &s->run_id) != MTC_OK ||
        run_record_param_list(c->db, s->run_id, q, n, c->pl) != MTC_OK ||
        sim_results_add_attr(c->db, s->run_id, "sandbox", o->unsafe ? "off" : "on") ||
        add_attrs(c->db, s->run_id, attr, na) != MTC_OK ||
        sim_results_flush(c->db) != MTC_OK) {
        char why[ERRMSG_COPY];
        snprintf(why, sizeof why, "%s", sim_results_errmsg(c->db));
        fprintf(stderr, "mtcsim run: %s: %s\n", o->out, why);
        status = HOST_FAIL;
        c->db_failed = 1;
        if (s->run_id)     /* begun: it must not stay 'running' */
            run_end_failed(c->db, o->out, s->run_id, why);
    }
    free(q);
    free(attr);
    s->begun = 1;
    return status;
}

/* Metrics, status, output and statistics of slot s ('E' payload), as
 * run_sequential does them. */
static void record_end(run_ctx *c, slot *s, size_t k, size_t idx, size_t ntodo)
{
    bytereader rd = {s->end, s->elen, 0, 0};
    bytereader_u64(&rd);
    int rs = (int)bytereader_u64(&rd);
    sim_time now = (sim_time)bytereader_u64(&rd);
    uint64_t events = bytereader_u64(&rd);
    double wall = 0;
    if (rd.n - rd.off >= sizeof wall) {
        memcpy(&wall, rd.p + rd.off, sizeof wall);
        rd.off += sizeof wall;
    }
    int built = (int)bytereader_u64(&rd);
    const char *err = bytereader_str(&rd);
    size_t olen, mlen;
    const uint8_t *out = bytereader_bytes(&rd, &olen);
    const uint8_t *menc = bytereader_bytes(&rd, &mlen);
    size_t p = idx / (size_t)c->pl->reps;
    long r = (long)(idx % (size_t)c->pl->reps);
    if (rd.bad) {
        fprintf(stderr, "mtcsim run: corrupt results from a worker (run %zu)\n", idx);
        c->status = HOST_FAIL;
        return;
    }
    fwrite(out, 1, olen, stdout);
    if (!built) {   /* the scenario failed before a world existed */
        fprintf(stderr, "mtcsim run: %s\n", err);
        if (c->status == HOST_OK)
            c->status = c->nruns ? HOST_FAIL : HOST_USAGE;
        return;
    }
    if (rs != SIM_RUN_COMPLETED)
        fprintf(stderr, "mtcsim run: %s\n", err);
    sim_metrics *m = NULL;
    if (mlen && sim_metrics_decode(&m, menc, mlen) != MTC_OK) {
        fprintf(stderr, "mtcsim run: run %zu: undecodable metrics from a worker\n", idx);
        c->status = HOST_FAIL;
    }
    if (c->db && s->begun && s->run_id) {
        if (run_store(c->db, c->o->out, s->run_id, m, rs, now, events,
                      err) != MTC_OK) {
            c->status = HOST_FAIL;
            c->db_failed = 1;
        } else if (rs == SIM_RUN_COMPLETED) {
            c->last_stored = p + 1;
        }
    }
    if (c->status == HOST_OK && rs != SIM_RUN_COMPLETED)
        c->status = HOST_FAIL;
    if (m && rs == SIM_RUN_COMPLETED) {
        run_stats *st = &c->runs[c->nruns++];
        st->point = p;
        st->rep = (size_t)r;
        run_collect_stats(m, st);
        if (!c->o->quiet)
            printf("# run %zu/%zu point %zu replication %ld: %" PRIu64
                   " events, %.2f s wall\n", k + 1, ntodo, p, r, events, wall);
    }
    fflush(stdout);
    sim_metrics_destroy(m);
}

/* One line on a terminal: the sweep's progress and its ETA from the mean
 * wall time of the runs done so far. */
static void progress(const run_ctx *c, size_t done, size_t running, size_t ntodo,
                     double wall0, double busy_wall, int tty)
{
    if (!tty || c->o->quiet)
        return;
    double el = host_now() - wall0;
    char eta[64] = "";
    if (done) {
        double per = busy_wall / (double)done;   /* one run on one worker */
        double left = per * (double)(ntodo - done) / (double)(c->o->jobs > 1 ? c->o->jobs : 1);
        snprintf(eta, sizeof eta, ", ETA %.0f s", left);
    }
    fprintf(stderr, "\r\033[Kruns %zu/%zu done, %zu running on %d workers, %.0f s%s",
            done, ntodo, running, c->o->jobs > 1 ? c->o->jobs : 1, el, eta);
}

/* Reads and drops n bytes of fd: 0, or -1 when it ends or fails first. */
static int drain(int fd, uint64_t n)
{
    uint8_t chunk[65536];
    while (n) {
        size_t k = n < sizeof chunk ? (size_t)n : sizeof chunk;
        if (fd_read_all(fd, chunk, k) != 1)
            return -1;
        n -= k;
    }
    return 0;
}

/* Copies n bytes of fd into f: 0; -1 when fd ends or fails first; -2
 * when f cannot take them (the rest of fd's n bytes is read anyway). */
static int copy_in(int fd, uint64_t n, FILE *f)
{
    uint8_t chunk[65536];
    int full = 0;
    while (n) {
        size_t k = n < sizeof chunk ? (size_t)n : sizeof chunk;
        if (fd_read_all(fd, chunk, k) != 1)
            return -1;
        if (!full && fwrite(chunk, 1, k, f) != k)
            full = 1;
        n -= k;
    }
    return full || fflush(f) ? -2 : 0;
}

static void end_failed(slot *s, uint64_t k, const char *why, size_t *held);

/* A value of a spilled 'E' payload (host-endian, as written). */
static int spill_u64(FILE *f, uint64_t *v)
{
    return fread(v, sizeof *v, 1, f) == 1 ? 0 : -1;
}

/*
 * Slot s's spilled 'E' payload, its turn come: its output goes to stdout
 * straight from the file (where record_end would print it, before the
 * rest), and s->end becomes the payload without it. Its metrics are read
 * into memory if they fit the cap with what is held; else the run fails
 * saying so.
 */
static void unspill(slot *s, size_t hcap, size_t *held)
{
    FILE *f = s->spill;
    s->spill = NULL;
    rewind(f);
    bytebuf e = {NULL, 0, 0, 0};
    uint64_t v[6], n = 0;
    int ok = 1;
    for (int i = 0; i < 6 && ok; i++)
        ok = spill_u64(f, &v[i]) == 0;
    uint64_t k = v[0];
    char *err = NULL;
    if (ok && spill_u64(f, &n) == 0 && n > 0 && n <= (1u << 20) &&
        (err = malloc(n)) != NULL && fread(err, 1, n, f) == n)
        err[n - 1] = '\0';
    else
        ok = 0;
    uint64_t olen = 0, mlen = 0;
    if (ok && spill_u64(f, &olen) == 0) {
        uint8_t chunk[65536];
        for (uint64_t left = olen; left && ok;) {
            size_t c = left < sizeof chunk ? (size_t)left : sizeof chunk;
            ok = fread(chunk, 1, c, f) == c;
            if (ok)
                fwrite(chunk, 1, c, stdout);
            left -= c;
        }
    } else {
        ok = 0;
    }
    ok = ok && spill_u64(f, &mlen) == 0;
    uint8_t *menc = NULL;
    char why[300] = "";
    if (ok && hcap && (mlen > hcap || *held > hcap - mlen))
        snprintf(why, sizeof why, "its metrics (%llu MiB), with what the -j "
                 "parent holds for the runs after it, would take it past "
                 "--max-memory %zu MiB", (unsigned long long)(mlen >> 20) + 1,
                 hcap >> 20);
    else if (ok && mlen && (!(menc = malloc(mlen)) || fread(menc, 1, mlen, f) != mlen))
        ok = 0;
    fclose(f);
    if (!ok || why[0]) {
        free(menc);
        free(err);
        end_failed(s, k, why[0] ? why : "its results, held in a temporary "
                                        "file, could not be read back", held);
        return;
    }
    for (int i = 0; i < 4; i++)
        bytebuf_put_u64(&e, v[i]);
    bytebuf_put(&e, &v[4], sizeof v[4]);    /* the wall time's bytes, as sent */
    bytebuf_put_u64(&e, v[5]);
    bytebuf_put_bytes(&e, err, n);
    bytebuf_put_bytes(&e, "", 0);           /* the output: printed above */
    bytebuf_put_bytes(&e, menc, mlen);
    free(menc);
    free(err);
    s->end = e.b;
    s->elen = e.n;
    *held += e.n;
}

/* Slot s (to-do position k) ends as a failed run with the reason why,
 * as if its worker had said so; the bytes held for it are counted in
 * *held. */
static void end_failed(slot *s, uint64_t k, const char *why, size_t *held)
{
    bytebuf e = {NULL, 0, 0, 0};
    bytebuf_put_u64(&e, k);
    bytebuf_put_u64(&e, SIM_RUN_FAILED);
    bytebuf_put_u64(&e, 0);
    bytebuf_put_u64(&e, 0);
    double zero = 0;
    bytebuf_put(&e, &zero, sizeof zero);
    bytebuf_put_u64(&e, (uint64_t)s->started);
    bytebuf_put_str(&e, why);
    bytebuf_put_bytes(&e, "", 0);
    bytebuf_put_bytes(&e, "", 0);
    s->started = 1;
    s->ended = 1;
    s->end = e.b;
    s->elen = e.n;
    *held += e.n;
}

/* The worker x's run busy ended: its group's next, or idle. */
static void next_in_group(worker *x, size_t *running)
{
    if (x->gi < x->gn) {
        x->busy = (int64_t)x->gq[x->gi++];
    } else {
        x->busy = -1;
        (*running)--;
    }
}

/* Worker x died: its run busy failed (why), and the runs of its group
 * after it, which it would have made from the same warm-up. */
static void fail_group(worker *x, slot *sl, const char *why, size_t *held,
                       size_t *running)
{
    end_failed(&sl[x->busy], (uint64_t)x->busy, why, held);
    char rest[400];
    snprintf(rest, sizeof rest, "not made: %.300s, before this run, which "
             "was to continue its shared warm-up", why);
    while (x->gi < x->gn) {
        size_t k = x->gq[x->gi++];
        end_failed(&sl[k], (uint64_t)k, rest, held);
    }
    x->busy = -1;
    (*running)--;
}

int run_parallel(run_ctx *c, const size_t *todo, size_t ntodo)
{
    /* the hand-outs: the groups of --share-warmup, else each run alone */
    size_t ngroups = c->grp_at ? c->ngroups : ntodo;
    size_t *one_at = NULL, *one_pos = NULL;
    const size_t *gat = c->grp_at, *gpos = c->grp_pos;
    if (!gat) {
        one_at = malloc((ntodo + 1) * sizeof *one_at);
        one_pos = malloc((ntodo ? ntodo : 1) * sizeof *one_pos);
        if (!one_at || !one_pos) {
            free(one_at);
            free(one_pos);
            fprintf(stderr, "mtcsim run: out of memory\n");
            return c->status = HOST_FAIL;
        }
        for (size_t k = 0; k <= ntodo; k++)
            one_at[k] = k;
        for (size_t k = 0; k < ntodo; k++)
            one_pos[k] = k;
        gat = one_at;
        gpos = one_pos;
    }
    int jobs = c->o->jobs > 1 ? c->o->jobs : 1;    /* --share-warmup alone: one */
    int nw = jobs < (int)ngroups ? jobs : (int)ngroups;
    worker *w = calloc((size_t)(nw > 0 ? nw : 1), sizeof *w);
    slot *sl = calloc(ntodo ? ntodo : 1, sizeof *sl);
    if (!w || !sl) {
        free(w);
        free(sl);
        free(one_at);
        free(one_pos);
        fprintf(stderr, "mtcsim run: out of memory\n");
        return c->status = HOST_FAIL;
    }
    fflush(NULL);
    int spawned = 0;
    pid_t parent = getpid();
    sigset_t usr1, old_mask;    /* see worker_signals */
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, &old_mask);
    for (int i = 0; i < nw; i++) {
        int a[2], b[2];
        if (pipe(a) || pipe(b)) {
            fprintf(stderr, "mtcsim run: pipe: %s\n", strerror(errno));
            c->status = HOST_FAIL;
            break;
        }
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "mtcsim run: fork: %s\n", strerror(errno));
            close(a[0]), close(a[1]), close(b[0]), close(b[1]);
            c->status = HOST_FAIL;
            break;
        }
        if (pid == 0) {   /* the worker: never touches the database */
            worker_signals(parent);
            for (int j = 0; j < i; j++) {
                close(w[j].in_fd);
                close(w[j].out_fd);
            }
            close(a[1]);
            close(b[0]);
            worker_main(c, a[0], b[1]);
            fflush(NULL);
            _exit(0);
        }
        close(a[0]);
        close(b[1]);
        w[i] = (worker){pid, a[1], b[0], -1, NULL, 0, 0};
        spawned++;
    }
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    /* a worker gone while idle must fail a write, not kill the parent */
    struct sigaction ign, old_pipe;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old_pipe);
    /* the planning state stays with the workers (each has its copy) */
    lhost_destroy(c->h0);
    c->h0 = NULL;
    size_t gnext = 0, begin = 0, end = 0, running = 0, handed = 0;
    /* bytes of the messages held for runs not yet recorded, and their cap */
    size_t held = 0, hcap = held_cap(c->o);
    int forwarded = 0, failed = 0, tty = isatty(2);
    double wall0 = host_now(), busy_wall = 0;
    for (;;) {
        /* hand out runs while nothing stops the sweep */
        for (int i = 0; i < spawned && gnext < ngroups && c->status == HOST_OK &&
                        !*c->interrupt; i++) {
            if (w[i].busy >= 0 || w[i].out_fd < 0)
                continue;
            const size_t *gp = gpos + gat[gnext];
            uint64_t gn = gat[gnext + 1] - gat[gnext];
            uint64_t msg[1 + 2 * RUN_GROUP_MAX];
            msg[0] = gn;
            for (uint64_t j = 0; j < gn; j++) {
                msg[1 + 2 * j] = gp[j];
                msg[2 + 2 * j] = todo[gp[j]];
            }
            if (fd_write_all(w[i].in_fd, msg, (1 + 2 * gn) * sizeof *msg) == 0) {
                w[i].busy = (int64_t)gp[0];
                w[i].gq = gp + 1;
                w[i].gn = gn - 1;
                w[i].gi = 0;
                gnext++;
                handed += gn;
                running++;
            } else {   /* gone: no more runs for it */
                close(w[i].out_fd);
                w[i].out_fd = -1;
                while (waitpid(w[i].pid, NULL, 0) < 0 && errno == EINTR) {
                }
            }
        }
        int alive = 0;
        for (int i = 0; i < spawned; i++)
            alive += w[i].out_fd >= 0;
        if (!alive && gnext < ngroups && c->status == HOST_OK && !*c->interrupt) {
            fprintf(stderr, "mtcsim run: every worker process has ended; %zu "
                            "runs were not made\n", ntodo - handed);
            c->status = HOST_FAIL;
        }
        if (*c->interrupt && !forwarded) {
            for (int i = 0; i < spawned; i++)
                if (w[i].busy >= 0)
                    kill(w[i].pid, SIGUSR1);    /* see worker_signals */
            forwarded = 1;
        }
        /* record what can be recorded, in to-do order: run k's row is
         * begun once run k-1 is recorded, and nothing after a failure */
        for (int progress = 1; progress;) {
            progress = 0;
            if (!failed && begin == end && begin < ntodo && sl[begin].started) {
                if (c->db && sl[begin].start && !sl[begin].begun &&
                    record_begin(c, &sl[begin], todo[begin]) != HOST_OK)
                    c->status = HOST_FAIL;
                begin++;
                progress = 1;
            }
            if (!failed && end < begin && sl[end].ended) {
                if (sl[end].spill)
                    unspill(&sl[end], hcap, &held);
                record_end(c, &sl[end], end, todo[end], ntodo);
                held -= sl[end].slen + sl[end].elen;
                free(sl[end].start);
                free(sl[end].end);
                sl[end].start = sl[end].end = NULL;
                if (run_summarize_after(c, todo, ntodo, end) != HOST_OK)
                    c->status = HOST_FAIL;
                end++;
                progress = 1;
            }
            if (!failed && c->status != HOST_OK && !*c->interrupt) {
                /* -j 1 would stop here: what the other workers are
                 * making is neither waited for nor recorded */
                failed = 1;
                for (int i = 0; i < spawned; i++)
                    if (w[i].busy >= 0)
                        kill(w[i].pid, SIGUSR1);    /* see worker_signals */
            }
        }
        if (running == 0)
            break;
        progress(c, end, running, ntodo, wall0, busy_wall, tty);
        struct pollfd pf[1024];
        int np = 0, map[1024];
        for (int i = 0; i < spawned && np < 1024; i++)
            if (w[i].busy >= 0) {
                pf[np] = (struct pollfd){w[i].out_fd, POLLIN, 0};
                map[np++] = i;
            }
        if (poll(pf, (nfds_t)np, 1000) < 0) {
            if (errno == EINTR)
                continue;
            c->status = HOST_FAIL;
            break;
        }
        for (int j = 0; j < np; j++) {
            if (!(pf[j].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            worker *x = &w[map[j]];
            uint8_t type = 0;
            uint64_t len = 0;
            uint8_t *buf = NULL;
            int ok = fd_read_all(x->out_fd, &type, 1) == 1 &&
                     fd_read_all(x->out_fd, &len, sizeof len) == 1;
            if (ok && type == 'E' && hcap &&
                (len > hcap || held > hcap - len)) {
                /* more than the cap lets the parent hold: to a temporary
                 * file until its turn to be recorded */
                uint64_t k = 0;
                int sp = -1;
                FILE *f = NULL;
                if (len >= sizeof k && fd_read_all(x->out_fd, &k, sizeof k) == 1 &&
                    k == (uint64_t)x->busy) {
                    f = tmpfile();
                    sp = f && fwrite(&k, sizeof k, 1, f) == 1
                             ? copy_in(x->out_fd, len - sizeof k, f)
                             : drain(x->out_fd, len - sizeof k) ? -1 : -2;
                }
                if (sp == 0) {
                    slot *s = &sl[k];
                    s->started = 1;
                    s->ended = 1;
                    s->spill = f;
                    double wall = 0;
                    if (len >= 5 * sizeof(uint64_t) &&
                        fseek(f, 4 * sizeof(uint64_t), SEEK_SET) == 0 &&
                        fread(&wall, sizeof wall, 1, f) == 1)
                        busy_wall += wall;
                    next_in_group(x, &running);
                    continue;
                }
                if (f)
                    fclose(f);
                if (sp == -2) {     /* no room on disk either */
                    char why[300];
                    snprintf(why, sizeof why, "its printed output and metrics "
                             "(%llu MiB), held by the -j parent until the runs "
                             "before it are recorded, fit neither under "
                             "--max-memory %zu MiB nor in a temporary file",
                             (unsigned long long)(len >> 20) + 1, hcap >> 20);
                    end_failed(&sl[k], k, why, &held);
                    next_in_group(x, &running);
                    continue;
                }
                ok = 0;     /* the worker died or spoke nonsense */
            }
            ok = ok && (buf = malloc(len ? len : 1)) != NULL &&
                 fd_read_all(x->out_fd, buf, len) == 1;
            uint64_t k = 0;
            if (ok && len >= sizeof k)
                memcpy(&k, buf, sizeof k);
            if (!ok || k != (uint64_t)x->busy || (type != 'S' && type != 'E')) {
                free(buf);
                /* the worker died, or spoke nonsense: its run failed */
                int st = 0;
                waitpid(x->pid, &st, 0);
                char why[200];
                worker_end_reason((long)x->pid, st, why, sizeof why);
                fail_group(x, sl, why, &held, &running);
                close(x->in_fd);
                close(x->out_fd);
                x->out_fd = -1;
                /* the sweep fails when this run's turn to be recorded
                 * comes (record_end), not before the runs ahead of it */
                continue;
            }
            slot *s = &sl[k];
            held += len;
            if (type == 'S') {
                s->started = 1;
                s->start = buf;
                s->slen = len;
            } else {
                s->started = 1;   /* a run that failed before its world */
                s->ended = 1;
                s->end = buf;
                s->elen = len;
                double wall = 0;
                if (len >= 5 * sizeof(uint64_t))
                    memcpy(&wall, buf + 4 * sizeof(uint64_t), sizeof wall);
                busy_wall += wall;
                next_in_group(x, &running);
            }
        }
    }
    if (tty && !c->o->quiet)
        fprintf(stderr, "\r\033[K");
    if (c->status != HOST_OK || *c->interrupt)
        run_note_unfinished(c, end, ntodo);
    sigaction(SIGPIPE, &old_pipe, NULL);
    /* EOF on their input ends the workers */
    for (int i = 0; i < spawned; i++) {
        close(w[i].in_fd);
        if (w[i].out_fd >= 0) {
            close(w[i].out_fd);
            while (waitpid(w[i].pid, NULL, 0) < 0 && errno == EINTR) {
            }
        }
    }
    for (size_t k = 0; k < ntodo; k++) {
        free(sl[k].start);
        free(sl[k].end);
        if (sl[k].spill)
            fclose(sl[k].spill);
    }
    free(sl);
    free(w);
    free(one_at);
    free(one_pos);
    return c->status;
}
