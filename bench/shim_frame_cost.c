/* The shim's own CPU cost per frame, the pacing sleep excluded: a loop of
 * shim_frame_begin / fake Present / shim_frame_end, unpaced (no BATON_FPS,
 * no daemon), each iteration timed; then again as on a software rasterizer
 * (shim_set_software_device: two process-CPU clock reads more per frame).
 * Prints plain lines:
 *   frame_cost_ns median=... p99=... (clock overhead ... subtracted)
 *   frame_cost_software_ns median=... p99=... (...)
 * and the budget gate's cost (target: under 1 us more per frame), side by
 * side in one run: the same frames without a cap and with one, the cap
 * written into the shim's own control block (as batond writes it) and
 * removed again every block of frames, so that both see the same machine:
 *   gate_uncapped_ns median=... p99=... (...)
 *   gate_capped_ns median=... p99=... (...)
 *   gate_extra_ns median_diff=... ratio=...
 * With the cap, each frame reports 100 ns of GPU time and the cap is one
 * GPU: the bucket is charged and refilled every frame but never in debt,
 * so no frame sleeps and what is timed is the gate's arithmetic (a frame
 * in debt sleeps milliseconds, beside which the gate costs nothing).
 * Run with BATON_SOCKET pointing nowhere, so no daemon takes part. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ipc/control.h"
#include "ipc/shm_layout.h"
#include "shim/shim.h"
#include "shim/shim_clock.h"
#include "shim_own_control.h"

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

static void time_frames(int64_t *out, int n, int64_t gpu_ns, int64_t clock)
{
	for (int i = 0; i < n; i++) {
		int64_t t0 = shim_now_ns();
		uint64_t f = shim_frame_begin(SHIM_API_GL);
		shim_frame_end(f);
		/* A GPU-time report per frame, as the GL front-end makes. */
		shim_gpu_time(f, gpu_ns, false);
		out[i] = shim_now_ns() - t0 - clock;
	}
}

static int64_t report(const char *label, int64_t *v, int64_t clock)
{
	qsort(v, N, sizeof(*v), cmp);
	printf("%s median=%lld p99=%lld max=%lld (clock pair %lld ns "
	       "subtracted, %d frames)\n",
	       label, (long long)pct(v, 0.5), (long long)pct(v, 0.99),
	       (long long)v[N - 1], (long long)clock, N);
	return pct(v, 0.5);
}

static void measure(const char *label, int64_t clock)
{
	time_frames(samples, N, 1000000, clock);
	report(label, samples, clock);
}

static void set_cap(struct baton_control *c, uint32_t cap_ns_per_s)
{
	ipc_control_write(c, &(struct ipc_control_values){
	                         .flags = BATON_CONTROL_VALID,
	                         .cap_ns_per_s = cap_ns_per_s,
	                     });
}

#define BLOCKS 40

static void measure_gate(int64_t clock)
{
	struct baton_control *c = own_control();
	int64_t *capped = malloc(N * sizeof(*capped));
	if (!c || !capped) {
		printf("gate: no control block to write a cap into\n");
		free(capped);
		return;
	}
	const int block = N / BLOCKS;
	for (int b = 0; b < BLOCKS; b++) {
		set_cap(c, 0);
		time_frames(samples + b * block, block, 100, clock);
		set_cap(c, BATON_CAP_MAX_NS_PER_S);
		time_frames(capped + b * block, block, 100, clock);
	}
	set_cap(c, 0);
	int64_t a = report("gate_uncapped_ns", samples, clock);
	int64_t b = report("gate_capped_ns", capped, clock);
	printf("gate_extra_ns median_diff=%lld ratio=%.3f (target: under "
	       "1000 ns more)\n",
	       (long long)(b - a), a > 0 ? (double)b / (double)a : 0.0);
	free(capped);
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
	measure_gate(clock);
	shim_set_software_device("benchmark");
	measure("frame_cost_software_ns", clock);
	free(samples);
	return 0;
}
