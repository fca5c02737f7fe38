/*
 * sim/rng.h - independent random streams for GSL, keyed by entity.
 *
 * Every random draw in a simulation belongs to a stream named by
 *     (seed, replication, kind, id)
 * - seed: the scenario's seed; replication: 0, 1, ... (ns-3's "run");
 * - kind: what the entity is (SIM_STREAM_* or a model's own constant);
 * - id: which one (browser number, CA index, ...).
 * The generator is Philox4x64-10 (Salmon et al., "Parallel random numbers:
 * as easy as 1, 2, 3", SC'11), a counter-based generator: block = f_K(C),
 * with 128-bit key K and 256-bit counter C. Derivation:
 *     K = (seed, replication)
 *     C = (n / 4, id, kind, 0x6d746373696d0001)     ["mtcsim" + version 1]
 *     draw n of the stream = word n % 4 of block f_K(C)
 * For a fixed key f_K is a bijection on counters, so distinct (kind, id, n)
 * give distinct blocks; distinct keys give independent permutations. A
 * stream's n-th draw therefore depends on nothing but its name and n: not on
 * other entities, on the order of events, or on which process (MPI rank)
 * simulates the entity. A stream holds 2^66 draws.
 *
 * GSL sees the generator as a gsl_rng_type (sim_rng_philox): gsl_rng_get()
 * returns the upper 32 bits of a draw (max 2^32-1), gsl_rng_uniform() uses
 * 53 bits, (x >> 11) * 2^-53, in [0, 1). Each call consumes one draw.
 *
 * Two ways to use it:
 *  - a standalone gsl_rng bound to one stream: sim_rng_alloc_stream();
 *  - many small streams (millions of browsers): each entity embeds a
 *    sim_stream (24 bytes) and borrows the shared gsl_rng of a sim_rng with
 *    sim_rng_use(), which points the generator at that stream. Draws advance
 *    the entity's own counter.
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

/* Stream kinds used by the engine's own tools; models pick values >= 16. */
enum {
    SIM_STREAM_GLOBAL = 0,
    SIM_STREAM_BENCH = 1,
    SIM_STREAM_TEST = 2
};

/* An entity's stream: its name (kind, id) and its draw counter. */
typedef struct sim_stream {
    uint64_t id;
    uint64_t n;         /* draws taken so far */
    uint32_t kind;
    uint32_t reserved;
} sim_stream;

static inline void sim_stream_init(sim_stream *s, uint32_t kind, uint64_t id)
{
    s->id = id;
    s->n = 0;
    s->kind = kind;
    s->reserved = 0;
}

/* The GSL generator type. gsl_rng_set(r, s) selects key (s, 0), kind 0,
 * id 0, n 0 (so GSL_RNG_SEED style seeding works too). */
extern const gsl_rng_type *sim_rng_philox;

/* The raw block function, exposed for known-answer tests. */
void sim_philox4x64_10(const uint64_t ctr[4], const uint64_t key[2],
                       uint64_t out[4]);

/* A standalone gsl_rng on stream (seed, rep, kind, id), n = 0. Free with
 * gsl_rng_free(). NULL when out of memory. */
gsl_rng *sim_rng_alloc_stream(uint64_t seed, uint64_t replication,
                              uint32_t kind, uint64_t id);

/* The n-th draw of a stream without any state (for tests and hashing). */
uint64_t sim_rng_draw_at(uint64_t seed, uint64_t replication, uint32_t kind,
                         uint64_t id, uint64_t n);

/* Shared generator for embedded sim_streams. */
typedef struct sim_rng sim_rng;

/* Errors: SIM_ERR_NOMEM. *out owned by the caller. */
int sim_rng_create(sim_rng **out, uint64_t seed, uint64_t replication);
void sim_rng_destroy(sim_rng *r);       /* accepts NULL */

/* Points the shared generator at s and returns it. The result is valid
 * until the next sim_rng_use() on r or sim_rng_destroy(); s must outlive
 * the draws made through it. Cheap (no allocation, no hashing). */
gsl_rng *sim_rng_use(sim_rng *r, sim_stream *s);

uint64_t sim_rng_seed(const sim_rng *r);
uint64_t sim_rng_replication(const sim_rng *r);

#endif
