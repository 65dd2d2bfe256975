/* What batond writes into a tenant's control block: the core's decision
 * for it (target rate, cap, quality level, phase, partition) in the
 * block's units. Written each epoch by the tick and at once when a
 * tenant registers. */
#pragma once

#include <stdint.h>

struct tenant;

/* The capacity stage's budget (a share of one GPU, 0 = none) as the
 * control block's GPU ns per second. */
uint32_t daemon_cap_ns(double budget);

/* Writes t->core.target_fps into the tenant's control block as its period
 * (0: unpaced; never longer than IPC_FRAME_MAX_PERIOD_NS), stamped with the
 * current tick, with its cap, quality level, phase and its GPU's
 * partition (split: the games' units of the device, 0 for none). */
void daemon_write_target(struct tenant *t, uint64_t tick, uint32_t split);
