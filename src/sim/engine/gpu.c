/* GPU scheduling models (see gpu.h and struct sim_gpu_spec).
 *
 * Time slicing is the driver default vGASA starts from (Sec. 1, Fig. 1):
 * busy contexts take turns in equal quanta, so a game's share of the GPU
 * does not depend on what its frames cost, and cheap games run far faster
 * than expensive ones. FCFS is the "first-come, first-served" sharing vGASA
 * reports for VMware Player. */
#include "sim/engine/gpu.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

static void rq_push(struct sim_gpu *g, uint32_t ctx)
{
	assert(g->rq_n < g->rq_cap);
	uint32_t tail = g->rq_head + g->rq_n;
	if (tail >= g->rq_cap)
		tail -= g->rq_cap;
	g->rq[tail] = ctx;
	g->rq_n++;
	g->ctx[ctx].queued = true;
}

static uint32_t rq_pop(struct sim_gpu *g)
{
	uint32_t ctx = g->rq[g->rq_head];
	if (++g->rq_head == g->rq_cap)
		g->rq_head = 0;
	g->rq_n--;
	g->ctx[ctx].queued = false;
	return ctx;
}

static struct sim_gpu_job *front(struct sim_gpu_ctx *c)
{
	return &c->jobs[c->head];
}

/* Budget model: may it run (gOver Alg. 3: timeslice > 0; cap 0 = none)? */
static bool has_budget(const struct sim_gpu *g, const struct sim_gpu_ctx *c)
{
	return g->model != SIM_GPU_BUDGET || !(c->gpu_cap > 0.0) ||
	       c->budget_ns > 0;
}

/* Budget model: starts or ends ctx's held stretch at now (gpu.h
 * sim_gpu_held_ns): it has work, no budget, and is not on the GPU. */
static void note_held(struct sim_gpu *g, uint32_t ctx, int64_t now)
{
	if (ctx == SIM_GPU_NONE || g->model != SIM_GPU_BUDGET)
		return;
	struct sim_gpu_ctx *c = &g->ctx[ctx];
	bool held = c->n > 0 && !has_budget(g, c) &&
	            !(g->cur == ctx && g->state != SIM_GPU_IDLE);
	if (held == c->held)
		return;
	if (held)
		c->held_from = now;
	else
		c->held_ns += now - c->held_from;
	c->held = held;
}

bool sim_gpu_init(struct sim_gpu *g, const struct sim_gpu_spec *spec,
                  uint32_t n_ctx, const uint32_t *queue_cap)
{
	*g = (struct sim_gpu){0};
	g->model = spec->model;
	g->switch_ns =
	    spec->switch_us > 0.0 ? llround(spec->switch_us * 1e3) : 0;
	/* FCFS runs a job to its end: a quantum longer than any run. */
	g->quantum_ns = INT64_MAX / 4;
	if (spec->model == SIM_GPU_TIMESLICE || spec->model == SIM_GPU_BUDGET)
		g->quantum_ns = llround(spec->quantum_ms * 1e6);
	if (spec->model == SIM_GPU_BUDGET) {
		g->slot_ns = llround(spec->slot_ms * 1e6);
		if (g->slot_ns < 1)
			g->slot_ns = 1;
		double per = spec->period_ms / spec->slot_ms;
		g->slots_per_period = per >= 1.0 ? (uint32_t)llround(per) : 1;
	}
	g->n_ctx = n_ctx;
	g->state = SIM_GPU_IDLE;
	g->cur = SIM_GPU_NONE;
	g->last = SIM_GPU_NONE;

	size_t jobs = 0;
	for (uint32_t i = 0; i < n_ctx; i++)
		jobs += queue_cap[i];
	g->ctx = calloc(n_ctx ? n_ctx : 1, sizeof(*g->ctx));
	g->job_pool = calloc(jobs ? jobs : 1, sizeof(*g->job_pool));
	g->rq_cap = spec->model == SIM_GPU_FCFS ? (uint32_t)jobs : n_ctx;
	g->rq = calloc(g->rq_cap ? g->rq_cap : 1, sizeof(*g->rq));
	if (!g->ctx || !g->job_pool || !g->rq) {
		sim_gpu_finish(g);
		return false;
	}
	size_t off = 0;
	for (uint32_t i = 0; i < n_ctx; i++) {
		g->ctx[i].jobs = g->job_pool + off;
		g->ctx[i].cap = queue_cap[i];
		off += queue_cap[i];
	}
	return true;
}

void sim_gpu_finish(struct sim_gpu *g)
{
	free(g->ctx);
	free(g->job_pool);
	free(g->rq);
	*g = (struct sim_gpu){0};
}

/* Runs cur's front job from now, within the current quantum. */
static void run_segment(struct sim_gpu *g, int64_t now)
{
	const struct sim_gpu_job *job = front(&g->ctx[g->cur]);
	g->state = SIM_GPU_RUNNING;
	g->seg_start = now;
	g->seg_end = now + job->left_ns;
	if (g->seg_end > g->quantum_end)
		g->seg_end = g->quantum_end;
}

static void start_quantum(struct sim_gpu *g, int64_t now)
{
	g->last = g->cur;
	g->quantum_end = now + g->quantum_ns;
	run_segment(g, now);
}

/* Budget model: nobody with budget has work. A work-conserving context with
 * work (round robin from the one after the last to run) takes the GPU
 * rather than let it idle; its budget keeps falling, and the debt goes at
 * the period's reset. */
static void queue_work_conserving(struct sim_gpu *g)
{
	uint32_t start = g->last == SIM_GPU_NONE ? 0 : g->last + 1;
	for (uint32_t k = 0; k < g->n_ctx; k++) {
		uint32_t i = (start + k) % g->n_ctx;
		struct sim_gpu_ctx *c = &g->ctx[i];
		if (c->work_conserving && c->n > 0 && !c->queued) {
			rq_push(g, i);
			return;
		}
	}
}

/* Gives the GPU to the next waiting context, paying the switch when it is
 * not the one that ran last; idles when nobody waits. */
static void dispatch(struct sim_gpu *g, int64_t now)
{
	if (g->rq_n == 0 && g->model == SIM_GPU_BUDGET)
		queue_work_conserving(g);
	if (g->rq_n == 0) {
		g->state = SIM_GPU_IDLE;
		g->cur = SIM_GPU_NONE;
		return;
	}
	g->cur = rq_pop(g);
	if (g->cur != g->last && g->last != SIM_GPU_NONE && g->switch_ns > 0) {
		g->state = SIM_GPU_SWITCHING;
		g->seg_start = now;
		g->seg_end = now + g->switch_ns;
		return;
	}
	start_quantum(g, now);
}

int64_t sim_gpu_submit(struct sim_gpu *g, int64_t now, uint32_t ctx,
                       int64_t cost_ns)
{
	struct sim_gpu_ctx *c = &g->ctx[ctx];
	assert(c->n < c->cap);
	uint32_t slot = c->head + c->n;
	if (slot >= c->cap)
		slot -= c->cap;
	c->jobs[slot] = (struct sim_gpu_job){
	    .left_ns = cost_ns > 0 ? cost_ns : 0, .submit_ns = now};
	if (c->n++ == 0)
		g->busy_ctx++;
	/* FCFS queues every job; time slicing queues a context once, when it
	 * gets work and is not already the one on the GPU. */
	if (g->model == SIM_GPU_FCFS)
		rq_push(g, ctx);
	else if (c->n == 1 && g->cur != ctx && has_budget(g, c) && !c->queued)
		rq_push(g, ctx);
	if (g->state != SIM_GPU_IDLE) {
		note_held(g, ctx, now);
		return -1;
	}
	dispatch(g, now);
	note_held(g, ctx, now);
	/* Budget model: a context out of budget was not queued, and the
	 * GPU stays idle until a refill. */
	return g->state == SIM_GPU_IDLE ? -1 : g->seg_end;
}

bool sim_gpu_event(struct sim_gpu *g, int64_t now, struct sim_gpu_done *done,
                   int64_t *next)
{
	int64_t ran = now - g->seg_start;
	bool finished = false;
	g->busy_ns += ran;

	if (g->state == SIM_GPU_SWITCHING) {
		start_quantum(g, now);
		*next = g->seg_end;
		return false;
	}

	struct sim_gpu_ctx *c = &g->ctx[g->cur];
	struct sim_gpu_job *job = front(c);
	c->exec_ns += ran;
	job->left_ns -= ran;
	/* gOver charges in -> out time at switch-out (Sec. 2.4): the budget
	 * may go negative by the segment that overran it. */
	if (g->model == SIM_GPU_BUDGET && c->gpu_cap > 0.0)
		c->budget_ns -= ran;
	if (job->left_ns <= 0) {
		*done = (struct sim_gpu_done){.ctx = g->cur,
		                              .submit_ns = job->submit_ns};
		finished = true;
		if (++c->head == c->cap)
			c->head = 0;
		if (--c->n == 0)
			g->busy_ctx--;
	}

	if (g->model == SIM_GPU_FCFS) {
		/* The next job in submission order, whoever owns it. */
		dispatch(g, now);
	} else if (c->n == 0) {
		dispatch(g, now);
	} else if (!has_budget(g, c)) {
		/* Out of budget: it waits, unqueued, for a refill
		 * (sim_gpu_refill); the others run or the GPU idles. */
		dispatch(g, now);
	} else if (now < g->quantum_end) {
		run_segment(g, now);
	} else if (g->rq_n == 0) {
		/* A lone busy context keeps the GPU, with a fresh quantum
		 * and no switch. */
		start_quantum(g, now);
	} else {
		/* Quantum over and others wait: to the back of the line. */
		rq_push(g, g->cur);
		dispatch(g, now);
	}
	note_held(g, (uint32_t)(c - g->ctx), now);
	note_held(g, g->cur, now);
	*next = g->state == SIM_GPU_IDLE ? -1 : g->seg_end;
	return finished;
}

void sim_gpu_set_cap(struct sim_gpu *g, uint32_t ctx, double cap)
{
	g->ctx[ctx].gpu_cap = cap > 0.0 && cap <= 1.0 ? cap : 0.0;
}

void sim_gpu_set_work_conserving(struct sim_gpu *g, uint32_t ctx, bool on)
{
	g->ctx[ctx].work_conserving = on;
}

int64_t sim_gpu_refill(struct sim_gpu *g, int64_t now)
{
	/* gOver Alg. 2 as corrected: stage 0 of each period sets the budget
	 * to one slot's worth (residue and debt dropped); the other slots
	 * add one slot's worth (residue carried within the period). */
	bool reset = g->slot % g->slots_per_period == 0;
	g->slot++;
	for (uint32_t i = 0; i < g->n_ctx; i++) {
		struct sim_gpu_ctx *c = &g->ctx[i];
		if (!(c->gpu_cap > 0.0))
			continue;
		int64_t add = llround(c->gpu_cap * (double)g->slot_ns);
		c->budget_ns = reset ? add : c->budget_ns + add;
	}
	/* Alg. 3: contexts with work and budget take their turn again. */
	for (uint32_t i = 0; i < g->n_ctx; i++) {
		struct sim_gpu_ctx *c = &g->ctx[i];
		if (c->n > 0 && !c->queued && i != g->cur && has_budget(g, c))
			rq_push(g, i);
	}
	int64_t wake = -1;
	if (g->state == SIM_GPU_IDLE && g->rq_n > 0) {
		dispatch(g, now);
		wake = g->seg_end;
	}
	for (uint32_t i = 0; i < g->n_ctx; i++)
		note_held(g, i, now);
	return wake;
}

int64_t sim_gpu_busy_ns(const struct sim_gpu *g, int64_t now)
{
	if (g->state == SIM_GPU_IDLE)
		return g->busy_ns;
	return g->busy_ns + (now - g->seg_start);
}

int64_t sim_gpu_exec_ns(const struct sim_gpu *g, uint32_t ctx, int64_t now)
{
	int64_t t = g->ctx[ctx].exec_ns;
	if (g->state == SIM_GPU_RUNNING && g->cur == ctx)
		t += now - g->seg_start;
	return t;
}

uint32_t sim_gpu_busy_others(const struct sim_gpu *g, uint32_t ctx)
{
	return g->busy_ctx - (g->ctx[ctx].n > 0 ? 1u : 0u);
}

int64_t sim_gpu_held_ns(const struct sim_gpu *g, uint32_t ctx, int64_t now)
{
	const struct sim_gpu_ctx *c = &g->ctx[ctx];
	return c->held_ns + (c->held ? now - c->held_from : 0);
}
