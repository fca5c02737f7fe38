/*
 * lrecord.h - what a run records about the scenario beyond parameters:
 * the world actions it scheduled with sim:at (time, action, target,
 * arguments), so that analyses can mark them on time series, and the
 * files it loaded with their SHA-256, so that a resume can tell that they
 * changed.
 */
#ifndef MTCSIM_LRECORD_H
#define MTCSIM_LRECORD_H

#include <stddef.h>

#include "lhost.h"

/* World actions recorded at most (the first, in declaration order): a
 * scenario may schedule millions, a results file needs the markers. */
#define LRECORD_MAX 1000

typedef void (*lrecord_fn)(void *ctx, const char *name, const char *value);

/*
 * Calls fn(ctx, name, value) for each world action the scenario scheduled
 * with sim:at(t, "action", target, args...) before the run, in time order
 * (ties: declaration order): name "action.0001", "action.0002", ...;
 * value "T ACTION TARGET [ARG ...]" with T in seconds from the start of
 * the run and numbers in %.17g. Returns the count. Actions scheduled from
 * callbacks during the run are not included, nor those past the first
 * LRECORD_MAX. Call after lworld_build (which keeps only those records).
 * Then, as attributes too, the files of the scenario's directory the state
 * loaded or read (lhost_loaded_files): name "loaded:NAME" (NAME relative to
 * the directory), value the SHA-256 of their bytes, which --resume
 * compares with the files as they are now. The count includes them.
 */
size_t lrecord_actions(lhost *h, lrecord_fn fn, void *ctx);

#endif
