/* batond's `harvest` group (config_harvest.h). Not here: the simulator's
 * rest_ms (the client computes its own rest from its budget under batond;
 * rest_ms is its no-daemon loop's, from its fps option) and games_seen
 * (batond always sees the games' shims). */
#include "daemon/config_harvest.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct harvest_key {
	const char *name;
	size_t offset; /* of a double in struct core_harvest_params */
	double scale;  /* config unit to the field's (ms to s) */
	double lo, hi;
	bool lo_open; /* lo itself is not allowed */
};

#define HK(name, field, scale, lo, hi, open)                                   \
	{                                                                      \
		name, offsetof(struct core_harvest_params, field), scale, lo,  \
		    hi, open                                                   \
	}

/* Ranges: the simulator's (scenario_be.c); the stuck rule's: a factor
 * from 1 (flag only past the window) and a slack up to 10 minutes. */
static const struct harvest_key keys[] = {
    HK("margin_ms", margin_s, 1e-3, 0.0, 1000.0, false),
    HK("util_margin", util_margin, 1.0, 0.0, 1.0, false),
    HK("periodical_ms", periodical_s, 1e-3, 0.0, 10000.0, false),
    HK("continuous_ms", continuous_s, 1e-3, 0.0, 10000.0, true),
    HK("stuck_factor", stuck_factor, 1.0, 1.0, 1000.0, false),
    HK("stuck_ms", stuck_slack_s, 1e-3, 0.0, 600000.0, false),
    HK("slot_min_ms", slot_min_s, 1e-3, 0.0, 1000.0, false),
    HK("period_tolerance", period_tolerance, 1.0, 0.0, 1.0, false),
    HK("space_hold_ms", space.hold_s, 1e-3, 0.0, 600000.0, false),
    HK("space_stable_spread", space.stable_spread, 1.0, 0.0, 10.0, true),
    HK("space_eps", space.eps, 1.0, 0.0, 10.0, false),
    HK("space_earn", space_earn, 1.0, 0.0, 1.0, false),
    HK("space_earn_ms", space_earn_s, 1e-3, 0.0, 600000.0, false),
    HK("space_holdoff_ms", space_holdoff_s, 1e-3, 0.0, 3600000.0, false),
};

/* The integer keys: space harvesting's units (0 = off; harvest_space.h)
 * and window (Eq. 2's W, in ticks). */
static bool int_key(struct core_harvest_params *p, const char *name,
                    long long n, bool integer, const char *val, char *why,
                    size_t whylen, bool *known)
{
	*known = true;
	if (strcmp(name, "enter_quiet") == 0) {
		if (!integer || n < 1 || n > 1000) {
			snprintf(why, whylen,
			         "must be an integer in [1, 1000]%s", val);
			return false;
		}
		p->enter_quiet = (uint32_t)n;
	} else if (strcmp(name, "space_units") == 0) {
		if (!integer || n < 0 || n > 65535) {
			snprintf(why, whylen,
			         "must be an integer in [0, 65535] (0: off)%s",
			         val);
			return false;
		}
		p->space.sm_total = (uint32_t)n;
	} else if (strcmp(name, "space_window") == 0) {
		if (!integer || n < 1 || n > CORE_COMBO_MAX_WINDOW) {
			snprintf(why, whylen, "must be an integer in [1, %d]%s",
			         CORE_COMBO_MAX_WINDOW, val);
			return false;
		}
		p->space.window = (uint32_t)n;
	} else {
		*known = false;
	}
	return true;
}

/* The value as given, for the error: " not 2.5", " not \"fast\"", or
 * nothing for a group or a list. */
static void given(const config_setting_t *s, char *out, size_t len)
{
	const char *str = config_setting_get_string(s);
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		snprintf(out, len, ", not %lld",
		         (long long)config_setting_get_int64(s));
		break;
	case CONFIG_TYPE_FLOAT:
		snprintf(out, len, ", not %g", config_setting_get_float(s));
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(out, len, ", not %s",
		         config_setting_get_bool(s) ? "true" : "false");
		break;
	case CONFIG_TYPE_STRING:
		snprintf(out, len, ", not \"%.40s\"", str ? str : "");
		break;
	default:
		out[0] = '\0';
	}
}

bool daemon_config_harvest_key(struct core_harvest_params *p,
                               const config_setting_t *s, char *why,
                               size_t whylen)
{
	const char *name = config_setting_name(s);
	int type = config_setting_type(s);
	bool integer = type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64;
	char val[64];
	given(s, val, sizeof(val));
	bool known;
	bool ok = int_key(p, name, config_setting_get_int64(s), integer, val,
	                  why, whylen, &known);
	if (known)
		return ok;
	bool *flag = strcmp(name, "align") == 0       ? &p->align
	             : strcmp(name, "steer") == 0     ? &p->steer
	             : strcmp(name, "idle_lane") == 0 ? &p->idle_lane
	                                              : NULL;
	if (flag) {
		if (type != CONFIG_TYPE_BOOL) {
			snprintf(why, whylen, "must be true or false%s", val);
			return false;
		}
		*flag = config_setting_get_bool(s);
		return true;
	}
	const struct harvest_key *k = NULL;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, name) == 0)
			k = &keys[i];
	if (!k) {
		snprintf(why, whylen, "unknown parameter (%s)",
		         DAEMON_HARVEST_KEYS);
		return false;
	}
	double v;
	if (integer)
		v = (double)config_setting_get_int64(s);
	else if (type == CONFIG_TYPE_FLOAT)
		v = config_setting_get_float(s);
	else
		v = NAN;
	if (!isfinite(v) || v < k->lo || v > k->hi ||
	    (k->lo_open && v == k->lo)) {
		snprintf(why, whylen, "must be a number in %s%g, %g]%s",
		         k->lo_open ? "(" : "[", k->lo, k->hi, val);
		return false;
	}
	*(double *)((char *)p + k->offset) = v * k->scale;
	return true;
}
