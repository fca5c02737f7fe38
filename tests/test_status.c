/*
 * test_status.c - the simulator's status space (sim/status.h): every
 * block lies in its own range, outside mtc-core's; codes and names are
 * unique; sim_strerror() hands mtc-core's range to mtc_strerror() and names
 * every other code by the block that owns it.
 */
#include <string.h>

#include "mtc/error.h"
#include "sim/results.h"
#include "sim/status.h"
#include "sim/tls.h"
#include "sim/world.h"
#include "sim/world_module.h"
#include "test.h"

TEST(blocks_in_their_ranges_and_disjoint)
{
    ASSERT_TRUE(sim_status_block_count >= 3);
    for (size_t i = 0; i < sim_status_block_count; i++) {
        const sim_status_block *b = sim_status_blocks[i];
        /* below mtc-core's range, on a block boundary */
        ASSERT_TRUE(b->first < SIM_STATUS_MTC_LAST);
        ASSERT_EQ(b->first % SIM_STATUS_BLOCK_SIZE, 0);
        ASSERT_TRUE(b->ncodes > 0);
        for (size_t j = 0; j < sim_status_block_count; j++)
            if (j != i)
                ASSERT_NE(b->first, sim_status_blocks[j]->first);
        for (size_t k = 0; k < b->ncodes; k++) {
            const sim_status_entry *e = &b->codes[k];
            ASSERT_TRUE(sim_status_in_block(b, e->code));
            ASSERT_TRUE(!strncmp(e->name, "SIM_ERR_", 8));
            /* the written convention: lower case start, no final period */
            size_t n = strlen(e->message);
            ASSERT_TRUE(n > 0 && e->message[n - 1] != '.');
            ASSERT_FALSE(e->message[0] >= 'A' && e->message[0] <= 'Z' &&
                         e->message[1] >= 'a' && e->message[1] <= 'z');
            ASSERT_TRUE(sim_status_find(b, e->code) == e);
            ASSERT_STR_EQ(sim_strerror(e->code), e->message);
            ASSERT_STR_EQ(sim_status_name(e->code), e->name);
            /* unique over the whole space */
            for (size_t j = 0; j < sim_status_block_count; j++)
                for (size_t l = 0; l < sim_status_blocks[j]->ncodes; l++) {
                    const sim_status_entry *o = &sim_status_blocks[j]->codes[l];
                    if (o == e)
                        continue;
                    ASSERT_NE(o->code, e->code);
                    ASSERT_TRUE(strcmp(o->name, e->name) != 0);
                }
        }
    }
}

TEST(each_layer_owns_its_block)
{
    ASSERT_TRUE(sim_status_in_block(&sim_engine_status, SIM_ERR_STATE));
    ASSERT_TRUE(sim_status_in_block(&sim_results_status, SIM_ERR_DB_NO_RUN));
    ASSERT_TRUE(sim_status_in_block(&sim_web_status, SIM_ERR_TLS));
    ASSERT_FALSE(sim_status_in_block(&sim_engine_status, SIM_ERR_DB));
    ASSERT_STR_EQ(sim_status_name(SIM_ERR_METRIC), "SIM_ERR_METRIC");
    ASSERT_STR_EQ(sim_status_name(SIM_ERR_DB_VERSION), "SIM_ERR_DB_VERSION");
    ASSERT_STR_EQ(sim_status_name(SIM_ERR_TLS), "SIM_ERR_TLS");
    ASSERT_STR_EQ(sim_strerror(SIM_ERR_PAST),
                  "event time is before the current simulated time");
}

TEST(mtc_range_is_mtc_cores)
{
    for (int rc = SIM_STATUS_MTC_FIRST; rc >= SIM_STATUS_MTC_LAST; rc--) {
        ASSERT_STR_EQ(sim_strerror(rc), mtc_strerror(rc));
        ASSERT_STR_EQ(sim_status_name(rc), mtc_error_name(rc));
        /* mtc-core defines nothing of the simulator */
        ASSERT_TRUE(strncmp(mtc_error_name(rc), "MTC_ERR_SIM", 11) != 0);
    }
    ASSERT_STR_EQ(sim_strerror(MTC_ERR_PROOF), "proof does not verify");
    ASSERT_STR_EQ(sim_strerror(SIM_OK), "success");
    ASSERT_STR_EQ(sim_status_name(SIM_OK), "SIM_OK");
    /* the engine's general codes are its own, not MTC's */
    ASSERT_NE(SIM_ERR_NOMEM, MTC_ERR_NOMEM);
    ASSERT_STR_EQ(sim_strerror(SIM_ERR_NOMEM), "out of memory");
}

TEST(unknown_codes)
{
    ASSERT_STR_EQ(sim_strerror(SIM_STATUS_ENGINE_FIRST - 99), "unknown error");
    ASSERT_STR_EQ(sim_status_name(SIM_STATUS_WEB_FIRST - 50), "SIM_ERR_UNKNOWN");
    ASSERT_STR_EQ(sim_strerror(-100000), "unknown error");
    ASSERT_STR_EQ(sim_strerror(7), "unknown error");
}

static const test_case cases[] = {
    {"blocks_in_their_ranges_and_disjoint", blocks_in_their_ranges_and_disjoint},
    {"each_layer_owns_its_block", each_layer_owns_its_block},
    {"mtc_range_is_mtc_cores", mtc_range_is_mtc_cores},
    {"unknown_codes", unknown_codes},
};
TEST_MAIN(cases)
