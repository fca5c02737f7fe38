/*
 * lclib.c - the standard library's C loops under the instruction budget
 * and the interrupt flag (the sandbox only; lhost.h is the policy).
 *
 * Lua's string, table, utf8, base and os functions loop in C, where the
 * count hook never fires: `table.move({}, 1, 1 << 62, 1, {})` or
 * `string.rep("", 1 << 62)` would run for ever under any limit and never
 * see SIGINT, and `s:upper()` of 64 MiB or `load` of a large chunk would
 * run far past the budget in one call. Two remedies, by the loop's shape:
 *
 *   - loops whose length the arguments choose, whatever the memory
 *     (table.insert, remove, move, concat, unpack, whose bounds come from
 *     arguments or a __len metamethod, elements from __index tables that
 *     run no Lua code; string.rep with an empty string): replaced here by
 *     Lua 5.4's own algorithms (ltablib.c, lstrlib.c, MIT licence) that
 *     charge their steps as they go through lhost_count, so they stop at
 *     the limit or at the interrupt flag, between two steps;
 *   - work proportional to the size of the arguments (upper, lower,
 *     reverse, byte, format, pack, unpack, utf8.len/offset/codepoint,
 *     tonumber and the arithmetic on strings, load, os.date): charged
 *     before the real function runs, so a call that would pass the budget
 *     does not start.
 *
 * Costs are in VM instructions' worth, as lhost_count takes them (a few
 * nanoseconds each): a table element read or written through the API
 * costs COST_ELEM; a byte of work done character by character (case
 * mapping, parsing, formatting) costs 1; a byte copied costs 1/8.
 */
#include "lhost_internal.h"

#include <limits.h>
#include <string.h>

#include <lauxlib.h>

#define COST_ELEM 4

/* ---- table: Lua 5.4's ltablib.c, its loops counted ------------------------ */

#define TAB_R 1
#define TAB_W 2
#define TAB_L 4
#define TAB_RW (TAB_R | TAB_W)

static int checkfield(lua_State *L, const char *key, int n)
{
    lua_pushstring(L, key);
    return lua_rawget(L, -n) != LUA_TNIL;
}

/* A table, or an object whose metatable has the fields `what` needs. */
static void checktab(lua_State *L, int arg, int what)
{
    if (lua_type(L, arg) != LUA_TTABLE) {
        int n = 1;
        if (lua_getmetatable(L, arg) &&
            (!(what & TAB_R) || checkfield(L, "__index", ++n)) &&
            (!(what & TAB_W) || checkfield(L, "__newindex", ++n)) &&
            (!(what & TAB_L) || checkfield(L, "__len", ++n)))
            lua_pop(L, n);
        else
            luaL_checktype(L, arg, LUA_TTABLE);
    }
}

static lua_Integer aux_getn(lua_State *L, int n, int what)
{
    checktab(L, n, what | TAB_L);
    return luaL_len(L, n);
}

static int t_insert(lua_State *L)
{
    lua_Integer pos;
    lua_Integer e = aux_getn(L, 1, TAB_RW);
    e = (lua_Integer)((lua_Unsigned)e + 1u);   /* first empty element */
    switch (lua_gettop(L)) {
    case 2:
        pos = e;
        break;
    case 3: {
        lhost_meter c = {L, 0};
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2,
                      "position out of bounds");
        for (lua_Integer i = e; i > pos; i--) {
            lhost_meter_add(&c, COST_ELEM);
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        lhost_meter_flush(&c);
        break;
    }
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

static int t_remove(lua_State *L)
{
    lhost_meter c = {L, 0};
    lua_Integer size = aux_getn(L, 1, TAB_RW);
    lua_Integer pos = luaL_optinteger(L, 2, size);
    if (pos != size)
        luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2,
                      "position out of bounds");
    lua_geti(L, 1, pos);
    for (; pos < size; pos++) {
        lhost_meter_add(&c, COST_ELEM);
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lhost_meter_flush(&c);
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

static int t_move(lua_State *L)
{
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    int tt = !lua_isnoneornil(L, 5) ? 5 : 1;
    checktab(L, 1, TAB_R);
    checktab(L, tt, TAB_W);
    if (e >= f) {
        lhost_meter c = {L, 0};
        luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3,
                      "too many elements to move");
        lua_Integer n = e - f + 1;
        luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4,
                      "destination wrap around");
        if (t > e || t <= f || (tt != 1 && !lua_compare(L, 1, tt, LUA_OPEQ))) {
            for (lua_Integer i = 0; i < n; i++) {
                lhost_meter_add(&c, COST_ELEM);
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        } else {
            for (lua_Integer i = n - 1; i >= 0; i--) {
                lhost_meter_add(&c, COST_ELEM);
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        }
        lhost_meter_flush(&c);
    }
    lua_pushvalue(L, tt);
    return 1;
}

static void addfield(lua_State *L, luaL_Buffer *b, lua_Integer i, lhost_meter *c)
{
    lua_geti(L, 1, i);
    if (!lua_isstring(L, -1))
        luaL_error(L, "invalid value (at index %I) in table for 'concat'", i);
    lhost_meter_add(c, COST_ELEM + lua_rawlen(L, -1) / 8);
    luaL_addvalue(b);
}

static int t_concat(lua_State *L)
{
    luaL_Buffer b;
    lhost_meter c = {L, 0};
    lua_Integer last = aux_getn(L, 1, TAB_R);
    size_t lsep;
    const char *sep = luaL_optlstring(L, 2, "", &lsep);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    last = luaL_optinteger(L, 4, last);
    luaL_buffinit(L, &b);
    for (; i < last; i++) {
        addfield(L, &b, i, &c);
        lhost_meter_add(&c, lsep / 8);
        luaL_addlstring(&b, sep, lsep);
    }
    if (i == last)
        addfield(L, &b, i, &c);
    lhost_meter_flush(&c);
    luaL_pushresult(&b);
    return 1;
}

static int t_unpack(lua_State *L)
{
    lua_Integer i = luaL_optinteger(L, 2, 1);
    lua_Integer e = lua_isnoneornil(L, 3) ? luaL_len(L, 1)
                                           : luaL_checkinteger(L, 3);
    if (i > e)
        return 0;
    lua_Unsigned n = (lua_Unsigned)e - (lua_Unsigned)i;
    if (n >= (unsigned)INT_MAX || !lua_checkstack(L, (int)(++n)))
        return luaL_error(L, "too many results to unpack");
    lhost_count(L, (uint64_t)n * COST_ELEM);
    for (; i < e; i++)
        lua_geti(L, 1, i);
    lua_geti(L, 1, e);
    return (int)n;
}

/* ---- string.rep: Lua 5.4's lstrlib.c, counted ------------------------------ */

static int s_rep(lua_State *L)
{
    size_t l, lsep;
    const char *s = luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    const char *sep = luaL_optlstring(L, 3, "", &lsep);
    /* MAXSIZE of lstrlib.c: what both size_t and lua_Integer hold */
    const size_t maxsize = sizeof(size_t) < sizeof(lua_Integer)
                               ? (size_t)-1 : (size_t)LUA_MAXINTEGER;
    if (n <= 0 || l + lsep == 0) {
        /* nothing to copy: Lua's loop would spin n times for "" */
        lua_pushliteral(L, "");
        return 1;
    }
    if (l + lsep < l || l + lsep > maxsize / (size_t)n)
        return luaL_error(L, "resulting string too large");
    size_t total = (size_t)n * l + (size_t)(n - 1) * lsep;
    lhost_meter c = {L, 0};
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, total);
    while (n-- > 1) {
        lhost_meter_add(&c, 1 + (l + lsep) / 8);
        memcpy(p, s, l);
        p += l;
        if (lsep > 0) {
            memcpy(p, sep, lsep);
            p += lsep;
        }
    }
    memcpy(p, s, l);
    lhost_meter_flush(&c);
    luaL_pushresultsize(&b, total);
    return 1;
}

/* ---- charged before the real function ------------------------------------ */

/* What a wrapped function's work is proportional to. */
enum charge_rule {
    BYTES_OF_STRINGS = 1,   /* every string argument, 1 per byte */
    BYTES_OF_FIRST,         /* the first argument if a string, 1 per byte */
    SLICE_OF_FIRST,         /* s, i, j as string.byte: the values pushed */
    UNPACK_FORMAT           /* string.unpack(fmt, s): see below */
};

static uint64_t str_len_at(lua_State *L, int i)
{
    return lua_type(L, i) == LUA_TSTRING ? (uint64_t)lua_rawlen(L, i) : 0;
}

/* string.byte's and utf8.codepoint's default range (i = 1, j = i),
 * clipped to the string as they clip it. */
static uint64_t slice_len(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING)
        return 0;   /* the real function raises (or converts a number) */
    lua_Integer len = (lua_Integer)lua_rawlen(L, 1);
    int isnum;
    lua_Integer i = lua_isnoneornil(L, 2) ? 1 : lua_tointegerx(L, 2, &isnum);
    if (!lua_isnoneornil(L, 2) && !isnum)
        return 0;
    lua_Integer j = lua_isnoneornil(L, 3) ? i : lua_tointegerx(L, 3, &isnum);
    if (!lua_isnoneornil(L, 3) && !isnum)
        return 0;
    if (i < 0)
        i = i < -len ? 1 : len + i + 1;
    else if (i == 0)
        i = 1;
    if (j < 0)
        j = j < -len ? 0 : len + j + 1;
    if (j > len)
        j = len;
    return i > j ? 0 : (uint64_t)(j - i) + 1;
}

/* string.unpack: the format's length, plus for every 'z' (a strlen from
 * the position) and 's' (a copy) one pass over the data. */
static uint64_t unpack_cost(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING)
        return 0;
    size_t lf;
    const char *fmt = lua_tolstring(L, 1, &lf);
    uint64_t passes = 0;
    for (size_t i = 0; i < lf; i++)
        passes += fmt[i] == 'z' || fmt[i] == 's';
    return lf + passes * (str_len_at(L, 2) / 8 + 1);
}

static int charged(lua_State *L)
{
    uint64_t cost = 0;
    switch ((int)lua_tointeger(L, lua_upvalueindex(2))) {
    case BYTES_OF_STRINGS:
        for (int i = 1; i <= lua_gettop(L); i++)
            cost += str_len_at(L, i);
        break;
    case BYTES_OF_FIRST: cost = str_len_at(L, 1); break;
    case SLICE_OF_FIRST: cost = slice_len(L) * COST_ELEM; break;
    case UNPACK_FORMAT: cost = unpack_cost(L); break;
    }
    if (cost)
        lhost_count(L, cost);
    /* called in this frame, not through lua_call: its argument errors
     * then name the function as the scenario called it. The library's
     * functions wrapped here use no upvalues of their own. */
    return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

/* t[name] = the real t[name] charged by rule. */
static void charge_field(lua_State *L, int t, const char *name, int rule)
{
    t = lua_absindex(L, t);
    if (lua_getfield(L, t, name) != LUA_TFUNCTION ||
        !lua_tocfunction(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushinteger(L, rule);
    lua_pushcclosure(L, charged, 2);
    lua_setfield(L, t, name);
}

/* ---- load: the parser's work ---------------------------------------------- */

/* The reader function of load(f): calls f and charges each piece (the
 * parser's work on it) before handing it over. Runs inside the real
 * load's protected parser: an error here makes load return it, and
 * sb_load re-raises the limit. */
static int counted_reader(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_call(L, 0, 1);
    if (lua_type(L, -1) == LUA_TSTRING)
        lhost_count(L, lua_rawlen(L, -1));
    return 1;
}

void lclib__charge_load(lua_State *L, int chunk)
{
    if (lua_type(L, chunk) == LUA_TSTRING) {
        lhost_count(L, lua_rawlen(L, chunk));
    } else if (lua_type(L, chunk) == LUA_TFUNCTION) {
        lua_pushvalue(L, chunk);
        lua_pushcclosure(L, counted_reader, 1);
        lua_replace(L, chunk);
    }
}

/* ---- installing ------------------------------------------------------------ */

static void set_fn(lua_State *L, int t, const char *name, lua_CFunction f)
{
    t = lua_absindex(L, t);
    lua_pushcfunction(L, f);
    lua_setfield(L, t, name);
}

void lclib_register(lua_State *L)
{
    lua_getglobal(L, "table");
    set_fn(L, -1, "insert", t_insert);
    set_fn(L, -1, "remove", t_remove);
    set_fn(L, -1, "move", t_move);
    set_fn(L, -1, "concat", t_concat);
    set_fn(L, -1, "unpack", t_unpack);
    lua_pop(L, 1);

    lua_getglobal(L, "string");
    set_fn(L, -1, "rep", s_rep);
    static const char *const per_byte[] = {"upper", "lower", "reverse",
                                           "format", "pack", NULL};
    for (const char *const *f = per_byte; *f; f++)
        charge_field(L, -1, *f, BYTES_OF_STRINGS);
    charge_field(L, -1, "byte", SLICE_OF_FIRST);
    charge_field(L, -1, "unpack", UNPACK_FORMAT);
    lua_pop(L, 1);

    lua_getglobal(L, "utf8");
    charge_field(L, -1, "len", BYTES_OF_FIRST);
    charge_field(L, -1, "offset", BYTES_OF_FIRST);
    charge_field(L, -1, "codepoint", SLICE_OF_FIRST);
    lua_pop(L, 1);

    /* string to number: tonumber, and the arithmetic metamethods of the
     * string metatable (Lua 5.4 converts strings in arithmetic there) */
    lua_pushglobaltable(L);
    charge_field(L, -1, "tonumber", BYTES_OF_FIRST);
    lua_pop(L, 1);
    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        static const char *const arith[] = {"__add", "__sub", "__mul", "__mod",
                                            "__pow", "__div", "__idiv",
                                            "__unm", NULL};
        for (const char *const *f = arith; *f; f++)
            charge_field(L, -1, *f, BYTES_OF_STRINGS);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);

    lua_getglobal(L, "os");
    charge_field(L, -1, "date", BYTES_OF_FIRST);
    lua_pop(L, 1);
}
