/*
 * svcb.c - the tls-trust-anchors SvcParamValue and the HTTPS record's DNS
 * response (sim/svcb.h). Encoders are exact about lengths; parsers are
 * strict because their input is a peer's.
 */
#include <string.h>

#include "mtc/error.h"
#include "sim/svcb.h"
#include "sim/tls.h"
#include "wire.h"

/* ---- value ------------------------------------------------------------------ */

size_t svcb_ta_value_len(const mtc_taid *ids, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += 1 + ids[i].len;
    return len;
}

int svcb_ta_value_encode(const mtc_taid *ids, size_t n, uint8_t *out, size_t cap,
                         size_t *out_len)
{
    if (!ids || n == 0 || !out_len)
        return MTC_ERR_ARG;
    size_t len = svcb_ta_value_len(ids, n);
    if (len > 65535)
        return MTC_ERR_LIMIT;
    if (!out || cap < len)
        return MTC_ERR_LIMIT;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (ids[i].len == 0)
            return MTC_ERR_ARG;
        out[o++] = ids[i].len;
        memcpy(out + o, ids[i].b, ids[i].len);
        o += ids[i].len;
    }
    *out_len = o;
    return MTC_OK;
}

int svcb_ta_value_parse(const uint8_t *in, size_t len, svcb_ta_value *out)
{
    if (!out || (!in && len))
        return MTC_ERR_ARG;
    size_t pos = 0, count = 0;
    while (pos < len) {
        size_t n = in[pos];
        mtc_taid t;
        if (n == 0 || n > len - pos - 1 ||
            mtc_taid_from_binary(in + pos + 1, n, &t) != MTC_OK)
            return SIM_ERR_TLS;
        pos += 1 + n;
        count++;
    }
    if (count == 0)
        return SIM_ERR_TLS; /* the presentation form is a non-empty list */
    out->p = in;
    out->len = len;
    out->count = count;
    return MTC_OK;
}

int svcb_ta_value_next(const svcb_ta_value *v, size_t *pos, mtc_taid *id)
{
    if (*pos >= v->len)
        return 0;
    size_t n = v->p[*pos]; /* validated by svcb_ta_value_parse */
    memcpy(id->b, v->p + *pos + 1, n);
    id->len = (uint8_t)n;
    *pos += 1 + n;
    return 1;
}

/* ---- response ----------------------------------------------------------------- */

/* Wire length of a name in labels (no compression), 0 when invalid. */
static size_t name_wire_len(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 253)
        return 0;
    size_t label = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || name[i] == '.') {
            if (label == 0 || label > 63)
                return 0;
            label = 0;
        } else {
            label++;
        }
    }
    return n + 2;
}

static size_t alpn_len(const svcb_https_response *r)
{
    size_t v = 0;
    for (size_t i = 0; i < r->nalpn; i++)
        v += 1 + strlen(r->alpn[i]);
    return v;
}

static size_t rdata_len(const svcb_https_response *r)
{
    size_t len = 2 + 1; /* SvcPriority, TargetName "." */
    if (r->nalpn)
        len += 4 + alpn_len(r);
    if (r->nv4)
        len += 4 + 4 * (size_t)r->nv4;
    if (r->nv6)
        len += 4 + 16 * (size_t)r->nv6;
    if (r->ta_value)
        len += 4 + r->ta_len;
    return len;
}

size_t svcb_https_response_len(const svcb_https_response *r)
{
    size_t q = name_wire_len(r->name);
    /* header, question, answer (owner compressed to the question's name:
     * 2 bytes), OPT */
    return 12 + q + 4 + 2 + 10 + rdata_len(r) + (r->edns ? 11 : 0);
}

static void put16(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v >> 16);
    put16(p + 2, v & 0xffff);
}

int svcb_https_response_encode(const svcb_https_response *r, uint8_t *out, size_t cap,
                               size_t *out_len)
{
    if (!r || !out_len || name_wire_len(r->name) == 0 || (r->ta_value && r->ta_len == 0))
        return MTC_ERR_ARG;
    uint16_t last = r->nv6 ? SVCB_KEY_IPV6HINT
                  : r->nv4 ? SVCB_KEY_IPV4HINT
                  : r->nalpn ? SVCB_KEY_ALPN : 0;
    if (r->ta_value && r->ta_key <= last)
        return MTC_ERR_ARG;
    for (size_t i = 0; i < r->nalpn; i++) {
        size_t l = strlen(r->alpn[i]);
        if (l == 0 || l > 255)
            return MTC_ERR_ARG;
    }
    size_t rd = rdata_len(r), len = svcb_https_response_len(r);
    if (rd > 65535 || r->ta_len > 65535)
        return MTC_ERR_LIMIT;
    if (!out || cap < len)
        return MTC_ERR_LIMIT;
    size_t o = 0;
    /* header: id 0, QR RD RA, NOERROR; 1 question, 1 answer, 0, OPT */
    put16(out, 0);
    put16(out + 2, 0x8180);
    put16(out + 4, 1);
    put16(out + 6, 1);
    put16(out + 8, 0);
    put16(out + 10, r->edns ? 1 : 0);
    o = 12;
    const char *s = r->name;
    while (*s) {
        const char *dot = strchr(s, '.');
        size_t l = dot ? (size_t)(dot - s) : strlen(s);
        out[o++] = (uint8_t)l;
        memcpy(out + o, s, l);
        o += l;
        s += l + (dot ? 1 : 0);
    }
    out[o++] = 0;
    put16(out + o, DNS_TYPE_HTTPS);
    put16(out + o + 2, 1); /* IN */
    o += 4;
    put16(out + o, 0xc00c); /* the question's name */
    put16(out + o + 2, DNS_TYPE_HTTPS);
    put16(out + o + 4, 1);
    put32(out + o + 6, r->ttl);
    put16(out + o + 10, rd);
    o += 12;
    put16(out + o, 1); /* SvcPriority: ServiceMode */
    out[o + 2] = 0;    /* TargetName "." */
    o += 3;
    if (r->nalpn) {
        put16(out + o, SVCB_KEY_ALPN);
        put16(out + o + 2, alpn_len(r));
        o += 4;
        for (size_t i = 0; i < r->nalpn; i++) {
            size_t l = strlen(r->alpn[i]);
            out[o++] = (uint8_t)l;
            memcpy(out + o, r->alpn[i], l);
            o += l;
        }
    }
    if (r->nv4) {
        put16(out + o, SVCB_KEY_IPV4HINT);
        put16(out + o + 2, 4 * (size_t)r->nv4);
        o += 4;
        for (unsigned i = 0; i < r->nv4; i++) {
            const uint8_t a[4] = {192, 0, 2, (uint8_t)(1 + i)};
            memcpy(out + o, a, 4);
            o += 4;
        }
    }
    if (r->nv6) {
        put16(out + o, SVCB_KEY_IPV6HINT);
        put16(out + o + 2, 16 * (size_t)r->nv6);
        o += 4;
        for (unsigned i = 0; i < r->nv6; i++) {
            uint8_t a[16] = {0x20, 0x01, 0x0d, 0xb8};
            a[15] = (uint8_t)(1 + i);
            memcpy(out + o, a, 16);
            o += 16;
        }
    }
    if (r->ta_value) {
        put16(out + o, r->ta_key);
        put16(out + o + 2, r->ta_len);
        memcpy(out + o + 4, r->ta_value, r->ta_len);
        o += 4 + r->ta_len;
    }
    if (r->edns) {
        /* root owner, OPT, UDP payload 1232, no extended flags, no options */
        out[o] = 0;
        put16(out + o + 1, DNS_TYPE_OPT);
        put16(out + o + 3, 1232);
        put32(out + o + 5, 0);
        put16(out + o + 9, 0);
        o += 11;
    }
    *out_len = o;
    return MTC_OK;
}

/* ---- response parser ------------------------------------------------------------ */

/* Skips a name: labels, ending in the root label or (when ptr_ok) a
 * compression pointer. */
static void skip_name(wire_rd *r, int ptr_ok)
{
    size_t total = 0;
    for (;;) {
        size_t l = (size_t)wire_get_u(r, 1);
        if (r->bad)
            return;
        if (l == 0)
            return;
        if ((l & 0xc0) == 0xc0 && ptr_ok) {
            wire_get_u(r, 1); /* a pointer ends the name; where it points is not read */
            return;
        }
        if (l > 63 || (total += l + 1) > 254) {
            r->bad = 1;
            return;
        }
        if (l > r->len - r->pos) {
            r->bad = 1;
            return;
        }
        r->pos += l;
    }
}

int svcb_https_response_find(const uint8_t *in, size_t len, uint16_t key,
                             const uint8_t **val, size_t *vlen, int *found)
{
    if (!found || !val || !vlen || (!in && len))
        return MTC_ERR_ARG;
    *found = 0;
    wire_rd r = {in, len, 0, 0};
    wire_get_u(&r, 2);
    size_t flags = (size_t)wire_get_u(&r, 2);
    size_t qd = (size_t)wire_get_u(&r, 2), an = (size_t)wire_get_u(&r, 2);
    size_t ns = (size_t)wire_get_u(&r, 2), ar = (size_t)wire_get_u(&r, 2);
    if (r.bad || !(flags & 0x8000) || qd != 1)
        return SIM_ERR_TLS;
    skip_name(&r, 0);
    if (wire_get_u(&r, 2) != DNS_TYPE_HTTPS)
        return SIM_ERR_TLS;
    wire_get_u(&r, 2);
    int done = 0;
    for (size_t i = 0; i < an + ns + ar; i++) {
        skip_name(&r, 1);
        size_t type = (size_t)wire_get_u(&r, 2);
        wire_get_u(&r, 2);
        wire_get_u(&r, 4);
        size_t rdl = (size_t)wire_get_u(&r, 2);
        if (r.bad || rdl > len - r.pos)
            return SIM_ERR_TLS;
        wire_rd d = {in + r.pos, rdl, 0, 0};
        r.pos += rdl;
        if (i >= an || type != DNS_TYPE_HTTPS)
            continue;
        size_t prio = (size_t)wire_get_u(&d, 2);
        skip_name(&d, 0);
        long prev = -1;
        const uint8_t *v = NULL;
        size_t vl = 0;
        int has = 0;
        while (!d.bad && d.pos < d.len) {
            size_t k = (size_t)wire_get_u(&d, 2);
            size_t l = (size_t)wire_get_u(&d, 2);
            if (d.bad || (long)k <= prev || l > d.len - d.pos)
                return SIM_ERR_TLS;
            prev = (long)k;
            if (k == key) {
                v = d.p + d.pos;
                vl = l;
                has = 1;
            }
            d.pos += l;
        }
        if (d.bad)
            return SIM_ERR_TLS;
        if (prio != 0 && !done) {
            done = 1;
            *found = has;
            *val = v;
            *vlen = vl;
        }
    }
    if (r.pos != len)
        return SIM_ERR_TLS;
    return MTC_OK;
}
