/* `baton sim --plot` for a fleet scenario: the sessions in the fleet and
 * the GPUs in use over the day, one line per placement (top, middle),
 * and per placement the share of
 * arrivals served and refused and the share of served session-seconds
 * below SLA (bottom, bars). */
#include <cairo.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/plot.h"
#include "cli/plot_draw.h"
#include "sim/fleet/sim_fleet_report.h"

#define ML   80.0
#define MR   190.0
#define MT   48.0
#define MB   60.0
#define GAP  60.0
#define FONT 12.0

struct box {
	double x, y, w, h;
	double ymax, ystep;
};

static double by(const struct box *b, double v)
{
	return b->y + b->h - v / b->ymax * b->h;
}

/* Frame and horizontal grid with labels. */
static void frame(cairo_t *cr, const struct box *b, const char *ylabel)
{
	char buf[32];
	cairo_set_line_width(cr, 1.0);
	cairo_set_font_size(cr, FONT);
	for (double v = 0; v <= b->ymax + b->ystep * 1e-6; v += b->ystep) {
		cairo_set_source_rgba(cr, 0, 0, 0, 0.12);
		cairo_move_to(cr, b->x, by(b, v));
		cairo_line_to(cr, b->x + b->w, by(b, v));
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
		snprintf(buf, sizeof(buf), "%g", v);
		plot_text(cr, b->x - 8, by(b, v), 1.0, 0.5, buf);
	}
	plot_frame(cr, b->x, b->y, b->w, b->h, 58, ylabel);
}

static const double *values(const struct sim_fleet_run *s, bool gpus)
{
	return gpus ? s->gpus_per_bin : s->sessions_per_bin;
}

/* A time series per placement: sessions in the fleet, or GPUs in use. */
static void series_panel(cairo_t *cr, const struct cli_report *r,
                         const struct box *b0, double hours, bool gpus)
{
	const struct sim_fleet_result *f = &r->runs[0].result.fleet_result;
	struct box b = *b0;
	double top = 1.0;
	for (size_t i = 0; i < f->n_runs; i++)
		for (size_t k = 0; k < f->runs[i].n_bins; k++)
			top = fmax(top, values(&f->runs[i], gpus)[k]);
	b.ystep = plot_nice_step(top, 4);
	b.ymax = ceil(top / b.ystep) * b.ystep;
	frame(cr, &b, gpus ? "GPUs in use" : "sessions in the fleet");
	char buf[32];
	double xstep = hours > 12 ? 3.0 : plot_nice_step(hours, 6);
	for (double h = 0; h <= hours + 1e-9; h += xstep) {
		snprintf(buf, sizeof(buf), "%g", h);
		plot_text(cr, b.x + h / hours * b.w, b.y + b.h + 6, 0.5, 0.0,
		          buf);
	}
	if (gpus)
		plot_text(cr, b.x + b.w / 2, b.y + b.h + 24, 0.5, 0.0,
		          "time of day (h)");
	cairo_set_line_width(cr, 1.6);
	for (size_t i = 0; i < f->n_runs; i++) {
		const struct sim_fleet_run *s = &f->runs[i];
		double bin_h = hours / (double)s->n_bins;
		plot_colour(cr, i);
		for (size_t k = 0; k < s->n_bins; k++) {
			double x =
			    b.x + ((double)k + 0.5) * bin_h / hours * b.w;
			double y = by(&b, values(s, gpus)[k]);
			if (k == 0)
				cairo_move_to(cr, x, y);
			else
				cairo_line_to(cr, x, y);
		}
		cairo_stroke(cr);
		if (gpus)
			continue;
		sim_fleet_run_label(s, buf, sizeof(buf));
		double ly = b.y + 8 + 18 * (double)i;
		cairo_rectangle(cr, b.x + b.w + 16, ly - 4, 14, 8);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		plot_text(cr, b.x + b.w + 36, ly, 0.0, 0.5, buf);
	}
}

/* Per placement three bars: served and refused (% of arrivals), below
 * SLA (% of served session-seconds). */
static void bars_panel(cairo_t *cr, const struct cli_report *r,
                       const struct box *b0)
{
	static const char *const what[] = {"served % of arrivals",
	                                   "refused % of arrivals",
	                                   "below SLA % of time"};
	static const double shade[][3] = {{0.173, 0.627, 0.173},
	                                  {0.498, 0.498, 0.498},
	                                  {0.839, 0.153, 0.157}};
	const struct sim_fleet_result *f = &r->runs[0].result.fleet_result;
	struct box b = *b0;
	b.ymax = 100.0;
	b.ystep = 25.0;
	frame(cr, &b, "%");
	double slot = b.w / (double)(f->n_runs ? f->n_runs : 1);
	double bw = slot * 0.8 / 3.0;
	char buf[48];
	for (size_t i = 0; i < f->n_runs; i++) {
		const struct sim_fleet_run *s = &f->runs[i];
		double n = s->arrivals ? (double)s->arrivals : 1.0;
		double v[3] = {100.0 * (double)s->served / n,
		               100.0 * (double)s->refused / n,
		               100.0 * s->below_share};
		for (int k = 0; k < 3; k++) {
			double x = b.x + slot * (double)i + slot * 0.1 + bw * k;
			cairo_set_source_rgb(cr, shade[k][0], shade[k][1],
			                     shade[k][2]);
			cairo_rectangle(cr, x, by(&b, v[k]), bw * 0.9,
			                b.y + b.h - by(&b, v[k]));
			cairo_fill(cr);
		}
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		sim_fleet_run_label(s, buf, sizeof(buf));
		cairo_set_font_size(cr, f->n_runs > 8 ? FONT - 3 : FONT);
		plot_text(cr, b.x + slot * ((double)i + 0.5), b.y + b.h + 6,
		          0.5, 0.0, buf);
		cairo_set_font_size(cr, FONT);
	}
	for (int k = 0; k < 3; k++) {
		double ly = b.y + 8 + 18 * k;
		cairo_set_source_rgb(cr, shade[k][0], shade[k][1], shade[k][2]);
		cairo_rectangle(cr, b.x + b.w + 16, ly - 4, 14, 8);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
		plot_text(cr, b.x + b.w + 36, ly, 0.0, 0.5, what[k]);
	}
}

void plot_fleet_render(cairo_t *cr, const struct cli_report *r, double width,
                       double height)
{
	const struct sim_result *res = &r->runs[0].result;
	char buf[160];
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	                       CAIRO_FONT_WEIGHT_NORMAL);
	double h = height - MT - MB - 2 * GAP;
	struct box top = {ML, MT, width - ML - MR, h * 0.34, 1, 1};
	struct box mid = {ML, MT + top.h + GAP / 2, top.w, h * 0.34, 1, 1};
	struct box bottom = {
	    ML, mid.y + mid.h + 1.5 * GAP, top.w, h - top.h - mid.h, 1, 1};
	double hours = res->duration_s / 3600.0;
	series_panel(cr, r, &top, hours, false);
	series_panel(cr, r, &mid, hours, true);
	bars_panel(cr, r, &bottom);
	snprintf(buf, sizeof(buf), "%s: %u GPUs, %llu arrivals, seed %llu",
	         r->sc->name, (unsigned)r->sc->fleet.gpus,
	         (unsigned long long)res->fleet_result.arrivals,
	         (unsigned long long)r->sc->seed);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_font_size(cr, FONT + 4);
	plot_text(cr, top.x + top.w / 2, MT / 2, 0.5, 0.5, buf);
}
