/* Simulator throughput: events per second of wall time, median of 5 runs,
 * for 3 and 64 tenants under "none" and "sa". Each run simulates enough
 * time to take about one second of wall time (calibrated by a short first
 * run), so timer resolution and setup cost do not matter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/policy.h"
#include "sim/engine/sim.h"

#define RUNS 5

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

/* Games with spread-out costs and jitter, contending on a time-sliced GPU:
 * the load a real scenario gives the engine. */
static void make_tenants(struct sim_tenant_spec *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		t[i] = (struct sim_tenant_spec){
		    .sla_fps = 30.0,
		    .cpu_ms = 4.0 + (double)(i % 7),
		    .gpu_ms = (n <= 4 ? 6.0 : 0.4) + 0.5 * (double)(i % 5),
		    .jitter = 0.1,
		    .max_in_flight = i % 3 == 2 ? 0 : 2,
		    .pacer = i % 4 == 3 ? SIM_PACER_RELATIVE : SIM_PACER_GRID,
		};
		snprintf(t[i].name, sizeof(t[i].name), "game%zu", i);
	}
}

/* Runs once; returns wall seconds, and the events in *events. */
static double run_once(struct sim_scenario *sc, double duration_s,
                       unsigned long long *events)
{
	struct sim_result r;
	struct sim_error err;
	sc->duration_s = duration_s;
	double t0 = now_s();
	if (!sim_run(sc, &r, &err)) {
		fprintf(stderr, "bench_sim: %s: %s\n", err.field, err.msg);
		exit(1);
	}
	double wall = now_s() - t0;
	*events = (unsigned long long)r.events;
	sim_result_finish(&r);
	return wall;
}

static void bench(size_t n, const char *policy)
{
	struct sim_tenant_spec *t = calloc(n, sizeof(*t));
	if (!t) {
		fprintf(stderr, "bench_sim: out of memory\n");
		exit(1);
	}
	make_tenants(t, n);
	struct sim_scenario sc = {
	    .warmup_s = 1.0,
	    .seed = 1,
	    .gpu = {.model = SIM_GPU_TIMESLICE,
	            .quantum_ms = 1.0,
	            .switch_us = 50.0},
	    .params = core_params_default(),
	    .tenants = t,
	    .n_tenants = n,
	};
	snprintf(sc.policy, sizeof(sc.policy), "%s", policy);

	unsigned long long events;
	double probe_s = 20.0;
	double wall = run_once(&sc, probe_s, &events);
	double duration_s = probe_s / (wall > 1e-3 ? wall : 1e-3);
	if (duration_s < 2.0)
		duration_s = 2.0;

	double rate[RUNS];
	for (int i = 0; i < RUNS; i++) {
		wall = run_once(&sc, duration_s, &events);
		rate[i] = (double)events / wall;
	}
	qsort(rate, RUNS, sizeof(rate[0]), cmp_double);
	printf("sim_events_per_s tenants=%zu policy=%s median=%.3g "
	       "events=%llu sim_s=%.0f\n",
	       n, policy, rate[RUNS / 2], events, duration_s);
	free(t);
}

int main(void)
{
	const size_t sizes[] = {3, 64};
	const char *policies[] = {"none", "sa"};
	for (size_t i = 0; i < 2; i++)
		for (size_t j = 0; j < 2; j++)
			bench(sizes[i], policies[j]);
	return 0;
}
