/*
 * run_bytes.h - the byte buffers that carry a finished run between
 * processes: the -j workers' pipe messages (run_workers.c) and the records
 * ranks send rank 0 (run_spread.c). A bytebuf grows as it is written and
 * remembers a failed allocation (later puts do nothing, the sender checks
 * `failed` once); a bytereader reads a message it does not own and
 * remembers a short read (later reads give 0 or "", the receiver checks
 * `bad` once). Values are host-endian: both ends are the same binary on
 * one kind of machine.
 */
#ifndef MTCSIM_RUN_BYTES_H
#define MTCSIM_RUN_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* Owns b (free it); zero-initialise. */
typedef struct bytebuf {
    uint8_t *b;
    size_t n, cap;
    int failed;
} bytebuf;

void bytebuf_put(bytebuf *b, const void *p, size_t n);
void bytebuf_put_u64(bytebuf *b, uint64_t v);
/* A length (u64), then the bytes. */
void bytebuf_put_bytes(bytebuf *b, const void *p, size_t n);
/* A string with its NUL, as bytes. */
void bytebuf_put_str(bytebuf *b, const char *s);

/* Borrows p[0..n); start with off = 0, bad = 0. */
typedef struct bytereader {
    const uint8_t *p;
    size_t n, off;
    int bad;
} bytereader;

uint64_t bytereader_u64(bytereader *r);
/* A pointer into the message and its length (strings end in NUL). */
const uint8_t *bytereader_bytes(bytereader *r, size_t *len);
/* A NUL-terminated string ("" and bad when it is not one). */
const char *bytereader_str(bytereader *r);

/* Writes all n bytes to fd (EINTR retried): 0, or -1 on error. */
int fd_write_all(int fd, const void *p, size_t n);
/* Reads exactly n bytes: 1, 0 at EOF before any byte, -1 on error or EOF
 * inside. */
int fd_read_all(int fd, void *p, size_t n);

#endif
