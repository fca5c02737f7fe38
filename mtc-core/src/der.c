/*
 * der.c - strict DER decoding into slices, and a counting DER writer.
 *
 * Certificates are parsed far more often than written (every simulated
 * handshake verifies one), so decoding never allocates and checks each
 * rule once, as the bytes go by. Lengths are read with at most 4 octets:
 * nothing in an X.509 certificate we handle comes close to 2^32 bytes.
 */
#include "mtc/der.h"

#include <stdio.h>
#include <string.h>

#include "mtc/error.h"

/* ---- decoding ------------------------------------------------------------- */

void mtc_der_reader_init(mtc_der_reader *r, const uint8_t *der, size_t len)
{
    r->p = der;
    r->end = der + len;
    r->depth = 0;
}

int mtc_der_empty(const mtc_der_reader *r)
{
    return r->p == r->end;
}

int mtc_der_peek(const mtc_der_reader *r)
{
    return r->p < r->end ? r->p[0] : -1;
}

/* Parses identifier and length at p; *hdr gets the header size and *clen
 * the contents length, checked against the available bytes. */
static int read_header(const uint8_t *p, size_t avail, unsigned *tag,
                       size_t *hdr, size_t *clen)
{
    if (avail < 2)
        return avail == 0 ? MTC_ERR_DER : MTC_ERR_DER_LENGTH;
    if ((p[0] & 0x1f) == 0x1f)
        return MTC_ERR_DER; /* high tag numbers: not in our subset */
    *tag = p[0];
    size_t len = p[1];
    size_t h = 2;
    if (len & 0x80) {
        size_t n = len & 0x7f;
        if (n == 0 || n > 4) /* indefinite, or beyond 2^32 */
            return MTC_ERR_DER_LENGTH;
        if (avail < 2 + n)
            return MTC_ERR_DER_LENGTH;
        if (p[2] == 0)
            return MTC_ERR_DER_LENGTH; /* leading zero: not minimal */
        len = 0;
        for (size_t i = 0; i < n; i++)
            len = len << 8 | p[2 + i];
        if (len < 0x80)
            return MTC_ERR_DER_LENGTH; /* long form for a short length */
        if (len > MTC_DER_MAX_LEN)
            return MTC_ERR_DER_LENGTH;
        h += n;
    }
    if (len > avail - h)
        return MTC_ERR_DER_LENGTH;
    *hdr = h;
    *clen = len;
    return MTC_OK;
}

int mtc_der_get_any(mtc_der_reader *r, unsigned *tag, mtc_slice *contents,
                    mtc_slice *whole)
{
    size_t h, len;
    unsigned t;
    int rc = read_header(r->p, (size_t)(r->end - r->p), &t, &h, &len);
    if (rc != MTC_OK)
        return rc;
    if (tag)
        *tag = t;
    if (contents) {
        contents->p = r->p + h;
        contents->len = len;
    }
    if (whole) {
        whole->p = r->p;
        whole->len = h + len;
    }
    r->p += h + len;
    return MTC_OK;
}

int mtc_der_get(mtc_der_reader *r, unsigned tag, mtc_slice *contents,
                mtc_slice *whole)
{
    if (r->p == r->end || r->p[0] != tag)
        return MTC_ERR_DER;
    return mtc_der_get_any(r, NULL, contents, whole);
}

int mtc_der_enter(mtc_der_reader *r, unsigned tag, mtc_der_reader *sub,
                  mtc_slice *whole)
{
    if (r->depth + 1 > MTC_DER_MAX_DEPTH)
        return MTC_ERR_DER_DEPTH;
    mtc_slice c;
    int rc = mtc_der_get(r, tag, &c, whole);
    if (rc != MTC_OK)
        return rc;
    sub->p = c.p;
    sub->end = c.p + c.len;
    sub->depth = r->depth + 1;
    return MTC_OK;
}

int mtc_der_finish(const mtc_der_reader *r)
{
    return r->p == r->end ? MTC_OK : MTC_ERR_DER_TRAILING;
}

static int check_integer(mtc_slice c)
{
    if (c.len == 0)
        return MTC_ERR_DER;
    if (c.len > 1 && ((c.p[0] == 0x00 && !(c.p[1] & 0x80)) ||
                      (c.p[0] == 0xff && (c.p[1] & 0x80))))
        return MTC_ERR_DER;
    return MTC_OK;
}

static int check_oid(mtc_slice c)
{
    if (c.len == 0)
        return MTC_ERR_DER;
    size_t arc_bytes = 0;
    for (size_t i = 0; i < c.len; i++) {
        if (arc_bytes == 0 && c.p[i] == 0x80)
            return MTC_ERR_DER; /* leading 0x80: not minimal */
        if (++arc_bytes > 9)
            return MTC_ERR_DER; /* arc beyond 63 bits */
        if (!(c.p[i] & 0x80))
            arc_bytes = 0;
    }
    return arc_bytes == 0 ? MTC_OK : MTC_ERR_DER;
}

static int check_bits(mtc_slice c)
{
    if (c.len == 0 || c.p[0] > 7 || (c.len == 1 && c.p[0] != 0))
        return MTC_ERR_DER;
    if (c.p[0] && (c.p[c.len - 1] & ((1u << c.p[0]) - 1)))
        return MTC_ERR_DER; /* padding bits must be zero */
    return MTC_OK;
}

static int validate_in(mtc_der_reader *r)
{
    while (!mtc_der_empty(r)) {
        unsigned tag;
        mtc_slice c;
        int rc = mtc_der_get_any(r, &tag, &c, NULL);
        if (rc != MTC_OK)
            return rc;
        if (tag & MTC_DER_CONSTRUCTED) {
            if (r->depth + 1 > MTC_DER_MAX_DEPTH)
                return MTC_ERR_DER_DEPTH;
            mtc_der_reader sub = {c.p, c.p + c.len, r->depth + 1};
            if ((rc = validate_in(&sub)) != MTC_OK)
                return rc;
            continue;
        }
        switch (tag) {
        case MTC_DER_BOOLEAN:
            if (c.len != 1 || (c.p[0] != 0 && c.p[0] != 0xff))
                return MTC_ERR_DER;
            break;
        case MTC_DER_INTEGER:
            rc = check_integer(c);
            break;
        case MTC_DER_BIT_STRING:
            rc = check_bits(c);
            break;
        case MTC_DER_NULL:
            if (c.len != 0)
                return MTC_ERR_DER;
            break;
        case MTC_DER_OID:
        case MTC_DER_RELATIVE_OID:
            rc = check_oid(c);
            break;
        default:
            break;
        }
        if (rc != MTC_OK)
            return rc;
    }
    return MTC_OK;
}

int mtc_der_validate(const uint8_t *der, size_t len)
{
    mtc_der_reader r;
    mtc_der_reader_init(&r, der, len);
    mtc_slice whole;
    unsigned tag;
    int rc = mtc_der_get_any(&r, &tag, NULL, &whole);
    if (rc != MTC_OK)
        return rc;
    if (!mtc_der_empty(&r))
        return MTC_ERR_DER_TRAILING;
    mtc_der_reader_init(&r, der, len);
    return validate_in(&r);
}

int mtc_der_parse_u64(mtc_slice c, uint64_t *out)
{
    int rc = check_integer(c);
    if (rc != MTC_OK)
        return rc;
    if (c.p[0] & 0x80)
        return MTC_ERR_RANGE;
    size_t i = 0;
    if (c.p[0] == 0 && c.len > 1)
        i = 1;
    if (c.len - i > 8)
        return MTC_ERR_RANGE;
    uint64_t v = 0;
    for (; i < c.len; i++)
        v = v << 8 | c.p[i];
    *out = v;
    return MTC_OK;
}

int mtc_der_parse_bits(mtc_slice c, mtc_slice *octets)
{
    if (c.len == 0 || c.p[0] != 0)
        return MTC_ERR_DER;
    octets->p = c.p + 1;
    octets->len = c.len - 1;
    return MTC_OK;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

static int digits(const uint8_t *p, size_t n, unsigned *v)
{
    *v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        *v = *v * 10 + (unsigned)(p[i] - '0');
    }
    return 1;
}

int mtc_der_parse_time(unsigned tag, mtc_slice c, int64_t *out)
{
    size_t ylen;
    if (tag == MTC_DER_UTC_TIME)
        ylen = 2;
    else if (tag == MTC_DER_GENERALIZED_TIME)
        ylen = 4;
    else
        return MTC_ERR_DER;
    if (c.len != ylen + 11 || c.p[c.len - 1] != 'Z')
        return MTC_ERR_DER;
    unsigned y, mo, d, h, mi, s;
    if (!digits(c.p, ylen, &y) || !digits(c.p + ylen, 2, &mo) ||
        !digits(c.p + ylen + 2, 2, &d) || !digits(c.p + ylen + 4, 2, &h) ||
        !digits(c.p + ylen + 6, 2, &mi) || !digits(c.p + ylen + 8, 2, &s))
        return MTC_ERR_DER;
    if (ylen == 2)
        y += y >= 50 ? 1900 : 2000;
    static const unsigned mdays[] = {31, 28, 31, 30, 31, 30,
                                     31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo < 1 || mo > 12 || d < 1 ||
        d > mdays[mo - 1] + (mo == 2 && leap) || h > 23 || mi > 59 || s > 59)
        return MTC_ERR_DER;
    *out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
    return MTC_OK;
}

int mtc_der_oid_to_text(mtc_slice c, int relative, char *out, size_t cap)
{
    if (check_oid(c) != MTC_OK)
        return MTC_ERR_DER;
    size_t n = 0;
    uint64_t v = 0;
    int first = !relative;
    for (size_t i = 0; i < c.len; i++) {
        v = v << 7 | (c.p[i] & 0x7f);
        if (c.p[i] & 0x80)
            continue;
        size_t room = cap > n ? cap - n : 0;
        int w;
        if (first) {
            unsigned a = v < 80 ? (unsigned)(v / 40) : 2;
            w = snprintf(out + n, room, "%u.%llu", a,
                         (unsigned long long)(v - 40u * a));
            first = 0;
        } else {
            w = snprintf(out + n, room, "%s%llu", n ? "." : "",
                         (unsigned long long)v);
        }
        if (w < 0 || (size_t)w >= room)
            return MTC_ERR_LIMIT;
        n += (size_t)w;
        v = 0;
    }
    return MTC_OK;
}

int mtc_der_oid_from_text(const char *text, size_t text_len, int relative,
                          uint8_t *out, size_t cap, size_t *out_len)
{
    uint64_t arcs[64];
    size_t na = 0, i = 0;
    while (i < text_len) {
        if (na == 64)
            return MTC_ERR_LIMIT;
        if (text[i] < '0' || text[i] > '9')
            return MTC_ERR_PARSE;
        if (text[i] == '0' && i + 1 < text_len && text[i + 1] != '.')
            return MTC_ERR_PARSE; /* leading zero */
        uint64_t v = 0;
        while (i < text_len && text[i] >= '0' && text[i] <= '9') {
            unsigned dgt = (unsigned)(text[i] - '0');
            if (v > (UINT64_MAX - dgt) / 10)
                return MTC_ERR_PARSE;
            v = v * 10 + dgt;
            i++;
        }
        arcs[na++] = v;
        if (i < text_len) {
            if (text[i] != '.' || i + 1 == text_len)
                return MTC_ERR_PARSE;
            i++;
        }
    }
    if (na == 0 || (!relative && na < 2))
        return MTC_ERR_PARSE;
    size_t first = 0;
    if (!relative) {
        if (arcs[0] > 2 || (arcs[0] < 2 && arcs[1] > 39) ||
            arcs[1] > UINT64_MAX - 80)
            return MTC_ERR_PARSE;
        arcs[1] += arcs[0] * 40;
        first = 1;
    }
    size_t n = 0;
    for (size_t a = first; a < na; a++) {
        uint8_t tmp[10];
        size_t t = 0;
        uint64_t v = arcs[a];
        do {
            tmp[t++] = (uint8_t)(v & 0x7f);
            v >>= 7;
        } while (v);
        if (t > 9)
            return MTC_ERR_PARSE; /* 64-bit arcs need 10 groups: refuse */
        if (n + t > cap)
            return MTC_ERR_LIMIT;
        while (t--)
            out[n++] = (uint8_t)(tmp[t] | (t ? 0x80 : 0));
    }
    *out_len = n;
    return MTC_OK;
}

/* ---- encoding --------------------------------------------------------------- */

void mtc_der_writer_init(mtc_der_writer *w, uint8_t *buf, size_t cap)
{
    w->buf = buf;
    w->cap = buf ? cap : 0;
    w->len = 0;
    w->err = MTC_OK;
}

void mtc_der_raw(mtc_der_writer *w, const void *p, size_t len)
{
    if (w->err == MTC_OK && len <= w->cap - w->len) {
        if (len)
            memcpy(w->buf + w->len, p, len);
    } else {
        w->err = MTC_ERR_LIMIT;
    }
    w->len += len;
}

size_t mtc_der_header_len(size_t clen)
{
    size_t n = 2;
    if (clen >= 0x80)
        for (size_t l = clen; l; l >>= 8)
            n++;
    return n;
}

static void put_header(mtc_der_writer *w, unsigned tag, size_t clen)
{
    uint8_t h[6];
    size_t n = mtc_der_header_len(clen);
    h[0] = (uint8_t)tag;
    if (n == 2) {
        h[1] = (uint8_t)clen;
    } else {
        h[1] = (uint8_t)(0x80 | (n - 2));
        for (size_t i = n - 1; i >= 2; i--, clen >>= 8)
            h[i] = (uint8_t)clen;
    }
    mtc_der_raw(w, h, n);
}

void mtc_der_header(mtc_der_writer *w, unsigned tag, size_t contents_len)
{
    put_header(w, tag, contents_len);
}

uint8_t *mtc_der_reserve(mtc_der_writer *w, size_t n)
{
    if (w->err == MTC_OK && n <= w->cap - w->len) {
        uint8_t *p = w->buf + w->len;
        w->len += n;
        return p;
    }
    w->err = MTC_ERR_LIMIT;
    w->len += n;
    return NULL;
}

void mtc_der_prim(mtc_der_writer *w, unsigned tag, const void *contents,
                  size_t len)
{
    put_header(w, tag, len);
    mtc_der_raw(w, contents, len);
}

size_t mtc_der_open(mtc_der_writer *w, unsigned tag)
{
    size_t mark = w->len;
    uint8_t h[2] = {(uint8_t)tag, 0};
    mtc_der_raw(w, h, 2);
    return mark;
}

void mtc_der_close(mtc_der_writer *w, size_t mark)
{
    size_t clen = w->len - mark - 2;
    size_t n = mtc_der_header_len(clen);
    size_t extra = n - 2;
    if (w->err != MTC_OK || extra > w->cap - w->len) {
        w->err = MTC_ERR_LIMIT;
        w->len += extra;
        return;
    }
    uint8_t *h = w->buf + mark;
    if (extra)
        memmove(h + n, h + 2, clen);
    if (n == 2) {
        h[1] = (uint8_t)clen;
    } else {
        h[1] = (uint8_t)(0x80 | extra);
        for (size_t i = n - 1; i >= 2; i--, clen >>= 8)
            h[i] = (uint8_t)clen;
    }
    w->len += extra;
}

void mtc_der_u64(mtc_der_writer *w, uint64_t v)
{
    uint8_t b[9];
    size_t n = 0;
    int started = 0;
    for (int i = 7; i >= 0; i--) {
        uint8_t x = (uint8_t)(v >> (8 * i));
        if (!started && x == 0 && i > 0)
            continue;
        if (!started && (x & 0x80))
            b[n++] = 0;
        started = 1;
        b[n++] = x;
    }
    mtc_der_prim(w, MTC_DER_INTEGER, b, n);
}

void mtc_der_bits(mtc_der_writer *w, const void *octets, size_t len)
{
    put_header(w, MTC_DER_BIT_STRING, len + 1);
    uint8_t z = 0;
    mtc_der_raw(w, &z, 1);
    mtc_der_raw(w, octets, len);
}

void mtc_der_time(mtc_der_writer *w, int64_t t)
{
    int64_t days = t / 86400, secs = t % 86400;
    if (secs < 0) {
        secs += 86400;
        days--;
    }
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    char s[64];
    unsigned hh = (unsigned)(secs / 3600), mi = (unsigned)(secs / 60 % 60),
             ss = (unsigned)(secs % 60);
    if (y >= 1950 && y <= 2049) {
        snprintf(s, sizeof s, "%02u%02u%02u%02u%02u%02uZ", (unsigned)(y % 100),
                 m, d, hh, mi, ss);
        mtc_der_prim(w, MTC_DER_UTC_TIME, s, 13);
    } else {
        snprintf(s, sizeof s, "%04u%02u%02u%02u%02u%02uZ",
                 (unsigned)(y < 0 ? 0 : y > 9999 ? 9999 : y), m, d, hh, mi, ss);
        mtc_der_prim(w, MTC_DER_GENERALIZED_TIME, s, 15);
    }
}
