/* The control epoch's harvesting parts (tick.c): the best-effort
 * tenants' inputs to stage 6 and what it decided, into their control
 * blocks, status and metrics; space harvesting's partition (core/
 * harvest_space.h) for the log. */
#pragma once

#include <stdint.h>

#include "daemon/daemon.h"
#include "daemon/report/metrics.h"

/* Stage 6's inputs on GPU g: its best-effort tenants' state, the tick's
 * time and length, its partition's state, and whether it is this host's
 * CPUs (software: batond's decision, tick.c's cpu_device). */
void daemon_harvest_gather(struct daemon *d, size_t g, int64_t now, double dt,
                           bool software);

/* What stage 6 decided on GPU g, into each of its best-effort tenants
 * and their control blocks (daemon_write_be). */
void daemon_harvest_apply(struct daemon *d, size_t g);

/* A change of space harvesting's scheme, or a partition given back for
 * a game's miss, logged with its cause. */
void daemon_space_log(const struct daemon *d, const struct daemon_gpu *dg);

/* Why the best-effort windows on a GPU are shut (core/harvest.h): "open",
 * "cost", "period", "load" or "other". */
const char *daemon_hold_reason(const struct core_harvest_hold *h);

/* The same in a sentence for status, with the figures ("" when open). */
void daemon_hold_detail(const struct core_harvest_hold *h, char *buf,
                        size_t len);

/* A best-effort tenant's line of the metrics snapshot. */
void daemon_fill_be_snapshot(const struct daemon *d, const struct tenant *t,
                             struct metrics_be *m);
