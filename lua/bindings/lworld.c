/*
 * lworld.c - the world binding's entry: lworld_register() (what the host
 * installs into the mtcsim table), mtcsim.schemas() and mtcsim.actions(),
 * and the registry and file:line helpers every part of the binding uses.
 */
#include "lworld_internal.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

lworld *lworld__current(lua_State *L)
{
    return lhost_get_user(lhost_of(L));
}

/* ---- helpers ------------------------------------------------------------- */

void lworld__push_reg_table(lua_State *L, const char *key)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, key);
    }
}

void lworld__append_reg(lua_State *L, const char *key)
{
    lworld__push_reg_table(L, key);
    lua_insert(L, -2);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pop(L, 1);
}

/* "file:line" of the Lua code at `level` ("" when unknown). */
void lworld__where(lua_State *L, int level, char *out)
{
    luaL_where(L, level);
    snprintf(out, WHERE_MAX, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    size_t n = strlen(out);
    if (n >= 2 && out[n - 2] == ':' && out[n - 1] == ' ')
        out[n - 2] = 0;
}

/* "where: " or "" */
const char *lworld__wsep(const char *w)
{
    return *w ? ": " : "";
}

/* mtcsim.schemas(): {kind = {doc=, params={{name, type, unit, min, max,
 * doc, default}, ...}}} for teaching and the docs. */
static int l_schemas(lua_State *L)
{
    static const char *const tn[] = {"", "int", "real", "duration", "bool",
                                      "string", "enum", "dist", "profile",
                                      "list"};
    size_t n;
    n = sim_world_kind_count();
    lua_newtable(L);
    for (size_t i = 0; i < n; i++) {
        const sim_param_schema *s = sim_world_kind(i);
        void *cfg = NULL;
        sim_param_config_new(s, &cfg);
        lua_newtable(L);
        lua_pushstring(L, s->doc);
        lua_setfield(L, -2, "doc");
        lua_newtable(L);
        for (size_t j = 0; j < s->count; j++) {
            const sim_param_desc *d = &s->params[j];
            lua_newtable(L);
            lua_pushstring(L, d->name);
            lua_setfield(L, -2, "name");
            lua_pushstring(L, tn[d->type]);
            lua_setfield(L, -2, "type");
            lua_pushstring(L, d->unit ? d->unit : "");
            lua_setfield(L, -2, "unit");
            lua_pushstring(L, d->doc ? d->doc : "");
            lua_setfield(L, -2, "doc");
            if (d->type == SIM_PARAM_INT || d->type == SIM_PARAM_REAL ||
                d->type == SIM_PARAM_DURATION) {
                lua_pushnumber(L, d->min);
                lua_setfield(L, -2, "min");
                lua_pushnumber(L, d->max);
                lua_setfield(L, -2, "max");
            }
            if (d->type == SIM_PARAM_ENUM && d->choices) {
                lua_newtable(L);
                for (int c = 0; d->choices[c]; c++) {
                    lua_pushstring(L, d->choices[c]);
                    lua_rawseti(L, -2, c + 1);
                }
                lua_setfield(L, -2, "choices");
            }
            if (cfg) {
                /* a list default can be long (the chain mix): measured,
                 * never cut */
                int len = sim_param_format(d, cfg, NULL, 0);
                luaL_Buffer b;
                char *buf = luaL_buffinitsize(L, &b, (size_t)len + 1);
                sim_param_format(d, cfg, buf, (size_t)len + 1);
                luaL_pushresultsize(&b, (size_t)len);
                lua_setfield(L, -2, "default");
            }
            lua_rawseti(L, -2, (lua_Integer)j + 1);
        }
        lua_setfield(L, -2, "params");
        lua_setfield(L, -2, s->kind);
        sim_param_config_free(s, cfg);
    }
    return 1;
}

/* mtcsim.actions(): {{name, kind, min_args, max_args, args, doc}, ...} */
static int l_actions(lua_State *L)
{
    size_t n;
    n = sim_world_action_count();
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        const sim_world_action *a = sim_world_action_at(i);
        lua_newtable(L);
        lua_pushstring(L, a->name);
        lua_setfield(L, -2, "name");
        lua_pushstring(L, a->kind);
        lua_setfield(L, -2, "kind");
        lua_pushinteger(L, (lua_Integer)a->min_args);
        lua_setfield(L, -2, "min_args");
        lua_pushinteger(L, (lua_Integer)a->max_args);
        lua_setfield(L, -2, "max_args");
        lua_pushstring(L, a->args_doc ? a->args_doc : "");
        lua_setfield(L, -2, "args");
        lua_pushstring(L, a->doc ? a->doc : "");
        lua_setfield(L, -2, "doc");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

void lworld_register(lua_State *L)
{
    luaL_newmetatable(L, RATE_MT);  /* filled in by mtcsim.lua */
    lua_setfield(L, -2, "rate_mt");
    lworld__entity_register(L);
    lua_pushcfunction(L, l_schemas);
    lua_setfield(L, -2, "schemas");
    /* the kinds alone, for the library's setup: schemas() formats every
     * default of every kind, a fifth of a state's creation */
    size_t nk;
    nk = sim_world_kind_count();
    lua_createtable(L, (int)nk, 0);
    for (size_t i = 0; i < nk; i++) {
        lua_pushstring(L, sim_world_kind(i)->kind);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "kind_names");
    lua_pushcfunction(L, l_actions);
    lua_setfield(L, -2, "actions");
    lworld__sim_register(L);
}
