/* The pacing wait: sleep on an absolute CLOCK_MONOTONIC deadline until a
 * margin before the wake time, then spin on the clock for the rest.
 *
 * The kernel's timer wakes a thread 50-100 us late on an idle machine and
 * milliseconds late on a busy one; a pure sleep would put that jitter into
 * every frame interval. Spinning the whole wait would cost a core. The
 * margin is the compromise: the spin absorbs the usual wake-up latency and
 * costs at most margin * fps of CPU per second. */
#pragma once

#include <stdint.h>

/* The adaptive margin follows the 90th percentile of the observed wake-up
 * latency: rarer, longer delays (a busy machine's scheduler) are not worth
 * spinning for, since the spin itself would then cost as much as the delay.
 * The floor covers an idle machine's timer latency; the ceiling bounds the
 * CPU a busy machine can make us burn (300 us at 60 FPS is 1.8% of a
 * core). */
#define SHIM_MARGIN_MIN_NS   30000
#define SHIM_MARGIN_MAX_NS   300000
#define SHIM_MARGIN_START_NS 100000

/* Caller-allocated; shim_sleeper_init sets the starting margin. */
struct shim_sleeper {
	int64_t margin_ns; /* sleep ends this long before the wake time */
	int64_t late_ns;   /* running estimate of the latency's 90th
	                      percentile, which the margin follows */
	int adaptive;      /* 0: margin fixed at its start value */
};

/* margin_ns < 0: adaptive, starting at SHIM_MARGIN_START_NS. */
void shim_sleeper_init(struct shim_sleeper *s, int64_t margin_ns);

/* Returns at wake_ns or as soon after as the scheduler allows, never before
 * (unless wake_ns has passed already: then at once). Returns the time it
 * returned at. Only clock_nanosleep and clock reads. */
int64_t shim_sleep_until(struct shim_sleeper *s, int64_t wake_ns);
