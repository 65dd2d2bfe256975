/* The fleet simulator's figures (sim_result's fleet_result) for `baton
 * sim`'s reports, beside the model as the combo figures are. */
#pragma once

#include <jansson.h>
#include <stdio.h>

#include "sim/engine/sim.h"

/* A placement's label: "packed 3", "distributed 2", "baton". */
void sim_fleet_run_label(const struct sim_fleet_run *run, char *buf,
                         size_t len);
/* One row per placement; nothing unless r->fleet. */
void sim_fleet_report_text(FILE *out, const struct sim_result *r);
/* The placements' figures as an array (with their time series); NULL if
 * out of memory. */
json_t *sim_fleet_run_json(const struct sim_result *r);
