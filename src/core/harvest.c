/* Time harvesting: window, budget and mode per GPU (see harvest.h). */
#include "core/harvest.h"

#include <math.h>

#include "core/harvest_stuck.h"

/* COMBO's constants (combo.h) for a tick-sized frame: off (no units to
 * divide) until the caller says how many the device has; W 8 ticks and a
 * 1 s hold, since a tick is far longer than a frame and llvmpipe's CPU
 * time swings more than a GPU's. */
static struct core_combo_params space_default(void)
{
	struct core_combo_params c = core_combo_params_default();
	c.sm_total = 0;
	c.window = 8;
	c.hold_s = 1.0;
	return c;
}

struct core_harvest_params core_harvest_params_default(void)
{
	return (struct core_harvest_params){
	    .margin_s = 0.001,
	    .util_margin = 0.05,
	    .periodical_s = 0.0,
	    .continuous_s = 0.017, /* the paper's N2 subtask, Sec. 4 */
	    .rest_s = 0.0,
	    .enter_quiet = 3, /* Algorithm 1: "count < 3" */
	    .align = true,
	    .steer = true,
	    .slot_min_s = 0.002,
	    .period_tolerance = 0.02,
	    .stuck_factor = 2.0,
	    .stuck_slack_s = 0.05,
	    .space = space_default(),
	    .space_earn = 0.25,
	    .space_earn_s = 1.0,
	    .space_holdoff_s = 30.0,
	};
}

static bool positive(double x)
{
	return x > 0.0 && isfinite(x);
}

/* The rate a game's frames come at: its pacing target, else what it
 * showed, else its SLA; 0 if none is known. */
static double game_rate(const struct core_tenant *t)
{
	if (positive(t->target_fps))
		return t->target_fps;
	if (positive(t->fps))
		return t->fps;
	return positive(t->sla_fps) ? t->sla_fps : 0.0;
}

double core_harvest_eq1(const struct core_harvest_params *p,
                        const struct core_tenant *games, size_t n)
{
	if (n == 0)
		return -1.0;
	/* Eq. 1 (Sec. 3): t <= 1/F - H. With several games, the frame of
	 * the one with the shortest period may queue behind one sub-launch
	 * and behind every other game's frame (non-preemptive GPU, FIFO), so
	 * all their H count against the shortest period. */
	double period = INFINITY, h = 0.0;
	for (size_t i = 0; i < n; i++) {
		double f = game_rate(&games[i]);
		if (!positive(games[i].k) || !(f > 0.0))
			return 0.0;
		if (1.0 / f < period)
			period = 1.0 / f;
		h += games[i].k;
	}
	double w = period - h - p->margin_s;
	return w > 0.0 ? w : 0.0;
}

/* Splits free among the BE tenants by weight, none above its cap; what a
 * cap leaves is split again among the others (water filling). */
static void split_budget(double free, struct core_be_tenant *be, size_t n)
{
	for (size_t i = 0; i < n; i++)
		be[i].budget = -1.0; /* not fixed yet */
	double left = free;
	for (;;) {
		double w = 0.0;
		for (size_t i = 0; i < n; i++)
			if (be[i].budget < 0.0)
				w += be[i].weight > 0.0 ? be[i].weight : 1.0;
		if (!(w > 0.0))
			return;
		bool capped = false;
		for (size_t i = 0; i < n; i++) {
			if (be[i].budget >= 0.0)
				continue;
			double wi = be[i].weight > 0.0 ? be[i].weight : 1.0;
			double share = left * wi / w;
			if (positive(be[i].cap) && share > be[i].cap) {
				be[i].budget = be[i].cap;
				capped = true;
			}
		}
		if (capped) {
			/* Recompute what is left after the newly capped. */
			left = free;
			for (size_t i = 0; i < n; i++)
				if (be[i].budget >= 0.0)
					left -= be[i].budget;
			if (left < 0.0)
				left = 0.0;
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			if (be[i].budget >= 0.0)
				continue;
			double wi = be[i].weight > 0.0 ? be[i].weight : 1.0;
			be[i].budget = left * wi / w;
		}
		return;
	}
}

void core_harvest_tick(const struct core_harvest_params *p,
                       const struct core_tenant *games, size_t n_games,
                       double other_util, struct core_harvest_gpu *hg,
                       struct core_be_tenant *be, size_t n_be)
{
	hg->games_util = 0.0;
	hg->games_quiet = true;
	for (size_t i = 0; i < n_games; i++) {
		if (games[i].frames > 0)
			hg->games_quiet = false;
		if (positive(games[i].k))
			hg->games_util += games[i].k * game_rate(&games[i]);
	}
	double other = positive(other_util) ? other_util : 0.0;
	hg->free_util = 1.0 - hg->games_util - other - p->util_margin;
	if (!(hg->free_util > 0.0))
		hg->free_util = 0.0;
	hg->eq1_s = core_harvest_eq1(p, games, n_games);
	hg->weights = 0.0;
	for (size_t i = 0; i < n_be; i++)
		hg->weights += be[i].weight > 0.0 ? be[i].weight : 1.0;

	split_budget(hg->free_util, be, n_be);
	for (size_t i = 0; i < n_be; i++) {
		if (!be[i].probe)
			core_harvest_observe(p, &be[i], hg->games_quiet);
		be[i].window_s = core_harvest_window(p, hg, &be[i]);
	}
	core_harvest_stuck(p, hg, be, n_be);
}

enum core_harvest_mode core_harvest_observe(const struct core_harvest_params *p,
                                            struct core_be_tenant *be,
                                            bool quiet)
{
	/* Algorithm 1, corrected (notes Sec. 2, defects 3 and 4): count
	 * saturates at K; K quiet in a row enter continuous mode, one busy
	 * leaves it. False negatives are accepted, false positives not. */
	uint32_t k = p->enter_quiet > 0 ? p->enter_quiet : 1;
	if (!quiet)
		be->quiet = 0;
	else if (be->quiet < k)
		be->quiet++;
	be->mode =
	    be->quiet >= k ? CORE_HARVEST_CONTINUOUS : CORE_HARVEST_PERIODICAL;
	return be->mode;
}

double core_harvest_window(const struct core_harvest_params *p,
                           const struct core_harvest_gpu *hg,
                           const struct core_be_tenant *be)
{
	if (!(be->budget > 0.0))
		return 0.0;
	double w;
	if (be->mode == CORE_HARVEST_CONTINUOUS) {
		w = p->continuous_s;
	} else {
		w = hg->eq1_s;
		if (positive(p->periodical_s) &&
		    (w < 0.0 || p->periodical_s < w))
			w = p->periodical_s;
		if (w < 0.0)
			w = p->continuous_s; /* no game, no periodical cap */
	}
	/* Several BE tenants' sub-launches may queue back to back ahead of
	 * one frame: their windows add up to the GPU's. */
	double wi = be->weight > 0.0 ? be->weight : 1.0;
	if (hg->weights > wi)
		w *= wi / hg->weights;
	return w > 0.0 ? w : 0.0;
}

double core_harvest_rest(const struct core_harvest_params *p,
                         const struct core_be_tenant *be, double t_s)
{
	double b = be->budget;
	if (!(b > 0.0))
		return -1.0;
	double t = t_s > 0.0 ? t_s : 0.0;
	/* Duty cycle t / (t + rest) <= b. */
	double rest = b < 1.0 ? t * (1.0 - b) / b : 0.0;
	if (be->mode == CORE_HARVEST_PERIODICAL && rest < p->rest_s)
		rest = p->rest_s;
	return rest;
}
