/* Deterministic random numbers for the simulator: xoshiro256** seeded with
 * splitmix64 (Blackman and Vigna). Written here rather than taken from libc
 * because rand()/random() differ between C libraries and the simulator
 * promises byte-identical output for a seed. */
#pragma once

#include <stdint.h>

struct sim_rng {
	uint64_t s[4];
};

void sim_rng_seed(struct sim_rng *r, uint64_t seed);
uint64_t sim_rng_next(struct sim_rng *r);
/* Uniform in [0, 1). */
double sim_rng_uniform(struct sim_rng *r);
/* Standard normal (Box-Muller). */
double sim_rng_normal(struct sim_rng *r);
/* Two independent standard normals from one Box-Muller step: half the
 * cost of two sim_rng_normal() calls. */
void sim_rng_normal_pair(struct sim_rng *r, double *z0, double *z1);
