/* `baton report --plot`: a history file's tenants over time, one panel a
 * figure on a shared time axis: frame rate with each game's SLA dashed,
 * quality level, published cap, best-effort work units per second. A panel
 * no tenant has figures for is left out; each tenant keeps its colour in
 * every panel. */
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/history.h"
#include "cli/plot_draw.h"

#define WIDTH     1000.0
#define MARGIN_L  72.0
#define MARGIN_R  220.0 /* room for the legend */
#define MARGIN_T  48.0
#define MARGIN_B  52.0
#define PANEL_H   170.0
#define PANEL_GAP 28.0
/* A longer gap between two records breaks the line (batond was down). */
#define GAP_S 5

enum field { F_FPS, F_LEVEL, F_CAP, F_UNITS, N_FIELDS };

static const char *const ylabels[N_FIELDS] = {
    "frames per second", "quality level", "cap (GPU share)", "work units/s"};

static double field(const struct hist_point *p, enum field f)
{
	switch (f) {
	case F_FPS:
		return p->fps;
	case F_LEVEL:
		return p->level;
	case F_CAP:
		return p->cap;
	case F_UNITS:
		return p->units_s;
	default:
		return NAN;
	}
}

/* The largest value of f (SLAs too for the frame rate); false when no
 * tenant has one. A cap of 0 (none) counts as no figure. */
static bool field_max(const struct hist *h, enum field f, double *max)
{
	bool any = false;
	*max = 0.0;
	for (size_t i = 0; i < h->n; i++)
		for (size_t k = 0; k < h->s[i].n; k++) {
			const struct hist_point *p = &h->s[i].p[k];
			double v = field(p, f);
			if (!isfinite(v) || (f == F_CAP && v <= 0.0))
				continue;
			any = true;
			*max = fmax(*max, v);
			if (f == F_FPS && isfinite(p->sla))
				*max = fmax(*max, p->sla);
		}
	return any;
}

/* A series' path with at most four points a pixel column, however many
 * records fall in it (a week of seconds on a 700-pixel axis): the first
 * point, the column's lowest and highest, and its last, which draw the
 * same as every point would. So the plot's size follows its width and the
 * number of tenants, not the file's length (of a file in time order, as
 * batond writes it). */
struct pen {
	cairo_t *cr;
	bool down;              /* a line is under way */
	double col;             /* its current column (floor of x) */
	double x, lo, hi, last; /* of the points in that column */
	size_t n;               /* how many */
};

static void pen_flush(struct pen *p)
{
	if (!p->down || p->n < 2)
		return;
	if (p->hi > p->lo) {
		cairo_line_to(p->cr, p->x, p->lo);
		cairo_line_to(p->cr, p->x, p->hi);
	}
	cairo_line_to(p->cr, p->x, p->last);
}

static void pen_point(struct pen *p, double x, double y)
{
	if (p->down && floor(x) == p->col) {
		p->lo = fmin(p->lo, y);
		p->hi = fmax(p->hi, y);
		p->last = y;
		p->n++;
		return;
	}
	pen_flush(p);
	if (p->down)
		cairo_line_to(p->cr, x, y);
	else
		cairo_move_to(p->cr, x, y);
	*p = (struct pen){p->cr, true, floor(x), x, y, y, y, 1};
}

static void pen_up(struct pen *p)
{
	pen_flush(p);
	p->down = false;
}

/* One tenant's f against time (seconds since t0, over `unit`), broken at
 * gaps; clipped to the panel. */
static void series(cairo_t *cr, const struct plot_panel *pn,
                   const struct hist_series *s, enum field f, int64_t t0,
                   double unit, bool sla)
{
	cairo_save(cr);
	cairo_rectangle(cr, pn->x, pn->y, pn->w, pn->h);
	cairo_clip(cr);
	struct pen pen = {.cr = cr};
	for (size_t k = 0; k < s->n; k++) {
		const struct hist_point *p = &s->p[k];
		double v = sla ? p->sla : field(p, f);
		if (k > 0 && p->t - s->p[k - 1].t > GAP_S)
			pen_up(&pen);
		if (!isfinite(v)) {
			pen_up(&pen);
			continue;
		}
		pen_point(&pen, plot_px(pn, (double)(p->t - t0) / unit),
		          plot_py(pn, v));
	}
	pen_up(&pen);
	static const double dash[] = {6.0, 4.0};
	if (sla)
		cairo_set_dash(cr, dash, 2, 0);
	cairo_set_line_width(cr, sla ? 1.2 : 1.5);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_stroke(cr);
	cairo_restore(cr);
}

static void render(cairo_t *cr, const struct hist *h, const char *title,
                   const bool *shown, double height)
{
	double span = (double)(h->t_max - h->t_min);
	double unit = span > 3 * 3600.0 ? 3600.0 : span > 600.0 ? 60.0 : 1.0;
	char buf[160];

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	                       CAIRO_FONT_WEIGHT_NORMAL);
	struct plot_panel pn = {
	    .x = MARGIN_L,
	    .y = MARGIN_T,
	    .w = WIDTH - MARGIN_L - MARGIN_R,
	    .h = PANEL_H,
	    .xmin = 0,
	    .xmax = span > 0 ? span / unit : 1.0,
	};
	pn.xstep = plot_nice_step(pn.xmax, 10);
	struct plot_legend l = {.x = pn.x + pn.w + 16, .y = pn.y + 8};
	for (size_t i = 0; i < h->n; i++) {
		plot_colour(cr, i);
		snprintf(buf, sizeof(buf), "%s #%llu%s", h->s[i].name,
		         (unsigned long long)h->s[i].id,
		         h->s[i].be ? " (BE)" : "");
		plot_legend_entry(cr, &l, buf, false);
	}
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	plot_legend_entry(cr, &l, "SLA (dashed)", true);
	plot_legend_end(cr, &l);
	size_t last = 0;
	for (size_t f = 0; f < N_FIELDS; f++)
		if (shown[f])
			last = f;
	for (size_t f = 0; f < N_FIELDS; f++) {
		double max;
		if (!shown[f] || !field_max(h, (enum field)f, &max))
			continue;
		max = f == F_LEVEL ? fmax(max, 1.0) : max * 1.12;
		pn.ystep = f == F_LEVEL ? 1.0 : plot_nice_step(max, 4);
		pn.ymin = 0;
		pn.ymax = ceil(max / pn.ystep) * pn.ystep;
		if (f == F_LEVEL)
			pn.ymax += 0.5;
		plot_axes(cr, &pn, ylabels[f], f == last);
		for (size_t i = 0; i < h->n; i++) {
			plot_colour(cr, i);
			series(cr, &pn, &h->s[i], (enum field)f, h->t_min, unit,
			       false);
			if (f == F_FPS && !h->s[i].be)
				series(cr, &pn, &h->s[i], F_FPS, h->t_min, unit,
				       true);
		}
		pn.y += PANEL_H + PANEL_GAP;
	}
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	cairo_set_font_size(cr, PLOT_FONT);
	plot_text(cr, MARGIN_L + pn.w / 2, height - MARGIN_B + 26, 0.5, 0.0,
	          unit == 1.0    ? "time (s)"
	          : unit == 60.0 ? "time (min)"
	                         : "time (h)");
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_font_size(cr, PLOT_FONT + 4);
	plot_text(cr, MARGIN_L + pn.w / 2, MARGIN_T / 2, 0.5, 0.5, title);
}

/* render()'s arguments, through plot_render_file. */
struct report_fig {
	const struct hist *h;
	const char *title;
	const bool *shown;
	double height;
};

static void draw(cairo_t *cr, const void *arg)
{
	const struct report_fig *f = arg;
	render(cr, f->h, f->title, f->shown, f->height);
}

bool report_plot(const char *path, const struct hist *h, const char *title,
                 char *err, size_t errlen)
{
	if (plot_format_of(path) == PLOT_NONE) {
		snprintf(err, errlen, "the name must end in .svg or .png");
		return false;
	}
	bool shown[N_FIELDS];
	size_t panels = 0;
	for (size_t f = 0; f < N_FIELDS; f++) {
		double max;
		shown[f] = field_max(h, (enum field)f, &max);
		panels += shown[f];
	}
	if (panels == 0) {
		snprintf(err, errlen, "no tenant has figures to plot");
		return false;
	}
	double height = MARGIN_T + MARGIN_B + (double)panels * PANEL_H +
	                (double)(panels - 1) * PANEL_GAP;
	struct report_fig fig = {h, title, shown, height};
	return plot_render_file(path, WIDTH, height, draw, &fig, err, errlen);
}
