/* Per-tenant figures of a simulation run, computed from the times its frames
 * were displayed. Kept apart from the engine so the definitions (sim.h,
 * struct sim_tenant_result) can be tested on hand-made frame sequences. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/engine/result.h"

#define SIM_NS_PER_S INT64_C(1000000000)

struct sim_metrics {
	int64_t warmup_ns; /* measured time is [warmup_ns, end_ns) */
	int64_t end_ns;
	size_t n_secs;        /* one-second windows covering [0, end_ns) */
	double *frames_per_s; /* frames displayed per window */
	double *target_per_s; /* written by the driver at each window's end */
	/* Intervals between consecutive displayed frames, both in measured
	 * time, in ms: grown by doubling, so not allocated per frame. */
	double *intervals_ms;
	size_t n_intervals, cap_intervals;
	int64_t last_ns; /* last displayed frame, valid if has_last */
	bool has_last;
	uint64_t measured_frames;
};

/* Number of one-second windows covering [0, end_ns): the last may be
 * partial. */
size_t sim_metrics_windows(int64_t end_ns);

bool sim_metrics_init(struct sim_metrics *m, int64_t warmup_ns, int64_t end_ns);
void sim_metrics_finish(struct sim_metrics *m);

/* A frame displayed at t_ns (non-decreasing from call to call). False only
 * if growing the interval array failed. */
bool sim_metrics_frame(struct sim_metrics *m, int64_t t_ns);

/* Fills fps_mean, fps_p1, frame_ms_p99, below_sla_pct and the per-second
 * arrays of *out (whose sla_fps is used). The arrays move to *out; m keeps
 * none of them, and only sim_metrics_finish() is left to call. False (and
 * *out's arrays untouched) if out of memory. Reorders the intervals. */
bool sim_metrics_summarize(struct sim_metrics *m,
                           struct sim_tenant_result *out);
