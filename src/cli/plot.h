/* The fleet figure (plot_fleet.c), drawn with plot_draw.h's helpers;
 * the baton CLI's only, cairo's types in it. */
#pragma once

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"

/* A fleet scenario's figure (plot_fleet.c): sessions over the day per
 * placement, and served / refused / below SLA per placement. */
void plot_fleet_render(cairo_t *cr, const struct cli_report *r, double width,
                       double height);

/* A combo scenario's figure (plot_combo.c): SM allocation per frame for
 * each scheme run. */
bool plot_combo_write(const char *path, const struct cli_report *r,
                      char *errbuf, size_t len);
