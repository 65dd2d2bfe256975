/* batond's `harvest` config group: the time-harvesting parameters
 * (core/harvest.h; docs/harvesting.md), with the simulator's `harvest`
 * group's names and ranges for the keys both have. */
#pragma once

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/harvest.h"

/* The keys, for errors and --help. */
#define DAEMON_HARVEST_KEYS                                                    \
	"margin_ms, util_margin, periodical_ms, continuous_ms, enter_quiet, "  \
	"stuck_factor, stuck_ms, align, steer, slot_min_ms, "                  \
	"period_tolerance, "                                                   \
	"space_units, space_window, space_hold_ms, space_stable_spread, "      \
	"space_eps, space_earn, space_earn_ms, space_holdoff_ms, idle_lane"

/* One member s of the group into p. false with why the value is refused
 * (e.g. "must lie in [0, 1000]") in why, or "unknown parameter". */
bool daemon_config_harvest_key(struct core_harvest_params *p,
                               const config_setting_t *s, char *why,
                               size_t whylen);
