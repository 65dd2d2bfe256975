/* Scenario keys of the fleet simulator (sim_fleet.h; docs/scenarios.md
 * "Fleet"):
 *
 *   fleet = { gpus = 10000; arrivals_per_s = 5.5; amplitude = 0.6;
 *             peak_h = 20.0; session_mean_s = 2700.0; session_sigma = 0;
 *             gpu_capacity = 1.0; per_gpu = [2, 3]; bin_s = 900.0;
 *             placements = ["packed", "distributed", "baton",
 *                           "baton-quality"];
 *             games = ( { name = "djay"; weight = 0.35; sla_fps = 30.0;
 *                         cost_ms = [4.0, 7.0, 14.0];
 *                         ssim = [0.88, 0.95, 1.0]; }, ... ); };
 *
 * A scenario with a fleet group needs no tenants: duration_s is the day
 * simulated, the policy group's u_limit, quiet and period Baton's
 * admission. */
#include "sim/scenario/scenario_fleet.h"

#include <math.h>
#include <string.h>

#include "sim/scenario/scenario_parse.h"

/* Expected arrivals a scenario may ask for (ids are 32-bit, and memory). */
#define MAX_ARRIVALS SIM_FLEET_MAX_ARRIVALS

static bool parse_game(struct sim_cfg_ctx *c, const config_setting_t *e,
                       struct sim_fleet_game *gm)
{
	static const char *const known[] = {"name",    "weight", "sla_fps",
	                                    "cost_ms", "ssim",   NULL};
	double ms[QUALITY_MAX_LEVELS];
	size_t n = 0;
	gm->weight = 1.0;
	if (!sim_cfg_check_known(c, e, known) ||
	    !sim_cfg_str_copy(c, e, "name", true, gm->name, sizeof(gm->name)) ||
	    !sim_cfg_num(c, e, "weight", &gm->weight, 0, 1e6, NUM_LO_OPEN) ||
	    !sim_cfg_num(c, e, "sla_fps", &gm->sla_fps, 0, 1000,
	                 NUM_LO_OPEN | NUM_REQUIRED) ||
	    !sim_cfg_num_array(c, e, "cost_ms", ms, &n, QUALITY_MAX_LEVELS,
	                       1e-6, 1e4, NULL) ||
	    !sim_cfg_num_array(c, e, "ssim", gm->ssim, &n, QUALITY_MAX_LEVELS,
	                       0, 1, NULL))
		return false;
	gm->n_levels = (unsigned)n;
	for (size_t l = 0; l < n; l++) {
		gm->cost_s[l] = ms[l] / 1e3;
		if (l > 0 && !(ms[l] > ms[l - 1]))
			return sim_cfg_fail(
			    c, e, "cost_ms",
			    "levels go cheapest first: level %zu "
			    "(%g ms) must cost more than level "
			    "%zu (%g ms)",
			    l, ms[l], l - 1, ms[l - 1]);
	}
	return true;
}

static bool parse_games(struct sim_cfg_ctx *c, const config_setting_t *g,
                        struct sim_fleet_spec *s)
{
	config_setting_t *list;
	if (!sim_cfg_list(c, g, "games", true, 1, SIM_FLEET_MAX_GAMES, &list))
		return false;
	s->n_games = (size_t)config_setting_length(list);
	for (size_t i = 0; i < s->n_games; i++)
		if (!parse_game(c, config_setting_get_elem(list, (unsigned)i),
		                &s->games[i]))
			return false;
	return true;
}

static bool parse_placements(struct sim_cfg_ctx *c, const config_setting_t *g,
                             struct sim_fleet_spec *s)
{
	config_setting_t *a = config_setting_get_member(g, "placements");
	if (!a)
		return true;
	if (!config_setting_is_array(a) || config_setting_length(a) < 1)
		return sim_cfg_fail(
		    c, a, NULL, "must be a non-empty array of placement names");
	s->placements = 0;
	for (int i = 0; i < config_setting_length(a); i++) {
		const char *name = config_setting_get_string_elem(a, i);
		int k = -1;
		for (int j = 0; name && j < SIM_FLEET_N_PLACEMENTS; j++)
			if (strcmp(name, sim_fleet_placement_name(
			                     (enum sim_fleet_placement)j)) == 0)
				k = j;
		if (k < 0)
			return sim_cfg_fail(
			    c, a, NULL,
			    "unknown placement \"%s\" (expected "
			    "\"packed\", \"distributed\", "
			    "\"baton\" or \"baton-quality\")",
			    name ? name : "");
		s->placements |= 1u << k;
	}
	return true;
}

static bool parse_counts(struct sim_cfg_ctx *c, const config_setting_t *g,
                         struct sim_fleet_spec *s)
{
	double v[SIM_FLEET_MAX_COUNTS];
	size_t n = 0;
	if (!config_setting_get_member(g, "per_gpu"))
		return true;
	if (!sim_cfg_num_array(c, g, "per_gpu", v, &n, SIM_FLEET_MAX_COUNTS, 1,
	                       SIM_FLEET_MAX_PER_GPU, NULL))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (v[i] != floor(v[i]))
			return sim_cfg_fail(
			    c, config_setting_get_member(g, "per_gpu"), NULL,
			    "%g is not a whole number of sessions", v[i]);
		s->counts[i] = (uint32_t)v[i];
	}
	s->n_counts = n;
	return true;
}

bool sim_scenario_parse_fleet(struct sim_cfg_ctx *c,
                              const config_setting_t *root,
                              struct sim_scenario *sc)
{
	static const char *const known[] = {
	    "gpus",           "arrivals_per_s", "amplitude",    "peak_h",
	    "session_mean_s", "session_sigma",  "gpu_capacity", "per_gpu",
	    "bin_s",          "placements",     "games",        NULL};
	config_setting_t *g;
	struct sim_fleet_spec *s = &sc->fleet;

	*s = sim_fleet_spec_default();
	if (!sim_cfg_group(c, root, "fleet", &g))
		return false;
	if (!g)
		return true;
	s->on = true;
	long long gpus = s->gpus;
	double peak_h = s->peak_s / 3600.0;
	if (!sim_cfg_check_known(c, g, known) ||
	    !sim_cfg_int(c, g, "gpus", &gpus, 1, SIM_FLEET_MAX_GPUS) ||
	    !sim_cfg_num(c, g, "arrivals_per_s", &s->rate_per_s, 0, 1e5,
	                 NUM_LO_OPEN | NUM_REQUIRED) ||
	    !sim_cfg_num(c, g, "amplitude", &s->amplitude, 0, 1, 0) ||
	    !sim_cfg_num(c, g, "peak_h", &peak_h, 0, 24, NUM_HI_OPEN) ||
	    !sim_cfg_num(c, g, "session_mean_s", &s->session_mean_s, 1,
	                 MAX_DURATION_S, 0) ||
	    !sim_cfg_num(c, g, "session_sigma", &s->session_sigma, 0, 4, 0) ||
	    !sim_cfg_num(c, g, "gpu_capacity", &s->gpu_capacity, 0, 64,
	                 NUM_LO_OPEN) ||
	    !sim_cfg_num(c, g, "bin_s", &s->bin_s, 1, MAX_DURATION_S, 0) ||
	    !parse_counts(c, g, s) || !parse_placements(c, g, s) ||
	    !parse_games(c, g, s))
		return false;
	s->gpus = (uint32_t)gpus;
	s->peak_s = peak_h * 3600.0;
	/* Thinning draws candidates at the peak rate: bound them. */
	double expected = s->rate_per_s * (1.0 + s->amplitude) * sc->duration_s;
	if (!(expected <= MAX_ARRIVALS))
		return sim_cfg_fail(
		    c, config_setting_get_member(g, "arrivals_per_s"), NULL,
		    "%.3g arrivals at the peak rate over "
		    "duration_s, more than %.0g: lower the "
		    "rate or shorten the run",
		    expected, MAX_ARRIVALS);
	return true;
}
