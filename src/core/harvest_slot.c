/* The span of the games' frame cycle left to best-effort work (see
 * harvest_slot.h). */
#include "core/harvest_slot.h"

#include <math.h>

static bool positive(double x)
{
	return x > 0.0 && isfinite(x);
}

bool core_harvest_cycle(const struct core_tenant *g, double now_s,
                        struct core_harvest_cycle *out)
{
	if (!positive(g->target_fps) || !positive(g->present_s) ||
	    !positive(g->k) || g->frames == 0)
		return false;
	double wait = (g->sleep_s + g->gate_s) / (double)g->frames;
	double period = 1.0 / g->target_fps;
	if (!positive(wait) || wait > period)
		return false;
	/* The first Present after now (the record arrives after Present, so
	 * the last one is in the past; a late tick skips whole periods). */
	double m = floor((now_s - g->present_s) / period) + 1.0;
	if (m < 1.0)
		m = 1.0;
	*out = (struct core_harvest_cycle){
	    .period_s = period,
	    .next_s = g->present_s + m * period,
	    .busy_s = fmin(period - wait + (g->work_after_wait ? 0.0 : g->k),
	                   period)};
	return true;
}

/* Game g's idle span before its next Present after now, or false. */
static bool idle_span(const struct core_harvest_params *p,
                      const struct core_tenant *g, double now_s, double *a,
                      double *b, double *period)
{
	struct core_harvest_cycle c;
	if (!core_harvest_cycle(g, now_s, &c))
		return false;
	*period = c.period_s;
	/* An OpenGL game's busy span holds its frame's work itself (the real
	 * swap renders it, after the wait), and busy_s is the epoch's mean:
	 * a frame whose swap runs long is still rendering when a span opened
	 * at the mean starts, and a sub-launch started on it made about 1 %
	 * of a light OpenGL game's frames 2-9 ms late (docs/benchmarks.md,
	 * "The slot's start"). The margin at its start too keeps them off. */
	*a = c.next_s - c.period_s + c.busy_s +
	     (g->work_after_wait ? p->margin_s : 0.0);
	*b = c.next_s - p->margin_s;
	return *b > *a;
}

bool core_harvest_slot(const struct core_harvest_params *p,
                       const struct core_tenant *games, size_t n, double now_s,
                       struct core_harvest_slot *out)
{
	*out = (struct core_harvest_slot){0};
	if (!p->align || n == 0)
		return false;
	double a, b, period;
	if (!idle_span(p, &games[0], now_s, &a, &b, &period))
		return false;
	double lo = period, hi = period;
	for (size_t i = 1; i < n; i++) {
		double ai, bi, pi;
		if (!idle_span(p, &games[i], now_s, &ai, &bi, &pi))
			return false;
		lo = fmin(lo, pi);
		hi = fmax(hi, pi);
		if (hi > lo * (1.0 + p->period_tolerance))
			return false;
		/* Cyclic intersection: of game i's spans one period apart,
		 * the one overlapping the common span most. */
		double shift = round((a - ai) / lo) * lo, best = 0.0;
		double na = a, nb = a;
		for (int s = -1; s <= 1; s++) {
			double ca = fmax(a, ai + shift + s * lo);
			double cb = fmin(b, bi + shift + s * lo);
			if (cb - ca > best) {
				best = cb - ca;
				na = ca;
				nb = cb;
			}
		}
		a = na;
		b = nb;
	}
	if (!(b - a >= p->slot_min_s))
		return false;
	*out = (struct core_harvest_slot){
	    .start_s = a, .len_s = b - a, .period_s = lo};
	return true;
}

double core_harvest_slot_window(const struct core_harvest_slot *s,
                                double window_s, double now_s, double *next_s)
{
	*next_s = now_s;
	if (!positive(s->len_s) || !positive(s->period_s) || !(window_s > 0.0))
		return window_s > 0.0 ? window_s : 0.0;
	/* A caller woken at an occurrence's start may read a clock a hair
	 * before it (its wake was rounded): that is the occurrence. */
	double m = floor((now_s - s->start_s) / s->period_s + 1e-6);
	double start = s->start_s + m * s->period_s;
	double left = start + s->len_s - now_s;
	double need = 0.5 * fmin(window_s, s->len_s);
	if (left >= need)
		return fmin(window_s, left);
	*next_s = start + s->period_s;
	return 0.0;
}

double core_harvest_slot_piece(const struct core_harvest_slot *s, double max_s)
{
	if (!positive(s->len_s) || !positive(max_s))
		return max_s;
	/* 1e-9: a slot of exactly n pieces is n, not n + 1, in floating
	 * point */
	double n = ceil(s->len_s / max_s - 1e-9);
	return s->len_s / fmax(n, 1.0);
}

double core_harvest_slot_rest(const struct core_harvest_slot *s, double budget,
                              double rest_s)
{
	if (!(rest_s > 0.0) || !positive(s->len_s) || !positive(s->period_s) ||
	    !(budget > 0.0))
		return rest_s;
	/* The duty cycle the rest enforces (t / (t + rest) <= budget) is
	 * already at most len / period while every sub-launch starts in the
	 * slot. */
	return s->len_s / s->period_s <= budget ? 0.0 : rest_s;
}
