/*
 * sim/names.h - near-miss names, for "did you mean" in error messages:
 * the edit distance of two names and the closest of a list. Shared by the
 * scenario bindings (entity, sweep and --set names) and the analysis
 * commands (metric names); pure functions of their arguments.
 */
#ifndef SIM_NAMES_H
#define SIM_NAMES_H

#include <stddef.h>

/* Levenshtein distance of two names (99 for names over 63 bytes). */
size_t sim_name_distance(const char *a, const char *b);

/* The closest of cands[0..n) to word within a small distance (a third of
 * the word's length, at least 2), not word itself, or NULL. */
const char *sim_name_closest(const char *word, const char *const *cands,
                             size_t n);

#endif
