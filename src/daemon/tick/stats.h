/* Per-tenant frame statistics for status and metrics: a window of recent
 * present timestamps, from which the frame rate over the last second and
 * frame-time quantiles over the last two seconds are computed on demand. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Present timestamps kept: two seconds at 2048 FPS. Older ones are
 * overwritten, so the quantiles of a faster game cover less time. */
#define STATS_WINDOW 4096u

struct stats_window {
	int64_t present_ns[STATS_WINDOW];
	uint64_t count; /* ever added; the newest is at (count - 1) % size */
};

void stats_init(struct stats_window *w);
void stats_add(struct stats_window *w, int64_t present_ns);

/* Frame rate over (now - span, now]: the number of frame intervals that
 * ended in that span divided by their total length; 0 without one. */
double stats_fps(const struct stats_window *w, int64_t now_ns, int64_t span_ns);

/* Copies the frame times (seconds) of the intervals that ended in
 * (now - span, now] into out (room for STATS_WINDOW); returns how many. */
size_t stats_intervals(const struct stats_window *w, int64_t now_ns,
                       int64_t span_ns, double *out);

/* Nearest-rank quantiles of v[0..n) for ascending qs[0..k), by selection
 * (reorders v, O(n) per quantile). Every result is 0 when n == 0. */
void stats_quantiles(double *v, size_t n, const double *qs, double *res,
                     size_t k);
