/* `baton sim --plot` for a combo scenario: the SM allocation over time,
 * one panel per scheme run (sim_combo.h's timeline). Each frame is a step:
 * the render group's SMs (Eq. 5's split under the integrated scheme, the
 * whole GPU, shared in time, otherwise) stacked under the SMs BE kernels may
 * be launched onto, out of SM_total; the SMs BE kernels actually held,
 * averaged over the frame, as a line; the integrated scheme's stretches
 * shaded; frames that held BE launches (the safe switch) ticked at the top;
 * and the frame's render time on its SMs against the QoS (1/fps) on a
 * second axis. */
#include <math.h>
#include <stdio.h>

#include "cli/plot.h"
#include "cli/plot_draw.h"
#include "sim/combo/sim_combo.h"

#define WIDTH    1000.0
#define PANEL_H  170.0
#define MARGIN_L 72.0
#define MARGIN_R 270.0 /* the right axis and the legend */
#define MARGIN_T 48.0
#define MARGIN_B 52.0
#define GAP      30.0
#define HEADROOM 1.2 /* the SM axis runs to this x SM_total */

struct combo_plot {
	const struct cli_report *r;
	const struct sim_combo_result *c;
	double duration, warmup;
};

static double height(size_t panels)
{
	return MARGIN_T + (double)panels * (PANEL_H + GAP) - GAP + MARGIN_B;
}

/* Where sample i's step ends: the next kept frame, or the run's end. */
static double step_end(const struct sim_combo_timeline *tl, size_t i,
                       double end)
{
	return i + 1 < tl->n ? tl->v[i + 1].t_s : end;
}

static void rect(cairo_t *cr, const struct plot_panel *p, double t0, double t1,
                 double y0, double y1)
{
	double x0 = plot_px(p, t0), x1 = plot_px(p, t1);
	cairo_rectangle(cr, x0, plot_py(p, y1), x1 - x0,
	                plot_py(p, y0) - plot_py(p, y1));
}

/* The integrated stretches, full height under the opaque areas: they show
 * above SM_total and where held SMs stay idle. */
static void shade_integrated(cairo_t *cr, const struct plot_panel *p,
                             const struct sim_combo_timeline *tl, double end)
{
	cairo_set_source_rgb(cr, 1.0, 0.85, 0.45);
	for (size_t i = 0; i < tl->n; i++) {
		size_t j = i;
		while (j < tl->n && tl->v[j].scheme == SIM_COMBO_INTEGRATED)
			j++;
		if (j > i) {
			rect(cr, p, tl->v[i].t_s, step_end(tl, j - 1, end),
			     p->ymin, p->ymax);
			i = j - 1;
		}
	}
	cairo_fill(cr);
}

/* The render group from 0 and the BE group on top of it (integrated frames
 * only: elsewhere BE shares the render's SMs in time), runs of equal values
 * merged. */
static void stacked(cairo_t *cr, const struct plot_panel *p,
                    const struct sim_combo_timeline *tl, double end, bool be)
{
	for (size_t i = 0; i < tl->n;) {
		const struct sim_combo_sample *a = &tl->v[i];
		double lo = be ? a->split : 0.0;
		double hi = be ? (a->scheme == SIM_COMBO_INTEGRATED
		                      ? (double)a->split + a->be_sms
		                      : lo)
		               : a->split;
		size_t j = i + 1;
		while (j < tl->n && tl->v[j].split == a->split &&
		       tl->v[j].be_sms == a->be_sms &&
		       tl->v[j].scheme == a->scheme)
			j++;
		if (hi > lo)
			rect(cr, p, a->t_s, step_end(tl, j - 1, end), lo, hi);
		i = j;
	}
	if (be)
		cairo_set_source_rgb(cr, 1.0, 0.70, 0.42);
	else
		cairo_set_source_rgb(cr, 0.62, 0.76, 0.88);
	cairo_fill(cr);
}

/* BE's busy SMs as steps; the render time (ms, on q) as a line. */
static void lines(cairo_t *cr, const struct plot_panel *p,
                  const struct plot_panel *q,
                  const struct sim_combo_timeline *tl, double end)
{
	cairo_save(cr);
	cairo_rectangle(cr, p->x, p->y, p->w, p->h);
	cairo_clip(cr);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	for (size_t i = 0; i < tl->n; i++) {
		double y = plot_py(p, tl->v[i].be_busy);
		if (i == 0)
			cairo_move_to(cr, plot_px(p, tl->v[i].t_s), y);
		else
			cairo_line_to(cr, plot_px(p, tl->v[i].t_s), y);
		cairo_line_to(cr, plot_px(p, step_end(tl, i, end)), y);
	}
	cairo_set_source_rgb(cr, 0.173, 0.627, 0.173);
	cairo_set_line_width(cr, 1.4);
	cairo_stroke(cr);
	bool first = true;
	for (size_t i = 0; i < tl->n; i++) {
		const struct sim_combo_sample *s = &tl->v[i];
		if (!(s->render_s > 0.0))
			continue;
		double x = plot_px(q, s->t_s);
		double y = plot_py(q, s->render_s * 1e3);
		if (first)
			cairo_move_to(cr, x, y);
		else
			cairo_line_to(cr, x, y);
		first = false;
	}
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	cairo_set_line_width(cr, 1.0);
	cairo_stroke(cr);
	cairo_set_source_rgb(cr, 0.839, 0.153, 0.157);
	plot_hline_dashed(cr, q, tl->period_s * 1e3);
	/* Held frames: a tick down from the top edge. */
	for (size_t i = 0; i < tl->n; i++) {
		if (!tl->v[i].held)
			continue;
		double x = plot_px(p, tl->v[i].t_s);
		cairo_move_to(cr, x, p->y);
		cairo_line_to(cr, x, p->y + 8);
	}
	cairo_set_line_width(cr, 1.2);
	cairo_stroke(cr);
	cairo_restore(cr);
}

/* The render-time axis along the right edge. */
static void right_axis(cairo_t *cr, const struct plot_panel *q)
{
	char buf[32];

	cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
	cairo_set_line_width(cr, 1.0);
	cairo_set_font_size(cr, PLOT_FONT);
	for (double v = 0.0; v <= q->ymax + q->ystep * 1e-6; v += q->ystep) {
		double y = plot_py(q, v);
		cairo_move_to(cr, q->x + q->w, y);
		cairo_line_to(cr, q->x + q->w + 5, y);
		cairo_stroke(cr);
		snprintf(buf, sizeof(buf), "%g", v);
		plot_text(cr, q->x + q->w + 8, y, 0.0, 0.5, buf);
	}
	cairo_save(cr);
	cairo_translate(cr, q->x + q->w + 40, q->y + q->h / 2);
	cairo_rotate(cr, M_PI / 2);
	plot_text(cr, 0, 0, 0.5, 0.5, "render time (ms)");
	cairo_restore(cr);
}

static double render_max_ms(const struct sim_combo_timeline *tl)
{
	double m = tl->period_s;
	for (size_t i = 0; i < tl->n; i++)
		m = fmax(m, tl->v[i].render_s);
	return m * 1e3;
}

static void panel(cairo_t *cr, const struct combo_plot *cp, size_t k,
                  struct plot_legend *l)
{
	const struct sim_combo_run *run = &cp->c->runs[k];
	const struct sim_combo_timeline *tl = &run->timeline;
	double total = tl->sm_total > 0 ? (double)tl->sm_total : 1.0;
	struct plot_panel p = {
	    .x = MARGIN_L,
	    .y = MARGIN_T + (double)k * (PANEL_H + GAP),
	    .w = WIDTH - MARGIN_L - MARGIN_R,
	    .h = PANEL_H,
	    .xmax = cp->duration,
	    .ymax = total * HEADROOM,
	    .xstep = plot_nice_step(cp->duration, 10),
	    .ystep = plot_nice_step(total, 4),
	};
	struct plot_panel q = p;
	/* The render time's axis well above its top, so that the QoS line
	 * stays clear of SM_total's. */
	double rt_max = render_max_ms(tl) * 1.6;
	q.ystep = plot_nice_step(rt_max, 4);
	q.ymax = ceil(rt_max / q.ystep) * q.ystep;

	shade_integrated(cr, &p, tl, cp->duration);
	stacked(cr, &p, tl, cp->duration, false);
	stacked(cr, &p, tl, cp->duration, true);
	if (cp->warmup > 0.0) {
		/* Translucent: the areas stay readable under it. */
		cairo_set_source_rgba(cr, 0.0, 0.0, 0.0, 0.10);
		rect(cr, &p, 0.0, fmin(cp->warmup, cp->duration), p.ymin,
		     p.ymax);
		cairo_fill(cr);
		plot_warmup_label(cr, &p, 0.35);
	}
	plot_axes(cr, &p, "SMs", k + 1 == cp->c->n_runs);
	cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
	plot_hline_dashed(cr, &p, total);
	lines(cr, &p, &q, tl, cp->duration);
	right_axis(cr, &q);

	char buf[160];
	snprintf(buf, sizeof(buf),
	         "%s: %.3f BE kernels/frame, %.1f %% integrated, %.2f %% "
	         "late",
	         sim_combo_scheme_name(run->scheme), run->kernels_per_frame,
	         run->integrated_pct, run->late_pct);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	cairo_set_font_size(cr, PLOT_FONT);
	plot_text(cr, p.x + 4, p.y - 4, 0.0, 1.0, buf);
	if (k > 0)
		return;
	cairo_set_source_rgb(cr, 0.62, 0.76, 0.88);
	plot_legend_swatch(cr, l, "render group (SMs)");
	cairo_set_source_rgb(cr, 1.0, 0.70, 0.42);
	plot_legend_swatch(cr, l, "BE group (SMs)");
	cairo_set_source_rgb(cr, 1.0, 0.85, 0.45);
	plot_legend_swatch(cr, l, "integrated scheme");
	cairo_set_source_rgb(cr, 0.173, 0.627, 0.173);
	plot_legend_entry(cr, l, "BE SMs busy (mean)", false);
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	plot_legend_entry(cr, l, "render time (right)", false);
	cairo_set_source_rgb(cr, 0.839, 0.153, 0.157);
	snprintf(buf, sizeof(buf), "QoS %.1f ms (right)", tl->period_s * 1e3);
	plot_legend_entry(cr, l, buf, true);
	cairo_set_source_rgb(cr, 0.839, 0.153, 0.157);
	plot_legend_entry(cr, l, "tick: BE launches held", false);
	cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
	snprintf(buf, sizeof(buf), "SM total %u", tl->sm_total);
	plot_legend_entry(cr, l, buf, true);
}

static void draw(cairo_t *cr, const void *arg)
{
	const struct combo_plot *cp = arg;
	char buf[200];

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	                       CAIRO_FONT_WEIGHT_NORMAL);
	struct plot_legend l = {.x = WIDTH - MARGIN_R + 62, .y = MARGIN_T + 8};
	uint64_t stride = 1;
	for (size_t k = 0; k < cp->c->n_runs; k++) {
		panel(cr, cp, k, &l);
		if (cp->c->runs[k].timeline.stride > stride)
			stride = cp->c->runs[k].timeline.stride;
	}
	plot_legend_end(cr, &l);
	double bottom = height(cp->c->n_runs) - MARGIN_B;
	cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
	cairo_set_font_size(cr, PLOT_FONT);
	plot_text(cr, MARGIN_L + (WIDTH - MARGIN_L - MARGIN_R) / 2, bottom + 26,
	          0.5, 0.0, "time (s)");
	int n =
	    snprintf(buf, sizeof(buf), "%s: SM allocation per frame, seed %llu",
	             cp->r->sc->name, (unsigned long long)cp->r->sc->seed);
	if (stride > 1 && n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n,
		         " (1 frame in %llu drawn)",
		         (unsigned long long)stride);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_font_size(cr, PLOT_FONT + 4);
	plot_text(cr, WIDTH / 2, MARGIN_T / 2 - 6, 0.5, 0.5, buf);
}

bool plot_combo_write(const char *path, const struct cli_report *r,
                      char *errbuf, size_t len)
{
	const struct sim_result *res = &r->runs[0].result;
	struct combo_plot cp = {
	    .r = r,
	    .c = &res->combo_result,
	    .duration =
	        res->duration_s > 0 ? res->duration_s : r->sc->duration_s,
	    .warmup = res->warmup_s,
	};
	if (cp.c->n_runs == 0) {
		snprintf(errbuf, len, "no scheme ran: nothing to plot");
		return false;
	}
	return plot_render_file(path, WIDTH, height(cp.c->n_runs), draw, &cp,
	                        errbuf, len);
}
