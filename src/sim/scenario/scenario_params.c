/* The core's parameters in a scenario: any key of the parameter table
 * (core/params_table.h), read with the table's type and range. */
#include "sim/scenario/scenario_parse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/log.h"

/* The member's value as a number the table can check: NAN for a value of
 * the wrong type (an integer key wants an integer, a bool one a bool). */
static double member_value(const config_setting_t *s, enum core_param_type type)
{
	int t = config_setting_type(s);
	bool integer = t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
	if (type == CORE_PARAM_BOOL)
		return t == CONFIG_TYPE_BOOL ? config_setting_get_bool(s) : NAN;
	if (integer)
		return (double)config_setting_get_int64(s);
	if (type == CORE_PARAM_DOUBLE && t == CONFIG_TYPE_FLOAT)
		return config_setting_get_float(s);
	return NAN;
}

static const char *type_wanted(enum core_param_type type)
{
	return type == CORE_PARAM_BOOL  ? "true or false"
	       : type == CORE_PARAM_U32 ? "an integer"
	                                : "a number";
}

bool sim_cfg_param(struct sim_cfg_ctx *c, const config_setting_t *s,
                   enum core_param_group group, void *params, bool *known)
{
	bool old = false;
	const struct core_param *p =
	    core_param_find(group, config_setting_name(s), &old);
	*known = p != NULL;
	if (!p)
		return true;
	if (old) {
		char path[sizeof(c->err->field)];
		sim_cfg_setting_path(s, path, sizeof(path));
		log_warn("%s:%d: %s is deprecated: use %s", c->origin,
		         config_setting_source_line(s), path, p->key);
	}
	double v = member_value(s, p->type);
	if (isnan(v))
		return sim_cfg_fail(c, s, NULL, "expected %s",
		                    type_wanted(p->type));
	if (!core_param_in_range(p, v)) {
		char given[32], why[160];
		snprintf(given, sizeof(given), "%g", v);
		core_param_range_error(p, given, why, sizeof(why));
		return sim_cfg_fail(c, s, NULL, "%s", why);
	}
	core_param_set(p, params, v);
	return true;
}

bool sim_cfg_params(struct sim_cfg_ctx *c, const config_setting_t *g,
                    enum core_param_group group, void *params,
                    const char *const *others)
{
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, i);
		bool known = false;
		for (const char *const *o = others; *o && !known; o++)
			known = strcmp(*o, config_setting_name(s)) == 0;
		if (known)
			continue;
		if (!sim_cfg_param(c, s, group, params, &known))
			return false;
		if (!known)
			return sim_cfg_fail(c, s, NULL, "unknown field");
	}
	return true;
}
