/*
 * tests/lib/chains_fixture.h - the one cache of built baseline chains
 * (mtc/chain_cache.h) that every world a test process builds borrows.
 *
 * What `mtcsim run` does for its runs, the fixtures do for a test
 * process: the world and web fixtures (world_fixture.c, web_run.c) lend
 * this cache to each world, so the chains every world prices (the same
 * few dozen: keys from fixed seeds, deterministic signatures) are signed
 * once per process instead of once per world. Results are identical with
 * or without it (test_chain_cache checks that, chain by chain and world
 * by world).
 *
 * Test scaffolding, and the one exception to "no global mutable state":
 * the cache is created on first use and freed at exit, because the
 * fixtures' signatures (used by dozens of tests, validate/ and the
 * benchmarks) have no context to carry it in. MTC_TEST_CHAIN_CACHE=0 in
 * the environment turns it off (every world builds its own chains), to
 * compare the two; MTC_TEST_CHAIN_CACHE_STATS=1 prints its statistics at
 * exit (hits, builds, bytes). Not thread-safe (no test builds worlds on threads).
 */
#ifndef MTC_TESTS_CHAINS_FIXTURE_H
#define MTC_TESTS_CHAINS_FIXTURE_H

#include "mtc/chain_cache.h"

/* The process's cache (created on the first call), or NULL when it is
 * turned off or cannot be created: callers then build every chain. */
mtc_chain_cache *fixture_chains(void);

#endif
