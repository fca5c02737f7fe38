/*
 * lhost.h - the Lua state of one scenario run: sandbox, limits, library.
 *
 * One lhost per run (a sweep point x replication gets a fresh state, so
 * nothing a scenario does leaks into the next run). The host owns the
 * lua_State. By default it is a sandbox (docs/scenarios.md, "The
 * sandbox", is the threat model; this is the mechanism):
 *   - libraries: base (load, loadfile, dofile, require, pcall, xpcall,
 *     setmetatable and print replaced), string (without string.dump; its
 *     pattern functions counted, lpattern.c), table, math, utf8,
 *     coroutine (resume and close replaced), and a reduced os (time,
 *     clock, date, difftime) and io (write, stdout, stderr, open); no
 *     debug, no package, no C modules;
 *   - chunks are text only (load, dofile, loadfile, require);
 *   - reading: regular files inside the scenario's directory or the
 *     output folder, no dotfiles; writing: only inside the output folder
 *     (created on the first write), never through a symbolic link, never
 *     a dotfile or a name of a database or journal, never an existing
 *     file that no sandboxed run created (the folder keeps a manifest);
 *     the folder's files and each run's terminal output are capped at
 *     max_output bytes;
 *   - an instruction budget per entry from the host (the scenario body,
 *     each callback): a count hook, plus the C work done for the scenario
 *     (pattern matching, signatures, hashing: lhost_count; the standard
 *     library's C loops and size-proportional functions, lclib.c; one
 *     instruction per 16 bytes allocated). Running out,
 *     or the interrupt flag, raises an error that pcall, xpcall,
 *     coroutine.resume/close and load cannot catch;
 *   - __gc finalizers of tables run at the end of the entry, under its
 *     budget, and their errors fail it;
 *   - all Lua memory goes through one allocator capped at max_memory,
 *     together with what C allocates on the scenario's behalf
 *     (lhost_mem_charge).
 * `unsafe` opens every standard library, keeps the scenario directory on
 * package.path and lifts every limit.
 * math.random is seeded from (seed, replication) so scenarios reproduce.
 */
#ifndef MTCSIM_LHOST_H
#define MTCSIM_LHOST_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "sim/dist.h"

#define LHOST_PATH_MAX 4096

typedef struct lhost_config {
    int unsafe;
    const char *scenario;           /* path as given (chunk name) */
    uint64_t seed, replication;
    uint64_t max_instructions;      /* per host entry; 0 = unlimited */
    size_t max_memory;              /* bytes; 0 = unlimited */
    /* The run's dedicated output folder (lhost_output_folder), or NULL:
     * no writes. Created on the first write if missing (its parent must
     * exist); lhost_create fails when it is a symbolic link or not a
     * directory. */
    const char *out_dir;
    /* 1: an error message ends with Lua's stack traceback (`mtcsim run
     * --traceback`, for a scenario author tracing nested code). 0: the
     * message alone, which already names the scenario's file:line; an
     * error positioned inside the embedded library still gets one, as
     * that is the library failing, not the scenario. */
    int traceback;
} lhost_config;

/* Bytes a run may print, and its output folder may hold, unless
 * lhost_set_max_output says otherwise. */
#define LHOST_DEFAULT_MAX_OUTPUT ((uint64_t)1 << 30)
/* Files the output folder may list in its manifest. */
#define LHOST_MAX_FILES 10000

typedef struct lhost lhost;

/* Creates the state and loads the scenario library (globals + require
 * "mtcsim"). On error returns NULL and writes a message into err. */
lhost *lhost_create(const lhost_config *cfg, char *err, size_t errlen);
void lhost_destroy(lhost *h);   /* accepts NULL */

/*
 * The dedicated output folder of a run whose results go to db_path:
 * "DIR/NAME.files" for "DIR/NAME.db", else db_path + ".files". The
 * database and its journals are outside it, so a scenario can never
 * touch them. MTC_OK, or MTC_ERR_ARG when it does not fit in cap.
 */
int lhost_output_folder(const char *db_path, char *folder, size_t cap);

/* Distinct files (name and content) a run may load or read from its
 * scenario's directory: each is hashed and recorded. */
#define LHOST_MAX_LOADED 1000

/*
 * The files of the scenario's directory this state loaded or read so far
 * (require, dofile, loadfile, io.open for reading; not the scenario file
 * itself, nor the output folder): fn(ctx, name, sha) for each, name
 * relative to the directory, sha the SHA-256 (64 hex digits) of the bytes
 * the file held when it was opened. Returns the count.
 */
size_t lhost_loaded_files(const lhost *h,
                          void (*fn)(void *ctx, const char *name, const char *sha),
                          void *ctx);

/*
 * The output folder's byte account: what the folder's listed files held
 * when it was first measured, plus every byte written into it since
 * (rewriting or truncating a file gives nothing back). One account may be
 * shared by the runs of one command, in several processes: the parent
 * places it in memory mapped MAP_SHARED before forking its -j workers;
 * it is updated with atomic operations, and measured once, under the
 * folder's lock.
 */
typedef struct lhost_account {
    uint64_t used;
    uint32_t measured;
} lhost_account;

/* Charges h's folder writes to acc (NULL: h's own account, the default),
 * which must outlive h. */
void lhost_set_account(lhost *h, lhost_account *acc);

/* Caps, in bytes, what one run may print and what its output folder may
 * hold (0: no cap). Default LHOST_DEFAULT_MAX_OUTPUT; --unsafe: none. */
void lhost_set_max_output(lhost *h, uint64_t bytes);

/* A flag (the run's SIGINT/SIGTERM flag) that stops Lua code: once it is
 * set, the running entry ends with an error that the scenario cannot
 * catch, and lhost_pcall returns SIM_ERR_STATE. NULL: none. */
void lhost_set_interrupt(lhost *h, const volatile sig_atomic_t *flag);

/* The flag given to lhost_set_interrupt, or NULL: the world's own long
 * loops (the steady start's warm-up) watch it too. */
const volatile sig_atomic_t *lhost_interrupt_flag(const lhost *h);

/* The process's cache of built baseline chains (mtc/chain_cache.h) that
 * the worlds built from h borrow (lworld_build); it must outlive them.
 * NULL (the default): each world builds its own. */
struct mtc_chain_cache;
void lhost_set_chain_cache(lhost *h, struct mtc_chain_cache *chains);
struct mtc_chain_cache *lhost_chain_cache(const lhost *h);

lua_State *lhost_state(lhost *h);
/* Pushes the scenario library's module table (as loaded, whatever the
 * scenario did to its globals). */
void lhost_push_module(lhost *h);
const lhost_config *lhost_get_config(const lhost *h);
const char *lhost_scenario_dir(const lhost *h);

/* The host of a state made by lhost_create (any of its threads). */
lhost *lhost_of(lua_State *L);

/* Data the run attaches to the host (the lworld context). */
void lhost_set_user(lhost *h, void *user);
void *lhost_get_user(const lhost *h);

/*
 * Loads the scenario file (text only) and calls it with a message handler
 * that adds the position (and the traceback, see lhost_config), under a
 * fresh instruction budget. MTC_OK, or MTC_ERR_CALLBACK with the message
 * (file:line: ...) in err.
 */
int lhost_run_file(lhost *h, const char *path, char *err, size_t errlen);

/* lua_pcall of the function below nargs arguments on top of the stack,
 * with the message handler above and a fresh instruction budget, then the finalizers that
 * became due; pops function and arguments, leaves nres results on
 * success. MTC_OK, SIM_ERR_STATE when the interrupt flag stopped it,
 * or MTC_ERR_CALLBACK, with the message (file:line: ...) in err. */
int lhost_pcall(lhost *h, int nargs, int nres, char *err, size_t errlen);

/* Evaluates `return EXPR` in the scenario's environment (for --set
 * values); leaves one value on the stack on success. */
int lhost_eval(lhost *h, const char *expr, char *err, size_t errlen);

/* Lua memory in use (bytes), without what lhost_mem_charge counts. */
size_t lhost_memory(const lhost *h);

/*
 * Work done in C on the scenario's behalf (pattern matching, hashing,
 * signatures), in VM instructions' worth (about 400 per microsecond):
 * taken from the current entry's budget. Raises the limit error when the
 * budget runs out. Only from a C function called by the scenario.
 */
void lhost_count(lua_State *L, uint64_t cost);

/*
 * A C loop's steps charged to lhost_count in batches of 4,096: a call per
 * step would cost more than the step. lhost_meter_add may raise (the
 * limit, an interrupt) like lhost_count; lhost_meter_flush charges what
 * is pending and must run before the loop calls Lua or returns, so that
 * no work goes uncounted. The meter owns nothing.
 */
typedef struct lhost_meter {
    lua_State *L;
    uint64_t pending;
} lhost_meter;
void lhost_meter_add(lhost_meter *m, uint64_t cost);
void lhost_meter_flush(lhost_meter *m);

/*
 * C memory allocated on the scenario's behalf, counted with Lua's against
 * max_memory. lhost_mem_charge counts bytes more, or raises "WHAT: not
 * enough memory" (counting nothing) when that would exceed the cap, after
 * one full collection; call it before allocating when the size is known.
 * lhost_mem_uncharge gives bytes back (from __gc too).
 */
void lhost_mem_charge(lua_State *L, size_t bytes, const char *what);
void lhost_mem_uncharge(lua_State *L, size_t bytes);
/* The same account from C code that runs outside Lua (a world event, the
 * world's build): lhost_mem_reserve counts bytes more and returns 0, or
 * returns -1 (counting nothing, raising nothing, collecting nothing)
 * when that would exceed max_memory; lhost_mem_release gives them back.
 * lhost_mem_counted: Lua's memory plus every byte counted this way. */
int lhost_mem_reserve(lhost *h, size_t bytes);
void lhost_mem_release(lhost *h, size_t bytes);
size_t lhost_mem_counted(const lhost *h);

/* Embedded library modules (generated by mk/lua.mk). */
extern const unsigned char lua_lib_mtcsim[];
extern const size_t lua_lib_mtcsim_len;
/* scenarios/lib/report.lua: require "mtcsim.report" (and "lib.report"
 * when the scenario's directory has none) */
extern const unsigned char lua_lib_report[];
extern const size_t lua_lib_report_len;

/* The C parts of the scenario library, pushed as fields of table t at
 * the top of the stack (ldist.c, lcore.c, lworld.c). */
void ldist_register(lua_State *L);
/* A fresh sim_dist equal to the distribution userdata at idx (raises a
 * Lua error if idx is not one); the caller owns it. A plain number gives
 * a constant. */
sim_dist *ldist_instance(lua_State *L, int idx);
int ldist_is(lua_State *L, int idx);
void lcore_register(lua_State *L);
void lworld_register(lua_State *L);
/* Replaces string.find, match, gmatch and gsub in the string table at
 * the top of the stack by versions that charge their steps (lpattern.c). */
void lpattern_register(lua_State *L);
void lunits_register(lua_State *L);     /* lunits.c: mtcsim.quantity */

#endif
