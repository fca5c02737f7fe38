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
 * The worker's side, and the protocol, are in run_worker.c. A worker
 * that dies mid-run fails that run (and, under --share-warmup, the runs
 * of its group it had not made).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"
#include "run_internal.h"
#include "mtc/error.h"
#include "sim/status.h"

/* ---- the parent ---- */

/* What the -j parent may hold for runs waiting to be recorded in order
 * (their printed output above all): the scenario's memory cap, none with
 * --unsafe. 0: no cap. */
static size_t held_cap(const run_opts *o)
{
    return o->unsafe ? 0 : (size_t)o->max_mem_mb << 20;
}


/* What the parent holds of to-do run k until it is recorded in order. */
typedef struct slot {
    int started, begun, ended;
    int printed;                /* end's output was printed from a spill:
                                 * end stops after the record's body */
    int64_t run_id;
    uint8_t *start, *end;       /* the 'S' and 'E' records' encodings */
    size_t slen, elen;
    FILE *spill;                /* the 'E' record when memory could not
                                 * hold it (held_cap), else NULL */
} slot;

typedef struct worker {
    pid_t pid;
    int in_fd, out_fd;          /* parent's ends: writes to in, reads out */
    int64_t busy;               /* to-do position running, or -1 */
    const size_t *gq;           /* the positions of its group after busy */
    size_t gn, gi;              /* how many, how many begun */
} worker;

/* Decodes a worker's record of to-do index idx from p[0..n) into r
 * (with_output: the output is in p): a start ('S': begun, still
 * running) or an end ('E'). HOST_OK, or HOST_FAIL with the message
 * printed and r left freed. */
static int worker_record(const run_ctx *c, const uint8_t *p, size_t n,
                         int with_output, size_t idx, int start,
                         sim_run_record *r)
{
    uint64_t reps = (uint64_t)c->pl->reps;
    if (sim_run_record_decode(r, p, n, with_output) == MTC_OK &&
        r->replication < reps && r->point * reps + r->replication == idx &&
        (start ? r->began && r->status == SIM_RUN_RUNNING
               : r->status != SIM_RUN_RUNNING))
        return HOST_OK;
    sim_run_record_free(r);
    fprintf(stderr, "mtcsim run: corrupt results from a worker (run %zu)\n", idx);
    return HOST_FAIL;
}

/* The run row, parameters and attributes of slot s (its 'S' record). */
static int record_begin(run_ctx *c, slot *s, size_t idx)
{
    sim_run_record r;
    if (worker_record(c, s->start, s->slen, 1, idx, 1, &r) != HOST_OK)
        return HOST_FAIL;
    /* a run that continued the warm-up of another (warmup_shared names
     * the run that made it) */
    char own[96];
    snprintf(own, sizeof own, "point %llu replication %llu",
             (unsigned long long)r.point, (unsigned long long)r.replication);
    for (size_t i = 0; i < r.nattrs; i++)
        if (!strcmp(r.attrs[i].name, "warmup_shared") && strcmp(r.attrs[i].value, own))
            c->shared_runs++;
    int status = run_record_begin(c, &r, &s->run_id);
    sim_run_record_free(&r);
    s->begun = 1;
    return status;
}

/* The output, metrics, status and statistics of slot s (its 'E'
 * record), as run_sequential does them. */
static void record_end(run_ctx *c, slot *s, size_t k, size_t idx, size_t ntodo)
{
    sim_run_record r;
    if (worker_record(c, s->end, s->elen, !s->printed, idx, 0, &r) != HOST_OK) {
        c->status = HOST_FAIL;
        return;
    }
    if (r.output)
        fwrite(r.output, 1, (size_t)r.output_len, stdout);
    const char *why = r.reason ? r.reason : "";
    if (!r.began) {   /* the scenario failed before a world existed */
        fprintf(stderr, "mtcsim run: %s\n", why);
        if (c->status == HOST_OK)
            c->status = c->nruns ? HOST_FAIL : HOST_USAGE;
        sim_run_record_free(&r);
        return;
    }
    if (r.status != SIM_RUN_COMPLETED)
        fprintf(stderr, "mtcsim run: %s\n", why);
    if (c->db && s->begun && s->run_id && run_record_end(c, s->run_id, &r) != HOST_OK)
        c->status = HOST_FAIL;
    if (c->status == HOST_OK && r.status != SIM_RUN_COMPLETED)
        c->status = HOST_FAIL;
    if (r.metrics && r.status == SIM_RUN_COMPLETED) {
        run_stats *st = &c->runs[c->nruns++];
        st->point = (size_t)r.point;
        st->rep = (size_t)r.replication;
        run_collect_stats((sim_metrics *)r.metrics, st);
        if (!c->o->quiet)
            printf("# run %zu/%zu point %zu replication %zu: %" PRIu64
                   " events, %.2f s wall\n", k + 1, ntodo, st->point, st->rep,
                   r.events, r.wall_s);
    }
    fflush(stdout);
    sim_run_record_free(&r);
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

static void end_failed(const run_ctx *c, slot *s, size_t idx, const char *why,
                       size_t *held);

/*
 * Slot s's spilled 'E' record (to-do index idx), its turn come: its
 * output goes to stdout straight from the file (where record_end would
 * print it, before the rest), and s->end becomes the record without it.
 * Its body (metrics above all) is read into memory if it fits the cap with
 * what is held; else the run fails saying so.
 */
static void unspill(const run_ctx *c, slot *s, size_t idx, size_t hcap,
                    size_t *held)
{
    FILE *f = s->spill;
    s->spill = NULL;
    rewind(f);
    uint8_t head[SIM_RUN_RECORD_HEAD];
    uint64_t body = 0;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    int ok = size >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
             fread(head, 1, sizeof head, f) == sizeof head &&
             sim_run_record_body_len(head, &body) == MTC_OK &&
             body <= (uint64_t)size - sizeof head;
    char why[300] = "";
    if (ok && hcap && (body > hcap || *held > hcap - body))
        snprintf(why, sizeof why, "its metrics (%llu MiB), with what the -j "
                 "parent holds for the runs after it, would take it past "
                 "--max-memory %zu MiB", (unsigned long long)(body >> 20) + 1,
                 hcap >> 20);
    size_t n = ok ? sizeof head + (size_t)body : 0;
    uint8_t *rec = ok && !why[0] ? malloc(n) : NULL;
    if (rec) {
        memcpy(rec, head, sizeof head);
        ok = fread(rec + sizeof head, 1, (size_t)body, f) == body;
    } else if (ok && !why[0]) {
        ok = 0;
    }
    /* the output follows the body: printed even when the run then fails
     * for its metrics, as a worker's output always is */
    ok = ok && fseek(f, (long)(sizeof head + body), SEEK_SET) == 0;
    uint8_t chunk[65536];
    for (uint64_t left = ok ? (uint64_t)size - n : 0; left && ok;) {
        size_t k = left < sizeof chunk ? (size_t)left : sizeof chunk;
        ok = fread(chunk, 1, k, f) == k;
        if (ok)
            fwrite(chunk, 1, k, stdout);
        left -= k;
    }
    fclose(f);
    if (!ok || why[0]) {
        free(rec);
        end_failed(c, s, idx, why[0] ? why : "its results, held in a temporary "
                                             "file, could not be read back", held);
        return;
    }
    s->end = rec;
    s->elen = n;
    s->printed = 1;
    *held += n;
}

/* Slot s (to-do index idx) ends as a failed run with the reason why, as
 * if its worker had said so; the bytes held for it are counted in *held. */
static void end_failed(const run_ctx *c, slot *s, size_t idx, const char *why,
                       size_t *held)
{
    sim_run_record r;
    size_t reps = (size_t)c->pl->reps;
    sim_run_record_init(&r, idx / reps, idx % reps, c->o->seed);
    r.began = s->started;
    r.status = SIM_RUN_FAILED;
    uint8_t *enc = NULL;
    size_t n = 0;
    if (sim_run_record_set_reason(&r, why) != MTC_OK ||
        sim_run_record_encode(&r, 1, &enc, &n) != MTC_OK)
        enc = NULL, n = 0;      /* record_end: a corrupt record, failing */
    sim_run_record_free(&r);
    free(s->end);
    s->started = 1;
    s->ended = 1;
    s->printed = 0;
    s->end = enc;
    s->elen = n;
    *held += n;
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
static void fail_group(const run_ctx *c, const size_t *todo, worker *x,
                       slot *sl, const char *why, size_t *held, size_t *running)
{
    end_failed(c, &sl[x->busy], todo[x->busy], why, held);
    char rest[400];
    snprintf(rest, sizeof rest, "not made: %.300s, before this run, which "
             "was to continue its shared warm-up", why);
    while (x->gi < x->gn) {
        size_t k = x->gq[x->gi++];
        end_failed(c, &sl[k], todo[k], rest, held);
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
    sigset_t usr1, old_mask;    /* see run_worker_signals */
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
            run_worker_signals(parent);
            for (int j = 0; j < i; j++) {
                close(w[j].in_fd);
                close(w[j].out_fd);
            }
            close(a[1]);
            close(b[0]);
            run_worker_main(c, a[0], b[1]);
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
                    kill(w[i].pid, SIGUSR1);    /* see run_worker_signals */
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
                    unspill(c, &sl[end], todo[end], hcap, &held);
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
                        kill(w[i].pid, SIGUSR1);    /* see run_worker_signals */
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
                    sp = f ? copy_in(x->out_fd, len - sizeof k, f)
                           : drain(x->out_fd, len - sizeof k) ? -1 : -2;
                }
                if (sp == 0) {
                    slot *s = &sl[k];
                    s->started = 1;
                    s->ended = 1;
                    s->spill = f;
                    uint8_t fixed[SIM_RUN_RECORD_PEEK];
                    sim_run_record pk;
                    if (fseek(f, 0, SEEK_SET) == 0 &&
                        fread(fixed, 1, sizeof fixed, f) == sizeof fixed &&
                        sim_run_record_peek(fixed, sizeof fixed, &pk) == MTC_OK)
                        busy_wall += pk.wall_s;
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
                    end_failed(c, &sl[k], todo[k], why, &held);
                    next_in_group(x, &running);
                    continue;
                }
                ok = 0;     /* the worker died or spoke nonsense */
            }
            ok = ok && (buf = malloc(len ? len : 1)) != NULL &&
                 fd_read_all(x->out_fd, buf, len) == 1;
            uint64_t k = UINT64_MAX;
            if (ok && len >= sizeof k) {    /* the record after k */
                memcpy(&k, buf, sizeof k);
                len -= sizeof k;
                memmove(buf, buf + sizeof k, (size_t)len);
            }
            if (!ok || k != (uint64_t)x->busy || (type != 'S' && type != 'E')) {
                free(buf);
                /* the worker died, or spoke nonsense: its run failed */
                int st = 0;
                waitpid(x->pid, &st, 0);
                char why[200];
                run_worker_end_reason((long)x->pid, st, why, sizeof why);
                fail_group(c, todo, x, sl, why, &held, &running);
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
                sim_run_record pk;
                if (sim_run_record_peek(buf, (size_t)len, &pk) == MTC_OK)
                    busy_wall += pk.wall_s;
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
