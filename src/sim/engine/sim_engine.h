/* The discrete-event engine's state and the functions its three files
 * share, for sim.c (setup, teardown, results), sim_events.c (the event loop
 * and its handlers, the sampling) and sim_tick.c (the control tick) and for
 * no one else; the public entry point, sim_run, is in sim.h.
 *
 * The engine runs games, one GPU and the control tick on a virtual clock
 * in nanoseconds.
 *
 * Every pending event is one of: a game's end of CPU phase, a game's end of
 * pacing sleep (Present), the GPU's end of segment, the controller's tick.
 * Each game and the GPU have at most one pending at a time, so the heap
 * holds at most n + 2 events and nothing is ever cancelled. Per event the
 * work is a heap operation and O(1) bookkeeping; only the tick is O(n).
 *
 * The controller is the one batond runs (core_controller_tick), fed what the
 * shim would report, so a policy behaves here as it does for real. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/controller.h"
#include "core/harvest_slot.h"
#include "sim/engine/be.h"
#include "sim/engine/game.h"
#include "sim/engine/gpu.h"
#include "sim/engine/heap.h"
#include "sim/scenario/scenario.h"

enum sim_event_kind {
	EV_CPU_DONE, /* target: tenant */
	EV_PRESENT,  /* target: tenant; its pacing sleep is over */
	EV_GPU,      /* the GPU's current segment ends */
	EV_TICK,     /* the controller's epoch ends */
	EV_REFILL,   /* budget model: a slot ends (gOver Alg. 2) */
	EV_BE,       /* target: BE tenant; it starts or its rest ends */
};

struct sim {
	const struct sim_scenario *sc;
	const struct core_policy *policy;
	struct sim_heap heap;
	struct sim_gpu gpu;
	struct sim_game *games;
	uint32_t n;
	int64_t warmup_ns, end_ns, epoch_ns;
	size_t n_secs; /* one-second windows */

	/* Controller: per-tenant core state, kept across ticks, and the
	 * compacted array of the tenants on the roster this tick. */
	struct core_tenant *core;
	struct core_tenant *roster;
	uint32_t *roster_of;
	struct core_gpu core_gpu;
	uint64_t ticks;
	int64_t tick_busy_ns;  /* GPU busy at the last tick */
	int64_t *tick_exec_ns; /* per tenant, at the last tick */
	int64_t *tick_held_ns; /* per tenant, held for budget, last tick */

	/* Sampling at window ends and at the end of the warm-up. */
	int64_t next_sample_ns;
	size_t window;          /* the window whose end comes next */
	int64_t window_busy_ns; /* GPU busy at the last window end */
	double *util_per_s;
	bool warm_done;
	int64_t warm_busy_ns;
	int64_t *warm_exec_ns;

	/* Capacity (gOver): tenants waiting for admission, arrivals, and
	 * per window whether any tenant's QoS was broken. */
	bool budget_model;
	uint32_t admitted;
	double *joined_s; /* per tenant, -1 until it joins */
	unsigned char *broken_per_s;
	unsigned char *counted_per_s; /* some tenant was judged */

	/* Time harvesting: per tenant its BE loop (used where the spec is
	 * a BE tenant), the compacted array the harvesting stage sees, and
	 * the stage's view of the GPU. */
	struct sim_be *be;
	struct core_be_tenant *be_roster;
	uint32_t *be_of;
	uint32_t n_be;
	struct core_harvest_gpu harvest;

	/* Quality (dJay): the quality stage's workspace (core_gpu.quality),
	 * and its estimated total benefit at each window's end. */
	void *quality_ws;
	double *q_benefit_per_s;

	uint64_t events;
	/* The event being handled is still the heap's top: the first event
	 * the handler schedules takes its place in one sift (most handlers
	 * schedule exactly one), else it is popped after the handler. */
	bool top_consumed;
	bool oom;
};

static inline bool sim_is_be(const struct sim *s, uint32_t i)
{
	return s->sc->tenants[i].be.gate != SIM_BE_NONE;
}

/* sim_events.c */
/* Schedules an event of kind (enum sim_event_kind) at t. */
void sim_push_event(struct sim *s, int64_t t, uint32_t kind, uint32_t target);
/* Does what a BE tenant's loop asked for (be.h). */
void sim_apply_be(struct sim *s, uint32_t i, struct sim_be_act a, int64_t now);
/* Game i starts a frame's CPU phase at now, unless game.h says it starts
 * none. */
void sim_begin_frame(struct sim *s, uint32_t i, int64_t now);
/* Starts tenant i's frame loop at now (an arrival). */
void sim_arrive(struct sim *s, uint32_t i, int64_t now);
/* Sets next_sample_ns: the next window's end or the end of the warm-up. */
void sim_plan_next_sample(struct sim *s);
/* Handles every event before end_ns, then takes the samples due at it. */
void sim_run_events(struct sim *s);

/* sim_quality_collect.c */
/* The quality games' figures (sim.h) into out; false if out of memory. */
bool sim_quality_collect(struct sim *s, struct sim_result *out);
/* sim_tick.c */
/* One control epoch ends at now. */
void sim_on_tick(struct sim *s, int64_t now);
