/* The stuck rule for hung best-effort kernels (see harvest_stuck.h). */
#include "core/harvest_stuck.h"

#include <math.h>

bool core_harvest_overran(const struct core_harvest_params *p,
                          const struct core_be_tenant *be)
{
	double t = be->inflight_s, w = be->inflight_window_s;
	if (!(t > 0.0) || !isfinite(t) || !(w > 0.0) || !isfinite(w))
		return false;
	double slack = p->stuck_slack_s > 0.0 ? p->stuck_slack_s : 0.0;
	double limit = p->stuck_factor * w;
	if (!(limit >= w + slack)) /* also a NaN factor */
		limit = w + slack;
	return t > limit;
}

void core_harvest_stuck(const struct core_harvest_params *p,
                        struct core_harvest_gpu *hg, struct core_be_tenant *be,
                        size_t n)
{
	hg->n_stuck = 0;
	for (size_t i = 0; i < n; i++) {
		be[i].stuck = core_harvest_overran(p, &be[i]);
		if (!be[i].stuck)
			continue;
		hg->n_stuck++;
		be[i].budget = 0.0;
		be[i].window_s = 0.0;
	}
	if (hg->n_stuck == 0)
		return;
	/* Why every window closes, not just the stuck tenant's. Eq. 1 (GPU
	 * grid, t <= 1/F - H) promises a game's frame waits behind at most
	 * one window of BE work: the BE tenants' windows add up to the
	 * GPU's (core_harvest_window). A stuck kernel has already held the
	 * GPU past its own window by at least stuck_slack_s, and how much
	 * longer it runs is unknown. On a non-preemptive GPU (FIFO at kernel
	 * boundaries) a sub-launch released now queues behind it and runs
	 * the moment it ends, just when the games' frames held behind it
	 * need the GPU: each would add up to its window to frames already
	 * late. Counting the stuck kernel's elapsed time against the GPU's
	 * window instead (the others share W - elapsed) comes to the same
	 * once the elapsed time passes W, which the slack ensures for any
	 * game above 1 / stuck_slack_s FPS (20 at 50 ms), and before that
	 * would promise a share of time whose end nobody knows. So: no new
	 * BE work on this GPU until the hung kernel's record arrives; the
	 * games wait behind no BE work but the sub-launch that hung. */
	for (size_t i = 0; i < n; i++)
		be[i].window_s = 0.0;
}
