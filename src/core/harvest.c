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
	    .cost_grace_ticks = 20, /* 2 s at batond's 100 ms epoch */
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

/* The rate a game's frames come at: the rate it showed (the larger of the
 * last epoch's and the smoothed one, so a game speeding up counts at once),
 * never above its pacing target; without a measured rate its target, else
 * its SLA; 0 if none is known. A target or an SLA the game does not reach
 * says nothing about when its frames come: a game asking for 1000 FPS and
 * presenting 5 has frames 200 ms apart. */
static double game_rate(const struct core_tenant *t)
{
	double seen = positive(t->fps) ? t->fps : 0.0;
	if (positive(t->fps_smooth) && t->fps_smooth > seen)
		seen = t->fps_smooth;
	double paced = positive(t->target_fps) ? t->target_fps : 0.0;
	if (seen > 0.0)
		return paced > 0.0 && paced < seen ? paced : seen;
	if (paced > 0.0)
		return paced;
	return positive(t->sla_fps) ? t->sla_fps : 0.0;
}

/* Whether a game counts in the window and the budget. A game whose GPU
 * cost is still unknown counts (it closes the window: nothing can be
 * promised about a frame of unknown cost) for cost_grace_ticks after it
 * registered; a shim reports GPU times from its first frames, so a game
 * that has none by then does not report them, and closing every
 * best-effort window on the GPU for as long as it runs would let any
 * tenant shut them at will. It is left out: a sub-launch may then delay
 * its frames by at most one window. */
static bool game_counts(const struct core_harvest_params *p,
                        const struct core_tenant *t)
{
	return positive(t->k) || t->epochs <= p->cost_grace_ticks;
}

/* Eq. 1 over the games that count, and which game holds the window
 * shut when it is: one of unknown cost, else the one with the shortest
 * period (the games' GPU time leaves nothing of it). */
static double eq1_held(const struct core_harvest_params *p,
                       const struct core_tenant *games, size_t n,
                       struct core_harvest_hold *hold)
{
	/* Eq. 1 (Sec. 3): t <= 1/F - H. With several games, the frame of
	 * the one with the shortest period may queue behind one sub-launch
	 * and behind every other game's frame (non-preemptive GPU, FIFO), so
	 * all their H count against the shortest period. */
	double period = INFINITY, h = 0.0;
	size_t shortest = 0, counted = 0;
	for (size_t i = 0; i < n; i++) {
		if (!game_counts(p, &games[i]))
			continue;
		double f = game_rate(&games[i]);
		if (!positive(games[i].k) || !(f > 0.0)) {
			*hold = (struct core_harvest_hold){
			    .reason = CORE_HARVEST_HOLD_COST, .game = i};
			return 0.0;
		}
		counted++;
		if (1.0 / f < period) {
			period = 1.0 / f;
			shortest = i;
		}
		h += games[i].k;
	}
	if (counted == 0)
		return -1.0; /* no game to protect: as with none */
	double w = period - h - p->margin_s;
	if (w > 0.0)
		return w;
	*hold = (struct core_harvest_hold){.reason = CORE_HARVEST_HOLD_PERIOD,
	                                   .game = shortest,
	                                   .period_s = period,
	                                   .games_gpu_s = h};
	return 0.0;
}

double core_harvest_eq1(const struct core_harvest_params *p,
                        const struct core_tenant *games, size_t n)
{
	struct core_harvest_hold hold = {0};
	return eq1_held(p, games, n, &hold);
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

/* The games' GPU seconds per second (sum k_i F_i over those that count)
 * into hg, with the game of the largest share. */
static size_t games_load(const struct core_harvest_params *p,
                         const struct core_tenant *games, size_t n,
                         struct core_harvest_gpu *hg)
{
	size_t largest = 0;
	double most = -1.0;
	hg->games_util = 0.0;
	hg->games_quiet = true;
	for (size_t i = 0; i < n; i++) {
		if (games[i].frames > 0)
			hg->games_quiet = false;
		if (!positive(games[i].k) || !game_counts(p, &games[i]))
			continue;
		double share = games[i].k * game_rate(&games[i]);
		hg->games_util += share;
		if (share > most) {
			most = share;
			largest = i;
		}
	}
	return largest;
}

void core_harvest_tick(const struct core_harvest_params *p,
                       const struct core_tenant *games, size_t n_games,
                       double other_util, struct core_harvest_gpu *hg,
                       struct core_be_tenant *be, size_t n_be)
{
	size_t largest = games_load(p, games, n_games, hg);
	double other = positive(other_util) ? other_util : 0.0;
	hg->free_util = 1.0 - hg->games_util - other - p->util_margin;
	if (!(hg->free_util > 0.0))
		hg->free_util = 0.0;
	hg->hold = (struct core_harvest_hold){0};
	hg->eq1_s = eq1_held(p, games, n_games, &hg->hold);
	/* No budget for best-effort work: the game of the largest share
	 * holds it (unless a game already holds the window). */
	if (!(hg->free_util > 0.0) && hg->hold.reason == CORE_HARVEST_OPEN)
		hg->hold = (struct core_harvest_hold){
		    .reason = hg->games_util > 0.0 &&
		                      1.0 - other - p->util_margin > 0.0
		                  ? CORE_HARVEST_HOLD_LOAD
		                  : CORE_HARVEST_HOLD_OTHER,
		    .game = largest};
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
