/* Space harvesting with kernel classes and two BE applications
 * (sim_combo_apps.h). Fixed time steps as sim_combo.c: the policy's
 * decisions (scheme, split, pairing, admission, merging) are all
 * core/combo.c's; this file moves the work. */
#include "sim/combo/sim_combo_apps.h"

#include <math.h>
#include <stdlib.h>

#include "sim/engine/rng.h"
#include "sim/engine/percentile.h"

struct sim_combo_pairs sim_combo_pairs_table3(void)
{
	return (struct sim_combo_pairs){
	    .rt_cd = 0.3987, .cd_tc = 0.4412, .mem_scale = 1.0};
}

/* A BE kernel in flight. */
struct be_run {
	bool on;
	bool bound;   /* on the BE group (integrated), else on every SM */
	double work;  /* SM-seconds left */
	uint32_t sms; /* the SMs it holds */
	double solo;  /* its solo time on the whole GPU (Eq. 6) */
	enum core_combo_kclass cls;
};

struct st {
	const struct sim_combo_mix *mx;
	enum sim_combo_scheme scheme;
	bool merge;
	struct core_combo_params p;
	struct core_combo_game game;
	struct core_combo_frame f;
	double total, period, deadline, next_start, last_shown;
	double cd_left, rt_left, rt_cur, rt_next;
	bool in_frame, bound_frame, delay_next;
	double delay;
	size_t head[SIM_COMBO_MIX_APPS];
	struct be_run be[SIM_COMBO_MIX_APPS];
	unsigned rr;
	uint64_t coruns, rt_coruns; /* launches onto shared SMs */
	struct sim_rng rng;
	double level;
	bool swinging;
	struct sim_combo_intervals iv;
};

static double draw_rt(struct st *s)
{
	const struct sim_combo_mix *mx = s->mx;
	double u = sim_rng_uniform(&s->rng);
	if (mx->trace == SIM_COMBO_STABLE) {
		if (s->level <= 0.0 || u * mx->calm_frames < 1.0)
			s->level =
			    mx->rt_s *
			    (1.0 + 0.06 * (sim_rng_uniform(&s->rng) - 0.5));
		return s->level;
	}
	bool fresh = s->level <= 0.0;
	if (fresh || u * mx->spell_frames < 1.0)
		s->swinging =
		    fresh ? sim_rng_uniform(&s->rng) < 0.5 : !s->swinging;
	if (fresh ||
	    (s->swinging && sim_rng_uniform(&s->rng) * mx->change_frames < 1.0))
		s->level = mx->rt_lo_s + (mx->rt_hi_s - mx->rt_lo_s) *
		                             sim_rng_uniform(&s->rng);
	return s->level;
}

static double app_scale(const struct st *s, unsigned a)
{
	return s->mx->apps[a].memory_bound ? s->mx->m.mem_scale : 1.0;
}

/* m of two BE kernels of applications a and b sharing SMs (Table 3: same
 * class 0). */
static double m_pair(const struct st *s, unsigned a, enum core_combo_kclass ca,
                     unsigned b, enum core_combo_kclass cb)
{
	if (ca == cb)
		return 0.0;
	return s->mx->m.cd_tc * fmin(app_scale(s, a), app_scale(s, b));
}

static bool may(enum core_combo_kclass a, bool ga, enum core_combo_kclass b,
                bool gb)
{
	return core_combo_may_corun((struct core_combo_kernel){a, ga},
	                            (struct core_combo_kernel){b, gb});
}

static void launch(struct st *s, unsigned a, bool bound, uint32_t sms)
{
	const struct sim_combo_app *ap = &s->mx->apps[a];
	size_t k = s->head[a];
	s->be[a] = (struct be_run){.on = true,
	                           .bound = bound,
	                           .work = ap->solo_s[k] * s->total,
	                           .sms = sms,
	                           .solo = ap->solo_s[k],
	                           .cls = ap->cls[k]};
	s->head[a] = (k + 1) % ap->n;
	s->rr = a + 1;
}

/* Integrated: both applications back to back on the BE group. */
static void launch_bound(struct st *s, unsigned a, double now)
{
	const struct sim_combo_app *ap = &s->mx->apps[a];
	unsigned o = 1 - a;
	double g = (double)s->f.be_sms;
	double mine = ap->solo_s[s->head[a]] * s->total / g, e_new = mine;
	double e_oth = 0.0;
	if (s->be[o].on) {
		double left = s->be[o].work / (double)s->be[o].sms;
		core_combo_corun_ends(
		    mine, left,
		    m_pair(s, a, ap->cls[s->head[a]], o, s->be[o].cls), &e_new,
		    &e_oth);
	}
	double last = s->deadline - s->p.margin_s;
	bool span =
	    core_combo_may_span(&s->p, &s->game, s->mx->fps, s->f.split);
	if ((now + e_new <= last || span) &&
	    (!s->be[o].on || now + e_oth <= last || span))
		launch(s, a, true, s->f.be_sms);
}

/* Relaxed: a BE kernel on every SM, with the render's RT phase or
 * another BE kernel, where the policy admits the shared ends. */
static bool launch_shared(struct st *s, unsigned a, double now, bool temporal)
{
	const struct sim_combo_app *ap = &s->mx->apps[a];
	size_t k = s->head[a];
	double solo = ap->solo_s[k];
	unsigned o = 1 - a;
	bool other = s->be[o].on;
	if (s->in_frame) {
		/* the RT phase: a CD kernel beside the game's RT kernel */
		if (temporal || other || s->cd_left > 0.0 ||
		    !may(CORE_COMBO_RT, true, ap->cls[k], false))
			return false;
		double r = s->rt_left / s->total, re, be;
		core_combo_corun_ends(r, solo, s->mx->m.rt_cd * app_scale(s, a),
		                      &re, &be);
		if (!core_combo_fits(&s->p, now, be, now + re, s->deadline))
			return false;
	} else if (other) {
		if (temporal || !may(ap->cls[k], false, s->be[o].cls, false))
			return false;
		double e_new, e_oth;
		core_combo_corun_ends(solo, s->be[o].work / s->total,
		                      m_pair(s, a, ap->cls[k], o, s->be[o].cls),
		                      &e_new, &e_oth);
		if (!core_combo_fits(&s->p, now, e_new, now + e_oth,
		                     s->next_start))
			return false;
	} else if (!core_combo_fits(&s->p, now, solo, now, s->next_start)) {
		return false;
	}
	s->coruns += s->in_frame || other;
	s->rt_coruns += s->in_frame;
	launch(s, a, false, s->p.sm_total);
	return true;
}

static void maybe_launch(struct st *s, double now)
{
	if (s->f.hold_be)
		return;
	bool temporal = s->scheme == SIM_COMBO_TEMPORAL;
	bool any_bound = false;
	for (unsigned a = 0; a < SIM_COMBO_MIX_APPS; a++)
		any_bound |= s->be[a].on && s->be[a].bound;
	for (unsigned i = 0; i < SIM_COMBO_MIX_APPS; i++) {
		unsigned a = (s->rr + i) % SIM_COMBO_MIX_APPS;
		if (s->be[a].on)
			continue;
		if (s->bound_frame) {
			if (s->f.be_sms > 0)
				launch_bound(s, a, now);
		} else if (!any_bound) {
			launch_shared(s, a, now, temporal);
		}
	}
}

/* Headroom merging (§5.5): the unit of work is the two applications'
 * head kernels run together (or the longer, where they may not share). */
static void consider_merge(struct st *s)
{
	const struct sim_combo_app *x = &s->mx->apps[0], *y = &s->mx->apps[1];
	double a = x->solo_s[s->head[0]], b = y->solo_s[s->head[1]];
	enum core_combo_kclass ca = x->cls[s->head[0]], cb = y->cls[s->head[1]];
	double unit = fmax(a, b);
	if (may(ca, false, cb, false)) {
		double ea, eb;
		core_combo_corun_ends(a, b, m_pair(s, 0, ca, 1, cb), &ea, &eb);
		unit = fmax(ea, eb);
	}
	double k = 1.0 + s->p.eps;
	double h1 = s->period - s->rt_cur * k, h2 = s->period - s->rt_next * k;
	if (core_combo_merge_gain(fmax(h1, 0.0), fmax(h2, 0.0), unit) > 0) {
		s->delay_next = true;
		s->delay = core_combo_merge_delay(&s->p, s->mx->fps, s->rt_next,
		                                  2.0 * s->mx->step_s);
	}
}

static void start_frame(struct st *s, double grid, bool delayed, double last_rt,
                        bool measured, struct sim_combo_mix_run *r)
{
	s->rt_cur = s->rt_next;
	s->rt_next = draw_rt(s);
	if (last_rt > 0.0)
		core_combo_record(&s->p, &s->game, last_rt);
	s->f = core_combo_decide(&s->p, &s->game, s->mx->fps, s->rt_cur,
	                         s->period);
	if (s->scheme == SIM_COMBO_TEMPORAL) {
		s->f.scheme = CORE_COMBO_RELAXED;
		s->f.hold_be = false;
	}
	s->bound_frame = s->f.scheme == CORE_COMBO_INTEGRATED && !s->f.hold_be;
	/* The second frame of a merged pair has no slack for a split sized
	 * to the whole period: it runs unbound, BE held (as a switch). */
	if (delayed && s->f.scheme == CORE_COMBO_INTEGRATED) {
		s->bound_frame = false;
		s->f.hold_be = true;
	}
	s->cd_left = s->rt_cur * (1.0 - s->mx->rt_share) * s->total;
	s->rt_left = s->rt_cur * s->mx->rt_share * s->total;
	s->deadline = grid + s->period;
	s->in_frame = true;
	s->delay_next = false;
	if (s->merge && !delayed && s->scheme != SIM_COMBO_TEMPORAL &&
	    s->f.scheme == CORE_COMBO_RELAXED)
		consider_merge(s);
	if (measured) {
		r->frames++;
		r->merged += delayed;
		r->integrated_pct += s->f.scheme == CORE_COMBO_INTEGRATED;
	}
}

/* One step of every kernel's progress; the frame's end. */
/* The SMs a bound BE kernel holds (the most of them), and how many
 * kernels share the device instead. */
static double held_sms(const struct st *s, unsigned *shared)
{
	double held = 0.0;
	*shared = 0;
	for (unsigned a = 0; a < SIM_COMBO_MIX_APPS; a++) {
		if (!s->be[a].on)
			continue;
		if (s->be[a].bound)
			held = fmax(held, (double)s->be[a].sms);
		else
			(*shared)++;
	}
	return held;
}

/* The speed of the frame's render, and of the kernels sharing with it. */
static double render_speed(const struct st *s, unsigned shared, bool rt_phase)
{
	if (!s->in_frame || shared == 0)
		return 1.0;
	/* with the RT phase: the admitted CD kernel's m; anything else (not
	 * admitted) shares at m = 0 */
	unsigned a = s->be[0].on && !s->be[0].bound ? 0 : 1;
	double m = rt_phase && shared == 1 && s->be[a].cls == CORE_COMBO_CD
	               ? s->mx->m.rt_cd * app_scale(s, a)
	               : 0.0;
	return shared == 1 ? core_combo_corun_speed(m) : 1.0 / 3.0;
}

/* One step of each BE kernel that runs, at c_rt beside the frame. */
static void be_kernels_step(struct st *s, double dt, bool measured,
                            bool rt_phase, double c_rt,
                            struct sim_combo_mix_run *r)
{
	for (unsigned a = 0; a < SIM_COMBO_MIX_APPS; a++) {
		struct be_run *b = &s->be[a];
		if (!b->on)
			continue;
		unsigned o = 1 - a;
		double c = 1.0;
		if (!b->bound && s->in_frame)
			c = c_rt;
		else if (s->be[o].on && s->be[o].bound == b->bound)
			c = core_combo_corun_speed(
			    m_pair(s, a, b->cls, o, s->be[o].cls));
		/* the pairing rule, as the model ran it */
		struct core_combo_kernel gk = {
		    rt_phase ? CORE_COMBO_RT : CORE_COMBO_CD, true};
		if (measured && !b->bound && s->in_frame &&
		    !core_combo_may_corun(
		        gk, (struct core_combo_kernel){b->cls, false}))
			r->forbidden_s += dt;
		b->work -= (double)b->sms * c * dt;
		if (b->work <= 0.0) {
			b->on = false;
			if (measured) {
				r->work_s[a] += b->solo;
				*(b->cls == CORE_COMBO_TC ? &r->work_tc_s
				                          : &r->work_cd_s) +=
				    b->solo;
			}
		}
	}
}

static bool step(struct st *s, double now, double dt, bool measured,
                 double *rt_done, struct sim_combo_mix_run *r)
{
	unsigned shared;
	double held = held_sms(s, &shared);
	bool rt_phase = s->in_frame && s->cd_left <= 0.0;
	double c_rt = render_speed(s, shared, rt_phase);
	be_kernels_step(s, dt, measured, rt_phase, c_rt, r);
	if (!s->in_frame)
		return true;
	double sms = s->total - held;
	if (s->bound_frame)
		sms = fmin((double)s->f.split, sms);
	if (!sim_combo_frame_work(&s->cd_left, &s->rt_left, sms * c_rt * dt))
		return true;
	double end = now + dt;
	bool late = end > s->deadline + dt;
	double shown = late ? end : s->deadline;
	bool ok = true;
	if (measured) {
		r->late_pct += late;
		if (s->last_shown > 0.0)
			ok = sim_combo_intervals_push(&s->iv,
			                              shown - s->last_shown);
	}
	s->last_shown = shown;
	s->in_frame = false;
	s->next_start = shown + (s->delay_next ? s->delay : 0.0);
	*rt_done = s->rt_cur;
	return ok;
}

bool sim_combo_mix_run(const struct sim_combo_mix *mx,
                       enum sim_combo_scheme scheme, bool merge,
                       double duration, double warmup, uint64_t seed,
                       struct sim_combo_mix_run *r)
{
	*r = (struct sim_combo_mix_run){0};
	if (!(mx->fps > 0.0) || mx->p.sm_total == 0 || !(mx->step_s > 0.0) ||
	    !(duration > warmup) || (unsigned)scheme >= SIM_COMBO_N_SCHEMES)
		return false;
	for (unsigned a = 0; a < SIM_COMBO_MIX_APPS; a++) {
		if (mx->apps[a].n < 1 ||
		    mx->apps[a].n > SIM_COMBO_APP_MAX_KERNELS)
			return false;
		for (size_t k = 0; k < mx->apps[a].n; k++)
			if (!(mx->apps[a].solo_s[k] > 0.0))
				return false;
	}
	struct st s = {.mx = mx, .scheme = scheme, .merge = merge, .p = mx->p};
	if (scheme == SIM_COMBO_INTEGRATED)
		s.p.stable_spread = INFINITY;
	else if (scheme != SIM_COMBO_ADAPTIVE)
		s.p.stable_spread = -1.0;
	s.total = (double)mx->p.sm_total;
	s.period = 1.0 / mx->fps;
	sim_rng_seed(&s.rng, seed);
	s.rt_next = draw_rt(&s);
	double rt_done = 0.0, grid = 0.0;
	bool ok = true, delayed = false;
	const double dt = mx->step_s;
	/* an integer step count: no drift from summing dt */
	uint64_t n = (uint64_t)ceil(duration / dt);
	for (uint64_t i = 0; i < n && ok; i++) {
		double now = (double)i * dt;
		bool measured = now >= warmup;
		if (!s.in_frame && now + 1e-9 >= s.next_start) {
			/* the grid point the frame belongs to */
			grid = s.last_shown > 0.0 ? s.last_shown : now;
			start_frame(&s, grid, delayed, rt_done, measured, r);
			delayed = s.delay_next;
		}
		maybe_launch(&s, now);
		ok = step(&s, now, dt, measured, &rt_done, r);
	}
	r->coruns = s.coruns;
	r->rt_coruns = s.rt_coruns;
	if (ok && r->frames > 0) {
		double f = (double)r->frames;
		r->fps_mean = f / (duration - warmup);
		r->late_pct = 100.0 * r->late_pct / f;
		r->integrated_pct = 100.0 * r->integrated_pct / f;
		double p99 = sim_percentile(s.iv.v, s.iv.n, 99.0);
		r->fps_p99 = p99 > 0.0 ? 1.0 / p99 : 0.0;
	}
	free(s.iv.v);
	return ok;
}
