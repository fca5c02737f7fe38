/*
 * cli.c - argument helpers shared by the mtc subcommands.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "mtc %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_USAGE;
}

int cli_parse_u64(const char *cmd, const char *what, const char *s,
                  uint64_t *out)
{
    if (!s || !*s)
        return cli_usage_error(cmd, "%s is missing", what);
    if (*s == '-' || *s == '+')
        return cli_usage_error(cmd, "%s '%s' is not a non-negative integer",
                               what, s);
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return cli_usage_error(cmd,
                                   "%s '%s' is not a decimal integer", what, s);
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return cli_usage_error(cmd, "%s '%s' does not fit in 64 bits", what, s);
    *out = (uint64_t)v;
    return 0;
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    return 0;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
