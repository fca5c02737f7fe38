/*
 * safetext.c - escaping text from a database for the terminal
 * (safetext.h).
 */
#include "safetext.h"

#include <string.h>

/* Length of the valid, printable UTF-8 sequence at s (1..4), or 0 when
 * s[0] must be escaped. */
static size_t printable_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c >= 0x20 && c < 0x7f)
        return c == '\\' ? 0 : 1;
    size_t n;
    unsigned cp, min;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2, cp = c & 0x1f, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3, cp = c & 0x0f, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
        (cp >= 0x80 && cp <= 0x9f))
        return 0;
    return n;
}

/* The escape of byte c into e (at most 5 bytes with the NUL). */
static void escape_byte(unsigned char c, char e[5])
{
    static const char hex[] = "0123456789abcdef";
    if (c == '\n' || c == '\t' || c == '\\') {
        e[0] = '\\';
        e[1] = c == '\n' ? 'n' : c == '\t' ? 't' : '\\';
        e[2] = 0;
        return;
    }
    e[0] = '\\';
    e[1] = 'x';
    e[2] = hex[c >> 4];
    e[3] = hex[c & 15];
    e[4] = 0;
}

void safetext_fputs(const char *s, FILE *f)
{
    const unsigned char *p = (const unsigned char *)s;
    while (p && *p) {
        size_t n = printable_len(p);
        if (n) {
            fwrite(p, 1, n, f);
            p += n;
        } else {
            char e[5];
            escape_byte(*p++, e);
            fputs(e, f);
        }
    }
}

char *safetext(const char *s, char *buf, size_t cap)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t k = 0;
    if (!cap)
        return buf;
    while (p && *p) {
        size_t n = printable_len(p);
        char e[5];
        const char *piece = (const char *)p;
        if (!n) {
            escape_byte(*p, e);
            piece = e;
            n = strlen(e);
        }
        if (k + n >= cap)
            break;
        memcpy(buf + k, piece, n);
        k += n;
        p += piece == e ? 1 : n;
    }
    buf[k] = 0;
    return buf;
}
