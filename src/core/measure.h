/* One way in for a tenant's measurements: what a driver counted of a game
 * over one control epoch (batond from its shim's ring, the simulator from
 * its model of that game) becomes the core's tenant inputs
 * (struct core_tenant) here, and only here, so that the simulator
 * predicts what batond would decide on the same frames.
 *
 * What stays with the driver is how it counts: batond reads records and
 * bounds a GPU time claim to what it sees (its own measurement, the
 * daemon's tenant_seen.h); the simulator reads its GPU model. What is
 * here is what a count means to the core: F_out from the intervals (or,
 * for a game that showed nothing, from the time since its last frame),
 * the clock of the last Present, the tenant's standing terms.
 *
 * Pure: no I/O, no clock reads; the driver passes the tick's time. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "core/policy.h"

/* What a tenant is, the same from epoch to epoch until the driver changes
 * it (batond: its hello, its requests, the configuration; the simulator:
 * its scenario entry). */
struct core_tenant_terms {
	double sla_fps;
	double fixed_fps;     /* > 0: pinned */
	double cap;           /* its published cap, 0 = none (cap_initial) */
	bool work_conserving; /* core_tenant.work_conserving */
	bool work_after_wait; /* its frames reach the GPU after the pacing
	                         wait (core_tenant.work_after_wait) */
	uint64_t owner;       /* who runs it (core_tenant.owner) */
};

/* What one epoch's frames of a tenant said; times in ns on the driver's
 * clock (batond: CLOCK_MONOTONIC; the simulator: its virtual clock). */
struct core_epoch_sample {
	int64_t now_ns;          /* the tick that ends the epoch */
	uint32_t frames;         /* frames counted in the epoch */
	uint32_t intervals;      /* frame intervals ending in it */
	double interval_sum_s;   /* their lengths, summed */
	int64_t last_frame_ns;   /* when the last frame ever counted was, on
	                            the clock of the intervals; 0 = none */
	int64_t last_present_ns; /* its last Present; 0 = none */
	uint32_t paced;          /* frames the pacer delayed */
	double sleep_s;          /* their pacing sleeps, summed */
	double gate_s;           /* the budget gate's waits, summed */
	double gpu_s;            /* GPU seconds of the epoch that count */
	bool gpu_bounded;        /* the driver bounded a claim to gpu_s
	                            (core_tenant.gpu_bounded) */
};

/* F_out, the controlled variable of vGASA Sec. 3.1: the epoch's intervals
 * over their sum (frames per epoch would be far too coarse: 3 frames in
 * 100 ms at 30 FPS); without an interval, a game that counted no frame
 * runs at most at 1 / (time since its last one), which a stalled game
 * must report (it decays towards 0); else 0 (none yet, or one frame with
 * no interval: unknown). */
double core_epoch_fps(const struct core_epoch_sample *s);

/* Fills t's inputs from its terms and the epoch's sample; the core's
 * state in *t is left as it was. */
void core_tenant_measure(struct core_tenant *t,
                         const struct core_tenant_terms *terms,
                         const struct core_epoch_sample *s);
