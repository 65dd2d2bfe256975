/* Drawing helpers (plot_draw.h). */
#include "cli/plot_draw.h"

#include "cli/cli.h"

#include <cairo-svg.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>

/* Tableau 10: distinct at a glance and readable when printed. */
static const double palette[][3] = {
    {0.122, 0.467, 0.706}, {1.000, 0.498, 0.055}, {0.173, 0.627, 0.173},
    {0.839, 0.153, 0.157}, {0.580, 0.404, 0.741}, {0.549, 0.337, 0.294},
    {0.890, 0.467, 0.761}, {0.498, 0.498, 0.498}, {0.737, 0.741, 0.133},
    {0.090, 0.745, 0.812},
};

#define N_COLOURS (sizeof(palette) / sizeof(palette[0]))

/* 1, 2 or 5 times a power of ten, giving about `ticks` intervals. */
double plot_nice_step(double range, int ticks)
{
	if (!(range > 0))
		return 1.0;
	double raw = range / ticks;
	double mag = pow(10.0, floor(log10(raw)));
	double norm = raw / mag;
	double f = norm < 1.5   ? 1.0
	           : norm < 3.0 ? 2.0
	           : norm < 7.0 ? 5.0
	                        : 10.0;
	return f * mag;
}

double plot_px(const struct plot_panel *p, double v)
{
	return p->x + (v - p->xmin) / (p->xmax - p->xmin) * p->w;
}

double plot_py(const struct plot_panel *p, double v)
{
	return p->y + p->h - (v - p->ymin) / (p->ymax - p->ymin) * p->h;
}

void plot_colour(cairo_t *cr, size_t i)
{
	const double *c = palette[i % N_COLOURS];
	cairo_set_source_rgb(cr, c[0], c[1], c[2]);
}

/* Draws text with its anchor point at (x, y): ax/ay 0 = left/top,
 * 0.5 = centre, 1 = right/bottom. */
void plot_text(cairo_t *cr, double x, double y, double ax, double ay,
               const char *s)
{
	cairo_text_extents_t e;
	cairo_font_extents_t fe;

	cairo_text_extents(cr, s, &e);
	cairo_font_extents(cr, &fe);
	double h = fe.ascent - fe.descent;
	cairo_move_to(cr, x - e.x_advance * ax, y + h * (1.0 - ay));
	cairo_show_text(cr, s);
}

void plot_label_num(char *buf, size_t len, double v, double step)
{
	/* Enough decimals for the step, none for whole numbers. */
	int dec = step >= 1.0 ? 0 : (int)ceil(-log10(step) - 1e-9);
	snprintf(buf, len, "%.*f", dec, fabs(v) < step * 1e-6 ? 0.0 : v);
}

/* The ticks of an axis from lo to hi: the first at a multiple of *step,
 * and how many. A step that would give more than PLOT_MAX_TICKS (a range
 * of 1e300 in steps of 1, where adding the step no longer even changes
 * the value) is widened to a nice one; a range that is no finite one has
 * none. The caller counts ticks, never adds steps until it passes hi, so
 * its loop ends whatever the data. */
static size_t ticks(double lo, double hi, double *step, double *first)
{
	double range = hi - lo;
	if (!isfinite(range) || range < 0.0)
		return 0;
	if (!(*step > 0.0) || !(range / *step <= PLOT_MAX_TICKS))
		*step = plot_nice_step(range, 10);
	*first = ceil(lo / *step) * *step;
	double n = floor((hi - *first) / *step + 1e-6) + 1.0;
	return n >= 1.0 && n <= PLOT_MAX_TICKS + 1.0 ? (size_t)n : 0;
}

/* Frame, grid, ticks and labels. */
void plot_axes(cairo_t *cr, const struct plot_panel *p, const char *ylabel,
               bool xlabels)
{
	char buf[32];

	cairo_set_line_width(cr, 1.0);
	cairo_set_font_size(cr, PLOT_FONT);
	double step = p->ystep, first = 0.0;
	size_t n = ticks(p->ymin, p->ymax, &step, &first);
	for (size_t i = 0; i < n; i++) {
		double v = first + (double)i * step;
		double y = plot_py(p, v);
		cairo_set_source_rgba(cr, 0, 0, 0, 0.12);
		cairo_move_to(cr, p->x, y);
		cairo_line_to(cr, p->x + p->w, y);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
		cairo_move_to(cr, p->x - 5, y);
		cairo_line_to(cr, p->x, y);
		cairo_stroke(cr);
		plot_label_num(buf, sizeof(buf), v, step);
		plot_text(cr, p->x - 8, y, 1.0, 0.5, buf);
	}
	step = p->xstep;
	n = ticks(p->xmin, p->xmax, &step, &first);
	for (size_t i = 0; i < n; i++) {
		double v = first + (double)i * step;
		double x = plot_px(p, v);
		cairo_set_source_rgba(cr, 0, 0, 0, 0.12);
		cairo_move_to(cr, x, p->y);
		cairo_line_to(cr, x, p->y + p->h);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
		cairo_move_to(cr, x, p->y + p->h);
		cairo_line_to(cr, x, p->y + p->h + 5);
		cairo_stroke(cr);
		if (xlabels) {
			plot_label_num(buf, sizeof(buf), v, step);
			plot_text(cr, x, p->y + p->h + 8, 0.5, 0.0, buf);
		}
	}
	plot_frame(cr, p->x, p->y, p->w, p->h, 52, ylabel);
}

void plot_frame(cairo_t *cr, double x, double y, double w, double h,
                double label_dx, const char *ylabel)
{
	cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
	cairo_rectangle(cr, x, y, w, h);
	cairo_stroke(cr);
	/* The y label runs upwards along the left edge. */
	cairo_save(cr);
	cairo_translate(cr, x - label_dx, y + h / 2);
	cairo_rotate(cr, -M_PI / 2);
	plot_text(cr, 0, 0, 0.5, 0.5, ylabel);
	cairo_restore(cr);
}

void plot_hline_dashed(cairo_t *cr, const struct plot_panel *p, double v)
{
	static const double dash[] = {6.0, 4.0};

	if (v < p->ymin || v > p->ymax)
		return;
	cairo_save(cr);
	cairo_set_dash(cr, dash, 2, 0);
	cairo_set_line_width(cr, 1.4);
	cairo_move_to(cr, p->x, plot_py(p, v));
	cairo_line_to(cr, p->x + p->w, plot_py(p, v));
	cairo_stroke(cr);
	cairo_restore(cr);
}

/* dashed: a reference line's entry rather than a series'. Colour set by the
 * caller. */
void plot_legend_entry(cairo_t *cr, struct plot_legend *l, const char *label,
                       bool dashed)
{
	static const double dash[] = {6.0, 4.0};

	l->total++;
	if (l->shown >= PLOT_MAX_LEGEND)
		return;
	l->shown++;
	cairo_save(cr);
	if (dashed)
		cairo_set_dash(cr, dash, 2, 0);
	cairo_set_line_width(cr, dashed ? 1.4 : 2.5);
	cairo_move_to(cr, l->x, l->y);
	cairo_line_to(cr, l->x + 24, l->y);
	cairo_stroke(cr);
	cairo_restore(cr);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	cairo_set_font_size(cr, PLOT_FONT);
	plot_text(cr, l->x + 30, l->y, 0.0, 0.5, label);
	l->y += PLOT_FONT + 6;
}

void plot_legend_end(cairo_t *cr, struct plot_legend *l)
{
	char buf[64];

	if (l->total <= l->shown)
		return;
	snprintf(buf, sizeof(buf), "... and %zu more", l->total - l->shown);
	cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
	plot_text(cr, l->x, l->y, 0.0, 0.5, buf);
}

void plot_warmup_band(cairo_t *cr, const struct plot_panel *p, double warmup)
{
	if (warmup <= p->xmin)
		return;
	double x1 = plot_px(p, fmin(warmup, p->xmax));
	cairo_set_source_rgb(cr, 0.92, 0.92, 0.92);
	cairo_rectangle(cr, p->x, p->y, x1 - p->x, p->h);
	cairo_fill(cr);
}

void plot_warmup_label(cairo_t *cr, const struct plot_panel *p, double grey)
{
	cairo_set_source_rgb(cr, grey, grey, grey);
	cairo_set_font_size(cr, PLOT_FONT - 1);
	plot_text(cr, p->x + 4, p->y + 4, 0.0, 0.0, "warm-up");
}

void plot_legend_swatch(cairo_t *cr, struct plot_legend *l, const char *label)
{
	l->total++;
	if (l->shown >= PLOT_MAX_LEGEND)
		return;
	l->shown++;
	cairo_rectangle(cr, l->x, l->y - 5, 24, 10);
	cairo_fill(cr);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	cairo_set_font_size(cr, PLOT_FONT);
	plot_text(cr, l->x + 30, l->y, 0.0, 0.5, label);
	l->y += PLOT_FONT + 6;
}

static bool failed(cairo_status_t st, char *errbuf, size_t len)
{
	if (st == CAIRO_STATUS_SUCCESS)
		return false;
	snprintf(errbuf, len, "%s", cairo_status_to_string(st));
	return true;
}

bool plot_render_file(const char *path, double w, double h,
                      void (*draw)(cairo_t *cr, const void *arg),
                      const void *arg, char *errbuf, size_t len)
{
	enum plot_format fmt = plot_format_of(path);
	cairo_surface_t *s;

	if (fmt == PLOT_NONE) {
		snprintf(errbuf, len, "the name must end in .svg or .png");
		return false;
	}
	if (fmt == PLOT_SVG)
		s = cairo_svg_surface_create(path, w, h);
	else
		s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w,
		                               (int)h);
	if (failed(cairo_surface_status(s), errbuf, len)) {
		cairo_surface_destroy(s);
		return false;
	}
	cairo_t *cr = cairo_create(s);
	draw(cr, arg);
	bool ok = !failed(cairo_status(cr), errbuf, len);
	cairo_destroy(cr);
	if (ok && fmt == PLOT_PNG)
		ok = !failed(cairo_surface_write_to_png(s, path), errbuf, len);
	/* An SVG is written as the surface finishes; errors show only then. */
	cairo_surface_finish(s);
	if (ok)
		ok = !failed(cairo_surface_status(s), errbuf, len);
	cairo_surface_destroy(s);
	/* baton draws one plot and exits: hand cairo's font caches and
	 * fontconfig's configuration back, so that leak checkers (the ASan
	 * builds run the CLI tests) see only our own allocations. */
	cairo_debug_reset_static_data();
	FcFini();
	return ok;
}
