/* The discrete-event simulator: games on one shared GPU, driven by the same
 * src/core controller tick the daemon runs, on a virtual clock. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/result.h"
#include "sim/scenario/scenario.h"

/* Runs the scenario as given (policy, seed, duration, gains from *sc). On
 * failure (out of memory, nothing to simulate) returns false with err set. */
bool sim_run(const struct sim_scenario *sc, struct sim_result *out,
             struct sim_error *err);
