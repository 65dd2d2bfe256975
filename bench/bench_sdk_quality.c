/* The game SDK's frame path (include/baton/baton.h, src/sdk/quality.c):
 * what a game pays per frame to report its object lists and read the
 * level, attached to a quality area and control block as the shim
 * attaches it. Medians of 101 runs of 100 000 calls, per call, for 6
 * object types (examples/arena) and for 256 (the most a game may
 * declare). Not a test: nothing fails on a time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baton/baton.h"
#include "bench_time.h"
#include "ipc/shm.h"

int baton__quality_attach_v1(struct baton_quality *q, struct baton_control *c);

#define CALLS 100000
#define RUNS  101

static double median_ns(uint32_t n_types, const uint32_t *counts)
{
	double s[RUNS];
	volatile uint32_t sink = 0;
	for (int r = 0; r < RUNS; r++) {
		double t0 = now_s();
		for (int i = 0; i < CALLS; i++) {
			baton_frame_objects(counts, counts, n_types);
			sink += baton_quality_level();
		}
		s[r] = (now_s() - t0) / CALLS * 1e9;
	}
	(void)sink;
	qsort(s, RUNS, sizeof(double), cmp_double);
	return s[RUNS / 2];
}

/* One process, one declaration (baton.h): each type count in a child. */
static int run(uint32_t n_types)
{
	static struct baton_quality area;
	static struct baton_control control;
	if (baton__quality_attach_v1(&area, &control) != 0) {
		fprintf(stderr, "bench_sdk_quality: attach failed\n");
		return 1;
	}
	static const char *levels[] = {"low", "medium", "high"};
	static struct baton_object_type types[BATON_QUALITY_MAX_TYPES];
	static uint32_t counts[BATON_QUALITY_MAX_TYPES];
	for (uint32_t t = 0; t < n_types; t++) {
		types[t] = (struct baton_object_type){
		    .id = t + 1, .vertices = 100 * (t + 1)};
		counts[t] = t % 17;
	}
	if (baton_quality_declare("bench", 3, levels, 1) != BATON_OK ||
	    baton_objects_declare(n_types, types) != BATON_OK) {
		fprintf(stderr, "bench_sdk_quality: declarations refused\n");
		return 1;
	}
	printf("  %3u types: %8.1f ns\n", n_types, median_ns(n_types, counts));
	fflush(stdout);
	return 0;
}

int main(void)
{
	printf("SDK frame path (baton_frame_objects + baton_quality_level), "
	       "median per frame:\n");
	fflush(stdout);
	const uint32_t sizes[] = {6, BATON_QUALITY_MAX_TYPES};
	for (size_t i = 0; i < 2; i++) {
		pid_t c = fork();
		if (c < 0)
			return 1;
		if (c == 0)
			_exit(run(sizes[i]));
		int st;
		if (waitpid(c, &st, 0) != c || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			return 1;
	}
	return 0;
}
