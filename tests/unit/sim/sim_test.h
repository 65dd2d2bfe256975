/* Scenarios built in C for the simulator tests, so that they do not depend
 * on the parser. */
#pragma once

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/policy.h"
#include "sim/scenario/scenario.h"
#include "sim/engine/sim.h"

/* A parametric tenant: no jitter, no scenes, starts at 0, grid pacer. */
static inline struct sim_tenant_spec test_tenant(const char *name, double sla,
                                                 double cpu_ms, double gpu_ms,
                                                 int max_in_flight)
{
	struct sim_tenant_spec t = {
	    .sla_fps = sla,
	    .cpu_ms = cpu_ms,
	    .gpu_ms = gpu_ms,
	    .max_in_flight = max_in_flight,
	    .pacer = SIM_PACER_GRID,
	};
	snprintf(t.name, sizeof(t.name), "%s", name);
	return t;
}

/* Time slicing with 1 ms quanta and no switch cost, default core params. */
static inline struct sim_scenario
test_scenario(const char *policy, double duration_s, double warmup_s,
              struct sim_tenant_spec *tenants, size_t n)
{
	struct sim_scenario sc = {
	    .duration_s = duration_s,
	    .warmup_s = warmup_s,
	    .seed = 1,
	    .gpu = {.model = SIM_GPU_TIMESLICE, .quantum_ms = 1.0},
	    .params = core_params_default(),
	    .tenants = tenants,
	    .n_tenants = n,
	};
	snprintf(sc.name, sizeof(sc.name), "test");
	snprintf(sc.policy, sizeof(sc.policy), "%s", policy);
	return sc;
}

static inline double rel_err(double got, double want)
{
	return (got - want) / want;
}

/* Runs the scenario, failing the test (cmocka's fail_msg: include
 * <cmocka.h> before this header) if the simulator refuses it. */
static inline struct sim_result test_run(const struct sim_scenario *sc)
{
	struct sim_result r;
	struct sim_error err;
	if (!sim_run(sc, &r, &err))
		fail_msg("sim_run: %s: %s", err.field, err.msg);
	return r;
}
