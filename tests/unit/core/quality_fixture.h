/* Shared by the quality optimizer's tests: Table 1's items, a workspace,
 * a seeded generator and the brute-force optimum. */
#pragma once

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/quality_opt.h"

/* dJay Table 1 (§6.1, residual corrected; docs/papers.md): LO/ME/HI,
 * cost in ms. */
static inline void table1(struct quality_item it[2], double cost_scale)
{
	it[0] = (struct quality_item){.n_levels = 3,
	                              .weight = 1.0,
	                              .cost = {2, 5, 29},
	                              .benefit = {0.7, 0.8, 0.95}};
	it[1] = (struct quality_item){.n_levels = 3,
	                              .weight = 1.0,
	                              .cost = {10, 14, 15},
	                              .benefit = {0.9, 0.94, 0.96}};
	for (int s = 0; s < 2; s++)
		for (int r = 0; r < 3; r++)
			it[s].cost[r] *= cost_scale;
}

/* Workspace from the heap, aligned for double (malloc's alignment). */
static inline void *workspace(size_t n)
{
	void *w = malloc(quality_workspace_size(n));
	return w;
}

static inline uint32_t rng_next(uint64_t *st)
{
	*st = *st * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*st >> 33);
}

/* Random items; costs are multiples of 1/8 and weights small integers,
 * so every sum is exact in double and brute force and the solvers agree
 * on Eq. 2 to the bit. Benefits need not grow with the level. */
static inline void random_items(struct quality_item *it, size_t n,
                                unsigned max_levels, uint64_t *st)
{
	for (size_t s = 0; s < n; s++) {
		it[s].n_levels = 1 + rng_next(st) % max_levels;
		it[s].weight = 1 + rng_next(st) % 3;
		double c = (double)(rng_next(st) % 16) / 8.0;
		double b = (double)(rng_next(st) % 100) / 100.0;
		for (unsigned r = 0; r < it[s].n_levels; r++) {
			c += (double)(rng_next(st) % 24) / 8.0;
			b += (double)((int)(rng_next(st) % 60) - 10) / 100.0;
			it[s].cost[r] = c;
			it[s].benefit[r] = b;
		}
	}
}

/* The optimum by enumeration (-INFINITY when nothing fits). */
static inline double brute_force(const struct quality_item *it, size_t n,
                                 const struct quality_params *p)
{
	unsigned lv[16] = {0};
	double best = -INFINITY;
	for (;;) {
		if (quality_fits(p, quality_total_cost(it, n, lv))) {
			double b = quality_total_benefit(it, n, lv);
			if (b > best)
				best = b;
		}
		size_t s = 0;
		while (s < n && ++lv[s] == it[s].n_levels)
			lv[s++] = 0;
		if (s == n)
			return best;
	}
}
