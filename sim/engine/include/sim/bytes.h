/*
 * sim/bytes.h - a growing byte buffer and a bounded reader, for the
 * encodings one process of the simulator sends another (a metrics
 * registry: sim/metrics.h; a finished run: sim/run_record.h), and the
 * buffer of the PKI's update encodings (sim/pki, which writes its own
 * big-endian fields into it). This module's integers are little-endian
 * whatever the machine.
 *
 * A sim_bytebuf grows as it is written and remembers a failed allocation:
 * later puts do nothing, and the writer checks `failed` once at the end.
 * A sim_bytereader reads bytes it does not own and remembers a read past
 * their end or a malformed string: later reads give 0, "" or an empty run,
 * never a byte outside [p, p + n), and the reader checks `bad` once. So an
 * encoder and a decoder are straight-line code with one check each.
 */
#ifndef SIM_BYTES_H
#define SIM_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* Owns b (free it); zero-initialise. */
typedef struct sim_bytebuf {
    uint8_t *b;
    size_t n, cap;
    int failed;
} sim_bytebuf;

void sim_bytebuf_put(sim_bytebuf *b, const void *p, size_t n);
void sim_bytebuf_put_u8(sim_bytebuf *b, uint8_t v);
void sim_bytebuf_put_u32(sim_bytebuf *b, uint32_t v);
void sim_bytebuf_put_u64(sim_bytebuf *b, uint64_t v);
/* The double's bits, as a u64. */
void sim_bytebuf_put_f64(sim_bytebuf *b, double v);
/* A length (u64), then the n bytes of p (p may be NULL when n is 0). */
void sim_bytebuf_put_bytes(sim_bytebuf *b, const void *p, size_t n);
/* A string: its length with the NUL, then its bytes and the NUL. */
void sim_bytebuf_put_str(sim_bytebuf *b, const char *s);

/* Borrows p[0..n); start with off = 0, bad = 0. */
typedef struct sim_bytereader {
    const uint8_t *p;
    size_t n, off;
    int bad;
} sim_bytereader;

uint8_t sim_bytereader_u8(sim_bytereader *r);
uint32_t sim_bytereader_u32(sim_bytereader *r);
uint64_t sim_bytereader_u64(sim_bytereader *r);
double sim_bytereader_f64(sim_bytereader *r);
/* The next n bytes, a pointer into p; NULL (and bad) when fewer are
 * left. */
const uint8_t *sim_bytereader_take(sim_bytereader *r, size_t n);
/* A length-prefixed run of bytes: a pointer into p and its length (an
 * empty run, not NULL, when bad). */
const uint8_t *sim_bytereader_bytes(sim_bytereader *r, size_t *len);
/* A string as sim_bytebuf_put_str wrote it: one NUL, at its end ("" and
 * bad otherwise). Points into p. */
const char *sim_bytereader_str(sim_bytereader *r);
/* What is left to read. */
size_t sim_bytereader_left(const sim_bytereader *r);

#endif
