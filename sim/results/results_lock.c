/*
 * results_lock.c - claiming an experiment: at most one process writes the
 * runs of an experiment at a time (results.h, sim_results_claim_experiment).
 *
 * The claim is an open-file-description lock (F_OFD_SETLK) of one byte of
 * the database file at CLAIM_BASE + the experiment's id. Why this lock:
 * it belongs to the descriptor, not the process, so SQLite's own POSIX
 * locks on the same file are neither released nor disturbed by it (they
 * lie at 1 GiB, far below CLAIM_BASE); it is released by the kernel when
 * the process dies however it dies, so a claim never outlives its writer;
 * and it works across hosts on file systems whose locks do (NFS). Why not
 * the run rows' pid and host: a pid says nothing on another host, and a
 * copied database carries the pids of a machine that is gone.
 */
#define _GNU_SOURCE     /* F_OFD_SETLK, F_OFD_GETLK */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mtc/error.h"
#include "results_internal.h"

#define CLAIM_BASE ((off_t)1 << 40)

/* The handle's descriptor of the database file for claims, opened on first
 * use; -1 when the file cannot be opened. */
static int claim_fd(sim_results *r)
{
    if (r->lock_fd >= 0)
        return r->lock_fd;
    const char *path = sqlite3_db_filename(r->db, "main");
    if (!path || !*path)
        return -1;
    r->lock_fd = open(path, (r->readonly ? O_RDONLY : O_RDWR) | O_CLOEXEC);
    return r->lock_fd;
}

static void claim_range(struct flock *fl, int64_t exp, short type)
{
    memset(fl, 0, sizeof *fl);
    fl->l_type = type;
    fl->l_whence = SEEK_SET;
    fl->l_start = CLAIM_BASE + (off_t)exp;
    fl->l_len = 1;
}

int sim_results_claim_experiment(sim_results *r, int64_t exp, int *busy)
{
    if (!r || !busy || exp <= 0 || exp > ((int64_t)1 << 40))
        return MTC_ERR_ARG;
    *busy = 0;
    if (r->readonly)
        return fail(r, MTC_ERR_ARG, "claiming an experiment needs a writable handle");
    int fd = claim_fd(r);
    if (fd < 0)
        return fail(r, MTC_ERR_IO, "cannot open the database file to claim "
                                   "experiment %lld: %s", (long long)exp,
                    strerror(errno));
    struct flock fl;
    claim_range(&fl, exp, F_WRLCK);
    if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
        return MTC_OK;
    if (errno == EAGAIN || errno == EACCES) {
        *busy = 1;
        return MTC_OK;
    }
    /* a file system without locks: nothing to claim with (the run rows'
     * pid and host are all there is, sim_results_stale_runs) */
    return MTC_OK;
}

int results__claim_state(sim_results *r, int64_t exp)
{
    int fd = exp > 0 ? claim_fd(r) : -1;
    if (fd < 0)
        return -1;
    struct flock fl;
    claim_range(&fl, exp, F_WRLCK);
    if (fcntl(fd, F_OFD_GETLK, &fl) != 0)
        return -1;
    return fl.l_type != F_UNLCK;
}
