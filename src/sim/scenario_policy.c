/* A scenario's policy group: which policy runs, its gains and thresholds
 * (core_params), and the capacity stage's mode and parameters. */
#include "sim/scenario_parse.h"

#include <stdio.h>
#include <string.h>

#include "core/policy.h"

bool sim_scenario_parse_policy(struct sim_cfg_ctx *c,
                               const config_setting_t *root,
                               struct sim_scenario *sc)
{
	static const char *const known[] = {
	    "name",         "kp",         "ki",          "max_ratio",
	    "epoch_ms",     "sla_margin", "util_target", "fsa_guard",
	    "fsa_relax",    "fsa_hold_s", "k_alpha",     "reach_tol",
	    "reach_hold_s", "esa_climb",  "caps",        "u_over",
	    "u_limit",      "w_u",        "w_e",         "steal",
	    "run",          "quiet",      "sla_tol",     "qos_margin",
	    "cap_total",    NULL};
	static const char *const cap_modes[] = {"static", "dynamic", NULL};
	struct core_params *p = &sc->params;
	config_setting_t *g, *s;
	const char *name;

	*p = core_params_default();
	sim_cfg_copy_str(sc->policy, sizeof(sc->policy), "sa");
	if (!sim_cfg_group(c, root, "policy", &g))
		return false;
	if (!g)
		return true;
	if (!sim_cfg_check_known(c, g, known) ||
	    !sim_cfg_str(c, g, "name", false, &name, &s))
		return false;
	if (name) {
		/* The policy core owns the list, so a new policy needs no
		 * change here. */
		if (!core_policy_find(name) ||
		    strlen(name) >= sizeof(sc->policy)) {
			char choices[128] = "";
			const struct core_policy *const *all =
			    core_policy_all();
			for (size_t i = 0; all && all[i]; i++) {
				size_t used = strlen(choices);
				snprintf(choices + used, sizeof(choices) - used,
				         "%s\"%s\"", i ? ", " : "",
				         all[i]->name);
			}
			return sim_cfg_fail(
			    c, s, NULL,
			    "unknown policy \"%s\" (expected one of %s)", name,
			    choices);
		}
		sim_cfg_copy_str(sc->policy, sizeof(sc->policy), name);
	}
	double epoch_ms = p->epoch_s * 1000.0;
	if (!sim_cfg_num(c, g, "kp", &p->pi.kp, 0, 100, 0) ||
	    !sim_cfg_num(c, g, "ki", &p->pi.ki, 0, 100, 0) ||
	    !sim_cfg_num(c, g, "max_ratio", &p->pi.max_ratio, 1, 1000,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "epoch_ms", &epoch_ms, 0, 60000, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "sla_margin", &p->sla_margin, 0, 1, 0) ||
	    !sim_cfg_num(c, g, "util_target", &p->util_target, 0, 1,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "fsa_guard", &p->fsa_guard, 0, 1, 0) ||
	    !sim_cfg_num(c, g, "fsa_relax", &p->fsa_relax, 0, 1, 0) ||
	    !sim_cfg_num(c, g, "fsa_hold_s", &p->fsa_hold_s, 0, 60, 0) ||
	    !sim_cfg_num(c, g, "k_alpha", &p->k_alpha, 0, 1, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "reach_tol", &p->reach_tol, 0, 1, 0) ||
	    !sim_cfg_num(c, g, "reach_hold_s", &p->reach_hold_s, 0, 60, 0) ||
	    !sim_cfg_num(c, g, "esa_climb", &p->esa_climb, 0, 1, 0))
		return false;
	int caps = (int)sc->caps;
	long long run = p->cap_run, quiet = p->cap_quiet;
	if (!sim_cfg_enum(c, g, "caps", cap_modes, &caps) ||
	    !sim_cfg_num(c, g, "u_over", &p->cap_u_over, 0, 10, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "u_limit", &p->cap_u_limit, 0, 10,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "w_u", &p->cap_w_u, 0, 100, 0) ||
	    !sim_cfg_num(c, g, "w_e", &p->cap_w_e, 0, 100, 0) ||
	    !sim_cfg_num(c, g, "steal", &p->cap_steal, 0, 1, NUM_LO_OPEN) ||
	    !sim_cfg_int(c, g, "run", &run, 1, 1000) ||
	    !sim_cfg_int(c, g, "quiet", &quiet, 1, 1000) ||
	    !sim_cfg_num(c, g, "sla_tol", &p->cap_sla_tol, 0, 1, 0) ||
	    !sim_cfg_num(c, g, "qos_margin", &p->cap_qos_margin, 0, 100, 0) ||
	    !sim_cfg_num(c, g, "cap_total", &p->cap_total, 0, 64, NUM_LO_OPEN))
		return false;
	sc->caps = (enum sim_caps_mode)caps;
	p->cap_run = (uint32_t)run;
	p->cap_quiet = (uint32_t)quiet;
	p->epoch_s = epoch_ms / 1000.0;
	return true;
}
