/* What sim_run() refuses to simulate, with the field to blame. The parser
 * checks what a file says; this checks what the engine needs, for any
 * struct sim_scenario, including ones built in code. */
#include "sim/engine/validate.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "core/policy.h"

static void set_error(struct sim_error *err, const char *field, const char *fmt,
                      ...) __attribute__((format(printf, 3, 4)));

static void set_error(struct sim_error *err, const char *field, const char *fmt,
                      ...)
{
	if (!err)
		return;
	*err = (struct sim_error){0};
	snprintf(err->field, sizeof(err->field), "%s", field);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

static bool trace_costs_time(const struct sim_tenant_spec *t)
{
	for (size_t i = 0; i < t->n_trace; i++)
		if (t->trace_cpu_ms[i] > 0.0 || t->trace_gpu_ms[i] > 0.0)
			return true;
	return false;
}

/* The run as a whole: its length, warm-up, tenants and policy. */
static bool validate_run(const struct sim_scenario *sc, struct sim_error *err)
{
	if (!(sc->duration_s > 0.0) || !isfinite(sc->duration_s) ||
	    sc->duration_s > 1e9) {
		set_error(err, "duration_s",
		          "must be > 0 (and < 1e9 s), not %g", sc->duration_s);
		return false;
	}
	if (!(sc->warmup_s >= 0.0) || sc->warmup_s >= sc->duration_s) {
		set_error(err, "warmup_s",
		          "warm-up (%g s) must be >= 0 and shorter than the "
		          "duration (%g s): nothing would be measured",
		          sc->warmup_s, sc->duration_s);
		return false;
	}
	if (sc->n_tenants == 0 || sc->n_tenants > UINT32_MAX / 2) {
		set_error(err, "tenants", "nothing to simulate: %zu tenants",
		          sc->n_tenants);
		return false;
	}
	if (!core_policy_find(sc->policy)) {
		set_error(err, "policy.name", "unknown policy \"%.16s\"",
		          sc->policy);
		return false;
	}
	if (!(sc->params.epoch_s > 0.0) || !isfinite(sc->params.epoch_s)) {
		set_error(err, "policy.epoch_ms", "control epoch must be > 0");
		return false;
	}
	return true;
}

static bool validate_gpu(const struct sim_gpu_spec *gpu, struct sim_error *err)
{
	if (gpu->model != SIM_GPU_TIMESLICE && gpu->model != SIM_GPU_FCFS &&
	    gpu->model != SIM_GPU_BUDGET) {
		set_error(err, "gpu.model", "unknown GPU model %d",
		          (int)gpu->model);
		return false;
	}
	if (gpu->model == SIM_GPU_BUDGET &&
	    (!(llround(gpu->slot_ms * 1e6) > 0) ||
	     !(gpu->period_ms >= gpu->slot_ms))) {
		set_error(err, "gpu.slot_ms",
		          "slot must be > 0 and at most the period (%g, %g ms)",
		          gpu->slot_ms, gpu->period_ms);
		return false;
	}
	if ((gpu->model == SIM_GPU_TIMESLICE || gpu->model == SIM_GPU_BUDGET) &&
	    !(llround(gpu->quantum_ms * 1e6) > 0)) {
		set_error(err, "gpu.quantum_ms",
		          "time slice must be > 0 (at least 1 ns)");
		return false;
	}
	if (!(gpu->switch_us >= 0.0)) {
		set_error(err, "gpu.switch_us", "must be >= 0");
		return false;
	}
	return true;
}

/* A game with quality levels: its models give the GPU cost, which an
 * empty area makes 0, so the CPU phase keeps the clock moving. */
static bool quality_ok(const struct sim_tenant_spec *t)
{
	const struct sim_quality_spec *q = t->quality;
	return t->cpu_ms > 0.0 && q->n_levels >= 2 &&
	       q->n_levels <= QUALITY_MAX_LEVELS && q->n_areas != 0 &&
	       q->areas && q->start_level < q->n_levels;
}

/* What a tenant of each kind needs to cost time; field names the key. */
static bool validate_kind(const struct sim_tenant_spec *t, size_t i,
                          char *field, size_t len, struct sim_error *err)
{
	if (t->be.gate != SIM_BE_NONE) {
		/* A BE tenant: blocks and their cost, no frames. */
		if (t->be.blocks > 0 && t->be.c1_ms > 0.0)
			return true;
		snprintf(field, len, "tenants.[%zu].blocks", i);
		set_error(err, field,
		          "a BE tenant needs blocks > 0 and c1_ms > 0");
		return false;
	}
	if (t->quality) {
		if (quality_ok(t))
			return true;
		snprintf(field, len, "tenants.[%zu].levels", i);
		set_error(err, field,
		          "a game with levels needs cpu_ms > 0, 2 to %d "
		          "levels, a start_level among them and at least one "
		          "area",
		          QUALITY_MAX_LEVELS);
		return false;
	}
	if (t->n_trace == 0 && !(t->cpu_ms + t->gpu_ms > 0.0)) {
		snprintf(field, len, "tenants.[%zu].gpu_ms", i);
		set_error(err, field, "cpu_ms + gpu_ms must be > 0 (%g + %g)",
		          t->cpu_ms, t->gpu_ms);
		return false;
	}
	for (size_t j = 1; j < t->n_scenes; j++) {
		if (t->scenes[j].at_s < t->scenes[j - 1].at_s) {
			snprintf(field, len, "tenants.[%zu].scenes.[%zu].at_s",
			         i, j);
			set_error(err, field, "scenes must be sorted by at_s");
			return false;
		}
	}
	return true;
}

static bool validate_tenant(const struct sim_tenant_spec *t, size_t i,
                            struct sim_error *err)
{
	char field[96];
	if (t->max_in_flight < 0) {
		snprintf(field, sizeof(field), "tenants.[%zu].max_in_flight",
		         i);
		set_error(err, field, "must be >= 0, not %d", t->max_in_flight);
		return false;
	}
	if (t->n_trace > 0 && (!t->trace_cpu_ms || !t->trace_gpu_ms)) {
		snprintf(field, sizeof(field), "tenants.[%zu].trace", i);
		set_error(err, field, "trace has no data");
		return false;
	}
	/* Frames that cost nothing anywhere would repeat forever at one
	 * instant: the virtual clock would never move. */
	if (t->n_trace > 0 && !trace_costs_time(t)) {
		snprintf(field, sizeof(field), "tenants.[%zu].trace", i);
		set_error(err, field, "every frame costs 0 ms");
		return false;
	}
	return validate_kind(t, i, field, sizeof(field), err);
}

bool sim_validate(const struct sim_scenario *sc, struct sim_error *err)
{
	if (!validate_run(sc, err) || !validate_gpu(&sc->gpu, err))
		return false;
	for (size_t i = 0; i < sc->n_tenants; i++)
		if (!validate_tenant(&sc->tenants[i], i, err))
			return false;
	return true;
}
