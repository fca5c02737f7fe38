/*
 * wire.c - the strict big-endian reader (contract in wire.h).
 */
#include "wire.h"

uint64_t wire_get_u(wire_rd *r, unsigned bytes)
{
    if (r->bad || bytes > r->len - r->pos) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v = v << 8 | r->p[r->pos + i];
    r->pos += bytes;
    return v;
}

wire_rd wire_get_vec(wire_rd *r, unsigned len_bytes)
{
    wire_rd s = {NULL, 0, 0, 1};
    size_t n = (size_t)wire_get_u(r, len_bytes);
    if (r->bad || n > r->len - r->pos) {
        r->bad = 1;
        return s;
    }
    s.p = r->p + r->pos;
    s.len = n;
    s.bad = 0;
    r->pos += n;
    return s;
}

int wire_done(const wire_rd *r) { return !r->bad && r->pos == r->len; }
