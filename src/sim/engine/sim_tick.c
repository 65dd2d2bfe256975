/* The control tick, once per epoch: each game on the roster reports what
 * its shim would (FPS, frames, sleep, GPU time, gate time) to the
 * controller batond runs (core_controller_tick), whose pacing targets and
 * budgets go back to the games and the GPU; then gOver's capacity stage
 * may admit a waiting tenant. The tick's last stage, harvesting, is fed the
 * BE tenants' state (core_gpu.harvest) and what it decides lets their loops
 * go on; the stuck figures are counted on the way in. */
#include "sim/engine/sim_engine.h"

#include <math.h>

#include "core/measure.h"

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
			sim_arrive(s, i, now);
			s->admitted++;
		}
		return;
	}
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

/* Stage 6 of the tick (harvest.h), handed to core_controller_tick: the
 * BE tenants that are running, and whether the games' telemetry reaches
 * the stage (games_seen); the stuck figures of the epoch that ends. */
static void harvest_gather(struct sim *s, int64_t now)
{
	s->core_gpu.harvest = (struct core_harvest_stage){0};
	if (s->n_be == 0)
		return;
	uint32_t m = 0, hung = UINT32_MAX;
	for (uint32_t i = 0; i < s->n; i++) {
		struct sim_be *b = &s->be[i];
		if (!sim_is_be(s, i) || now <= b->start_ns ||
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
	for (uint32_t j = 0; j < m; j++)
		s->be[s->be_of[j]].others_overran =
		    hung != UINT32_MAX && hung != s->be_of[j];
	s->core_gpu.harvest = (struct core_harvest_stage){
	    .params = &s->sc->harvest,
	    .be = s->be_roster,
	    .n_be = m,
	    .out = &s->harvest,
	    .games_seen = s->sc->games_seen,
	    .now_s = (double)now / 1e9,
	};
}

/* What stage 6 decided goes back to the BE tenants, and one waiting for
 * a window goes on. */
static void harvest_apply(struct sim *s, int64_t now)
{
	for (size_t j = 0; j < s->core_gpu.harvest.n_be; j++) {
		uint32_t i = s->be_of[j];
		s->be[i].core = s->be_roster[j];
		sim_apply_be(s, i, sim_be_tick(&s->be[i], now, &s->harvest),
		             now);
	}
}

/* Tenant i's epoch e into the core's inputs (core/measure.h), as batond
 * turns its shim's records into them. gpu_s: its GPU seconds of the epoch;
 * held: the GPU model's running total of the time it held i's work for
 * want of budget. */
static void sim_measure(struct sim *s, uint32_t i, int64_t now,
                        const struct sim_epoch *e, double gpu_s, int64_t held)
{
	const struct sim_game *g = &s->games[i];
	const struct sim_tenant_spec *sp = g->spec;
	struct core_tenant_terms terms = {
	    .sla_fps = sp->sla_fps,
	    .fixed_fps = sp->fixed_fps,
	    .cap = sp->cap,
	    .work_conserving = sp->work_conserving,
	    /* The simulated game hands its frame to the GPU at Present,
	     * after the pacing sleep (sim_events.c). A synchronous one
	     * (max_in_flight 0) then waits for it before its next CPU
	     * phase: OpenGL's shape on a software rasterizer, its work
	     * done before the next wait starts. A pipelined one starts
	     * its next CPU phase at once, and the frame's work may still
	     * drain into that wait: Vulkan's shape, as far as the slot
	     * (harvest_slot.h) is concerned. batond learns it from the
	     * shim's hello; here the game model decides it. */
	    .work_after_wait = sp->max_in_flight <= 0,
	    .owner = sp->owner,
	};
	struct core_epoch_sample m = {
	    .now_ns = now,
	    .frames = e->frames,
	    .intervals = e->intervals,
	    .interval_sum_s = (double)e->interval_ns / 1e9,
	    .last_frame_ns = g->displayed ? g->last_display_ns : 0,
	    .last_present_ns = g->last_present_ns,
	    .paced = e->paced,
	    .sleep_s = e->sleep_s,
	    /* Where the shim's gate makes a frame wait before Present, the
	     * budget model holds its work off the GPU: the same cap-bound
	     * signal (reach.h). */
	    .gate_s = (double)(held - s->tick_held_ns[i]) / 1e9,
	    .gpu_s = gpu_s,
	    /* The GPU model measures: no claim to bound, as batond bounds
	     * a shim's (tenant_seen.h). */
	    .gpu_bounded = false,
	};
	core_tenant_measure(&s->core[i], &terms, &m);
}

/* One control epoch ends at now: vGASA's scheduling controller collecting
 * FPS and GPU usage from every VM's monitor and sending back what the
 * schedulers apply (Sec. 2.2), as batond does each tick with what the shims
 * reported. Tenants not on the roster (not started, or past stop_s) are
 * left out of the array the core sees, so they weigh in no policy (ESA's
 * common rate, FSA's donors); their core state is kept and they run
 * unpaced. */
void sim_on_tick(struct sim *s, int64_t now)
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
		sim_game_end_epoch(g, &e);
		if (sim_is_be(s, i)) {
			s->tick_exec_ns[i] = exec;
			continue;
		}
		if (sim_game_active(g, now)) {
			/* A quality game: the stage's inputs, and the GPU time
			 * of the frames it displayed, as its shim's timer
			 * queries report them. */
			double gpu_s =
			    g->q ? sim_qgame_fill(g->q, &t->quality)
			         : (double)(exec - s->tick_exec_ns[i]) / 1e9;
			sim_measure(s, i, now, &e, gpu_s, held);
			s->roster[k] = *t;
			s->roster_of[k++] = i;
		} else {
			sim_game_set_target(g, 0.0);
		}
		s->tick_exec_ns[i] = exec;
		s->tick_held_ns[i] = held;
	}
	harvest_gather(s, now);
	core_controller_tick(s->policy, &s->sc->params, &s->core_gpu, s->roster,
	                     k);
	for (uint32_t j = 0; j < k; j++) {
		uint32_t i = s->roster_of[j];
		s->core[i] = s->roster[j];
		struct sim_game *g = &s->games[i];
		sim_game_set_target(g, s->roster[j].target_fps);
		/* The level chosen holds from the game's next frame on. */
		if (g->q && s->roster[j].quality.chosen)
			sim_qgame_set_level(g->q, s->roster[j].quality.level,
			                    now, g->frame);
		if (s->budget_model && s->sc->caps == SIM_CAPS_DYNAMIC)
			sim_gpu_set_cap(&s->gpu, i, s->roster[j].caps.budget);
	}
	admit_next(s, now);
	harvest_apply(s, now);

	s->ticks++;
	int64_t next = (int64_t)(s->ticks + 1) * s->epoch_ns;
	if (next < s->end_ns)
		sim_push_event(s, next, EV_TICK, 0);
}
