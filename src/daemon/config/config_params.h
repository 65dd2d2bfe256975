/* batond's `params` and `harvest` config groups: the core's parameters
 * (core/params_table.h; docs/parameters.md), under the same keys and
 * ranges as a scenario's `policy` and `harvest` groups. Not here: the
 * simulator's own rest_ms (the client computes its own rest from its
 * budget under batond), games_seen (batond always sees the games' shims)
 * and stuck. */
#pragma once

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/params_table.h"

/* One member s of a group into params (struct core_params for
 * CORE_PARAM_POLICY, struct core_harvest_params for CORE_PARAM_HARVEST).
 * false with why the value is refused ("must be a number in [0, 1000],
 * not 1001") or "unknown parameter (...)" in why. A key's old name is
 * taken: *renamed is then the entry, whose key the caller's warning
 * names; else NULL. */
bool daemon_config_param(enum core_param_group group, void *params,
                         const config_setting_t *s, char *why, size_t whylen,
                         const struct core_param **renamed);
