/* The tenant registry and the status reply (daemon.h). */
#include "daemon/daemon.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/reach.h"
#include "util/log.h"

int64_t daemon_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

bool daemon_init(struct daemon *d, const struct daemon_config *cfg)
{
	*d = (struct daemon){0};
	d->cfg = *cfg;
	d->policy = cfg->policy;
	d->next_id = 1;
	d->harvest = cfg->harvest;
	host_load_init(&d->host, NULL);
	d->intervals = malloc(STATS_WINDOW * sizeof(*d->intervals));
	d->frames = malloc(BATON_RING_CAPACITY * sizeof(*d->frames));
	if (!d->intervals || !d->frames) {
		daemon_finish(d);
		return false;
	}
	return true;
}

void daemon_finish(struct daemon *d)
{
	for (size_t i = 0; i < d->n_tenants; i++)
		tenant_destroy(d->tenants[i]);
	free(d->tenants);
	free(d->core);
	free(d->be_core);
	free(d->snap);
	free(d->be_snap);
	free(d->gpu.quality.workspace);
	free(d->intervals);
	free(d->frames);
	*d = (struct daemon){0};
}

/* The per-tick scratch arrays follow the registry's size, so a tick never
 * allocates. */
static bool grow(struct daemon *d, size_t want)
{
	if (want <= d->cap_tenants)
		return true;
	size_t cap = d->cap_tenants ? d->cap_tenants * 2 : 16;
	while (cap < want)
		cap *= 2;
	struct tenant **t = realloc(d->tenants, cap * sizeof(*t));
	if (!t)
		return false;
	d->tenants = t;
	struct core_tenant *c = realloc(d->core, cap * sizeof(*c));
	if (!c)
		return false;
	d->core = c;
	struct core_be_tenant *b = realloc(d->be_core, cap * sizeof(*b));
	if (!b)
		return false;
	d->be_core = b;
	struct metrics_tenant *s = realloc(d->snap, cap * sizeof(*s));
	if (!s)
		return false;
	d->snap = s;
	struct metrics_be *bs = realloc(d->be_snap, cap * sizeof(*bs));
	if (!bs)
		return false;
	d->be_snap = bs;
	/* The quality stage's workspace (core/quality_stage.h). */
	size_t qsz = core_quality_workspace_size(cap);
	void *qw = realloc(d->gpu.quality.workspace, qsz);
	if (!qw)
		return false;
	d->gpu.quality.workspace = qw;
	d->gpu.quality.workspace_size = qsz;
	d->cap_tenants = cap;
	return true;
}

struct tenant *daemon_add_tenant(struct daemon *d, const char *name, pid_t pid,
                                 uid_t uid, double sla_fps, double fixed_fps,
                                 struct ipc_shm *shm, int64_t now_ns)
{
	if (!grow(d, d->n_tenants + 1))
		return NULL;
	struct tenant *t = tenant_create(d->next_id, name, pid, uid, sla_fps,
	                                 fixed_fps, shm, now_ns);
	if (!t)
		return NULL;
	d->next_id++;
	d->tenants[d->n_tenants++] = t;
	const struct daemon_app *app = daemon_config_app(&d->cfg, name);
	if (app) {
		t->cap = app->cap;
		t->work_conserving = app->has_wc && app->work_conserving;
	}
	/* Before the welcome goes out: the shim paces from its next frame,
	 * not from the next tick (up to an epoch of free running, and the
	 * first frames of a game are often its fastest). */
	t->core.target_fps = daemon_start_target(d, t);
	daemon_write_target(d, t);
	log_info("tenant %llu \"%s\" pid %d uid %u registered (sla %g, "
	         "fixed %g), starts at %g FPS",
	         (unsigned long long)t->id, t->name, (int)pid, (unsigned)uid,
	         sla_fps, fixed_fps, t->core.target_fps);
	return t;
}

struct tenant *daemon_add_be_tenant(struct daemon *d, const char *name,
                                    pid_t pid, uid_t uid, double weight,
                                    double cap, struct ipc_shm *shm,
                                    int64_t now_ns)
{
	if (!grow(d, d->n_tenants + 1))
		return NULL;
	struct tenant *t =
	    tenant_create(d->next_id, name, pid, uid, 0.0, 0.0, shm, now_ns);
	if (!t)
		return NULL;
	d->next_id++;
	d->tenants[d->n_tenants++] = t;
	d->n_be++;
	t->be = true;
	t->be_state.weight = weight > 0.0 ? weight : 1.0;
	t->be_state.last_ns = now_ns;
	t->be_state.registered_ns = now_ns;
	t->cap = cap > 0.0 && cap <= 1.0 ? cap : 0.0;
	/* An app entry's cap binds a best-effort tenant of that name too
	 * (lowered, never raised, as for a game's hello). */
	const struct daemon_app *app = daemon_config_app(&d->cfg, name);
	if (app && app->cap > 0.0 && (t->cap == 0.0 || app->cap < t->cap))
		t->cap = app->cap;
	/* VALID, no budget, no window: it waits for the first tick. */
	daemon_write_be(d, t);
	log_info("best-effort tenant %llu \"%s\" pid %d uid %u registered "
	         "(weight %g, cap %g)",
	         (unsigned long long)t->id, t->name, (int)pid, (unsigned)uid,
	         t->be_state.weight, t->cap);
	return t;
}

void daemon_remove_tenant(struct daemon *d, struct tenant *t)
{
	for (size_t i = 0; i < d->n_tenants; i++) {
		if (d->tenants[i] != t)
			continue;
		/* Keep registration order: status lists tenants stably. */
		memmove(&d->tenants[i], &d->tenants[i + 1],
		        (d->n_tenants - i - 1) * sizeof(*d->tenants));
		d->n_tenants--;
		log_info("tenant %llu \"%s\" pid %d gone",
		         (unsigned long long)t->id, t->name, (int)t->pid);
		/* Its dynamic cap returns to the pool now, and the quiet
		 * count restarts (caps.h). A best-effort tenant was never in
		 * the capacity stage: the next tick splits its budget among
		 * the others. */
		if (t->be)
			d->n_be--;
		else
			core_caps_depart(&d->gpu, &t->core);
		tenant_destroy(t);
		return;
	}
}

void daemon_tenant_hello_cap(struct tenant *t, double cap)
{
	if (cap > 0.0 && cap <= 1.0 && (t->cap == 0.0 || cap < t->cap))
		t->cap = cap;
}

double daemon_tenant_sla(const struct daemon *d, const struct tenant *t)
{
	return t->sla_fps > 0.0 ? t->sla_fps : d->cfg.default_sla;
}

double daemon_start_target(const struct daemon *d, const struct tenant *t)
{
	if (t->fixed_fps > 0.0)
		return t->fixed_fps;
	if (d->policy == &core_policy_none)
		return 0.0;
	struct core_tenant c = {.sla_fps = daemon_tenant_sla(d, t)};
	return core_sla_ref(&d->cfg.params, &c);
}

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
		        "s:s, s:f, s:f, s:f, s:I, s:I, s:b, s:f, s:b}",
		        "kind", "be", "name", t->name, "id", (json_int_t)t->id,
		        "pid", (int)t->pid, "uid", (json_int_t)t->uid, "weight",
		        b->weight, "cap", t->cap, "budget", b->core.budget,
		        "window_ms", b->core.window_s * 1e3, "mode",
		        b->core.mode == CORE_HARVEST_CONTINUOUS ? "continuous"
		                                                : "periodical",
		        "units_per_s", b->units_s, "gpu_share", t->gpu_share,
		        "wait_ratio", b->wait_ratio, "units",
		        (json_int_t)b->units,
		        /* records of the wrong kind, dropped */
		        "bad_records", (json_int_t)t->wrong_kind,
		        /* a hung sub-launch (core/harvest_stuck.h), and
		           how long the one under way has run (0: none) */
		        "stuck", (int)b->core.stuck, "inflight_ms",
		        b->core.inflight_s * 1e3,
		        /* it can run on a space partition (its hello) */
		        "partition", (int)b->partition));
	}
	return list;
}

/* A game's quality API (daemon/quality.h): its levels, the level in force
 * (the pin, else batond's choice, else the game's default), whether it is
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

/* The quality stage on this GPU (core/quality_stage.h). */
static json_t *quality_gpu_status(const struct daemon *d)
{
	const struct core_params *p = &d->cfg.params;
	const struct core_quality_gpu *g = &d->gpu.quality;
	return json_pack(
	    "{s:s, s:f, s:f, s:f, s:i, s:I, s:I}", "mode",
	    !p->quality_on     ? "off"
	    : p->quality_paper ? "paper"
	                       : "baton",
	    "budget", g->budget, "total_cost", g->total_cost, "total_benefit",
	    g->total_benefit, "items", (int)g->items, "reassignments",
	    (json_int_t)g->reassignments, "refusals", (json_int_t)g->refusals);
}

json_t *daemon_status(struct daemon *d)
{
	json_t *list = json_array();
	int64_t now = d->last_tick_ns;
	for (size_t i = 0; i < d->n_tenants && list; i++) {
		struct tenant *t = d->tenants[i];
		if (t->corrupt || t->be)
			continue;
		double fps = stats_fps(&t->win, now, 1000000000LL);
		size_t n =
		    stats_intervals(&t->win, now, 2000000000LL, d->intervals);
		double q = 0.99, p99;
		stats_quantiles(d->intervals, n, &q, &p99, 1);
		json_array_append_new(
		    list,
		    json_pack("{s:s, s:i, s:f, s:f, s:f, s:f, s:f, s:I, s:b, "
		              "s:f, s:I, s:f, s:I}",
		              "name", t->name, "pid", (int)t->pid, "sla_fps",
		              daemon_tenant_sla(d, t), "target_fps",
		              t->core.target_fps, "fps", fps, "frame_ms_p99",
		              p99 * 1e3, "gpu_share", t->gpu_share,
		              "below_sla_s", (json_int_t)t->below_sla_s,
		              /* cannot reach its reference (core/reach.h),
		                 and the rate it could reach */
		              "limited", (int)t->core.limited, "reach_fps",
		              t->core.reach_fps,
		              /* beyond proto.h: the id of its welcome and
		                 its pin (0 = none) */
		              "id", (json_int_t)t->id, "fixed_fps",
		              t->fixed_fps, "uid", (json_int_t)t->uid));
		json_t *o = json_array_get(list, json_array_size(list) - 1);
		const struct core_cap_state *cs = &t->core.caps;
		/* The capacity stage (core/caps.h): published cap, the
		 * budget its gate enforces (dynamic cap within its user's
		 * cap, plus spare for a work-conserving one), last period's
		 * u, whether it is overloaded, and whether its gate holds
		 * it back (cap-bound). */
		if (o)
			json_object_update_new(
			    o,
			    json_pack("{s:f, s:f, s:f, s:b, s:b, s:b}", "cap",
			              t->cap, "budget", cs->budget, "u",
			              cs->sampled ? cs->u : 0.0, "overloaded",
			              (int)cs->overloaded, "work_conserving",
			              (int)t->work_conserving,
			              /* its gate holds it (core/reach.h) */
			              "cap_bound", (int)t->core.cap_bound));
		if (o)
			json_object_set_new(o, "kind", json_string("game"));
		if (o && t->quality.declared)
			json_object_set_new(
			    o, "quality",
			    quality_status(&t->quality, &t->core.quality));
	}
	json_t *be = be_status(d);
	if (!list || !be) {
		json_decref(list);
		json_decref(be);
		return NULL;
	}
	const struct core_caps_gpu *g = &d->gpu.caps;
	return json_pack(
	    "{s:s, s:s, s:f, s:f, s:f, s:f, s:b, s:f, s:b, s:I, s:f, s:o, s:o, "
	    "s:f, s:f, s:o, s:{s:i, s:i, s:i, s:s, s:I}}",
	    "type", "status", "policy", d->policy->name, "gpu_util",
	    d->gpu.util, "other_util", d->gpu.other_util, "common_fps",
	    d->gpu.common_fps, "sla_util", d->gpu.sla_util, "overload",
	    (int)d->gpu.overload,
	    /* capacity (core/caps.h): G6's total load of the last period;
	     * severe: more than one tenant overloaded, capacity not
	     * advertised */
	    "total_load", g->total_load, "severe", (int)g->severe, "overloaded",
	    (json_int_t)g->n_overloaded, "cap_pool", g->pool, "tenants", list,
	    /* best-effort tenants (docs/harvesting.md) and the slot their
	     * periodical sub-launches start in (core/harvest_slot.h) */
	    "be", be, "slot_ms", d->harvest_gpu.slot.len_s * 1e3,
	    "slot_period_ms", d->harvest_gpu.slot.period_s * 1e3, "quality",
	    quality_gpu_status(d),
	    /* space harvesting (core/harvest_space.h) */
	    "space", "units", (int)d->harvest.space.sm_total, "split",
	    (int)d->space.split, "be_units", (int)d->space.be_count, "scheme",
	    d->space.scheme == CORE_COMBO_INTEGRATED ? "integrated"
	                                             : "temporal",
	    "switches", (json_int_t)d->space.switches);
}
