/* The games' Present phases, packed (harvest_phase.h). */
#include "core/harvest_phase.h"

#include <math.h>

#include "core/pacing.h"

static bool positive(double x)
{
	return x > 0.0 && isfinite(x);
}

/* How long game g is busy after each Present, out of its period: its
 * period less its mean wait, plus the k still draining in the wait when
 * its frames reach the GPU before it (the complement of its idle span,
 * harvest_slot.c). False when it has no Present, target, k or wait. */
static bool busy_span(const struct core_tenant *g, double *busy)
{
	if (!positive(g->present_s) || !positive(g->target_fps) ||
	    !positive(g->k) || g->frames == 0)
		return false;
	double period = 1.0 / g->target_fps;
	double wait = (g->sleep_s + g->gate_s) / (double)g->frames;
	if (!positive(wait) || wait > period)
		return false;
	*busy = fmin(period - wait + (g->work_after_wait ? 0.0 : g->k), period);
	return true;
}

/* t, moved by whole periods to the nearest occurrence of that phase to
 * ref. */
static double near(double t, double ref, double period)
{
	return t + round((ref - t) / period) * period;
}

/* Follower g's phase: `at`, or the one it was given before while `at`
 * stays within one of the shim's steps of it: the busy spans move a
 * little from tick to tick, and a grid that followed would move with
 * them. */
static double follow(struct core_tenant *g, double at, double period)
{
	double phase = at;
	if (g->phase_held_s > 0.0) {
		double held = near(g->phase_held_s, at, period);
		if (fabs(at - held) <= period / CORE_PACER_STEER_DIV)
			phase = held;
	}
	g->phase_held_s = phase;
	g->phase_s = phase;
	return phase;
}

size_t core_harvest_phase(const struct core_harvest_params *p,
                          struct core_tenant *games, size_t n, size_t n_slot_be,
                          double now_s)
{
	for (size_t i = 0; i < n; i++)
		games[i].phase_s = 0.0;
	size_t lead = n;
	double busy = 0.0;
	if (p->align && p->steer && n_slot_be > 0 && n >= 2) {
		lead = 0;
		while (lead < n && !busy_span(&games[lead], &busy))
			lead++;
	}
	if (lead < n) {
		double period = 1.0 / games[lead].target_fps;
		/* The leader's first Present after now (a late tick skips
		 * whole periods), as harvest_slot.c projects it. */
		double m =
		    floor((now_s - games[lead].present_s) / period) + 1.0;
		if (m < 1.0)
			m = 1.0;
		/* Each follower presents as the one before it finishes, a
		 * margin later: the common wait is the period less the busy
		 * spans. */
		double at =
		    games[lead].present_s + m * period + busy + p->margin_s;
		double fps = games[lead].target_fps;
		for (size_t i = lead + 1; i < n; i++) {
			struct core_tenant *g = &games[i];
			double b;
			/* a pinned rate is the user's grid (the shim never
			 * moves it); the leader's rate must not be under the
			 * game's SLA */
			if (g->fixed_fps > 0.0 || !busy_span(g, &b) ||
			    fps < g->sla_fps)
				continue;
			double pi = 1.0 / g->target_fps;
			if (fmax(pi, period) >
			    fmin(pi, period) * (1.0 + p->period_tolerance))
				continue;
			double phase = follow(g, at, period);
			at = phase + b + p->margin_s;
		}
	}
	/* a game given no phase this tick starts afresh next time */
	for (size_t i = 0; i < n; i++)
		if (!(games[i].phase_s > 0.0))
			games[i].phase_held_s = 0.0;
	return lead;
}
