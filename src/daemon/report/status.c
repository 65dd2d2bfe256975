/* batond's status reply (proto.h; daemon_status): the games, the
 * best-effort tenants, and per GPU (gpus.h) what its controller, its
 * harvesting and quality stages found. */
#include "daemon/daemon.h"
#include "daemon/report/res_json.h"

#include "core/harvest_space.h"
#include "daemon/quality/quality.h"
#include "daemon/tick/stats.h"
#include "daemon/tick/tick_harvest.h"
#include "ipc/cpu_list.h"

/* The best-effort tenants' rows of the status reply: what the harvesting
 * stage gave each (budget, window, mode) and what it did with it. */
static json_t *be_status(const struct daemon *d)
{
	json_t *list = json_array();
	for (size_t i = 0; i < d->n_tenants && list; i++) {
		const struct tenant *t = d->tenants[i];
		if (t->corrupt || !t->be)
			continue;
		const struct tenant_be *b = &t->be_state;
		json_array_append_new(
		    list,
		    json_pack(
		        "{s:s, s:s, s:I, s:i, s:I, s:f, s:f, s:f, s:f, "
		        "s:s, s:f, s:f, s:f, s:f, s:I, s:I, s:b, s:f, s:b, "
		        "s:b, s:s}",
		        "kind", "be", "name", t->name, "id", (json_int_t)t->id,
		        "pid", (int)t->pid, "uid", (json_int_t)t->uid, "weight",
		        b->weight, "cap", t->cap, "budget", b->core.budget,
		        "window_ms", b->core.window_s * 1e3, "mode",
		        b->core.mode == CORE_HARVEST_CONTINUOUS ? "continuous"
		                                                : "periodical",
		        "units_per_s", b->units_s, "gpu_share", t->gpu_share,
		        /* what its totals claimed, of which gpu_share
		           counted (tenant_seen.h) */
		        "claimed_share", t->seen.claimed_share, "wait_ratio",
		        b->wait_ratio, "units", (json_int_t)b->units,
		        /* records of the wrong kind, dropped */
		        "bad_records", (json_int_t)t->wrong_kind,
		        /* a hung sub-launch (core/harvest_stuck.h), and
		           how long the one under way has run (0: none) */
		        "stuck", (int)b->core.stuck, "inflight_ms",
		        b->core.inflight_s * 1e3,
		        /* it can run on a space partition (its hello) */
		        "partition", (int)b->partition,
		        /* in the idle-priority lane (core/harvest_idle.h) */
		        "idle_lane", (int)b->core.idle,
		        /* the GPU it runs on (gpus.h) */
		        "gpu", d->gpus[t->gpu].name));
	}
	return list;
}

/* A game's quality API (daemon/quality/quality.h): its levels, the level in
 * force (the pin, else batond's choice, else the game's default), whether it is
 * pinned, and the level the game says it draws at. */
static json_t *quality_status(const struct daemon_quality *q,
                              const struct core_quality_tenant *cq)
{
	json_t *levels = json_array();
	for (uint32_t i = 0; levels && i < q->n_levels; i++)
		json_array_append_new(levels, json_string(q->level_names[i]));
	/* The stage's estimates at that level (core/quality_stage.h):
	 * calibrated GPU ms per frame and the model's benefit (SSIM); 0
	 * while the quality lever is off or nothing was estimated. */
	return json_pack("{s:s, s:o, s:i, s:b, s:b, s:i, s:i, s:b, s:f, s:f, "
	                 "s:b}",
	                 "game", q->game_id, "levels", levels, "level",
	                 (int)daemon_quality_level(q), "pinned", q->pinned >= 0,
	                 "chosen", q->chosen >= 0, "in_use",
	                 (int)q->level_in_use, "types", (int)q->n_types,
	                 "models", q->models != NULL, "est_cost_ms",
	                 cq->est_cost * 1e3, "est_benefit", cq->est_benefit,
	                 "refused", (int)cq->refused);
}

/* The quality stage on one GPU (core/quality_stage.h). */
static json_t *quality_gpu_status(const struct daemon *d,
                                  const struct daemon_gpu *dg)
{
	const struct core_params *p = &d->cfg.params;
	const struct core_quality_gpu *g = &dg->gpu.quality;
	return json_pack("{s:s, s:f, s:f, s:f, s:i, s:I, s:I, s:f}", "mode",
	                 !p->quality_on     ? "off"
	                 : p->quality_paper ? "paper"
	                                    : "baton",
	                 "budget", g->budget, "total_cost", g->total_cost,
	                 "total_benefit", g->total_benefit, "items",
	                 (int)g->items, "reassignments",
	                 (json_int_t)g->reassignments, "refusals",
	                 (json_int_t)g->refusals, "spread", g->spread);
}

/* One GPU's figures: its controller's (utilization, overload, capacity),
 * its slot, quality stage and space partition; its name, device and
 * CPUs, and how many tenants are on it, in "gpus" (top: the top level's
 * fields only). */
static json_t *gpu_status(const struct daemon *d, const struct daemon_gpu *dg,
                          bool top)
{
	const struct core_gpu *gp = &dg->gpu;
	const struct core_caps_gpu *g = &gp->caps;
	const struct core_space_gpu *sp = &dg->space;
	json_t *o = json_pack(
	    "{s:f, s:f, s:f, s:f, s:b, s:f, s:b, s:I, s:f, s:f, s:f, s:o, "
	    "s:{s:i, s:i, s:i, s:s, s:I, s:f, s:f, s:I}}",
	    "gpu_util", gp->util, "other_util", gp->other_util, "common_fps",
	    gp->common_fps, "sla_util", gp->sla_util, "overload",
	    (int)gp->overload,
	    /* capacity (core/caps.h): G6's total load of the last period;
	     * severe: more than one tenant overloaded, capacity not
	     * advertised */
	    "total_load", g->total_load, "severe", (int)g->severe, "overloaded",
	    (json_int_t)g->n_overloaded, "cap_pool", g->pool,
	    /* the slot best-effort periodical sub-launches start in
	     * (core/harvest_slot.h) */
	    "slot_ms", dg->harvest_gpu.slot.len_s * 1e3, "slot_period_ms",
	    dg->harvest_gpu.slot.period_s * 1e3, "quality",
	    quality_gpu_status(d, dg),
	    /* space harvesting (core/harvest_space.h) */
	    "space", "units", (int)daemon_space_units(d, dg), "split",
	    (int)sp->split, "be_units", (int)sp->be_count, "scheme",
	    sp->scheme == CORE_COMBO_INTEGRATED ? "integrated" : "temporal",
	    "switches", (json_int_t)sp->switches,
	    /* what earns a partition and what took one back: the
	     * best-effort processes' measured use (units), the hold-off
	     * left after a confined game's miss, such releases so far */
	    "be_use", sp->be_use, "holdoff_s", sp->holdoff_s, "releases",
	    (json_int_t)sp->releases);
	if (!o)
		return o;
	/* what shuts the best-effort windows, and whose frames (the
	 * tenant's id; 0 = no tenant's) */
	char detail[160];
	daemon_hold_detail(&dg->harvest_gpu.hold, detail, sizeof(detail));
	json_object_update_new(
	    o, json_pack("{s:{s:s, s:I, s:s}}", "be_hold", "reason",
	                 daemon_hold_reason(&dg->harvest_gpu.hold), "tenant",
	                 (json_int_t)dg->be_holder, "detail", detail));
	/* its encoder and VRAM (gpu_res.h) */
	json_object_update_new(o, res_json_gpu(&dg->res));
	if (top)
		return o;
	char cpus[256] = "";
	if (dg->has_cpus)
		ipc_cpu_list_format(&dg->cpus, cpus, sizeof(cpus));
	json_object_update_new(
	    o, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I}", "name", dg->name,
	                 "device", dg->device, "pci", dg->pci, "cpus", cpus,
	                 "tenants", (json_int_t)dg->n_tenants, "be_tenants",
	                 (json_int_t)dg->n_be));
	return o;
}

/* The capacity stage (core/caps.h): published cap, the budget its gate
 * enforces (dynamic cap within its user's cap, plus spare for a
 * work-conserving one), last period's u, whether it is overloaded, and
 * whether its gate holds it back (cap-bound). */
static json_t *game_caps(const struct tenant *t)
{
	const struct core_cap_state *cs = &t->core.caps;
	return json_pack("{s:f, s:f, s:f, s:b, s:b, s:b}", "cap", t->cap,
	                 "budget", cs->budget, "u", cs->sampled ? cs->u : 0.0,
	                 "overloaded", (int)cs->overloaded, "work_conserving",
	                 (int)t->work_conserving,
	                 /* its gate holds it (core/reach.h) */
	                 "cap_bound", (int)t->core.cap_bound);
}

/* One game's row: its rates, frame times and share, then its caps, GPU
 * and quality. NULL when out of memory. */
static json_t *game_status(struct daemon *d, struct tenant *t, int64_t now)
{
	double fps = stats_fps(&t->win, now, 1000000000LL);
	size_t n = stats_intervals(&t->win, now, 2000000000LL, d->intervals);
	double q = 0.99, p99;
	stats_quantiles(d->intervals, n, &q, &p99, 1);
	json_t *o = json_pack(
	    "{s:s, s:i, s:f, s:f, s:f, s:f, s:f, s:I, s:b, s:f, s:f, s:I, s:f, "
	    "s:I}",
	    "name", t->name, "pid", (int)t->pid, "sla_fps",
	    daemon_tenant_sla(d, t), "target_fps", t->core.target_fps, "fps",
	    fps, "frame_ms_p99", p99 * 1e3, "gpu_share", t->gpu_share,
	    "below_sla_s", (json_int_t)t->below_sla_s,
	    /* cannot reach its reference (core/reach.h), the rate it could
	       reach, and that of its slow frames */
	    "limited", (int)t->core.limited, "reach_fps", t->core.reach_fps,
	    "reach_low_fps", t->core.reach_low_fps,
	    /* beyond proto.h: the id of its welcome and its pin (0 = none) */
	    "id", (json_int_t)t->id, "fixed_fps", t->fixed_fps, "uid",
	    (json_int_t)t->uid);
	if (!o)
		return NULL;
	json_object_update_new(o, game_caps(t));
	json_object_set_new(o, "kind", json_string("game"));
	json_object_set_new(o, "gpu", json_string(d->gpus[t->gpu].name));
	/* what its records claimed of the GPU, of which gpu_share counted
	 * (tenant_seen.h) */
	json_object_set_new(o, "claimed_share",
	                    json_real(t->seen.claimed_share));
	/* where gpu_share's time came from (gpu_account.h), and the GPU
	 * seconds per frame the controller learnt from it (core k) */
	json_object_set_new(o, "gpu_source",
	                    json_string(gpu_source_name(t->gpu_source)));
	json_object_set_new(o, "k_ms", json_real(t->core.k * 1e3));
	/* its video engines' share and its VRAM (gpu_res.h) */
	json_object_update_new(o, res_json_tenant(&t->res));
	/* its pacer follows the phase batond packed it at
	 * (core/harvest_phase.h) */
	json_object_set_new(o, "steered", json_boolean(t->core.phase_s > 0.0));
	if (t->quality.declared)
		json_object_set_new(
		    o, "quality",
		    quality_status(&t->quality, &t->core.quality));
	return o;
}

/* The games' rows. */
static json_t *games_status(struct daemon *d)
{
	json_t *list = json_array();
	int64_t now = d->last_tick_ns;
	for (size_t i = 0; i < d->n_tenants && list; i++) {
		struct tenant *t = d->tenants[i];
		if (t->corrupt || t->be)
			continue;
		json_array_append_new(list, game_status(d, t, now));
	}
	return list;
}

json_t *daemon_status(struct daemon *d)
{
	json_t *list = games_status(d);
	json_t *be = be_status(d);
	if (!list || !be) {
		json_decref(list);
		json_decref(be);
		return NULL;
	}
	json_t *gpus = json_array();
	for (size_t i = 0; i < d->n_gpus && gpus; i++)
		json_array_append_new(gpus, gpu_status(d, &d->gpus[i], false));
	/* The first GPU's figures at the top, as before there were several
	 * (one GPU is the common case and older clients read them there);
	 * every GPU's in "gpus". */
	json_t *top = gpu_status(d, &d->gpus[0], true);
	if (!gpus || !top) {
		json_decref(list);
		json_decref(be);
		json_decref(gpus);
		json_decref(top);
		return NULL;
	}
	json_t *rest =
	    json_pack("{s:s, s:s, s:o, s:o, s:o}", "type", "status", "policy",
	              d->policy->name, "tenants", list, "be", be, "gpus", gpus);
	if (!rest) {
		json_decref(top);
		return NULL;
	}
	json_object_update_new(top, rest);
	return top;
}
