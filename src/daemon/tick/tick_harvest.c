/* The control epoch's harvesting parts (tick_harvest.h). */
#include "daemon/tick/tick_harvest.h"

#include <math.h>
#include <stdio.h>

#include "daemon/tick/be_stuck.h"
#include "ipc/control.h"
#include "util/log.h"
#include "daemon/tick/target.h"

/* Sub-launch length and budget as the control block's integers. */
static int64_t window_ns(double window_s)
{
	if (!(window_s > 0.0) || !isfinite(window_s))
		return 0;
	double ns = window_s * 1e9;
	/* no window longer than the longest wait a frame may be paced to */
	if (ns >= (double)IPC_FRAME_MAX_PERIOD_NS)
		return IPC_FRAME_MAX_PERIOD_NS;
	return ns < 1.0 ? 1 : (int64_t)llround(ns);
}

/* The slot (core/harvest_slot.h) as the control block's integers, in
 * periodical mode only (continuous mode has no games to align to); none
 * when a length or period does not fit. */
static void slot_ns(const struct core_harvest_slot *s,
                    struct ipc_control_values *v)
{
	double start = s->start_s * 1e9, len = s->len_s * 1e9;
	double period = s->period_s * 1e9;
	if (!(len >= 1.0) || !(period >= len) || !(period < 4e9) ||
	    !(start > 0.0) || !(start < 9e18))
		return;
	v->be_slot_start_ns = (int64_t)llround(start);
	v->be_slot_len_ns = (uint32_t)llround(len);
	v->be_slot_period_ns = (uint32_t)llround(period);
}

void daemon_write_be(const struct daemon *d, struct tenant *t)
{
	const struct core_be_tenant *b = &t->be_state.core;
	const struct core_space_gpu *sp = &d->gpus[t->gpu].space;
	struct ipc_control_values v = {
	    .policy_epoch = d->ticks,
	    .flags = BATON_CONTROL_VALID |
	             (b->mode == CORE_HARVEST_CONTINUOUS
	                  ? BATON_CONTROL_BE_CONTINUOUS
	                  : 0u) |
	             (b->idle ? BATON_CONTROL_BE_IDLE : 0u),
	    .cap_ns_per_s = daemon_cap_ns(b->budget),
	    .be_window_ns = window_ns(b->window_s),
	    .partition = sp->be_count > 0 && t->be_state.partition
	                     ? BATON_PARTITION(sp->be_first, sp->be_count)
	                     : 0u,
	};
	if (b->mode == CORE_HARVEST_PERIODICAL && !b->idle)
		slot_ns(&d->gpus[t->gpu].harvest_gpu.slot, &v);
	ipc_control_write(t->shm.control, &v);
}

/* What a best-effort tenant that can run on a space partition used of
 * the device's units over the tick (tenant_seen.h, this epoch's, before
 * the GPUs' ticks): the measurement that earns a partition
 * (core/harvest_space.h). On a CPU device, its process's CPU time (0
 * once its process cannot be read). On a GPU (the CUDA gate under MPS,
 * src/sdk/cuda/space.c), its GPU seconds per second as batond counts
 * them (its report bounded by the epoch: per-process figures from the
 * driver are not read yet), times the units, as the games' load is
 * turned into units. 0 for one that cannot run on a partition, or with
 * space harvesting off. */
static double be_cpu_use(const struct tenant *t, unsigned units, bool software,
                         double dt)
{
	if (units < 2 || !t->be_state.partition || !(dt > 0.0))
		return 0.0;
	if (!software)
		return t->seen.seen_s / dt * (double)units;
	return t->seen.cpu_s / dt;
}

/* Stage 6 of the tick (core/harvest.h), handed to core_controller_tick:
 * the best-effort tenants, with the stuck rule's input read from their
 * rings and space harvesting's from their processes. batond sees the
 * games' shims, so their telemetry is the stage's (the probe path is the
 * SDK's when no batond answers). */
void daemon_harvest_gather(struct daemon *d, size_t g, int64_t now, double dt,
                           bool software)
{
	struct daemon_gpu *dg = &d->gpus[g];
	unsigned units = daemon_space_units(d, dg);
	size_t m = 0;
	for (size_t i = 0; i < d->n_tenants; i++) {
		struct tenant *t = d->tenants[i];
		if (!t->be || t->corrupt || t->gpu != g)
			continue;
		daemon_be_inflight(t, now);
		t->be_state.core.space = t->be_state.partition;
		t->be_state.core.cpu_use = be_cpu_use(t, units, software, dt);
		d->be_core[m++] = t->be_state.core;
	}
	dg->params = d->harvest;
	dg->params.space.sm_total = units;
	dg->gpu.harvest = (struct core_harvest_stage){
	    .params = &dg->params,
	    .be = d->be_core,
	    .n_be = m,
	    .out = &dg->harvest_gpu,
	    .games_seen = true,
	    .now_s = (double)now * 1e-9,
	    .dt_s = dt,
	    .space = &dg->space,
	    .cpu_device = software,
	};
}

/* What stage 6 decided, into each best-effort tenant on GPU g and its
 * control block. */
void daemon_harvest_apply(struct daemon *d, size_t g)
{
	size_t m = 0;
	for (size_t i = 0; i < d->n_tenants; i++) {
		struct tenant *t = d->tenants[i];
		if (!t->be || t->corrupt || t->gpu != g)
			continue;
		bool was = t->be_state.core.stuck;
		t->be_state.core = d->be_core[m++];
		daemon_be_stuck_log(t, was);
		daemon_write_be(d, t);
	}
}

/* A change of space harvesting's scheme (core/harvest_space.h). */
void daemon_space_log(const struct daemon *d, const struct daemon_gpu *dg)
{
	const struct core_space_gpu *s = &dg->space;
	unsigned units = daemon_space_units(d, dg);
	if (s->split > 0)
		log_info("%s: space harvesting: integrated, games on units "
		         "0-%u, best-effort on %u-%u (games' load %.3f, "
		         "spread %.3f)",
		         dg->name, s->split - 1, s->split, units - 1,
		         dg->harvest_gpu.games_util, s->spread);
	else if (s->holdoff_s > 0.0)
		log_warn("%s: space harvesting: a game under its SLA with the "
		         "games confined: the whole device back, no partition "
		         "for %.0f s",
		         dg->name, s->holdoff_s);
	else
		log_info("%s: space harvesting: temporal, the whole device for "
		         "everyone (games' load %.3f, spread %.3f, best-effort "
		         "processes' use %.2f units%s)",
		         dg->name, dg->harvest_gpu.games_util, s->spread,
		         s->be_use, dg->gpu.overload ? ", overload" : "");
}

unsigned daemon_space_units(const struct daemon *d, const struct daemon_gpu *dg)
{
	unsigned units = d->harvest.space.sm_total;
	if (units < 2)
		return 0;
	/* a logical GPU divides its own cores */
	return dg->has_cpus ? dg->n_cpus : units;
}

const char *daemon_hold_reason(const struct core_harvest_hold *h)
{
	switch (h->reason) {
	case CORE_HARVEST_HOLD_COST:
		return "cost";
	case CORE_HARVEST_HOLD_PERIOD:
		return "period";
	case CORE_HARVEST_HOLD_LOAD:
		return "load";
	case CORE_HARVEST_HOLD_OTHER:
		return "other";
	case CORE_HARVEST_OPEN:
		break;
	}
	return "open";
}

void daemon_hold_detail(const struct core_harvest_hold *h, char *buf,
                        size_t len)
{
	switch (h->reason) {
	case CORE_HARVEST_HOLD_COST:
		snprintf(buf, len, "its GPU time per frame is not known yet");
		return;
	case CORE_HARVEST_HOLD_PERIOD:
		snprintf(buf, len,
		         "its frames come every %.1f ms, which the games' GPU "
		         "time (%.1f ms a frame) and the margin fill",
		         h->period_s * 1e3, h->games_gpu_s * 1e3);
		return;
	case CORE_HARVEST_HOLD_LOAD:
		snprintf(buf, len,
		         "the games' load leaves no budget; its share is the "
		         "largest");
		return;
	case CORE_HARVEST_HOLD_OTHER:
		snprintf(buf, len,
		         "the load no tenant reports leaves no budget");
		return;
	case CORE_HARVEST_OPEN:
		break;
	}
	snprintf(buf, len, "%s", "");
}

void daemon_fill_be_snapshot(const struct daemon *d, const struct tenant *t,
                             struct metrics_be *m)
{
	(void)d;
	const struct tenant_be *b = &t->be_state;
	*m = (struct metrics_be){
	    .id = t->id,
	    .uid = t->uid,
	    .pid = t->pid,
	    .units_s = b->units_s,
	    .gpu_share = t->gpu_share,
	    .wait_ratio = b->wait_ratio,
	    .budget = b->core.budget,
	    .window_s = b->core.window_s,
	    .continuous = b->core.mode == CORE_HARVEST_CONTINUOUS ? 1.0 : 0.0,
	    .stuck = b->core.stuck ? 1.0 : 0.0,
	    .idle = b->core.idle ? 1.0 : 0.0,
	    .gpu = (double)t->gpu,
	};
	snprintf(m->name, sizeof(m->name), "%s", t->name);
}
