/* SSIM cost (src/core/ssim.c): the mean SSIM of a 640x360 and a 1920x1080
 * RGB frame against a perturbed copy, on one core. Prints frames per second
 * as the median of 15 runs of several frames each. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_time.h"
#include "core/ssim.h"

/* A frame-like image (smooth bands plus a little hashed noise) and a copy
 * with different noise, so the arithmetic is not on constants. */
static void fill(unsigned char *px, size_t w, size_t h, unsigned seed)
{
	for (size_t y = 0; y < h; y++) {
		for (size_t x = 0; x < w; x++) {
			unsigned n = (unsigned)(x * 2654435761u) ^
			             (unsigned)(y * 40503u) ^ seed;
			n = (n ^ (n >> 13)) * 0x5bd1e995u;
			for (int c = 0; c < 3; c++) {
				unsigned v =
				    (unsigned)((x + 2 * y + 40 * c) % 200) +
				    ((n >> (8 * c)) & 15);
				px[(y * w + x) * 3 + c] = (unsigned char)v;
			}
		}
	}
}

static void run(size_t w, size_t h, int frames)
{
	unsigned char *a = malloc(w * h * 3), *b = malloc(w * h * 3);
	size_t bytes = core_ssim_workspace_size(w, h);
	void *ws = malloc(bytes);
	if (!a || !b || !ws) {
		fprintf(stderr, "bench_ssim: out of memory\n");
		exit(1);
	}
	fill(a, w, h, 1);
	fill(b, w, h, 2);
	struct core_ssim_image ia = {a, w, h, w * 3, 3};
	struct core_ssim_image ib = {b, w, h, w * 3, 3};
	enum { RUNS = 15 };
	double fps[RUNS], mean = 0.0, sink = 0.0;
	for (int r = 0; r < RUNS; r++) {
		double t0 = now_s();
		for (int f = 0; f < frames; f++) {
			if (core_ssim(&ia, &ib, ws, bytes, NULL, &mean) !=
			    CORE_SSIM_OK) {
				fprintf(stderr,
				        "bench_ssim: core_ssim failed\n");
				exit(1);
			}
			sink += mean;
		}
		fps[r] = frames / (now_s() - t0);
	}
	qsort(fps, RUNS, sizeof(fps[0]), cmp_double);
	printf("ssim %4zux%-4zu  %8.1f frames/s per core (median of %d; "
	       "min %.1f max %.1f)  %.2f ms/frame  mean %.4f\n",
	       w, h, fps[RUNS / 2], RUNS, fps[0], fps[RUNS - 1],
	       1e3 / fps[RUNS / 2], sink / (RUNS * frames));
	free(a);
	free(b);
	free(ws);
}

int main(void)
{
	run(640, 360, 20);
	run(1920, 1080, 3);
	return 0;
}
