/* A scenario's quality mode: who picks the games' levels (dJay). */
#pragma once

#include <stdbool.h>

#include "sim/scenario/scenario_types.h"

/* "off", "djay", "djay-paper", "all-lo", "all-me", "all-hi"; false if the
 * name is unknown. Sets sc->quality and params.quality_on/quality_paper,
 * and params.quality's budget, strictness and reassignment to the mode's
 * (the alarm's epochs and ratio are kept). */
bool sim_quality_set_mode(struct sim_scenario *sc, const char *name);
/* The mode's name. */
const char *sim_quality_mode_name(enum sim_quality_mode m);
