/*
 * world_modules.c - the registry of world-model modules, entity kinds and
 * what-if actions. The web side's actions go in the table below with kind
 * "sites" or "browsers" (none yet: key compromise is scheduled by the
 * sites' own compromise_at parameter). It also lists the blocks of the
 * simulator's status space that sim_strerror() names (sim/status.h).
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

const sim_param_schema *const sim_world_schema_table[] = {
    &sim_world_config_schema, &sim_ca_schema, &sim_cosigner_schema,
    &sim_update_service_schema, &sim_sites_schema, &sim_browsers_schema,
};
const size_t sim_world_schema_count =
    sizeof sim_world_schema_table / sizeof sim_world_schema_table[0];

const sim_world_action sim_world_action_table[] = {
    {"cosigner_down", "cosigner", 0, 0, "",
     "take the cosigner down until cosigner_up (scheduled outage)", ""},
    {"cosigner_up", "cosigner", 0, 0, "", "end a cosigner_down outage", ""},
    {"cosigner_outage", "cosigner", 1, 1, "duration_s",
     "cosigner down now, up after duration_s", "d"},
    {"update_down", "update_service", 0, 0, "",
     "update service stops fetching and publishing", ""},
    {"update_up", "update_service", 0, 0, "", "end an update_down outage", ""},
    {"update_outage", "update_service", 1, 1, "duration_s",
     "update service down now, up after duration_s", "d"},
    {"revoke_range", "ca", 2, 3, "first_index last_index [log_number]",
     "revoke entries of a log (default: current log); travels through the "
     "update service", "iil"},
    {"log_failure", "ca", 0, 0, "",
     "the current log fails: roll over to the next log number", ""},
    {"ca_unreachable", "ca", 1, 1, "duration_s",
     "no update service can fetch from the CA for duration_s (its relying "
     "parties become partially up to date)", "d"},
    {"split_view", "ca", 1, 1, "k",
     "misbehaving CA: the next checkpoint is forked, the first k cosigners "
     "see view B first, the others view A first", "k"},
};
const size_t sim_world_action_count =
    sizeof sim_world_action_table / sizeof sim_world_action_table[0];
