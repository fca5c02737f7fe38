/*
 * run_worker.c - one -j worker process of `mtcsim run` (run_workers.c
 * forks them): it makes the runs the parent hands it and reports each on
 * its pipe; under --share-warmup, a group of runs from one warm-up, each
 * continued in a process of its own.
 *
 * Protocol: parent -> worker, per hand-out a uint64 n, then n pairs
 * (to-do position, to-do index) (EOF: exit). Worker -> parent, frames
 * (run_internal.h) of a run record (sim/run_record.h):
 *   'S' started: the record's start (identity, parameters, attributes),
 *       once the world is built: the run row can now be begun;
 *   'E' ended: the whole record (status, reason, metrics, the captured
 *       output last, streamed from the worker's file).
 */
#include <errno.h>
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
void run_worker_end_reason(long pid, int st, char *why, size_t n)
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

/* ---- the worker ---- */

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

/* A frame: [type][length][to-do position k][r's encoding], the
 * output's r->output_len bytes streamed from f (from its start) after the
 * record's body, never held in the worker's memory: it may be as large as
 * the output cap. 0; -1 when the pipe fails; -2 out of memory. */
static int send_record(int fd, uint8_t type, uint64_t k, const sim_run_record *r,
                       FILE *f)
{
    uint8_t *enc = NULL;
    size_t elen = 0;
    if (sim_run_record_encode(r, 0, &enc, &elen) != MTC_OK)
        return -2;
    uint64_t len = sizeof k + elen + r->output_len;
    if (f)
        rewind(f);
    int bad = fd_write_all(fd, &type, 1) || fd_write_all(fd, &len, sizeof len) ||
              fd_write_all(fd, &k, sizeof k) || fd_write_all(fd, enc, elen) ||
              copy_out(f, r->output_len, fd);
    free(enc);
    return bad ? -1 : 0;
}

/* The exit of a worker whose message could not be sent (send_record). */
static void worker_exit(int sent)
{
    _exit(sent == -2 ? WORKER_EXIT_NOMEM : WORKER_EXIT_PIPE);
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
 * the 'S' record (with the attribute warmup_shared when `shared`, the
 * run that made the warm-up this one continues), the run, the 'E'
 * record, and the run's memory freed (h, lw, cur, the capture).
 */
static void worker_finish(run_ctx *c, uint64_t k, size_t idx, int out_fd,
                          capture *cp, lhost *h, plan *cur, lworld *lw,
                          int brc, char *err, size_t errlen, const char *shared)
{
    /* a signal during the start (the steady warm-up): recorded as an
     * interrupted run, as run_sequential does */
    int start_stopped = brc == SIM_ERR_STATE && lw;
    int built = brc == MTC_OK || start_stopped;
    if (h && !built)
        lsuggest_entity(h, err, errlen);
    size_t reps = (size_t)c->pl->reps;
    sim_run_record rec;
    sim_run_record_init(&rec, idx / reps, idx % reps, c->o->seed);
    int sent = 0;
    if (built) {
        sent = run_record_start(c, &rec, h, cur, lw, -1) != MTC_OK ||
                       (shared && sim_run_record_add_attr(&rec, "warmup_shared",
                                                          shared) != MTC_OK)
                   ? -2 : send_record(out_fd, 'S', k, &rec, NULL);
        if (sent)
            worker_exit(sent);
    }
    double t0 = host_now();
    int rc = brc == MTC_OK ? lworld_run(lw, c->interrupt, NULL, NULL, err, errlen)
             : start_stopped ? SIM_ERR_STATE : SIM_ERR_CONFIG;
    rec.status = rc == MTC_OK ? SIM_RUN_COMPLETED
                 : rc == SIM_ERR_STATE ? SIM_RUN_INTERRUPTED
                                           : SIM_RUN_FAILED;
    rec.wall_s = host_now() - t0;
    long olen = capture_end(cp);
    if (built) {
        rec.reached = sim_now(lworld_engine(lw));
        rec.events = lworld_events(lw);
        rec.metrics = lworld_metrics(lw);
    }
    rec.output_len = olen > 0 ? (uint64_t)olen : 0;
    sent = rc != MTC_OK && sim_run_record_set_reason(&rec, err) != MTC_OK
               ? -2 : send_record(out_fd, 'E', k, &rec, cp->f);
    if (cp->f)
        fclose(cp->f);
    cp->f = NULL;
    if (sent)
        worker_exit(sent);
    sim_run_record_free(&rec);
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
    worker_finish(c, k, idx, out_fd, &cp, h, &cur, lw, brc, err, sizeof err, NULL);
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
void run_worker_signals(pid_t parent)
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
 * st) gets the 'E' record the parent gives a dead worker's run: failed,
 * with the reason. 0, or -1 when the pipe to the parent fails (-2: out
 * of memory).
 */
static int relay(const run_ctx *c, int fd, int out_fd, uint64_t k, size_t idx,
                 pid_t child, int st)
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
        run_worker_end_reason((long)child, st, why, sizeof why);
    sim_run_record r;
    size_t reps = (size_t)c->pl->reps;
    sim_run_record_init(&r, idx / reps, idx % reps, c->o->seed);
    r.began = started;
    r.status = SIM_RUN_FAILED;
    int rc = sim_run_record_set_reason(&r, why) != MTC_OK
                 ? -2 : send_record(out_fd, 'E', k, &r, NULL);
    sim_run_record_free(&r);
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
        worker_finish(c, ks[0], (size_t)idxs[0], out_fd, &cp0, h1, &cur0, lw,
                      brc, err, sizeof err, NULL);
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
                worker_finish(c, ks[0], (size_t)idxs[0], mfd, &cp0, h1, &cur0, lw,
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
                worker_finish(c, ks[i], (size_t)idxs[i], mfd, &cp, hm, &cur, lw,
                              MTC_OK, err, sizeof err, label);
            } else if (okm && rc == SIM_ERR_STATE) {
                /* its declarations before the warm-up end differ from the
                 * first run's (a replication-dependent scenario): its own */
                lworld *own = NULL;
                int orc = lworld_build(hm, c->o->seed, r, NULL, &own, err,
                                       sizeof err);
                worker_finish(c, ks[i], (size_t)idxs[i], mfd, &cp, hm, &cur, own,
                              orc, err, sizeof err, NULL);
            } else {
                worker_finish(c, ks[i], (size_t)idxs[i], mfd, &cp, hm, &cur, NULL,
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
        int rrc = relay(c, mfd, out_fd, ks[i], (size_t)idxs[i], pid, st);
        fclose(mf);
        if (rrc)
            worker_exit(rrc);
    }
    lworld_destroy(lw);
    lhost_destroy(h1);
    run_free_plan(&cur0);
    free(key);
}

/* Reads the runs of one hand-out: n, then n (to-do position, index). */
void run_worker_main(run_ctx *c, int in_fd, int out_fd)
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

