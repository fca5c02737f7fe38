/*
 * cmdline.c - a stored command line read back as words (cmdline.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"

long cmdline_split(const char *line, char *buf, size_t buflen, char **argv,
                   size_t maxargs)
{
    size_t n = 0, k = 0;
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        if (n == maxargs)
            return -1;
        argv[n++] = buf + k;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            if (k + 2 > buflen)
                return -1;
            if (*p == '\'') {
                for (p++; *p && *p != '\''; p++) {
                    if (k + 2 > buflen)
                        return -1;
                    buf[k++] = *p;
                }
                if (!*p)
                    return -1;
                p++;
            } else if (*p == '"') {
                for (p++; *p && *p != '"'; p++) {
                    if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
                        p++;
                    if (k + 2 > buflen)
                        return -1;
                    buf[k++] = *p;
                }
                if (!*p)
                    return -1;
                p++;
            } else if (*p == '\\' && p[1]) {
                buf[k++] = p[1];
                p += 2;
            } else {
                buf[k++] = *p++;
            }
        }
        buf[k++] = '\0';
    }
    return (long)n;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cmdline_entity_sets(const char *line, char *out, size_t cap)
{
    enum { MAXW = 1024 };
    static const size_t buflen = 16384;
    char *buf = malloc(buflen);
    char *w[MAXW], *sets[MAXW];
    out[0] = '\0';
    long n = buf ? cmdline_split(line, buf, buflen, w, MAXW) : -1;
    size_t ns = 0;
    for (long i = 0; i + 1 < n; i++) {
        if (strcmp(w[i], "--set"))
            continue;
        const char *eq = strchr(w[i + 1], '=');
        const char *dot = strchr(w[i + 1], '.');
        if (eq && dot && dot < eq)
            sets[ns++] = w[i + 1];
        i++;
    }
    qsort(sets, ns, sizeof *sets, by_text);
    int rc = n < 0 ? -1 : 0;
    size_t len = 0;
    for (size_t i = 0; !rc && i < ns; i++) {
        size_t l = strlen(sets[i]);
        if (len + l + 2 > cap) {
            rc = -1;
            break;
        }
        memcpy(out + len, sets[i], l);
        len += l;
        out[len++] = '\n';
        out[len] = '\0';
    }
    if (rc)
        out[0] = '\0';
    free(buf);
    return rc;
}
