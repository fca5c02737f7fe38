/*
 * world_status.c - names of every status of the simulator's space
 * (sim/status.h): 0 and mtc-core's range by mtc-core, every other code by
 * the block that owns it (sim_status_blocks, world_modules.c). The world
 * frame does this because it is where the simulator's layers are listed;
 * the engine cannot, knowing nothing of mtc-core.
 */
#include "sim/world.h"

#include "mtc/error.h"
#include "sim/status.h"
#include "sim/world_module.h"

static int in_mtc_range(int rc)
{
    return rc <= SIM_STATUS_MTC_FIRST && rc >= SIM_STATUS_MTC_LAST;
}

static const sim_status_entry *lookup(int rc)
{
    for (size_t i = 0; i < sim_status_block_count; i++)
        if (sim_status_in_block(sim_status_blocks[i], rc))
            return sim_status_find(sim_status_blocks[i], rc);
    return NULL;
}

const char *sim_strerror(int rc)
{
    if (rc == SIM_OK || in_mtc_range(rc))
        return mtc_strerror(rc);
    const sim_status_entry *e = lookup(rc);
    return e ? e->message : "unknown error";
}

const char *sim_status_name(int rc)
{
    if (rc == SIM_OK)
        return "SIM_OK";
    if (in_mtc_range(rc))
        return mtc_error_name(rc);
    const sim_status_entry *e = lookup(rc);
    return e ? e->name : "SIM_ERR_UNKNOWN";
}
