/* Scenario keys for space harvesting (sim_combo.h; docs/scenarios.md
 * "Space harvesting"):
 *
 *   combo = { sm_total = 82; fps = 59.88; trace = "dynamic";
 *             rt_lo_ms = 12; rt_hi_ms = 16; rt_mean_ms = 14.8;
 *             be_kernel_ms = 1.2; schemes = ["relaxed", "integrated"]; };
 *
 * A scenario with a combo group needs no tenants: the game and the BE
 * application are the group's. */
#include "sim/scenario/scenario_combo.h"

#include <math.h>
#include <string.h>

static bool parse_schemes(struct sim_cfg_ctx *c, const config_setting_t *g,
                          uint32_t *out)
{
	config_setting_t *s = config_setting_get_member(g, "schemes");
	if (!s)
		return true;
	if (!config_setting_is_array(s) || config_setting_length(s) < 1)
		return sim_cfg_fail(
		    c, s, NULL, "must be a non-empty array of scheme names");
	uint32_t mask = 0;
	for (int i = 0; i < config_setting_length(s); i++) {
		const char *name = config_setting_get_string_elem(s, i);
		int k = -1;
		for (int j = 0; name && j < SIM_COMBO_N_SCHEMES; j++)
			if (strcmp(name, sim_combo_scheme_name(
			                     (enum sim_combo_scheme)j)) == 0)
				k = j;
		if (k < 0)
			return sim_cfg_fail(c, s, NULL,
			                    "unknown scheme \"%s\" (expected "
			                    "\"temporal\", \"relaxed\", "
			                    "\"integrated\" or \"adaptive\")",
			                    name ? name : "");
		mask |= 1u << k;
	}
	*out = mask;
	return true;
}

bool sim_scenario_parse_combo(struct sim_cfg_ctx *c,
                              const config_setting_t *root,
                              struct sim_scenario *sc)
{
	static const char *const known[] = {
	    "sm_total",      "granularity", "fps",          "trace",
	    "rt_ms",         "rt_lo_ms",    "rt_hi_ms",     "rt_mean_ms",
	    "change_frames", "rt_share",    "be_kernel_ms", "corun_gain",
	    "eps",           "window",      "hold_ms",      "margin_ms",
	    "stable_spread", "step_us",     "schemes",      NULL};
	static const char *const traces[] = {"stable", "dynamic", NULL};
	config_setting_t *g;
	struct sim_combo_spec *s = &sc->combo;

	*s = sim_combo_spec_default();
	if (!sim_cfg_group(c, root, "combo", &g))
		return false;
	if (!g)
		return true;
	s->on = true;
	long long sms = s->p.sm_total, gran = s->p.granularity;
	long long window = s->p.window;
	int trace = 0;
	double ms[] = {s->rt_s * 1e3,        s->rt_lo_s * 1e3,
	               s->rt_hi_s * 1e3,     s->rt_mean_s * 1e3,
	               s->be_kernel_s * 1e3, s->p.hold_s * 1e3,
	               s->p.margin_s * 1e3,  s->step_s * 1e6};
	if (!sim_cfg_check_known(c, g, known) ||
	    !sim_cfg_int(c, g, "sm_total", &sms, 1, 100000) ||
	    !sim_cfg_int(c, g, "granularity", &gran, 1, 100000) ||
	    !sim_cfg_num(c, g, "fps", &s->fps, 1, 1000, 0) ||
	    !sim_cfg_enum(c, g, "trace", traces, &trace) ||
	    !sim_cfg_num(c, g, "rt_ms", &ms[0], 0, 10000, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "rt_lo_ms", &ms[1], 0, 10000, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "rt_hi_ms", &ms[2], 0, 10000, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "rt_mean_ms", &ms[3], 0, 10000, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "change_frames", &s->change_frames, 1, 1e6, 0) ||
	    !sim_cfg_num(c, g, "rt_share", &s->rt_share, 0, 1, 0) ||
	    !sim_cfg_num(c, g, "be_kernel_ms", &ms[4], 0, 10000, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "corun_gain", &s->corun_gain, 0, 0.5,
	                 NUM_HI_OPEN) ||
	    !sim_cfg_num(c, g, "eps", &s->p.eps, 0, 1, 0) ||
	    !sim_cfg_int(c, g, "window", &window, 1, CORE_COMBO_MAX_WINDOW) ||
	    !sim_cfg_num(c, g, "hold_ms", &ms[5], 0, 60000, 0) ||
	    !sim_cfg_num(c, g, "margin_ms", &ms[6], 0, 1000, 0) ||
	    !sim_cfg_num(c, g, "stable_spread", &s->p.stable_spread, 0, 10,
	                 0) ||
	    !sim_cfg_num(c, g, "step_us", &ms[7], 0.1, 1000, 0) ||
	    !parse_schemes(c, g, &s->schemes))
		return false;
	s->p.sm_total = (uint32_t)sms;
	s->p.granularity = (uint32_t)gran;
	s->p.window = (uint32_t)window;
	s->trace = trace == 1 ? SIM_COMBO_DYNAMIC : SIM_COMBO_STABLE;
	s->rt_s = ms[0] / 1e3;
	s->rt_lo_s = ms[1] / 1e3;
	s->rt_hi_s = ms[2] / 1e3;
	s->rt_mean_s = ms[3] / 1e3;
	s->be_kernel_s = ms[4] / 1e3;
	s->p.hold_s = ms[5] / 1e3;
	s->p.margin_s = ms[6] / 1e3;
	s->step_s = ms[7] / 1e6;
	/* The model steps through time: bound the work one file can ask. */
	double steps = sc->duration_s / s->step_s;
	if (!(steps <= 2e9))
		return sim_cfg_fail(
		    c, g, NULL,
		    "duration_s / step_us gives %.3g steps, "
		    "more than 2e9: lengthen step_us or shorten "
		    "the run",
		    steps);
	if (s->trace == SIM_COMBO_DYNAMIC &&
	    !(s->rt_lo_s < s->rt_mean_s && s->rt_mean_s < s->rt_hi_s))
		return sim_cfg_fail(c, g, NULL,
		                    "a dynamic trace needs rt_lo_ms < "
		                    "rt_mean_ms < rt_hi_ms (%g, %g, %g)",
		                    ms[1], ms[3], ms[2]);
	return true;
}
