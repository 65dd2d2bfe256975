/* Private to the baton CLI: what `baton sim --plot`'s figures share (cairo
 * panels, axes, legends, the file they go to). plot.c draws the per-second
 * FPS figure, plot_combo.c the SM allocation of a combo scenario. */
#pragma once

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"

#define PLOT_FONT       12.0
#define PLOT_MAX_LEGEND 24 /* entries drawn before "... and N more" */

struct plot_panel {
	double x, y, w, h; /* device rectangle */
	double xmin, xmax; /* data range shown */
	double ymin, ymax;
	double xstep, ystep; /* tick spacing */
};

struct plot_legend {
	double x, y;
	size_t shown, total;
};

/* 1, 2 or 5 times a power of ten, giving about `ticks` intervals. */
double plot_nice_step(double range, int ticks);
/* Data to device coordinates. */
double plot_px(const struct plot_panel *p, double v);
double plot_py(const struct plot_panel *p, double v);
/* Palette entry i (Tableau 10, cycling) as the source colour. */
void plot_colour(cairo_t *cr, size_t i);
/* Text anchored at (x, y): ax/ay 0 = left/top, 0.5 = centre, 1 =
 * right/bottom. */
void plot_text_at(cairo_t *cr, double x, double y, double ax, double ay,
                  const char *s);
/* The warm-up's stretch of the panel, greyed. */
void plot_warmup_band(cairo_t *cr, const struct plot_panel *p, double warmup);
/* Frame, grid, ticks and labels; the y label along the left edge. */
void plot_axes(cairo_t *cr, const struct plot_panel *p, const char *ylabel,
               bool xlabels);
/* A dashed horizontal line at y = v, in the current colour. */
void plot_hline_dashed(cairo_t *cr, const struct plot_panel *p, double v);
/* dashed: a reference line's entry rather than a series'. Colour set by the
 * caller. */
void plot_legend_entry(cairo_t *cr, struct plot_legend *l, const char *label,
                       bool dashed);
/* A filled swatch's entry, in the current colour. */
void plot_legend_swatch(cairo_t *cr, struct plot_legend *l, const char *label);
void plot_legend_end(cairo_t *cr, struct plot_legend *l);

/* Creates path's surface (SVG or PNG by the extension) of w x h, calls
 * draw, writes it; false with a reason in errbuf. */
bool plot_render_file(const char *path, double w, double h,
                      void (*draw)(cairo_t *cr, const void *arg),
                      const void *arg, char *errbuf, size_t len);

/* The SM-level model's figure (a combo scenario): SM allocation over time,
 * one panel per scheme run. */
bool plot_combo_write(const char *path, const struct cli_report *r,
                      char *errbuf, size_t len);
