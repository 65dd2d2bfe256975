/* Scenario keys for time harvesting (see scenario_be.h). */
#include "sim/scenario/scenario_be.h"

#include "sim/scenario/scenario_parse.h"

#include <math.h>
#include <string.h>

bool sim_be_is_tenant(const config_setting_t *tg)
{
	return config_setting_get_member(tg, "kind") != NULL;
}

bool sim_be_parse_tenant(struct sim_cfg_ctx *c, const config_setting_t *tg,
                         struct sim_tenant_spec *t,
                         const struct sim_scenario *sc)
{
	static const char *const known[] = {
	    "name",   "kind",      "gate",   "blocks",   "c0_ms",    "c1_ms",
	    "weight", "cap",       "depth",  "probe_us", "alpha_us", "start_s",
	    "stop_s", "hang_at_s", "hang_s", NULL};
	static const char *const kinds[] = {"game", "be", NULL};
	static const char *const gates[] = {"none", "naive", "probe",
	                                    "telemetry", NULL};
	int kind = 0, gate = SIM_BE_TELEMETRY;
	if (!sim_cfg_enum(c, tg, "kind", kinds, &kind))
		return false;
	if (kind != 1)
		return sim_cfg_fail(c, config_setting_get_member(tg, "kind"),
		                    NULL,
		                    "\"game\" is the default: leave kind out "
		                    "for a game");
	struct sim_be_spec *b = &t->be;
	long long blocks = 0, depth = 1;
	b->weight = 1.0;
	b->probe_us = 20.0; /* an empty launch plus sync, order of 10 us */
	b->alpha_us = 0.0;
	if (!sim_cfg_check_known(c, tg, known) ||
	    !sim_cfg_str_copy(c, tg, "name", true, t->name, sizeof(t->name)) ||
	    !sim_cfg_enum(c, tg, "gate", gates, &gate) ||
	    !sim_cfg_int(c, tg, "blocks", &blocks, 1, 1LL << 40) ||
	    !sim_cfg_num(c, tg, "c0_ms", &b->c0_ms, 0, 10000, 0) ||
	    !sim_cfg_num(c, tg, "c1_ms", &b->c1_ms, 0, 10000,
	                 NUM_REQUIRED | NUM_LO_OPEN) ||
	    !sim_cfg_num(c, tg, "weight", &b->weight, 0, 1e6, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, tg, "cap", &b->cap, 0, 1, NUM_LO_OPEN) ||
	    !sim_cfg_int(c, tg, "depth", &depth, 1, 16) ||
	    !sim_cfg_num(c, tg, "probe_us", &b->probe_us, 0, 1e6,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, tg, "alpha_us", &b->alpha_us, 0, 1e6,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, tg, "start_s", &t->start_s, 0, sc->duration_s,
	                 NUM_HI_OPEN) ||
	    !sim_cfg_num(c, tg, "stop_s", &t->stop_s, 0, 86400, 0) ||
	    !sim_cfg_num(c, tg, "hang_at_s", &b->hang_at_s, 0, 86400, 0) ||
	    !sim_cfg_num(c, tg, "hang_s", &b->hang_s, 0, 3600, 0))
		return false;
	if (!t->name[0])
		return sim_cfg_fail(c, config_setting_get_member(tg, "name"),
		                    NULL, "must not be empty");
	if (blocks == 0)
		return sim_cfg_fail(c, tg, "blocks",
		                    "missing required field (the task's "
		                    "blocks, N)");
	if (gate == SIM_BE_NONE)
		return sim_cfg_fail(c, config_setting_get_member(tg, "gate"),
		                    NULL, "a BE tenant needs a gate");
	if (b->hang_s > 0 && gate == SIM_BE_NAIVE)
		return sim_cfg_fail(c, config_setting_get_member(tg, "hang_s"),
		                    NULL,
		                    "a naive tenant has no sub-launch to hang: "
		                    "use gate \"telemetry\" or \"probe\"");
	if (t->stop_s > 0 && t->stop_s <= t->start_s)
		return sim_cfg_fail(c, config_setting_get_member(tg, "stop_s"),
		                    NULL, "%g must be after start_s (%g)",
		                    t->stop_s, t->start_s);
	/* Alpha is k under dedicated execution (GPU grid Sec. 4): by
	 * default the probe's own time and a little more. */
	if (!(b->alpha_us > 0.0))
		b->alpha_us = b->probe_us * 1.5;
	b->gate = (enum sim_be_gate)gate;
	b->blocks = (uint64_t)blocks;
	b->depth = (int)depth;
	/* A BE tenant has no frames: these keep the game-side checks
	 * (validate.c) and the unused game model quiet. */
	t->sla_fps = 1.0;
	t->max_in_flight = (int)depth;
	return true;
}

bool sim_be_parse_harvest(struct sim_cfg_ctx *c, const config_setting_t *root,
                          struct sim_scenario *sc)
{
	/* The simulator's own keys; the rest are the parameter table's
	 * (core/params_table.h). rest_ms is the no-daemon client loop's
	 * (batond's clients compute their rest from their budgets). */
	static const char *const others[] = {"rest_ms", "games_seen", "stuck",
	                                     NULL};
	struct core_harvest_params *p = &sc->harvest;
	config_setting_t *g;

	*p = core_harvest_params_default();
	sc->games_seen = true;
	sc->stuck_rule = true;
	if (!sim_cfg_group(c, root, "harvest", &g))
		return false;
	if (!g)
		return true;
	double rest = p->rest_s * 1e3;
	if (!sim_cfg_params(c, g, CORE_PARAM_HARVEST, p, others) ||
	    !sim_cfg_num(c, g, "rest_ms", &rest, 0, 10000, 0) ||
	    !sim_cfg_bool(c, g, "games_seen", &sc->games_seen) ||
	    !sim_cfg_bool(c, g, "stuck", &sc->stuck_rule))
		return false;
	p->rest_s = rest / 1e3;
	return true;
}
