/*
 * world_modules.c - the registry of world-model modules: a module brings
 * its kinds, actions and hooks (sim_world_module), so a new model part is
 * one row here. It also lists the blocks of the simulator's status space
 * that sim_strerror() names (sim/status.h).
 */
#include "sim/world_module.h"

const sim_world_module *const sim_world_module_table[] = {
    &sim_pki_module,
    &sim_web_module,
};
const size_t sim_world_module_count =
    sizeof sim_world_module_table / sizeof sim_world_module_table[0];

const sim_status_block *const sim_status_blocks[] = {
    &sim_engine_status,
    &sim_results_status,
    &sim_web_status,
};
const size_t sim_status_block_count =
    sizeof sim_status_blocks / sizeof sim_status_blocks[0];
