/* A scenario's tenants list: each tenant's costs, rates, timing, pacer,
 * cap and admission, its scenes, and the checks between its fields. */
#include "sim/scenario/scenario_be.h"
#include "sim/scenario/scenario_parse.h"
#include "sim/scenario/scenario_quality.h"

#include <stdlib.h>
#include <string.h>

static bool parse_scenes(struct sim_cfg_ctx *c, const config_setting_t *tg,
                         struct sim_tenant_spec *t)
{
	static const char *const known[] = {"at_s", "cpu_ms", "gpu_ms", NULL};
	config_setting_t *list;

	if (!sim_cfg_list(c, tg, "scenes", false, 0, MAX_SCENES, &list))
		return false;
	if (!list || config_setting_length(list) == 0)
		return true;
	size_t n = (size_t)config_setting_length(list);
	t->scenes = calloc(n, sizeof(*t->scenes));
	if (!t->scenes)
		return sim_cfg_fail(c, list, NULL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, i);
		struct sim_scene *sn = &t->scenes[i];
		t->n_scenes = i + 1;
		if (!sim_cfg_check_known(c, e, known) ||
		    !sim_cfg_num(c, e, "at_s", &sn->at_s, 0, MAX_DURATION_S,
		                 NUM_REQUIRED) ||
		    !sim_cfg_num(c, e, "cpu_ms", &sn->cpu_ms, 0, 10000, 0) ||
		    !sim_cfg_num(c, e, "gpu_ms", &sn->gpu_ms, 0, 10000, 0))
			return false;
		if (i > 0 && sn->at_s <= t->scenes[i - 1].at_s)
			return sim_cfg_fail(
			    c, config_setting_get_member(e, "at_s"), NULL,
			    "%g must be after the previous scene's %g",
			    sn->at_s, t->scenes[i - 1].at_s);
	}
	return true;
}

/* The keys of a game tenant (a best-effort one's: scenario_be.c). */
static const char *const tenant_keys[] = {
    "name",   "sla_fps",       "cpu_ms",          "gpu_ms",
    "jitter", "cpu_stretch",   "fixed_fps",       "start_s",
    "stop_s", "max_in_flight", "pacer",           "sleep_granularity_ms",
    "trace",  "scenes",        "owner",           "cap",
    "admit",  "profile_ms",    "work_conserving", "levels",
    "model",  "start_level",   "areas",           "areas_loop",
    NULL};

/* The name, and the trace (NULL when none) with its setting. */
static bool parse_name_trace(struct sim_cfg_ctx *c, const config_setting_t *tg,
                             struct sim_tenant_spec *t, const char **trace,
                             config_setting_t **trace_s)
{
	if (!sim_cfg_str_copy(c, tg, "name", true, t->name, sizeof(t->name)))
		return false;
	if (!t->name[0])
		return sim_cfg_fail(c, config_setting_get_member(tg, "name"),
		                    NULL, "must not be empty");
	if (!sim_cfg_str(c, tg, "trace", false, trace, trace_s))
		return false;
	if (!*trace)
		return true;
	/* A trace gives the costs frame by frame; parametric costs or scenes
	 * next to it would be ignored, which is worth an error. */
	static const char *const parametric[] = {"cpu_ms", "gpu_ms", "jitter",
	                                         "scenes", NULL};
	if (!sim_cfg_none_of(c, tg, parametric,
	                     "cannot be combined with trace"))
		return false;
	if (!(*trace)[0])
		return sim_cfg_fail(c, *trace_s, NULL, "must not be empty");
	return true;
}

/* The numbers, flags and words of a game tenant, each in its range. */
static bool parse_fields(struct sim_cfg_ctx *c, const config_setting_t *tg,
                         struct sim_tenant_spec *t,
                         const struct sim_scenario *sc, bool traced)
{
	static const char *const pacers[] = {"grid", "relative", NULL};
	long long mif = t->max_in_flight, owner = 0;
	int pacer = (int)t->pacer;
	unsigned cost_flags = traced ? 0 : NUM_REQUIRED;
	/* A game with quality levels: its models give the GPU cost. */
	bool levels = config_setting_get_member(tg, "levels") ||
	              config_setting_get_member(tg, "model");
	if (!sim_cfg_num(c, tg, "sla_fps", &t->sla_fps, 0, 10000,
	                 NUM_REQUIRED | NUM_LO_OPEN) ||
	    !sim_cfg_num(c, tg, "cpu_ms", &t->cpu_ms, 0, 10000, cost_flags) ||
	    !sim_cfg_num(c, tg, "gpu_ms", &t->gpu_ms, 0, 10000,
	                 levels ? 0 : cost_flags) ||
	    !sim_cfg_num(c, tg, "jitter", &t->jitter, 0, 2, 0) ||
	    !sim_cfg_num(c, tg, "cpu_stretch", &t->cpu_stretch, 0, 100, 0) ||
	    !sim_cfg_num(c, tg, "fixed_fps", &t->fixed_fps, 0, 10000, 0) ||
	    !sim_cfg_num(c, tg, "start_s", &t->start_s, 0, sc->duration_s,
	                 NUM_HI_OPEN) ||
	    !sim_cfg_num(c, tg, "stop_s", &t->stop_s, 0, MAX_DURATION_S, 0) ||
	    !sim_cfg_int(c, tg, "max_in_flight", &mif, 0, MAX_IN_FLIGHT) ||
	    !sim_cfg_int(c, tg, "owner", &owner, 0, 4294967295LL) ||
	    !sim_cfg_enum(c, tg, "pacer", pacers, &pacer) ||
	    !sim_cfg_num(c, tg, "sleep_granularity_ms",
	                 &t->sleep_granularity_ms, 0, 1000, 0) ||
	    !sim_cfg_num(c, tg, "cap", &t->cap, 0, 1, NUM_LO_OPEN) ||
	    !sim_cfg_bool(c, tg, "admit", &t->admit) ||
	    !sim_cfg_bool(c, tg, "work_conserving", &t->work_conserving) ||
	    !sim_cfg_num(c, tg, "profile_ms", &t->profile_ms, 0, 10000,
	                 NUM_LO_OPEN))
		return false;
	t->max_in_flight = (int)mif;
	t->owner = (uint64_t)owner;
	t->pacer = (enum sim_pacer_kind)pacer;
	return true;
}

/* The checks between a game tenant's fields. */
static bool check_fields(struct sim_cfg_ctx *c, const config_setting_t *tg,
                         const struct sim_tenant_spec *t,
                         const struct sim_scenario *sc)
{
	/* A cap only the budget model enforces would silently do nothing. */
	if (t->cap > 0.0 && sc->gpu.model != SIM_GPU_BUDGET)
		return sim_cfg_fail(c, config_setting_get_member(tg, "cap"),
		                    NULL,
		                    "needs gpu.model = \"budget\" (the only "
		                    "model that enforces caps)");
	if (t->work_conserving && !(t->cap > 0.0))
		return sim_cfg_fail(
		    c, config_setting_get_member(tg, "work_conserving"), NULL,
		    "needs a cap");
	if (t->admit && !(t->profile_ms > 0.0) && !(t->gpu_ms > 0.0))
		return sim_cfg_fail(c, config_setting_get_member(tg, "admit"),
		                    NULL,
		                    "needs profile_ms or gpu_ms: admission "
		                    "asks whether its expected load fits");
	if (t->stop_s > 0 && t->stop_s <= t->start_s)
		return sim_cfg_fail(
		    c, config_setting_get_member(tg, "stop_s"), NULL,
		    "%g must be after start_s (%g), or 0 for the end",
		    t->stop_s, t->start_s);
	return true;
}

static bool parse_tenant(struct sim_cfg_ctx *c, const config_setting_t *tg,
                         struct sim_tenant_spec *t,
                         const struct sim_scenario *sc)
{
	config_setting_t *trace_s;
	const char *trace;

	if (sim_be_is_tenant(tg)) /* a best-effort tenant: scenario_be.c */
		return sim_be_parse_tenant(c, tg, t, sc);
	t->max_in_flight = 2;
	t->pacer = SIM_PACER_GRID;
	if (!sim_cfg_check_known(c, tg, tenant_keys) ||
	    !parse_name_trace(c, tg, t, &trace, &trace_s) ||
	    !parse_fields(c, tg, t, sc, trace != NULL) ||
	    !check_fields(c, tg, t, sc))
		return false;
	if (!sim_scenario_parse_tenant_quality(c, tg, t))
		return false;
	/* A frame that costs nothing would repeat forever at one instant of
	 * virtual time. */
	if (!trace && !t->quality && !(t->cpu_ms + t->gpu_ms > 0))
		return sim_cfg_fail(c, config_setting_get_member(tg, "gpu_ms"),
		                    NULL, "cpu_ms + gpu_ms must be > 0");
	if (!parse_scenes(c, tg, t))
		return false;
	if (trace && !sim_scenario_read_trace(c, trace_s, trace, t))
		return false;
	return true;
}

bool sim_scenario_parse_tenants(struct sim_cfg_ctx *c,
                                const config_setting_t *root,
                                struct sim_scenario *sc)
{
	config_setting_t *list;

	/* A space-harvesting scenario's game and BE work are its combo
	 * group's (sim_combo.h). */
	if (!sim_cfg_list(c, root, "tenants", !sc->combo.on && !sc->fleet.on, 1,
	                  MAX_TENANTS, &list))
		return false;
	if (!list)
		return true;
	size_t n = (size_t)config_setting_length(list);
	sc->tenants = calloc(n, sizeof(*sc->tenants));
	if (!sc->tenants)
		return sim_cfg_fail(c, list, NULL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, i);
		/* Counted before parsing so that finish frees a half-parsed
		 * tenant's scenes and trace. */
		sc->n_tenants = i + 1;
		if (!parse_tenant(c, e, &sc->tenants[i], sc))
			return false;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(sc->tenants[j].name, sc->tenants[i].name))
				continue;
			return sim_cfg_fail(
			    c, config_setting_get_member(e, "name"), NULL,
			    "duplicate tenant name \"%s\"",
			    sc->tenants[i].name);
		}
	}
	return true;
}
