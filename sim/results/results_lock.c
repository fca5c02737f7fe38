/*
 * results_lock.c - the advisory locks of a results file: claiming an
 * experiment (at most one process writes the runs of an experiment at a
 * time; results.h, sim_results_claim_experiment), and keeping writers off
 * the main file while a reader reads it immutable.
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

/*
 * Immutable readers and writers. A reader that finds neither -wal nor
 * -shm beside the file reads the main file immutable: SQLite then takes
 * no lock and trusts the file not to change. A writer changes the main
 * file only when it switches a file to WAL (a new file) and when it
 * copies the log back (a checkpoint: every 1000 pages and at the last
 * close). Without a lock between the two, a reader that found the file
 * quiet could read it while a writer that started a moment later copied
 * its log in, and see half-written pages ("database disk image is
 * malformed"), or a file that another process was still creating.
 *
 * Two bytes just below the claims, far above SQLite's own locks:
 * - WRITERS_BYTE: every writer holds a shared lock on it for its life.
 *   A reader tests it (F_OFD_GETLK, which needs no write access): held
 *   means a writer is at work, and the reader goes SQLite's usual way.
 * - READERS_BYTE: an immutable reader holds a shared lock on it for its
 *   life, taken before it tests WRITERS_BYTE. A writer writes the main
 *   file only under an exclusive lock on it: a checkpoint that cannot
 *   have it is skipped (the log stays beside the file, and the next
 *   writer copies it in), a switch to WAL waits for it.
 * A writer that starts while a reader holds READERS_BYTE may append to
 * the log; the reader does not see those commits, and its file does not
 * change under it.
 */
#define WRITERS_BYTE (CLAIM_BASE - 2)
#define READERS_BYTE (CLAIM_BASE - 1)

/* How long a switch to WAL waits for immutable readers (as SQLite's busy
 * timeout in results_open.c). */
#define READERS_WAIT_MS 30000

static void one_byte(struct flock *fl, off_t at, short type)
{
    memset(fl, 0, sizeof *fl);
    fl->l_type = type;
    fl->l_whence = SEEK_SET;
    fl->l_start = at;
    fl->l_len = 1;
}

/* 1 when the kernel says this file system has no (OFD) locks. */
static int no_locks(int e)
{
    return e == EINVAL || e == ENOLCK || e == EOPNOTSUPP || e == ENOSYS;
}

int results__reader_lock(int fd)
{
    struct flock fl;
    one_byte(&fl, READERS_BYTE, F_RDLCK);
    /* a writer holds it exclusive only while it writes the main file */
    for (int waited = 0;; waited += 10) {
        if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
            break;
        if (no_locks(errno))
            return -1;
        if ((errno != EAGAIN && errno != EACCES) || waited >= READERS_WAIT_MS)
            return 0;
        usleep(10000);
    }
    struct flock w;
    one_byte(&w, WRITERS_BYTE, F_WRLCK);
    if (fcntl(fd, F_OFD_GETLK, &w) == 0 && w.l_type == F_UNLCK)
        return 1;
    results__reader_unlock(fd);
    return 0;
}

void results__reader_unlock(int fd)
{
    struct flock fl;
    one_byte(&fl, READERS_BYTE, F_UNLCK);
    fcntl(fd, F_OFD_SETLK, &fl);
}

int results__writer_lock(int fd)
{
    struct flock fl;
    one_byte(&fl, WRITERS_BYTE, F_RDLCK);
    if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
        return 0;
    return no_locks(errno) ? 0 : -1;
}

int results__main_file_lock(int fd, int wait)
{
    struct flock fl;
    one_byte(&fl, READERS_BYTE, F_WRLCK);
    for (int waited = 0;; waited += 10) {
        if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
            return 0;
        if (no_locks(errno))
            return 0;       /* nothing to coordinate with */
        if ((errno != EAGAIN && errno != EACCES) || !wait ||
            waited >= READERS_WAIT_MS)
            return 1;
        usleep(10000);
    }
}

void results__main_file_unlock(int fd)
{
    results__reader_unlock(fd);     /* the same byte, unlocked */
}

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
    one_byte(fl, CLAIM_BASE + (off_t)exp, type);
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
