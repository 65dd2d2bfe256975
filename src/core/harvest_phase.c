/* The games' Present phases, packed (harvest_phase.h). */
#include "core/harvest_phase.h"

#include <math.h>

#include "core/harvest_slot.h"
#include "core/pacing.h"

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
	struct core_harvest_cycle lc;
	if (p->align && p->steer && n_slot_be > 0 && n >= 2) {
		lead = 0;
		while (lead < n &&
		       !core_harvest_cycle(&games[lead], now_s, &lc))
			lead++;
	}
	if (lead < n) {
		double period = lc.period_s, fps = games[lead].target_fps;
		/* Each follower presents as the one before it finishes, a
		 * margin later, from the leader's next Present on: the common
		 * wait is the period less the busy spans. */
		double at = lc.next_s + lc.busy_s + p->margin_s;
		for (size_t i = lead + 1; i < n; i++) {
			struct core_tenant *g = &games[i];
			struct core_harvest_cycle c;
			/* a pinned rate is the user's grid (the shim never
			 * moves it); the leader's rate must not be under the
			 * game's SLA */
			if (g->fixed_fps > 0.0 || fps < g->sla_fps ||
			    !core_harvest_cycle(g, now_s, &c))
				continue;
			if (fmax(c.period_s, period) >
			    fmin(c.period_s, period) *
			        (1.0 + p->period_tolerance))
				continue;
			at = follow(g, at, period) + c.busy_s + p->margin_s;
		}
	}
	/* a game given no phase this tick starts afresh next time */
	for (size_t i = 0; i < n; i++)
		if (!(games[i].phase_s > 0.0))
			games[i].phase_held_s = 0.0;
	return lead;
}
