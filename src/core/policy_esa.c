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
 * Two rules vGASA does not have (docs/architecture.md says why):
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
 *   worst answer for an SLA system. Until every game has a coefficient the
 *   common rate is unknown: the first games start at their SLA reference,
 *   and while a newcomer's is learnt the others keep the last common rate
 *   (the newcomer starts there too). */
#include "core/reach.h"

/* The common reference from the budget alone; 0 if pinned tenants or
 * other load took it all, < 0 while a coefficient is still unknown. */
static double budget_rate(const struct core_params *p,
                          const struct core_gpu *gpu,
                          const struct core_tenant *t, size_t n)
{
	double other = gpu->other_util > 0.0 ? gpu->other_util : 0.0;
	double budget = p->util_target - other, sum_k = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (t[i].fixed_fps > 0.0) {
			budget -= t[i].k * t[i].fixed_fps;
		} else {
			if (!(t[i].k > 0.0))
				return -1.0;
			sum_k += t[i].k;
		}
	}
	return sum_k > 0.0 && budget > 0.0 ? budget / sum_k : 0.0;
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
                         const struct core_tenant *t, size_t n, double ideal)
{
	double lowest = 0.0, floor = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (t[i].fixed_fps > 0.0)
			continue;
		double sla = core_sla_ref(p, &t[i]);
		if (floor <= 0.0 || sla < floor)
			floor = sla;
		if (t[i].limited && t[i].fps_smooth > 0.0 &&
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
	double ideal = budget_rate(p, gpu, t, n);
	double common = 0.0;
	if (ideal > 0.0) {
		move_ceiling(p, gpu, t, n, ideal);
		common = gpu->esa_ceiling > 0.0 && gpu->esa_ceiling < ideal
		             ? gpu->esa_ceiling
		             : ideal;
	} else if (ideal < 0.0) {
		/* A newcomer's cost is not known yet (its first epoch with
		 * frames teaches it): keep the last common rate rather than
		 * drop everyone to the SLA for an epoch or two. */
		common = gpu->common_fps;
	} else {
		gpu->esa_ceiling = 0.0;
	}
	gpu->common_fps = common;
	for (size_t i = 0; i < n; i++) {
		double sla = core_sla_ref(p, &t[i]);
		t[i].ref_fps = common > sla ? common : sla;
	}
}

const struct core_policy core_policy_esa = {
    .name = "esa",
    .summary = "enhanced SLA-aware (vGASA Alg. 3): one common rate that "
               "fills the GPU to its target, never under the SLA",
    .assign = assign_esa,
};
