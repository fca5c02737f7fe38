/*
 * lhost_internal.h - what the host's own files share: the lhost struct
 * (lhost.c: state, limits, entries; lhost_files.c: files; lhost_load.c: loaders;
 * lpattern.c: counted pattern matching). Not for the bindings: they use
 * lhost.h.
 */
#ifndef MTCSIM_LHOST_INTERNAL_H
#define MTCSIM_LHOST_INTERNAL_H

#include "lhost.h"

struct lhost {
    lua_State *L;
    lhost_config cfg;
    char scenario_dir[LHOST_PATH_MAX];
    char out_dir[LHOST_PATH_MAX];   /* the output folder; "" when none */
    /* The folder's parent (resolved once, at creation) and the folder
     * itself (opened once, with O_NOFOLLOW, at creation when it exists,
     * else on the first write): every file of the folder is opened
     * relative to folder_fd, so no name is resolved through a link that
     * appears later. -1 when not open. */
    int parent_fd, folder_fd;
    size_t mem_used, mem_peak;      /* Lua's allocator */
    size_t ext_used;                /* C memory charged by the bindings */
    uint64_t instr_left;
    /* Set when the budget ran out or the interrupt flag was seen: every
     * hook call and every catching function then raises abort_msg. */
    int aborting, abort_rc;
    char abort_msg[640];
    const volatile sig_atomic_t *interrupt;
    uint64_t max_output;            /* 0: no cap */
    lhost_account own_account;      /* the folder's bytes, unless shared */
    lhost_account *account;         /* own_account or the command's */
    uint64_t term_used;             /* bytes printed */
    struct mtc_chain_cache *chains; /* borrowed (lhost_set_chain_cache) */
    /* The files of the scenario's directory the state loaded or read:
     * name below the directory, SHA-256 of the bytes opened (malloc'ed;
     * one entry per name and content, at most LHOST_MAX_LOADED). */
    struct lhost_loaded {
        char *rel;
        char sha[65];
    } *loaded;
    size_t nloaded, caploaded;
    void *user;
};

/* Registry key of the sandbox's module cache (require). */
#define LHOST__LOADED_KEY "mtcsim.sandbox.loaded"

/* What the file functions return beside a descriptor: P_ERRNO with errno
 * set, or P_REFUSED with the reason in *why. */
enum { P_OK = 0, P_ERRNO = -1, P_REFUSED = -2 };

/* The sandbox's file functions (lhost_files.c). */
int lhost__io_open(lua_State *L);
/* Opens a file the sandbox may read (inside the scenario's directory,
 * hashed and recorded for a resume, or from the output folder's handle):
 * a descriptor, P_ERRNO or P_REFUSED. */
int lhost__open_read(lua_State *L, lhost *h, const char *path, const char **why);
/* Opens a resolved name for reading, regular files only: a descriptor,
 * P_ERRNO or P_REFUSED. */
int lhost__open_regular(const char *res, int flags, const char **why);

/* The loaders (lhost_load.c). */
int lhost__loadfile(lua_State *L);
int lhost__dofile(lua_State *L);
int lhost__require(lua_State *L);
/* Pushes the chunk of a built-in module (mtcsim.report, lib.report when
 * found_locally is 0) and returns 1; 0 when name is none. */
int lhost__load_builtin(lua_State *L, const char *name, int found_locally);

/* The standard library's long C loops under the budget and the interrupt
 * flag (lclib.c): replaces table.insert/remove/move/concat/unpack and
 * string.rep by counted versions and charges the size-proportional
 * functions before they run. Called once the sandbox's libraries are open. */
void lclib_register(lua_State *L);
/* load's chunk at index chunk: a string is charged now, a reader function
 * is replaced by one that charges each piece it returns. */
void lclib__charge_load(lua_State *L, int chunk);

/* Opens the scenario file itself (links followed: the user named it) and
 * pushes its compiled chunk. LUA_OK, or an error status with the message
 * pushed; a FIFO or device is refused rather than read. */
int lhost__load_scenario(lua_State *L, const char *path);

/* Opens the output folder cfg_dir of h: its parent resolved (the
 * directory the user named), the folder itself never through a symbolic
 * link. Fills h->out_dir, h->parent_fd and, when the folder exists,
 * h->folder_fd. 0, or -1 with a message in err. */
int lhost__open_folder(lhost *h, const char *cfg_dir, char *err, size_t errlen);

#endif
