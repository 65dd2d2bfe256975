/* Enhanced SLA-Aware scheduling, vGASA Algorithm 3: one common frame rate
 * for every game, chosen so the GPU is used up to util_target.
 *
 * With g_i = k_i * f_i (GPU share from GPU seconds per frame), running every
 * game at F gives sum_i k_i * F = U, so F = U / sum_i k_i. vGASA takes
 * U = 100%; Baton lets the operator keep headroom (95% by default), and
 * tenants pinned at a fixed rate take their share off the budget first, as
 * does the load the driver sees on the device that no tenant reports
 * (other_util): vGASA's GPU ran only its games, a shared host does not.
 *
 * Two rules vGASA does not have (docs/runtime.md, "Rules vGASA does not
 * have, and why", says why):
 *
 * - One rate whatever each game's bottleneck. U / sum k assumes every
 *   game's rate is bound by its GPU share. A game whose frame is bound by
 *   something else (its own CPU thread, latency under contention) cannot
 *   reach it, and pacing the others to a rate it does not reach gives it
 *   nothing. When a tenant is limited (reach.h), the common reference comes
 *   down to the rate it reaches (the ceiling); while none is, the ceiling
 *   climbs back by esa_climb per second and is dropped once it no longer
 *   binds.
 * - Never under the SLA. When U / sum k (or the ceiling) falls under a
 *   tenant's SLA reference, that tenant is held at its SLA reference, as SA
 *   would: the budget cannot hold everyone at the SLA (the controller
 *   reports overload) and dropping every game under it together is the
 *   worst answer for an SLA system. Until a free-running game has a
 *   coefficient the common rate is unknown: the first games start at
 *   their SLA reference (the last common rate, if there was one); a
 *   newcomer whose cost is still being learnt starts at the common rate.
 *
 * Three more, because the costs are the tenants' own reports and every
 * local user may register tenants (docs/runtime.md, "Reports are not
 * trusted"):
 *
 * - A tenant without a coefficient (it never presented a frame) has no
 *   cost to count: it is left out of sum k rather than leaving the common
 *   rate unknown for everyone, and gets the common rate like a newcomer.
 * - Each owner's share of the budget is bounded. Tenants are grouped by
 *   owner (uid); at the common rate F an owner costs P_u + F * K_u (its
 *   pinned tenants' share plus its other tenants' coefficients times F,
 *   g_i = k_i * f_i of Sec. 3.2). An owner whose cost would exceed
 *   U / m (m owners) is counted at U / m, and the common rate is solved
 *   for the others: vGASA's F = U / sum k_i (Algorithm 3, line 6) becomes
 *   F = (U - c U / m - sum P_u) / sum K_u over the c capped owners' and
 *   the others' tenants respectively. A capped owner's tenants run at the
 *   rate its share affords, (U / m - P_u) / K_u, never above F, never
 *   under their SLA reference. With one owner this is vGASA's rule
 *   exactly; with several, ten tenants of one user claiming huge costs
 *   take at most that user's share, not another user's game's rate.
 * - Limited tenants of a capped owner do not pull the ceiling down: they
 *   are paced to their own share already. Nor does a tenant held by its
 *   own GPU cap (reach.h: cap_bound; it is never limited): a cap one user
 *   bought says nothing about what the machine gives the others.
 * - Nor does a limited tenant that is not GPU-bound. vGASA's ESA
 *   (Algorithm 3) rests on g_i = k_i f_i: every game's rate is bound by
 *   its share of the GPU, so one common rate shares the GPU. The ceiling
 *   lowers the others so that a game the shared device holds back gets
 *   more of it; a game whose measured share k_i x F_out is a small part
 *   (under ESA_GPU_BOUND) of the largest share a game takes barely uses
 *   the device, so something else holds it (its own CPU thread, its own
 *   timer), and pacing every game down to it gives it nothing: a
 *   0.2 ms-a-frame game presenting 31 FPS took another user's game from
 *   60 to the SLA floor. Such a game is counted at the share it takes,
 *   k_i x F_out, as a pinned tenant is (its owner's cost, not sum k), so
 *   the common rate is solved over the GPU-bound games and what it does
 *   not use is theirs (before, its owner's share of U / m sat unused and
 *   the other user's game was capped at the rest). It keeps the common
 *   rate as its reference, which it does not reach (reach.h keeps it
 *   limited, so it stays counted this way until it takes a share). */
#include <math.h>

#include "core/reach.h"

static bool counts(const struct core_tenant *t)
{
	return t->k > 0.0 && isfinite(t->k);
}

/* A limited tenant whose measured GPU share is under this fraction of the
 * largest share a tenant takes is not GPU-bound (see above). An order of
 * magnitude: at one common rate the shares are in the ratio of the costs,
 * so a game whose frames cost a tenth of its neighbour's still counts
 * when the device holds it back (the simulator's esa-bottleneck: the
 * latency-bound game takes the largest share of the three), while a game
 * that takes a hundredth does not. */
#define ESA_GPU_BOUND 0.1

/* The GPU share a tenant takes at the rate it shows, k_i x F_out (vGASA's
 * g_i); 0 when either is unknown. */
static double measured_share(const struct core_tenant *t)
{
	return counts(t) && t->fps_smooth > 0.0 && isfinite(t->fps_smooth)
	           ? t->k * t->fps_smooth
	           : 0.0;
}

/* The largest measured share among the tenants. */
static double largest_share(const struct core_tenant *t, size_t n)
{
	double most = 0.0;
	for (size_t i = 0; i < n; i++)
		most = fmax(most, measured_share(&t[i]));
	return most;
}

/* A limited tenant that is not GPU-bound (see above): it runs at the rate
 * something else allows, so it is counted at the share it takes there,
 * as a pinned tenant is, and sets neither sum k nor the ceiling. */
static bool bound_elsewhere(const struct core_tenant *t, double most)
{
	return t->limited && !t->cap_bound && t->fixed_fps <= 0.0 &&
	       measured_share(t) < ESA_GPU_BOUND * most;
}

/* Groups the tenants with a coefficient by owner: every such tenant's
 * esa.lead is its owner's first one, which holds the owner's totals.
 * Returns the number of owners. O(n^2) in the worst case, n bounded by
 * the daemon's connection cap: no allocation in the core. */
static size_t group_owners(struct core_tenant *t, size_t n, double most)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		t[i].esa = (struct core_esa_owner){.lead = i};
	for (size_t i = 0; i < n; i++) {
		if (!counts(&t[i]) || t[i].esa.lead != i)
			continue;
		m++;
		for (size_t j = i; j < n; j++) {
			if (!counts(&t[j]) || t[j].owner != t[i].owner)
				continue;
			t[j].esa.lead = i;
			/* one tenant never takes more than one GPU */
			if (t[j].fixed_fps > 0.0)
				t[i].esa.pinned +=
				    fmin(t[j].k * t[j].fixed_fps, 1.0);
			else if (bound_elsewhere(&t[j], most))
				t[i].esa.pinned +=
				    fmin(measured_share(&t[j]), 1.0);
			else
				t[i].esa.k += t[j].k;
		}
	}
	return m;
}

static bool is_lead(const struct core_tenant *t, size_t i)
{
	return counts(&t[i]) && t[i].esa.lead == i;
}

/* The common reference from the budget alone; 0 if pinned tenants or
 * other load took it all, < 0 while no free-running tenant has a
 * coefficient yet. Caps the owners over their share (see above). */
static double budget_rate(const struct core_params *p,
                          const struct core_gpu *gpu, struct core_tenant *t,
                          size_t n, double most)
{
	double other = gpu->other_util > 0.0 ? gpu->other_util : 0.0;
	double budget = p->util_target - other;
	size_t m = group_owners(t, n, most);
	bool unknown = false, any_k = false;
	for (size_t i = 0; i < n; i++) {
		if (t[i].fixed_fps > 0.0 || bound_elsewhere(&t[i], most))
			continue;
		if (counts(&t[i]))
			any_k = true;
		else
			unknown = true;
	}
	if (!any_k)
		return unknown ? -1.0 : 0.0;
	if (!(budget > 0.0))
		return 0.0;
	double share = budget / (double)m, F = 0.0;
	/* Water-filling: capping an owner frees budget, so F only grows and
	 * an owner over its share stays over; at most m rounds. */
	for (size_t round = 0; round <= m; round++) {
		double free_b = budget, free_k = 0.0;
		for (size_t i = 0; i < n; i++) {
			if (!is_lead(t, i))
				continue;
			if (t[i].esa.capped) {
				free_b -= share;
			} else {
				free_b -= t[i].esa.pinned;
				free_k += t[i].esa.k;
			}
		}
		F = free_k > 0.0 && free_b > 0.0 ? free_b / free_k : 0.0;
		size_t stay = 0, over = 0;
		for (size_t i = 0; i < n; i++) {
			if (!is_lead(t, i) || t[i].esa.capped)
				continue;
			struct core_esa_owner *o = &t[i].esa;
			if (o->pinned + F * o->k > share * (1.0 + 1e-9))
				over++;
			else if (o->k > 0.0)
				stay++;
		}
		if (over == 0)
			break;
		/* The last owners with free-running tenants are not capped
		 * away: they share what the others leave at one rate. */
		size_t capped = 0;
		for (size_t i = 0; i < n; i++) {
			struct core_esa_owner *o = &t[i].esa;
			if (!is_lead(t, i) || o->capped ||
			    !(o->pinned + F * o->k > share * (1.0 + 1e-9)))
				continue;
			if (o->k > 0.0 && stay == 0)
				continue;
			o->capped = true;
			o->fps = o->k > 0.0 && share > o->pinned
			             ? (share - o->pinned) / o->k
			             : 0.0;
			capped++;
		}
		if (capped == 0)
			break;
	}
	return F;
}

/* A step down moves the ceiling at most this far, and the next waits until
 * the step can show in the limited tenant's smoothed rate: a game that
 * stalls for a moment (glmark2 loading its next scene: a few hundred ms
 * without a frame) must not drag every game down to its stall, while a
 * game 20 % short of the common rate is caught up with in two steps. */
#define ESA_MAX_DROP 0.10

/* Moves the ceiling: down toward the rate the slowest limited tenant
 * achieves, else up by esa_climb per second, dropped once it reaches the
 * budget's rate. Near a limited tenant's capacity this is a slow saw: the
 * ceiling climbs until the tenant falls reach_tol short again (a few per
 * cent), then comes back to what it achieves. It never goes under the
 * lowest SLA reference: under it every tenant is held at its SLA anyway. */
static void move_ceiling(const struct core_params *p, struct core_gpu *gpu,
                         const struct core_tenant *t, size_t n, double ideal,
                         double most)
{
	double lowest = 0.0, floor = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (t[i].fixed_fps > 0.0)
			continue;
		double sla = core_sla_ref(p, &t[i]);
		if (floor <= 0.0 || sla < floor)
			floor = sla;
		/* A cap-bound tenant is never limited (reach.h): its own
		 * cap holds it, and the others' rate must not follow. */
		if (t[i].limited && !t[i].cap_bound && t[i].fps_smooth > 0.0 &&
		    !t[t[i].esa.lead].esa.capped &&
		    !bound_elsewhere(&t[i], most) &&
		    (lowest <= 0.0 || t[i].fps_smooth < lowest))
			lowest = t[i].fps_smooth;
	}
	if (gpu->esa_hold_s > 0.0)
		gpu->esa_hold_s -= p->epoch_s;
	if (gpu->esa_ceiling <= 0.0 && lowest <= 0.0)
		return;
	double c = gpu->esa_ceiling > 0.0 && gpu->esa_ceiling < ideal
	               ? gpu->esa_ceiling
	               : ideal;
	if (lowest > 0.0 && lowest < c) {
		if (gpu->esa_hold_s > 0.0)
			return; /* the last step has not shown yet */
		double step = c * (1.0 - ESA_MAX_DROP);
		c = lowest > step ? lowest : step;
		gpu->esa_hold_s = p->reach_hold_s + p->fps_smooth_s;
	} else {
		c *= 1.0 + p->esa_climb * p->epoch_s;
	}
	if (c >= ideal)
		gpu->esa_ceiling = 0.0;
	else
		gpu->esa_ceiling = c > floor ? c : floor;
}

static void assign_esa(const struct core_params *p, struct core_gpu *gpu,
                       struct core_tenant *t, size_t n)
{
	double most = largest_share(t, n);
	double ideal = budget_rate(p, gpu, t, n, most);
	double common = 0.0;
	if (ideal > 0.0) {
		move_ceiling(p, gpu, t, n, ideal, most);
		common = gpu->esa_ceiling > 0.0 && gpu->esa_ceiling < ideal
		             ? gpu->esa_ceiling
		             : ideal;
	} else if (ideal < 0.0) {
		/* No free-running tenant's cost is known yet (the first
		 * epoch with frames teaches it): keep the last common rate,
		 * if any, rather than drop everyone to the SLA. */
		common = gpu->common_fps;
	} else {
		gpu->esa_ceiling = 0.0;
	}
	gpu->common_fps = common;
	for (size_t i = 0; i < n; i++) {
		double sla = core_sla_ref(p, &t[i]);
		double rate = common;
		const struct core_esa_owner *o = &t[t[i].esa.lead].esa;
		if (o->capped && o->fps < rate)
			rate = o->fps;
		t[i].ref_fps = rate > sla ? rate : sla;
	}
}

const struct core_policy core_policy_esa = {
    .name = "esa",
    .summary = "enhanced SLA-aware (vGASA Alg. 3): one common rate that "
               "fills the GPU to its target, never under the SLA",
    .assign = assign_esa,
};
