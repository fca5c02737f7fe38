/*
 * lsuggest.c - the declared entity an "unknown name" error probably meant
 * (the distance and the closest name are sim/names.h's).
 */
#include <stdio.h>
#include <string.h>

#include "lsuggest.h"
#include "sim/names.h"
#include "lworld_internal.h"

void lsuggest_entity(lhost *h, char *err, size_t errlen)
{
    const char *k = strstr(err, "named '");
    if (!h || !k || strstr(err, "did you mean"))
        return;
    char word[SIM_PARAM_NAME_MAX];
    const char *q = strchr(k + 7, '\'');
    if (!q || (size_t)(q - (k + 7)) >= sizeof word)
        return;
    snprintf(word, sizeof word, "%.*s", (int)(q - (k + 7)), k + 7);
    lua_State *L = lhost_state(h);
    const char *cands[256];
    size_t n = 0;
    int top = lua_gettop(L);
    if (lua_getfield(L, LUA_REGISTRYINDEX, K_NAMES) == LUA_TTABLE) {
        lua_pushnil(L);
        while (n < 256 && lua_next(L, -2)) {
            lua_pop(L, 1);
            if (lua_type(L, -1) == LUA_TSTRING)
                cands[n++] = lua_tostring(L, -1);   /* keys stay in the table */
        }
    }
    const char *best = sim_name_closest(word, cands, n);
    size_t len = strlen(err);
    if (best && len < errlen)
        snprintf(err + len, errlen - len, " (did you mean '%s'?)", best);
    lua_settop(L, top);
}
