/* The plots' shared drawing helpers (plot.c) and the fleet figure
 * (plot_fleet.c); the baton CLI's only, cairo's types in them. */
#pragma once

#include <cairo.h>
#include <stddef.h>

#include "cli/cli.h"

/* plot.c's helpers, for plot_fleet.c. */
double plot_nice_step(double range, int ticks);
void plot_text_at(cairo_t *cr, double x, double y, double ax, double ay,
                  const char *s);
void plot_colour(cairo_t *cr, size_t i);
/* A fleet scenario's figure (plot_fleet.c): sessions over the day per
 * placement, and served / refused / below SLA per placement. */
void plot_fleet_render(cairo_t *cr, const struct cli_report *r, double width,
                       double height);
