/* Fleet simulator speed (docs/fleet-results.md): the
 * fleet-day built-in (10,000 GPUs over 24 simulated hours), median of 3 runs:
 * the wall time of the arrivals alone, of each placement's day on them, and of
 * the whole scenario (arrivals and every placement, as `baton sim fleet-day`
 * runs it), with GPU-hours simulated per wall second. The target: one
 * placement's 10,000 GPUs x 24 h in under a minute on one core. Also the figure
 * of merit: sessions served per GPU-hour of each placement, Baton's beside the
 * static counts that had no more below-SLA seconds than it. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim/scenario/scenario.h"
#include "sim/engine/sim.h"
#include "sim/fleet/sim_fleet.h"

#define RUNS 3

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v)
{
	qsort(v, RUNS, sizeof(*v), cmp_double);
	return v[RUNS / 2];
}

static void die(const char *what)
{
	fprintf(stderr, "bench_fleet: %s\n", what);
	exit(1);
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "fleet-day";
	struct sim_scenario sc;
	struct sim_error err;
	if (!sim_scenario_load(name, &sc, &err) || !sc.fleet.on)
		die("cannot load a fleet scenario");
	const struct sim_fleet_spec *spec = &sc.fleet;
	double gpu_h = spec->gpus * sc.duration_s / 3600.0;

	/* the arrivals alone */
	double wall[RUNS];
	struct sim_fleet_arrivals a = {0};
	for (int i = 0; i < RUNS; i++) {
		sim_fleet_arrivals_free(&a);
		double t0 = now_s();
		if (!sim_fleet_arrivals_draw(spec, sc.duration_s, sc.seed, &a))
			die("arrivals");
		wall[i] = now_s() - t0;
	}
	printf("fleet_arrivals scenario=%s arrivals=%zu median_s=%.3f\n", name,
	       a.n, median(wall));

	/* each placement on them */
	for (int k = 0; k < SIM_FLEET_N_PLACEMENTS; k++) {
		int is_static =
		    k == SIM_FLEET_PACKED || k == SIM_FLEET_DISTRIBUTED;
		size_t n = is_static ? spec->n_counts : 1;
		for (size_t c = 0; c < n && (spec->placements & (1u << k));
		     c++) {
			struct sim_fleet_run r = {0};
			for (int i = 0; i < RUNS; i++) {
				free(r.sessions_per_bin);
				free(r.gpus_per_bin);
				double t0 = now_s();
				if (!sim_fleet_place(
				        spec, &sc.params, &a, sc.duration_s,
				        (enum sim_fleet_placement)k,
				        is_static ? spec->counts[c] : 0, &r))
					die("placement");
				wall[i] = now_s() - t0;
			}
			double m = median(wall);
			printf("fleet_place placement=%s per_gpu=%u gpus=%u "
			       "hours=%.0f median_s=%.3f gpu_hours_per_s=%.3g "
			       "served_per_gpu_hour=%.2f below_sla_s=%.0f\n",
			       sim_fleet_placement_name(r.placement),
			       (unsigned)r.per_gpu, (unsigned)spec->gpus,
			       sc.duration_s / 3600.0, m, gpu_h / m,
			       r.served_per_gpu_hour, r.below_sla_s);
			free(r.sessions_per_bin);
			free(r.gpus_per_bin);
		}
	}
	sim_fleet_arrivals_free(&a);

	/* the whole scenario, as baton sim runs it */
	double simulated = 0.0;
	for (int i = 0; i < RUNS; i++) {
		struct sim_result r;
		double t0 = now_s();
		if (!sim_run(&sc, &r, &err))
			die(err.msg);
		wall[i] = now_s() - t0;
		simulated = r.fleet_result.gpu_hours_simulated;
		sim_result_finish(&r);
	}
	double m = median(wall);
	printf("fleet_scenario scenario=%s gpus=%u placements=%zu "
	       "median_s=%.3f gpu_hours_simulated=%.0f gpu_hours_per_s=%.3g\n",
	       name, (unsigned)spec->gpus, (size_t)(simulated / gpu_h + 0.5), m,
	       simulated, simulated / m);
	sim_scenario_finish(&sc);
	return 0;
}
