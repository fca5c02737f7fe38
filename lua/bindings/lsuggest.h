/*
 * lsuggest.h - "did you mean" for an entity name a scenario misspells
 * (edit distance and the closest of a list: sim/names.h).
 */
#ifndef MTCSIM_LSUGGEST_H
#define MTCSIM_LSUGGEST_H

#include <stddef.h>

#include "lhost.h"

/* When err reports an unknown entity ("... named 'w9'"), appends
 * " (did you mean 'w1'?)" if a declared entity's name is close. */
void lsuggest_entity(lhost *h, char *err, size_t errlen);

#endif
