/* Space harvesting at the control tick (harvest_space.h). */
#include "core/harvest_space.h"

#include <math.h>

/* No partition: the games and best-effort work both see every unit. */
static void join(struct core_space_gpu *s)
{
	s->split = 0;
	s->be_first = 0;
	s->be_count = 0;
}

/* Whether Eq. 5 gives every load of the window, and u, the same group,
 * smaller than the device. */
static bool one_group(const struct core_combo_params *p,
                      const struct core_combo_game *g, double u)
{
	double lo = u, hi = u;
	for (uint32_t i = 0; i < g->n_rt && i < CORE_COMBO_MAX_WINDOW; i++) {
		lo = fmin(lo, g->rt[i]);
		hi = fmax(hi, g->rt[i]);
	}
	uint32_t split = core_combo_split(p, 1.0, hi);
	return split < p->sm_total && core_combo_split(p, 1.0, lo) == split;
}

/* No partition, and the next division waits a full hold again. */
static void start_over(struct core_space_gpu *s)
{
	if (s->load.started && s->load.scheme == CORE_COMBO_INTEGRATED)
		s->switches++;
	s->load.scheme = CORE_COMBO_RELAXED;
	s->load.split = 0;
	s->load.stable_s = 0.0;
	s->scheme = CORE_COMBO_RELAXED;
	s->spread = 0.0;
	join(s);
}

static double positive_or_zero(double x)
{
	return x > 0.0 && isfinite(x) ? x : 0.0;
}

/* The measured best-effort use, smoothed, and whether it earns the
 * partition Eq. 5 would make of u: space_earn of the units it would give
 * best-effort work. */
static bool earn(const struct core_harvest_params *p, struct core_space_gpu *s,
                 const struct core_space_in *in)
{
	double dt = positive_or_zero(in->dt_s);
	double a =
	    p->space_earn_s > 0.0 ? 1.0 - exp(-dt / p->space_earn_s) : 1.0;
	s->be_use += a * (positive_or_zero(in->be_cpu) - s->be_use);
	uint32_t total = p->space.sm_total;
	uint32_t games = core_combo_split(&p->space, 1.0, in->games_util);
	uint32_t units = games < total ? total - games : 0;
	return units > 0 && s->be_use >= p->space_earn * (double)units;
}

/* A game under its SLA while the games were confined (or within the
 * span its reading looks back over): the partition goes at once and
 * none is given for space_holdoff_s. */
static void blame(const struct core_harvest_params *p, struct core_space_gpu *s,
                  const struct core_space_in *in)
{
	double dt = positive_or_zero(in->dt_s);
	s->holdoff_s = s->holdoff_s > dt ? s->holdoff_s - dt : 0.0;
	s->blame_s = s->blame_s > dt ? s->blame_s - dt : 0.0;
	if (!in->game_missed || (s->split == 0 && s->blame_s <= 0.0))
		return;
	s->holdoff_s = positive_or_zero(p->space_holdoff_s);
	s->blame_s = 0.0;
	s->releases++;
}

/* COMBO's decision on the aggregate load, the device divided or not. */
static void decide(const struct core_combo_params *p, struct core_space_gpu *s,
                   double games_util, double dt_s)
{
	/* The tick as COMBO's frame: a one-second frame whose whole-device
	 * render time is u (fps 1, rt u), decided before u joins the
	 * window, as a frame's prediction precedes its measurement. A load
	 * whose whole window needs the same group is stable whatever its
	 * spread (ours, not the paper's: Eq. 3's 10 % is for per-frame
	 * render times on 82 SMs; on a few coarse units a swing that stays
	 * inside one group changes nothing, and llvmpipe's per-tick load
	 * swings more than that). */
	struct core_combo_params q = *p;
	if (one_group(p, &s->load, games_util))
		q.stable_spread = INFINITY;
	struct core_combo_frame f =
	    core_combo_decide(&q, &s->load, 1.0, games_util, dt_s);
	core_combo_record(p, &s->load, games_util);
	s->scheme = f.scheme;
	s->spread = f.spread;
	s->switches += f.switched ? 1u : 0u;
	s->held = f.hold_be;
	if (f.scheme != CORE_COMBO_INTEGRATED || f.split >= p->sm_total) {
		join(s);
		return;
	}
	s->split = f.split;
	s->be_first = f.split;
	s->be_count = f.hold_be ? 0u : f.be_sms;
}

void core_space_tick(const struct core_harvest_params *p,
                     struct core_space_gpu *s, const struct core_space_in *in)
{
	const struct core_combo_params *c = &p->space;
	s->held = false;
	s->earned = earn(p, s, in);
	blame(p, s, in);
	double u = in->games_util;
	bool on = c->sm_total >= 2 && in->n_be > 0 && !in->games_quiet &&
	          isfinite(u) && u > 0.0;
	if (!on || in->overload || in->game_missed || !s->earned ||
	    s->holdoff_s > 0.0) {
		start_over(s);
		return;
	}
	decide(c, s, u, in->dt_s);
	/* The games confined: a miss from now to the end of its reading's
	 * span is the partition's. */
	if (s->split > 0)
		s->blame_s = positive_or_zero(in->miss_span_s);
}
