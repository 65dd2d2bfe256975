/* Scenario keys for time harvesting (docs/harvesting.md): BE tenants
 * (kind = "be" in the tenants list) and the root `harvest` group. Kept out
 * of scenario.c, which calls these two functions. */
#pragma once

#include <stdbool.h>

#include "sim/scenario/scenario_fields.h"

/* Whether tenant group tg is a BE tenant (kind = "be"); a bad kind is
 * left to sim_be_parse_tenant to report. False for a game. */
bool sim_be_is_tenant(const config_setting_t *tg);
/* Parses a tenant group with a kind member: a BE tenant, or an error
 * naming the kind. */
bool sim_be_parse_tenant(struct sim_cfg_ctx *c, const config_setting_t *tg,
                         struct sim_tenant_spec *t,
                         const struct sim_scenario *sc);
/* The root `harvest` group; defaults when absent. */
bool sim_be_parse_harvest(struct sim_cfg_ctx *c, const config_setting_t *root,
                          struct sim_scenario *sc);
