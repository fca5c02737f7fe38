/*
 * bytes.c - the byte buffer and bounded reader (contract in sim/bytes.h).
 * Every read checks the bytes left before it touches one: the reader
 * parses what another process sent.
 */
#include "sim/bytes.h"

#include <stdlib.h>
#include <string.h>

void sim_bytebuf_put(sim_bytebuf *b, const void *p, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (n > SIZE_MAX / 2 - b->n) {
        b->failed = 1;
        return;
    }
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
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

void sim_bytebuf_put_u8(sim_bytebuf *b, uint8_t v) { sim_bytebuf_put(b, &v, 1); }

void sim_bytebuf_put_u32(sim_bytebuf *b, uint32_t v)
{
    uint8_t le[4];
    for (int i = 0; i < 4; i++)
        le[i] = (uint8_t)(v >> (8 * i));
    sim_bytebuf_put(b, le, sizeof le);
}

void sim_bytebuf_put_u64(sim_bytebuf *b, uint64_t v)
{
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(v >> (8 * i));
    sim_bytebuf_put(b, le, sizeof le);
}

void sim_bytebuf_put_f64(sim_bytebuf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    sim_bytebuf_put_u64(b, u);
}

void sim_bytebuf_put_bytes(sim_bytebuf *b, const void *p, size_t n)
{
    sim_bytebuf_put_u64(b, n);
    sim_bytebuf_put(b, p, n);
}

void sim_bytebuf_put_str(sim_bytebuf *b, const char *s)
{
    sim_bytebuf_put_bytes(b, s, strlen(s) + 1);
}

size_t sim_bytereader_left(const sim_bytereader *r)
{
    return r->bad || r->off > r->n ? 0 : r->n - r->off;
}

const uint8_t *sim_bytereader_take(sim_bytereader *r, size_t n)
{
    if (sim_bytereader_left(r) < n) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *p = r->p + r->off;
    r->off += n;
    return p;
}

uint8_t sim_bytereader_u8(sim_bytereader *r)
{
    const uint8_t *p = sim_bytereader_take(r, 1);
    return p ? p[0] : 0;
}

uint32_t sim_bytereader_u32(sim_bytereader *r)
{
    const uint8_t *p = sim_bytereader_take(r, 4);
    uint32_t v = 0;
    for (int i = 0; p && i < 4; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

uint64_t sim_bytereader_u64(sim_bytereader *r)
{
    const uint8_t *p = sim_bytereader_take(r, 8);
    uint64_t v = 0;
    for (int i = 0; p && i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

double sim_bytereader_f64(sim_bytereader *r)
{
    uint64_t u = sim_bytereader_u64(r);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

const uint8_t *sim_bytereader_bytes(sim_bytereader *r, size_t *len)
{
    uint64_t n = sim_bytereader_u64(r);
    const uint8_t *p = n <= sim_bytereader_left(r) ? sim_bytereader_take(r, (size_t)n) : NULL;
    if (!p) {
        r->bad = 1;
        *len = 0;
        return (const uint8_t *)"";
    }
    *len = (size_t)n;
    return p;
}

const char *sim_bytereader_str(sim_bytereader *r)
{
    size_t n;
    const char *s = (const char *)sim_bytereader_bytes(r, &n);
    if (r->bad || n == 0 || s[n - 1] != '\0' || memchr(s, '\0', n) != s + n - 1) {
        r->bad = 1;
        return "";
    }
    return s;
}
