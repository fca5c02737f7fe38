/*
 * lcore.h - what the two halves of mtcsim.core share (lcore.c: hashes,
 * trees, proofs, parsing; lcore_ca.c: the small CA, its relying party,
 * the baseline chains). Internal to the bindings.
 */
#ifndef MTCSIM_LCORE_H
#define MTCSIM_LCORE_H

#include <stdint.h>

#include <lua.h>

#include "lhost.h"
#include "mtc/sig.h"

#define CORE_EPOCH 1767225600   /* 2026-01-01, as the world's default */

/* Work in C, in VM instructions (lhost_count): timings of the slowest
 * algorithm (ML-DSA-87) at about 200 instructions per microsecond. */
#define COST_KEY 200000
#define COST_SIGN 200000
#define COST_CERT 80000
#define COST_VERIFY 5000
#define COST_BASELINE 1000000
#define COST_HASH 200
#define COST_PROOF 500

/* Raises "what: <mtc_strerror(rc)>". */
int lcore__fail(lua_State *L, const char *what, int rc);
/* Argument i as an integer >= 0 (raises otherwise). */
uint64_t lcore__check_u64(lua_State *L, int i);
/* Argument i as a signature algorithm name (def when absent). */
mtc_sig_alg lcore__check_alg(lua_State *L, int i, const char *def);
/* A protected metatable (__metatable: a scenario that could read it could
 * call __gc on a live object) with methods meth and finalizer gc. */
void lcore__new_mt(lua_State *L, const char *name, const luaL_Reg *meth,
                   lua_CFunction gc);
/* Registers the CA and relying-party types and sets core.ca and
 * core.baseline in the table at the top of the stack. */
void lcore__register_ca(lua_State *L);

#endif
