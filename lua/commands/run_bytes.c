/*
 * run_bytes.c - byte buffers and readers for runs carried between
 * processes (contract in run_bytes.h).
 */
#include "run_bytes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void bytebuf_put(bytebuf *b, const void *p, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        uint8_t *nb = realloc(b->b, cap);
        if (!nb) {
            b->failed = 1;
            return;
        }
        b->b = nb;
        b->cap = cap;
    }
    memcpy(b->b + b->n, p, n);
    b->n += n;
}

void bytebuf_put_u64(bytebuf *b, uint64_t v) { bytebuf_put(b, &v, sizeof v); }

void bytebuf_put_bytes(bytebuf *b, const void *p, size_t n)
{
    bytebuf_put_u64(b, n);
    bytebuf_put(b, p, n);
}

void bytebuf_put_str(bytebuf *b, const char *s)
{
    bytebuf_put_bytes(b, s, strlen(s) + 1);
}

uint64_t bytereader_u64(bytereader *r)
{
    uint64_t v = 0;
    if (r->n - r->off < sizeof v) {
        r->bad = 1;
        return 0;
    }
    memcpy(&v, r->p + r->off, sizeof v);
    r->off += sizeof v;
    return v;
}

const uint8_t *bytereader_bytes(bytereader *r, size_t *len)
{
    uint64_t n = bytereader_u64(r);
    if (r->bad || n > r->n - r->off) {
        r->bad = 1;
        *len = 0;
        return (const uint8_t *)"";
    }
    const uint8_t *p = r->p + r->off;
    r->off += n;
    *len = (size_t)n;
    return p;
}

const char *bytereader_str(bytereader *r)
{
    size_t n;
    const char *s = (const char *)bytereader_bytes(r, &n);
    if (r->bad || n == 0 || s[n - 1] != '\0') {
        r->bad = 1;
        return "";
    }
    return s;
}

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
