/* The fleet simulator's entry point (sim_fleet.h): one day's arrivals
 * drawn once and offered to every placement the scenario names, the
 * static ones once per count; and the group's defaults. */
#include <stdlib.h>

#include "sim/fleet/sim_fleet.h"

struct sim_fleet_spec sim_fleet_spec_default(void)
{
	return (struct sim_fleet_spec){
	    .gpus = 100,
	    .rate_per_s = 1.0 / 60.0,
	    .amplitude = 0.5,
	    .peak_s = 20.0 * 3600.0,
	    .session_mean_s = 3600.0,
	    .gpu_capacity = 1.0,
	    .counts = {2, 3},
	    .n_counts = 2,
	    .placements = (1u << SIM_FLEET_N_PLACEMENTS) - 1u,
	    .bin_s = 900.0,
	};
}

const char *sim_fleet_placement_name(enum sim_fleet_placement p)
{
	static const char *const names[] = {"packed", "distributed", "baton",
	                                    "baton-quality"};
	return (unsigned)p < SIM_FLEET_N_PLACEMENTS ? names[p] : NULL;
}

bool sim_fleet_run(const struct sim_fleet_spec *spec,
                   const struct core_params *p, double duration_s,
                   uint64_t seed, struct sim_fleet_result *out)
{
	*out = (struct sim_fleet_result){0};
	struct sim_fleet_arrivals a;
	if (!sim_fleet_arrivals_draw(spec, duration_s, seed, &a))
		return false;
	out->arrivals = a.n;
	bool ok = true;
	for (int k = 0; ok && k < SIM_FLEET_N_PLACEMENTS; k++) {
		if (!(spec->placements & (1u << k)))
			continue;
		bool is_static =
		    k == SIM_FLEET_PACKED || k == SIM_FLEET_DISTRIBUTED;
		size_t n = is_static ? spec->n_counts : 1;
		for (size_t c = 0; ok && c < n; c++) {
			ok = out->n_runs < SIM_FLEET_MAX_RUNS &&
			     sim_fleet_place(spec, p, &a, duration_s,
			                     (enum sim_fleet_placement)k,
			                     is_static ? spec->counts[c] : 0,
			                     &out->runs[out->n_runs]);
			if (ok)
				out->n_runs++;
		}
	}
	sim_fleet_arrivals_free(&a);
	out->gpu_hours_simulated =
	    (double)spec->gpus * duration_s / 3600.0 * (double)out->n_runs;
	if (!ok || out->n_runs == 0) {
		sim_fleet_result_free(out);
		return false;
	}
	return true;
}

void sim_fleet_result_free(struct sim_fleet_result *r)
{
	for (size_t i = 0; i < r->n_runs; i++) {
		free(r->runs[i].sessions_per_bin);
		free(r->runs[i].gpus_per_bin);
	}
	*r = (struct sim_fleet_result){0};
}
