#include "core/quality_stage.h"

#include <math.h>

#include "core/policy.h"
#include "core/quality_budget.h"
#include "core/reach.h"

/* The caller's workspace, carved: the items, their current levels in the
 * solver's numbering, where each came from (tenant index, level offset),
 * then the solver's own workspace. */
struct stage_ws {
	struct quality_item *items;
	unsigned *lv;
	unsigned *base;
	size_t *map;
	unsigned char *refused; /* its join was refused this tick */
	unsigned *saved_levels; /* damped_step's: n_levels while held */
	void *solver;
};

static size_t round16(size_t b)
{
	return (b + 15u) & ~(size_t)15u;
}

size_t core_quality_workspace_size(size_t n)
{
	return round16(n * sizeof(struct quality_item)) +
	       3 * round16(n * sizeof(unsigned)) + round16(n * sizeof(size_t)) +
	       round16(n) + quality_workspace_size(n) + 16;
}

static bool carve(struct core_quality_gpu *g, size_t n, struct stage_ws *w)
{
	if (!g->workspace || g->workspace_size < core_quality_workspace_size(n))
		return false;
	char *b = g->workspace;
	w->items = (struct quality_item *)(void *)b;
	b += round16(n * sizeof(struct quality_item));
	w->lv = (unsigned *)(void *)b;
	b += round16(n * sizeof(unsigned));
	w->base = (unsigned *)(void *)b;
	b += round16(n * sizeof(unsigned));
	w->map = (size_t *)(void *)b;
	b += round16(n * sizeof(size_t));
	w->refused = (unsigned char *)b;
	b += round16(n);
	w->saved_levels = (unsigned *)(void *)b;
	b += round16(n * sizeof(unsigned));
	w->solver = b;
	return true;
}

static bool has_estimates(const struct core_quality_tenant *q)
{
	if (q->n_levels < 2 || q->n_levels > QUALITY_MAX_LEVELS)
		return false;
	for (uint32_t l = 0; l < q->n_levels; l++)
		if (!(q->cost[l] > 0.0) || !isfinite(q->cost[l]) ||
		    !isfinite(q->benefit[l]))
			return false;
	return true;
}

/* The level it runs now: the stage's last, else the game's own. */
static uint32_t current_level(const struct core_quality_tenant *q)
{
	return q->chosen ? q->level : q->start_level;
}

/* The model's cost of a level on the frames drawn (the active counts),
 * or on the potential ones where the driver gave no active ones. */
static double drawn_cost(const struct core_quality_tenant *q, uint32_t l)
{
	double c = q->cost_active[l];
	return c > 0.0 && isfinite(c) ? c : q->cost[l];
}

/* The model's costs are in the profile's machine's seconds; k is this
 * machine's, measured at the level the game runs on the frames it drew.
 * Their ratio at that level calibrates every level's model cost of the
 * frames drawn (1 while nothing was measured). */
static double calibration(const struct core_tenant *t)
{
	const struct core_quality_tenant *q = &t->quality;
	uint32_t cur = current_level(q);
	if (cur >= q->n_levels || !(t->k > 0.0))
		return 1.0;
	return t->k / drawn_cost(q, cur);
}

/* dJay's potential list looks ahead (§5): the objects that may be drawn
 * soon. A potential list is a superset of what is drawn (arena's sees all
 * round), so its model cost is not the next frames' cost; what rises
 * ahead of a heavy area is the ratio of the potential list's model cost
 * to the drawn frames'. The estimate is the calibrated cost of the frames
 * drawn times that ratio over its usual value (a mean over POL_RATIO_S),
 * never under 1: a lighter potential list waits for the frames to show
 * it. */
#define POL_RATIO_S 5.0

static double pol_ratio(const struct core_quality_tenant *q, uint32_t l)
{
	double a = q->cost_active[l];
	return a > 0.0 && isfinite(a) ? q->cost[l] / a : 0.0;
}

static double look_ahead(const struct core_quality_tenant *q)
{
	uint32_t cur = current_level(q);
	if (cur >= q->n_levels || !(q->pol_smooth[cur] > 0.0))
		return 1.0;
	double r = pol_ratio(q, cur);
	return r > 0.0 ? fmax(r / q->pol_smooth[cur], 1.0) : 1.0;
}

/* The usual ratio, per level (after the tick has used it: a jump shows
 * whole in look_ahead). */
static void smooth_potential(const struct core_params *p,
                             struct core_quality_tenant *q)
{
	double a = 1.0 - exp(-p->epoch_s / POL_RATIO_S);
	for (uint32_t l = 0; l < q->n_levels; l++) {
		double r = pol_ratio(q, l);
		if (!(r > 0.0))
			continue;
		if (q->pol_smooth[l] > 0.0)
			q->pol_smooth[l] += a * (r - q->pol_smooth[l]);
		else
			q->pol_smooth[l] = r;
	}
}

/* The knapsack bounds the games' load, not how long one frame takes: on a
 * software rasterizer a game's frame spreads over the cores only in part
 * (llvmpipe's geometry runs on one thread), so a level that fits the
 * budget can still take nearly the whole period to draw, and then any
 * contention (another game's heavy frame, a level change elsewhere) makes
 * it late. A game whose level does fit sleeps in its pacer: its reach
 * (reach.h, the rate it could draw at) is over its held rate. At level l
 * it would reach reach x k / cost_l (k, its measured cost per frame at
 * the level it runs, calibrates cost_l; the look-ahead in cost_l lowers it
 * ahead of a heavy area). Baton mode offers a level only if that clears
 * the held rate by quality_reach_headroom (h), and a level above the one
 * it runs by 2h: the gap is the hysteresis that keeps a game from going
 * back up to the level it was just taken down from. The slow frames
 * count too (reach_low_fps, the slowest of the last few seconds): the
 * mean frame can clear 2h while one frame in ten misses its period, and
 * then each such frame is a second under the SLA. A level is kept only
 * while they would make the held rate there, and offered above the one
 * it runs only if they would clear it by h. Without a settled reach or
 * a k (a new game, a cap-bound one, whose reach is its cap's), any
 * level. */
static bool reaches(const struct core_params *p, const struct core_tenant *t,
                    const struct quality_item *it, unsigned l)
{
	double h = p->quality_reach_headroom;
	/* a game's first epochs: its reach is still settling */
	bool settled = (double)t->epochs * p->epoch_s >= 2.0 * p->fps_smooth_s;
	if (!(h > 0.0) || !settled || !(t->reach_fps > 0.0) || !(t->k > 0.0) ||
	    t->cap_bound || !(it->cost[l] > 0.0))
		return true;
	double scale = t->k / it->cost[l];
	bool above = l > current_level(&t->quality);
	if (t->reach_low_fps > 0.0 &&
	    t->reach_low_fps * scale < it->weight * (above ? 1.0 + h : 1.0))
		return false;
	return t->reach_fps * scale >=
	       it->weight * (1.0 + (above ? 2.0 : 1.0) * h);
}

/* One tenant as an item; false if it has nothing to count yet. */
static bool make_item(const struct core_params *p, const struct core_tenant *t,
                      struct quality_item *it, unsigned *base, unsigned *cur)
{
	const struct core_quality_tenant *q = &t->quality;
	double unit = p->quality_paper ? 1000.0 : 1.0; /* dJay counts ms */
	it->weight = core_quality_item_weight(p, t);
	bool levels = has_estimates(q);
	double scale = levels ? calibration(t) * look_ahead(q) : 1.0;
	if (levels && q->pinned > 0 && q->pinned <= q->n_levels) {
		*base = q->pinned - 1;
		it->n_levels = 1;
		it->cost[0] = drawn_cost(q, *base) * scale * unit;
		it->benefit[0] = q->benefit[*base];
	} else if (levels) {
		*base = 0;
		it->n_levels = q->n_levels;
		for (uint32_t l = 0; l < q->n_levels; l++) {
			it->cost[l] = drawn_cost(q, l) * scale * unit;
			it->benefit[l] = q->benefit[l];
		}
		/* A capped tenant's levels stop where its budget does:
		 * its gate would hold it under its SLA above that. */
		double cap = t->caps.budget;
		while (!p->quality_paper && cap > 0.0 && it->n_levels > 1 &&
		       it->weight * it->cost[it->n_levels - 1] > cap)
			it->n_levels--;
		while (!p->quality_paper && it->n_levels > 1 &&
		       !reaches(p, t, it, it->n_levels - 1))
			it->n_levels--;
	} else if (t->k > 0.0) {
		*base = current_level(q);
		it->n_levels = 1;
		it->cost[0] = t->k * unit;
		it->benefit[0] = 1.0; /* one choice: any constant will do */
	} else {
		return false;
	}
	/* No game takes more than the whole GPU at its rate, whatever
	 * counts its peer reports: an estimate past that says nothing. */
	for (unsigned l = 0; l < it->n_levels; l++)
		it->cost[l] = fmin(it->cost[l], unit / it->weight);
	uint32_t c = current_level(q);
	c = c > *base ? c - *base : 0;
	*cur = c < it->n_levels ? c : it->n_levels - 1;
	return true;
}

/* k follows a game's cost by an EWMA (controller.c, k_alpha 0.2 an epoch
 * with frames), so when the cost steps up (a heavier area, a heavier
 * scene) the estimate takes five such epochs to show 63 % of the step, and
 * with the knapsack packed to its budget every frame of that lag is over
 * it: at 8-9 FPS an epoch holds one frame, so the levels came down 0.3 to
 * 0.5 s after the frames had grown. An epoch's own cost varies by 10-20 %
 * on a shared machine, never for long by much more; one over k by
 * quality_step_ratio in quality_step_epochs epochs with frames in a row
 * is a step, and k takes the least of those epochs' costs at once (the
 * reach with it, as a level change rescales both), so this tick's
 * knapsack and reach rule see the new cost. The frames drawn just after a
 * level change still carry the old level's cost (a level reaches the game
 * at its next frame, a frame's cost reaches the driver with the next
 * one): after a change, STEP_QUIET_EPOCHS epochs with frames pass before
 * a step counts. Epochs without frames neither count nor break a run. */
#define STEP_QUIET_EPOCHS 2

static void follow_step(const struct core_params *p, struct core_tenant *t)
{
	struct core_quality_tenant *q = &t->quality;
	double s = t->k_sample;
	if (!(s > 0.0) || !isfinite(s))
		return;
	if (q->step_quiet > 0) {
		q->step_quiet--;
		q->step_run = 0;
		return;
	}
	if (!(p->quality_step_ratio > 0.0) || !(t->k > 0.0) ||
	    !(s > t->k * (1.0 + p->quality_step_ratio))) {
		q->step_run = 0;
		return;
	}
	q->step_min = q->step_run == 0 ? s : fmin(q->step_min, s);
	if (++q->step_run < p->quality_step_epochs)
		return;
	t->reach_fps *= t->k / q->step_min;
	t->reach_low_fps *= t->k / q->step_min;
	t->k = q->step_min;
	q->step_run = 0;
}

/* Items in w, joined tenants first (newcomers join against them one by
 * one, dJay §6.3). Returns the count; *first_new is where newcomers start. */
static size_t gather(const struct core_params *p, struct core_tenant *t,
                     size_t n, struct stage_ws *w, size_t *first_new)
{
	size_t m = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			*first_new = m;
		for (size_t i = 0; i < n; i++) {
			if (t[i].quality.joined != (pass == 0))
				continue;
			if (make_item(p, &t[i], &w->items[m], &w->base[m],
			              &w->lv[m])) {
				w->map[m] = i;
				m++;
			}
		}
	}
	return m;
}

static void swap_items(struct stage_ws *w, size_t a, size_t b)
{
	if (a == b)
		return;
	struct quality_item it = w->items[a];
	w->items[a] = w->items[b];
	w->items[b] = it;
	unsigned u = w->lv[a];
	w->lv[a] = w->lv[b];
	w->lv[b] = u;
	u = w->base[a];
	w->base[a] = w->base[b];
	w->base[b] = u;
	size_t i = w->map[a];
	w->map[a] = w->map[b];
	w->map[b] = i;
	unsigned char r = w->refused[a];
	w->refused[a] = w->refused[b];
	w->refused[b] = r;
}

/* Newcomers join one by one against those placed (dJay §6.3). A refused
 * one runs anyway, at its cheapest level, and asks again next tick. Its
 * cost is real load, so once it is measured (k) it stays in the knapsack
 * as a single choice of that measured cost (the others fit in what it
 * leaves, or everyone goes to the cheapest); its estimates are its own
 * unchecked claim, and never count for it, so that absurd counts from a
 * peer cannot drag the others down. Returns how many items are in the
 * knapsack ([0, in)); [in, m) are refused and out. *joins counts the
 * newcomers placed. */
static size_t join_newcomers(const struct core_params *p,
                             const struct quality_params *qp,
                             struct core_quality_gpu *g,
                             const struct core_tenant *t, struct stage_ws *w,
                             size_t first_new, size_t m, unsigned *joins)
{
	double unit = p->quality_paper ? 1000.0 : 1.0;
	size_t in = first_new;
	for (size_t j = first_new; j < m; j++) {
		swap_items(w, in, j);
		w->refused[in] = 0;
		switch (
		    quality_join(w->items, in + 1, in, qp, w->lv, w->solver)) {
		case QUALITY_JOIN_REASSIGNED:
			g->reassignments++;
			(*joins)++;
			in++;
			break;
		case QUALITY_JOIN_PLACED:
			(*joins)++;
			in++;
			break;
		case QUALITY_JOIN_REFUSED:
			w->refused[in] = 1;
			w->lv[in] = 0;
			if (t[w->map[in]].k > 0.0) {
				/* what it measurably costs, not what it
				 * claims its cheapest level would */
				struct quality_item *it = &w->items[in];
				it->n_levels = 1;
				it->cost[0] = fmin(t[w->map[in]].k * unit,
				                   unit / it->weight);
				in++;
			}
			break;
		}
	}
	return in;
}

#define FLAP_MAX 4 /* holds of up to 16 x quality_hold_s */

/* The levels chosen back into the tenants; k follows the level at once.
 * Items [in, m) are out of the knapsack. */
static void apply(const struct core_params *p, struct core_quality_gpu *g,
                  struct core_tenant *t, const struct stage_ws *w, size_t in,
                  size_t m, bool hold_downgrades)
{
	double unit = p->quality_paper ? 1000.0 : 1.0;
	g->changed = 0;
	g->total_benefit = 0.0;
	for (size_t s = 0; s < m; s++) {
		struct core_tenant *tn = &t[w->map[s]];
		struct core_quality_tenant *q = &tn->quality;
		uint32_t was = current_level(q);
		uint32_t now = w->base[s] + w->lv[s];
		if (has_estimates(q)) {
			if (now != was) {
				g->changed++;
				q->step_quiet = STEP_QUIET_EPOCHS;
				q->step_run = 0;
				if (tn->k > 0.0 && was < q->n_levels) {
					double r = drawn_cost(q, now) /
					           drawn_cost(q, was);
					tn->k *= r;
					/* and its reach with it */
					tn->reach_fps /= r;
					tn->reach_low_fps /= r;
				}
			}
			smooth_potential(p, q);
		}
		if (q->hold_s > 0.0)
			q->hold_s -= p->epoch_s;
		if (q->flap_s > 0.0) {
			q->flap_s -= p->epoch_s;
			if (q->flap_s <= 0.0 && q->flaps > 0)
				q->flaps--; /* the upgrade held */
		}
		/* Flapping: a step down that undoes a step up of the last
		 * quality_hold_s. Each level change is a risk to the SLA
		 * (the game's frame time and its neighbours' contention
		 * move), and one that is undone buys nothing: a game whose
		 * upgrades keep being undone waits twice as long each time
		 * (at most FLAP_MAX doublings). A join's reassignment is an
		 * optimum, not noise: it starts no hold. */
		if (q->chosen && now > was) {
			q->flap_s = p->quality_hold_s;
		} else if (q->chosen && now < was && q->flap_s > 0.0 &&
		           hold_downgrades) {
			q->hold_s = ldexp(p->quality_hold_s, (int)q->flaps);
			q->flap_s = 0.0;
			if (q->flaps < FLAP_MAX)
				q->flaps++;
		}
		bool refused = w->refused[s] != 0;
		if (refused && !q->refused)
			g->refusals++;
		q->refused = refused;
		q->joined = !refused;
		q->chosen = true;
		q->level = now;
		q->est_cost = w->items[s].cost[w->lv[s]] / unit;
		q->est_benefit = w->items[s].benefit[w->lv[s]];
		if (s < in)
			g->total_benefit += q->est_benefit;
	}
}

/* dJay's epoch step (§6.2) on measured costs that move 10-20 % from one
 * epoch to the next (llvmpipe, a shared machine): an upgrade into the
 * last few percent of the budget is undone by the next noisy epoch, and
 * the level flaps. Baton damps it (not in paper mode): upgrades fill the
 * budget less quality_headroom of it, and a game whose upgrade was undone
 * within quality_hold_s is held (offers no level above its own) for as
 * long. Over the budget, the step runs undamped. */
static void damped_step(const struct core_params *p,
                        const struct quality_params *qp,
                        const struct core_tenant *t, struct stage_ws *w,
                        size_t in)
{
	if (p->quality_paper) {
		quality_epoch_step(w->items, in, qp, w->lv, w->solver);
		return;
	}
	double total = quality_total_cost(w->items, in, w->lv);
	if (!quality_fits(qp, total)) {
		quality_epoch_step(w->items, in, qp, w->lv, w->solver);
		return;
	}
	struct quality_params up = *qp;
	up.budget = qp->budget * (1.0 - p->quality_headroom);
	if (!quality_fits(&up, total))
		return; /* within budget, in the headroom: stay */
	for (size_t s = 0; s < in; s++) {
		w->saved_levels[s] = 0;
		if (t[w->map[s]].quality.hold_s > 0.0) {
			w->saved_levels[s] = w->items[s].n_levels;
			w->items[s].n_levels = w->lv[s] + 1;
		}
	}
	quality_epoch_step(w->items, in, &up, w->lv, w->solver);
	for (size_t s = 0; s < in; s++)
		if (w->saved_levels[s])
			w->items[s].n_levels = w->saved_levels[s];
}

void core_quality_tick(const struct core_params *p, struct core_gpu *gpu,
                       struct core_tenant *t, size_t n)
{
	struct core_quality_gpu *g = &gpu->quality;
	if (!p->quality_on)
		return;
	struct stage_ws w;
	g->starved = !carve(g, n, &w);
	if (g->starved)
		return;
	if (!p->quality_paper) {
		core_quality_learn_ceiling(p, gpu, t, n);
		core_quality_track_spread(p, gpu, t, n);
		for (size_t i = 0; i < n; i++)
			follow_step(p, &t[i]);
	}
	struct quality_params qp = core_quality_budget_for(p, gpu);
	size_t first_new = 0;
	size_t m = gather(p, t, n, &w, &first_new);
	g->budget = qp.budget;
	g->verdict = QUALITY_ALARM_NONE;
	for (size_t s = 0; s < m; s++)
		w.refused[s] = 0;
	size_t in = m;
	unsigned joins = 0;
	if (first_new < m)
		in = join_newcomers(p, &qp, g, t, &w, first_new, m, &joins);
	if (joins == 0 && in > 0) {
		/* A join is the tick's event: the alarms and the epoch step
		 * see its result next tick. A refused game asking again is
		 * not one, or a game that never fits would freeze the
		 * others' levels. */
		double total = quality_total_cost(w.items, in, w.lv);
		g->verdict = quality_alarm_step(&g->alarm, &qp, total, NULL);
		if (g->verdict != QUALITY_ALARM_NONE) {
			quality_reassign(w.items, in, &qp, w.lv, w.solver);
			g->reassignments++;
		} else {
			damped_step(p, &qp, t, &w, in);
		}
	}
	g->items = (uint32_t)in;
	g->total_cost = quality_total_cost(w.items, in, w.lv);
	g->floor = 0.0;
	for (size_t s = 0; s < in; s++) {
		double c = w.items[s].cost[0];
		for (unsigned l = 1; l < w.items[s].n_levels; l++)
			c = fmin(c, w.items[s].cost[l]);
		g->floor += w.items[s].weight * c;
	}
	/* A join's reassignment is an optimum, not noise: no hold. */
	apply(p, g, t, &w, in, m, joins == 0);
	/* New levels take a moment to show in the rates: a game short of
	 * its rate meanwhile says nothing about the budget. */
	if (g->changed > 0 || joins > 0)
		g->settle_s = fmax(g->settle_s, CORE_QUALITY_SETTLE_S);
}

struct core_quality_admit core_quality_admit(const struct core_params *p,
                                             const struct core_gpu *gpu,
                                             double cost_s, double sla_fps)
{
	const struct core_quality_gpu *g = &gpu->quality;
	struct core_quality_admit a = {.floor = g->floor, .budget = g->budget};
	if (!(cost_s > 0.0) || !(sla_fps > 0.0) || !isfinite(cost_s) ||
	    !isfinite(sla_fps))
		return a;
	a.need = p->quality_paper ? cost_s * 1000.0
	                          : cost_s * sla_fps * (1.0 + p->sla_margin);
	double room = g->budget - g->floor;
	if (room <= 0.0 || !(a.need > 0.0))
		return a;
	double more = floor(room / a.need);
	/* Eq. 2 is strict in paper mode: a newcomer that exactly fills the
	 * budget does not fit. */
	if (p->quality.strict && more * a.need >= room)
		more -= 1.0;
	a.more = more > 1e6 ? 1000000u : more > 0.0 ? (uint32_t)more : 0u;
	a.fits = a.more > 0;
	return a;
}
