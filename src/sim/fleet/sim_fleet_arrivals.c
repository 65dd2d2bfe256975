/* The fleet's arrivals (sim_fleet.h): a day of sessions drawn once and
 * offered to every placement, so that the placements differ in nothing
 * but their decisions. */
#include <math.h>
#include <stdlib.h>

#include "sim/engine/rng.h"
#include "sim/fleet/sim_fleet.h"

#define DAY_S 86400.0

double sim_fleet_rate(const struct sim_fleet_spec *spec, double t_s)
{
	const double pi = 3.14159265358979323846;
	return spec->rate_per_s *
	       (1.0 +
	        spec->amplitude * cos(2.0 * pi * (t_s - spec->peak_s) / DAY_S));
}

/* One session length: exponential of the mean, or lognormal whose mean is
 * the mean (mu = ln mean - sigma^2 / 2). */
static double draw_length(const struct sim_fleet_spec *spec, struct sim_rng *r)
{
	if (spec->session_sigma > 0.0) {
		double s = spec->session_sigma;
		double mu = log(spec->session_mean_s) - 0.5 * s * s;
		return exp(mu + s * sim_rng_normal(r));
	}
	return -spec->session_mean_s * log(1.0 - sim_rng_uniform(r));
}

static uint8_t draw_game(const struct sim_fleet_spec *spec, double total,
                         struct sim_rng *r)
{
	double u = sim_rng_uniform(r) * total;
	for (size_t g = 0; g + 1 < spec->n_games; g++) {
		if (u < spec->games[g].weight)
			return (uint8_t)g;
		u -= spec->games[g].weight;
	}
	return (uint8_t)(spec->n_games - 1);
}

static bool grow(struct sim_fleet_arrivals *a, size_t *cap)
{
	size_t n = *cap ? 2 * *cap : 1024;
	double *t = realloc(a->t_s, n * sizeof(*t));
	if (t)
		a->t_s = t;
	double *l = realloc(a->len_s, n * sizeof(*l));
	if (l)
		a->len_s = l;
	uint8_t *g = realloc(a->game, n * sizeof(*g));
	if (g)
		a->game = g;
	if (!t || !l || !g)
		return false;
	*cap = n;
	return true;
}

/* Lewis and Shedler's thinning: candidates at the peak rate, each kept
 * with probability lambda(t) / lambda_max. */
bool sim_fleet_arrivals_draw(const struct sim_fleet_spec *spec,
                             double duration_s, uint64_t seed,
                             struct sim_fleet_arrivals *out)
{
	*out = (struct sim_fleet_arrivals){0};
	double lmax = spec->rate_per_s * (1.0 + spec->amplitude);
	if (spec->n_games == 0 || !(spec->rate_per_s > 0.0) ||
	    !(lmax * duration_s <= SIM_FLEET_MAX_ARRIVALS))
		return false;
	struct sim_rng r;
	sim_rng_seed(&r, seed);
	double total = 0.0;
	for (size_t g = 0; g < spec->n_games; g++)
		total += spec->games[g].weight;
	size_t cap = 0;
	double t = 0.0;
	for (;;) {
		t -= log(1.0 - sim_rng_uniform(&r)) / lmax;
		if (!(t < duration_s))
			break;
		if (sim_rng_uniform(&r) * lmax >= sim_fleet_rate(spec, t))
			continue;
		if (out->n == cap && !grow(out, &cap)) {
			sim_fleet_arrivals_free(out);
			return false;
		}
		out->t_s[out->n] = t;
		out->len_s[out->n] = draw_length(spec, &r);
		out->game[out->n] = draw_game(spec, total, &r);
		out->n++;
	}
	return true;
}

void sim_fleet_arrivals_free(struct sim_fleet_arrivals *a)
{
	free(a->t_s);
	free(a->len_s);
	free(a->game);
	*a = (struct sim_fleet_arrivals){0};
}
