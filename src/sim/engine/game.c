/* The frame loop of one simulated game (see game.h). */
#include "sim/engine/game.h"

#include <math.h>
#include <stdlib.h>

#include "core/pacing.h"

static int64_t ms_to_ns(double ms)
{
	return ms > 0.0 ? llround(ms * 1e6) : 0;
}

bool sim_game_init(struct sim_game *g, const struct sim_tenant_spec *spec,
                   uint64_t seed, size_t index, int64_t warmup_ns,
                   int64_t end_ns, enum sim_quality_mode mode)
{
	*g = (struct sim_game){0};
	g->spec = spec;
	/* Each tenant draws from its own stream, so adding a tenant does not
	 * change the costs of the others. The constant (an odd 64-bit
	 * multiplier from Steele and Vigna) spreads nearby indices apart
	 * before sim_rng_seed's splitmix64 mixes them. */
	sim_rng_seed(&g->rng,
	             seed ^ ((uint64_t)(index + 1) * 0xd1b54a32d192ed03ULL));
	g->start_ns = spec->start_s > 0.0 ? llround(spec->start_s * 1e9) : 0;
	g->stop_ns = spec->stop_s > 0.0 ? llround(spec->stop_s * 1e9) : -1;
	g->gran_ns = ms_to_ns(spec->sleep_granularity_ms);
	g->cpu_mean_ms = spec->cpu_ms;
	g->gpu_mean_ms = spec->gpu_ms;
	g->state = SIM_GAME_CPU;
	if (!sim_metrics_init(&g->metrics, warmup_ns, end_ns))
		return false;
	if (!spec->quality)
		return true;
	g->q = malloc(sizeof(*g->q));
	return g->q &&
	       sim_qgame_init(g->q, spec->quality,
	                      sim_quality_first_level(spec->quality, mode),
	                      g->metrics.n_secs);
}

void sim_game_finish(struct sim_game *g)
{
	sim_metrics_finish(&g->metrics);
	if (g->q)
		sim_qgame_finish(g->q);
	free(g->q);
	g->q = NULL;
}

/* Mean times a lognormal factor of mean 1: exp(j z - j^2 / 2) with z
 * standard normal keeps the costs positive and their mean where the
 * scenario puts it, with relative standard deviation about j. The CPU and
 * GPU factors are independent: one Box-Muller pair. */
static void jitter_costs(struct sim_game *g, double *cpu_ms, double *gpu_ms)
{
	double j = g->spec->jitter;
	if (!(j > 0.0))
		return;
	double z0, z1;
	sim_rng_normal_pair(&g->rng, &z0, &z1);
	*cpu_ms *= exp(j * z0 - 0.5 * j * j);
	*gpu_ms *= exp(j * z1 - 0.5 * j * j);
}

bool sim_game_begin_frame(struct sim_game *g, int64_t now)
{
	const struct sim_tenant_spec *s = g->spec;
	if (g->stop_ns >= 0 && now > g->stop_ns) {
		g->state = SIM_GAME_STOPPED;
		return false;
	}
	if (g->q) {
		/* dJay: the level's model on the area's active objects,
		 * with the scenario's noise (jitter). */
		double cpu_ms = g->cpu_mean_ms;
		double gpu_ms =
		    sim_qgame_frame_ms(g->q, now, g->start_ns, g->frame + 1);
		jitter_costs(g, &cpu_ms, &gpu_ms);
		g->cpu_ns = ms_to_ns(cpu_ms);
		g->gpu_ns = ms_to_ns(gpu_ms);
		sim_qgame_push(g->q, (double)g->gpu_ns / 1e9);
	} else if (s->n_trace > 0) {
		size_t i = (size_t)(g->frame % s->n_trace);
		g->cpu_ns = ms_to_ns(s->trace_cpu_ms[i]);
		g->gpu_ns = ms_to_ns(s->trace_gpu_ms[i]);
	} else {
		/* Frames start in time order, so a cursor finds the scene;
		 * a scene's cost <= 0 keeps the one before. */
		while (g->next_scene < s->n_scenes &&
		       llround(s->scenes[g->next_scene].at_s * 1e9) <= now) {
			const struct sim_scene *sc = &s->scenes[g->next_scene];
			if (sc->cpu_ms > 0.0)
				g->cpu_mean_ms = sc->cpu_ms;
			if (sc->gpu_ms > 0.0)
				g->gpu_mean_ms = sc->gpu_ms;
			g->next_scene++;
		}
		double cpu_ms = g->cpu_mean_ms, gpu_ms = g->gpu_mean_ms;
		jitter_costs(g, &cpu_ms, &gpu_ms);
		g->cpu_ns = ms_to_ns(cpu_ms);
		g->gpu_ns = ms_to_ns(gpu_ms);
	}
	g->frame++;
	g->state = SIM_GAME_CPU;
	return true;
}

int64_t sim_game_pace(struct sim_game *g, int64_t now)
{
	if (!(g->target_fps > 0.0)) {
		/* Unpaced: no sleep and no prediction needed, but the grid
		 * pacer still hears of it, to drop its anchor. */
		return core_pacer_next_wake(&g->pacer, now, 0, 0);
	}
	/* The GPU time of the frame about to be presented is not known yet:
	 * vGASA Sec. 3.2 predicts it from the recent Present times. */
	double pred_s = core_predictor_predict(&g->pred);
	int64_t sleep;
	if (g->spec->pacer == SIM_PACER_RELATIVE) {
		/* vGASA Eq. 1 with this frame's measured CPU time. */
		double s = core_pacing_sleep_relative(
		    g->target_fps, (double)g->cpu_ns / 1e9, pred_s);
		sleep = llround(s * 1e9);
	} else {
		int64_t wake = core_pacer_next_wake(
		    &g->pacer, now, g->period_ns, llround(pred_s * 1e9));
		sleep = wake - now;
	}
	/* A coarse OS timer, as the Windows Sleep() under vGASA, never wakes
	 * early: the sleep rounds up to its granularity. */
	if (sleep > 0 && g->gran_ns > 0)
		sleep = (sleep + g->gran_ns - 1) / g->gran_ns * g->gran_ns;
	if (sleep > 0) {
		g->state = SIM_GAME_SLEEPING;
		g->ep_paced++;
		g->ep_sleep_ns += sleep;
	}
	return now + (sleep > 0 ? sleep : 0);
}

void sim_game_set_target(struct sim_game *g, double fps)
{
	g->target_fps = fps > 0.0 && isfinite(fps) ? fps : 0.0;
	g->period_ns = g->target_fps > 0.0 ? llround(1e9 / g->target_fps) : 0;
}

bool sim_game_can_submit(const struct sim_game *g)
{
	int mif = g->spec->max_in_flight;
	/* Synchronous games (the Flush before Present in vGASA's Algorithm 1)
	 * never have a frame in flight when they reach Present. */
	return mif <= 0 || g->in_flight < (uint32_t)mif;
}

bool sim_game_displayed(struct sim_game *g, int64_t now, int64_t submit_ns)
{
	g->in_flight--;
	core_predictor_add(&g->pred, (double)(now - submit_ns) / 1e9);
	g->ep_frames++;
	if (g->displayed) {
		g->ep_intervals++;
		g->ep_interval_ns += now - g->last_display_ns;
	}
	g->last_display_ns = now;
	g->displayed = true;
	if (g->q && now < g->metrics.end_ns)
		sim_qgame_displayed(g->q, now);
	return sim_metrics_frame(&g->metrics, now) && !(g->q && g->q->oom);
}

void sim_game_end_epoch(struct sim_game *g, struct sim_epoch *e)
{
	*e = (struct sim_epoch){
	    .frames = g->ep_frames,
	    .intervals = g->ep_intervals,
	    .interval_ns = g->ep_interval_ns,
	    .paced = g->ep_paced,
	    .sleep_s = (double)g->ep_sleep_ns / 1e9,
	};
	g->ep_frames = 0;
	g->ep_paced = 0;
	g->ep_sleep_ns = 0;
	g->ep_intervals = 0;
	g->ep_interval_ns = 0;
}

bool sim_game_active(const struct sim_game *g, int64_t now)
{
	return g->start_ns < now && (g->stop_ns < 0 || now <= g->stop_ns);
}
