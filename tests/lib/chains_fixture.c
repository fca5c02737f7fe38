/*
 * chains_fixture.c - see chains_fixture.h.
 */
#include "chains_fixture.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtc/error.h"

static mtc_chain_cache *chains;
static int tried;

static void free_chains(void)
{
    if (getenv("MTC_TEST_CHAIN_CACHE_STATS")) {
        mtc_chain_cache_stats st;
        mtc_chain_cache_get_stats(chains, &st);
        fprintf(stderr, "chain cache: %zu entries, %zu bytes, %" PRIu64 " hits, %" PRIu64
                        " builds (%" PRIu64 " lent CA certificates), %" PRIu64 " not kept\n",
                st.entries, st.bytes, st.hits, st.builds, st.reused, st.unkept);
    }
    mtc_chain_cache_destroy(chains);
    chains = NULL;
}

mtc_chain_cache *fixture_chains(void)
{
    if (tried)
        return chains;
    tried = 1;
    const char *v = getenv("MTC_TEST_CHAIN_CACHE");
    if (v && strcmp(v, "0") == 0)
        return NULL;
    if (mtc_chain_cache_create(MTC_CHAIN_CACHE_CAP_DEFAULT, &chains) != MTC_OK)
        chains = NULL;
    else if (atexit(free_chains) != 0) {
        mtc_chain_cache_destroy(chains);
        chains = NULL;
    }
    return chains;
}
