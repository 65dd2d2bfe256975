/* Frame pacing math: where the sleep before Present ends.
 *
 * Two forms:
 * - vGASA's relative sleep, Eq. 1: T_sleep = 1000/F - T_cpu - T_gpu. Each
 *   frame's error (timer overshoot, a late GPU) carries into the average
 *   rate, which is why vGASA needs its PI loop to hold the rate.
 * - Baton's absolute deadline grid: frame k should be on screen at
 *   D_k = D_{k-1} + 1/F. The pacer wakes at D_k - T_gpu (the GPU work
 *   queued at Present still has to run) so sleep overshoot does not
 *   accumulate. A frame that is already late re-anchors the grid at
 *   now + T_gpu instead of letting the next frames burst to catch up. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Eq. 1, in seconds: max(0, 1/fps - cpu_s - gpu_s); 0 when fps <= 0. */
double core_pacing_sleep_relative(double fps, double cpu_s, double gpu_s);

/* Caller-allocated; a zeroed struct is an unanchored pacer. */
struct core_pacer {
	int64_t deadline_ns; /* when the last paced frame should display */
	int64_t offset_ns;   /* the GPU time the pacer wakes early by: the
	                        prediction, held within a dead band */
	bool anchored;       /* deadline_ns is valid */
};

/* The offset holds still while the prediction stays within the larger of
 * this and a quarter of the offset (core_pacer_next_wake). */
#define CORE_PACER_DEADBAND_NS 500000

void core_pacer_reset(struct core_pacer *p);

/* Called right before Present at now_ns. period_ns <= 0 means unpaced: the
 * pacer un-anchors and returns now_ns. Otherwise advances the grid one period
 * and returns the absolute time to wake (>= now_ns) so that the frame,
 * taking gpu_pred_ns more on the GPU, displays on the grid. The first paced
 * frame, and every late one, anchors the grid at now_ns + gpu_pred_ns and
 * returns now_ns. The offset used for gpu_pred_ns changes only when the
 * prediction leaves the dead band around it (see pacing.c). */
int64_t core_pacer_next_wake(struct core_pacer *p, int64_t now_ns,
                             int64_t period_ns, int64_t gpu_pred_ns);

/* Steering to a phase batond gives (core/harvest_phase.h): a wake within
 * CORE_PACER_STEER_DEADBAND_NS of phase_ns + m period_ns is on it, and no
 * frame's wake moves by more than period_ns / CORE_PACER_STEER_DIV (1 ms
 * at 30 FPS), toward the nearer phase point: an interval changes by at
 * most that while the grid converges (half a period at most: 16 frames,
 * about half a second at 30 FPS). */
#define CORE_PACER_STEER_DEADBAND_NS 250000
#define CORE_PACER_STEER_DIV         32
/* A phase further than this from the wake is stale or made up: ignored. */
#define CORE_PACER_STEER_MAX_AGE_NS 10000000000LL

/* Called with the wake core_pacer_next_wake returned at now_ns: moves it,
 * and the grid with it, one step toward the nearest phase_ns + m
 * period_ns, never before now_ns. Returns the wake to use. No change when
 * phase_ns <= 0, period_ns <= 0, the pacer is not anchored, the phase is
 * out of range, or the wake is already on it. */
int64_t core_pacer_steer(struct core_pacer *p, int64_t now_ns, int64_t wake_ns,
                         int64_t period_ns, int64_t phase_ns);
