/* The parameter table (params_table.h). Ranges: where batond and the
 * simulator once took different ones, the wider, so that no file either
 * accepted is refused now: kp and ki up to 100, max_ratio up to 1000 (at
 * that ratio the PI clamp is as good as off, an experiment a scenario may
 * want; the default is 4). */
#include "core/params_table.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define POLICY(key, old, type, field, scale, lo, hi, open, unit, meaning)      \
	{                                                                      \
		key, old, CORE_PARAM_POLICY, type,                             \
		    offsetof(struct core_params, field), scale, lo, hi, open,  \
		    unit, meaning                                              \
	}
#define HARVEST(key, type, field, scale, lo, hi, open, unit, meaning)          \
	{                                                                      \
		key, NULL, CORE_PARAM_HARVEST, type,                           \
		    offsetof(struct core_harvest_params, field), scale, lo,    \
		    hi, open, unit, meaning                                    \
	}

#define D CORE_PARAM_DOUBLE
#define U CORE_PARAM_U32
#define B CORE_PARAM_BOOL

static const struct core_param table[] = {
    /* the PI loop and the policies (vGASA) */
    POLICY("kp", NULL, D, pi.kp, 1, 0, 100, false, "",
           "PI proportional gain (vGASA Sec. 4.2)"),
    POLICY("ki", NULL, D, pi.ki, 1, 0, 100, false, "",
           "PI integral gain (vGASA Sec. 4.2)"),
    POLICY("max_ratio", NULL, D, pi.max_ratio, 1, 1, 1000, true, "",
           "PI output clamp: target within reference x or / this"),
    POLICY("sla_margin", NULL, D, sla_margin, 1, 0, 1, false, "",
           "SA and FSA aim at SLA x (1 + this)"),
    POLICY("util_target", NULL, D, util_target, 1, 0, 1, true, "",
           "ESA: the share of the GPU to fill"),
    POLICY("fsa_guard", NULL, D, fsa_guard, 1, 0, 1, false, "",
           "FSA: below SLA x (1 + this) is short; donors keep 2 x it"),
    POLICY(
        "fsa_relax", NULL, D, fsa_relax, 1, 0, 1, false, "1/s",
        "FSA: donors' references grow at least this much a second when safe"),
    POLICY("fsa_hold_s", NULL, D, fsa_hold_s, 1, 0, 60, false, "s",
           "FSA: wait after a reallocation before the next"),
    POLICY("k_alpha", NULL, D, k_alpha, 1, 0, 1, true, "",
           "EWMA weight of a new GPU-seconds-per-frame sample"),
    POLICY("fps_smooth_s", NULL, D, fps_smooth_s, 1, 0, 60, true, "s",
           "time constant of the smoothed frame rate FSA decides on"),
    POLICY("reach_tol", NULL, D, reach_tol, 1, 0, 1, false, "",
           "short of the reference: reachable rate under ref x (1 - this)"),
    POLICY("reach_hold_s", NULL, D, reach_hold_s, 1, 0, 60, false, "s",
           "short this long in a row: the tenant is limited"),
    POLICY("reach_low_s", NULL, D, reach_low_s, 1, 0, 60, false, "s",
           "the slow frames' reach follows a drop at once, a rise with "
           "this time constant; 0 off"),
    POLICY("esa_climb", NULL, D, esa_climb, 1, 0, 1, false, "1/s",
           "ESA: a lowered common reference climbs back by this share a "
           "second"),
    /* the capacity stage (gOver Sec. 3.3, docs/capacity.md) */
    POLICY("cap_period_s", NULL, D, cap_period_s, 1, 0, 60, true, "s",
           "gOver's sampling period T"),
    POLICY("cap_u_over", "u_over", D, cap_u_over, 1, 0, 10, true, "",
           "gOver's U_o: a use above it cap_run times in a row is overload"),
    POLICY("cap_u_limit", "u_limit", D, cap_u_limit, 1, 0, 10, true, "",
           "gOver's U_l: admit only while the load plus the newcomer's is "
           "under it"),
    POLICY("cap_w_u", "w_u", D, cap_w_u, 1, 0, 100, false, "",
           "gOver's w_u: weight of the use in the donor factor"),
    POLICY("cap_w_e", "w_e", D, cap_w_e, 1, 0, 100, false, "",
           "gOver's w_e: weight of the normalised QoS error"),
    POLICY("cap_steal", "steal", D, cap_steal, 1, 0, 1, true, "",
           "share of the donor's unused cap moved per mitigation"),
    POLICY("cap_run", "run", U, cap_run, 1, 1, 1000, false, "periods",
           "samples over cap_u_over in a row that signal overload"),
    POLICY("cap_quiet", "quiet", U, cap_quiet, 1, 1, 1000, false, "periods",
           "periods without an overload signal before admitting"),
    POLICY("cap_total", NULL, D, cap_total, 1, 0, 64, true, "GPUs",
           "capacity the dynamic caps share"),
    POLICY("cap_sla_tol", "sla_tol", D, cap_sla_tol, 1, 0, 1, false, "",
           "a period's rate under SLA x (1 - this) is QoS broken"),
    POLICY("cap_qos_margin", "qos_margin", D, cap_qos_margin, 1, 0, 100, false,
           "", "use over cap_u_over counts only under SLA x (1 + this)"),
    POLICY("cap_encoder_limit", NULL, D, cap_encoder_limit, 1, 0, 1, true, "",
           "admit a stream only while the encoder's load plus its "
           "share is under it"),
    /* the quality stage (dJay, docs/quality.md) */
    POLICY("quality_headroom", NULL, D, quality_headroom, 1, 0, 0.5, false, "",
           "upgrades fill the budget less this share of it"),
    POLICY("quality_hold_s", NULL, D, quality_hold_s, 1, 0, 600, false, "s",
           "a game whose upgrade was undone is not upgraded for this long"),
    POLICY("quality_reach_headroom", NULL, D, quality_reach_headroom, 1, 0, 2,
           false, "",
           "a level is kept while its reachable rate beats held x (1 + "
           "this); 0 off"),
    POLICY("quality_step_ratio", NULL, D, quality_step_ratio, 1, 0, 10, false,
           "",
           "an epoch's cost over k x (1 + this) counts toward a step; 0 "
           "off"),
    POLICY("quality_step_epochs", NULL, U, quality_step_epochs, 1, 1, 100,
           false, "epochs",
           "epochs with frames over the step ratio in a row: k takes "
           "their cost"),
    POLICY("quality_spread_z", NULL, D, quality_spread_z, 1, 0, 10, false, "",
           "the levels fit the budget less this many standard deviations "
           "of their total's epoch cost; 0 off (1.282: over in one window "
           "in ten)"),
    POLICY("quality_warn_epochs", "warn_epochs", U, quality.warn_epochs, 1, 1,
           100000, false, "epochs", "dJay's Warning: epochs in the band"),
    POLICY("quality_critical_epochs", "critical_epochs", U,
           quality.critical_epochs, 1, 1, 100000, false, "epochs",
           "dJay's Critical: epochs above the band"),
    POLICY("quality_critical_ratio", "critical_ratio", D,
           quality.critical_ratio, 1, 1, 100, true, "",
           "the band's top over the budget (dJay: 40 ms over 33)"),
    /* time and space harvesting (docs/harvesting.md) */
    HARVEST("margin_ms", D, margin_s, 1e3, 0, 1000, false, "ms",
            "taken off GPU grid's Eq. 1 window"),
    HARVEST("util_margin", D, util_margin, 1, 0, 1, false, "",
            "GPU share kept free from the best-effort budget"),
    HARVEST("periodical_ms", D, periodical_s, 1e3, 0, 10000, false, "ms",
            "longest periodical sub-launch (GPU grid's N1); 0: the window "
            "alone"),
    HARVEST("continuous_ms", D, continuous_s, 1e3, 0, 10000, true, "ms",
            "sub-launch length in continuous mode (GPU grid's N2)"),
    HARVEST("enter_quiet", U, enter_quiet, 1, 1, 1000, false, "ticks",
            "quiet observations in a row to enter continuous mode"),
    HARVEST("align", B, align, 1, 0, 1, false, "",
            "periodical sub-launches start only in the games' common slot"),
    HARVEST("steer", B, steer, 1, 0, 1, false, "",
            "with align: the games' pacers pack their Presents together"),
    HARVEST("slot_min_ms", D, slot_min_s, 1e3, 0, 1000, false, "ms",
            "a shorter common span is no slot"),
    HARVEST("period_tolerance", D, period_tolerance, 1, 0, 1, false, "",
            "games' periods this far apart (relative) share a slot"),
    HARVEST("stuck_factor", D, stuck_factor, 1, 1, 1000, false, "",
            "a sub-launch over this x its window is hung"),
    HARVEST("stuck_ms", D, stuck_slack_s, 1e3, 0, 600000, false, "ms",
            "... and over its window plus this"),
    HARVEST("space_units", U, space.sm_total, 1, 0, 65535, false, "units",
            "units space harvesting divides; under 2: off"),
    HARVEST("space_window", U, space.window, 1, 1, CORE_COMBO_MAX_WINDOW, false,
            "ticks", "COMBO's prediction window W (Eq. 2)"),
    HARVEST("space_hold_ms", D, space.hold_s, 1e3, 0, 600000, false, "ms",
            "a partition is held at least this long"),
    HARVEST("space_stable_spread", D, space.stable_spread, 1, 0, 10, true, "",
            "frame times within this spread are stable (COMBO)"),
    HARVEST("space_eps", D, space.eps, 1, 0, 10, false, "",
            "COMBO's error bound on a predicted frame time (Eq. 4)"),
    HARVEST("space_earn", D, space_earn, 1, 0, 1, false, "",
            "best-effort CPU use, as a share of the units, that earns a "
            "partition"),
    HARVEST("space_earn_ms", D, space_earn_s, 1e3, 0, 600000, false, "ms",
            "time constant the CPU use is smoothed over"),
    HARVEST("space_holdoff_ms", D, space_holdoff_s, 1e3, 0, 3600000, false,
            "ms", "no partition this long after a game fell under its SLA"),
    HARVEST("idle_lane", B, idle_lane, 1, 0, 1, false, "",
            "the idle-priority lane for best-effort work on this host's "
            "CPUs"),
};

const struct core_param *core_param_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

const struct core_param *core_param_find(enum core_param_group group,
                                         const char *key, bool *deprecated)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct core_param *p = &table[i];
		if (p->group != group)
			continue;
		bool old = p->old_key && strcmp(p->old_key, key) == 0;
		if (strcmp(p->key, key) == 0 || old) {
			if (deprecated)
				*deprecated = old;
			return p;
		}
	}
	return NULL;
}

static void *field(const struct core_param *p, const void *params)
{
	return (char *)params + p->offset;
}

double core_param_get(const struct core_param *p, const void *params)
{
	void *f = field(p, params);
	switch (p->type) {
	case CORE_PARAM_U32:
		return (double)*(const uint32_t *)f;
	case CORE_PARAM_BOOL:
		return *(const bool *)f ? 1.0 : 0.0;
	default:
		/* ms keys: seconds x 1000, as the scenario parser always
		 * computed its defaults */
		return *(const double *)f * p->scale;
	}
}

void core_param_set(const struct core_param *p, void *params, double v)
{
	void *f = field(p, params);
	switch (p->type) {
	case CORE_PARAM_U32:
		*(uint32_t *)f = (uint32_t)v;
		break;
	case CORE_PARAM_BOOL:
		*(bool *)f = v != 0.0;
		break;
	default:
		*(double *)f = v / p->scale;
	}
}

double core_param_default(const struct core_param *p)
{
	if (p->group == CORE_PARAM_HARVEST) {
		struct core_harvest_params h = core_harvest_params_default();
		return core_param_get(p, &h);
	}
	struct core_params c = core_params_default();
	return core_param_get(p, &c);
}

void core_param_default_text(const struct core_param *p, char *buf, size_t len)
{
	double d = core_param_default(p);
	if (p->type == CORE_PARAM_BOOL)
		snprintf(buf, len, "%s", d != 0.0 ? "true" : "false");
	else
		snprintf(buf, len, "%g", d);
}

bool core_param_in_range(const struct core_param *p, double v)
{
	if (!isfinite(v) || v < p->lo || v > p->hi ||
	    (p->lo_open && v == p->lo))
		return false;
	return p->type == CORE_PARAM_DOUBLE || v == floor(v);
}

void core_param_range_text(const struct core_param *p, char *buf, size_t len)
{
	if (p->type == CORE_PARAM_BOOL)
		snprintf(buf, len, "true or false");
	else
		snprintf(buf, len, "%s%g, %g]", p->lo_open ? "(" : "[", p->lo,
		         p->hi);
}

void core_param_range_error(const struct core_param *p, const char *given,
                            char *why, size_t len)
{
	char range[64];
	core_param_range_text(p, range, sizeof(range));
	snprintf(why, len, "must be %s%s, not %s",
	         p->type == CORE_PARAM_U32      ? "an integer in "
	         : p->type == CORE_PARAM_DOUBLE ? "a number in "
	                                        : "",
	         range, given);
}

void core_param_keys(enum core_param_group group, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (table[i].group != group || used >= len)
			continue;
		int n = snprintf(buf + used, len - used, "%s%s",
		                 used ? ", " : "", table[i].key);
		if (n > 0)
			used += (size_t)n;
	}
}
