/* batond's `params` and `harvest` groups (config_params.h). */
#include "daemon/config/config_params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The value as given, for the error: "2.5", "\"fast\"", or "a group" for
 * a group or a list. */
static void given(const config_setting_t *s, char *out, size_t len)
{
	const char *str = config_setting_get_string(s);
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		snprintf(out, len, "%lld",
		         (long long)config_setting_get_int64(s));
		break;
	case CONFIG_TYPE_FLOAT:
		snprintf(out, len, "%g", config_setting_get_float(s));
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(out, len, "%s",
		         config_setting_get_bool(s) ? "true" : "false");
		break;
	case CONFIG_TYPE_STRING:
		snprintf(out, len, "\"%.40s\"", str ? str : "");
		break;
	default:
		snprintf(out, len, "a group or a list");
	}
}

/* The member as a number the table can check; NAN for the wrong type (an
 * integer key wants an integer, a bool key a bool). */
static double value(const config_setting_t *s, enum core_param_type type)
{
	int t = config_setting_type(s);
	if (type == CORE_PARAM_BOOL)
		return t == CONFIG_TYPE_BOOL ? config_setting_get_bool(s) : NAN;
	if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
		return (double)config_setting_get_int64(s);
	if (type == CORE_PARAM_DOUBLE && t == CONFIG_TYPE_FLOAT)
		return config_setting_get_float(s);
	return NAN;
}

bool daemon_config_param(enum core_param_group group, void *params,
                         const config_setting_t *s, char *why, size_t whylen,
                         const struct core_param **renamed)
{
	bool old = false;
	const struct core_param *p =
	    core_param_find(group, config_setting_name(s), &old);
	*renamed = old ? p : NULL;
	if (!p) {
		/* the policy group's keys are too many for one error line */
		char keys[512] = "docs/parameters.md lists them";
		if (group == CORE_PARAM_HARVEST)
			core_param_keys(group, keys, sizeof(keys));
		snprintf(why, whylen, "unknown parameter (%s)", keys);
		return false;
	}
	double v = value(s, p->type);
	if (!core_param_in_range(p, v)) {
		char text[64];
		given(s, text, sizeof(text));
		core_param_range_error(p, text, why, whylen);
		return false;
	}
	core_param_set(p, params, v);
	return true;
}
