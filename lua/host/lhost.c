/*
 * lhost.c - the scenario's Lua state: allocator, sandbox, instruction
 * budget, require and the embedded library (see lhost.h for the policy).
 *
 * The sandbox follows Redis's script_lua.c: open only safe libraries,
 * replace the loaders by text-only versions confined to the scenario's
 * directory, and count instructions with a hook. File access goes through
 * path checks on resolved (realpath) names, so "..", symlinks and
 * absolute paths cannot reach outside the two allowed directories.
 */
#include "lhost.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "mtc/error.h"
#include "sim/rng.h"

/* The hook runs every HOOK_STEP instructions: cheap, and fine-grained
 * enough for a limit counted in millions. */
#define HOOK_STEP 10000

struct lhost {
    lua_State *L;
    lhost_config cfg;
    char scenario_dir[LHOST_PATH_MAX];
    char out_dir[LHOST_PATH_MAX];   /* "" when writes are not allowed */
    size_t mem_used, mem_peak;
    uint64_t instr_left;
    void *user;
};

static const char LOADED_KEY[] = "mtcsim.sandbox.loaded";
static const char MODULE_KEY[] = "mtcsim.module";

/* ---- allocator ------------------------------------------------------------ */

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
        h->mem_used + (nsize - old) > h->cfg.max_memory)
        return NULL;    /* Lua raises "not enough memory" */
    void *p = realloc(ptr, nsize);
    if (p) {
        h->mem_used = h->mem_used - old + nsize;
        if (h->mem_used > h->mem_peak)
            h->mem_peak = h->mem_used;
    }
    return p;
}

/* ---- instruction budget ------------------------------------------------------ */

static void l_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lhost *h = lhost_of(L);
    if (h->instr_left > HOOK_STEP) {
        h->instr_left -= HOOK_STEP;
        return;
    }
    h->instr_left = 0;
    char n[32];
    snprintf(n, sizeof n, "%llu", (unsigned long long)h->cfg.max_instructions);
    /* level 0: inside a hook, the function that is running */
    luaL_where(L, 0);
    lua_pushfstring(L, "instruction limit exceeded (%s instructions without "
                       "returning to the simulator): a runaway loop? Raise it "
                       "with --max-instructions N, or lift it with --unsafe", n);
    lua_concat(L, 2);
    lua_error(L);
}

/* ---- paths ------------------------------------------------------------- */

/* 1 when resolved path p is dir or lies below it. */
static int below(const char *dir, const char *p)
{
    size_t n = strlen(dir);
    if (!*dir || strncmp(dir, p, n))
        return 0;
    return p[n] == 0 || p[n] == '/' || (n == 1 && dir[0] == '/');
}

/* base + "/" + path, or path when absolute. */
static int join(const char *base, const char *path, char *out, size_t cap)
{
    int n = path[0] == '/' ? snprintf(out, cap, "%s", path)
                           : snprintf(out, cap, "%s/%s", base, path);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/*
 * Resolves `path` (relative ones against base) for reading: the file
 * must exist and resolve inside dir1 or dir2. Returns 0 with the resolved
 * name in out, or -1 with a message pushed... (callers raise).
 */
static int resolve_read(lhost *h, const char *base, const char *path,
                        char out[LHOST_PATH_MAX])
{
    char joined[LHOST_PATH_MAX];
    if (join(base, path, joined, sizeof joined))
        return -1;
    if (!realpath(joined, out)) {
        /* missing: say so only when it would have been inside */
        int e = errno;
        char *slash = strrchr(joined, '/');
        *slash = 0;
        if (!realpath(*joined ? joined : "/", out) ||
            !(below(h->scenario_dir, out) || below(h->out_dir, out)))
            return -2;
        errno = e;
        return -1;
    }
    return below(h->scenario_dir, out) || below(h->out_dir, out) ? 0 : -2;
}

/* For writing: the parent must resolve inside out_dir and the last
 * component must be a plain name that is not a symlink. */
static int resolve_write(lhost *h, const char *path, char out[LHOST_PATH_MAX])
{
    char joined[LHOST_PATH_MAX], parent[LHOST_PATH_MAX];
    if (!h->out_dir[0])
        return -2;
    if (join(h->out_dir, path, joined, sizeof joined))
        return -1;
    char *slash = strrchr(joined, '/');
    const char *name = slash + 1;
    *slash = 0;
    if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
        return -2;
    if (!realpath(*joined ? joined : "/", parent))
        return -1;
    if (!below(h->out_dir, parent))
        return -2;
    if (snprintf(out, LHOST_PATH_MAX, "%s/%s", parent, name) >= LHOST_PATH_MAX)
        return -1;
    struct stat st;
    if (lstat(out, &st) == 0 && S_ISLNK(st.st_mode))
        return -2;
    return 0;
}

/* ---- sandboxed functions ------------------------------------------------ */

/* io.open(path [, mode]): reads inside the scenario or output directory,
 * writes only inside the output directory (relative names: the scenario
 * directory for reading, the output directory for writing). */
static int sb_io_open(lua_State *L)
{
    lhost *h = lhost_of(L);
    const char *path = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    int write = strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+');
    char res[LHOST_PATH_MAX];
    int rc = write ? resolve_write(h, path, res)
                   : resolve_read(h, h->scenario_dir, path, res);
    if (rc == -2) {
        if (write && !h->out_dir[0])
            return luaL_error(L, "io.open: writing '%s' refused: the sandbox "
                                 "allows writes only beside the results "
                                 "database (--out), and there is none", path);
        return luaL_error(L, "io.open: '%s' refused: the sandbox allows %s",
                          path, write ? "writes only inside the output "
                                        "directory (beside --out)"
                                      : "reading only inside the scenario's "
                                        "and the output directory");
    }
    if (rc == -1) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno ? errno : ENOENT));
        lua_pushinteger(L, errno);
        return 3;
    }
    int top = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));  /* the real io.open */
    lua_pushstring(L, res);
    lua_pushstring(L, mode);
    lua_call(L, 2, LUA_MULTRET);
    return lua_gettop(L) - top;
}

static int load_confined(lua_State *L, const char *path)
{
    lhost *h = lhost_of(L);
    char res[LHOST_PATH_MAX];
    int rc = resolve_read(h, h->scenario_dir, path, res);
    if (rc == -2)
        return luaL_error(L, "'%s' refused: the sandbox loads files only "
                             "from the scenario's directory", path);
    if (rc == -1)
        return luaL_error(L, "cannot open '%s': %s", path, strerror(errno));
    /* chunk name: the path as written, so messages read naturally */
    if (luaL_loadfilex(L, res, "t") != LUA_OK)
        return lua_error(L);
    return 0;
}

/* loadfile(path [, mode [, env]]): text only, confined. */
static int sb_loadfile(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int env = !lua_isnone(L, 3) ? 3 : 0;
    lhost *h = lhost_of(L);
    char res[LHOST_PATH_MAX];
    int rc = resolve_read(h, h->scenario_dir, path, res);
    if (rc == -2)
        return luaL_error(L, "loadfile: '%s' refused: the sandbox loads files "
                             "only from the scenario's directory", path);
    if (rc == -1 || luaL_loadfilex(L, res, "t") != LUA_OK) {
        luaL_pushfail(L);
        if (rc == -1)
            lua_pushfstring(L, "cannot open %s", path);
        else
            lua_insert(L, -2);
        return 2;
    }
    if (env) {
        lua_pushvalue(L, env);
        if (!lua_setupvalue(L, -2, 1))
            lua_pop(L, 1);
    }
    return 1;
}

static int sb_dofile(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    load_confined(L, path);
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

/* load(chunk [, name [, mode [, env]]]): mode is always "t". */
static int sb_load(lua_State *L)
{
    int n = lua_gettop(L);
    if (n < 3)
        lua_settop(L, 3);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));  /* the real load */
    lua_insert(L, 1);
    lua_call(L, n < 3 ? 3 : n, LUA_MULTRET);
    return lua_gettop(L);
}

/* The scenario library's helpers, built in: "mtcsim.report" always, and
 * "lib.report" when the scenario's directory has no lib/report.lua (so a
 * library scenario copied elsewhere still runs). 1 when name is one. */
static int load_builtin(lua_State *L, const char *name, int found_locally)
{
    if (strcmp(name, "mtcsim.report") && (strcmp(name, "lib.report") || found_locally))
        return 0;
    if (luaL_loadbufferx(L, (const char *)lua_lib_report, lua_lib_report_len,
                         "=[mtcsim.report]", "t") != LUA_OK)
        lua_error(L);
    return 1;
}

/* package.preload["mtcsim.report"] of an --unsafe state. */
static int preload_report(lua_State *L)
{
    load_builtin(L, "mtcsim.report", 0);
    lua_call(L, 0, 1);
    return 1;
}

/* require(name): "mtcsim", a built-in module, or NAME.lua (dots:
 * directories) below the scenario's directory, loaded once. */
static int sb_require(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, LOADED_KEY);
    lua_getfield(L, 2, name);
    if (!lua_isnil(L, -1))
        return 1;
    lua_pop(L, 1);
    char rel[512];
    size_t len = strlen(name), k = 0;
    if (len == 0 || len > 200 || name[0] == '.' || name[len - 1] == '.')
        return luaL_error(L, "require: bad module name '%s'", name);
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (c == '.') {
            if (name[i + 1] == '.')
                return luaL_error(L, "require: bad module name '%s'", name);
            rel[k++] = '/';
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   (c >= '0' && c <= '9') || c == '_' || c == '-') {
            rel[k++] = c;
        } else {
            return luaL_error(L, "require: bad module name '%s' (the sandbox "
                                 "loads only Lua modules from the scenario's "
                                 "directory; C modules are refused)", name);
        }
    }
    memcpy(rel + k, ".lua", 5);
    lhost *h = lhost_of(L);
    char res[LHOST_PATH_MAX];
    int local = strcmp(name, "mtcsim.report") &&
                !resolve_read(h, h->scenario_dir, rel, res);
    if (!load_builtin(L, name, local)) {
        if (!local)
            return luaL_error(L, "module '%s' not found (looked for %s/%s; "
                                 "the sandbox loads only Lua modules from the "
                                 "scenario's directory)", name, h->scenario_dir,
                              rel);
        if (luaL_loadfilex(L, res, "t") != LUA_OK)
            return lua_error(L);
    }
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, 2, name);
    return 1;
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

static void build_sandbox(lua_State *L)
{
    open_lib(L, "_G", luaopen_base, 1);
    open_lib(L, LUA_STRLIBNAME, luaopen_string, 1);
    open_lib(L, LUA_TABLIBNAME, luaopen_table, 1);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math, 1);
    open_lib(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    open_lib(L, LUA_COLIBNAME, luaopen_coroutine, 1);

    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_getglobal(L, "string");
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");    /* bytecode is useless without binary load */
    lua_pop(L, 1);

    lua_getglobal(L, "load");
    lua_pushcclosure(L, sb_load, 1);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, sb_loadfile);
    lua_setglobal(L, "loadfile");
    lua_pushcfunction(L, sb_dofile);
    lua_setglobal(L, "dofile");
    lua_pushcfunction(L, sb_require);
    lua_setglobal(L, "require");

    /* io and os: the real libraries, held privately; a few functions out */
    luaL_requiref(L, LUA_IOLIBNAME, luaopen_io, 0);
    static const char *const io_keep[] = {"write", "stdout", "stderr", NULL};
    copy_fields(L, -1, io_keep);
    lua_getfield(L, -2, "open");
    lua_pushcclosure(L, sb_io_open, 1);
    lua_setfield(L, -2, "open");
    lua_setglobal(L, "io");
    lua_pop(L, 1);
    luaL_requiref(L, LUA_OSLIBNAME, luaopen_os, 0);
    static const char *const os_keep[] = {"time", "clock", "date", "difftime",
                                          NULL};
    copy_fields(L, -1, os_keep);
    lua_setglobal(L, "os");
    lua_pop(L, 1);
}

static int l_msghandler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)",
                              luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
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
    int rc = lua_pcall(L, nargs, nres, base);
    lua_remove(L, base);
    if (rc != LUA_OK) {
        copy_err(L, err, errlen);
        return MTC_ERR_CALLBACK;
    }
    return MTC_OK;
}

int lhost_run_file(lhost *h, const char *path, char *err, size_t errlen)
{
    if (luaL_loadfilex(h->L, path, "t") != LUA_OK) {
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
 * it installs globals and returns the module table. */
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
    /* module cache: sandbox table, or package.loaded */
    if (h->cfg.unsafe) {
        lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    } else {
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, LOADED_KEY);
    }
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "mtcsim");
    lua_pop(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, MODULE_KEY);
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
    if (cfg->unsafe) {
        h->cfg.max_instructions = 0;
        h->cfg.max_memory = 0;
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
    if (cfg->out_dir && !realpath(cfg->out_dir, h->out_dir)) {
        snprintf(err, errlen, "%s: %s", cfg->out_dir, strerror(errno));
        free(h);
        return NULL;
    }
    h->cfg.out_dir = h->out_dir[0] ? h->out_dir : NULL;
    h->cfg.scenario = NULL;     /* not kept: the caller's string */

    lua_State *L = lua_newstate(l_alloc, h);
    if (!L) {
        snprintf(err, errlen, "cannot create the Lua state");
        free(h);
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
        if (h->cfg.max_instructions)
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
    return h;
}

void lhost_destroy(lhost *h)
{
    if (!h)
        return;
    if (h->L)
        lua_close(h->L);
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
