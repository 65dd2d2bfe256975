/* The shim's own CPU cost per frame, the pacing sleep excluded: a loop of
 * shim_frame_begin / fake Present / shim_frame_end, unpaced (no BATON_FPS,
 * no daemon), each iteration timed; then again as on a software rasterizer
 * (shim_set_software_device: two process-CPU clock reads more per frame).
 * Prints plain lines:
 *   frame_cost_ns median=... p99=... (clock overhead ... subtracted)
 *   frame_cost_software_ns median=... p99=... (...)
 * Run with BATON_SOCKET pointing nowhere, so no daemon takes part. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "shim/shim.h"

#define N 200000

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t *samples;

static int64_t pct(int64_t *v, double p)
{
	return v[(size_t)(p * (N - 1))];
}

static void measure(const char *label, int64_t clock)
{
	for (int i = 0; i < N; i++) {
		int64_t t0 = shim_now_ns();
		uint64_t f = shim_frame_begin(SHIM_API_GL);
		shim_frame_end(f);
		/* A GPU-time report per frame, as the GL front-end makes. */
		shim_gpu_time(f, 1000000, false);
		samples[i] = shim_now_ns() - t0 - clock;
	}
	qsort(samples, N, sizeof(*samples), cmp);
	printf("%s median=%lld p99=%lld max=%lld (clock pair %lld ns "
	       "subtracted, %d frames)\n",
	       label, (long long)pct(samples, 0.5),
	       (long long)pct(samples, 0.99), (long long)samples[N - 1],
	       (long long)clock, N);
}

int main(void)
{
	samples = malloc(N * sizeof(*samples));
	if (!samples)
		return 1;
	/* The first frame sets the shim up (memfd, thread): not a frame
	 * path cost. */
	shim_frame_end(shim_frame_begin(SHIM_API_GL));

	/* What two clock reads cost by themselves. */
	for (int i = 0; i < N; i++) {
		int64_t t0 = shim_now_ns();
		samples[i] = shim_now_ns() - t0;
	}
	qsort(samples, N, sizeof(*samples), cmp);
	int64_t clock = pct(samples, 0.5);

	measure("frame_cost_ns", clock);
	shim_set_software_device("benchmark");
	measure("frame_cost_software_ns", clock);
	free(samples);
	return 0;
}
