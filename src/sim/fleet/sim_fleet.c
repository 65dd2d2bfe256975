/* The fleet simulator's placements (sim_fleet.h, docs/fleet-results.md): one
 * day of arrivals offered to one allocator, from session event to session
 * event. Baton's decisions are the core's own: core_caps_admit on a GPU's
 * summed demand (gOver's G6 rule, caps.h) and, with the quality lever,
 * quality_join and quality_reassign (dJay §6.3, quality_opt.h). */
#include "sim/fleet/sim_fleet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/caps.h"
#include "sim/engine/heap.h"
#include "sim/fleet/sim_fleet_index.h"

/* Load buckets over [0, U_l) for Baton's placements (one more for loads
 * at or over U_l): 1/1024 of U_l apart, so that GPUs of different loads
 * rarely share one and a scan meets few that do not fit. */
#define LOAD_BUCKETS 1024u

struct fgpu {
	double load;      /* summed demand at the levels held */
	double min_load;  /* ... at every session's cheapest level */
	double ssim;      /* summed SSIM at the levels held */
	double changed_s; /* its last join or departure */
	uint32_t n;
	uint32_t s[SIM_FLEET_MAX_PER_GPU]; /* its sessions (arrival ids) */
};

struct fsess {
	uint32_t gpu;
	uint8_t level;
};

struct fleet {
	const struct sim_fleet_spec *spec;
	const struct core_params *p;
	enum sim_fleet_placement placement;
	uint32_t per_gpu;
	const struct sim_fleet_arrivals *a;
	struct fgpu *g;
	struct fsess *s;
	struct fleet_index ix;
	struct core_gpu scratch; /* the capacity stage's view of one GPU */
	struct quality_params qp;
	struct quality_item items[SIM_FLEET_MAX_PER_GPU + 1];
	unsigned levels[SIM_FLEET_MAX_PER_GPU + 1];
	void *ws;
	/* the fleet's sums now, and since the last event */
	double t, sessions, gpus, below, ssim;
	double t_end;
	struct sim_fleet_run *out;
	double ssim_s;
};

static double demand(const struct sim_fleet_game *gm, unsigned level)
{
	return gm->cost_s[level] * gm->sla_fps;
}

static const struct sim_fleet_game *game_of(const struct fleet *f, uint32_t id)
{
	return &f->spec->games[f->a->game[id]];
}

/* The time integrals up to t, bin by bin. */
static void advance(struct fleet *f, double t)
{
	struct sim_fleet_run *o = f->out;
	while (f->t < t) {
		size_t b = (size_t)(f->t / f->spec->bin_s);
		if (b >= o->n_bins)
			b = o->n_bins - 1;
		double edge = (double)(b + 1) * f->spec->bin_s;
		double end = t < edge || b + 1 == o->n_bins ? t : edge;
		double dt = end - f->t;
		o->sessions_per_bin[b] += f->sessions * dt;
		o->gpus_per_bin[b] += f->gpus * dt;
		o->session_s += f->sessions * dt;
		o->gpu_hours += f->gpus * dt;
		o->below_sla_s += f->below * dt;
		f->ssim_s += f->ssim * dt;
		f->t = end;
	}
}

static bool overloaded(const struct fleet *f, const struct fgpu *g)
{
	return g->load > f->spec->gpu_capacity;
}

static uint32_t key(const struct fleet *f, const struct fgpu *g)
{
	if (f->per_gpu)
		return g->n;
	double v =
	    f->placement == SIM_FLEET_BATON_QUALITY ? g->min_load : g->load;
	double b = floor(v / f->p->cap_u_limit * LOAD_BUCKETS);
	return b < LOAD_BUCKETS ? (uint32_t)b : LOAD_BUCKETS;
}

/* GPU gi leaves the fleet's sums and the index before a change ... */
static void take_out(struct fleet *f, uint32_t gi)
{
	struct fgpu *g = &f->g[gi];
	f->sessions -= g->n;
	f->gpus -= g->n > 0;
	f->below -= overloaded(f, g) ? g->n : 0;
	f->ssim -= g->ssim;
	fleet_index_remove(&f->ix, gi);
}

/* ... and comes back after it, its sums recomputed from its sessions (no
 * drift from adding and subtracting). */
static void put_back(struct fleet *f, uint32_t gi, double t)
{
	struct fgpu *g = &f->g[gi];
	g->load = g->min_load = g->ssim = 0.0;
	for (uint32_t k = 0; k < g->n; k++) {
		const struct sim_fleet_game *gm = game_of(f, g->s[k]);
		unsigned l = f->s[g->s[k]].level;
		g->load += demand(gm, l);
		g->min_load += demand(gm, 0);
		g->ssim += gm->ssim[l];
	}
	g->changed_s = t;
	f->sessions += g->n;
	f->gpus += g->n > 0;
	f->below += overloaded(f, g) ? g->n : 0;
	f->ssim += g->ssim;
	if ((double)f->sessions > f->out->peak_sessions)
		f->out->peak_sessions = (uint32_t)f->sessions;
	if ((double)f->gpus > f->out->peak_gpus)
		f->out->peak_gpus = (uint32_t)f->gpus;
	fleet_index_put(&f->ix, gi, key(f, g));
}

/* The capacity stage's answer for GPU g (caps.h): a GPU in steady state
 * whose every recent period's load was `load`, quiet once cap_quiet
 * periods have passed since its last join or departure. */
static bool admits(struct fleet *f, const struct fgpu *g, double load,
                   const struct sim_fleet_game *gm, unsigned level, double t)
{
	struct core_caps_gpu *c = &f->scratch.caps;
	double quiet_s = f->p->cap_quiet * f->p->cap_period_s;
	c->sampled = true;
	c->periods = CORE_CAPS_RECENT;
	c->total_load = load;
	for (size_t i = 0; i < CORE_CAPS_RECENT; i++)
		c->recent_load[i] = load;
	c->quiet = t - g->changed_s >= quiet_s ? f->p->cap_quiet : 0;
	c->overhead = 1.0;
	c->severe = false;
	c->n_overloaded = 0;
	return core_caps_admit(f->p, &f->scratch, gm->cost_s[level],
	                       gm->sla_fps)
	    .fits;
}

static void fill_items(struct fleet *f, const struct fgpu *g)
{
	for (uint32_t k = 0; k < g->n; k++) {
		const struct sim_fleet_game *gm = game_of(f, g->s[k]);
		struct quality_item *it = &f->items[k];
		it->n_levels = gm->n_levels;
		it->weight = gm->sla_fps;
		memcpy(it->cost, gm->cost_s, sizeof(it->cost));
		memcpy(it->benefit, gm->ssim, sizeof(it->benefit));
		f->levels[k] = f->s[g->s[k]].level;
	}
}

/* Does GPU gi take arrival id; on yes, its level (and, with the quality
 * lever, the others' new levels in f->levels). */
static bool fits(struct fleet *f, uint32_t gi, uint32_t id, double t,
                 unsigned *level)
{
	const struct fgpu *g = &f->g[gi];
	const struct sim_fleet_game *gm = game_of(f, id);
	*level = gm->n_levels - 1;
	if (f->per_gpu)
		return g->n < f->per_gpu;
	if (g->n >= SIM_FLEET_MAX_PER_GPU)
		return false;
	if (f->placement == SIM_FLEET_BATON)
		return admits(f, g, g->load, gm, *level, t);
	if (!admits(f, g, g->min_load, gm, 0, t))
		return false;
	fill_items(f, g);
	f->items[g->n] = (struct quality_item){.n_levels = gm->n_levels,
	                                       .weight = gm->sla_fps};
	memcpy(f->items[g->n].cost, gm->cost_s, sizeof(gm->cost_s));
	memcpy(f->items[g->n].benefit, gm->ssim, sizeof(gm->ssim));
	if (quality_join(f->items, g->n + 1, g->n, &f->qp, f->levels, f->ws) ==
	    QUALITY_JOIN_REFUSED)
		return false;
	*level = f->levels[g->n];
	return true;
}

/* The highest bucket a GPU that takes a demand d may be in. */
static uint32_t top_bucket(const struct fleet *f, double d)
{
	if (f->per_gpu)
		return f->per_gpu - 1;
	double b =
	    floor((f->p->cap_u_limit - d) / f->p->cap_u_limit * LOAD_BUCKETS);
	if (b < 0.0)
		return FLEET_NONE;
	return b < LOAD_BUCKETS ? (uint32_t)b : LOAD_BUCKETS - 1;
}

/* Packed: the fullest GPU that takes it; Distributed: the emptiest. Baton
 * packs (the fewest GPUs in use for its published capacity). */
static uint32_t choose(struct fleet *f, uint32_t id, double t, unsigned *level)
{
	const struct sim_fleet_game *gm = game_of(f, id);
	bool cheapest = f->placement == SIM_FLEET_BATON_QUALITY;
	uint32_t top =
	    top_bucket(f, demand(gm, cheapest ? 0 : gm->n_levels - 1));
	if (top == FLEET_NONE)
		return FLEET_NONE;
	bool down = f->placement != SIM_FLEET_DISTRIBUTED;
	uint32_t b = down ? fleet_index_at_or_below(&f->ix, top)
	                  : fleet_index_at_or_above(&f->ix, 0);
	while (b != FLEET_NONE && b <= top) {
		for (uint32_t gi = f->ix.head[b]; gi != FLEET_NONE;
		     gi = f->ix.next[gi])
			if (fits(f, gi, id, t, level))
				return gi;
		if (down)
			b = b ? fleet_index_at_or_below(&f->ix, b - 1)
			      : FLEET_NONE;
		else
			b = fleet_index_at_or_above(&f->ix, b + 1);
	}
	return FLEET_NONE;
}

static bool arrive(struct fleet *f, struct sim_heap *h, uint32_t id)
{
	double t = f->a->t_s[id];
	unsigned level;
	advance(f, t);
	uint32_t gi = choose(f, id, t, &level);
	if (gi == FLEET_NONE) {
		f->out->refused++;
		return true;
	}
	struct fgpu *g = &f->g[gi];
	take_out(f, gi);
	if (f->placement == SIM_FLEET_BATON_QUALITY)
		for (uint32_t k = 0; k < g->n; k++)
			f->s[g->s[k]].level = (uint8_t)f->levels[k];
	f->s[id] = (struct fsess){.gpu = gi, .level = (uint8_t)level};
	g->s[g->n++] = id;
	put_back(f, gi, t);
	f->out->served++;
	/* past the end it never leaves (and llround stays in range) */
	double end = fmin(t + f->a->len_s[id], f->t_end + 1.0);
	return sim_heap_push(h, (int64_t)llround(end * 1e9), 0, id);
}

static void depart(struct fleet *f, uint32_t id, double t)
{
	uint32_t gi = f->s[id].gpu;
	struct fgpu *g = &f->g[gi];
	advance(f, t);
	take_out(f, gi);
	for (uint32_t k = 0; k < g->n; k++)
		if (g->s[k] == id) {
			g->s[k] = g->s[--g->n];
			break;
		}
	/* The survivors get the best levels that fit now (the stage's full
	 * reassignment; its epoch steps climb there a level at a time). */
	if (f->placement == SIM_FLEET_BATON_QUALITY && g->n > 0) {
		fill_items(f, g);
		quality_reassign(f->items, g->n, &f->qp, f->levels, f->ws);
		for (uint32_t k = 0; k < g->n; k++)
			f->s[g->s[k]].level = (uint8_t)f->levels[k];
	}
	put_back(f, gi, t);
}

static bool setup(struct fleet *f, const struct sim_fleet_spec *spec,
                  double duration_s, struct sim_fleet_run *out)
{
	uint32_t n = spec->gpus;
	uint32_t buckets = f->per_gpu ? f->per_gpu + 1 : LOAD_BUCKETS + 1;
	out->n_bins = (size_t)ceil(duration_s / spec->bin_s);
	if (out->n_bins == 0)
		out->n_bins = 1;
	out->sessions_per_bin = calloc(out->n_bins, sizeof(double));
	out->gpus_per_bin = calloc(out->n_bins, sizeof(double));
	f->g = calloc(n, sizeof(*f->g));
	f->s = calloc(f->a->n ? f->a->n : 1, sizeof(*f->s));
	f->ws = malloc(quality_workspace_size(SIM_FLEET_MAX_PER_GPU + 1));
	if (!out->sessions_per_bin || !out->gpus_per_bin || !f->g || !f->s ||
	    !f->ws || !fleet_index_init(&f->ix, n, buckets))
		return false;
	/* Every quality game's budget is U_l, '<' as admission's. */
	f->qp = quality_params_default();
	f->qp.budget = f->p->cap_u_limit;
	f->qp.strict = true;
	for (uint32_t i = n; i-- > 0;) {
		f->g[i].changed_s = -INFINITY;
		fleet_index_put(&f->ix, i, 0);
	}
	return true;
}

static void finish(struct fleet *f, double duration_s)
{
	struct sim_fleet_run *o = f->out;
	advance(f, duration_s);
	for (size_t b = 0; b < o->n_bins; b++) {
		double lo = (double)b * f->spec->bin_s;
		double hi = fmin(lo + f->spec->bin_s, duration_s);
		double w = hi > lo ? hi - lo : 1.0;
		o->sessions_per_bin[b] /= w;
		o->gpus_per_bin[b] /= w;
	}
	o->gpu_hours /= 3600.0;
	o->below_share = o->session_s > 0 ? o->below_sla_s / o->session_s : 0;
	o->served_per_gpu_hour =
	    o->gpu_hours > 0 ? (double)o->served / o->gpu_hours : 0.0;
	o->density =
	    o->gpu_hours > 0 ? o->session_s / 3600.0 / o->gpu_hours : 0.0;
	o->mean_ssim = o->session_s > 0 ? f->ssim_s / o->session_s : 0.0;
}

bool sim_fleet_place(const struct sim_fleet_spec *spec,
                     const struct core_params *p,
                     const struct sim_fleet_arrivals *a, double duration_s,
                     enum sim_fleet_placement placement, uint32_t per_gpu,
                     struct sim_fleet_run *out)
{
	bool is_static =
	    placement == SIM_FLEET_PACKED || placement == SIM_FLEET_DISTRIBUTED;
	*out = (struct sim_fleet_run){.placement = placement,
	                              .per_gpu = is_static ? per_gpu : 0,
	                              .arrivals = a->n};
	if (spec->gpus == 0 || spec->n_games == 0 || !(spec->bin_s > 0.0) ||
	    (is_static && (per_gpu == 0 || per_gpu > SIM_FLEET_MAX_PER_GPU)))
		return false;
	struct fleet f = {.spec = spec,
	                  .p = p,
	                  .placement = placement,
	                  .per_gpu = out->per_gpu,
	                  .a = a,
	                  .t_end = duration_s,
	                  .out = out};
	struct sim_heap h;
	bool ok = sim_heap_init(&h, 1024) && setup(&f, spec, duration_s, out);
	for (size_t i = 0; ok && i < a->n; i++) {
		const struct sim_event *e;
		while ((e = sim_heap_top(&h)) &&
		       (double)e->t_ns / 1e9 <= a->t_s[i]) {
			struct sim_event ev;
			sim_heap_pop(&h, &ev);
			depart(&f, ev.target, (double)ev.t_ns / 1e9);
		}
		ok = arrive(&f, &h, (uint32_t)i);
	}
	const struct sim_event *e;
	while (ok && (e = sim_heap_top(&h)) &&
	       (double)e->t_ns / 1e9 <= duration_s) {
		struct sim_event ev;
		sim_heap_pop(&h, &ev);
		depart(&f, ev.target, (double)ev.t_ns / 1e9);
	}
	if (ok)
		finish(&f, duration_s);
	sim_heap_finish(&h);
	fleet_index_free(&f.ix);
	free(f.g);
	free(f.s);
	free(f.ws);
	if (!ok) {
		free(out->sessions_per_bin);
		free(out->gpus_per_bin);
		out->sessions_per_bin = out->gpus_per_bin = NULL;
	}
	return ok;
}
