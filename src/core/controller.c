#include "core/controller.h"

#include <math.h>

/* vGASA's k_i: GPU seconds per frame, so that g_i = k_i * f_i. An EWMA over
 * epochs follows scene changes without chasing a single slow frame. */
static void learn_coefficient(const struct core_params *p,
                              struct core_tenant *t)
{
	if (t->frames == 0 || !(t->gpu_busy_s > 0.0) ||
	    !isfinite(t->gpu_busy_s))
		return;
	double sample = t->gpu_busy_s / (double)t->frames;
	if (t->k <= 0.0)
		t->k = sample;
	else
		t->k += p->k_alpha * (sample - t->k);
}

void core_controller_tick(const struct core_policy *policy,
                          const struct core_params *params,
                          struct core_gpu *gpu, struct core_tenant *tenants,
                          size_t n)
{
	for (size_t i = 0; i < n; i++)
		learn_coefficient(params, &tenants[i]);

	policy->assign(params, gpu, tenants, n);

	for (size_t i = 0; i < n; i++) {
		struct core_tenant *t = &tenants[i];
		if (t->fixed_fps > 0.0) {
			core_pi_reset(&t->pi);
			t->target_fps = t->fixed_fps;
		} else if (!(t->ref_fps > 0.0)) {
			core_pi_reset(&t->pi);
			t->target_fps = 0.0;
		} else {
			t->target_fps = core_pi_update(&t->pi, &params->pi,
			                               t->ref_fps, t->fps);
		}
	}
}
