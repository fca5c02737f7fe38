/*
 * lunits.h - quantity literals with their unit, for scenarios and --set:
 * "5h", "10min", "1.5 d", "250ms", "2w" (durations) and "6e6/d", "20/h",
 * "3/min", "69/s" (rates). A number without a unit means seconds or per
 * second, and a unit slip there goes unseen; a literal says what it means.
 */
#ifndef MTCSIM_LUNITS_H
#define MTCSIM_LUNITS_H

#include <stddef.h>

#include <lua.h>

enum { LUNITS_NONE = 0, LUNITS_DURATION = 1, LUNITS_RATE = 2 };

/* Parses a quantity literal into *value (seconds, or events per second).
 * Returns LUNITS_DURATION or LUNITS_RATE, or LUNITS_NONE with a message in
 * err (which may be NULL) when s is not one. */
int lunits_parse(const char *s, double *value, char *err, size_t errlen);

/* The number a literal means for a parameter whose unit is `unit` ("s",
 * another time unit such as "ms" (a duration converted to it: "30ms" is
 * 30, "0.1s" is 100), "1/s", "1/min", "1/h", "1/d"; name for messages): 1 with *v set, -1 with
 * a message in err (not a literal, or a duration for a rate parameter and
 * the like), 0 when s does not even start like a number (let the caller
 * report a wrong type). */
int lunits_for_param(const char *s, const char *name, const char *unit,
                     double *v, char *err, size_t errlen);

/* Sets field "quantity" of the table on top: quantity(s) returns the
 * number (seconds or per second) and "duration" or "rate", or raises. */
void lunits_register(lua_State *L);

#endif
