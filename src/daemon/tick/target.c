/* A tenant's control block from the core's decision (target.h). */
#include "daemon/tick/target.h"

#include <math.h>

#include "daemon/quality/quality.h"
#include "daemon/tenant.h"
#include "ipc/control.h"

/* The shim echoes the period into its records, which the ring reader
 * bounds to IPC_FRAME_MAX_PERIOD_NS: never ask for a longer one. */
static int64_t period_ns(double target_fps)
{
	if (!(target_fps > 0.0) || !isfinite(target_fps))
		return 0;
	double p = 1e9 / target_fps;
	if (p > (double)IPC_FRAME_MAX_PERIOD_NS)
		return IPC_FRAME_MAX_PERIOD_NS;
	return p < 1.0 ? 1 : (int64_t)llround(p);
}

uint32_t daemon_cap_ns(double budget)
{
	if (!(budget > 0.0) || !isfinite(budget))
		return 0;
	double ns = budget * 1e9;
	if (ns >= (double)BATON_CAP_MAX_NS_PER_S)
		return BATON_CAP_MAX_NS_PER_S;
	return ns < 1.0 ? 1 : (uint32_t)llround(ns);
}

void daemon_write_target(struct tenant *t, uint64_t tick, uint32_t split)
{
	struct ipc_control_values v = {
	    .target_period_ns = period_ns(t->core.target_fps),
	    .policy_epoch = tick,
	    .flags = BATON_CONTROL_VALID,
	    .cap_ns_per_s = daemon_cap_ns(t->core.caps.budget),
	    .quality_level = daemon_quality_control_level(&t->quality),
	    .partition = split > 0 ? BATON_PARTITION(0, split) : 0u,
	};
	/* The phase it is packed at (core/harvest_phase.h), on the clock of
	 * last_present_ns: CLOCK_MONOTONIC, as the shim's. */
	double phase = t->core.phase_s * 1e9;
	if (phase >= 1.0 && phase < 9e18) {
		v.flags |= BATON_CONTROL_PHASE;
		v.present_phase_ns = (int64_t)llround(phase);
	}
	ipc_control_write(t->shm.control, &v);
}
