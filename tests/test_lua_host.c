/*
 * test_lua_host.c - the Lua host (lua/host/lhost.c, lua/bindings/lworld*.c) driven from C:
 * the sandbox's path confinement and limits, the schema-driven binding
 * (every error names file:line and the parameter), and a world built and
 * run from a scenario string, reproducibly.
 */
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "lhost.h"
#include "lib/chains_fixture.h"
#include "lsuggest.h"
#include "lworld.h"
#include "mtc/error.h"
#include "sim/status.h"
#include "test.h"

/* A scenario file in a fresh directory; returns the host (sandboxed). */
typedef struct fixture {
    char dir[64], out[128], path[128];
    lhost *h;
} fixture;

static lhost *make_host(fixture *f, const char *code, uint64_t seed,
                        uint64_t max_instr, size_t max_mem, char *err,
                        size_t errlen)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/test_lua_host.XXXXXX");
    if (!mkdtemp(f->dir))
        return NULL;
    snprintf(f->out, sizeof f->out, "%s/out", f->dir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", f->out);
    if (system(cmd) != 0)
        return NULL;
    snprintf(f->path, sizeof f->path, "%s/s.lua", f->dir);
    FILE *fp = fopen(f->path, "w");
    if (!fp)
        return NULL;
    fputs(code, fp);
    fclose(fp);
    lhost_config cfg = {0, f->path, seed, 0, max_instr, max_mem, f->out, 0};
    f->h = lhost_create(&cfg, err, errlen);
    /* the worlds built from it borrow the process's chains, as a run's do */
    if (f->h)
        lhost_set_chain_cache(f->h, fixture_chains());
    return f->h;
}

static void drop(fixture *f)
{
    lhost_destroy(f->h);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", f->dir);
}

/* Runs code as the scenario; returns the lhost_run_file result. */
static int run(const char *code, char *err, size_t errlen)
{
    fixture f;
    lhost *h = make_host(&f, code, 1, 100000000, 256u << 20, err, errlen);
    int rc = h ? lhost_run_file(h, f.path, err, errlen) : MTC_ERR_IO;
    drop(&f);
    return rc;
}

TEST(sandbox_refuses_escapes)
{
    static const char *const bad[] = {
        "os.execute('true')", "io.popen('true')", "package.loadlib('a','b')",
        "debug.traceback()", "string.dump(print)", "os.getenv('HOME')",
        "assert(load('\\27Lua'))()", "dofile('/etc/passwd')",
        "assert(io.open('/etc/passwd'))", "assert(io.open('../x', 'w'))",
        "require('io')", "while true do end",
    };
    char err[2048];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ASSERT_EQ(run(bad[i], err, sizeof err), MTC_ERR_CALLBACK);
        ASSERT_TRUE(strstr(err, "s.lua:1:") != NULL);
    }
    ASSERT_EQ(run("local t = {} for i = 1, 1e8 do t[i] = i end", err, sizeof err),
              MTC_ERR_CALLBACK);
    ASSERT_TRUE(strstr(err, "not enough memory") || strstr(err, "instruction limit"));
    /* and what it allows */
    ASSERT_OK(run("local f = assert(io.open('ok.txt', 'w')) f:write('x') f:close()\n"
                  "assert(io.open('s.lua')):close()\n"
                  "assert(load('return 2')() == 2)\n"
                  "assert(require('mtcsim') == mtcsim)", err, sizeof err));
}

TEST(binding_errors_name_file_line_and_parameter)
{
    static const struct { const char *code, *want; } cases[] = {
        {"mtcsim.ca{ name = 'a', rat = 1 }", "s.lua:1: ca 'a': unknown parameter 'rat' (did you mean 'rate'?)"},
        {"\nmtcsim.ca{ name = 'a', rate = {} }", "s.lua:2: ca 'a': rate: expected a number, got table"},
        {"mtcsim.ca{ name = 'a', rate = 2e6 }", "s.lua:1: ca 'a': rate: 2e+06 1/s is above the maximum"},
        {"mtcsim.ca{ name = 'a', lifetime = per_day(1) }", "lifetime: a rate"},
        {"mtcsim.cosigner{ name = 'c', role = 'judge' }", "s.lua:1: cosigner 'c': role: 'judge' is not one of"},
        {"mtcsim.ca{ name = 'a', profile = { 1, 2 } }", "profile: a daily profile has 24 hourly values, got 2"},
        {"mtcsim.ca{ name = 'a', cosigners = { 5 } }", "cosigners: item 1 is a number"},
        {"mtcsim.ca{ name = 'a', 'b' }", "ca 'a': parameters must be named"},
        {"sim:at('x', function() end)", "sim:at: time must be a number of seconds"},
        {"sim:at(5, 'cosigner_down', 'w', 1)", "takes no arguments"},
        {"param('x', 1) param('x', 2)", "param 'x' declared twice"},
        {"param('x', 1) sweep('x', { 1, 2 })", "sweep 'x' must come before param('x')"},
    };
    char err[2048];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ASSERT_EQ(run(cases[i].code, err, sizeof err), MTC_ERR_CALLBACK);
        if (!strstr(err, cases[i].want)) {
            fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, err, cases[i].want);
            ASSERT_TRUE(0);
        }
    }
}

/* Runs code as the scenario, then builds its world as `mtcsim run` does
 * (the build's own errors get the same suggestion); returns the first
 * failure's code. */
static int run_and_build(const char *code, char *err, size_t errlen)
{
    fixture f;
    lhost *h = make_host(&f, code, 1, 100000000, 256u << 20, err, errlen);
    int rc = h ? lhost_run_file(h, f.path, err, errlen) : MTC_ERR_IO;
    if (rc == MTC_OK) {
        lworld *lw = NULL;
        rc = lworld_build(h, 1, 0, NULL, &lw, err, errlen);
        if (rc != MTC_OK)
            lsuggest_entity(h, err, errlen);
        lworld_destroy(lw);
    }
    drop(&f);
    return rc;
}

/* A wrong scenario fails before any simulation with file:line and the
 * offending parameter, in one process (tests/sh_lua_errors.sh checks the
 * command line's exit codes and options). want is an extended regular
 * expression; NULL: the scenario is valid. */
TEST(scenario_errors_name_file_line)
{
    static const struct { const char *want, *code; } cases[] = {
        {"s.lua:1: ca 'le': rate: expected a number, got string",
         "mtcsim.ca{ name = \"le\", rate = \"fast\" }"},
        {"s.lua:1: ca 'le': rate: -3 1/s is below the minimum 0",
         "mtcsim.ca{ name = \"le\", rate = -3 }"},
        {"s.lua:1: ca 'le': landmark_interval: 0.5 s is below the minimum 1 s",
         "mtcsim.ca{ name = \"le\", landmark_interval = 0.5 }"},
        {"s.lua:1: ca 'le': landmark_interval: a rate .* unit is 's'",
         "mtcsim.ca{ name = \"le\", landmark_interval = per_hour(1) }"},
        {"s.lua:1: ca 'le': algorithm: 'rsa' is not one of",
         "mtcsim.ca{ name = \"le\", algorithm = \"rsa\" }"},
        {"s.lua:1: ca 'le': sign_latency: mean 1e\\+09 is outside",
         "mtcsim.ca{ name = \"le\", sign_latency = exponential{ mean = 1e9 } }"},
        {"s.lua:1: cosigner 'w': latency: expected a distribution",
         "mtcsim.cosigner{ name = \"w\", latency = \"slow\" }"},
        {"s.lua:1: ca 'le': quorum: 2 exceeds the 1 cosigners",
         "mtcsim.ca{ name = \"le\", cosigners = { \"w\" }, quorum = 2 }"},
        {"s.lua:1: .*cosigners: no cosigner named 'nope'",
         "mtcsim.ca{ name = \"le\", cosigners = { \"nope\" } }"},
        {"s.lua:1: mtcsim.ca: parameter 'name' is required", "mtcsim.ca{ rate = 1 }"},
        {"the name 'x' is already used by the ca declared at .*s.lua:1",
         "mtcsim.ca{ name = \"x\" } mtcsim.cosigner{ name = \"x\" }"},
        {"s.lua:1: world: warmup: must be shorter than duration",
         "mtcsim.world{ duration = days(1), warmup = days(2) }"},
        {"s.lua:1: exponential: unknown field 'mena'", "local d = exponential{ mena = 3 }"},
        {"s.lua:1: sim:at: time 3456000 s is after the end of the simulation",
         "sim:at(days(40), function() end)"},
        {"s.lua:1: sim:at: unknown action 'explode'", "sim:at(1, \"explode\", \"x\")"},
        {"s.lua:1: sim:at: action 'cosigner_down' needs a cosigner, and there is no cosigner named 'zz'",
         "sim:at(hours(1), \"cosigner_down\", \"zz\")"},
        {"s.lua:1: sim:at: action 'cosigner_outage' takes 1 to 1 arguments",
         "mtcsim.cosigner{ name = \"w\" } sim:at(1, \"cosigner_outage\", \"w\")"},
        {"s.lua:1: unexpected symbol", "mtcsim.ca{ name = }"},
        {"s.lua:1: .*actions run during the simulation",
         "mtcsim.cosigner{ name = \"w\" } sim:act(\"cosigner_down\", \"w\")"},
        /* a run starts from the deployed system: a warm-up shorter than
         * the history that needs is refused, naming the terms */
        {"s.lua:1: world: warmup: a steady start needs at least 608400 s .*CA le: "
         "lifetime 7 d \\+ landmark interval 1 h.*got 0 s",
         "mtcsim.ca{ name = \"le\" }"},
        /* steady_warmup{} gives exactly what the world checks: 1 us less
         * is refused */
        {NULL, "mtcsim.world{ warmup = steady_warmup{ lifetime = days(7), landmark_interval = hours(2) }, "
               "duration = days(7.2) } mtcsim.ca{ name = \"le\", landmark_interval = hours(2) }"},
        {"world: warmup: a steady start needs at least 612000 s",
         "mtcsim.world{ warmup = steady_warmup{ lifetime = days(7), landmark_interval = hours(2) } - 1e-6, "
         "duration = days(7.2) } mtcsim.ca{ name = \"le\", landmark_interval = hours(2) }"},
        {"s.lua:1: steady_warmup: landmark_interval is required",
         "mtcsim.world{ warmup = steady_warmup{ lifetime = days(7) } }"},
    };
    char err[2048];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err[0] = 0;
        int rc = run_and_build(cases[i].code, err, sizeof err);
        if (!cases[i].want) {
            if (rc != MTC_OK)
                fprintf(stderr, "case %zu refused: %s\n", i, err);
            ASSERT_OK(rc);
            continue;
        }
        regex_t re;
        ASSERT_OK(regcomp(&re, cases[i].want, REG_EXTENDED | REG_NOSUB));
        int match = regexec(&re, err, 0, NULL, 0) == 0;
        regfree(&re);
        if (rc == MTC_OK || !match)
            fprintf(stderr, "case %zu (rc %d): '%s' lacks /%s/\n", i, rc, err, cases[i].want);
        ASSERT_TRUE(rc != MTC_OK);
        ASSERT_TRUE(match);
    }
}

/* Builds and runs the world a scenario declares; returns the number of
 * log entries and the handshake count. */
static void run_world(uint64_t seed, int64_t *entries, int64_t *full,
                      size_t *nparams)
{
    static const char code[] =
        "mtcsim.world{ duration = hours(8), warmup = hours(2), start = 'empty' }\n"
        "local w = mtcsim.cosigner{ name = 'w', algorithm = 'ed25519' }\n"
        "mtcsim.ca{ name = 'ca', algorithm = 'ed25519', rate = per_day(2000),\n"
        "           cosigners = { w }, quorum = 1 }\n"
        "mtcsim.update_service{ name = 'us' }\n"
        "mtcsim.sites{ name = 's', count = 20, key_alg = 'ed25519', issue_spread = hours(2) }\n"
        "mtcsim.browsers{ name = 'b', count = 50 }\n"
        "sim:at(hours(3), 'cosigner_outage', w, 600)\n"
        "fired = 0\n"
        "sim:every(hours(1), function(s) fired = fired + 1 end)\n";
    fixture f;
    char err[2048];
    lhost *h = make_host(&f, code, seed, 0, 0, err, sizeof err);
    if (!h || lhost_run_file(h, f.path, err, sizeof err) != MTC_OK) {
        fprintf(stderr, "%s\n", err);
        *entries = -1;
        drop(&f);
        return;
    }
    lworld *lw = NULL;
    int rc = lworld_build(h, seed, 0, NULL, &lw, err, sizeof err);
    if (rc == MTC_OK)
        rc = lworld_run(lw, NULL, NULL, NULL, err, sizeof err);
    if (rc != MTC_OK) {
        fprintf(stderr, "%s\n", err);
        *entries = -1;
    } else {
        sim_metrics *m = lworld_metrics(lw);
        *entries = sim_counter_value(sim_metrics_find(m, "log_entries"), SIM_ALL_COHORTS);
        sim_metric *hf = sim_metrics_find(m, "handshake_full");
        *full = hf ? sim_counter_value(hf, SIM_ALL_COHORTS) : -1;
        lworld_params(lw, nparams);
        lua_State *L = lhost_state(h);
        lua_getglobal(L, "fired");
        if (lua_tointeger(L, -1) != 8)      /* every hour of 8 */
            *entries = -2;
        lua_pop(L, 1);
    }
    lworld_destroy(lw);
    drop(&f);
}

TEST(world_from_lua_runs_and_reproduces)
{
    int64_t e1, f1, e2, f2, e3, f3;
    size_t n1, n2, n3;
    run_world(7, &e1, &f1, &n1);
    run_world(7, &e2, &f2, &n2);
    run_world(8, &e3, &f3, &n3);
    ASSERT_TRUE(e1 > 0);
    ASSERT_TRUE(f1 > 0);
    ASSERT_EQ(e1, e2);
    ASSERT_EQ(f1, f2);
    ASSERT_TRUE(e1 != e3 || f1 != f3);
    /* every parameter of every entity is listed (world + 5 entities) */
    ASSERT_EQ(n1, n2);
    ASSERT_TRUE(n1 > 40);
}

/* the host-side API of the sandbox's limits. */

/* The output folder is beside the database, so no scenario can name the
 * database or its journals. */
TEST(output_folder_is_beside_the_database)
{
    char f[64];
    ASSERT_OK(lhost_output_folder("out/r.db", f, sizeof f));
    ASSERT_STR_EQ(f, "out/r.files");
    ASSERT_OK(lhost_output_folder("results", f, sizeof f));
    ASSERT_STR_EQ(f, "results.files");
    ASSERT_OK(lhost_output_folder("dir/.db", f, sizeof f));
    ASSERT_STR_EQ(f, "dir/.db.files");
    ASSERT_EQ(lhost_output_folder("a/very/long/name.db", f, 8), MTC_ERR_ARG);
}

/* A folder that does not exist yet is made on the first write. */
TEST(output_folder_is_made_on_first_write)
{
    fixture f;
    char err[2048];
    lhost *h = make_host(&f, "local f = assert(io.open('a.txt', 'w'))\n"
                             "f:write('x') f:close()\n", 1, 0, 0, err, sizeof err);
    ASSERT_TRUE(h != NULL);
    lhost_destroy(h);
    char folder[160];
    snprintf(folder, sizeof folder, "%s/new.files", f.dir);
    lhost_config cfg = {0, f.path, 1, 0, 0, 0, folder, 0};
    f.h = lhost_create(&cfg, err, sizeof err);
    ASSERT_TRUE(f.h != NULL);
    struct stat st;
    ASSERT_TRUE(stat(folder, &st) != 0);    /* nothing written yet */
    ASSERT_OK(lhost_run_file(f.h, f.path, err, sizeof err));
    ASSERT_TRUE(stat(folder, &st) == 0 && S_ISDIR(st.st_mode));
    drop(&f);
}

/* Files and printed output are capped: a full disk must not be a
 * scenario's doing. Writes past the cap fail (EFBIG), prints raise. The
 * folder's cap counts bytes written: a failed write charges nothing, a
 * truncation (through the same or a second handle) gives nothing back. */
TEST(output_is_capped)
{
    fixture f;
    char err[2048];
    lhost *h = make_host(&f,
        /* buffered: the failure shows when the buffer is written */
        "local f = assert(io.open('big.txt', 'w'))\n"
        "f:write(('x'):rep(600)) f:write(('y'):rep(600))\n"
        "local ok, msg = f:close()\n"
        "assert(not ok and msg:find('too large'), tostring(msg))\n"
        "f = assert(io.open('big.txt', 'w'))\n"   /* the failed write: free */
        "f:write(('z'):rep(700)) assert(f:flush())\n"
        "local g = assert(io.open('big.txt', 'w'))\n"  /* truncates under f */
        "g:close()\n"
        "f:seek('set', 0) f:write(('w'):rep(400))\n"
        "assert(not f:flush()) f:close()\n"     /* 700 + 400 > 1000 */
        "f = assert(io.open('small.txt', 'w'))\n"
        "f:write(('z'):rep(200)) assert(f:flush()) f:close()\n"
        "f = assert(io.open('small.txt', 'w'))\n"
        "f:write(('z'):rep(200)) assert(not f:flush()) f:close()\n",
        1, 0, 0, err, sizeof err);
    ASSERT_TRUE(h != NULL);
    lhost_set_max_output(h, 1000);
    if (lhost_run_file(h, f.path, err, sizeof err) != MTC_OK) {
        fprintf(stderr, "%s\n", err);
        ASSERT_TRUE(0);
    }
    char p[200];
    struct stat st;
    snprintf(p, sizeof p, "%s/big.txt", f.out);
    ASSERT_TRUE(stat(p, &st) == 0 && st.st_size == 0);
    snprintf(p, sizeof p, "%s/small.txt", f.out);
    ASSERT_TRUE(stat(p, &st) == 0 && st.st_size == 0);
    drop(&f);
    /* each write counts at least a byte, so empty ones print nothing here */
    h = make_host(&f, "for i = 1, 100 do io.write('') end", 1, 0, 0, err,
                  sizeof err);
    ASSERT_TRUE(h != NULL);
    lhost_set_max_output(h, 50);
    ASSERT_EQ(lhost_run_file(h, f.path, err, sizeof err), MTC_ERR_CALLBACK);
    ASSERT_TRUE(strstr(err, "s.lua:1: output limit exceeded") != NULL);
    drop(&f);
}

/* Runs of one command share the folder's account (-j workers map it
 * shared): a second host writing after the first sees what it wrote,
 * and the folder's earlier files count from the first measure. */
TEST(output_account_is_shared)
{
    fixture f;
    char err[2048];
    lhost_account acc = {0, 0};
    lhost *h = make_host(&f, "local f = assert(io.open('a.txt', 'w'))\n"
                             "f:write(('a'):rep(600)) assert(f:close())\n",
                         1, 0, 0, err, sizeof err);
    ASSERT_TRUE(h != NULL);
    lhost_set_account(h, &acc);
    lhost_set_max_output(h, 1000);
    ASSERT_OK(lhost_run_file(h, f.path, err, sizeof err));
    ASSERT_EQ_U64(acc.used, 600);
    lhost_config cfg = {0, f.path, 1, 0, 0, 0, f.out, 0};
    lhost *h2 = lhost_create(&cfg, err, sizeof err);
    ASSERT_TRUE(h2 != NULL);
    FILE *fp = fopen(f.path, "w");
    ASSERT_TRUE(fp != NULL);
    fputs("local f = assert(io.open('b.txt', 'w'))\n"
          "f:write(('b'):rep(600)) assert(not f:close())\n", fp);
    fclose(fp);
    lhost_set_account(h2, &acc);
    lhost_set_max_output(h2, 1000);
    ASSERT_OK(lhost_run_file(h2, f.path, err, sizeof err));
    ASSERT_EQ_U64(acc.used, 600);
    lhost_destroy(h2);
    /* a fresh account measures the folder's listed files: a.txt's 600 */
    lhost_account fresh = {0, 0};
    lhost *h3 = lhost_create(&cfg, err, sizeof err);
    ASSERT_TRUE(h3 != NULL);
    lhost_set_account(h3, &fresh);
    lhost_set_max_output(h3, 1000);
    ASSERT_OK(lhost_run_file(h3, f.path, err, sizeof err));
    ASSERT_EQ_U64(fresh.used, 600);
    lhost_destroy(h3);
    drop(&f);
}

/* The interrupt flag stops Lua code that catches every error. */
TEST(interrupt_stops_a_catching_loop)
{
    fixture f;
    char err[2048];
    lhost *h = make_host(&f, "while true do pcall(function() while true do end end) end",
                         1, 0, 0, err, sizeof err);
    ASSERT_TRUE(h != NULL);
    static volatile sig_atomic_t flag = 1;
    lhost_set_interrupt(h, &flag);
    ASSERT_EQ(lhost_run_file(h, f.path, err, sizeof err), SIM_ERR_STATE);
    ASSERT_TRUE(strstr(err, "interrupted") != NULL);
    drop(&f);
}

/* C memory charged by the bindings counts with Lua's, and is given back
 * when its object is collected. */
TEST(c_memory_counts_against_the_cap)
{
    char err[2048];
    fixture f;
    lhost *h = make_host(&f, "t = mtcsim.core.tree()\n"
                             "for i = 1, 50000 do t:append_hash(('\\0'):rep(32)) end\n",
                         1, 0, 64u << 20, err, sizeof err);
    ASSERT_TRUE(h != NULL);
    size_t before = lhost_memory(h);
    ASSERT_OK(lhost_run_file(h, f.path, err, sizeof err));
    (void)before;
    lua_State *L = lhost_state(h);
    /* a second tree of the same size fits only once the first is gone */
    ASSERT_EQ(luaL_dostring(L, "u = mtcsim.core.tree() "
                               "for i = 1, 50000 do u:append_hash(('\\0'):rep(32)) end"),
              LUA_OK);
    lua_settop(L, 0);
    drop(&f);
    h = make_host(&f, "local t = mtcsim.core.tree()\n"
                      "for i = 1, 1e6 do t:append_hash(('\\0'):rep(32)) end\n",
                  1, 0, 8u << 20, err, sizeof err);
    ASSERT_TRUE(h != NULL);
    ASSERT_EQ(lhost_run_file(h, f.path, err, sizeof err), MTC_ERR_CALLBACK);
    ASSERT_TRUE(strstr(err, "s.lua:2: core.tree: not enough memory") != NULL);
    drop(&f);
}

static const test_case tests[] = {
    {"sandbox_refuses_escapes", sandbox_refuses_escapes},
    {"binding_errors_name_file_line_and_parameter",
     binding_errors_name_file_line_and_parameter},
    {"scenario_errors_name_file_line", scenario_errors_name_file_line},
    {"world_from_lua_runs_and_reproduces", world_from_lua_runs_and_reproduces},
    {"output_folder_is_beside_the_database", output_folder_is_beside_the_database},
    {"output_folder_is_made_on_first_write", output_folder_is_made_on_first_write},
    {"output_is_capped", output_is_capped},
    {"output_account_is_shared", output_account_is_shared},
    {"interrupt_stops_a_catching_loop", interrupt_stops_a_catching_loop},
    {"c_memory_counts_against_the_cap", c_memory_counts_against_the_cap},
};

TEST_MAIN(tests)
