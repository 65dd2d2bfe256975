/* One simulated best-effort tenant (GPU grid's guest): a task of N blocks
 * repeated for ever, launched as the scenario's gate says (sim_be_gate).
 * The gated loops ask the core's harvesting stage (core/harvest.h) for the
 * mode, the window and the rest, and size each sub-launch with the core's
 * online fit and block offset (core/harvest_fit.h): the code the daemon and
 * the SDK will run. The engine (sim.c) owns the GPU and the clock; this
 * module says what to submit and when to wake. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "core/harvest.h"
#include "core/harvest_fit.h"
#include "sim/scenario/scenario.h"

enum sim_be_state {
	SIM_BE_WAITING, /* for a window (the next tick) */
	SIM_BE_PROBING, /* the empty kernel is on the GPU */
	SIM_BE_RUNNING, /* a sub-launch (or naive kernels) on the GPU */
	SIM_BE_RESTING, /* its wake-up is scheduled */
	SIM_BE_STOPPED,
};

struct sim_be {
	const struct sim_tenant_spec *spec;
	const struct core_harvest_params *hp;
	struct core_be_tenant core; /* the harvesting stage's view */
	struct core_harvest_task task;
	struct core_harvest_fit fit;
	enum sim_be_state state;
	int64_t start_ns, stop_ns;
	uint64_t count; /* blocks of the sub-launch in flight */
	enum core_harvest_mode run_mode; /* the mode it was launched in */
	/* Counted from start; the engine snapshots them at the warm-up. */
	uint64_t blocks;     /* blocks finished */
	uint64_t periodical; /* sub-launches launched in each mode */
	uint64_t continuous;
	uint64_t warm_blocks, warm_periodical, warm_continuous; /* at the
	                                                           warm-up */
	/* The stuck rule (core/harvest_stuck.h): the sub-launch in flight,
	 * as the SDK stamps it (its release, -1: none, and the window it
	 * was given), and whether its scenario's hang has happened. */
	int64_t inflight_ns;
	double inflight_window_s;
	bool hung;
	/* At the last tick, whether its own sub-launch had overrun
	 * (core_harvest_overran), and whether another BE tenant's on the
	 * GPU had, released before its own if it has one (the hung kernel,
	 * not one queued behind it): the rule on or off, to compare. */
	bool overran, others_overran;
	/* Over the measured time (sim.c counts them at each tick): time
	 * the stage held it stuck; its GPU time while another's sub-launch
	 * had overrun; sub-launches it released meanwhile (0 under the
	 * rule: every window is shut). */
	int64_t stuck_ns;
	int64_t run_while_stuck_ns;
	uint64_t launched_while_stuck, warm_launched_while_stuck;
	int64_t tick_exec_ns; /* its GPU time at the last tick */
};

/* What the engine must do for it: submit n_submit jobs of cost_ns each
 * (n_submit 0: none), and wake it at wake_ns (-1: no wake-up). */
struct sim_be_act {
	uint32_t n_submit;
	int64_t cost_ns;
	int64_t wake_ns;
};

void sim_be_init(struct sim_be *b, const struct sim_tenant_spec *spec,
                 const struct core_harvest_params *hp);
/* Its dedicated speed: blocks per second with the whole task in one
 * kernel (GPU grid's p1). */
double sim_be_dedicated_rate(const struct sim_tenant_spec *spec);
/* It starts (at its start_s) or its rest is over. */
struct sim_be_act sim_be_wake(struct sim_be *b, int64_t now,
                              const struct core_harvest_gpu *hg);
/* One of its jobs, submitted at submit_ns, finished at now. */
struct sim_be_act sim_be_done(struct sim_be *b, int64_t now, int64_t submit_ns,
                              const struct core_harvest_gpu *hg);
/* Sets the stuck rule's inputs at now (core_be_tenant.inflight_s and
 * inflight_window_s, what batond reads from the SDK's stamp) and returns
 * whether its sub-launch has overrun (core_harvest_overran). */
bool sim_be_inflight(struct sim_be *b, int64_t now);
/* After a tick changed its window: a tenant waiting for one goes on. */
struct sim_be_act sim_be_tick(struct sim_be *b, int64_t now,
                              const struct core_harvest_gpu *hg);
