/* Quality in scenario files (dJay; docs/scenarios.md "Quality"): the
 * top-level `quality` group (who picks the levels, the stale-frame penalty,
 * the alarm's parameters) and a tenant's levels (inline per-type models or
 * a model file, src/quality/model_file.h), start level and areas. */
#include "sim/scenario/scenario_quality.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quality/model_file.h"
#include "sim/scenario/quality_mode.h"

/* The group's own keys, and the alarm's parameters it took before they
 * became the policy group's quality_* keys (read from the parameter
 * table, with a warning naming the new key). */
static bool quality_members(struct sim_cfg_ctx *c, const config_setting_t *g,
                            struct sim_scenario *sc)
{
	static const char *const own[] = {"mode", "stale_penalty", NULL};
	static const char *const moved[] = {"critical_epochs", "warn_epochs",
	                                    "critical_ratio", NULL};
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, i);
		const char *name = config_setting_name(s);
		bool is_own = false, is_moved = false, known = false;
		for (size_t k = 0; own[k]; k++)
			is_own = is_own || strcmp(own[k], name) == 0;
		for (size_t k = 0; moved[k]; k++)
			is_moved = is_moved || strcmp(moved[k], name) == 0;
		if (is_own)
			continue;
		if (!is_moved)
			return sim_cfg_fail(c, s, NULL, "unknown field");
		if (!sim_cfg_param(c, s, CORE_PARAM_POLICY, &sc->params,
		                   &known))
			return false;
	}
	return true;
}

bool sim_scenario_parse_quality(struct sim_cfg_ctx *c,
                                const config_setting_t *root,
                                struct sim_scenario *sc)
{
	config_setting_t *g, *ms = NULL;
	const char *mode = "off";

	/* params.quality holds core_params_default()'s (the policy group
	 * set them). */
	sc->stale_penalty = 0.5;
	if (!sim_cfg_group(c, root, "quality", &g))
		return false;
	if (g) {
		const char *m;
		if (!quality_members(c, g, sc) ||
		    !sim_cfg_str(c, g, "mode", true, &m, &ms) ||
		    !sim_cfg_num(c, g, "stale_penalty", &sc->stale_penalty, 0,
		                 1, 0))
			return false;
		mode = m;
	}
	if (!sim_quality_set_mode(sc, mode))
		return sim_cfg_fail(c, ms, NULL,
		                    "unknown mode \"%s\" (expected \"off\", "
		                    "\"djay\", \"djay-paper\", \"all-lo\", "
		                    "\"all-me\" or \"all-hi\")",
		                    mode);
	bool any = false;
	for (size_t i = 0; i < sc->n_tenants; i++)
		any = any || sc->tenants[i].quality;
	if (sc->quality != SIM_QUALITY_OFF && !any)
		return sim_cfg_fail(c, ms, NULL,
		                    "mode \"%s\" needs a tenant with levels or "
		                    "a model",
		                    mode);
	return true;
}

/* Inline levels, paper-mode models (no intercept, SSIM itself): per type,
 * cost_ms (ms of GPU per object) and ssim (SSIM per object). */
static bool parse_levels(struct sim_cfg_ctx *c, const config_setting_t *list,
                         struct sim_quality_spec *q)
{
	static const char *const known[] = {"name", "cost_ms", "ssim", NULL};
	q->n_levels = (size_t)config_setting_length(list);
	for (size_t l = 0; l < q->n_levels; l++) {
		const config_setting_t *e =
		    config_setting_get_elem(list, (unsigned)l);
		struct core_qm_level *lv = &q->level[l];
		double w[CORE_QM_MAX_TYPES];
		char name[SIM_NAME_MAX];
		if (config_setting_type(e) != CONFIG_TYPE_GROUP)
			return sim_cfg_fail(c, e, NULL, "expected a group");
		if (!sim_cfg_check_known(c, e, known) ||
		    !sim_cfg_str_copy(c, e, "name", false, name,
		                      sizeof(name)) ||
		    !sim_cfg_num_array(c, e, "cost_ms", w, &q->n_types,
		                       CORE_QM_MAX_TYPES, 0, 10000,
		                       "one per object type"))
			return false;
		lv->mode = CORE_QM_PAPER;
		lv->n_types = q->n_types;
		uint64_t all = q->n_types >= 64
		                   ? ~UINT64_C(0)
		                   : (UINT64_C(1) << q->n_types) - 1;
		for (size_t j = 0; j < q->n_types; j++)
			lv->cost.weight[j] = w[j] / 1000.0;
		if (!sim_cfg_num_array(c, e, "ssim", lv->benefit.weight,
		                       &q->n_types, CORE_QM_MAX_TYPES, -1, 1,
		                       "one per object type"))
			return false;
		lv->cost.kept = lv->benefit.kept = all;
	}
	return true;
}

static bool parse_model(struct sim_cfg_ctx *c, const config_setting_t *s,
                        const char *rel, struct sim_quality_spec *q)
{
	char path[1024], msg[256];
	struct quality_model_set *set = malloc(sizeof(*set));
	if (!set)
		return sim_cfg_fail(c, s, NULL, "out of memory");
	if (rel[0] == '/' || !c->base_dir)
		snprintf(path, sizeof(path), "%s", rel);
	else
		snprintf(path, sizeof(path), "%s/%s", c->base_dir, rel);
	bool ok = quality_model_load(path, 0, 0, set, msg, sizeof(msg));
	if (ok && (set->n_levels < 2 || set->n_levels > QUALITY_MAX_LEVELS)) {
		snprintf(msg, sizeof(msg),
		         "%.200s: needs 2 to %d levels, has %zu", path,
		         QUALITY_MAX_LEVELS, set->n_levels);
		ok = false;
	}
	if (ok) {
		q->n_levels = set->n_levels;
		q->n_types = set->n_types;
		memcpy(q->level, set->level, q->n_levels * sizeof(q->level[0]));
	}
	free(set);
	return ok || sim_cfg_fail(c, s, NULL, "%s", msg);
}

static bool parse_areas(struct sim_cfg_ctx *c, const config_setting_t *tg,
                        struct sim_quality_spec *q)
{
	static const char *const known[] = {"name",   "duration_s", "frames",
	                                    "active", "potential",  NULL};
	config_setting_t *list;
	if (!sim_cfg_list(c, tg, "areas", true, 1, MAX_SCENES, &list))
		return false;
	q->n_areas = (size_t)config_setting_length(list);
	q->areas = calloc(q->n_areas, sizeof(*q->areas));
	if (!q->areas)
		return sim_cfg_fail(c, list, NULL, "out of memory");
	for (size_t i = 0; i < q->n_areas; i++) {
		const config_setting_t *e =
		    config_setting_get_elem(list, (unsigned)i);
		struct sim_area *a = &q->areas[i];
		long long frames = 0;
		size_t n = q->n_types;
		if (!sim_cfg_check_known(c, e, known) ||
		    !sim_cfg_str_copy(c, e, "name", false, a->name,
		                      sizeof(a->name)) ||
		    !sim_cfg_num(c, e, "duration_s", &a->duration_s, 0,
		                 MAX_DURATION_S, NUM_LO_OPEN) ||
		    !sim_cfg_int(c, e, "frames", &frames, 1, 1LL << 40) ||
		    !sim_cfg_num_array(c, e, "active", a->active, &n,
		                       CORE_QM_MAX_TYPES, 0, 1e6,
		                       "one per object type"))
			return false;
		a->frames = (uint64_t)frames;
		bool last = i + 1 == q->n_areas;
		if ((a->duration_s > 0) == (a->frames > 0) &&
		    !(last && !q->loop && a->frames == 0))
			return sim_cfg_fail(
			    c, e, NULL,
			    "needs exactly one of duration_s and "
			    "frames (the last area may have "
			    "neither unless areas_loop)");
		memcpy(a->potential, a->active, sizeof(a->potential));
		if (config_setting_get_member(e, "potential") &&
		    !sim_cfg_num_array(c, e, "potential", a->potential, &n,
		                       CORE_QM_MAX_TYPES, 0, 1e6,
		                       "one per object type"))
			return false;
	}
	return true;
}

bool sim_scenario_parse_tenant_quality(struct sim_cfg_ctx *c,
                                       const config_setting_t *tg,
                                       struct sim_tenant_spec *t)
{
	config_setting_t *levels = config_setting_get_member(tg, "levels");
	config_setting_t *model_s;
	const char *model;
	if (!sim_cfg_str(c, tg, "model", false, &model, &model_s))
		return false;
	if (!levels && !model) {
		static const char *const only[] = {"start_level", "areas",
		                                   "areas_loop", NULL};
		return sim_cfg_none_of(c, tg, only, "needs levels or a model");
	}
	if (levels && model)
		return sim_cfg_fail(c, model_s, NULL,
		                    "cannot be combined with levels");
	static const char *const parametric[] = {"gpu_ms", "scenes", "trace",
	                                         "profile_ms", NULL};
	if (!sim_cfg_none_of(c, tg, parametric,
	                     "cannot be combined with quality levels (their "
	                     "models give the GPU cost)"))
		return false;
	struct sim_quality_spec *q = calloc(1, sizeof(*q));
	if (!q)
		return sim_cfg_fail(c, tg, NULL, "out of memory");
	t->quality = q;
	if (levels && (!sim_cfg_list(c, tg, "levels", true, 2,
	                             QUALITY_MAX_LEVELS, &levels) ||
	               !parse_levels(c, levels, q)))
		return false;
	if (model && !parse_model(c, model_s, model, q))
		return false;
	long long start = (long long)q->n_levels - 1;
	if (!sim_cfg_int(c, tg, "start_level", &start, 0,
	                 (long long)q->n_levels - 1) ||
	    !sim_cfg_bool(c, tg, "areas_loop", &q->loop) ||
	    !parse_areas(c, tg, q))
		return false;
	q->start_level = (uint32_t)start;
	if (!(t->cpu_ms > 0.0))
		return sim_cfg_fail(c, config_setting_get_member(tg, "cpu_ms"),
		                    NULL,
		                    "must be > 0 for a game with levels (an "
		                    "empty area costs the GPU nothing)");
	return true;
}

void sim_quality_spec_free(struct sim_quality_spec *q)
{
	if (q)
		free(q->areas);
	free(q);
}
