/*
 * world_module.h - how a model part plugs into the world (internal to sim/).
 *
 * The world (world.c) owns entity configs and the lifecycle; each model
 * part is a module: the kinds it owns and its hooks. world_modules.c lists
 * the modules, the schemas and the actions; a new model part is a row
 * there (docs/architecture.md, "How to add"). Modules start in table order (PKI before web, so the web
 * side may query CAs and update services from its start hook) and are
 * destroyed in reverse order.
 */
#ifndef SIM_WORLD_MODULE_H
#define SIM_WORLD_MODULE_H

#include <stddef.h>

#include "sim/status.h"
#include "sim/world.h"

typedef struct sim_world_module {
    const char *name;                   /* "pki", "web" */
    const sim_param_schema *const *kinds;   /* schemas of the kinds it owns */
    size_t nkinds;
    const sim_world_action *actions;    /* its what-if actions (kinds its own) */
    size_t nactions;
    /* After every entity is added: build state (*state, owned by the
     * module), create metrics, schedule events. err names the problem. */
    int (*start)(sim_world *w, void **state, char *err, size_t errlen);
    /* Performs one of its actions on entity `index` of kind `kind` (NULL
     * when the module has no actions). */
    int (*act)(sim_world *w, void *state, const sim_world_action *a,
               const char *kind, size_t index, const double *args,
               size_t nargs, char *err, size_t errlen);
    /* Changes a live parameter (NULL: nothing is live). The world has
     * already checked name and range against the schema; the module says
     * whether the parameter is live (SIM_ERR_CONFIG if not) and applies it
     * (it also writes the config struct). */
    int (*set)(sim_world *w, void *state, const char *kind, size_t index,
               const sim_param_desc *d, double value, char *err,
               size_t errlen);
    /* End of run: final gauges. May be NULL. */
    void (*finish)(sim_world *w, void *state);
    /* Frees state (accepts NULL state). */
    void (*destroy)(void *state);
    /* The history its entities need before a steady window (see
     * sim_world_steady_history), added over modules; appends its terms to
     * why ("; "-separated). May be NULL (needs none). */
    sim_time (*history)(const sim_world *w, char *why, size_t whylen);
} sim_world_module;

/* The modules (world_modules.c), in start order. Kinds and actions are the
 * modules' own (sim_world_kind, sim_world_action_at enumerate them); an
 * action is dispatched to the module that owns its target's kind. */
extern const sim_world_module *const sim_world_module_table[];
extern const size_t sim_world_module_count;

/* The PKI module (pki_world.c) and the web module (web_world.c). */
extern const sim_world_module sim_pki_module;
extern const sim_world_module sim_web_module;

/* The blocks of the simulator's status space above mtc-core's range, one
 * per layer with codes of its own (world_modules.c): the engine's
 * (sim/engine/status.c), the results database's
 * (sim/results/results_status.c) and the web module's (sim/web/tls.c).
 * sim_strerror() searches them. A layer that adds a block lists it here. */
extern const sim_status_block *const sim_status_blocks[];
extern const size_t sim_status_block_count;
extern const sim_status_block sim_results_status;
extern const sim_status_block sim_web_status;

/* The state a module's start hook created (NULL before start). */
void *sim_world_module_state(const sim_world *w, const sim_world_module *m);

/* Modules talk to each other only through the public sim_world_* queries
 * of sim/world.h, never through each other's internals. */

/* Entity configs of a kind (owned by the world), and their count. */
void *const *sim_world_entities(const sim_world *w, const char *kind,
                                size_t *count);

#endif
