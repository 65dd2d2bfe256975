/* The discrete-event engine: games, one GPU and the control tick on a
 * virtual clock in nanoseconds.
 *
 * Every pending event is one of: a game's end of CPU phase, a game's end of
 * pacing sleep (Present), the GPU's end of segment, the controller's tick.
 * Each game and the GPU have at most one pending at a time, so the heap
 * holds at most n + 2 events and nothing is ever cancelled. Per event the
 * work is a heap operation and O(1) bookkeeping; only the tick is O(n).
 *
 * The controller is the one batond runs (core_controller_tick), fed what the
 * shim would report, so a policy behaves here as it does for real. */
#include "sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/controller.h"
#include "core/harvest_slot.h"
#include "sim/be.h"
#include "sim/game.h"
#include "sim/gpu.h"
#include "sim/heap.h"
#include "sim/metrics.h"
#include "sim/validate.h"

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

	uint64_t events;
	/* The event being handled is still the heap's top: the first event
	 * the handler schedules takes its place in one sift (most handlers
	 * schedule exactly one), else it is popped after the handler. */
	bool top_consumed;
	bool oom;
};

static void push(struct sim *s, int64_t t, uint32_t kind, uint32_t target)
{
	if (s->top_consumed) {
		s->top_consumed = false;
		sim_heap_replace_top(&s->heap, t, kind, target);
		return;
	}
	/* The heap is sized for every event that can be pending at once, so
	 * this only fails if that reasoning is wrong or memory runs out. */
	if (!sim_heap_push(&s->heap, t, kind, target))
		s->oom = true;
}

static bool is_be(const struct sim *s, uint32_t i)
{
	return s->sc->tenants[i].be.gate != SIM_BE_NONE;
}

/* Does what a BE tenant's loop asked for (be.h). */
static void be_apply(struct sim *s, uint32_t i, struct sim_be_act a,
                     int64_t now)
{
	for (uint32_t k = 0; k < a.n_submit; k++) {
		int64_t wake = sim_gpu_submit(&s->gpu, now, i, a.cost_ns);
		if (wake >= 0)
			push(s, wake, EV_GPU, 0);
	}
	if (a.wake_ns >= 0 && a.wake_ns < s->end_ns)
		push(s, a.wake_ns, EV_BE, i);
}

static void begin_frame(struct sim *s, uint32_t i, int64_t now)
{
	struct sim_game *g = &s->games[i];
	if (!sim_game_begin_frame(g, now))
		return;
	double stretch = g->spec->cpu_stretch;
	if (stretch > 0.0)
		g->cpu_ns =
		    llround((double)g->cpu_ns *
		            (1.0 + stretch * sim_gpu_busy_others(&s->gpu, i)));
	push(s, now + g->cpu_ns, EV_CPU_DONE, i);
}

/* Present hands the frame to the GPU. A pipelined game starts its next
 * frame's CPU phase at once; a synchronous one waits for this frame. */
static void submit(struct sim *s, uint32_t i, int64_t now)
{
	struct sim_game *g = &s->games[i];
	g->in_flight++;
	int64_t wake = sim_gpu_submit(&s->gpu, now, i, g->gpu_ns);
	if (wake >= 0)
		push(s, wake, EV_GPU, 0);
	if (g->spec->max_in_flight <= 0)
		g->state = SIM_GAME_FLUSHING;
	else
		begin_frame(s, i, now);
}

static void present(struct sim *s, uint32_t i, int64_t now)
{
	struct sim_game *g = &s->games[i];
	g->last_present_ns = now;
	if (sim_game_can_submit(g))
		submit(s, i, now);
	else
		g->state = SIM_GAME_BLOCKED;
}

static void on_cpu_done(struct sim *s, uint32_t i, int64_t now)
{
	int64_t wake = sim_game_pace(&s->games[i], now);
	if (wake > now)
		push(s, wake, EV_PRESENT, i);
	else
		present(s, i, now);
}

static void on_gpu(struct sim *s, int64_t now)
{
	struct sim_gpu_done done;
	int64_t next;
	bool finished = sim_gpu_event(&s->gpu, now, &done, &next);
	if (next >= 0)
		push(s, next, EV_GPU, 0);
	if (!finished)
		return;
	if (is_be(s, done.ctx)) {
		be_apply(s, done.ctx,
		         sim_be_done(&s->be[done.ctx], now, done.submit_ns,
		                     &s->harvest),
		         now);
		return;
	}
	struct sim_game *g = &s->games[done.ctx];
	if (!sim_game_displayed(g, now, done.submit_ns))
		s->oom = true;
	if (g->state == SIM_GAME_BLOCKED)
		submit(s, done.ctx, now);
	else if (g->state == SIM_GAME_FLUSHING)
		begin_frame(s, done.ctx, now);
}

/* Starts tenant i's frame loop at now (an arrival). */
static void arrive(struct sim *s, uint32_t i, int64_t now)
{
	struct sim_game *g = &s->games[i];
	g->start_ns = now;
	s->joined_s[i] = (double)now / 1e9;
	if (now < s->end_ns)
		begin_frame(s, i, now);
}

/* gOver's oversell (Sec. 3.3): the first tenant waiting for admission
 * (in scenario order, past its start_s) arrives when the capacity stage
 * says one of its profile fits. One arrival per tick: the newcomer joins
 * the stage at the next tick, which restarts the quiet count. */
static void admit_next(struct sim *s, int64_t now)
{
	for (uint32_t i = 0; i < s->n; i++) {
		const struct sim_tenant_spec *sp = &s->sc->tenants[i];
		if (!sp->admit || s->joined_s[i] >= 0.0 ||
		    llround(sp->start_s * 1e9) > now)
			continue;
		double cost =
		    (sp->profile_ms > 0.0 ? sp->profile_ms : sp->gpu_ms) / 1e3;
		struct core_admit a = core_caps_admit(
		    &s->sc->params, &s->core_gpu, cost, sp->sla_fps);
		if (a.fits) {
			arrive(s, i, now);
			s->admitted++;
		}
		return;
	}
}

/* Budget model: the refill timer, every slot. */
static void on_refill(struct sim *s, int64_t now)
{
	int64_t wake = sim_gpu_refill(&s->gpu, now);
	if (wake >= 0)
		push(s, wake, EV_GPU, 0);
	int64_t next = now + s->gpu.slot_ns;
	if (next < s->end_ns)
		push(s, next, EV_REFILL, 0);
}

/* The stuck rule's figures (be.h) over the epoch ending at now, from what
 * the last tick found: the time the stage held b stuck, and b's GPU time
 * while another BE tenant's sub-launch had overrun. */
static void be_count_stuck(const struct sim *s, struct sim_be *b, int64_t exec,
                           int64_t now)
{
	if (now > s->warmup_ns) {
		if (b->core.stuck)
			b->stuck_ns += s->epoch_ns;
		if (b->others_overran)
			b->run_while_stuck_ns += exec - b->tick_exec_ns;
	}
	b->tick_exec_ns = exec;
}

/* Stage 6 of the tick (harvest.h): the games on the roster (when their
 * telemetry reaches the stage) and the BE tenants that are running; then
 * a BE tenant waiting for a window goes on. */
static void harvest_tick(struct sim *s, int64_t now, uint32_t n_games)
{
	if (s->n_be == 0)
		return;
	uint32_t m = 0, hung = UINT32_MAX;
	for (uint32_t i = 0; i < s->n; i++) {
		struct sim_be *b = &s->be[i];
		if (!is_be(s, i) || now <= b->start_ns ||
		    b->state == SIM_BE_STOPPED)
			continue;
		be_count_stuck(s, b, sim_gpu_exec_ns(&s->gpu, i, now), now);
		/* The hung kernel: the oldest that overran. On a FIFO GPU
		 * the sub-launches queued behind it overrun too. */
		b->overran = sim_be_inflight(b, now);
		if (b->overran && (hung == UINT32_MAX ||
		                   b->inflight_ns < s->be[hung].inflight_ns))
			hung = i;
		s->be_roster[m] = b->core;
		if (!s->sc->stuck_rule) /* the stage hears of no stamp */
			s->be_roster[m].inflight_s = 0.0;
		s->be_of[m++] = i;
	}
	core_harvest_tick(&s->sc->harvest, s->roster,
	                  s->sc->games_seen ? n_games : 0,
	                  s->core_gpu.other_util, &s->harvest, s->be_roster, m);
	core_harvest_slot(&s->sc->harvest, s->roster,
	                  s->sc->games_seen ? n_games : 0, (double)now / 1e9,
	                  &s->harvest.slot);
	for (uint32_t j = 0; j < m; j++) {
		uint32_t i = s->be_of[j];
		s->be[i].others_overran = hung != UINT32_MAX && hung != i;
		s->be[i].core = s->be_roster[j];
		be_apply(s, i, sim_be_tick(&s->be[i], now, &s->harvest), now);
	}
}

/* One control epoch ends at now: vGASA's scheduling controller collecting
 * FPS and GPU usage from every VM's monitor and sending back what the
 * schedulers apply (Sec. 2.2), as batond does each tick with what the shims
 * reported. Tenants not on the roster (not started, or past stop_s) are
 * left out of the array the core sees, so they weigh in no policy (ESA's
 * common rate, FSA's donors); their core state is kept and they run
 * unpaced. */
static void on_tick(struct sim *s, int64_t now)
{
	int64_t len = now - (int64_t)s->ticks * s->epoch_ns;
	int64_t busy = sim_gpu_busy_ns(&s->gpu, now);
	s->core_gpu.util = (double)(busy - s->tick_busy_ns) / (double)len;
	s->tick_busy_ns = busy;

	uint32_t k = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		struct sim_game *g = &s->games[i];
		struct core_tenant *t = &s->core[i];
		int64_t exec = sim_gpu_exec_ns(&s->gpu, i, now);
		int64_t held = sim_gpu_held_ns(&s->gpu, i, now);
		struct sim_epoch e;
		sim_game_end_epoch(g, now, &e);
		if (is_be(s, i)) {
			s->tick_exec_ns[i] = exec;
			continue;
		}
		if (sim_game_active(g, now)) {
			t->sla_fps = g->spec->sla_fps;
			t->fixed_fps = g->spec->fixed_fps;
			t->owner = g->spec->owner;
			t->cap_initial = g->spec->cap;
			t->work_conserving = g->spec->work_conserving;
			t->fps = e.fps;
			t->frames = e.frames;
			t->paced_frames = e.paced;
			t->sleep_s = e.sleep_s;
			t->present_s = (double)g->last_present_ns / 1e9;
			t->gpu_busy_s =
			    (double)(exec - s->tick_exec_ns[i]) / 1e9;
			/* Where the shim's gate makes a frame wait before
			 * Present, the budget model holds its work off the
			 * GPU: the same cap-bound signal (reach.h). */
			t->gate_s = (double)(held - s->tick_held_ns[i]) / 1e9;
			s->roster[k] = *t;
			s->roster_of[k++] = i;
		} else {
			sim_game_set_target(g, 0.0);
		}
		s->tick_exec_ns[i] = exec;
		s->tick_held_ns[i] = held;
	}
	core_controller_tick(s->policy, &s->sc->params, &s->core_gpu, s->roster,
	                     k);
	for (uint32_t j = 0; j < k; j++) {
		uint32_t i = s->roster_of[j];
		s->core[i] = s->roster[j];
		sim_game_set_target(&s->games[i], s->roster[j].target_fps);
		if (s->budget_model && s->sc->caps == SIM_CAPS_DYNAMIC)
			sim_gpu_set_cap(&s->gpu, i, s->roster[j].caps.budget);
	}
	admit_next(s, now);
	harvest_tick(s, now, k);

	s->ticks++;
	int64_t next = (int64_t)(s->ticks + 1) * s->epoch_ns;
	if (next < s->end_ns)
		push(s, next, EV_TICK, 0);
}

static int64_t window_end(const struct sim *s, size_t w)
{
	int64_t t = (int64_t)(w + 1) * SIM_NS_PER_S;
	return t < s->end_ns ? t : s->end_ns;
}

static void plan_next_sample(struct sim *s)
{
	s->next_sample_ns = INT64_MAX;
	if (s->window < s->n_secs)
		s->next_sample_ns = window_end(s, s->window);
	if (!s->warm_done && s->warmup_ns < s->next_sample_ns)
		s->next_sample_ns = s->warmup_ns;
}

/* Whether any tenant's QoS was broken in window w (gOver Fig. 8: FPS
 * under the SLA, less cap_sla_tol), among the tenants that were running the
 * whole window and one second before it (a newcomer's first second is its
 * start-up). */
static void judge_window(struct sim *s, size_t w, int64_t at)
{
	int64_t from = (int64_t)w * SIM_NS_PER_S;
	if (at - from != SIM_NS_PER_S)
		return;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct sim_game *g = &s->games[i];
		if (g->start_ns == INT64_MAX ||
		    g->start_ns + SIM_NS_PER_S > from ||
		    (g->stop_ns >= 0 && g->stop_ns < at))
			continue;
		s->counted_per_s[w] = 1;
		/* With the core's tolerance (cap_sla_tol): a paced game's
		 * 60 frames landing as 59 in one window is its phase, not
		 * a broken SLA. */
		double floor =
		    g->spec->sla_fps * (1.0 - s->sc->params.cap_sla_tol);
		if (g->metrics.frames_per_s[w] < floor)
			s->broken_per_s[w] = 1;
	}
}

/* Takes every sample due at or before t, before the events at t run: a
 * window's figures are those of [w, w + 1) s, and its target the one in
 * force at its very end. GPU time is exact at any instant between events,
 * so sampling late loses nothing. */
static void sample(struct sim *s, int64_t t)
{
	while (s->next_sample_ns <= t) {
		int64_t at = s->next_sample_ns;
		int64_t busy = sim_gpu_busy_ns(&s->gpu, at);
		if (!s->warm_done && at == s->warmup_ns) {
			s->warm_done = true;
			s->warm_busy_ns = busy;
			for (uint32_t i = 0; i < s->n; i++) {
				s->warm_exec_ns[i] =
				    sim_gpu_exec_ns(&s->gpu, i, at);
				struct sim_be *b = &s->be[i];
				b->warm_blocks = b->blocks;
				b->warm_periodical = b->periodical;
				b->warm_continuous = b->continuous;
				b->warm_launched_while_stuck =
				    b->launched_while_stuck;
			}
		}
		size_t w = s->window;
		if (w < s->n_secs && at == window_end(s, w)) {
			int64_t len = at - (int64_t)w * SIM_NS_PER_S;
			s->util_per_s[w] =
			    (double)(busy - s->window_busy_ns) / (double)len;
			s->window_busy_ns = busy;
			for (uint32_t i = 0; i < s->n; i++)
				s->games[i].metrics.target_per_s[w] =
				    s->games[i].target_fps;
			judge_window(s, w, at);
			s->window++;
		}
		plan_next_sample(s);
	}
}

static void sim_free(struct sim *s)
{
	if (s->games)
		for (uint32_t i = 0; i < s->n; i++)
			sim_game_finish(&s->games[i]);
	free(s->games);
	free(s->core);
	free(s->roster);
	free(s->roster_of);
	free(s->tick_exec_ns);
	free(s->tick_held_ns);
	free(s->warm_exec_ns);
	free(s->util_per_s);
	free(s->joined_s);
	free(s->broken_per_s);
	free(s->counted_per_s);
	free(s->be);
	free(s->be_roster);
	free(s->be_of);
	sim_gpu_finish(&s->gpu);
	sim_heap_finish(&s->heap);
}

static bool sim_setup(struct sim *s, const struct sim_scenario *sc)
{
	*s = (struct sim){0};
	s->sc = sc;
	s->policy = core_policy_find(sc->policy);
	s->n = (uint32_t)sc->n_tenants;
	s->warmup_ns = llround(sc->warmup_s * 1e9);
	s->end_ns = llround(sc->duration_s * 1e9);
	s->epoch_ns = llround(sc->params.epoch_s * 1e9);
	s->n_secs = sim_metrics_windows(s->end_ns);
	if (s->epoch_ns < 1)
		s->epoch_ns = 1;

	uint32_t n = s->n;
	s->games = calloc(n, sizeof(*s->games));
	s->core = calloc(n, sizeof(*s->core));
	s->roster = calloc(n, sizeof(*s->roster));
	s->roster_of = calloc(n, sizeof(*s->roster_of));
	s->tick_exec_ns = calloc(n, sizeof(*s->tick_exec_ns));
	s->tick_held_ns = calloc(n, sizeof(*s->tick_held_ns));
	s->warm_exec_ns = calloc(n, sizeof(*s->warm_exec_ns));
	s->util_per_s = calloc(s->n_secs, sizeof(*s->util_per_s));
	s->joined_s = calloc(n, sizeof(*s->joined_s));
	s->broken_per_s = calloc(s->n_secs + 1, 1);
	s->counted_per_s = calloc(s->n_secs + 1, 1);
	s->be = calloc(n, sizeof(*s->be));
	s->be_roster = calloc(n, sizeof(*s->be_roster));
	s->be_of = calloc(n, sizeof(*s->be_of));
	s->budget_model = sc->gpu.model == SIM_GPU_BUDGET;
	uint32_t *caps = calloc(n, sizeof(*caps));
	bool ok = s->games && s->core && s->roster && s->roster_of &&
	          s->tick_exec_ns && s->tick_held_ns && s->warm_exec_ns &&
	          s->util_per_s && s->joined_s && s->broken_per_s &&
	          s->counted_per_s && s->be && s->be_roster && s->be_of && caps;
	for (uint32_t i = 0; ok && i < n; i++) {
		int mif = sc->tenants[i].max_in_flight;
		caps[i] = mif > 0 ? (uint32_t)mif : 1;
		ok = sim_game_init(&s->games[i], &sc->tenants[i], sc->seed, i,
		                   s->warmup_ns, s->end_ns);
		sim_be_init(&s->be[i], &sc->tenants[i], &sc->harvest);
		if (is_be(s, i))
			s->n_be++;
	}
	ok = ok && sim_gpu_init(&s->gpu, &sc->gpu, n, caps) &&
	     sim_heap_init(&s->heap, (size_t)n + 5);
	free(caps);
	if (!ok)
		return false;

	/* The published caps hold until the capacity stage sets budgets;
	 * the refill at 0 is stage 0 of the first period. */
	if (s->budget_model) {
		for (uint32_t i = 0; i < n; i++) {
			sim_gpu_set_cap(&s->gpu, i, sc->tenants[i].cap);
			sim_gpu_set_work_conserving(
			    &s->gpu, i, sc->tenants[i].work_conserving);
		}
		sim_gpu_refill(&s->gpu, 0);
		if (s->gpu.slot_ns < s->end_ns)
			push(s, s->gpu.slot_ns, EV_REFILL, 0);
	}
	/* Everyone runs unpaced until the first tick, at one epoch; a
	 * tenant waiting for admission starts when it is admitted. */
	for (uint32_t i = 0; i < n; i++) {
		s->joined_s[i] = -1.0;
		if (is_be(s, i)) {
			/* Its loop starts at start_s, with an EV_BE. */
			s->games[i].start_ns = INT64_MAX;
			if (s->be[i].start_ns < s->end_ns) {
				s->joined_s[i] =
				    (double)s->be[i].start_ns / 1e9;
				push(s, s->be[i].start_ns, EV_BE, i);
			}
			continue;
		}
		if (sc->tenants[i].admit) {
			s->games[i].start_ns = INT64_MAX;
			continue;
		}
		if (s->games[i].start_ns < s->end_ns) {
			s->joined_s[i] = (double)s->games[i].start_ns / 1e9;
			begin_frame(s, i, s->games[i].start_ns);
		}
	}
	if (s->epoch_ns < s->end_ns)
		push(s, s->epoch_ns, EV_TICK, 0);
	plan_next_sample(s);
	return !s->oom;
}

static void run_events(struct sim *s)
{
	const struct sim_event *top;
	while (!s->oom && (top = sim_heap_top(&s->heap))) {
		struct sim_event ev = *top;
		/* Measured time is half-open: nothing at end_ns counts. */
		if (ev.t_ns >= s->end_ns)
			break;
		s->top_consumed = true;
		if (ev.t_ns >= s->next_sample_ns)
			sample(s, ev.t_ns);
		s->events++;
		switch (ev.kind) {
		case EV_CPU_DONE:
			on_cpu_done(s, ev.target, ev.t_ns);
			break;
		case EV_PRESENT:
			present(s, ev.target, ev.t_ns);
			break;
		case EV_GPU:
			on_gpu(s, ev.t_ns);
			break;
		case EV_TICK:
			on_tick(s, ev.t_ns);
			break;
		case EV_REFILL:
			on_refill(s, ev.t_ns);
			break;
		case EV_BE:
			be_apply(s, ev.target,
			         sim_be_wake(&s->be[ev.target], ev.t_ns,
			                     &s->harvest),
			         ev.t_ns);
			break;
		}
		if (s->top_consumed) {
			s->top_consumed = false;
			sim_heap_pop(&s->heap, &ev);
		}
	}
	sample(s, s->end_ns);
}

/* GPU grid's figures for one BE tenant (Sec. 5.2): P = p1 / p2, the
 * dedicated time of its work over the time it took shared, i.e. its rate
 * over its dedicated rate; Q = q1 / (q1 + q2), continuous sub-launches
 * over all. */
static void be_result(const struct sim *s, uint32_t i, double measured_s,
                      struct sim_tenant_result *r)
{
	const struct sim_be *b = &s->be[i];
	r->be = true;
	r->be_blocks_per_s = (double)(b->blocks - b->warm_blocks) / measured_s;
	double dedicated = sim_be_dedicated_rate(b->spec);
	r->be_p = dedicated > 0.0 ? r->be_blocks_per_s / dedicated : 0.0;
	uint64_t cont = b->continuous - b->warm_continuous;
	uint64_t all = cont + b->periodical - b->warm_periodical;
	r->be_q = all ? (double)cont / (double)all : 0.0;
	r->be_stuck_s = (double)b->stuck_ns / 1e9;
	r->be_run_while_stuck_ms = (double)b->run_while_stuck_ns / 1e6;
	r->be_launched_while_stuck =
	    b->launched_while_stuck - b->warm_launched_while_stuck;
}

/* The share of the games' idle GPU time the BE tenants used (PilotFish's
 * harvest measure): BE GPU time / (measured time - games' GPU time). */
static double harvest_share(const struct sim *s, const struct sim_result *out)
{
	if (s->n_be == 0)
		return -1.0;
	double be = 0.0, games = 0.0;
	for (uint32_t i = 0; i < s->n; i++) {
		if (is_be(s, i))
			be += out->tenants[i].gpu_share;
		else
			games += out->tenants[i].gpu_share;
	}
	return games < 1.0 ? be / (1.0 - games) : 0.0;
}

static bool collect(struct sim *s, struct sim_result *out)
{
	const struct sim_scenario *sc = s->sc;
	double measured_s = (double)(s->end_ns - s->warmup_ns) / 1e9;
	snprintf(out->policy, sizeof(out->policy), "%s", s->policy->name);
	out->warmup_s = sc->warmup_s;
	out->duration_s = sc->duration_s;
	out->events = s->events;
	out->gpu_util =
	    (double)(sim_gpu_busy_ns(&s->gpu, s->end_ns) - s->warm_busy_ns) /
	    1e9 / measured_s;
	out->n_secs = s->n_secs;
	out->admitted = s->admitted;
	/* Whole windows inside measured time, as below_sla_pct. */
	size_t first =
	    (size_t)((s->warmup_ns + SIM_NS_PER_S - 1) / SIM_NS_PER_S);
	size_t last = (size_t)(s->end_ns / SIM_NS_PER_S);
	size_t judged = 0, broken = 0;
	for (size_t w = first; w < last; w++) {
		judged += s->counted_per_s[w];
		broken += s->broken_per_s[w];
	}
	out->qos_broken_pct =
	    judged ? 100.0 * (double)broken / (double)judged : 0.0;
	out->util_per_s = s->util_per_s;
	s->util_per_s = NULL;
	out->tenants = calloc(s->n, sizeof(*out->tenants));
	if (!out->tenants)
		return false;
	out->n_tenants = s->n;
	for (uint32_t i = 0; i < s->n; i++) {
		struct sim_tenant_result *r = &out->tenants[i];
		snprintf(r->name, sizeof(r->name), "%s", sc->tenants[i].name);
		r->sla_fps = sc->tenants[i].sla_fps;
		int64_t exec =
		    sim_gpu_exec_ns(&s->gpu, i, s->end_ns) - s->warm_exec_ns[i];
		r->gpu_share = (double)exec / 1e9 / measured_s;
		r->joined_s = s->joined_s[i];
		r->cap = s->core[i].caps.budget;
		if (!sim_metrics_summarize(&s->games[i].metrics, r))
			return false;
		if (is_be(s, i))
			be_result(s, i, measured_s, r);
	}
	out->harvest = harvest_share(s, out);
	return true;
}

bool sim_run(const struct sim_scenario *sc, struct sim_result *out,
             struct sim_error *err)
{
	*out = (struct sim_result){0};
	if (!sim_validate(sc, err))
		return false;
	struct sim s;
	bool ok = sim_setup(&s, sc);
	if (ok) {
		run_events(&s);
		ok = !s.oom && collect(&s, out);
	}
	sim_free(&s);
	if (!ok) {
		sim_result_finish(out);
		if (err) {
			*err = (struct sim_error){0};
			snprintf(err->msg, sizeof(err->msg), "out of memory");
		}
	}
	return ok;
}

void sim_result_finish(struct sim_result *r)
{
	if (r->tenants) {
		for (size_t i = 0; i < r->n_tenants; i++) {
			free(r->tenants[i].fps_per_s);
			free(r->tenants[i].target_per_s);
		}
	}
	free(r->tenants);
	free(r->util_per_s);
	*r = (struct sim_result){0};
}
