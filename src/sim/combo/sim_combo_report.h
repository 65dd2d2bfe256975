/* Space harvesting's figures (sim_result's combo_result) for `baton sim`'s
 * reports, beside the model as the quality figures are. */
#pragma once

#include <jansson.h>
#include <stdio.h>

#include "sim/engine/sim.h"

/* One row per scheme; nothing unless r->combo. */
void sim_combo_report_text(FILE *out, const struct sim_result *r);
/* The schemes' figures as an array; NULL if out of memory. */
json_t *sim_combo_run_json(const struct sim_result *r);
