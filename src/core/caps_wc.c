/* Work-conserving budgets (caps_wc.h). */
#include "core/caps_wc.h"

#include <math.h>

/* Rounds of the water-filling below: each round fills or clamps at
 * least one tenant; what is left after these stays spare. */
#define WC_ROUNDS 8

/* An owner cap bounds the owner's total: the strict budgets fit it already
 * (set_budgets), so what passes it comes off the work-conserving extras,
 * in proportion, and the owner's tenants take no more. */
static void fit_owner_caps(struct core_caps_gpu *g, struct core_tenant *t,
                           size_t n)
{
	const struct core_owner_cap *oc = g->owner_caps;
	for (size_t k = 0; oc && k < g->n_owner_caps; k++) {
		double cap = oc[k].cap;
		if (!(cap > 0.0 && cap <= 1.0))
			continue;
		double sum = 0.0, extra = 0.0;
		for (size_t i = 0; i < n; i++) {
			if (t[i].owner != oc[k].owner)
				continue;
			sum += t[i].caps.budget + t[i].caps.wc_extra;
			extra += t[i].caps.wc_extra;
		}
		if (!(sum > cap - 1e-12) || !(extra > 0.0))
			continue;
		double keep = 1.0 - (sum - cap) / extra;
		if (keep < 0.0)
			keep = 0.0;
		for (size_t i = 0; i < n; i++) {
			if (t[i].owner != oc[k].owner)
				continue;
			t[i].caps.wc_extra *= keep;
			t[i].caps.wc_full = true;
		}
	}
}

/* A tenant whose cap may give way to idle GPU time (core_tenant
 * .work_conserving) and that holds a budget. */
bool core_caps_conserving(const struct core_tenant *t)
{
	return t->work_conserving && t->caps.budget > 0.0;
}

/* Work-conserving budgets. A strict cap (gOver's) holds a tenant back even
 * on an idle GPU; a work-conserving one may use the GPU's spare capacity
 * beyond it. The shim only enforces the budget batond writes, so the
 * policy is here: such a tenant's budget is its cap (the strict budget
 * above, within its owner's cap) plus a share of
 *
 *     spare = max(0, util_target - (L - E)),
 *
 * where L is the GPU's measured load (the larger of the utilization and
 * the tenants' busy time plus the load no tenant reports, as G6 counts
 * it), E the work-conserving tenants' own use beyond their caps, and
 * util_target the share of the GPU Baton fills (ESA's; the rest is
 * headroom). L - E is the load the GPU would carry were every
 * work-conserving tenant held at its cap, which the extra budget does not
 * change: a tenant that takes its extra raises L and E alike, so the
 * spare it is given does not shrink because it used it (a stable fixed
 * point, where util_target - L alone would give and take it back on
 * alternate ticks). The spare is split evenly among the work-conserving
 * tenants that use their whole cap (cap-bound, or using more than it:
 * one under its cap needs nothing more), each budget bounded at one
 * GPU; an owner cap still bounds the owner's total, what passes it is
 * taken from the extras; what one cannot take goes to the others. Uses and load
 * are smoothed over fps_smooth_s, so the budget does not follow each epoch's
 * noise. The spare is what the others use now: a tenant whose demand grows
 * takes back what it needs as the load it shows grows, within the util_target
 * headroom the extras never fill. */
void core_caps_work_conserve(const struct core_params *p, struct core_gpu *gpu,
                             struct core_tenant *t, size_t n)
{
	struct core_caps_gpu *g = &gpu->caps;
	double dt = p->epoch_s > 0.0 ? p->epoch_s : 1.0;
	double a =
	    p->fps_smooth_s > 0.0 ? 1.0 - exp(-dt / p->fps_smooth_s) : 1.0;
	double busy = 0.0;
	for (size_t i = 0; i < n; i++) {
		struct core_cap_state *c = &t[i].caps;
		double use = t[i].gpu_busy_s > 0.0 && isfinite(t[i].gpu_busy_s)
		                 ? t[i].gpu_busy_s / dt
		                 : 0.0;
		if (use > 1.0)
			use = 1.0;
		busy += use;
		c->use += a * (use - c->use);
		c->wc_extra = 0.0;
	}
	double load = busy + (gpu->other_util > 0.0 ? gpu->other_util : 0.0);
	if (gpu->util > load && isfinite(gpu->util))
		load = gpu->util;
	g->wc_load += a * (load - g->wc_load);

	double beyond = 0.0;
	size_t takers = 0;
	for (size_t i = 0; i < n; i++) {
		if (!core_caps_conserving(&t[i]))
			continue;
		double over = t[i].caps.use - t[i].caps.budget;
		if (over > 0.0)
			beyond += over;
		if (t[i].cap_bound || over > 0.0)
			takers++;
	}
	double spare = p->util_target - (g->wc_load - beyond);
	g->wc_spare = spare > 0.0 ? spare : 0.0;
	if (takers == 0 || !(g->wc_spare > 0.0))
		return;
	for (size_t i = 0; i < n; i++) {
		struct core_cap_state *c = &t[i].caps;
		c->wc_full = !core_caps_conserving(&t[i]) ||
		             !(t[i].cap_bound || c->use > c->budget);
	}
	/* Water-filling: a share one tenant cannot take (one GPU, its
	 * owner's cap) goes to the others in the next round. */
	double left = g->wc_spare;
	for (int round = 0; round < WC_ROUNDS && left > 1e-9; round++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			m += t[i].caps.wc_full ? 0u : 1u;
		if (m == 0)
			break;
		double share = left / (double)m;
		for (size_t i = 0; i < n; i++) {
			struct core_cap_state *c = &t[i].caps;
			if (c->wc_full)
				continue;
			double room = 1.0 - c->budget - c->wc_extra;
			double add = share < room ? share : room;
			if (add < 0.0)
				add = 0.0;
			c->wc_extra += add;
			if (add < share)
				c->wc_full = true;
		}
		fit_owner_caps(g, t, n);
		left = g->wc_spare;
		for (size_t i = 0; i < n; i++)
			left -= t[i].caps.wc_extra;
	}
	for (size_t i = 0; i < n; i++)
		t[i].caps.budget += t[i].caps.wc_extra;
}
