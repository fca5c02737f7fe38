/*
 * lhost.c - the scenario's Lua state: allocator, sandbox, instruction
 * budget, files, require and the embedded library (see lhost.h for the
 * policy, docs/scenarios.md "The sandbox" for the threat model).
 *
 * The sandbox follows Redis's script_lua.c: open only safe libraries,
 * replace the loaders by text-only versions confined to the scenario's
 * directory, and count instructions with a hook. Scenarios are code that
 * users download and share, so every way around a limit that the
 * standard libraries offer is closed here too: the limit error is
 * re-raised by every function that could catch it, finalizers are run by
 * the host under the budget (Lua runs them with hooks off), and files
 * are opened by descriptor, component by component, never following a
 * link, with writes counted on their way to the disk.
 */
#include "lhost_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "mtc/error.h"
#include "sim/rng.h"
#include "sim/status.h"

/* The hook runs every HOOK_STEP instructions: cheap, and fine-grained
 * enough for a limit counted in millions. */
#define HOOK_STEP 10000
static const char MODULE_KEY[] = "mtcsim.module";
static const char FIN_KEY[] = "mtcsim.sandbox.finalizable";  /* t -> token */
static const char DUE_KEY[] = "mtcsim.sandbox.due";          /* list of t */
static const char TOKEN_MT[] = "mtcsim.sandbox.token";

/* ---- allocator ------------------------------------------------------------ */

/* A full collection costs about one instruction per 8 bytes of heap;
 * taken from the budget here, the hook raises when it is gone. */
static void charge_gc(lhost *h)
{
    uint64_t cost = (h->mem_used + h->ext_used) / 8;
    h->instr_left -= cost < h->instr_left ? cost : h->instr_left;
}

static void *l_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    lhost *h = ud;
    size_t old = ptr ? osize : 0;   /* with ptr NULL, osize is a type tag */
    if (nsize == 0) {
        free(ptr);
        h->mem_used -= old;
        return NULL;
    }
    if (h->cfg.max_memory && nsize > old &&
        h->mem_used + h->ext_used + (nsize - old) > h->cfg.max_memory) {
        /* Lua collects, retries, then raises "not enough memory". The
         * collection walks the whole heap: charge it, or a scenario
         * catching the error in a loop would run forever. */
        charge_gc(h);
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p) {
        /* Filling new memory is work the count hook does not see (a
         * concatenation, a string from C): one instruction per 16 bytes.
         * Not raised here (an allocator must not): the hook or the next
         * lhost_count raises when the budget is gone. */
        if (nsize > old) {
            size_t cost = (nsize - old) / 16;
            h->instr_left -= cost < h->instr_left ? cost : h->instr_left;
        }
        h->mem_used = h->mem_used - old + nsize;
        if (h->mem_used > h->mem_peak)
            h->mem_peak = h->mem_used;
    }
    return p;
}

void lhost_mem_charge(lua_State *L, size_t bytes, const char *what)
{
    lhost *h = lhost_of(L);
    size_t max = h->cfg.max_memory;
    if (max && (bytes > max || h->mem_used + h->ext_used > max - bytes)) {
        /* garbage may hold charged C memory: collect once, as Lua does
         * before it gives up on an allocation */
        charge_gc(h);
        lua_gc(L, LUA_GCCOLLECT);
        if (bytes > max || h->mem_used + h->ext_used > max - bytes)
            luaL_error(L, "%s: not enough memory (%I MiB more would exceed "
                          "--max-memory %I MiB)", what,
                       (lua_Integer)(bytes >> 20) + 1, (lua_Integer)(max >> 20));
    }
    h->ext_used += bytes;
}

void lhost_mem_uncharge(lua_State *L, size_t bytes)
{
    lhost_mem_release(lhost_of(L), bytes);
}

int lhost_mem_reserve(lhost *h, size_t bytes)
{
    size_t max = h->cfg.max_memory;
    if (max && (bytes > max || h->mem_used + h->ext_used > max - bytes))
        return -1;
    h->ext_used += bytes;
    return 0;
}

void lhost_mem_release(lhost *h, size_t bytes)
{
    h->ext_used -= bytes < h->ext_used ? bytes : h->ext_used;
}

size_t lhost_mem_counted(const lhost *h)
{
    return h->mem_used + h->ext_used;
}

/* ---- instruction budget ------------------------------------------------------ */

/* Raises the stored abort message (the limit or the interrupt). */
static int reraise(lua_State *L)
{
    lhost *h = lhost_of(L);
    lua_pushstring(L, h->abort_msg);
    return lua_error(L);
}

/* level: the stack level whose file:line prefixes the message. */
static int raise_limit(lua_State *L, int level)
{
    lhost *h = lhost_of(L);
    if (!h->aborting) {
        h->aborting = 1;
        h->abort_rc = MTC_ERR_CALLBACK;
        luaL_where(L, level);
        snprintf(h->abort_msg, sizeof h->abort_msg,
                 "%sinstruction limit exceeded (%llu instructions without "
                 "returning to the simulator): a runaway loop? Raise it with "
                 "--max-instructions N, or lift it with --unsafe",
                 lua_tostring(L, -1),
                 (unsigned long long)h->cfg.max_instructions);
        lua_pop(L, 1);
    }
    return reraise(L);
}

static int raise_interrupt(lua_State *L, int level)
{
    lhost *h = lhost_of(L);
    if (!h->aborting) {
        h->aborting = 1;
        h->abort_rc = SIM_ERR_STATE;
        luaL_where(L, level);
        snprintf(h->abort_msg, sizeof h->abort_msg, "%sinterrupted",
                 lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return reraise(L);
}

static void l_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lhost *h = lhost_of(L);
    /* level 0: inside a hook, the function that is running */
    if (h->aborting)
        reraise(L);
    if (h->interrupt && *h->interrupt)
        raise_interrupt(L, 0);
    if (!h->cfg.max_instructions)
        return;
    if (h->instr_left > HOOK_STEP) {
        h->instr_left -= HOOK_STEP;
        return;
    }
    h->instr_left = 0;
    raise_limit(L, 0);
}

void lhost_count(lua_State *L, uint64_t cost)
{
    lhost *h = lhost_of(L);
    if (h->aborting)
        reraise(L);
    if (h->interrupt && *h->interrupt)
        raise_interrupt(L, 1);
    if (!h->cfg.max_instructions)
        return;
    if (h->instr_left > cost) {
        h->instr_left -= cost;
        return;
    }
    h->instr_left = 0;
    raise_limit(L, 1);      /* level 1: the scenario line calling C */
}

#define METER_BATCH 4096

void lhost_meter_add(lhost_meter *m, uint64_t cost)
{
    m->pending += cost;
    if (m->pending >= METER_BATCH)
        lhost_meter_flush(m);
}

void lhost_meter_flush(lhost_meter *m)
{
    uint64_t n = m->pending;
    m->pending = 0;     /* before charging: lhost_count may not return */
    if (n)
        lhost_count(m->L, n);
}

/* ---- what could catch the limit ------------------------------------------ */

/* pcall and xpcall: Lua's own (lbaselib.c), except that the limit and
 * the interrupt pass through - a scenario looping over pcall would
 * otherwise never stop. */
static int finish_pcall(lua_State *L, int status, lua_KContext extra)
{
    if (lhost_of(L)->aborting)
        return reraise(L);
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int sb_pcall(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    int st = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, finish_pcall);
    return finish_pcall(L, st, 0);
}

static int sb_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    int st = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finish_pcall);
    return finish_pcall(L, st, 2);
}

/* coroutine.resume, coroutine.close and load (whose reader runs in
 * protected mode) return errors as values: wrap the real functions. */
static int sb_wrap_catching(lua_State *L)
{
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    if (lhost_of(L)->aborting)
        return reraise(L);
    return lua_gettop(L);
}

/* load(chunk [, name [, mode [, env]]]): mode is always "t"; a reader
 * function runs in protected mode, so the limit is re-raised. */
static int sb_load(lua_State *L)
{
    lclib__charge_load(L, 1);   /* the parser's work */
    int n = lua_gettop(L);
    if (n < 3)
        lua_settop(L, 3);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));  /* the real load */
    lua_insert(L, 1);
    lua_call(L, n < 3 ? 3 : n, LUA_MULTRET);
    if (lhost_of(L)->aborting)
        return reraise(L);
    return lua_gettop(L);
}

/* table.sort and collectgarbage do their work in C: charge it first. */
static int sb_sort(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    uint64_t n = (uint64_t)luaL_len(L, 1), lg = 1;
    while ((UINT64_C(1) << lg) < n && lg < 63)
        lg++;
    lhost_count(L, 4 * n * lg);
    int top = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, top, 0);
    return 0;
}

static int sb_collectgarbage(lua_State *L)
{
    const char *opt = luaL_optstring(L, 1, "collect");
    if (!strcmp(opt, "collect") || !strcmp(opt, "step")) {
        lhost *h = lhost_of(L);
        lhost_count(L, (h->mem_used + h->ext_used) / 8);
    }
    int top = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, top, LUA_MULTRET);
    return lua_gettop(L);
}

/* package.preload["mtcsim.report"] of an --unsafe state. */
static int preload_report(lua_State *L)
{
    lhost__load_builtin(L, "mtcsim.report", 0);
    lua_call(L, 0, 1);
    return 1;
}

/* ---- finalizers ----------------------------------------------------------- */

/*
 * Lua runs __gc metamethods with hooks off and turns their errors into
 * warnings, so a finalizer could loop forever and its errors would
 * vanish. In the sandbox, setmetatable with a __gc field does not mark the
 * table for Lua's finalization; instead a token (a userdata with a C
 * finalizer) is tied to it in an ephemeron table. When the table becomes
 * garbage the token's finalizer queues it, and the host calls its __gc at
 * the end of the entry, counted, with errors reported (lhost_pcall).
 */
static int token_gc(lua_State *L)
{
    lua_getiuservalue(L, 1, 1);             /* the table */
    lua_getfield(L, LUA_REGISTRYINDEX, DUE_KEY);
    if (lua_istable(L, -1)) {
        lua_insert(L, -2);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    }
    return 0;
}

static int sb_setmetatable(lua_State *L)
{
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_pushliteral(L, "__gc");             /* 3: __gc, raw as Lua reads it */
    if (t == LUA_TNIL || lua_rawget(L, 2) == LUA_TNIL) {
        lua_settop(L, 2);
        lua_setmetatable(L, 1);
        return 1;
    }
    /* set it without __gc, so Lua does not mark the table */
    lua_pushliteral(L, "__gc");
    lua_pushnil(L);
    lua_rawset(L, 2);
    lua_pushvalue(L, 2);
    lua_setmetatable(L, 1);
    lua_pushliteral(L, "__gc");
    lua_pushvalue(L, 3);
    lua_rawset(L, 2);
    lua_getfield(L, LUA_REGISTRYINDEX, FIN_KEY);    /* 4 */
    lua_pushvalue(L, 1);
    if (lua_rawget(L, 4) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_newuserdatauv(L, 1, 1);
        lua_pushvalue(L, 1);
        lua_setiuservalue(L, -2, 1);
        luaL_setmetatable(L, TOKEN_MT);
        lua_pushvalue(L, 1);
        lua_insert(L, -2);
        lua_rawset(L, 4);
    }
    lua_settop(L, 1);
    return 1;
}

/* Calls the __gc of every queued table, oldest first, until the queue
 * stays empty (a finalizer may make more garbage). Runs under the entry's
 * budget; an error propagates to lhost_pcall. */
static int run_finalizers(lua_State *L)
{
    for (;;) {
        lua_getfield(L, LUA_REGISTRYINDEX, DUE_KEY);
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        if (n == 0) {
            lua_pop(L, 1);
            return 0;
        }
        lua_newtable(L);
        lua_setfield(L, LUA_REGISTRYINDEX, DUE_KEY);
        int q = lua_gettop(L);
        lua_getfield(L, LUA_REGISTRYINDEX, FIN_KEY);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, q, i);           /* t */
            lua_pushvalue(L, -1);
            lua_pushnil(L);
            lua_rawset(L, q + 1);           /* finalized once, as in Lua */
            if (lua_getmetatable(L, -1)) {
                lua_pushliteral(L, "__gc");
                lua_rawget(L, -2);
                lua_remove(L, -2);
                if (!lua_isnil(L, -1)) {
                    lua_insert(L, -2);
                    lua_call(L, 1, 0);
                    continue;
                }
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_settop(L, q - 1);
    }
}

/* ---- terminal output ------------------------------------------------------ */

/* Counts what a run prints (print, io.write, io.stdout:write): output
 * redirected to a file must not fill the disk. */
static void count_output(lua_State *L, int first)
{
    lhost *h = lhost_of(L);
    uint64_t n = 0;
    for (int i = first; i <= lua_gettop(L); i++)
        n += lua_type(L, i) == LUA_TSTRING ? lua_rawlen(L, i) + 1 : 24;
    if (h->max_output && h->term_used + n > h->max_output)
        luaL_error(L, "output limit exceeded: a run may print %I bytes "
                      "(lift it with --unsafe)", (lua_Integer)h->max_output);
    h->term_used += n;
}

static int sb_print(lua_State *L)
{
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {  /* __tostring results are counted too */
        luaL_tolstring(L, i, NULL);
        lua_replace(L, i);
    }
    count_output(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, 0);
    return 0;
}

static int sb_io_write(lua_State *L)
{
    count_output(L, 1);
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* The write method of file handles: our files count their own bytes
 * (out_write), the standard streams are counted here. */
static int sb_f_write(lua_State *L)
{
    luaL_Stream *p = luaL_checkudata(L, 1, LUA_FILEHANDLE);
    if (p->closef && (p->f == stdout || p->f == stderr))
        count_output(L, 2);
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* ---- state construction --------------------------------------------------- */

static void open_lib(lua_State *L, const char *name, lua_CFunction f, int glb)
{
    luaL_requiref(L, name, f, glb);
    lua_pop(L, 1);
}

/* Copies the named fields of the table at idx into a new table. */
static void copy_fields(lua_State *L, int idx, const char *const *names)
{
    idx = lua_absindex(L, idx);
    lua_newtable(L);
    for (; *names; names++) {
        lua_getfield(L, idx, *names);
        lua_setfield(L, -2, *names);
    }
}

/* t[name] = closure of f over the current t[name]. */
static void wrap_field(lua_State *L, int t, const char *name, lua_CFunction f)
{
    t = lua_absindex(L, t);
    lua_getfield(L, t, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, t, name);
}

static void build_sandbox(lua_State *L)
{
    open_lib(L, "_G", luaopen_base, 1);
    open_lib(L, LUA_STRLIBNAME, luaopen_string, 1);
    open_lib(L, LUA_TABLIBNAME, luaopen_table, 1);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math, 1);
    open_lib(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    open_lib(L, LUA_COLIBNAME, luaopen_coroutine, 1);

    lua_getglobal(L, "string");
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");    /* bytecode is useless without binary load */
    lpattern_register(L);
    lua_pop(L, 1);

    lua_pushglobaltable(L);
    wrap_field(L, -1, "load", sb_load);
    wrap_field(L, -1, "print", sb_print);
    wrap_field(L, -1, "collectgarbage", sb_collectgarbage);
    lua_pushcfunction(L, lhost__loadfile);
    lua_setfield(L, -2, "loadfile");
    lua_pushcfunction(L, lhost__dofile);
    lua_setfield(L, -2, "dofile");
    lua_pushcfunction(L, lhost__require);
    lua_setfield(L, -2, "require");
    lua_pushcfunction(L, sb_pcall);
    lua_setfield(L, -2, "pcall");
    lua_pushcfunction(L, sb_xpcall);
    lua_setfield(L, -2, "xpcall");
    lua_pushcfunction(L, sb_setmetatable);
    lua_setfield(L, -2, "setmetatable");
    lua_pop(L, 1);
    lua_getglobal(L, "table");
    wrap_field(L, -1, "sort", sb_sort);
    lua_pop(L, 1);
    lua_getglobal(L, "coroutine");
    wrap_field(L, -1, "resume", sb_wrap_catching);
    wrap_field(L, -1, "close", sb_wrap_catching);
    lua_pop(L, 1);

    /* finalizers: tokens tied to tables by an ephemeron table */
    lua_newtable(L);
    lua_newtable(L);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, FIN_KEY);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, DUE_KEY);
    luaL_newmetatable(L, TOKEN_MT);
    lua_pushcfunction(L, token_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);

    /* io and os: the real libraries, held privately; a few functions out */
    luaL_requiref(L, LUA_IOLIBNAME, luaopen_io, 0);
    static const char *const io_keep[] = {"write", "stdout", "stderr", NULL};
    copy_fields(L, -1, io_keep);
    lua_pushcfunction(L, lhost__io_open);
    lua_setfield(L, -2, "open");
    wrap_field(L, -1, "write", sb_io_write);
    lua_setglobal(L, "io");
    lua_pop(L, 1);
    luaL_getmetatable(L, LUA_FILEHANDLE);
    lua_getfield(L, -1, "__index");
    wrap_field(L, -1, "write", sb_f_write);
    lua_pop(L, 2);
    luaL_requiref(L, LUA_OSLIBNAME, luaopen_os, 0);
    static const char *const os_keep[] = {"time", "clock", "date", "difftime",
                                          NULL};
    copy_fields(L, -1, os_keep);
    lua_setglobal(L, "os");
    lua_pop(L, 1);
    lclib_register(L);
}

/* Every metatable in the registry whose objects have a C finalizer (the
 * bindings' userdata, file handles) gets __metatable: through
 * getmetatable a scenario could otherwise call __gc on a live object and
 * the host would use what it freed. Bindings protect their own; this
 * covers any that does not (lworld's entity handles, io's FILE*). */
static void protect_metatables(lua_State *L)
{
    lua_pushnil(L);
    while (lua_next(L, LUA_REGISTRYINDEX)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TTABLE) {
            lua_pushliteral(L, "__gc");
            int gc = lua_rawget(L, -2);
            lua_pushliteral(L, "__metatable");
            int mt = lua_rawget(L, -3);
            lua_pop(L, 2);
            if (gc == LUA_TFUNCTION && mt == LUA_TNIL) {
                lua_pushliteral(L, "__metatable");
                lua_pushvalue(L, -3);
                lua_rawset(L, -3);
            }
        }
        lua_pop(L, 1);
    }
}

/* The error with the scenario's file:line. Error objects that are not
 * strings get the position Lua only adds to strings. A traceback follows
 * only when asked for (lhost_config.traceback) or when the position is in
 * the embedded library ("[mtcsim library]:12: ...", "[mtcsim.report]"):
 * after a scenario's mistake it only repeats, in Lua's terms, where the
 * message already points. */
static int l_msghandler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)",
                                  luaL_typename(L, 1));
        lua_Debug ar;
        for (int level = 1; lua_getstack(L, level, &ar); level++) {
            if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
                msg = lua_pushfstring(L, "%s:%d: %s", ar.short_src,
                                      ar.currentline, msg);
                break;
            }
        }
    }
    if (lhost_of(L)->cfg.traceback || !strncmp(msg, "[mtcsim", 7))
        luaL_traceback(L, L, msg, 1);
    else
        lua_pushstring(L, msg);
    return 1;
}

static void copy_err(lua_State *L, char *err, size_t errlen)
{
    const char *m = lua_tostring(L, -1);
    snprintf(err, errlen, "%s", m ? m : "(error without a message)");
    lua_pop(L, 1);
}

int lhost_pcall(lhost *h, int nargs, int nres, char *err, size_t errlen)
{
    lua_State *L = h->L;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, l_msghandler);
    lua_insert(L, base);
    h->instr_left = h->cfg.max_instructions;
    h->aborting = 0;
    int rc = lua_pcall(L, nargs, nres, base);
    if (rc == LUA_OK && !h->cfg.unsafe) {
        lua_pushcfunction(L, run_finalizers);
        rc = lua_pcall(L, 0, 0, base);
    }
    if (rc != LUA_OK) {
        copy_err(L, err, errlen);
        lua_settop(L, base - 1);
        int code = h->aborting ? h->abort_rc : MTC_ERR_CALLBACK;
        h->aborting = 0;
        return code;
    }
    lua_remove(L, base);
    return MTC_OK;
}

int lhost_run_file(lhost *h, const char *path, char *err, size_t errlen)
{
    if (lhost__load_scenario(h->L, path) != LUA_OK) {
        copy_err(h->L, err, errlen);
        return MTC_ERR_CALLBACK;
    }
    return lhost_pcall(h, 0, 0, err, errlen);
}

int lhost_eval(lhost *h, const char *expr, char *err, size_t errlen)
{
    size_t n = strlen(expr) + 8;
    char *code = malloc(n);
    if (!code)
        return MTC_ERR_NOMEM;
    snprintf(code, n, "return %s", expr);
    int rc = luaL_loadbufferx(h->L, code, strlen(code), "=--set", "t");
    free(code);
    if (rc != LUA_OK) {
        copy_err(h->L, err, errlen);
        return MTC_ERR_PARSE;
    }
    return lhost_pcall(h, 0, 1, err, errlen);
}

/* Loads the embedded scenario library with the C parts as its argument;
 * it installs globals and returns the module table. The host keeps a copy
 * made before any scenario code runs (lhost_push_module), so a scenario
 * replacing mtcsim._declared cannot feed the host what it likes. */
static int load_library(lhost *h, char *err, size_t errlen)
{
    lua_State *L = h->L;
    if (luaL_loadbufferx(L, (const char *)lua_lib_mtcsim, lua_lib_mtcsim_len,
                         "=[mtcsim library]", "t") != LUA_OK) {
        copy_err(L, err, errlen);
        return MTC_ERR_CALLBACK;
    }
    lua_newtable(L);
    ldist_register(L);
    lcore_register(L);
    lworld_register(L);
    lunits_register(L);
    int rc = lhost_pcall(h, 1, 1, err, errlen);
    if (rc != MTC_OK)
        return rc;
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        snprintf(err, errlen, "the scenario library returned no module");
        return MTC_ERR_CALLBACK;
    }
    /* module cache: sandbox table, or package.loaded */
    if (h->cfg.unsafe) {
        lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    } else {
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, LHOST__LOADED_KEY);
    }
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "mtcsim");
    lua_pop(L, 1);
    lua_newtable(L);        /* the host's copy */
    lua_pushnil(L);
    while (lua_next(L, -3)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, MODULE_KEY);
    lua_pop(L, 1);
    return MTC_OK;
}

lhost *lhost_create(const lhost_config *cfg, char *err, size_t errlen)
{
    lhost *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    h->cfg = *cfg;
    h->parent_fd = h->folder_fd = -1;
    h->account = &h->own_account;
    h->max_output = LHOST_DEFAULT_MAX_OUTPUT;
    if (cfg->unsafe) {
        h->cfg.max_instructions = 0;
        h->cfg.max_memory = 0;
        h->max_output = 0;
    }
    /* the scenario's directory, resolved */
    char tmp[LHOST_PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", cfg->scenario ? cfg->scenario : ".");
    char *slash = strrchr(tmp, '/');
    if (slash)
        *(slash == tmp ? slash + 1 : slash) = 0;
    else
        snprintf(tmp, sizeof tmp, ".");
    if (!realpath(tmp, h->scenario_dir)) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        free(h);
        return NULL;
    }
    if (cfg->out_dir && lhost__open_folder(h, cfg->out_dir, err, errlen)) {
        lhost_destroy(h);
        return NULL;
    }
    h->cfg.out_dir = h->out_dir[0] ? h->out_dir : NULL;
    h->cfg.scenario = NULL;     /* not kept: the caller's string */

    lua_State *L = lua_newstate(l_alloc, h);
    if (!L) {
        snprintf(err, errlen, "cannot create the Lua state");
        lhost_destroy(h);
        return NULL;
    }
    h->L = L;
    *(lhost **)lua_getextraspace(L) = h;
    if (cfg->unsafe) {
        luaL_openlibs(L);
        lua_getglobal(L, "package");
        lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", h->scenario_dir,
                        h->scenario_dir);
        lua_getfield(L, -2, "path");
        lua_concat(L, 2);
        lua_setfield(L, -2, "path");
        lua_getfield(L, -1, "preload");
        lua_pushcfunction(L, preload_report);
        lua_setfield(L, -2, "mtcsim.report");
        char local[LHOST_PATH_MAX + 32];
        snprintf(local, sizeof local, "%s/lib/report.lua", h->scenario_dir);
        if (access(local, R_OK) != 0) {   /* as in the sandbox's require */
            lua_pushcfunction(L, preload_report);
            lua_setfield(L, -2, "lib.report");
        }
        lua_pop(L, 2);
    } else {
        build_sandbox(L);
        /* always: the hook also watches the interrupt flag */
        lua_sethook(L, l_hook, LUA_MASKCOUNT, HOOK_STEP);
    }
    /* reproducible math.random: seeded from (seed, replication) */
    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_pushinteger(L, (lua_Integer)sim_rng_draw_at(cfg->seed, cfg->replication,
                                                    15, 0, 0));
    lua_pushinteger(L, (lua_Integer)sim_rng_draw_at(cfg->seed, cfg->replication,
                                                    15, 0, 1));
    lua_call(L, 2, 0);
    lua_pop(L, 1);
    if (load_library(h, err, errlen) != MTC_OK) {
        lhost_destroy(h);
        return NULL;
    }
    if (!cfg->unsafe)
        protect_metatables(L);
    return h;
}

void lhost_destroy(lhost *h)
{
    if (!h)
        return;
    if (h->L)
        lua_close(h->L);
    for (size_t i = 0; i < h->nloaded; i++)
        free(h->loaded[i].rel);
    free(h->loaded);
    if (h->folder_fd >= 0)
        close(h->folder_fd);
    if (h->parent_fd >= 0)
        close(h->parent_fd);
    free(h);
}

lua_State *lhost_state(lhost *h) { return h->L; }
void lhost_push_module(lhost *h)
{
    lua_getfield(h->L, LUA_REGISTRYINDEX, MODULE_KEY);
}
const lhost_config *lhost_get_config(const lhost *h) { return &h->cfg; }
const char *lhost_scenario_dir(const lhost *h) { return h->scenario_dir; }
lhost *lhost_of(lua_State *L) { return *(lhost **)lua_getextraspace(L); }
void lhost_set_user(lhost *h, void *user) { h->user = user; }
void *lhost_get_user(const lhost *h) { return h->user; }
size_t lhost_memory(const lhost *h) { return h->mem_used; }
void lhost_set_account(lhost *h, lhost_account *acc)
{
    h->account = acc ? acc : &h->own_account;
}

void lhost_set_max_output(lhost *h, uint64_t bytes)
{
    if (!h->cfg.unsafe)
        h->max_output = bytes;
}
void lhost_set_interrupt(lhost *h, const volatile sig_atomic_t *flag)
{
    h->interrupt = flag;
}
const volatile sig_atomic_t *lhost_interrupt_flag(const lhost *h)
{
    return h->interrupt;
}
void lhost_set_chain_cache(lhost *h, struct mtc_chain_cache *chains)
{
    h->chains = chains;
}
struct mtc_chain_cache *lhost_chain_cache(const lhost *h)
{
    return h->chains;
}
