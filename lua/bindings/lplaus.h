/*
 * lplaus.h - plausible ranges of parameters, and the warnings a scenario's
 * declarations collect against them.
 *
 * A schema's range says what the model accepts; a plausible range says
 * what a deployment could mean. `update_interval = 5` is accepted (five
 * seconds) but almost surely meant hours(5): the value is kept, and a
 * warning names the parameter, the declaration's file:line and what was
 * probably meant. The ranges are the descriptors' (plaus_lo, plaus_hi,
 * plaus_what in sim/params.h). The warnings live in the scenario's Lua state; the
 * command prints them (or, under --strict, refuses to run).
 */
#ifndef MTCSIM_LPLAUS_H
#define MTCSIM_LPLAUS_H

#include <stddef.h>

#include <lua.h>

#include "sim/params.h"
#include "sim/world.h"

/* Checks the parameters given in the declaration table at tidx (values
 * as set in cfg) of an entity of schema s; label ("browsers 'chrome'")
 * and where ("file:line") prefix the warnings. */
void lplaus_check_entity(lua_State *L, const sim_param_schema *s,
                         const void *cfg, int tidx, const char *label,
                         const char *where);

/* Checks the numeric arguments at stack indices first..first+n-1 of a
 * declared sim:at action (its duration arguments). */
void lplaus_check_action(lua_State *L, const sim_world_action *a, int first,
                         int n, const char *where);

/* The warnings collected in L, in declaration order: their count, and
 * the i-th (owned by L; valid while the state lives). */
size_t lplaus_count(lua_State *L);
const char *lplaus_get(lua_State *L, size_t i);

#endif
