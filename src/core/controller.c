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

/* F_out over one epoch is a handful of frames: at 30 FPS and 100 ms, three.
 * Decisions about who is below the SLA (FSA) look at a smoothed rate, as
 * vGASA's per-second detection does; the PI loop keeps the raw one. */
static void smooth_fps(const struct core_params *p, struct core_tenant *t)
{
	if (!(t->fps > 0.0) || !isfinite(t->fps))
		return;
	if (t->fps_smooth <= 0.0 || !(p->fps_smooth_s > 0.0)) {
		t->fps_smooth = t->fps;
		return;
	}
	double a = 1.0 - exp(-p->epoch_s / p->fps_smooth_s);
	t->fps_smooth += a * (t->fps - t->fps_smooth);
}

void core_controller_tick(const struct core_policy *policy,
                          const struct core_params *params,
                          struct core_gpu *gpu, struct core_tenant *tenants,
                          size_t n)
{
	for (size_t i = 0; i < n; i++) {
		learn_coefficient(params, &tenants[i]);
		smooth_fps(params, &tenants[i]);
	}

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
			t->target_fps =
			    core_pi_update(&t->pi, &params->pi, t->ref_fps,
			                   t->fps, t->paced_frames > 0);
		}
	}
}
