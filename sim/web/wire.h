/*
 * wire.h - a strict reader of network byte order (big-endian) encodings,
 * the TLS messages (tls.c) and DNS responses (svcb.c) a peer sends: the
 * one place that bounds a read by the bytes left. Internal to sim/web/.
 *
 * A wire_rd borrows p[0..len) and remembers a read past its end (bad):
 * later reads give 0 or an empty vector, so a parser reads straight on
 * and checks once (wire_done, or bad). pos is the next byte; a parser may
 * advance it itself only after checking len - pos.
 */
#ifndef SIM_WEB_WIRE_H
#define SIM_WEB_WIRE_H

#include <stddef.h>
#include <stdint.h>

typedef struct wire_rd {
    const uint8_t *p;
    size_t len, pos;
    int bad;
} wire_rd;

/* An unsigned integer of `bytes` (1 to 8) bytes; 0 (and bad) when short. */
uint64_t wire_get_u(wire_rd *r, unsigned bytes);
/* A vector whose length takes len_bytes: its body as a reader of its own
 * (bad, and an empty reader marked bad, when it runs past the end). */
wire_rd wire_get_vec(wire_rd *r, unsigned len_bytes);
/* Everything read, nothing bad. */
int wire_done(const wire_rd *r);

#endif
