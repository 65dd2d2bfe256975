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

void core_space_tick(const struct core_combo_params *p,
                     struct core_space_gpu *s, double games_util,
                     bool games_quiet, bool overload, size_t n_be, double dt_s)
{
	s->held = false;
	bool on = p->sm_total >= 2 && n_be > 0 && !games_quiet &&
	          isfinite(games_util) && games_util > 0.0;
	if (!on || overload) {
		/* Start over: the next division waits a full hold again. */
		if (s->load.started && s->load.scheme == CORE_COMBO_INTEGRATED)
			s->switches++;
		s->load.scheme = CORE_COMBO_RELAXED;
		s->load.split = 0;
		s->load.stable_s = 0.0;
		s->scheme = CORE_COMBO_RELAXED;
		s->spread = 0.0;
		join(s);
		return;
	}
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
