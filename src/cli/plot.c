/* `baton sim --plot`: per-second FPS (top) and GPU utilization (bottom) on a
 * shared time axis, drawn with cairo to SVG or PNG. For a sweep the top
 * panel shows one line per gain pair against the reference, as vGASA's
 * Fig. 8 does. */
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/plot.h"
#include "cli/plot_draw.h"

#define WIDTH     1000.0
#define HEIGHT    680.0
#define MARGIN_L  72.0
#define MARGIN_R  200.0 /* room for the legend */
#define MARGIN_T  48.0
#define MARGIN_B  52.0
#define PANEL_GAP 36.0
#define TOP_SHARE 0.65 /* of the height both panels share */

enum plot_format plot_format_of(const char *path)
{
	size_t len = strlen(path);

	if (len > 4 && strcasecmp(path + len - 4, ".svg") == 0)
		return PLOT_SVG;
	if (len > 4 && strcasecmp(path + len - 4, ".png") == 0)
		return PLOT_PNG;
	return PLOT_NONE;
}

/* One per-second series, each point at the middle of its window; clipped
 * to the panel. */
static void series(cairo_t *cr, const struct plot_panel *p, const double *v,
                   size_t n, double scale)
{
	if (n == 0)
		return;
	cairo_save(cr);
	cairo_rectangle(cr, p->x, p->y, p->w, p->h);
	cairo_clip(cr);
	for (size_t i = 0; i < n; i++) {
		double x = plot_px(p, (double)i + 0.5);
		double y = plot_py(p, v[i] * scale);
		if (i == 0)
			cairo_move_to(cr, x, y);
		else
			cairo_line_to(cr, x, y);
	}
	cairo_set_line_width(cr, 1.6);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_stroke(cr);
	cairo_restore(cr);
}

/* The largest value the top panel must show, references included. */
static double top_max(const struct cli_report *r)
{
	double m = 0.0;

	for (size_t k = 0; k < r->n_runs; k++) {
		const struct sim_result *res = &r->runs[k].result;
		for (size_t i = 0; i < res->n_tenants; i++) {
			const struct sim_tenant_result *t = &res->tenants[i];
			m = fmax(m, cli_reference_fps(r->sc, t, i));
			m = fmax(m, t->sla_fps);
			for (size_t s = 0; s < t->n_secs; s++)
				if (isfinite(t->fps_per_s[s]))
					m = fmax(m, t->fps_per_s[s]);
		}
	}
	return m > 0 ? m : 1.0;
}

static void gains_label(char *buf, size_t len, const struct cli_report *r,
                        size_t run, const struct sim_tenant_result *t)
{
	const struct sim_gains *g = &r->runs[run].gains;
	if (r->runs[run].result.n_tenants > 1)
		snprintf(buf, len, "%s kp=%g ki=%g", t->name, g->kp, g->ki);
	else
		snprintf(buf, len, "kp=%g ki=%g", g->kp, g->ki);
}

/* True when every tenant of the first run has the same value of f. */
static bool same_reference(const struct cli_report *r, bool with_margin)
{
	const struct sim_result *res = &r->runs[0].result;

	for (size_t i = 1; i < res->n_tenants; i++) {
		double a = with_margin
		               ? cli_reference_fps(r->sc, &res->tenants[0], 0)
		               : res->tenants[0].sla_fps;
		double b = with_margin
		               ? cli_reference_fps(r->sc, &res->tenants[i], i)
		               : res->tenants[i].sla_fps;
		if (a != b)
			return false;
	}
	return true;
}

static void draw_top(cairo_t *cr, const struct cli_report *r,
                     const struct plot_panel *p, struct plot_legend *l)
{
	char buf[96];
	const struct sim_result *first = &r->runs[0].result;
	/* Sweeps are judged against the reference the controller chases;
	 * single runs against the SLA. */
	bool sweep = r->sweep;
	bool shared = same_reference(r, sweep);
	size_t line = 0;

	for (size_t k = 0; k < r->n_runs; k++) {
		const struct sim_result *res = &r->runs[k].result;
		for (size_t i = 0; i < res->n_tenants; i++, line++) {
			const struct sim_tenant_result *t = &res->tenants[i];
			plot_colour(cr, line);
			series(cr, p, t->fps_per_s, t->n_secs, 1.0);
			plot_colour(cr, line);
			if (sweep)
				gains_label(buf, sizeof(buf), r, k, t);
			plot_legend_entry(cr, l, sweep ? buf : t->name, false);
		}
	}
	/* Reference lines on top of the series so they stay visible. */
	if (first->n_tenants == 0)
		return;
	if (shared) {
		double v = sweep
		               ? cli_reference_fps(r->sc, &first->tenants[0], 0)
		               : first->tenants[0].sla_fps;
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		plot_hline_dashed(cr, p, v);
		snprintf(buf, sizeof(buf), "%s %g FPS",
		         sweep ? "reference" : "SLA", v);
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		plot_legend_entry(cr, l, buf, true);
		return;
	}
	for (size_t i = 0; i < first->n_tenants; i++) {
		const struct sim_tenant_result *t = &first->tenants[i];
		double v = sweep ? cli_reference_fps(r->sc, t, i) : t->sla_fps;
		plot_colour(cr, i);
		plot_hline_dashed(cr, p, v);
	}
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	plot_legend_entry(cr, l, sweep ? "reference (dashed)" : "SLA (dashed)",
	                  true);
}

static void draw_bottom(cairo_t *cr, const struct cli_report *r,
                        const struct plot_panel *p)
{
	for (size_t k = 0; k < r->n_runs; k++) {
		const struct sim_result *res = &r->runs[k].result;
		/* One colour per run in a sweep, matching the top panel's
		 * first tenant of that run. */
		plot_colour(cr, r->sweep ? k * res->n_tenants : 0);
		if (!r->sweep)
			cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
		series(cr, p, res->util_per_s, res->n_secs, 100.0);
	}
}

static void render(cairo_t *cr, const struct cli_report *r)
{
	const struct sim_result *first = &r->runs[0].result;
	double duration =
	    first->duration_s > 0 ? first->duration_s : r->sc->duration_s;
	double warmup = first->warmup_s;
	double plot_h = HEIGHT - MARGIN_T - MARGIN_B - PANEL_GAP;
	char buf[160];

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	                       CAIRO_FONT_WEIGHT_NORMAL);

	double fps_max = top_max(r) * 1.12;
	struct plot_panel top = {
	    .x = MARGIN_L,
	    .y = MARGIN_T,
	    .w = WIDTH - MARGIN_L - MARGIN_R,
	    .h = plot_h * TOP_SHARE,
	    .xmin = 0,
	    .xmax = duration,
	    .xstep = plot_nice_step(duration, 10),
	    .ystep = plot_nice_step(fps_max, 6),
	};
	top.ymin = 0;
	top.ymax = ceil(fps_max / top.ystep) * top.ystep;
	struct plot_panel bottom = top;
	bottom.y = top.y + top.h + PANEL_GAP;
	bottom.h = plot_h - top.h;
	/* Headroom so that a saturated GPU's line does not hide in the frame.
	 */
	bottom.ymax = 110.0;
	bottom.ystep = 25.0;

	plot_warmup_band(cr, &top, warmup);
	plot_warmup_band(cr, &bottom, warmup);
	plot_axes(cr, &top, "frames per second", false);
	plot_axes(cr, &bottom, "GPU utilization %", true);
	if (warmup > 0)
		plot_warmup_label(cr, &top, 0.45);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	cairo_set_font_size(cr, PLOT_FONT);
	plot_text(cr, bottom.x + bottom.w / 2, bottom.y + bottom.h + 26, 0.5,
	          0.0, "time (s)");

	struct plot_legend l = {.x = top.x + top.w + 16, .y = top.y + 8};
	draw_top(cr, r, &top, &l);
	plot_legend_end(cr, &l);
	draw_bottom(cr, r, &bottom);

	if (r->sweep)
		snprintf(buf, sizeof(buf),
		         "%s: policy %s, kp/ki sweep, seed %llu", r->sc->name,
		         r->sc->policy, (unsigned long long)r->sc->seed);
	else
		snprintf(buf, sizeof(buf), "%s: policy %s, seed %llu",
		         r->sc->name, r->sc->policy,
		         (unsigned long long)r->sc->seed);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_font_size(cr, PLOT_FONT + 4);
	plot_text(cr, top.x + top.w / 2, MARGIN_T / 2, 0.5, 0.5, buf);
}

/* The figure of a run: the fleet's, else the time series. */
static void draw(cairo_t *cr, const void *arg)
{
	const struct cli_report *r = arg;
	if (r->runs[0].result.fleet)
		plot_fleet_render(cr, r, WIDTH, HEIGHT);
	else
		render(cr, r);
}

bool plot_write(const char *path, const struct cli_report *r, char *errbuf,
                size_t len)
{
	if (r->n_runs == 0) {
		snprintf(errbuf, len, "nothing to plot");
		return false;
	}
	if (r->runs[0].result.combo)
		return plot_combo_write(path, r, errbuf, len);
	return plot_render_file(path, WIDTH, HEIGHT, draw, r, errbuf, len);
}
