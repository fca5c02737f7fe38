/*
 * prof.c - CPU time by phase and part (sim/prof.h).
 *
 * CLOCK_THREAD_CPUTIME_ID is a system call on the machines we measured
 * (about 1.7 us of CPU each under a paravirtualised kernel), so the
 * profile reads it only when the cell changes, and the engine's handler
 * lookup is a short linear scan with a one-entry cache (a web run's
 * events are almost all of one handler).
 */
#include "sim/prof.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/status.h"

typedef struct hmap {
    sim_handler fn;
    int part;
} hmap;

struct sim_prof {
    sim_prof_names names;
    int phase, part;
    int stopped;
    uint64_t last_ns;
    uint64_t ns[SIM_PROF_MAX_PHASES][SIM_PROF_MAX_PARTS];
    uint64_t work[SIM_PROF_MAX_PHASES][SIM_PROF_MAX_WORKS];
    uint64_t reads;
    double read_cost;
    hmap h[SIM_PROF_MAX_HANDLERS];
    size_t nh;
    sim_handler cache_fn;
    int cache_part;
};

_Static_assert(sizeof(((sim_prof *)0)->ns) + sizeof(((sim_prof *)0)->work) +
                   sizeof(((sim_prof *)0)->reads) == SIM_PROF_EXPORT_BYTES,
               "sim_prof_export's layout");

static uint64_t thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

double sim_prof_thread_cpu(void) { return (double)thread_ns() * 1e-9; }

int sim_prof_create(sim_prof **out, const sim_prof_names *names)
{
    *out = NULL;
    if (!names || names->nparts < 1 || names->nparts > SIM_PROF_MAX_PARTS ||
        names->nphases < 1 || names->nphases > SIM_PROF_MAX_PHASES ||
        names->nworks > SIM_PROF_MAX_WORKS)
        return SIM_ERR_ARG;
    sim_prof *p = calloc(1, sizeof *p);
    if (!p)
        return SIM_ERR_NOMEM;
    p->names = *names;
    p->cache_part = -1;
    /* The cost of one read, so the report can state its own overhead:
     * 256 reads, timed by the clock itself. */
    enum { N = 256 };
    uint64_t a = thread_ns(), b = a;
    for (int i = 0; i < N; i++)
        b = thread_ns();
    p->read_cost = (double)(b - a) * 1e-9 / N;
    p->last_ns = thread_ns();
    *out = p;
    return SIM_OK;
}

void sim_prof_destroy(sim_prof *p) { free(p); }

int sim__prof_phase(const sim_prof *p) { return p->phase; }
int sim__prof_part(const sim_prof *p) { return p->part; }

void sim__prof_move(sim_prof *p, int phase, int part)
{
    if (part < 0 || (size_t)part >= p->names.nparts)
        part = 0;
    if (phase < 0 || (size_t)phase >= p->names.nphases)
        phase = p->phase;
    if (!p->stopped) {
        uint64_t now = thread_ns();
        p->ns[p->phase][p->part] += now - p->last_ns;
        p->last_ns = now;
        p->reads++;
    }
    p->phase = phase;
    p->part = part;
}

void sim_prof_phase(sim_prof *p, int phase)
{
    if (p && phase != p->phase)
        sim__prof_move(p, phase, p->part);
}

void sim__prof_work(sim_prof *p, int w, uint64_t n)
{
    if (w >= 0 && (size_t)w < p->names.nworks)
        p->work[p->phase][w] += n;
}

int sim_prof_handler(sim_prof *p, sim_handler fn, int part)
{
    if (!p)
        return SIM_OK;
    p->cache_fn = NULL;
    for (size_t i = 0; i < p->nh; i++)
        if (p->h[i].fn == fn) {
            p->h[i].part = part;
            return SIM_OK;
        }
    if (p->nh == SIM_PROF_MAX_HANDLERS)
        return SIM_ERR_LIMIT;
    p->h[p->nh++] = (hmap){fn, part};
    return SIM_OK;
}

int sim_prof_part_of(sim_prof *p, sim_handler fn, int dflt)
{
    if (fn == p->cache_fn)
        return p->cache_part < 0 ? dflt : p->cache_part;
    int part = -1;
    for (size_t i = 0; i < p->nh; i++)
        if (p->h[i].fn == fn) {
            part = p->h[i].part;
            break;
        }
    p->cache_fn = fn;
    p->cache_part = part;
    return part < 0 ? dflt : part;
}

void sim_prof_stop(sim_prof *p)
{
    if (!p || p->stopped)
        return;
    sim__prof_move(p, p->phase, p->part);
    p->stopped = 1;
}

void sim_prof_export(const sim_prof *p, uint8_t *out)
{
    memcpy(out, p->ns, sizeof p->ns);
    memcpy(out + sizeof p->ns, p->work, sizeof p->work);
    memcpy(out + sizeof p->ns + sizeof p->work, &p->reads, sizeof p->reads);
}

int sim_prof_add(sim_prof *p, const uint8_t *in, size_t len)
{
    uint64_t ns[SIM_PROF_MAX_PHASES][SIM_PROF_MAX_PARTS];
    uint64_t work[SIM_PROF_MAX_PHASES][SIM_PROF_MAX_WORKS], reads;
    if (len != SIM_PROF_EXPORT_BYTES)
        return SIM_ERR_ARG;
    memcpy(ns, in, sizeof ns);
    memcpy(work, in + sizeof ns, sizeof work);
    memcpy(&reads, in + sizeof ns + sizeof work, sizeof reads);
    for (int i = 0; i < SIM_PROF_MAX_PHASES; i++) {
        for (int j = 0; j < SIM_PROF_MAX_PARTS; j++)
            p->ns[i][j] += ns[i][j];
        for (int j = 0; j < SIM_PROF_MAX_WORKS; j++)
            p->work[i][j] += work[i][j];
    }
    p->reads += reads;
    return SIM_OK;
}

double sim_prof_seconds(const sim_prof *p, int phase, int part)
{
    if (!p || phase < 0 || phase >= SIM_PROF_MAX_PHASES || part < 0 ||
        part >= SIM_PROF_MAX_PARTS)
        return 0;
    return (double)p->ns[phase][part] * 1e-9;
}

uint64_t sim_prof_work_count(const sim_prof *p, int phase, int w)
{
    return p && w >= 0 && w < SIM_PROF_MAX_WORKS && phase >= 0 &&
                   phase < SIM_PROF_MAX_PHASES
               ? p->work[phase][w]
               : 0;
}

uint64_t sim_prof_reads(const sim_prof *p) { return p ? p->reads : 0; }
double sim_prof_read_cost(const sim_prof *p) { return p ? p->read_cost : 0; }
const sim_prof_names *sim_prof_get_names(const sim_prof *p)
{
    return p ? &p->names : NULL;
}
