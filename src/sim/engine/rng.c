/* xoshiro256** 1.0 and splitmix64, after Blackman and Vigna's public-domain
 * reference code (https://prng.di.unimi.it/). */
#include "sim/engine/rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void sim_rng_seed(struct sim_rng *r, uint64_t seed)
{
	/* splitmix64 never yields four zero words in a row, so the xoshiro
	 * state is never the all-zero fixed point. */
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double sim_rng_uniform(struct sim_rng *r)
{
	/* The top 53 bits fill a double's mantissa exactly. */
	return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

double sim_rng_normal(struct sim_rng *r)
{
	/* Box-Muller, one of the pair per call: keeping the other would need
	 * state that struct sim_rng does not have. 1 - u is in (0, 1], so the
	 * logarithm is finite. */
	double u1 = 1.0 - sim_rng_uniform(r);
	double u2 = sim_rng_uniform(r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void sim_rng_normal_pair(struct sim_rng *r, double *z0, double *z1)
{
	double u1 = 1.0 - sim_rng_uniform(r);
	double u2 = sim_rng_uniform(r);
	double rad = sqrt(-2.0 * log(u1)), s, c;
	sincos(2.0 * M_PI * u2, &s, &c);
	*z0 = rad * c;
	*z1 = rad * s;
}
