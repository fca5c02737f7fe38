/*
 * lhost_load.c - the sandbox's loaders: loadfile, dofile, require and the
 * scenario itself, text-only chunks read from descriptors that
 * lhost_files.c opened (so a loaded file is confined, and hashed for a
 * resume, exactly as a read one is).
 */
#include "lhost_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

/* Loading a chunk from a descriptor (as luaL_loadfilex: a first line
 * starting with '#' is skipped, keeping the line numbers). */
typedef struct fd_reader {
    FILE *f;
    int pending_nl;
    int charge;         /* a chunk the scenario asked for: count the parse */
    char buf[BUFSIZ];
} fd_reader;

static const char *read_chunk(lua_State *L, void *ud, size_t *size)
{
    fd_reader *r = ud;
    if (r->pending_nl) {
        r->pending_nl = 0;
        *size = 1;
        return "\n";
    }
    *size = fread(r->buf, 1, sizeof r->buf, r->f);
    /* the parser's work, as load's (lclib.c); raised inside the
     * protected parser, so load_fd still closes the file */
    if (*size && r->charge)
        lhost_count(L, *size);
    return *size ? r->buf : NULL;
}

/* Pushes the compiled chunk of fd (closed here), or an error message.
 * LUA_OK or an error status. */
static int load_fd(lua_State *L, int fd, const char *chunkname, int charge)
{
    fd_reader *r = malloc(sizeof *r);
    FILE *f = r ? fdopen(fd, "r") : NULL;
    if (!f) {
        free(r);
        close(fd);
        lua_pushfstring(L, "cannot read %s", chunkname + 1);
        return LUA_ERRFILE;
    }
    r->f = f;
    r->pending_nl = 0;
    r->charge = charge && !lhost_of(L)->cfg.unsafe;
    int c = getc(f);
    if (c == '#') {
        while (c != EOF && c != '\n')
            c = getc(f);
        r->pending_nl = 1;
    } else if (c != EOF) {
        ungetc(c, f);
    }
    int rc = lua_load(L, read_chunk, r, chunkname, "t");
    if (ferror(f) && rc == LUA_OK) {
        lua_pop(L, 1);
        lua_pushfstring(L, "cannot read %s", chunkname + 1);
        rc = LUA_ERRFILE;
    }
    fclose(f);
    free(r);
    return rc;
}

/* Pushes the chunk of a file the sandbox may read, or raises. */
static void load_confined(lua_State *L, const char *fn, const char *path)
{
    lhost *h = lhost_of(L);
    const char *why;
    int fd = lhost__open_read(L, h, path, &why);
    if (fd == P_REFUSED)
        luaL_error(L, "%s: '%s' refused: %s", fn, path, why);
    if (fd < 0)
        luaL_error(L, "%s: cannot open '%s': %s", fn, path, strerror(errno));
    lua_pushfstring(L, "@%s", path);
    char *name = strdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    int rc = name ? load_fd(L, fd, name, 1) : (close(fd), LUA_ERRMEM);
    free(name);
    if (rc != LUA_OK)
        lua_error(L);
}

/* loadfile(path [, mode [, env]]): text only, confined. */
int lhost__loadfile(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int env = !lua_isnone(L, 3) ? 3 : 0;
    lhost *h = lhost_of(L);
    const char *why;
    int fd = lhost__open_read(L, h, path, &why);
    if (fd == P_REFUSED)
        return luaL_error(L, "loadfile: '%s' refused: %s", path, why);
    if (fd < 0) {
        luaL_pushfail(L);
        lua_pushfstring(L, "cannot open %s", path);
        return 2;
    }
    lua_pushfstring(L, "@%s", path);
    if (load_fd(L, fd, lua_tostring(L, -1), 1) != LUA_OK) {
        lhost_count(L, 0);  /* the limit, reached while parsing, re-raised */
        luaL_pushfail(L);
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

int lhost__dofile(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    load_confined(L, "dofile", path);
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

/* The scenario library's helpers, built in: "mtcsim.report" always, and
 * "lib.report" when the scenario's directory has no lib/report.lua (so a
 * library scenario copied elsewhere still runs). Pushes the chunk and
 * returns 1 when name is one. */
int lhost__load_builtin(lua_State *L, const char *name, int found_locally)
{
    if (strcmp(name, "mtcsim.report") && (strcmp(name, "lib.report") || found_locally))
        return 0;
    if (luaL_loadbufferx(L, (const char *)lua_lib_report, lua_lib_report_len,
                         "=[mtcsim.report]", "t") != LUA_OK)
        lua_error(L);
    return 1;
}

/* require(name): "mtcsim", a built-in module, or NAME.lua (dots:
 * directories) below the scenario's directory, loaded once. */
int lhost__require(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, LHOST__LOADED_KEY);
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
    const char *why;
    int fd = strcmp(name, "mtcsim.report") ? lhost__open_read(L, h, rel, &why) : -1;
    if (lhost__load_builtin(L, name, fd >= 0)) {
        if (fd >= 0)
            close(fd);
    } else {
        if (fd < 0)
            return luaL_error(L, "module '%s' not found (looked for %s/%s; the "
                                 "sandbox loads only Lua modules from the "
                                 "scenario's directory)", name, h->scenario_dir, rel);
        lua_pushfstring(L, "@%s/%s", h->scenario_dir, rel);
        if (load_fd(L, fd, lua_tostring(L, -1), 1) != LUA_OK)
            return lua_error(L);
        lua_remove(L, -2);
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

int lhost__load_scenario(lua_State *L, const char *path)
{
    const char *why = "";
    int fd = lhost__open_regular(path, O_RDONLY, &why);
    if (fd < 0) {
        lua_pushfstring(L, "cannot read scenario '%s': %s", path,
                        fd == P_REFUSED ? "not a regular file" : strerror(errno));
        return LUA_ERRFILE;
    }
    lua_pushfstring(L, "@%s", path);
    char *name = strdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    /* the user's own file, loaded before any budget is set */
    int rc = name ? load_fd(L, fd, name, 0) : (close(fd), LUA_ERRMEM);
    if (!name)
        lua_pushliteral(L, "out of memory");
    free(name);
    return rc;
}
