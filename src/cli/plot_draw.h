/* Drawing helpers shared by `baton sim --plot` (plot.c) and `baton report
 * --plot` (report_plot.c): panels with axes, series colours, legends. */
#pragma once

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

#define PLOT_FONT       12.0
#define PLOT_MAX_LEGEND 24 /* entries drawn before "... and N more" */
#define PLOT_MAX_TICKS  50 /* on one axis, whatever the data */

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

double plot_nice_step(double range, int ticks);
double plot_px(const struct plot_panel *p, double v);
double plot_py(const struct plot_panel *p, double v);
void plot_colour(cairo_t *cr, size_t i);
void plot_text(cairo_t *cr, double x, double y, double ax, double ay,
               const char *s);
void plot_label_num(char *buf, size_t len, double v, double step);
void plot_axes(cairo_t *cr, const struct plot_panel *p, const char *ylabel,
               bool xlabels);
/* A panel's frame (x, y, w, h) and its y label, running upwards
 * label_dx left of it. */
void plot_frame(cairo_t *cr, double x, double y, double w, double h,
                double label_dx, const char *ylabel);
void plot_hline_dashed(cairo_t *cr, const struct plot_panel *p, double v);
void plot_legend_entry(cairo_t *cr, struct plot_legend *l, const char *label,
                       bool dashed);
void plot_legend_end(cairo_t *cr, struct plot_legend *l);

/* The warm-up's span of a panel, shaded. */
void plot_warmup_band(cairo_t *cr, const struct plot_panel *p, double warmup);
/* "warm-up" in the panel's top left corner, in this grey (0 black). */
void plot_warmup_label(cairo_t *cr, const struct plot_panel *p, double grey);
/* A legend entry with a filled swatch in the current colour. */
void plot_legend_swatch(cairo_t *cr, struct plot_legend *l, const char *label);
/* Draws draw(cr, arg) on a w x h surface and writes it to path (.png or
 * .svg by its name); false with cairo's reason in errbuf. */
bool plot_render_file(const char *path, double w, double h,
                      void (*draw)(cairo_t *cr, const void *arg),
                      const void *arg, char *errbuf, size_t len);
