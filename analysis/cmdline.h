/*
 * cmdline.h - a stored command line read back as words. `mtcsim run`
 * stores the command it ran with, shell-quoted where an argument needs it
 * (docs/results.md, experiment.command_line); `--resume` compares it
 * with the options typed now, and `compare` reads from it which entity
 * parameters were set from the command line (their values are recorded
 * as the entity's own, so only the command says they were overrides).
 *
 * Pure functions over caller-owned buffers; nothing is allocated.
 */
#ifndef MTCSIM_CMDLINE_H
#define MTCSIM_CMDLINE_H

#include <stddef.h>

/* Splits a POSIX-shell-quoted line into words (single and double quotes,
 * backslash escapes) in buf; argv[i] point into buf. Returns the count,
 * or -1 when it does not fit or a quote is unterminated. */
long cmdline_split(const char *line, char *buf, size_t buflen, char **argv,
                   size_t maxargs);

/* The `--set NAME=VALUE` arguments of a stored command line whose NAME
 * names an entity's parameter (it holds a '.': KIND.ENTITY.PARAM,
 * KIND.*.PARAM, *.PARAM, world.PARAM), sorted and joined by '\n' into
 * out (cap bytes). Returns 0, or -1 when the line does not split or the
 * list does not fit (then out is ""). */
int cmdline_entity_sets(const char *line, char *out, size_t cap);

#endif
