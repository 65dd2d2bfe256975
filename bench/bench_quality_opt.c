/* The quality optimizer's cost per call: the exact MCKP
 * (quality_exact) over 64 and 1024 sessions x 8 levels, dJay's greedy
 * full_assign and epoch step over 10k x 8. Target: exact 64 x 8 within
 * 100 us. Each instance is timed alone (the exact solver's time depends
 * on the instance); prints the median, p99 and max over the instances. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_time.h"
#include "core/quality_opt.h"

static double uniform(uint64_t *st)
{
	*st = *st * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*st >> 11) * 0x1.0p-53;
}

/* Games at 30 or 60 fps, 1-8 levels, cost per frame 0.5-4 ms at the
 * lowest level rising by 10-60 % a level, SSIM-like benefits rising with
 * diminishing (noisy) gains; the budget lets about half the spread in. */
static void instance(struct quality_item *it, size_t n, unsigned levels,
                     uint64_t *st, struct quality_params *p)
{
	double lo = 0.0, hi = 0.0;
	for (size_t s = 0; s < n; s++) {
		it[s].n_levels = levels;
		it[s].weight = uniform(st) < 0.5 ? 30.0 : 60.0;
		double c = 0.0005 + 0.0035 * uniform(st);
		double b = 0.6 + 0.2 * uniform(st);
		for (unsigned r = 0; r < levels; r++) {
			it[s].cost[r] = c;
			it[s].benefit[r] = b;
			c *= 1.1 + 0.5 * uniform(st);
			b += (1.0 - b) * (0.2 + 0.4 * uniform(st));
		}
		lo += it[s].weight * it[s].cost[0];
		hi += it[s].weight * it[s].cost[levels - 1];
	}
	*p = quality_params_default();
	p->budget = lo + (hi - lo) * (0.3 + 0.4 * uniform(st));
}

enum which { EXACT, FULL_ASSIGN, EPOCH_STEP };

static void run(const char *name, enum which w, size_t n, unsigned reps)
{
	struct quality_item *it = calloc(n, sizeof(*it));
	unsigned *lv = calloc(n, sizeof(*lv));
	void *ws = malloc(quality_workspace_size(n));
	double *t = calloc(reps, sizeof(*t));
	if (!it || !lv || !ws || !t)
		exit(1);
	uint64_t st = 7;
	double gap = 0.0;
	for (unsigned k = 0; k < reps; k++) {
		struct quality_params p;
		instance(it, n, QUALITY_MAX_LEVELS, &st, &p);
		for (size_t s = 0; s < n; s++)
			lv[s] = (unsigned)(s % QUALITY_MAX_LEVELS);
		double t0 = now_s();
		if (w == EXACT)
			quality_exact(it, n, &p, lv, ws);
		else if (w == FULL_ASSIGN)
			quality_full_assign(it, n, &p, lv, ws);
		else
			quality_epoch_step(it, n, &p, lv, ws);
		t[k] = now_s() - t0;
		if (w == EXACT) {
			double be = quality_total_benefit(it, n, lv);
			quality_full_assign(it, n, &p, lv, ws);
			gap += be - quality_total_benefit(it, n, lv);
		}
	}
	qsort(t, reps, sizeof(*t), cmp_double);
	printf("%-22s n=%5zu x 8: median %9.1f us  p99 %9.1f us  max %9.1f us",
	       name, n, t[reps / 2] * 1e6, t[reps * 99 / 100] * 1e6,
	       t[reps - 1] * 1e6);
	if (w == EXACT)
		printf("  (benefit over greedy: %.2e per instance)",
		       gap / reps);
	printf("\n");
	free(it);
	free(lv);
	free(ws);
	free(t);
}

int main(void)
{
	run("exact", EXACT, 64, 1000);
	run("exact", EXACT, 1024, 200);
	run("full_assign (greedy)", FULL_ASSIGN, 64, 1000);
	run("full_assign (greedy)", FULL_ASSIGN, 10000, 50);
	run("epoch_step (greedy)", EPOCH_STEP, 10000, 50);
	return 0;
}
