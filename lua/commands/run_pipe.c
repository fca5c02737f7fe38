/*
 * run_pipe.c - whole reads and writes on the pipes between the -j parent
 * (run_workers.c) and its workers (run_worker.c), which carry run
 * records (sim/run_record.h) in frames (run_internal.h).
 */
#include <errno.h>
#include <unistd.h>

#include "run_internal.h"

int fd_write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

int fd_read_all(int fd, void *p, size_t n)
{
    uint8_t *b = p;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, b + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r == 0 && got == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}
