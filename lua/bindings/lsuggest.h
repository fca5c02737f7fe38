/*
 * lsuggest.h - "did you mean" for names a scenario or a command line
 * misspells: entity names in references, sweep and --set names, metrics.
 */
#ifndef MTCSIM_LSUGGEST_H
#define MTCSIM_LSUGGEST_H

#include <stddef.h>

#include "lhost.h"

/* Levenshtein distance of two names (99 for names over 63 bytes). */
size_t lsuggest_distance(const char *a, const char *b);

/* The closest of cands[0..n) to word within a small distance (a third of
 * the word's length, at least 2), or NULL. */
const char *lsuggest_closest(const char *word, const char *const *cands,
                             size_t n);

/* When err reports an unknown entity ("... named 'w9'"), appends
 * " (did you mean 'w1'?)" if a declared entity's name is close. */
void lsuggest_entity(lhost *h, char *err, size_t errlen);

#endif
