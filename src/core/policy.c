#include "core/policy.h"

#include <string.h>

struct core_params core_params_default(void)
{
	return (struct core_params){
	    .pi = core_pi_default_gains(),
	    .epoch_s = 0.1,
	    .sla_margin = 0.01,
	    .util_target = 0.95,
	    .fsa_guard = 0.05,
	    .fsa_relax = 0.02,
	    .fsa_hold_s = 0.5,
	    .k_alpha = 0.2,
	    .fps_smooth_s = 0.5,
	    .reach_tol = 0.03,
	    .reach_hold_s = 0.3,
	    .reach_low_s = 2.0,
	    .esa_climb = 0.03,
	    .cap_period_s = 1.0,
	    .cap_u_over = 0.95,
	    .cap_u_limit = 0.7,
	    .cap_encoder_limit = 0.9,
	    .cap_w_u = 1.0,
	    .cap_w_e = 1.0,
	    .cap_steal = 0.2,
	    .cap_run = 3,
	    .cap_quiet = 3,
	    .cap_total = 1.0,
	    .cap_sla_tol = 0.02,
	    .cap_qos_margin = 0.1,
	    .quality_on = false,
	    .quality_paper = false,
	    .quality = quality_params_default(),
	    .quality_headroom = 0.05,
	    .quality_hold_s = 3.0,
	    .quality_reach_headroom = 0.25,
	    .quality_step_ratio = 0.25,
	    .quality_step_epochs = 2,
	    /* Off: side by side it removed no failure and cost SSIM
	     * (docs/quality.md, "Headroom for the joint noise"). */
	    .quality_spread_z = 0.0,
	};
}

static void assign_none(const struct core_params *p, struct core_gpu *gpu,
                        struct core_tenant *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		t[i].ref_fps = 0.0;
}

const struct core_policy core_policy_none = {
    .name = "none",
    .summary = "no pacing: every game runs free (the driver's default)",
    .assign = assign_none,
};

static const struct core_policy *const all_policies[] = {
    &core_policy_none,
    &core_policy_sa,
    &core_policy_fsa,
    &core_policy_esa,
    NULL,
};

const struct core_policy *const *core_policy_all(void)
{
	return all_policies;
}

const struct core_policy *core_policy_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; all_policies[i]; i++)
		if (strcmp(all_policies[i]->name, name) == 0)
			return all_policies[i];
	return NULL;
}
