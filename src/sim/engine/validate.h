/* Checks that a scenario can be simulated (see validate.c). */
#pragma once

#include <stdbool.h>

#include "sim/scenario/scenario.h"

/* False with err filled (field and message) if it cannot. */
bool sim_validate(const struct sim_scenario *sc, struct sim_error *err);
