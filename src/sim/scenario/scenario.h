/* Scenario files: the GPU, the tenants, their SLA, the policy and its gains,
 * the duration and the seed, in libconfig's text format (see
 * docs/scenarios.md and scenarios/NAME.cfg). Errors name file, line and field.
 */
#pragma once

#include <stdbool.h>

#include "sim/scenario/quality_mode.h"
#include "sim/scenario/scenario_types.h"
#include "sim/scenario/sim_error.h"

/* Parses text. origin names it in errors; trace paths are resolved relative
 * to base_dir (NULL: the current directory). On failure *out is left zeroed
 * and err says why. */
bool sim_scenario_parse(const char *text, const char *origin,
                        const char *base_dir, struct sim_scenario *out,
                        struct sim_error *err);
/* Reads and parses a file; trace paths relative to the file's folder. */
bool sim_scenario_load_file(const char *path, struct sim_scenario *out,
                            struct sim_error *err);
/* A built-in name (see builtin.h) or a file path. */
bool sim_scenario_load(const char *name_or_path, struct sim_scenario *out,
                       struct sim_error *err);
void sim_scenario_finish(struct sim_scenario *sc);
