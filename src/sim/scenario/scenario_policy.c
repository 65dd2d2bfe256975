/* A scenario's policy group: which policy runs, its gains and thresholds
 * (core_params, keys and ranges from core/params_table.h), and the
 * capacity stage's mode. */
#include "sim/scenario/scenario_parse.h"

#include <stdio.h>
#include <string.h>

#include "core/policy.h"

bool sim_scenario_parse_policy(struct sim_cfg_ctx *c,
                               const config_setting_t *root,
                               struct sim_scenario *sc)
{
	/* The rest are the parameter table's keys (core/params_table.h). */
	static const char *const others[] = {"name", "epoch_ms", "caps", NULL};
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
	if (!sim_cfg_params(c, g, CORE_PARAM_POLICY, p, others) ||
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
	int caps = (int)sc->caps;
	if (!sim_cfg_num(c, g, "epoch_ms", &epoch_ms, 0, 60000, NUM_LO_OPEN) ||
	    !sim_cfg_enum(c, g, "caps", cap_modes, &caps))
		return false;
	sc->caps = (enum sim_caps_mode)caps;
	p->epoch_s = epoch_ms / 1000.0;
	return true;
}
