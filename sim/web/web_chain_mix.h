/*
 * web_chain_mix.h - the default chain mix of today's popular sites
 * (docs/model.md "Web side: today's chains"): "profile:weight" items of
 * mtc/chain.h profiles, their weights derived from the sources that
 * web_chain_mix.c names. No state.
 */
#ifndef MTC_SIM_WEB_CHAIN_MIX_H
#define MTC_SIM_WEB_CHAIN_MIX_H

#include "sim/params.h"

/* Writes the default mix into *out (its items as "%s:%g", weights with
 * six significant digits), replacing what it held. */
void web_chain_mix_default(sim_param_list *out);

#endif
