/*
 * cmd_run.c - `mtcsim run SCENARIO.lua`: plan, check, run and record a
 * scenario's runs (sweep points x replications), then print a summary.
 *
 * Why the scenario runs once per run: a run is a fresh Lua state and a
 * fresh world, so nothing leaks between runs, and a sweep value is simply
 * what param() returns in that run. The first execution also plans: it
 * reveals the declared params, sweeps and replications. Before any
 * simulation every sweep point is executed and its world built and
 * started, so a scenario that is wrong for any point fails with exit 2
 * before a single event runs.
 * Signals only set a flag; the engine's stop predicate sees it, the run is
 * stored and marked interrupted, and no further run starts.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "host.h"
#include "lhost.h"
#include "lworld.h"
#include "mtc/error.h"
#include "sim/progress.h"
#include "sim/results.h"

#define MAX_POINTS 100000
#define DEFAULT_MAX_INSTRUCTIONS 10000000000ULL   /* ~10-30 s of Lua */
#define DEFAULT_MAX_MEMORY_MB 4096

static volatile sig_atomic_t g_interrupt;   /* main-owned: set by signals */

static void on_signal(int sig)
{
    (void)sig;
    g_interrupt = 1;
}

/* A scenario value: number (integer or float), string or boolean. */
typedef struct sval {
    int type;           /* LUA_TNUMBER, LUA_TSTRING, LUA_TBOOLEAN */
    int is_int;
    lua_Integer i;
    double d;
    int b;
    char *s;
} sval;

typedef struct axis {
    char *name;
    size_t n;
    sval *v;
} axis;

typedef struct sparam {
    char *name, *doc, *value, *def, *source;
} sparam;

typedef struct run_opts {
    const char *scenario;
    const char **set_name, **set_value;
    size_t nsets;
    uint64_t seed;
    long reps;              /* -1: scenario's or 1 */
    const char *out;
    char out_dir[LHOST_PATH_MAX];
    int quiet, unsafe, list_params, summary_all;
    int spread;             /* under mpirun: whole runs per rank */
    uint64_t max_instr;
    uint64_t max_mem_mb;
    char cmdline[4096];
} run_opts;

/* What one completed run contributes to the summary. */
typedef struct stat_row {
    char name[160];
    double v;
} stat_row;

typedef struct run_stats {
    size_t point, rep;
    stat_row *s;
    size_t n, cap;
} run_stats;

typedef struct plan {
    sparam *params;
    size_t nparams;
    axis *axes;             /* declared sweeps not fixed by --set */
    size_t naxes;
    size_t npoints;
    long reps;
} plan;

/* ---- small helpers -------------------------------------------------------- */

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) {
        fprintf(stderr, "mtcsim: out of memory\n");
        exit(HOST_FAIL);
    }
    return d;
}

static void sval_format(const sval *v, char *buf, size_t n)
{
    if (v->type == LUA_TNUMBER) {
        if (v->is_int) {
            snprintf(buf, n, "%lld", (long long)v->i);
        } else {
            /* the shortest form that reads back exactly */
            snprintf(buf, n, "%.15g", v->d);
            if (strtod(buf, NULL) != v->d)
                snprintf(buf, n, "%.17g", v->d);
        }
    } else if (v->type == LUA_TBOOLEAN) {
        snprintf(buf, n, "%s", v->b ? "true" : "false");
    } else {
        snprintf(buf, n, "%s", v->s ? v->s : "");
    }
}

static void sval_read(lua_State *L, int idx, sval *v)
{
    memset(v, 0, sizeof *v);
    v->type = lua_type(L, idx);
    if (v->type == LUA_TNUMBER) {
        v->is_int = lua_isinteger(L, idx);
        v->i = lua_tointeger(L, idx);
        v->d = lua_tonumber(L, idx);
    } else if (v->type == LUA_TBOOLEAN) {
        v->b = lua_toboolean(L, idx);
    } else {
        v->type = LUA_TSTRING;
        v->s = xstrdup(lua_tostring(L, idx));
    }
}

static void sval_push(lua_State *L, const sval *v)
{
    if (v->type == LUA_TNUMBER) {
        if (v->is_int)
            lua_pushinteger(L, v->i);
        else
            lua_pushnumber(L, v->d);
    } else if (v->type == LUA_TBOOLEAN) {
        lua_pushboolean(L, v->b);
    } else {
        lua_pushstring(L, v->s);
    }
}

/* Which value of each axis point p takes (first axis slowest). */
static size_t axis_index(const plan *pl, size_t p, size_t a)
{
    size_t stride = 1;
    for (size_t k = pl->naxes; k-- > a + 1;)
        stride *= pl->axes[k].n;
    return (p / stride) % pl->axes[a].n;
}

static void point_label(const plan *pl, size_t p, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t a = 0; a < pl->naxes && k < n; a++) {
        char v[128];
        sval_format(&pl->axes[a].v[axis_index(pl, p, a)], v, sizeof v);
        k += (size_t)snprintf(buf + k, n - k, "%s%s=%s", a ? " " : "",
                              pl->axes[a].name, v);
    }
}

/* ---- the Lua side of a run ----------------------------------------------- */

/* A fresh state with the scenario executed for (point, replication).
 * pl may be NULL (the planning execution: no point). */
static lhost *scenario_state(const run_opts *o, const plan *pl, size_t p,
                             uint64_t rep, char *err, size_t errlen)
{
    lhost_config cfg = {o->unsafe, o->scenario, o->seed, rep, o->max_instr,
                        (size_t)o->max_mem_mb << 20, o->out ? o->out_dir : NULL};
    lhost *h = lhost_create(&cfg, err, errlen);
    if (!h)
        return NULL;
    lua_State *L = lhost_state(h);
    lhost_push_module(h);
    lua_getfield(L, -1, "_configure");
    lua_remove(L, -2);
    lua_newtable(L);
    for (size_t i = 0; i < o->nsets; i++) {
        lua_pushstring(L, o->set_value[i]);
        lua_setfield(L, -2, o->set_name[i]);
    }
    lua_newtable(L);
    for (size_t a = 0; pl && a < pl->naxes; a++) {
        sval_push(L, &pl->axes[a].v[axis_index(pl, p, a)]);
        lua_setfield(L, -2, pl->axes[a].name);
    }
    if (lhost_pcall(h, 2, 0, err, errlen) != MTC_OK ||
        lhost_run_file(h, o->scenario, err, errlen) != MTC_OK) {
        lhost_destroy(h);
        return NULL;
    }
    return h;
}

static char *field_str(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    char *r;
    if (lua_type(L, -1) == LUA_TNUMBER || lua_type(L, -1) == LUA_TBOOLEAN) {
        sval v;
        char buf[64];
        sval_read(L, -1, &v);
        sval_format(&v, buf, sizeof buf);
        r = xstrdup(buf);
    } else {
        r = xstrdup(lua_tostring(L, -1));
    }
    lua_pop(L, 1);
    return r;
}

/* Reads params, sweeps and replications from the planning state and
 * checks --set names. HOST_OK or HOST_USAGE (message printed). */
static int make_plan(const run_opts *o, lhost *h, plan *pl)
{
    lua_State *L = lhost_state(h);
    char err[4096];
    lhost_push_module(h);
    lua_getfield(L, -1, "_declared");
    lua_remove(L, -2);
    if (lhost_pcall(h, 0, 1, err, sizeof err) != MTC_OK) {
        fprintf(stderr, "mtcsim run: %s\n", err);
        return HOST_USAGE;
    }
    int t = lua_gettop(L);
    lua_getfield(L, t, "params");
    pl->nparams = lua_rawlen(L, -1);
    pl->params = calloc(pl->nparams + 1, sizeof *pl->params);
    for (size_t i = 0; i < pl->nparams; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        int pt = lua_gettop(L);
        sparam *sp = &pl->params[i];
        sp->name = field_str(L, pt, "name");
        sp->doc = field_str(L, pt, "doc");
        sp->value = field_str(L, pt, "value");
        sp->def = field_str(L, pt, "default");
        sp->source = field_str(L, pt, "source");
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    for (size_t i = 0; i < o->nsets; i++) {
        int found = 0;
        for (size_t k = 0; k < pl->nparams; k++)
            found |= !strcmp(pl->params[k].name, o->set_name[i]);
        if (!found) {
            fprintf(stderr, "mtcsim run: --set %s: the scenario declares no "
                            "parameter '%s' (declared:", o->set_name[i],
                    o->set_name[i]);
            for (size_t k = 0; k < pl->nparams; k++)
                fprintf(stderr, " %s", pl->params[k].name);
            fprintf(stderr, "%s)\n", pl->nparams ? "" : " none");
            return HOST_USAGE;
        }
    }
    lua_getfield(L, t, "sweeps");
    size_t ns = lua_rawlen(L, -1);
    pl->axes = calloc(ns + 1, sizeof *pl->axes);
    pl->npoints = 1;
    for (size_t i = 0; i < ns; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        int st = lua_gettop(L);
        char *name = field_str(L, st, "name");
        int fixed = 0, declared = 0;
        for (size_t k = 0; k < o->nsets; k++)
            fixed |= !strcmp(o->set_name[k], name);
        for (size_t k = 0; k < pl->nparams; k++)
            declared |= !strcmp(pl->params[k].name, name);
        if (!declared) {
            fprintf(stderr, "mtcsim run: sweep '%s' has no param('%s', ...) "
                            "that uses it\n", name, name);
            free(name);
            return HOST_USAGE;
        }
        if (fixed) {
            free(name);
            lua_pop(L, 1);
            continue;
        }
        axis *ax = &pl->axes[pl->naxes++];
        ax->name = name;
        lua_getfield(L, st, "values");
        ax->n = lua_rawlen(L, -1);
        ax->v = calloc(ax->n, sizeof *ax->v);
        for (size_t k = 0; k < ax->n; k++) {
            lua_rawgeti(L, -1, (lua_Integer)k + 1);
            sval_read(L, -1, &ax->v[k]);
            lua_pop(L, 1);
        }
        lua_pop(L, 2);
        if (pl->npoints > MAX_POINTS / (ax->n ? ax->n : 1)) {
            fprintf(stderr, "mtcsim run: the sweep grid exceeds %d points\n",
                    MAX_POINTS);
            return HOST_USAGE;
        }
        pl->npoints *= ax->n;
    }
    lua_pop(L, 1);
    lua_getfield(L, t, "replications");
    pl->reps = o->reps > 0 ? o->reps
               : lua_isinteger(L, -1) ? (long)lua_tointeger(L, -1) : 1;
    lua_settop(L, t - 1);
    return HOST_OK;
}

static void free_plan(plan *pl)
{
    for (size_t i = 0; i < pl->nparams; i++) {
        free(pl->params[i].name);
        free(pl->params[i].doc);
        free(pl->params[i].value);
        free(pl->params[i].def);
        free(pl->params[i].source);
    }
    free(pl->params);
    for (size_t a = 0; a < pl->naxes; a++) {
        for (size_t k = 0; k < pl->axes[a].n; k++)
            free(pl->axes[a].v[k].s);
        free(pl->axes[a].v);
        free(pl->axes[a].name);
    }
    free(pl->axes);
}

/* The effective scenario parameters of the state (after the script). */
static int scenario_params(lhost *h, plan *tmp)
{
    memset(tmp, 0, sizeof *tmp);
    run_opts none = {0};
    return make_plan(&none, h, tmp);
}

/* ---- summary ----------------------------------------------------------------- */

static void stat_add(run_stats *rs, const char *name, double v)
{
    if (!isfinite(v))
        return;
    if (rs->n == rs->cap) {
        size_t nc = rs->cap ? 2 * rs->cap : 64;
        stat_row *s = realloc(rs->s, nc * sizeof *s);
        if (!s)
            return;
        rs->s = s;
        rs->cap = nc;
    }
    snprintf(rs->s[rs->n].name, sizeof rs->s[rs->n].name, "%s", name);
    rs->s[rs->n++].v = v;
}

/* Headline figures first (docs/metrics.md names, when the run has them),
 * then every metric: counters and gauges (total), histograms (count, mean,
 * p50, p99). */
static void collect_stats(sim_metrics *m, run_stats *rs)
{
    sim_metric *full = sim_metrics_find(m, "handshake_full");
    sim_metric *sl = sim_metrics_find(m, "handshake_signatureless");
    if (full && sl && sim_counter_value(full, SIM_ALL_COHORTS) > 0)
        stat_add(rs, "signatureless_fraction",
                 (double)sim_counter_value(sl, SIM_ALL_COHORTS) /
                     (double)sim_counter_value(full, SIM_ALL_COHORTS));
    sim_metric *ab = sim_metrics_find(m, "auth_bytes");
    static const char *const base[] = {"auth_bytes_baseline_classical",
                                        "auth_bytes_baseline_mldsa44"};
    for (int i = 0; ab && i < 2; i++) {
        sim_metric *b = sim_metrics_find(m, base[i]);
        if (b && sim_hist_count(ab, SIM_ALL_COHORTS) &&
            sim_hist_count(b, SIM_ALL_COHORTS)) {
            char n[160];
            snprintf(n, sizeof n, "auth_bytes_ratio_vs_%s",
                     i ? "mldsa44" : "classical");
            stat_add(rs, n, sim_hist_mean(ab, SIM_ALL_COHORTS) /
                                sim_hist_mean(b, SIM_ALL_COHORTS));
        }
    }
    size_t n = sim_metrics_count(m);
    for (size_t i = 0; i < n; i++) {
        const sim_metric *mt = sim_metrics_at(m, i);
        const char *name = sim_metric_name(mt);
        char k[160];
        switch (sim_metric_kind(mt)) {
        case SIM_METRIC_COUNTER:
            stat_add(rs, name, (double)sim_counter_value(mt, SIM_ALL_COHORTS));
            break;
        case SIM_METRIC_GAUGE:
            stat_add(rs, name, sim_gauge_value(mt, SIM_ALL_COHORTS));
            break;
        default:
            if (!sim_hist_count(mt, SIM_ALL_COHORTS))
                break;
            snprintf(k, sizeof k, "%s.count", name);
            stat_add(rs, k, (double)sim_hist_count(mt, SIM_ALL_COHORTS));
            snprintf(k, sizeof k, "%s.mean", name);
            stat_add(rs, k, sim_hist_mean(mt, SIM_ALL_COHORTS));
            snprintf(k, sizeof k, "%s.p50", name);
            stat_add(rs, k, sim_hist_quantile(mt, SIM_ALL_COHORTS, 0.5));
            snprintf(k, sizeof k, "%s.p99", name);
            stat_add(rs, k, sim_hist_quantile(mt, SIM_ALL_COHORTS, 0.99));
            break;
        }
    }
}

/* The short summary's rows (docs/metrics.md names); --summary all prints
 * every statistic. A model without any of them gets everything. */
static const char *const headline[] = {
    "signatureless_fraction", "auth_bytes.mean", "auth_bytes.p99",
    "auth_bytes_ratio_vs_classical", "auth_bytes_ratio_vs_mldsa44",
    "extra_rtt_tcp.mean", "extra_rtt_quic.mean", "handshake_full",
    "handshake_resumed", "handshake_retry", "revoked_accepted",
    "revocation_exposure.mean", "revocation_exposure.p99",
    "issuance_delay_standalone.mean", "issuance_delay_standalone.p99",
    "issuance_delay_landmark.mean", "issuance_delay_landmark.p99",
    "log_entries", "signatures", "log_storage_bytes", "rp_state_bytes",
    "update_publication_bytes.mean", "update_bytes",
    "cosign_quorum_failures", NULL};

static int shown(const char *name, int all, int any_headline)
{
    if (all || !any_headline)
        return 1;
    for (int i = 0; headline[i]; i++)
        if (!strcmp(headline[i], name))
            return 1;
    return 0;
}

/* Per sweep point: every statistic's mean over replications, with the
 * 95 % Student-t half-width when there are two or more. */
static void print_summary(const plan *pl, const run_stats *runs, size_t nruns,
                          int all)
{
    for (size_t p = 0; p < pl->npoints; p++) {
        const run_stats *first = NULL;
        size_t nrep = 0;
        for (size_t r = 0; r < nruns; r++)
            if (runs[r].point == p) {
                nrep++;
                if (!first)
                    first = &runs[r];
            }
        if (!first)
            continue;
        char lab[512];
        point_label(pl, p, lab, sizeof lab);
        printf("\n== summary%s%s%s: %zu replication%s\n", *lab ? " [" : "",
               lab, *lab ? "]" : "", nrep, nrep == 1 ? "" : "s");
        if (nrep > 1)
            printf("%-44s %16s %14s\n", "metric", "mean", "+-95%");
        else
            printf("%-44s %16s\n", "metric", "value");
        double *x = malloc(nrep * sizeof *x);
        int any = 0;
        for (size_t s = 0; s < first->n; s++)
            any |= shown(first->s[s].name, 0, 1);
        for (size_t s = 0; x && s < first->n; s++) {
            if (!shown(first->s[s].name, all, any))
                continue;
            size_t k = 0;
            for (size_t r = 0; r < nruns; r++) {
                if (runs[r].point != p)
                    continue;
                for (size_t j = 0; j < runs[r].n; j++)
                    if (!strcmp(runs[r].s[j].name, first->s[s].name)) {
                        x[k++] = runs[r].s[j].v;
                        break;
                    }
            }
            sim_ci ci;
            if (k >= 2 && sim_ci_student(x, k, 0.95, &ci) == MTC_OK)
                printf("%-44s %16.6g %14.3g\n", first->s[s].name, ci.mean,
                       ci.half_width);
            else
                printf("%-44s %16.6g\n", first->s[s].name, x[0]);
        }
        free(x);
    }
}

/* ---- results database ------------------------------------------------------ */

static int record_params(sim_results *db, int64_t run, const plan *cur,
                         const plan *pl, lworld *lw)
{
    int rc = MTC_OK;
    for (size_t i = 0; i < cur->nparams && rc == MTC_OK; i++)
        rc = sim_results_add_param(db, run, "scenario", "scenario",
                                   cur->params[i].name, cur->params[i].value);
    size_t n;
    const lworld_param *wp = lworld_params(lw, &n);
    for (size_t i = 0; i < n && rc == MTC_OK; i++)
        rc = sim_results_add_param(db, run, wp[i].kind, wp[i].entity,
                                   wp[i].desc->name, wp[i].value);
    for (size_t a = 0; a < pl->naxes && rc == MTC_OK; a++)
        rc = sim_results_mark_swept(db, run, "scenario", "scenario",
                                    pl->axes[a].name);
    return rc;
}

/* ---- progress ------------------------------------------------------------- */

typedef struct prog_ctx {
    sim_progress p;
} prog_ctx;

static void on_progress(void *ctx, sim_time now, uint64_t events)
{
    prog_ctx *c = ctx;
    char line[256];
    if (sim_progress_tick(&c->p, host_now(), now, events, line, sizeof line))
        fputs(line, stderr);
}

/* ---- runs spread over MPI ranks ---------------------------------------------- */

/* A growable byte buffer for the results a rank sends to rank 0. */
typedef struct bytebuf {
    uint8_t *b;
    size_t n, cap;
    int failed;
} bytebuf;

static void bb_put(bytebuf *bb, const void *p, size_t len)
{
    if (bb->failed)
        return;
    if (bb->n + len > bb->cap) {
        size_t cap = bb->cap ? bb->cap : 4096;
        while (cap < bb->n + len)
            cap *= 2;
        uint8_t *nb = realloc(bb->b, cap);
        if (!nb) {
            bb->failed = 1;
            return;
        }
        bb->b = nb;
        bb->cap = cap;
    }
    memcpy(bb->b + bb->n, p, len);
    bb->n += len;
}

/* One run computed on another rank, as rank 0 receives it. Fields are
 * host-endian: all ranks of one job run the same binary on one kind of
 * machine. */
typedef struct remote_run {
    uint64_t idx;           /* p * reps + r */
    int32_t status;         /* SIM_RUN_* */
    int64_t now;
    uint64_t events;
    char err[512];
    const uint8_t *metrics; /* sim_metrics_encode() bytes, may be empty */
    uint64_t mlen;
} remote_run;

static void remote_put(bytebuf *bb, const remote_run *rr)
{
    bb_put(bb, &rr->idx, sizeof rr->idx);
    bb_put(bb, &rr->status, sizeof rr->status);
    bb_put(bb, &rr->now, sizeof rr->now);
    bb_put(bb, &rr->events, sizeof rr->events);
    bb_put(bb, rr->err, sizeof rr->err);
    bb_put(bb, &rr->mlen, sizeof rr->mlen);
    bb_put(bb, rr->metrics, (size_t)rr->mlen);
}

/* Reads the record at *off of buf[0..len); 0 at the end, -1 if corrupt. */
static int remote_get(const uint8_t *buf, size_t len, size_t *off,
                      remote_run *rr)
{
    size_t head = sizeof rr->idx + sizeof rr->status + sizeof rr->now +
                  sizeof rr->events + sizeof rr->err + sizeof rr->mlen;
    if (*off == len)
        return 0;
    if (len - *off < head)
        return -1;
    const uint8_t *p = buf + *off;
    memcpy(&rr->idx, p, sizeof rr->idx), p += sizeof rr->idx;
    memcpy(&rr->status, p, sizeof rr->status), p += sizeof rr->status;
    memcpy(&rr->now, p, sizeof rr->now), p += sizeof rr->now;
    memcpy(&rr->events, p, sizeof rr->events), p += sizeof rr->events;
    memcpy(rr->err, p, sizeof rr->err), p += sizeof rr->err;
    rr->err[sizeof rr->err - 1] = 0;
    memcpy(&rr->mlen, p, sizeof rr->mlen), p += sizeof rr->mlen;
    if (rr->mlen > len - *off - head)
        return -1;
    rr->metrics = p;
    *off += head + (size_t)rr->mlen;
    return 1;
}

/*
 * --spread-runs, after every rank has done its runs: rank 0 gathers the
 * other ranks' results and records each as its own run, with the
 * parameters of a world rebuilt (not run) from the same scenario state.
 * Collective. Returns the command's status.
 */
static int collect_spread(const run_opts *o, const plan *pl,
                          const sim_shard *shard, sim_results *db,
                          int64_t exp_id, const char *sha, const bytebuf *mine,
                          run_stats *runs, size_t *nruns, int status)
{
    uint8_t *all = NULL;
    size_t *lens = calloc((size_t)shard->size, sizeof *lens);
    int rc = lens ? MTC_OK : MTC_ERR_NOMEM;
    /* every rank must reach the gather, even after a local failure */
    if (sim_shard_gather(shard, mine->failed ? NULL : mine->b,
                         mine->failed ? 0 : mine->n, &all, lens ? lens : &(size_t){0}) != MTC_OK)
        rc = MTC_ERR_IO;
    if (mine->failed)
        rc = MTC_ERR_NOMEM;
    if (shard->rank == 0 && rc == MTC_OK) {
        size_t base = 0;
        char err[8192];
        for (int r = 1; r < shard->size && status == HOST_OK; r++) {
            base += lens[r - 1];
            size_t off = 0;
            remote_run rr;
            int got;
            while (status == HOST_OK &&
                   (got = remote_get(all + base, lens[r], &off, &rr)) != 0) {
                if (got < 0) {
                    fprintf(stderr, "mtcsim run: corrupt results from rank %d\n", r);
                    status = HOST_FAIL;
                    break;
                }
                size_t p = (size_t)(rr.idx / (uint64_t)pl->reps);
                long rep = (long)(rr.idx % (uint64_t)pl->reps);
                lhost *h = scenario_state(o, pl, p, (uint64_t)rep, err, sizeof err);
                lworld *lw = NULL;
                plan cur;
                memset(&cur, 0, sizeof cur);
                sim_metrics *m = NULL;
                int ok = h != NULL;
                if (ok)
                    scenario_params(h, &cur);
                ok = ok && lworld_build(h, o->seed, (uint64_t)rep, NULL, &lw, err,
                                        sizeof err) == MTC_OK;
                if (ok && rr.mlen)
                    ok = sim_metrics_decode(&m, rr.metrics, (size_t)rr.mlen) == MTC_OK;
                if (!ok) {
                    fprintf(stderr, "mtcsim run: recording run %llu from rank %d: %s\n",
                            (unsigned long long)rr.idx, r, err);
                    status = HOST_FAIL;
                }
                if (ok && db) {
                    int64_t run_id = 0;
                    char rank_text[16];
                    snprintf(rank_text, sizeof rank_text, "%d", r);
                    sim_run_info ri = {exp_id, (int64_t)p, rep, o->seed, o->scenario,
                                       sha, MTCSIM_VERSION, 0, lworld_duration(lw)};
                    if (sim_results_run_begin(db, &ri, &run_id) != MTC_OK ||
                        record_params(db, run_id, &cur, pl, lw) != MTC_OK ||
                        sim_results_add_attr(db, run_id, "sandbox",
                                             o->unsafe ? "off" : "on") != MTC_OK ||
                        sim_results_add_attr(db, run_id, "mpi_rank", rank_text) !=
                            MTC_OK ||
                        (m && sim_results_store_metrics(db, run_id, m) != MTC_OK) ||
                        sim_results_run_end(db, run_id, rr.status, rr.now, rr.events,
                                            rr.status == SIM_RUN_FAILED ? rr.err
                                                                        : NULL) != MTC_OK) {
                        fprintf(stderr, "mtcsim run: %s: %s\n", o->out,
                                sim_results_errmsg(db));
                        status = HOST_FAIL;
                    }
                }
                if (ok && rr.status != SIM_RUN_COMPLETED) {
                    if (rr.status == SIM_RUN_FAILED)
                        fprintf(stderr, "mtcsim run: run %llu on rank %d: %s\n",
                                (unsigned long long)rr.idx, r, rr.err);
                    status = HOST_FAIL;
                }
                if (ok && status == HOST_OK && m) {
                    run_stats *st = &runs[(*nruns)++];
                    st->point = p;
                    st->rep = (size_t)rep;
                    collect_stats(m, st);
                }
                sim_metrics_destroy(m);
                lworld_destroy(lw);
                lhost_destroy(h);
                free_plan(&cur);
            }
        }
        for (size_t p = 0; db && status == HOST_OK && p < pl->npoints; p++)
            if (sim_results_summarize(db, exp_id, (int64_t)p, 0.95) != MTC_OK) {
                fprintf(stderr, "mtcsim run: %s\n", sim_results_errmsg(db));
                status = HOST_FAIL;
            }
    }
    if (rc != MTC_OK && status == HOST_OK) {
        fprintf(stderr, "mtcsim run: gathering runs from the ranks: %s\n",
                mtc_strerror(rc));
        status = HOST_FAIL;
    }
    free(all);
    free(lens);
    return status;
}

/* ---- the command ----------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
        "usage: mtcsim run SCENARIO.lua [--set NAME=VALUE ...] [--seed N]\n"
        "                  [--replications R] [--out FILE.db] [--quiet] [--unsafe]\n"
        "                  [--max-instructions N] [--max-memory MIB] [--params]\n"
        "                  [--summary short|all]\n\n"
        "Runs a scenario: every sweep point it declares times R replications,\n"
        "each a fresh world, recorded in FILE.db (runs, every effective\n"
        "parameter, metrics), then prints a summary table.\n\n"
        "  --set NAME=VALUE    override the scenario parameter NAME (declared with\n"
        "                      param); VALUE is a number, a Lua expression such as\n"
        "                      hours(2), true/false, or text. Fixes a swept NAME.\n"
        "  --seed N            random seed (default 1); replication r uses (N, r)\n"
        "  --replications R   runs per sweep point (default: the scenario's, or 1)\n"
        "  --out FILE.db       results database (created or appended); the\n"
        "                      sandbox lets the scenario write files only beside it\n"
        "  --quiet             no progress line and no summary table\n"
        "  --summary all       the summary lists every metric (default: headline\n"
        "                      figures: signatureless fraction, bytes, delays...)\n"
        "  --unsafe            full Lua (io, os, package, debug), no limits\n"
        "  --max-instructions N  sandbox limit per scenario entry (default 1e10)\n"
        "  --max-memory MIB    sandbox limit on the scenario's Lua memory (default 4096)\n"
        "  --params            list the scenario's parameters and sweeps, run nothing\n"
        "  --spread-runs       under mpirun: give whole runs (sweep points x\n"
        "                      replications) to ranks in turn, instead of sharding\n"
        "                      every run's browsers over all ranks (the default)\n\n"
        "Exit status: 0 success, 1 a run failed or was interrupted, 2 bad usage or\n"
        "a scenario error found before the simulation. See docs/scenarios.md.\n");
}

static int parse_u64(const char *opt, const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-') {
        fprintf(stderr, "mtcsim run: %s '%s' is not a non-negative integer\n",
                opt, v);
        return -1;
    }
    *out = x;
    return 0;
}

static int parse_args(int argc, char **argv, run_opts *o)
{
    o->seed = 1;
    o->reps = -1;
    o->max_instr = DEFAULT_MAX_INSTRUCTIONS;
    o->max_mem_mb = DEFAULT_MAX_MEMORY_MB;
    o->set_name = calloc((size_t)argc, sizeof *o->set_name);
    o->set_value = calloc((size_t)argc, sizeof *o->set_value);
    size_t k = 0;
    for (int i = 0; i < argc && k + 2 < sizeof o->cmdline; i++)
        k += (size_t)snprintf(o->cmdline + k, sizeof o->cmdline - k, "%s%s",
                              i ? " " : "mtcsim ", argv[i]);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_v = i + 1 < argc;
        if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--unsafe")) {
            o->unsafe = 1;
        } else if (!strcmp(a, "--params")) {
            o->list_params = 1;
        } else if (!strcmp(a, "--spread-runs")) {
            o->spread = 1;
        } else if (!strcmp(a, "--summary") && has_v &&
                   (!strcmp(argv[i + 1], "all") || !strcmp(argv[i + 1], "short"))) {
            o->summary_all = !strcmp(argv[++i], "all");
        } else if (!strcmp(a, "--summary")) {
            fprintf(stderr, "mtcsim run: --summary takes 'short' or 'all'\n");
            return HOST_USAGE;
        } else if (!strcmp(a, "--set") || !strcmp(a, "--seed") ||
                   !strcmp(a, "--replications") || !strcmp(a, "--out") ||
                   !strcmp(a, "--max-instructions") ||
                   !strcmp(a, "--max-memory")) {
            if (!has_v) {
                fprintf(stderr, "mtcsim run: %s needs a value\n", a);
                return HOST_USAGE;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--set")) {
                char *eq = strchr(v, '=');
                if (!eq || eq == v) {
                    fprintf(stderr, "mtcsim run: --set '%s': expected NAME=VALUE\n", v);
                    return HOST_USAGE;
                }
                *eq = 0;
                for (size_t s = 0; s < o->nsets; s++)
                    if (!strcmp(o->set_name[s], v)) {
                        fprintf(stderr, "mtcsim run: --set %s given twice\n", v);
                        return HOST_USAGE;
                    }
                o->set_name[o->nsets] = v;
                o->set_value[o->nsets++] = eq + 1;
            } else if (!strcmp(a, "--seed")) {
                if (parse_u64(a, v, &o->seed))
                    return HOST_USAGE;
            } else if (!strcmp(a, "--replications")) {
                uint64_t r;
                if (parse_u64(a, v, &r) || r < 1 || r > 100000) {
                    fprintf(stderr, "mtcsim run: --replications must be 1..100000\n");
                    return HOST_USAGE;
                }
                o->reps = (long)r;
            } else if (!strcmp(a, "--max-memory")) {
                if (parse_u64(a, v, &o->max_mem_mb) || o->max_mem_mb < 16 ||
                    o->max_mem_mb > ((uint64_t)1 << 30)) {
                    fprintf(stderr, "mtcsim run: --max-memory must be >= 16 (MiB)\n");
                    return HOST_USAGE;
                }
            } else if (!strcmp(a, "--max-instructions")) {
                if (parse_u64(a, v, &o->max_instr) || o->max_instr < 100000) {
                    fprintf(stderr, "mtcsim run: --max-instructions must be "
                                    ">= 100000\n");
                    return HOST_USAGE;
                }
            } else {
                o->out = v;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "mtcsim run: unknown option '%s'\n", a);
            return HOST_USAGE;
        } else if (!o->scenario) {
            o->scenario = a;
        } else {
            fprintf(stderr, "mtcsim run: unexpected argument '%s'\n", a);
            return HOST_USAGE;
        }
    }
    if (!o->scenario) {
        fprintf(stderr, "mtcsim run: no scenario given\n");
        usage(stderr);
        return HOST_USAGE;
    }
    if (access(o->scenario, R_OK)) {
        fprintf(stderr, "mtcsim run: cannot read scenario '%s': %s\n",
                o->scenario, strerror(errno));
        return HOST_USAGE;
    }
    if (o->out) {
        char tmp[LHOST_PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s", o->out);
        char *sl = strrchr(tmp, '/');
        if (sl)
            *(sl == tmp ? sl + 1 : sl) = 0;
        else
            snprintf(tmp, sizeof tmp, ".");
        if (!realpath(tmp, o->out_dir)) {
            fprintf(stderr, "mtcsim run: --out '%s': directory '%s': %s\n",
                    o->out, tmp, strerror(errno));
            return HOST_USAGE;
        }
    }
    return HOST_OK;
}

static void list_params(const plan *pl)
{
    printf("%-24s %-16s %-16s %s\n", "parameter", "value", "default", "doc");
    for (size_t i = 0; i < pl->nparams; i++)
        printf("%-24s %-16s %-16s %s\n", pl->params[i].name,
               pl->params[i].value, pl->params[i].def, pl->params[i].doc);
    for (size_t a = 0; a < pl->naxes; a++) {
        printf("sweep %s:", pl->axes[a].name);
        for (size_t k = 0; k < pl->axes[a].n; k++) {
            char v[128];
            sval_format(&pl->axes[a].v[k], v, sizeof v);
            printf(" %s", v);
        }
        printf("\n");
    }
    printf("points %zu, replications %ld, runs %zu\n", pl->npoints, pl->reps,
           pl->npoints * (size_t)pl->reps);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int cmd_run(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return HOST_OK;
        }
    /* Under mpirun every rank runs this command: each simulates its
     * shard of the browsers, rank 0 alone writes results and prints. */
    sim_shard shard;
    if (sim_shard_init(&shard, &argc, &argv) != MTC_OK) {
        fprintf(stderr, "mtcsim run: started by mpirun with several ranks, but "
                        "this mtcsim was built without Open MPI (run make "
                        "deps, then rebuild)\n");
        return HOST_USAGE;
    }
    run_opts o;
    memset(&o, 0, sizeof o);
    plan pl;
    memset(&pl, 0, sizeof pl);
    int status = parse_args(argc, argv, &o);
    if (shard.rank != 0) {
        o.out = NULL;
        o.quiet = 1;
    }
    sim_results *db = NULL;
    run_stats *runs = NULL;
    size_t nruns = 0;
    lhost *h0 = NULL;
    char err[8192];
    int spread = 0;
    bytebuf mine = {NULL, 0, 0, 0};
    if (status != HOST_OK)
        goto done;

    /* plan: the scenario's first execution */
    h0 = scenario_state(&o, NULL, 0, 0, err, sizeof err);
    if (!h0) {
        fprintf(stderr, "mtcsim run: %s\n", err);
        status = HOST_USAGE;
        goto done;
    }
    if ((status = make_plan(&o, h0, &pl)) != HOST_OK)
        goto done;
    if (o.list_params) {
        list_params(&pl);
        goto done;
    }

    /* every point must build before anything runs */
    for (size_t p = 1; p < pl.npoints; p++) {
        lhost *h = scenario_state(&o, &pl, p, 0, err, sizeof err);
        lworld *lw = NULL;
        int ok = h && lworld_build(h, o.seed, 0, NULL, &lw, err, sizeof err) == MTC_OK;
        if (!ok) {
            char lab[512];
            point_label(&pl, p, lab, sizeof lab);
            fprintf(stderr, "mtcsim run: sweep point %zu [%s]: %s\n", p, lab, err);
            lworld_destroy(lw);
            lhost_destroy(h);
            status = HOST_USAGE;
            goto done;
        }
        lworld_destroy(lw);
        lhost_destroy(h);
    }

    if (o.out) {
        if (sim_results_open(o.out, SIM_RESULTS_CREATE, &db, err, sizeof err)) {
            fprintf(stderr, "mtcsim run: --out %s: %s\n", o.out, err);
            status = HOST_USAGE;
            goto done;
        }
    }
    int64_t exp_id = 0;
    if (db) {
        sim_experiment_info ei = {base_name(o.scenario), o.cmdline,
                                  (int64_t)pl.npoints, pl.reps};
        if (sim_results_experiment_begin(db, &ei, &exp_id) != MTC_OK) {
            fprintf(stderr, "mtcsim run: %s\n", sim_results_errmsg(db));
            status = HOST_FAIL;
            goto done;
        }
    }
    char sha[65] = "";
    if (sim_sha256_file_hex(o.scenario, sha) != MTC_OK) {
        fprintf(stderr, "mtcsim run: cannot hash '%s'\n", o.scenario);
        status = HOST_FAIL;
        goto done;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;     /* a second signal acts normally */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    size_t total = pl.npoints * (size_t)pl.reps;
    runs = calloc(total, sizeof *runs);
    spread = o.spread && shard.size > 1;
    double wall0 = host_now();
    for (size_t p = 0; p < pl.npoints && status == HOST_OK && !g_interrupt; p++) {
        for (long r = 0; r < pl.reps && status == HOST_OK && !g_interrupt; r++) {
            size_t idx = p * (size_t)pl.reps + (size_t)r;
            if (spread && (int)(idx % (size_t)shard.size) != shard.rank)
                continue;   /* another rank's run; rank 0 records it later */
            lhost *h = NULL;
            if (idx == 0) {   /* the planning state is point 0's, rep 0's */
                h = h0;
                h0 = NULL;
            }
            if (!h)
                h = scenario_state(&o, &pl, p, (uint64_t)r, err, sizeof err);
            if (!h) {   /* e.g. a replication-dependent scenario error */
                fprintf(stderr, "mtcsim run: %s\n", err);
                status = nruns ? HOST_FAIL : HOST_USAGE;
                break;
            }
            plan cur;
            scenario_params(h, &cur);
            lworld *lw = NULL;
            int rc = lworld_build(h, o.seed, (uint64_t)r,
                                  spread ? NULL : &shard, &lw, err, sizeof err);
            if (rc != MTC_OK) {
                fprintf(stderr, "mtcsim run: %s\n", err);
                status = nruns ? HOST_FAIL : HOST_USAGE;
                lworld_destroy(lw);
                lhost_destroy(h);
                free_plan(&cur);
                break;
            }
            int64_t run_id = 0;
            if (db) {
                sim_run_info ri = {exp_id, (int64_t)p, r, o.seed, o.scenario,
                                   sha, MTCSIM_VERSION, 0, lworld_duration(lw)};
                if (sim_results_run_begin(db, &ri, &run_id) != MTC_OK ||
                    record_params(db, run_id, &cur, &pl, lw) != MTC_OK ||
                    sim_results_add_attr(db, run_id, "sandbox",
                                         o.unsafe ? "off" : "on") != MTC_OK ||
                    sim_results_flush(db) != MTC_OK) {
                    fprintf(stderr, "mtcsim run: %s: %s\n", o.out,
                            sim_results_errmsg(db));
                    status = HOST_FAIL;
                }
            }
            prog_ctx pc;
            char label[64];
            snprintf(label, sizeof label, "run %zu/%zu", nruns + 1, total);
            sim_progress_config pcfg = {0, lworld_duration(lw), host_now(),
                                        isatty(2), o.quiet, 0, 0, 0, label};
            sim_progress_init(&pc.p, &pcfg);
            double t0 = host_now();
            if (status == HOST_OK)
                rc = lworld_run(lw, &g_interrupt, on_progress, &pc, err,
                                sizeof err);
            char line[256];
            sim_engine *eng = lworld_engine(lw);
            if (sim_progress_finish(&pc.p, host_now(), sim_now(eng),
                                    sim_engine_events_executed(eng), line,
                                    sizeof line))
                fputs(line, stderr);
            if (status == HOST_OK && rc != MTC_OK)
                fprintf(stderr, "mtcsim run: %s\n", err);
            int rs = rc == MTC_OK ? SIM_RUN_COMPLETED
                     : rc == MTC_ERR_SIM_STATE ? SIM_RUN_INTERRUPTED
                                               : SIM_RUN_FAILED;
            if (spread && shard.rank != 0) {
                remote_run rr = {idx, rs, sim_now(eng),
                                 sim_engine_events_executed(eng), "", NULL, 0};
                uint8_t *enc = NULL;
                size_t elen = 0;
                if (rs == SIM_RUN_FAILED)
                    snprintf(rr.err, sizeof rr.err, "%.511s", err);
                else if (sim_metrics_encode(lworld_metrics(lw), &enc, &elen) != MTC_OK)
                    mine.failed = 1;
                rr.metrics = enc;
                rr.mlen = elen;
                remote_put(&mine, &rr);
                free(enc);
            }
            if (db && status == HOST_OK) {
                if (sim_results_store_metrics(db, run_id, lworld_metrics(lw)) ||
                    sim_results_run_end(db, run_id, rs, sim_now(eng),
                                        sim_engine_events_executed(eng),
                                        rs == SIM_RUN_FAILED ? err : NULL)) {
                    fprintf(stderr, "mtcsim run: %s: %s\n", o.out,
                            sim_results_errmsg(db));
                    status = HOST_FAIL;
                }
            }
            if (status == HOST_OK && rs != SIM_RUN_COMPLETED)
                status = HOST_FAIL;
            if (status == HOST_OK) {
                run_stats *st = &runs[nruns++];
                st->point = p;
                st->rep = (size_t)r;
                collect_stats(lworld_metrics(lw), st);
                if (!o.quiet)
                    printf("# run %zu/%zu point %zu replication %ld: %" PRIu64
                           " events, %.2f s wall\n", nruns, total, p, r,
                           sim_engine_events_executed(eng), host_now() - t0);
                if (!o.quiet && shard.size > 1)
                    printf("# sharded over %d ranks: %zu bytes of metrics "
                           "gathered on rank 0\n", shard.size,
                           lworld_merge_bytes(lw));
            }
            lworld_destroy(lw);
            lhost_destroy(h);
            free_plan(&cur);
        }
        if (db && status == HOST_OK && !spread &&
            sim_results_summarize(db, exp_id, (int64_t)p, 0.95) != MTC_OK) {
            fprintf(stderr, "mtcsim run: %s\n", sim_results_errmsg(db));
            status = HOST_FAIL;
        }
    }
    if (spread)
        status = collect_spread(&o, &pl, &shard, db, exp_id, sha, &mine, runs,
                                &nruns, status);
    if (g_interrupt && status == HOST_OK)
        status = HOST_FAIL;
    if (!o.quiet && nruns) {
        print_summary(&pl, runs, nruns, o.summary_all);
        printf("# %zu run%s in %.2f s wall%s%s\n", nruns, nruns == 1 ? "" : "s",
               host_now() - wall0, db ? "; results in " : "",
               db ? o.out : "");
    }
done:
    if (db && sim_results_close(db) != MTC_OK && status == HOST_OK)
        status = HOST_FAIL;
    for (size_t i = 0; runs && i < nruns; i++)
        free(runs[i].s);
    free(runs);
    free(mine.b);
    lhost_destroy(h0);
    free_plan(&pl);
    free(o.set_name);
    free(o.set_value);
    fflush(stdout);
    /* A failure on any rank fails the run on every rank. */
    if (!sim_shard_all_ok(&shard, status == HOST_OK) && status == HOST_OK)
        status = HOST_FAIL;
    sim_shard_finalize(&shard);
    return status;
}
