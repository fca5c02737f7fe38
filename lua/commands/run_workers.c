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
#include "lrecord.h"
#include "lsuggest.h"
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
                run_worker_end_reason((long)x->pid, st, why, sizeof why);
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
