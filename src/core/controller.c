#include "core/controller.h"

#include <math.h>

#include "core/caps.h"
#include "core/harvest.h"
#include "core/harvest_idle.h"
#include "core/harvest_phase.h"
#include "core/harvest_slot.h"
#include "core/harvest_space.h"
#include "core/reach.h"

/* vGASA's k_i: GPU seconds per frame, so that g_i = k_i * f_i (Sec. 3.2,
 * the proportional relation ESA's Algorithm 3 and FSA's CalcGPUResource
 * rest on). An EWMA over epochs follows scene changes without chasing a
 * single slow frame.
 *
 * The GPU times are the tenant's own report, and a tenant may lie: one GPU
 * cannot spend more than the epoch on a tenant's frames in an epoch, nor,
 * since it runs one frame after another, more per frame on average than
 * the time between the frames' presents (1 / F_out). A sample is bounded
 * by both, so g_i = k_i * f_i never claims more than one whole GPU.
 * Where the driver bounded the report by what it measures itself (the
 * daemon: the process's CPU time on a CPU device, which arrives in 10 ms
 * clock ticks), an epoch that counted nothing is a sample of 0: were it
 * skipped, the few epochs a clock tick landed in would make k alone. */
static void learn_coefficient(const struct core_params *p,
                              struct core_tenant *t)
{
	t->k_sample = 0.0;
	if (t->frames == 0 || !isfinite(t->gpu_busy_s) ||
	    !(t->gpu_busy_s > 0.0 || (t->gpu_bounded && t->gpu_busy_s == 0.0)))
		return;
	double busy = t->gpu_busy_s;
	if (p->epoch_s > 0.0 && busy > p->epoch_s)
		busy = p->epoch_s;
	double sample = busy / (double)t->frames;
	if (t->fps > 0.0 && isfinite(t->fps) && sample > 1.0 / t->fps)
		sample = 1.0 / t->fps;
	t->k_sample = sample;
	if (t->k <= 0.0)
		t->k = sample;
	else
		t->k += p->k_alpha * (sample - t->k);
}

/* F_out over one epoch is a handful of frames: at 30 FPS and 100 ms, three.
 * Decisions about who is below the SLA (FSA) look at a smoothed rate, as
 * vGASA's per-second detection does; the PI loop keeps the raw one. */
static void smooth_fps(const struct core_params *p, struct core_tenant *t)
{
	if (!(t->fps > 0.0) || !isfinite(t->fps))
		return;
	if (t->fps_smooth <= 0.0 || !(p->fps_smooth_s > 0.0)) {
		t->fps_smooth = t->fps;
		return;
	}
	double a = 1.0 - exp(-p->epoch_s / p->fps_smooth_s);
	t->fps_smooth += a * (t->fps - t->fps_smooth);
}

/* The share of the GPU the tenants need at their SLAs (pinned ones at their
 * pinned rate), with the load no tenant reports: more than util_target and
 * no policy can hold every tenant at its SLA. That is overload, for the
 * status and for the levers that act on it (caps, quality). */
static void measure_demand(const struct core_params *p, struct core_gpu *gpu,
                           const struct core_tenant *t, size_t n)
{
	double need = gpu->other_util > 0.0 ? gpu->other_util : 0.0;
	size_t known = 0;
	for (size_t i = 0; i < n; i++) {
		/* A tenant that never presented has no cost to count, and
		 * must not make the demand unknown for everyone (a tenant
		 * that registers and never presents would hide overload). */
		if (!(t[i].k > 0.0))
			continue;
		known++;
		double rate = t[i].fixed_fps > 0.0 ? t[i].fixed_fps
		                                   : core_sla_ref(p, &t[i]);
		need += t[i].k * rate;
	}
	gpu->sla_util = known > 0 ? need : 0.0;
	gpu->overload = known > 0 && need > p->util_target;
}

/* Space harvesting's measurements (harvest_space.h): the best-effort
 * tenants that would run on a partition (those that can, not in the idle
 * lane) and their processes' measured use; whether a game read under its
 * SLA at the capacity stage's last sample. */
static void space_tick(const struct core_params *params, struct core_gpu *gpu,
                       const struct core_tenant *games, size_t n_games)
{
	const struct core_harvest_stage *h = &gpu->harvest;
	struct core_space_in in = {
	    .games_util = h->out->games_util,
	    .games_quiet = n_games == 0 || h->out->games_quiet,
	    .overload = gpu->overload,
	    .miss_span_s = params->cap_period_s,
	    .dt_s = h->dt_s,
	};
	for (size_t i = 0; i < n_games; i++)
		in.game_missed |= games[i].caps.below_sla;
	for (size_t i = 0; i < h->n_be; i++) {
		if (!h->be[i].space || h->be[i].idle)
			continue;
		in.n_be++;
		if (h->be[i].cpu_use > 0.0 && isfinite(h->be[i].cpu_use))
			in.be_cpu += h->be[i].cpu_use;
	}
	core_space_tick(h->params, h->space, &in);
}

/* Pacing (vGASA): a tenant's target from the reference the policy set,
 * through its PI loop; or its pin; or none. */
static void pace(const struct core_params *params, struct core_tenant *t)
{
	if (t->fixed_fps > 0.0) {
		core_pi_reset(&t->pi);
		t->target_fps = t->fixed_fps;
		return;
	}
	if (!(t->ref_fps > 0.0)) {
		core_pi_reset(&t->pi);
		t->target_fps = 0.0;
		return;
	}
	/* A target the game cannot reach is never wound up: what was
	 * integrated toward it goes, and no positive error is integrated
	 * while the pacer barely holds the game back, nor while its cap does
	 * (reach.h). */
	if ((t->limited || t->cap_bound) && t->pi.integral > 0.0)
		t->pi.integral = 0.0;
	t->target_fps = core_pi_update(&t->pi, &params->pi, t->ref_fps, t->fps,
	                               core_reach_can_raise(params, t));
	/* Whatever the policy and the loop decide, a paced game is never
	 * paced under its SLA: no report of another tenant can push it
	 * there. The floor is the SLA, not SA's reference above it, so that
	 * the loop can still trim a target under the reference for a pacer
	 * that overshoots it. */
	double floor = t->sla_fps;
	if (t->target_fps < floor)
		t->target_fps = floor;
}

/* Stage 6, time harvesting (GPU grid): what the games, as the stages
 * above left them, leave to best-effort work. */
static void harvest(const struct core_params *params, struct core_gpu *gpu,
                    struct core_tenant *tenants, size_t n)
{
	struct core_harvest_stage *h = &gpu->harvest;
	if (!h->params || !h->out) {
		for (size_t i = 0; i < n; i++)
			tenants[i].phase_s = 0.0; /* no stage, no steering */
		return;
	}
	size_t games = h->games_seen ? n : 0;
	core_harvest_tick(h->params, tenants, games, gpu->other_util, h->out,
	                  h->be, h->n_be);
	size_t in_lane =
	    core_harvest_idle(h->params, h->out, gpu->overload, h->be, h->n_be);
	core_harvest_slot(h->params, tenants, games, h->now_s, &h->out->slot);
	/* On a CPU device, the games' Presents packed one after another: the
	 * slot is then the period less their spans. */
	core_harvest_phase(h->params, tenants, n,
	                   games && h->cpu_device ? h->n_be - in_lane : 0,
	                   h->now_s);
	/* Space harvesting (COMBO) on what the games, as measured, need: the
	 * partition the BE windows above run beside. */
	if (h->space)
		space_tick(params, gpu, tenants, games);
}

void core_controller_tick(const struct core_policy *policy,
                          const struct core_params *params,
                          struct core_gpu *gpu, struct core_tenant *tenants,
                          size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (tenants[i].epochs < UINT32_MAX)
			tenants[i].epochs++;
		learn_coefficient(params, &tenants[i]);
		smooth_fps(params, &tenants[i]);
		/* Against the reference of the last tick: the one the
		 * epoch just measured was paced to. */
		core_reach_update(params, &tenants[i]);
	}
	measure_demand(params, gpu, tenants, n);
	/* Stage 2, capacity (gOver): caps, overload, admission (caps.h). */
	core_caps_tick(params, gpu, tenants, n);
	/* Stage 3, quality (dJay): levels within the budget caps leave; a
	 * level change rescales k, so the demand is measured again and
	 * pacing acts on the cost of the levels just chosen. */
	if (params->quality_on) {
		core_quality_tick(params, gpu, tenants, n);
		if (gpu->quality.changed > 0)
			measure_demand(params, gpu, tenants, n);
	}
	/* Pacing: the policy sets the references, each PI loop a target. */
	policy->assign(params, gpu, tenants, n);
	for (size_t i = 0; i < n; i++)
		pace(params, &tenants[i]);
	harvest(params, gpu, tenants, n);
}
