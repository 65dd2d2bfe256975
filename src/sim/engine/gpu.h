/* The simulated GPU: one device running the frame jobs of several contexts
 * (one per tenant) under the driver's scheduling model (struct
 * sim_gpu_spec).
 *
 * The GPU is a state machine with at most one pending event, the end of its
 * current segment (a context switch, or a stretch of one job). Segments are
 * never cut short: a job submitted mid-segment waits for the segment's end,
 * as it waits for the quantum's end on a real time-sliced GPU. So the caller
 * never cancels a GPU event; it schedules one whenever a call returns a time
 * >= 0 and hands it back to sim_gpu_event() when it fires. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/scenario/scenario.h"

#define SIM_GPU_NONE UINT32_MAX

struct sim_gpu_job {
	int64_t left_ns;   /* execution time still to run */
	int64_t submit_ns; /* when Present queued it */
};

/* A context: its jobs in FIFO order (a ring) and the time it got. */
struct sim_gpu_ctx {
	struct sim_gpu_job *jobs;
	uint32_t cap, head, n;
	int64_t exec_ns; /* execution time of finished segments */
	/* Budget model: the GPU cap (0 = none), the budget left in the
	 * period (gOver's timeslice; may go negative by the segment that
	 * overran it), and whether it waits in the run queue. */
	double gpu_cap;
	int64_t budget_ns;
	bool queued;
	/* Out of budget, it still runs while no context with budget has
	 * work (the GPU would idle otherwise). */
	bool work_conserving;
	/* Budget model: time it had work and was held off the GPU for want
	 * of budget (what the shim's gate reports as gate_us), finished
	 * stretches, and whether one is under way since held_from. */
	int64_t held_ns, held_from;
	bool held;
};

enum sim_gpu_state {
	SIM_GPU_IDLE = 0,
	SIM_GPU_SWITCHING, /* paying switch_ns before running cur */
	SIM_GPU_RUNNING,   /* running cur's front job */
};

struct sim_gpu {
	enum sim_gpu_model model;
	int64_t quantum_ns; /* FCFS: effectively infinite */
	int64_t switch_ns;
	struct sim_gpu_ctx *ctx;
	uint32_t n_ctx;
	struct sim_gpu_job *job_pool; /* backs every context's ring */
	/* Contexts waiting for the GPU, FIFO. Time slicing: each context with
	 * queued work other than cur, once. FCFS: one entry per queued job, in
	 * submission order. */
	uint32_t *rq;
	uint32_t rq_cap, rq_head, rq_n;
	enum sim_gpu_state state;
	uint32_t cur;  /* context switching in or running */
	uint32_t last; /* the last context that ran, SIM_GPU_NONE at first */
	int64_t seg_start, seg_end, quantum_end;
	int64_t busy_ns;   /* finished segments, switches included */
	uint32_t busy_ctx; /* contexts with a job queued or running */
	int64_t slot_ns;   /* budget model */
	uint32_t slots_per_period, slot;
};

/* A job that finished at a sim_gpu_event(). */
struct sim_gpu_done {
	uint32_t ctx;
	int64_t submit_ns;
};

/* queue_cap[i] (>= 1): most jobs context i ever has queued at once. */
bool sim_gpu_init(struct sim_gpu *g, const struct sim_gpu_spec *spec,
                  uint32_t n_ctx, const uint32_t *queue_cap);
void sim_gpu_finish(struct sim_gpu *g);

/* Queues a job of cost_ns for ctx at now. Returns the time of the GPU event
 * the caller must schedule, or -1 when one is already pending. The caller
 * never submits more than queue_cap[ctx] unfinished jobs. */
int64_t sim_gpu_submit(struct sim_gpu *g, int64_t now, uint32_t ctx,
                       int64_t cost_ns);

/* Handles the pending GPU event at now (its scheduled time). Returns true
 * and fills *done when a job finished. *next is the time of the next GPU
 * event to schedule, or -1 when the GPU went idle. */
bool sim_gpu_event(struct sim_gpu *g, int64_t now, struct sim_gpu_done *done,
                   int64_t *next);

/* Budget model: sets ctx's cap (0 = none), used from the next refill on,
 * as gOver's cap-writing timer (Sec. 3.4). */
void sim_gpu_set_cap(struct sim_gpu *g, uint32_t ctx, double cap);
/* Budget model: whether ctx may run past its budget on an idle GPU. */
void sim_gpu_set_work_conserving(struct sim_gpu *g, uint32_t ctx, bool on);
/* Budget model: the refill timer (gOver Alg. 2) at the end of a slot, every
 * slot_ns from 0: every slot_per_period-th one resets the budgets. Returns
 * the time of the GPU event to schedule when it wakes an idle GPU, else -1.
 */
int64_t sim_gpu_refill(struct sim_gpu *g, int64_t now);

/* Cumulative time up to now (>= the last event): busy, switches included,
 * and execution time of one context. */
int64_t sim_gpu_busy_ns(const struct sim_gpu *g, int64_t now);
/* Contexts other than ctx with a job queued or running. */
uint32_t sim_gpu_busy_others(const struct sim_gpu *g, uint32_t ctx);
int64_t sim_gpu_exec_ns(const struct sim_gpu *g, uint32_t ctx, int64_t now);
/* Budget model: cumulative time up to now that ctx had work and was held
 * off the GPU because its budget ran out: the simulator's budget gate
 * wait (core_tenant.gate_s). A cap removed while ctx is held stops the
 * count at the next refill. */
int64_t sim_gpu_held_ns(const struct sim_gpu *g, uint32_t ctx, int64_t now);
