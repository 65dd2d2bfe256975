/* A hung best-effort kernel (docs/harvesting.md "A hung
 * sub-launch"): a BE tenant whose sub-launch under way has been in flight
 * longer than max(stuck_factor x the window it was given, that window +
 * stuck_slack_s) is stuck. Its client stamps the release of each
 * sub-launch (ipc/shm.h, be_inflight_ns); batond passes the elapsed time
 * in core_be_tenant.inflight_s, and core_harvest_tick applies the rule
 * last. Pure: no I/O, no clock. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/harvest.h"

/* Whether be's sub-launch under way has overrun: inflight_s and
 * inflight_window_s both positive and finite, and inflight_s past
 * max(stuck_factor x window, window + stuck_slack_s). */
bool core_harvest_overran(const struct core_harvest_params *p,
                          const struct core_be_tenant *be);

/* Sets each tenant's stuck flag and hg->n_stuck. A stuck tenant gets no
 * budget and no window; while any is stuck, every BE tenant's window on
 * the GPU is 0 (the rule's reason is in harvest_stuck.c). Budgets of the
 * others stand: they resume as they were once it clears. */
void core_harvest_stuck(const struct core_harvest_params *p,
                        struct core_harvest_gpu *hg, struct core_be_tenant *be,
                        size_t n);
