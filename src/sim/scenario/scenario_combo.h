/* The combo group of a scenario (scenario_combo.c). */
#pragma once

#include <libconfig.h>
#include <stdbool.h>

#include "sim/scenario/scenario_types.h"
#include "sim/scenario/sim_error.h"
#include "sim/scenario/scenario_fields.h"

/* Fills sc->combo (sim_combo_spec_default() when the group is absent,
 * with on false). */
bool sim_scenario_parse_combo(struct sim_cfg_ctx *c,
                              const config_setting_t *root,
                              struct sim_scenario *sc);
