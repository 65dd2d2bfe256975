/* One simulated best-effort tenant (see be.h). */
#include "sim/engine/be.h"

#include <math.h>

#include "core/harvest_slot.h"
#include "core/harvest_stuck.h"

static const struct sim_be_act none = {.n_submit = 0, .wake_ns = -1};

static int64_t kernel_ns(const struct sim_tenant_spec *s, uint64_t n)
{
	return llround((s->be.c0_ms + s->be.c1_ms * (double)n) * 1e6);
}

void sim_be_init(struct sim_be *b, const struct sim_tenant_spec *spec,
                 const struct core_harvest_params *hp)
{
	*b = (struct sim_be){0};
	b->spec = spec;
	b->hp = hp;
	b->core.weight = spec->be.weight;
	b->core.cap = spec->be.cap;
	b->core.probe = spec->be.gate == SIM_BE_PROBE;
	b->task.n = spec->be.blocks;
	b->start_ns = spec->start_s > 0.0 ? llround(spec->start_s * 1e9) : 0;
	b->stop_ns = spec->stop_s > 0.0 ? llround(spec->stop_s * 1e9) : -1;
	b->state = SIM_BE_WAITING;
	b->inflight_ns = -1;
}

double sim_be_dedicated_rate(const struct sim_tenant_spec *spec)
{
	double t = (double)kernel_ns(spec, spec->be.blocks) / 1e9;
	return t > 0.0 ? (double)spec->be.blocks / t : 0.0;
}

/* The scenario's hung kernel: hang_s more for the first sub-launch
 * released at or after hang_at_s. */
static int64_t hang_ns(struct sim_be *b, int64_t now)
{
	const struct sim_be_spec *s = &b->spec->be;
	if (b->hung || !(s->hang_s > 0.0) || now < llround(s->hang_at_s * 1e9))
		return 0;
	b->hung = true;
	return llround(s->hang_s * 1e9);
}

/* The next sub-launch, as large as the window the core gives for the
 * current mode (core_harvest_window), in periodical mode within the
 * games' slot (harvest_slot.h: else a rest until its next occurrence;
 * not under GPU grid's probe, which knows no phases),
 * sized by the core's fit. */
static struct sim_be_act launch(struct sim_be *b, int64_t now,
                                const struct core_harvest_gpu *hg)
{
	/* The stuck rule shuts every window on the GPU (harvest_stuck.h);
	 * the budget, which it keeps, would give one back here. */
	double w =
	    hg->n_stuck > 0 ? 0.0 : core_harvest_window(b->hp, hg, &b->core);
	if (!b->core.probe && b->core.mode == CORE_HARVEST_PERIODICAL &&
	    w > 0.0) {
		double next;
		w = core_harvest_slot_window(&hg->slot, w, (double)now / 1e9,
		                             &next);
		int64_t wake = llround(next * 1e9);
		if (!(w > 0.0)) {
			if (wake <= now)
				wake = now + 1000; /* rounding: just after */
			b->state = SIM_BE_RESTING;
			return (struct sim_be_act){.n_submit = 0,
			                           .wake_ns = wake};
		}
	}
	uint64_t offset, count;
	if (!(w > 0.0) ||
	    !core_harvest_task_next(&b->task, &b->fit, w, &offset, &count)) {
		b->state = SIM_BE_WAITING;
		return none;
	}
	b->count = count;
	b->inflight_ns = now;
	b->inflight_window_s = w;
	if (b->others_overran)
		b->launched_while_stuck++;
	b->run_mode = b->core.mode;
	if (b->run_mode == CORE_HARVEST_CONTINUOUS)
		b->continuous++;
	else
		b->periodical++;
	b->state = SIM_BE_RUNNING;
	return (struct sim_be_act){.n_submit = 1,
	                           .cost_ns = kernel_ns(b->spec, count) +
	                                      hang_ns(b, now),
	                           .wake_ns = -1};
}

/* One iteration of the loop: a new task when the last is done, then the
 * probe (GPU grid) or straight to the launch (Baton's telemetry). */
static struct sim_be_act step(struct sim_be *b, int64_t now,
                              const struct core_harvest_gpu *hg)
{
	const struct sim_be_spec *s = &b->spec->be;
	if (b->stop_ns >= 0 && now > b->stop_ns) {
		b->state = SIM_BE_STOPPED;
		return none;
	}
	if (s->gate == SIM_BE_NAIVE) {
		/* Asynchronous launches of whole tasks, depth of them
		 * queued: what an unmodified CUDA program does. */
		b->state = SIM_BE_RUNNING;
		return (struct sim_be_act){.n_submit = (uint32_t)s->depth,
		                           .cost_ns =
		                               kernel_ns(b->spec, s->blocks),
		                           .wake_ns = -1};
	}
	if (b->task.done >= b->task.n) {
		b->task.done = 0;
		/* Algorithm 1 starts every task with count = 0. */
		if (b->core.probe) {
			b->core.quiet = 0;
			b->core.mode = CORE_HARVEST_PERIODICAL;
		}
	}
	if (s->gate == SIM_BE_PROBE) {
		b->state = SIM_BE_PROBING;
		return (struct sim_be_act){.n_submit = 1,
		                           .cost_ns =
		                               llround(s->probe_us * 1e3),
		                           .wake_ns = -1};
	}
	return launch(b, now, hg);
}

struct sim_be_act sim_be_wake(struct sim_be *b, int64_t now,
                              const struct core_harvest_gpu *hg)
{
	return step(b, now, hg);
}

bool sim_be_inflight(struct sim_be *b, int64_t now)
{
	bool on = b->inflight_ns >= 0 && now > b->inflight_ns;
	b->core.inflight_s = on ? (double)(now - b->inflight_ns) / 1e9 : 0.0;
	b->core.inflight_window_s = on ? b->inflight_window_s : 0.0;
	return core_harvest_overran(b->hp, &b->core);
}

struct sim_be_act sim_be_tick(struct sim_be *b, int64_t now,
                              const struct core_harvest_gpu *hg)
{
	if (b->state != SIM_BE_WAITING || now <= b->start_ns)
		return none;
	return step(b, now, hg);
}

struct sim_be_act sim_be_done(struct sim_be *b, int64_t now, int64_t submit_ns,
                              const struct core_harvest_gpu *hg)
{
	const struct sim_be_spec *s = &b->spec->be;
	if (s->gate == SIM_BE_NAIVE) {
		b->blocks += s->blocks;
		if (b->stop_ns >= 0 && now > b->stop_ns) {
			b->state = SIM_BE_STOPPED;
			return none;
		}
		return (struct sim_be_act){.n_submit = 1,
		                           .cost_ns =
		                               kernel_ns(b->spec, s->blocks),
		                           .wake_ns = -1};
	}
	if (b->state == SIM_BE_PROBING) {
		/* k: launch to completion of the empty kernel, which queues
		 * behind whatever the GPU holds (notes Sec. 3). */
		double k_us = (double)(now - submit_ns) / 1e3;
		core_harvest_observe(b->hp, &b->core, k_us < s->alpha_us);
		return launch(b, now, hg);
	}
	/* The sub-launch finished; the fit learns its execution time (what
	 * queue profiling or CUDA events report, not the wait before it;
	 * the model's, a hang left out: the fit's care, not the rule's).
	 * Its record clears the stamp. */
	b->inflight_ns = -1;
	double t = (double)kernel_ns(b->spec, b->count) / 1e9;
	core_harvest_task_done(&b->task, &b->fit, b->count, t);
	b->blocks += b->count;
	double rest = core_harvest_rest(b->hp, &b->core, t);
	if (rest < 0.0) {
		b->state = SIM_BE_WAITING;
		return none;
	}
	int64_t rest_ns = llround(rest * 1e9);
	if (rest_ns <= 0)
		return step(b, now, hg);
	b->state = SIM_BE_RESTING;
	return (struct sim_be_act){.n_submit = 0, .wake_ns = now + rest_ns};
}
