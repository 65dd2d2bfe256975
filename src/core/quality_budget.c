/* The quality stage's budget (quality_budget.h). */
#include "core/quality_budget.h"

#include <math.h>

#include "core/reach.h"

/* An item's weight (dJay's Eq. 2 sums weight x cost): the rate it is
 * held to; 1 in paper mode, where costs are ms a frame. */
double core_quality_item_weight(const struct core_params *p,
                                const struct core_tenant *t)
{
	return p->quality_paper     ? 1.0
	       : t->fixed_fps > 0.0 ? t->fixed_fps
	                            : core_sla_ref(p, t);
}

/* The budget is a model of the GPU; a game that cannot reach its rate
 * (reach.h: limited) while the estimates say it fits proves the model too
 * generous there (contention the estimates miss: another process, the X
 * server, a paced frame's cold caches, a software rasterizer that one
 * game cannot spread over every core). Baton mode then puts a ceiling 3 %
 * under the total the levels cost that tick, so that the epoch step takes
 * a level down at once. Nothing is cut within CORE_QUALITY_SETTLE_S of a level
 * change or a join (the time new levels take to show in the rates), so
 * while games stay short the ceiling is cut again after it, never under
 * CEIL_FLOOR of the budget; while none is short it
 * rises CEIL_UP_S of the budget a second, and goes once it reaches the
 * budget. Only while the games' demand is near the budget (CEIL_BUSY of
 * it): a game short of its rate on an idle GPU is limited by itself (its
 * CPU), and lower levels elsewhere would not help it. */
#define CEIL_CUT   0.97
#define CEIL_UP_S  0.005
#define CEIL_FLOOR 0.3
#define CEIL_BUSY  0.7

static double base_budget(const struct core_params *p,
                          const struct core_gpu *gpu)
{
	double other = gpu->other_util > 0.0 ? gpu->other_util : 0.0;
	double b = p->util_target - other;
	return b > 0.0 ? b : 0.0;
}

void core_quality_learn_ceiling(const struct core_params *p,
                                struct core_gpu *gpu,
                                const struct core_tenant *t, size_t n)
{
	struct core_quality_gpu *g = &gpu->quality;
	double budget = base_budget(p, gpu);
	double now = g->ceiling > 0.0 ? fmin(g->ceiling, budget) : budget;
	bool busy = gpu->sla_util >= CEIL_BUSY * now;
	bool short_of_rate = false;
	for (size_t i = 0; i < n; i++)
		short_of_rate |= t[i].quality.joined && t[i].limited;
	if (g->settle_s > 0.0)
		g->settle_s -= p->epoch_s;
	if (short_of_rate && busy) {
		if (g->settle_s <= 0.0 && g->total_cost > 0.0) {
			g->ceiling = fmax(fmin(now, g->total_cost) * CEIL_CUT,
			                  CEIL_FLOOR * budget);
			g->settle_s = CORE_QUALITY_SETTLE_S;
		}
	} else if (g->ceiling > 0.0 && !short_of_rate) {
		g->ceiling += CEIL_UP_S * budget * p->epoch_s;
		if (g->ceiling >= budget)
			g->ceiling = 0.0;
	}
}

/* dJay's knapsack (Eq. 2: the sum over games of weight x cost at the
 * chosen levels within the budget) takes each cost as known. Measured,
 * each game's cost per frame moves (10-20 % on llvmpipe on a shared
 * machine, more when its scene or a neighbour's turns heavy), and the
 * games' moves add up: when several draw heavy frames at once, the total
 * is over the machine although the means fit, and every game's frames
 * run late together (each game's reach, measured while the others drew
 * their usual frames, says nothing of that). Baton mode keeps the
 * knapsack a chance constraint instead: the mean total plus
 * quality_spread_z standard deviations of the total within the budget
 * (z = 1.282: over it in one window in ten, were the total normal).
 *
 * The variance is measured, not assumed. Over a window of fps_smooth_s
 * (the horizon the rates are judged on), each game's GPU seconds less
 * what k counted for the same frames, over its frames, is its cost's
 * deviation from what the knapsack counted; weight x that, summed over
 * the games, is the total's. Its square is smoothed at the rate k learns
 * at (k_alpha an epoch, compounded over the window). Summing before
 * squaring counts the games' covariance: three games turning heavy
 * together weigh nine times one game's move, not three. A window, not an
 * epoch: at 10 FPS an epoch of 100 ms holds zero, one or two frames, and
 * a frame's CPU time falls on both sides of an epoch's edge; one epoch's
 * cost per frame is off by a good part of a frame where the window's
 * sums are off by a part of one frame in all. Epochs with frames after a
 * level change are left out while the step rule's are (their frames carry
 * the old level's cost). Steady costs keep no headroom: density is given
 * up only where the costs move. */
void core_quality_track_spread(const struct core_params *p,
                               struct core_gpu *gpu, struct core_tenant *t,
                               size_t n)
{
	struct core_quality_gpu *g = &gpu->quality;
	double a = p->k_alpha;
	if (!(p->quality_spread_z > 0.0) || !(a > 0.0) || !(a < 1.0)) {
		g->spread_var = 0.0;
		g->spread = 0.0;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct core_quality_tenant *q = &t[i].quality;
		double s = t[i].k_sample;
		if (!(s > 0.0) || !isfinite(s) || !(t[i].k > 0.0) ||
		    q->step_quiet > 0)
			continue;
		/* k already took this sample: k = k0 + a (s - k0) */
		double k0 = (t[i].k - a * s) / (1.0 - a);
		q->spread_over_s += (s - k0) * t[i].frames;
		q->spread_frames += t[i].frames;
	}
	double window = fmax(round(p->fps_smooth_s / p->epoch_s), 1.0);
	if (++g->spread_epochs < window)
		return;
	g->spread_epochs = 0;
	double dev = 0.0;
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		struct core_quality_tenant *q = &t[i].quality;
		if (q->spread_frames > 0) {
			dev += core_quality_item_weight(p, &t[i]) *
			       q->spread_over_s / q->spread_frames;
			any = true;
		}
		q->spread_over_s = 0.0;
		q->spread_frames = 0;
	}
	if (any)
		g->spread_var +=
		    (1.0 - pow(1.0 - a, window)) * (dev * dev - g->spread_var);
	g->spread = p->quality_spread_z * sqrt(g->spread_var);
}

struct quality_params core_quality_budget_for(const struct core_params *p,
                                              const struct core_gpu *gpu)
{
	struct quality_params qp = p->quality;
	if (!p->quality_paper) {
		qp.budget = base_budget(p, gpu);
		if (gpu->quality.ceiling > 0.0)
			qp.budget = fmin(qp.budget, gpu->quality.ceiling);
		qp.budget = fmax(qp.budget - gpu->quality.spread, 0.0);
	}
	return qp;
}
