/*
 * world_params.c - the schema of the world's own kind, "world": the span
 * of a run, its warm-up, the series grid, the epoch and how it starts.
 * The modules' kinds are in their own folders (sim/pki/pki_params.c,
 * sim/web/web_site.c, sim/web/web_browser.c).
 */
#include <stddef.h>
#include <stdio.h>

#include "sim/world.h"

static const char *const world_start_names[] = {"steady", "empty", NULL};

static const sim_param_desc world_params[] = {
    {"name", SIM_PARAM_STRING, offsetof(sim_world_config, name),
     sizeof(((sim_world_config *)0)->name), 0, 0, NULL, "",
     "unique name of the entity", 0, 0, 0, NULL},
    {"duration", SIM_PARAM_DURATION, offsetof(sim_world_config, duration), 0,
     1e-3, 3.2e9, NULL, "s", "simulated time span", 0, 10 * SIM_PLAUS_MIN, 7300 * SIM_PLAUS_DAY,
     "a simulated span"},
    {"warmup", SIM_PARAM_DURATION, offsetof(sim_world_config, warmup), 0, 0,
     3.2e9, NULL, "s", "counters and histograms ignore earlier observations", 0, 0, 0, NULL},
    {"grid_step", SIM_PARAM_DURATION, offsetof(sim_world_config, grid_step), 0,
     0, 3.2e9, NULL, "s", "spacing of metric time series (0: none)", 0, SIM_PLAUS_MIN, 30 * SIM_PLAUS_DAY,
     "the spacing of metric series"},
    {"epoch", SIM_PARAM_INT, offsetof(sim_world_config, epoch), 0, 0,
     2.5e9, NULL, "s", "Unix time of simulated time 0 (certificate dates)", 0, 0, 0, NULL},
    {"start", SIM_PARAM_ENUM, offsetof(sim_world_config, start), 0, 0, 0,
     world_start_names, "",
     "steady: the deployed system (warmup must hold the history it needs, "
     "see steady_warmup); empty: a cold start (first day of a deployment)", 0, 0, 0, NULL},
};

static int world_defaults(void *p)
{
    sim_world_config *c = p;
    snprintf(c->name, sizeof c->name, "world");
    c->duration = SIM_DAY;
    c->warmup = 0;
    c->grid_step = SIM_HOUR;
    c->epoch = 1767225600; /* 2026-01-01T00:00:00Z */
    c->start = SIM_START_STEADY;
    return SIM_OK;
}

static int world_validate(const void *p, char *err, size_t errlen)
{
    const sim_world_config *c = p;
    if (c->warmup >= c->duration) {
        snprintf(err, errlen, "warmup: must be shorter than duration");
        return SIM_ERR_CONFIG;
    }
    return SIM_OK;
}

const sim_param_schema sim_world_config_schema = {
    "world", "global settings of a run: span, warm-up, series grid, epoch",
    sizeof(sim_world_config), world_params,
    sizeof world_params / sizeof world_params[0], world_defaults,
    world_validate};
