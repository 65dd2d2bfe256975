/* Quality keys of scenario files (scenario_quality.c; docs/scenarios.md
 * "Quality"), for the scenario parser and no one else. */
#pragma once

#include "sim/scenario/scenario_parse.h"

/* The top-level `quality` group; after the tenants (a mode other than
 * "off" needs a game with levels). */
bool sim_scenario_parse_quality(struct sim_cfg_ctx *c,
                                const config_setting_t *root,
                                struct sim_scenario *sc);
/* A tenant's levels or model, start_level, areas and areas_loop; after its
 * other keys (it needs cpu_ms). Leaves t->quality NULL for a game without
 * levels. */
bool sim_scenario_parse_tenant_quality(struct sim_cfg_ctx *c,
                                       const config_setting_t *tg,
                                       struct sim_tenant_spec *t);
void sim_quality_spec_free(struct sim_quality_spec *q);
