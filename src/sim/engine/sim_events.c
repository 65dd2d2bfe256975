/* The event loop and what each event does: a game's CPU phase ends, its
 * pacing sleep ends and it presents, the GPU finishes a segment (a frame
 * is displayed, or a BE tenant's sub-launch completes), the budget model's
 * refill, a BE tenant's wake-up; the tick's handler is in sim_tick.c. Here
 * too the sampling taken between events at each one-second window's end and
 * at the end of the warm-up (GPU utilization, pacing targets, gOver's QoS
 * judgement), from which sim.c's collect builds the results. */
#include "sim/engine/sim_engine.h"

#include <math.h>

#include "sim/engine/metrics.h"

void sim_push_event(struct sim *s, int64_t t, uint32_t kind, uint32_t target)
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

/* Does what a BE tenant's loop asked for (be.h). */
void sim_apply_be(struct sim *s, uint32_t i, struct sim_be_act a, int64_t now)
{
	for (uint32_t k = 0; k < a.n_submit; k++) {
		int64_t wake = sim_gpu_submit(&s->gpu, now, i, a.cost_ns);
		if (wake >= 0)
			sim_push_event(s, wake, EV_GPU, 0);
	}
	if (a.wake_ns >= 0 && a.wake_ns < s->end_ns)
		sim_push_event(s, a.wake_ns, EV_BE, i);
}

void sim_begin_frame(struct sim *s, uint32_t i, int64_t now)
{
	struct sim_game *g = &s->games[i];
	if (!sim_game_begin_frame(g, now))
		return;
	double stretch = g->spec->cpu_stretch;
	if (stretch > 0.0)
		g->cpu_ns =
		    llround((double)g->cpu_ns *
		            (1.0 + stretch * sim_gpu_busy_others(&s->gpu, i)));
	sim_push_event(s, now + g->cpu_ns, EV_CPU_DONE, i);
}

/* Present hands the frame to the GPU. A pipelined game starts its next
 * frame's CPU phase at once; a synchronous one waits for this frame. */
static void submit(struct sim *s, uint32_t i, int64_t now)
{
	struct sim_game *g = &s->games[i];
	g->in_flight++;
	int64_t wake = sim_gpu_submit(&s->gpu, now, i, g->gpu_ns);
	if (wake >= 0)
		sim_push_event(s, wake, EV_GPU, 0);
	if (g->spec->max_in_flight <= 0)
		g->state = SIM_GAME_FLUSHING;
	else
		sim_begin_frame(s, i, now);
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
		sim_push_event(s, wake, EV_PRESENT, i);
	else
		present(s, i, now);
}

static void on_gpu(struct sim *s, int64_t now)
{
	struct sim_gpu_done done;
	int64_t next;
	bool finished = sim_gpu_event(&s->gpu, now, &done, &next);
	if (next >= 0)
		sim_push_event(s, next, EV_GPU, 0);
	if (!finished)
		return;
	if (sim_is_be(s, done.ctx)) {
		sim_apply_be(s, done.ctx,
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
		sim_begin_frame(s, done.ctx, now);
}

/* Starts tenant i's frame loop at now (an arrival). */
void sim_arrive(struct sim *s, uint32_t i, int64_t now)
{
	struct sim_game *g = &s->games[i];
	g->start_ns = now;
	s->joined_s[i] = (double)now / 1e9;
	if (now < s->end_ns)
		sim_begin_frame(s, i, now);
}

/* Budget model: the refill timer, every slot. */
static void on_refill(struct sim *s, int64_t now)
{
	int64_t wake = sim_gpu_refill(&s->gpu, now);
	if (wake >= 0)
		sim_push_event(s, wake, EV_GPU, 0);
	int64_t next = now + s->gpu.slot_ns;
	if (next < s->end_ns)
		sim_push_event(s, next, EV_REFILL, 0);
}

static int64_t window_end(const struct sim *s, size_t w)
{
	int64_t t = (int64_t)(w + 1) * SIM_NS_PER_S;
	return t < s->end_ns ? t : s->end_ns;
}

void sim_plan_next_sample(struct sim *s)
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
			for (uint32_t i = 0; i < s->n; i++) {
				struct sim_game *g = &s->games[i];
				g->metrics.target_per_s[w] = g->target_fps;
				if (g->q && g->start_ns < at)
					sim_qgame_sample(g->q, w);
			}
			s->q_benefit_per_s[w] =
			    s->core_gpu.quality.total_benefit;
			judge_window(s, w, at);
			s->window++;
		}
		sim_plan_next_sample(s);
	}
}

void sim_run_events(struct sim *s)
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
			sim_on_tick(s, ev.t_ns);
			break;
		case EV_REFILL:
			on_refill(s, ev.t_ns);
			break;
		case EV_BE:
			sim_apply_be(s, ev.target,
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
