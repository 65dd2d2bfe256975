/* The quality figures of a simulation run (sim.h struct
 * sim_quality_result, sim_result's q_ fields) for `baton sim`'s reports:
 * kept beside the simulator so that the reports need only call them. */
#pragma once

#include <jansson.h>
#include <stdio.h>

#include "sim/engine/sim.h"

/* The run's quality block; nothing when no game has levels. */
void sim_quality_report_text(FILE *out, const struct sim_result *r);
/* One quality game's figures (t->quality non-NULL), and the run's
 * (r->quality); NULL if out of memory. */
json_t *sim_quality_tenant_json(const struct sim_tenant_result *t);
json_t *sim_quality_run_json(const struct sim_result *r);
