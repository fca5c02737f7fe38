/*
 * status.c - the engine's block of the simulator's status space and the
 * lookups every block shares (sim/status.h). Blocks are a few codes each,
 * so lookups are linear; they run only when a message is formatted.
 */
#include "sim/status.h"

#define E(c, m) {c, #c, m}
static const sim_status_entry engine_codes[] = {
    E(SIM_ERR_ARG, "invalid argument"),
    E(SIM_ERR_NOMEM, "out of memory"),
    E(SIM_ERR_IO, "input/output error"),
    E(SIM_ERR_LIMIT, "size or count limit exceeded"),
    E(SIM_ERR_UNSUPPORTED, "unsupported algorithm or feature"),
    E(SIM_ERR_PARSE, "malformed input"),
    E(SIM_ERR_CONFIG, "bad configuration"),
    E(SIM_ERR_PAST, "event time is before the current simulated time"),
    E(SIM_ERR_STATE, "event is (not) pending contrary to the call"),
    E(SIM_ERR_METRIC, "metric unknown, of another kind, or with a different definition"),
};
#undef E

const sim_status_block sim_engine_status = {
    "engine", SIM_STATUS_ENGINE_FIRST, engine_codes,
    sizeof engine_codes / sizeof engine_codes[0],
};

int sim_status_in_block(const sim_status_block *b, int rc)
{
    return rc <= b->first && rc > b->first - SIM_STATUS_BLOCK_SIZE;
}

const sim_status_entry *sim_status_find(const sim_status_block *b, int rc)
{
    for (size_t i = 0; i < b->ncodes; i++)
        if (b->codes[i].code == rc)
            return &b->codes[i];
    return NULL;
}
