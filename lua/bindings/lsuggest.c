/*
 * lsuggest.c - near-miss names: edit distance, the closest candidate, and
 * the declared entity an "unknown name" error probably meant. Separate:
 * the world binding, the run command and the read commands all use it.
 */
#include <stdio.h>
#include <string.h>

#include "lsuggest.h"
#include "lworld_internal.h"

size_t lsuggest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t c = prev[j - 1] + (a[i - 1] != b[j - 1]);
            c = prev[j] + 1 < c ? prev[j] + 1 : c;
            c = cur[j - 1] + 1 < c ? cur[j - 1] + 1 : c;
            cur[j] = c;
        }
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

const char *lsuggest_closest(const char *word, const char *const *cands,
                             size_t n)
{
    size_t limit = strlen(word) / 3;
    limit = limit < 2 ? 2 : limit;
    const char *best = NULL;
    size_t bd = limit + 1;
    for (size_t i = 0; i < n; i++) {
        size_t d = lsuggest_distance(word, cands[i]);
        if (d < bd && d > 0) {
            bd = d;
            best = cands[i];
        }
    }
    return best;
}

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
    const char *best = lsuggest_closest(word, cands, n);
    size_t len = strlen(err);
    if (best && len < errlen)
        snprintf(err + len, errlen - len, " (did you mean '%s'?)", best);
    lua_settop(L, top);
}
