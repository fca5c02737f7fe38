/*
 * fuzz_host.c - libFuzzer target: the scenario host itself (lua/host,
 * lua/bindings, the embedded library). The input is not Lua: it drives a
 * generator of Lua scenarios built from the API's functions - entities of
 * every kind with their schemas' parameters, the world, timed actions and
 * callbacks (sim:at/every/on_finish/act/set/metric), distributions, the
 * MTC core, param/sweep/replications, metatable and finalizer games, the
 * standard library's C functions with huge counts, bounds and strings
 * (gen_huge_call: their loops must stay under the instruction limit) -
 * with arguments drawn from a pool of edge values (NaN, infinities,
 * extreme integers, separators in names, wrong types). Every input is a
 * valid program, so the fuzzer spends its time in the host, not in Lua's
 * parser.
 *
 * The program runs in a sandboxed host with small limits (instructions,
 * memory); if it succeeds, its world is built and run for a bounded
 * number of events. Property: no crash and no sanitizer report; every
 * problem is a Lua error or an error code.
 *
 * Shared data (fuzz_resume_db, fuzz_folder_links: inputs starting with
 * 0xd1 or 0xd2): a results database mutated by the input, opened the ways
 * a resume and the readers do; an output folder whose levels are links
 * out, with reads and writes at every level, and the property that
 * nothing outside it is read or changed.
 *
 * Not generated, because here they only cost time (other tests cover
 * them, or they are the declared experiment): population counts above
 * 50 and huge max_active_landmarks (the memory a world needs is stated
 * and checked before it is allocated: sh_lua_hardening), CA background
 * rates above 1/s (a CA drains its arrivals inside one event, so the
 * event cap does not bound that work: 1e6/s grows the log by gigabytes),
 * string patterns and loops nested more than two deep (each runs to the
 * instruction limit, which pcall cannot catch: the sandbox tests cover
 * that, and here it would spend the fuzzer's time in one loop), log ages
 * over a day (an aged log's build is linear in its landmarks, up to
 * log_age seconds of them at a rate of 1/s: a century of hourly ones is
 * 876,600 cuts, tens of seconds and two gigabytes; a SIGINT stops it,
 * sh_harden_limits).
 */
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <sqlite3.h>

#include "lhost.h"
#include "lworld.h"
#include "mtc/chain_cache.h"
#include "mtc/error.h"
#include "sim/results.h"
#include "sim/world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PROG_MAX 65536
#define EVENT_CAP 20000
#define SLOTS 8

/* ---- the baseline chains, built once per process ---- */

#ifdef FUZZ_HOST_LIBFUZZER
/* Every world signs real baseline certificate chains for its sites, and
 * building them (keys derived from fixed seeds, then ML-DSA, RSA and
 * ECDSA signatures) was most of a world's building time, and of the
 * inputs past the CPU budget, which world building does not look at. So
 * the libFuzzer build lends every host it makes one cache of built chains
 * (mtc/chain_cache.h), as `mtcsim run` does for its runs: a chain is
 * signed once per process and copied afterwards. What the host does with
 * a chain is unchanged; building one is mtc-core's, covered by
 * test_chain and test_chain_cache. The replay build (sh_fuzz_replay)
 * lends none: there every world signs its own. A harness has no main to
 * own it, hence the static, made on first use and kept for the process. */
static mtc_chain_cache *host_chains(void)
{
    static mtc_chain_cache *chains;
    static int tried;
    if (!tried) {
        tried = 1;
        if (mtc_chain_cache_create(MTC_CHAIN_CACHE_CAP_DEFAULT, &chains) != MTC_OK)
            chains = NULL;
    }
    return chains;
}
#else
static mtc_chain_cache *host_chains(void)
{
    return NULL;
}
#endif

#ifdef FUZZ_HOST_LIBFUZZER
/* AddressSanitizer's defaults for this target (ASAN_OPTIONS still wins):
 * a quarantine of 64 MiB of freed blocks instead of 256. A use after
 * free is caught while the block is in quarantine; 64 MiB is still twice
 * the Lua memory an input may hold (32 MiB), and recycling a 256 MiB
 * quarantine (fresh pages, faults, TLB flushes) cost a fifth of the
 * target's CPU time. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "quarantine_size_mb=64";
}
#endif

/* ---- input and output ---- */

typedef struct gen {
    const uint8_t *p;
    size_t n, i;
    char *out;
    size_t len;
    int full;
} gen;

/* A choice in [0, n): the next input byte (0 once the input is used up,
 * so every program ends). */
static unsigned pick(gen *g, unsigned n)
{
    if (g->i >= g->n || n == 0)
        return 0;
    return g->p[g->i++] % n;
}

__attribute__((format(printf, 2, 3)))
static void emit(gen *g, const char *fmt, ...)
{
    if (g->full)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(g->out + g->len, PROG_MAX - g->len, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= PROG_MAX - g->len) {
        g->full = 1;    /* the caller truncates to the last statement */
        return;
    }
    g->len += (size_t)k;
}

/* ---- pools ---- */

static const char *const ints[] = {
    "0", "1", "-1", "2", "3", "7", "24", "64", "100", "1000", "65536",
    "2147483647", "-2147483648", "4294967296", "9007199254740993",
    "math.maxinteger", "math.mininteger"};
static const char *const reals[] = {
    "0.5", "-0.5", "1e-7", "4e-7", "1e-300", "1e300", "1e308", "-1e308",
    "math.huge", "-math.huge", "(0/0)", "3600.5", "86400", "1e9", "1e12",
    "9e12", "0.0", "-0.0", "2.5", "60"};
static const char *const strs[] = {
    "\"\"", "\"x\"", "\"le\"", "\"w1\"", "\"updates\"", "\"sites\"", "\"b\"",
    "\"ml-dsa-44\"", "\"ed25519\"", "\"ecdsa-p256\"", "\"standalone\"",
    "\"landmark\"", "\"a,b\"", "\"x:1\"", "(\"y\"):rep(300)", "\"\\0\"",
    "(\"z\"):rep(3000)",
    "\"le:0.5\"", "\"w1:1\"", "\"mirror\"", "\"witness\"", "\"32473.1\"",
    "\"handshake_full\"", "\"all\"", "\"tcp\""};
static const char *const names[] = {"w1", "w2", "le", "ca2", "updates",
                                    "sites", "b", "c"};
static const char *const keys[] = {
    "mean", "rate", "median", "mu", "sigma", "scale", "shape", "lo", "hi",
    "n", "s", "values", "weights", "value", "id", "algorithm", "witnesses",
    "lifetime", "max_active_landmarks", "landmarks", "peak_hour", "ratio",
    "name", "count", "duration"};
/* functions called as f(args...) */
static const char *const funcs[] = {
    "mtcsim.core.sha256", "mtcsim.core.leaf_hash", "mtcsim.core.hex",
    "mtcsim.core.tree", "mtcsim.core.verify_inclusion",
    "mtcsim.core.verify_consistency", "mtcsim.core.verify_subtree_consistency",
    "mtcsim.core.covering_subtrees", "mtcsim.core.max_active_landmarks",
    "mtcsim.core.algorithms", "mtcsim.core.baseline", "mtcsim.core.chain", "mtcsim.core.ca",
    "mtcsim.core.parse_certificate", "constant", "exponential", "lognormal",
    "weibull", "pareto", "gamma", "uniform", "empirical", "zipf",
    "mtcsim.random", "mtcsim.is_dist", "daily_profile", "diurnal",
    "mtcsim.flat_profile", "hours", "days", "per_hour", "per_day",
    "mtcsim.ratio", "mtcsim.schemas", "mtcsim.actions", "tostring",
    "mtcsim.is_rate", "io.open", "require", "load", "sim.now", "sim.metrics",
    "sim.metric", "sim.act", "sim.set", "sim.on_finish"};
/* methods called as v[k]:m(args...) */
static const char *const methods[] = {
    "append", "append_hash", "size", "memory", "root", "subtree_hash",
    "leaf_hash", "inclusion_proof", "consistency_proof",
    "subtree_consistency_proof", "issue", "checkpoint", "landmark",
    "certificate", "ca_certificate", "relying_party", "verify", "get", "set",
    "act", "mean", "cdf", "sample", "name", "cosigner_down", "update_outage",
    "revoke_range", "split_view", "log_failure", "now", "metric", "metrics"};

#define N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

static void gen_value(gen *g, int depth);

static void gen_args(gen *g, int depth, unsigned max)
{
    unsigned n = pick(g, max + 1);
    for (unsigned i = 0; i < n; i++) {
        if (i)
            emit(g, ", ");
        gen_value(g, depth + 1);
    }
}

static void gen_number(gen *g)
{
    if (pick(g, 2))
        emit(g, "%s", ints[pick(g, N(ints))]);
    else
        emit(g, "%s", reals[pick(g, N(reals))]);
}

/* A table of named fields from the key pool. */
static void gen_record(gen *g, int depth)
{
    unsigned n = pick(g, 4);
    emit(g, "{");
    for (unsigned i = 0; i < n; i++) {
        emit(g, "%s%s = ", i ? ", " : "", keys[pick(g, N(keys))]);
        gen_value(g, depth + 1);
    }
    emit(g, "}");
}

static void gen_value(gen *g, int depth)
{
    unsigned c = pick(g, depth > 2 ? 6 : 14);
    switch (c) {
    case 0: emit(g, "%s", ints[pick(g, N(ints))]); break;
    case 1: emit(g, "%s", reals[pick(g, N(reals))]); break;
    case 2: emit(g, "%s", strs[pick(g, N(strs))]); break;
    case 3: emit(g, "%s", pick(g, 2) ? "true" : "false"); break;
    case 4: emit(g, "v[%u]", pick(g, SLOTS) + 1); break;
    case 5: emit(g, "\"%s\"", names[pick(g, N(names))]); break;
    case 6:
        emit(g, "{");
        gen_args(g, depth, 4);
        emit(g, "}");
        break;
    case 7: gen_record(g, depth); break;
    case 8:
        emit(g, "%s(", pick(g, 2) ? "per_hour" : "per_day");
        gen_number(g);
        emit(g, ")");
        break;
    case 9: {
        static const char *const d[] = {"exponential{mean = %s}",
                                        "lognormal{median = %s, sigma = 0.5}",
                                        "uniform{lo = 0, hi = %s}",
                                        "constant{value = %s}"};
        unsigned k = pick(g, N(d));
        char num[64];
        snprintf(num, sizeof num, "%s", pick(g, 2) ? ints[pick(g, N(ints))]
                                                   : reals[pick(g, N(reals))]);
        emit(g, d[k], num);
        break;
    }
    case 10: emit(g, "nil"); break;
    case 11:
        emit(g, "function(...) return ");
        gen_value(g, depth + 1);
        emit(g, " end");
        break;
    case 12:
        emit(g, "%s(", pick(g, 2) ? "hours" : "minutes");
        gen_number(g);
        emit(g, ")");
        break;
    default: emit(g, "sim"); break;
    }
}

/* A value suited to parameter d most of the time, anything otherwise. */
static void gen_param_value(gen *g, const sim_param_desc *d)
{
    if (!strcmp(d->name, "count")) {
        static const char *const small[] = {"0", "1", "2", "5", "50"};
        emit(g, "%s", small[pick(g, N(small))]);
        return;
    }
    if (!strcmp(d->name, "rate")) {
        static const char *const slow[] = {"0", "0.01", "0.1", "1"};
        emit(g, "%s", slow[pick(g, N(slow))]);
        return;
    }
    if (!strcmp(d->name, "max_active_landmarks")) {
        emit(g, "%u", pick(g, 40));
        return;
    }
    if (!strcmp(d->name, "log_age")) {
        static const char *const young[] = {"0", "hours(5)", "days(1)"};
        emit(g, "%s", young[pick(g, N(young))]);
        return;
    }
    if (pick(g, 4) == 0) {
        gen_value(g, 1);
        return;
    }
    switch (d->type) {
    case SIM_PARAM_ENUM:
        if (d->choices) {
            unsigned n = 0;
            while (d->choices[n])
                n++;
            emit(g, "\"%s\"", d->choices[pick(g, n)]);
            return;
        }
        break;
    case SIM_PARAM_LIST: {
        unsigned n = pick(g, 4);
        emit(g, "{");
        for (unsigned i = 0; i < n; i++)
            emit(g, "%s\"%s%s\"", i ? ", " : "", names[pick(g, N(names))],
                 pick(g, 3) ? "" : ":0.5");
        emit(g, "}");
        return;
    }
    case SIM_PARAM_PROFILE:
        emit(g, pick(g, 2) ? "diurnal{peak_hour = 20, ratio = 3}"
                           : "mtcsim.flat_profile()");
        return;
    case SIM_PARAM_DIST:
    case SIM_PARAM_BOOL:
        break;
    default:
        gen_number(g);
        return;
    }
    gen_value(g, 1);
}

/* v[k] = mtcsim.<kind>{ name = ..., params... } */
static void gen_entity(gen *g)
{
    size_t ns;
    ns = sim_world_kind_count();
    const sim_param_schema *s = sim_world_kind(pick(g, (unsigned)ns));
    int world = !strcmp(s->kind, "world");
    emit(g, "v[%u] = mtcsim.%s{", pick(g, SLOTS) + 1, s->kind);
    if (!world) {
        if (pick(g, 8))
            emit(g, "name = \"%s\", ", names[pick(g, N(names))]);
        else {
            emit(g, "name = ");
            gen_value(g, 2);
            emit(g, ", ");
        }
    }
    if (!strcmp(s->kind, "sites") || !strcmp(s->kind, "browsers"))
        emit(g, "count = %s, ", pick(g, 2) ? "2" : "20");
    /* ML-DSA signing of every checkpoint would be most of a run's time */
    if ((!strcmp(s->kind, "ca") || !strcmp(s->kind, "cosigner")) && pick(g, 8))
        emit(g, "algorithm = \"ed25519\", ");
    if (world)
        emit(g, "duration = %s, ", pick(g, 2) ? "3600" : "86400");
    unsigned n = pick(g, 5);
    for (unsigned i = 0; i < n; i++) {
        const sim_param_desc *d = &s->params[pick(g, (unsigned)s->count)];
        if (!strcmp(d->name, "name") ||
            (!strcmp(d->name, "count") && strcmp(s->kind, "world")) ||
            (world && !strcmp(d->name, "duration")))
            continue;   /* given above: a duplicate key is a syntax error */
        emit(g, "%s = ", d->name);
        gen_param_value(g, d);
        emit(g, ", ");
    }
    emit(g, "}");
}

static void gen_action_call(gen *g, const char *recv)
{
    size_t na;
    na = sim_world_action_count();
    const sim_world_action *x = sim_world_action_at(pick(g, (unsigned)na));
    emit(g, "%s:act(\"%s\", ", recv, x->name);
    if (pick(g, 4))
        emit(g, "\"%s\"", names[pick(g, N(names))]);
    else
        gen_value(g, 2);
    for (unsigned i = pick(g, 4); i > 0; i--) {
        emit(g, ", ");
        gen_number(g);
    }
    emit(g, ")");
}

/* ---- the standard library's C functions with huge arguments ---- */

/* Counts, bounds and positions that make Lua's C loops long. */
static const char *const huge_ints[] = {
    "(1 << 62)", "math.maxinteger", "math.mininteger", "(1 << 40)", "2^53",
    "-(1 << 61)", "1e6", "-1", "0", "3"};
/* Strings from empty to a few MiB (built by string.rep, itself counted). */
static const char *const huge_strs[] = {
    "\"\"", "(\"9\"):rep(1 << 20)", "(\"x = 1 \"):rep(1 << 16)",
    "(\"\\0\"):rep(4096)", "(\"%c\"):rep(5000)", "(\"z\"):rep(1 << 12)",
    "(\"\\u{10FFFF}\"):rep(1 << 14)", "v[1]"};

static void emit_huge_int(gen *g) { emit(g, "%s", huge_ints[pick(g, N(huge_ints))]); }
static void emit_huge_str(gen *g) { emit(g, "%s", huge_strs[pick(g, N(huge_strs))]); }

/* A table whose __len is huge, optionally with an __index that answers
 * without Lua code (a table) or with it (a function). */
static void emit_long_table(gen *g)
{
    static const char *const idx[] = {"", ", __index = {}",
                                      ", __index = function() return \"x\" end",
                                      ", __newindex = function() end"};
    emit(g, "setmetatable({}, { __len = function() return ");
    emit_huge_int(g);
    emit(g, " end%s })", idx[pick(g, N(idx))]);
}

/* One call of a C library function with huge arguments, protected (the
 * instruction limit is not catchable, so a long loop ends the program,
 * as it must). */
static void gen_huge_call(gen *g)
{
    emit(g, "v[%u] = select(2, pcall(", pick(g, SLOTS) + 1);
    switch (pick(g, 16)) {
    case 0:
        emit(g, "table.move, ");
        pick(g, 2) ? emit_long_table(g) : emit(g, "{}");
        emit(g, ", ");
        emit_huge_int(g);
        emit(g, ", ");
        emit_huge_int(g);
        emit(g, ", ");
        emit_huge_int(g);
        emit(g, "%s", pick(g, 2) ? ", {}" : "");
        break;
    case 1:
        emit(g, "string.rep, ");
        emit_huge_str(g);
        emit(g, ", ");
        emit_huge_int(g);
        if (pick(g, 2)) {
            emit(g, ", ");
            emit_huge_str(g);
        }
        break;
    case 2:
    case 3:
        emit(g, "table.%s, ", pick(g, 2) ? "insert" : "remove");
        emit_long_table(g);
        emit(g, ", ");
        emit_huge_int(g);
        if (pick(g, 2))
            emit(g, ", 5");
        break;
    case 4:
        emit(g, "table.concat, ");
        emit_long_table(g);
        emit(g, ", ");
        emit_huge_str(g);
        if (pick(g, 2)) {
            emit(g, ", ");
            emit_huge_int(g);
            emit(g, ", ");
            emit_huge_int(g);
        }
        break;
    case 5:
        emit(g, "table.unpack, ");
        emit_long_table(g);
        if (pick(g, 2)) {
            emit(g, ", ");
            emit_huge_int(g);
            emit(g, ", ");
            emit_huge_int(g);
        }
        break;
    case 6: {
        static const char *const f[] = {"string.upper", "string.lower",
                                        "string.reverse", "tonumber",
                                        "utf8.len", "load", "os.date",
                                        "string.len"};
        emit(g, "%s, ", f[pick(g, N(f))]);
        emit_huge_str(g);
        break;
    }
    case 7:
        emit(g, "%s, ", pick(g, 2) ? "string.byte" : "utf8.codepoint");
        emit_huge_str(g);
        emit(g, ", ");
        emit_huge_int(g);
        emit(g, ", ");
        emit_huge_int(g);
        break;
    case 8:
        emit(g, "utf8.offset, ");
        emit_huge_str(g);
        emit(g, ", ");
        emit_huge_int(g);
        break;
    case 9:
        emit(g, "string.unpack, %s, ",
             pick(g, 2) ? "(\"z\"):rep(200)" : "(\"s1\"):rep(100)");
        emit_huge_str(g);
        break;
    case 10:
        emit(g, "string.format, %s, ",
             pick(g, 2) ? "\"%q\"" : "(\"%s\"):rep(50)");
        emit_huge_str(g);
        break;
    case 11:
        emit(g, "function(s) return s + 1, -s, s // 3 end, ");
        emit_huge_str(g);
        break;
    case 12:
        emit(g, "load, function() return ");
        emit_huge_str(g);
        emit(g, " end");
        break;
    case 13:
        emit(g, "string.pack, \"s4\", ");
        emit_huge_str(g);
        break;
    case 14:
        emit(g, "tonumber, ");
        emit_huge_str(g);
        emit(g, ", %u", 2 + pick(g, 35));
        break;
    default:
        emit(g, "function(n) return string.char(table.unpack({}, 1, n)) end, ");
        emit_huge_int(g);
        break;
    }
    emit(g, "))");
}

static void gen_stmt(gen *g, int depth);

static void gen_body(gen *g, int depth)
{
    unsigned n = pick(g, 4);
    for (unsigned i = 0; i < n && !g->full; i++)
        gen_stmt(g, depth + 1);
}

/* A time for sim:at/every: mostly inside a short run, sometimes not. */
static void gen_time(gen *g)
{
    static const char *const t[] = {"1", "30", "600", "1800", "3599", "0",
                                    "0.5", "1e-7", "4e-7", "1e-6"};
    if (pick(g, 5))
        emit(g, "%s", t[pick(g, N(t))]);
    else
        gen_value(g, 2);
}

static void gen_stmt(gen *g, int depth)
{
    int protect = pick(g, 32) != 0;
    if (protect)
        emit(g, "pcall(function() ");
    unsigned c = pick(g, depth ? 14 : 17);
    switch (c) {
    case 0:
    case 1: gen_entity(g); break;
    case 2:
    case 3:
        if (pick(g, 4) == 0) {  /* the C library with huge arguments */
            gen_huge_call(g);
            break;
        }
        emit(g, "v[%u] = %s(", pick(g, SLOTS) + 1, funcs[pick(g, N(funcs))]);
        gen_args(g, 0, 5);
        emit(g, ")");
        break;
    case 4:
    case 5:
        emit(g, "v[%u] = v[%u]:%s(", pick(g, SLOTS) + 1, pick(g, SLOTS) + 1,
             methods[pick(g, N(methods))]);
        gen_args(g, 0, 4);
        emit(g, ")");
        break;
    case 6: gen_action_call(g, pick(g, 2) ? "sim" : "v[1]"); break;
    case 7:
        emit(g, "sim:set(\"%s\", \"%s\", ", names[pick(g, N(names))],
             pick(g, 2) ? "landmark_interval" : "fetch_interval");
        gen_value(g, 2);
        emit(g, ")");
        break;
    case 8:
        emit(g, "v[%u] = sim:metric(%s, ", pick(g, SLOTS) + 1,
             strs[pick(g, N(strs))]);
        gen_value(g, 2);
        emit(g, ")");
        break;
    case 9: {
        static const char *const games[] = {
            "getmetatable(v[%u]).__gc(v[1])", "setmetatable(v[%u], nil)",
            "v[%u] = nil; collectgarbage()", "collectgarbage('step', %u)",
            "v[%u] = getmetatable(sim)", "v[%u] = tostring(v[2])",
            "v[%u] = #v", "mtcsim._declared = v[%u]"};
        emit(g, games[pick(g, N(games))], pick(g, SLOTS) + 1);
        break;
    }
    case 10:
        /* bounded nesting: a pcall inside nested loops catches the
         * instruction limit and runs on (the sandbox tests cover that, not this target) */
        if (depth >= 2) {
            emit(g, "v[%u] = sim:now()", pick(g, SLOTS) + 1);
            break;
        }
        emit(g, "for i = 1, %u do ", pick(g, depth ? 5 : 50));
        gen_stmt(g, 2);
        emit(g, " end");
        break;
    case 11: {
        static const char *const p[] = {"x", "y", "scale"};
        switch (pick(g, 3)) {
        case 0:
            emit(g, "v[%u] = param(\"%s\", ", pick(g, SLOTS) + 1,
                 p[pick(g, N(p))]);
            gen_value(g, 2);
            emit(g, ")");
            break;
        case 1:
            emit(g, "sweep(\"%s\", {", p[pick(g, N(p))]);
            gen_args(g, 1, 3);
            emit(g, "})");
            break;
        default:
            emit(g, "replications(");
            gen_value(g, 2);
            emit(g, ")");
        }
        break;
    }
    case 12:
        emit(g, "v[%u] = v[%u]:get(\"%s\")", pick(g, SLOTS) + 1,
             pick(g, SLOTS) + 1, pick(g, 2) ? "name" : "latency");
        break;
    case 13:
        emit(g, "v[%u]:set(\"%s\", ", pick(g, SLOTS) + 1,
             pick(g, 2) ? "checkpoint_interval" : "mtbf");
        gen_value(g, 2);
        emit(g, ")");
        break;
    /* only at the top: these nest a body */
    case 14:
        emit(g, "sim:at(");
        gen_time(g);
        if (pick(g, 3)) {
            emit(g, ", function(s) ");
            gen_body(g, depth);
            emit(g, " end)");
        } else {
            size_t na;
            na = sim_world_action_count();
            emit(g, ", \"%s\", \"%s\"", sim_world_action_at(pick(g, (unsigned)na))->name,
                 names[pick(g, N(names))]);
            for (unsigned i = pick(g, 3); i > 0; i--) {
                emit(g, ", ");
                gen_number(g);
            }
            emit(g, ")");
        }
        break;
    case 15:
        emit(g, "sim:every(");
        gen_time(g);
        emit(g, ", function(s) ");
        gen_body(g, depth);
        emit(g, " end");
        if (pick(g, 2)) {
            emit(g, ", ");
            gen_time(g);
        }
        emit(g, ")");
        break;
    default:
        emit(g, "sim:on_finish(function(s) ");
        gen_body(g, depth);
        emit(g, " end)");
        break;
    }
    emit(g, protect ? " end)\n" : "\n");
}

/* ---- running it ---- */

/* A CPU-time budget per input (SIGPROF: user and system time, so that
 * work the kernel does for the input, page faults of big allocations,
 * counts too; libFuzzer keeps SIGALRM for its own timeouts): when it
 * runs out, the run's stop flag is set, as the host's SIGINT handler
 * sets its own, and a hook makes the scenario's next instruction raise,
 * as lua.c stops a script on SIGINT. One input can otherwise spend
 * minutes legitimately (a CA signing every checkpoint, keys of every
 * size), and the fuzzer would spend its time there. Also stopped after
 * EVENT_CAP events. 50 ms: most of the fuzzer's time went to inputs that
 * used up a longer budget (400 ms gave a third of the executions per
 * second), signing checkpoints in a long world run; the host, the
 * target's subject, is done with an input well before. Long runs are the
 * sandbox tests' and the scenario suite's. Globals because a signal
 * handler sets them. */
#define INPUT_CPU_MS 50
static volatile sig_atomic_t run_stop;
static lua_State *volatile budget_L;    /* the state to stop, or NULL */

static void budget_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    luaL_error(L, "fuzz_host: CPU budget of the input exceeded");
}

static volatile sig_atomic_t budget_hit;

static void on_budget(int sig)
{
    (void)sig;
    run_stop = 1;
    budget_hit = 1;
    /* lua_sethook may be called from a signal handler. Count only: a
     * call hook would also stop C finalizers, and what they free would
     * leak. */
    if (budget_L)
        lua_sethook(budget_L, budget_hook, LUA_MASKCOUNT, 1);
}

static void on_progress(void *ctx, sim_time now, uint64_t events)
{
    (void)ctx;
    (void)now;
    if (events >= EVENT_CAP)
        run_stop = 1;
}

/* Arms (ms > 0) or disarms (0) the budget. */
static void cpu_budget(long ms)
{
    static int installed;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_budget;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGPROF, &sa, NULL);
        installed = 1;
    }
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = ms / 1000;
    it.it_value.tv_usec = (ms % 1000) * 1000;
    setitimer(ITIMER_PROF, &it, NULL);
}

static const char *scenario_dir(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/fuzz_host_XXXXXX",
                 base && *base ? base : "/tmp");
        if (!mkdtemp(dir))
            abort();
    }
    return dir;
}

/* ---- shared data as hostile input: a mutated results database ---- */

/* A small results database as a resume finds it (an experiment, a run
 * with parameters and loaded-file hashes, a run left 'running' by a host
 * that is gone), built once; its bytes in *buf. */
static size_t template_db(const char *dir, uint8_t **buf)
{
    static uint8_t *bytes;
    static size_t len;
    if (bytes) {
        *buf = bytes;
        return len;
    }
    char path[300];
    snprintf(path, sizeof path, "%s/template.db", dir);
    unlink(path);
    sim_results *db = NULL;
    int64_t exp = 0, run = 0, run2 = 0;
    sim_experiment_info ei = {"t.lua", "mtcsim run t.lua --set n=5 --out t.db", 2, 2};
    sim_run_info ri = {0, 0, 0, 1, NULL, NULL, "fuzz", 0, 1000};
    if (sim_results_open(path, SIM_RESULTS_CREATE, &db, NULL, 0) != MTC_OK ||
        sim_results_experiment_begin(db, &ei, &exp) != MTC_OK)
        abort();
    ri.experiment_id = exp;
    if (sim_results_run_begin(db, &ri, &run) != MTC_OK ||
        sim_results_add_param(db, run, "scenario", "scenario", "n", "5") != MTC_OK ||
        sim_results_add_attr(db, run, "loaded:lib/x.lua", "ab12") != MTC_OK ||
        sim_results_run_end(db, run, SIM_RUN_COMPLETED, 1000, 3, NULL) != MTC_OK ||
        sim_results_run_begin(db, &ri, &run2) != MTC_OK ||
        sim_results_flush(db) != MTC_OK)
        abort();
    sqlite3_exec(sim_results_sqlite(db), "UPDATE run SET hostname = 'gone', "
                 "pid = 1 WHERE status = 'running'", NULL, NULL, NULL);
    sim_results_close(db);  /* run2 stays 'running': abandoned */
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) || !(bytes = malloc((size_t)st.st_size)) ||
        fread(bytes, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
        abort();
    fclose(f);
    len = (size_t)st.st_size;
    *buf = bytes;
    return len;
}

/* Opens a copy of the template mutated by the input (pairs of a 16-bit
 * offset and a byte) the ways `mtcsim run --resume`, `ls` and `report`
 * do: read-only, for appending (every page checked), stale runs, the
 * experiment's claim, its summaries. Property: every damage is an error
 * code, never a crash or a sanitizer report. */
static void fuzz_resume_db(const uint8_t *data, size_t size)
{
    const char *dir = scenario_dir();
    uint8_t *tmpl;
    size_t len = template_db(dir, &tmpl);
    uint8_t *b = malloc(len);
    if (!b)
        return;
    memcpy(b, tmpl, len);
    for (size_t i = 0; i + 2 < size; i += 3) {
        size_t off = ((size_t)data[i] << 8 | data[i + 1]) % len;
        b[off] = data[i + 2];
    }
    char path[300], side[320];
    snprintf(path, sizeof path, "%s/mutated.db", dir);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, len, f) != len)
        abort();
    fclose(f);
    free(b);
    sim_results *db = NULL;
    size_t n = 0;
    int64_t ids[8];
    char err[1024];
    if (sim_results_open(path, SIM_RESULTS_READ, &db, err, sizeof err) == MTC_OK) {
        sim_results_stale_runs(db, ids, 8, &n);
        sim_results_close(db);
    }
    if (sim_results_open(path, SIM_RESULTS_APPEND, &db, err, sizeof err) == MTC_OK) {
        int busy = 0;
        sim_results_stale_runs(db, ids, 8, &n);
        sim_results_claim_experiment(db, 1, &busy);
        sim_results_summarize(db, 1, 0, 0.95);
        sim_results_close(db);
    }
}

/* ---- shared data as hostile input: an output folder with links ---- */

/* ---- the folders, built and compared without a shell ---- */

/* A snapshot is built in memory, in-process: a fork of the fuzzer (a
 * shell per step) cost more than the input's own work and made every
 * page of the process copy-on-write for the next inputs. */
typedef struct snap {
    char *p;
    size_t len, cap;
    int failed;
} snap;

__attribute__((format(printf, 2, 3)))
static void snap_add(snap *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(s->p + s->len, s->cap - s->len, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= s->cap - s->len)
        s->failed = 1;
    else
        s->len += (size_t)k;
}

/* snprintf that says whether it all fitted. */
__attribute__((format(printf, 3, 4)))
static int fits(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return k >= 0 && (size_t)k < cap;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One line per entry below dir/rel (not following links): its path, kind
 * (d, f, l, p or ?), size and link target; sorted by path at each level
 * (which sorts the whole tree, a path's own line coming before its
 * children's). */
static void snap_walk(snap *s, const char *dir, const char *rel, int depth)
{
    char path[1024];
    if (!fits(path, sizeof path, "%s/%s", dir, rel)) {
        s->failed = 1;
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        s->failed = 1;
        return;
    }
    char *ent[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == 256 || !(ent[n] = strdup(e->d_name))) {
            s->failed = 1;
            break;
        }
        n++;
    }
    closedir(d);
    qsort(ent, n, sizeof *ent, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char r[1024], full[1024], link[512] = "";
        struct stat st;
        int ok = fits(r, sizeof r, "%s/%s", rel, ent[i]) &&
                 fits(full, sizeof full, "%s/%s", dir, r);
        free(ent[i]);
        if (!ok || lstat(full, &st)) {
            s->failed = 1;
            continue;
        }
        char kind = S_ISDIR(st.st_mode) ? 'd' : S_ISREG(st.st_mode) ? 'f'
                  : S_ISLNK(st.st_mode) ? 'l' : S_ISFIFO(st.st_mode) ? 'p' : '?';
        if (kind == 'l') {
            ssize_t k = readlink(full, link, sizeof link - 1);
            link[k > 0 ? k : 0] = 0;
        }
        snap_add(s, "%s %c %lld %s\n", r, kind, (long long)st.st_size, link);
        if (kind == 'd' && depth < 8)
            snap_walk(s, dir, r, depth + 1);
    }
}

/* The contents of dir/name (following links, as a reader would). */
static void snap_file(snap *s, const char *dir, const char *name)
{
    char path[1024];
    FILE *f = fits(path, sizeof path, "%s/%s", dir, name) ? fopen(path, "rb") : NULL;
    if (!f)
        return;     /* gone: the tree's lines show it */
    size_t k = fread(s->p + s->len, 1, s->cap - 1 - s->len, f);
    s->len += k;
    s->p[s->len] = 0;
    fclose(f);
}

/* Files below dir (names, kinds, sizes, link targets) and the contents of
 * its two secrets into out: what must not change. 0, or -1 when no
 * snapshot could be taken (then the input proves nothing). */
static int snapshot(const char *dir, char *out, size_t cap)
{
    snap s = {out, 0, cap, 0};
    out[0] = 0;
    snap_add(&s, ". d\n");
    snap_walk(&s, dir, ".", 0);
    snap_file(&s, dir, "secret");
    snap_file(&s, dir, "sub/secret");
    return s.failed ? -1 : 0;
}

/* Removes path and everything below it (not following links). */
static int rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st))
        return 0;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d)
            return -1;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[1024];
            if (!fits(sub, sizeof sub, "%s/%s", path, e->d_name) || rm_tree(sub)) {
                closedir(d);
                return -1;
            }
        }
        closedir(d);
        return rmdir(path);
    }
    return unlink(path);
}

static int put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int rc = fputs(text, f) < 0;
    return fclose(f) || rc ? -1 : 0;
}

/* One level of the output folder: steps relative to the box, each
 * mkdir, symlink (target, name), a file with text, or a fifo; a failing
 * step stops its level (a level under a file or a link that went nowhere
 * just does not exist), as "a && b" would. */
typedef struct step {
    char op;                /* 'd' mkdir, 'l' symlink, 'f' file, 'p' fifo, 0 end */
    const char *a, *b;
} step;

static void run_steps(int box, const step *st)
{
    for (; st->op; st++) {
        int rc = st->op == 'd' ? mkdirat(box, st->a, 0700)
               : st->op == 'l' ? symlinkat(st->a, box, st->b)
               : st->op == 'p' ? mkfifoat(box, st->a, 0600)
               : -1;
        if (st->op == 'f') {
            int fd = openat(box, st->a, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            rc = fd < 0 ? -1 : (write(fd, st->b, strlen(st->b)) < 0) | close(fd);
        }
        if (rc)
            return;
    }
}

/* Builds an output folder whose levels (the folder itself, a directory
 * in it, a file, its manifest) are each, by the input, real or a link to
 * a directory "outside" (or a file there), then runs a program of
 * io.open reads and writes of names at every level in a sandboxed host
 * with that folder. Property: nothing outside the folder's own tree is
 * read into the output or changed, and no crash. */
static void fuzz_folder_links(const uint8_t *data, size_t size)
{
    gen g = {data, size, 0, NULL, 0, 0};
    const char *dir = scenario_dir();
    char box[300], outside[300], p[400];
    snprintf(box, sizeof box, "%s/box", dir);
    snprintf(outside, sizeof outside, "%s/outside", dir);
    if (rm_tree(box) || rm_tree(outside) || mkdir(box, 0700) || mkdir(outside, 0700))
        abort();
    snprintf(p, sizeof p, "%s/sub", outside);
    if (mkdir(p, 0700))
        abort();
    snprintf(p, sizeof p, "%s/secret", outside);
    if (put_file(p, "SECRET"))
        abort();
    snprintf(p, sizeof p, "%s/sub/secret", outside);
    if (put_file(p, "SECRET"))
        abort();
    static const step folder_kinds[][3] = {
        {{'d', "r.files", 0}},
        {{'l', "../outside", "r.files"}},
        {{'l', "../outside/secret", "r.files"}},
        {{'d', "other", 0}, {'l', "other", "r.files"}},
        {{'f', "r.files", "x"}},
        {{0}}};
    static const step sub_kinds[][2] = {
        {{0}},
        {{'d', "r.files/sub", 0}},
        {{'l', "../../outside", "r.files/sub"}},
        {{'l', "../../outside/sub", "r.files/sub"}},
        {{'l', "..", "r.files/sub"}}};
    static const step file_kinds[][2] = {
        {{0}},
        {{'f', "r.files/f", "mine"}},
        {{'l', "../../outside/secret", "r.files/f"}},
        {{'l', "/etc/passwd", "r.files/f"}},
        {{'p', "r.files/f", 0}}};
    static const step man_kinds[][3] = {
        {{0}},
        {{'f', "r.files/.mtcsim-files", "f\nsub/f\nsecret\n"}},
        {{'l', "../../outside/secret", "r.files/.mtcsim-files"}},
        {{'f', "r.files/.mtcsim-files", "f\n"}, {'l', "../../outside/secret", "r.files/g"}}};
    int bfd = open(box, O_RDONLY | O_DIRECTORY);
    if (bfd < 0)
        abort();
    run_steps(bfd, folder_kinds[pick(&g, 6)]);
    run_steps(bfd, sub_kinds[pick(&g, 5)]);
    run_steps(bfd, file_kinds[pick(&g, 5)]);
    run_steps(bfd, man_kinds[pick(&g, 4)]);
    close(bfd);
    static char before[1 << 16], after[1 << 16];
    if (snapshot(outside, before, sizeof before))
        return;     /* nothing to compare with: the input proves nothing */
    if (getenv("FUZZ_HOST_PRINT"))
        fprintf(stderr, "-- outside\n%s\n", before);

    static const char *const paths[] = {
        "f", "g", "sub/f", "sub/secret", "sub/new", "new", "secret",
        "../outside/secret", "../../outside/secret", "sub/../f", "BOX/f",
        "BOX/sub/secret", "BOX/g", "BOX/secret", "OUT/secret", "~/x"};
    static const char *const modes[] = {"r", "w", "a", "r+", "w+", "a+"};
    char prog[8192], folder[320];
    snprintf(folder, sizeof folder, "%s/r.files", box);
    size_t k = (size_t)snprintf(prog, sizeof prog, "local leaked = {}\n");
    for (int i = 0; i < 12 && g.i < g.n && k < sizeof prog - 600; i++) {
        const char *nm = paths[pick(&g, 16)];
        char name[700];
        if (!strncmp(nm, "BOX/", 4))
            snprintf(name, sizeof name, "%s/%s", folder, nm + 4);
        else if (!strncmp(nm, "OUT/", 4))
            snprintf(name, sizeof name, "%s/%s", outside, nm + 4);
        else
            snprintf(name, sizeof name, "%s", nm);
        k += (size_t)snprintf(prog + k, sizeof prog - k,
                              "pcall(function() local f = io.open(%s%s%s, '%s') "
                              "if f then f:write('W') local t = f:read('a') "
                              "if t and t:find('SECRET') then leaked[#leaked + 1] = t end "
                              "f:close() end end)\n", "[[", name, "]]",
                              modes[pick(&g, 6)]);
    }
    snprintf(prog + k, sizeof prog - k, "assert(#leaked == 0, 'LEAKED')\n");
    char path[320], err[4096];
    snprintf(path, sizeof path, "%s/links.lua", box);
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fputs(prog, f);
    fclose(f);
    lhost_config cfg = {0, path, 1, 0, 2000000, (size_t)32 << 20, folder, 0};
    cpu_budget(INPUT_CPU_MS);
    lhost *h = lhost_create(&cfg, err, sizeof err);
    if (h) {
        lhost_set_chain_cache(h, host_chains());
        budget_L = lhost_state(h);
        if (lhost_run_file(h, path, err, sizeof err) != MTC_OK && strstr(err, "LEAKED")) {
            fprintf(stderr, "fuzz_host: a folder link leaked a file outside:\n%s\n", prog);
            abort();
        }
        budget_L = NULL;
    }
    cpu_budget(0);
    lhost_destroy(h);
    /* a tree that can no longer be listed (entries past the walk's
     * bounds) has changed too */
    if (snapshot(outside, after, sizeof after) || strcmp(before, after)) {
        fprintf(stderr, "fuzz_host: a folder link changed files outside:\n%s\n"
                "-- before\n%s-- after\n%s", prog, before, after);
        abort();
    }
}

/* CPU seconds (user + system) of the process so far. */
static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int fuzz_one(const uint8_t *data, size_t size, const char **what);

/* FUZZ_HOST_TIMES=1 prints each input's kind, how it ended and its CPU
 * time, to see where the target spends its time. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int times = -1;
    if (times < 0)
        times = getenv("FUZZ_HOST_TIMES") != NULL;
    double t0 = times ? cpu_now() : 0;
    const char *what = "?";
    int rc = fuzz_one(data, size, &what);
    if (times)
        fprintf(stderr, "fuzz_host_time %s %.3f ms\n", what, (cpu_now() - t0) * 1e3);
    return rc;
}

static int fuzz_one(const uint8_t *data, size_t size, const char **what)
{
    /* inputs starting with these bytes fuzz the shared data a researcher
     * receives instead of a scenario */
    if (size && data[0] == 0xd1) {
        *what = "db";
        fuzz_resume_db(data + 1, size - 1);
        return 0;
    }
    if (size && data[0] == 0xd2) {
        *what = "links";
        fuzz_folder_links(data + 1, size - 1);
        return 0;
    }
    static char prog[PROG_MAX];
    gen g = {data, size, 0, prog, 0, 0};
    g.out[0] = 0;
    uint64_t seed = pick(&g, 256);
    size_t last = 0;    /* end of the last complete statement */
    while (g.i < g.n && !g.full) {
        gen_stmt(&g, 0);
        if (!g.full)
            last = g.len;
    }
    prog[last] = 0;
    if (getenv("FUZZ_HOST_PRINT"))     /* to read a crashing input's program */
        fprintf(stderr, "-- seed %llu\n%s", (unsigned long long)seed, prog);

    char path[300], err[4096];
    snprintf(path, sizeof path, "%s/fuzz.lua", scenario_dir());
    lhost_config cfg = {0, path, seed, 0, 2000000, (size_t)32 << 20, NULL, 0};
    run_stop = 0;
    budget_hit = 0;
    cpu_budget(INPUT_CPU_MS);
    lhost *h = lhost_create(&cfg, err, sizeof err);
    if (!h) {
        cpu_budget(0);
        *what = "nohost";
        return 0;
    }
    lhost_set_chain_cache(h, host_chains());
    lua_State *L = lhost_state(h);
    budget_L = L;
    lua_newtable(L);
    lua_setglobal(L, "v");  /* the program's variables */
    if (luaL_loadbufferx(L, prog, last, "=fuzz.lua", "t") != LUA_OK) {
        /* every generated program parses: anything else is a generator
         * bug (or Lua out of memory while parsing) */
        const char *m = lua_tostring(L, -1);
        if (!m || !strstr(m, "not enough memory")) {
            fprintf(stderr, "generated program does not parse: %s\n%s\n",
                    m ? m : "?", prog);
            abort();
        }
        budget_L = NULL;
        cpu_budget(0);
        lhost_destroy(h);
        return 0;
    }
    const char *stage = "scenario";
    /* Building a world costs ~10 times running a small program (every
     * world signs real baseline certificates), so an eighth of the inputs
     * build and run theirs: the seed byte decides, so the fuzzer can
     * steer towards it. */
    int build = (seed & 7) == 0;
    if (lhost_pcall(h, 0, 0, err, sizeof err) == MTC_OK && build) {
        lworld *lw = NULL;
        stage = "build";
        if (lworld_build(h, seed, 0, NULL, &lw, err, sizeof err) == MTC_OK) {
            stage = "run";
            if (lworld_run(lw, &run_stop, on_progress, NULL, err, sizeof err) ==
                MTC_OK)
                stage = "completed";
        }
        lworld_destroy(lw);
    }
    budget_L = NULL;    /* before the state goes: the handler reads it */
    cpu_budget(0);
    lua_sethook(L, NULL, 0, 0);     /* finalizers run in full */
    if (getenv("FUZZ_HOST_PRINT"))
        fprintf(stderr, "-- %s: %.300s\n", stage, err);
    static char how[64];
    snprintf(how, sizeof how, "%s%s%s", build ? stage : "program",
             budget_hit ? "+budget" : "", run_stop && !budget_hit ? "+cap" : "");
    *what = how;
    lhost_destroy(h);
    return 0;
}
