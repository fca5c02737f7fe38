/*
 * lunits.c - quantity literals ("5h", "6e6/d"): parsing, conversion to a
 * parameter's unit, and mtcsim.quantity for the Lua side (--set). Separate
 * because both the world binding and the scenario library use it, and it
 * knows nothing of either.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "lunits.h"

typedef struct unit_name {
    const char *name;
    double seconds;
} unit_name;

static const unit_name durations[] = {
    {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"sec", 1}, {"second", 1},
    {"seconds", 1}, {"min", 60}, {"minute", 60}, {"minutes", 60},
    {"h", 3600}, {"hour", 3600}, {"hours", 3600}, {"d", 86400},
    {"day", 86400}, {"days", 86400}, {"w", 604800}, {"week", 604800},
    {"weeks", 604800}, {NULL, 0}};

static double unit_seconds(const char *u, size_t n)
{
    for (int i = 0; durations[i].name; i++)
        if (strlen(durations[i].name) == n && !strncmp(durations[i].name, u, n))
            return durations[i].seconds;
    return 0;
}

/* lunits_parse, with the literal's number and its unit's seconds apart
 * (so that "30ms" for a parameter in ms is 30 exactly, not 0.03 / 0.001). */
static int parse_parts(const char *s, double *value, double *num, double *unit_s,
                       char *err, size_t errlen);

int lunits_parse(const char *s, double *value, char *err, size_t errlen)
{
    double num, f;
    return parse_parts(s, value, &num, &f, err, errlen);
}

static int parse_parts(const char *s, double *value, double *num, double *unit_s,
                       char *err, size_t errlen)
{
    char dummy[8];
    if (!err) {
        err = dummy;
        errlen = sizeof dummy;
    }
    const char *p = s;
    while (isspace((unsigned char)*p))
        p++;
    char *end;
    double x = strtod(p, &end);
    if (end == p || !isfinite(x) || x < 0) {
        snprintf(err, errlen, "'%s' is not a quantity: expected a number "
                 ">= 0 with a unit, e.g. \"5h\", \"10min\", \"6e6/d\"", s);
        return LUNITS_NONE;
    }
    p = end;
    while (isspace((unsigned char)*p))
        p++;
    int rate = 0;
    if (*p == '/') {
        rate = 1;
        p++;
        while (isspace((unsigned char)*p))
            p++;
    }
    const char *u = p;
    while (isalpha((unsigned char)*p))
        p++;
    size_t n = (size_t)(p - u);
    while (isspace((unsigned char)*p))
        p++;
    double f = n ? unit_seconds(u, n) : 0;
    if (*p || f == 0) {
        snprintf(err, errlen, "'%s': %s; units: us ms s min h d w (durations), "
                 "/s /min /h /d (rates), e.g. \"5h\", \"6e6/d\"", s,
                 n == 0 ? "the unit is missing" : "unknown unit");
        return LUNITS_NONE;
    }
    double v = rate ? x / f : x * f;
    if (!isfinite(v)) {     /* "1e308w": finite digits, infinite seconds */
        snprintf(err, errlen, "'%s' is too large a quantity (it overflows in "
                 "seconds)", s);
        return LUNITS_NONE;
    }
    *value = v;
    *num = x;
    *unit_s = f;
    return rate ? LUNITS_RATE : LUNITS_DURATION;
}

/* Seconds per unit of a rate unit ("1/h" -> 3600), or 0. */
static double rate_unit(const char *u)
{
    if (!u || strncmp(u, "1/", 2))
        return 0;
    return unit_seconds(u + 2, strlen(u + 2));
}

int lunits_for_param(const char *s, const char *name, const char *unit,
                     double *v, char *err, size_t errlen)
{
    const char *p = s;
    while (isspace((unsigned char)*p))
        p++;
    if (!isdigit((unsigned char)*p) && *p != '.')
        return 0;
    double x, num, f;
    char why[256];
    int k = parse_parts(s, &x, &num, &f, why, sizeof why);
    if (k == LUNITS_NONE) {
        snprintf(err, errlen, "%s: %s", name, why);
        return -1;
    }
    double rf = rate_unit(unit);
    if (k == LUNITS_RATE && rf > 0) {
        *v = x * rf;
        return 1;
    }
    if (k == LUNITS_DURATION && unit && !strcmp(unit, "s")) {
        *v = x;
        return 1;
    }
    /* a parameter in another time unit (an rtt in ms): the literal in it */
    double fu = unit ? unit_seconds(unit, strlen(unit)) : 0;
    if (k == LUNITS_DURATION && fu > 0) {
        *v = f == fu ? num : num * (f / fu);
        return 1;
    }
    snprintf(err, errlen, "%s: '%s' is a %s, but the parameter's unit is '%s'",
             name, s, k == LUNITS_RATE ? "rate" : "duration", unit ? unit : "");
    return -1;
}

static int l_quantity(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    double v;
    char err[256];
    if (strlen(s) != len)   /* "5h\0x" must not read as "5h" */
        return luaL_error(L, "'%s...' is not a quantity: it contains a NUL byte", s);
    int k = lunits_parse(s, &v, err, sizeof err);
    if (k == LUNITS_NONE)
        return luaL_error(L, "%s", err);
    lua_pushnumber(L, v);
    lua_pushstring(L, k == LUNITS_RATE ? "rate" : "duration");
    return 2;
}

void lunits_register(lua_State *L)
{
    lua_pushcfunction(L, l_quantity);
    lua_setfield(L, -2, "quantity");
}
