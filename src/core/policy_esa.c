/* Enhanced SLA-Aware scheduling, vGASA Algorithm 3: one common frame rate
 * for every game, chosen so the GPU is used up to util_target.
 *
 * With g_i = k_i * f_i (GPU share from GPU seconds per frame), running every
 * game at F gives sum_i k_i * F = U, so F = U / sum_i k_i. vGASA takes
 * U = 100%; Baton lets the operator keep headroom (95% by default), and
 * tenants pinned at a fixed rate take their share off the budget first, as
 * does the load the driver sees on the device that no tenant reports
 * (other_util): vGASA's GPU ran only its games, a shared host does not. */
#include "core/policy.h"

static void assign_esa(const struct core_params *p, struct core_gpu *gpu,
                       struct core_tenant *t, size_t n)
{
	double other = gpu->other_util > 0.0 ? gpu->other_util : 0.0;
	double budget = p->util_target - other, sum_k = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (t[i].fixed_fps > 0.0)
			budget -= t[i].k * t[i].fixed_fps;
		else
			sum_k += t[i].k;
	}
	/* Until every game has a coefficient, or if pinned tenants took the
	 * whole budget, there is no common rate to give. */
	bool unknown = false;
	for (size_t i = 0; i < n; i++)
		if (t[i].fixed_fps <= 0.0 && t[i].k <= 0.0)
			unknown = true;
	double common = 0.0;
	if (!unknown && sum_k > 0.0 && budget > 0.0)
		common = budget / sum_k;
	gpu->common_fps = common;
	for (size_t i = 0; i < n; i++)
		t[i].ref_fps = common;
}

const struct core_policy core_policy_esa = {
    .name = "esa",
    .summary = "enhanced SLA-aware (vGASA Alg. 3): one common rate that "
               "fills the GPU to its target",
    .assign = assign_esa,
};
