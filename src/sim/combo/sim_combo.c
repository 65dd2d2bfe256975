/* Space harvesting's model: one game and one BE application on an SM-level
 * GPU (see sim_combo.h). Time advances in fixed steps (10 us by default):
 * at Table 6's scale a frame is 1670 steps and a kernel 120, so the step
 * costs under 1 % of either, and a 60-s run is 6 million steps. */
#include "sim/combo/sim_combo.h"

#include <math.h>
#include <stdlib.h>

#include "sim/engine/rng.h"
#include "sim/engine/percentile.h"

struct sim_combo_spec sim_combo_spec_default(void)
{
	struct sim_combo_spec s = {
	    .p = core_combo_params_default(),
	    .fps = 1.0 / 0.0167,
	    .trace = SIM_COMBO_STABLE,
	    .rt_s = 0.0148,
	    .rt_lo_s = 0.012,
	    .rt_hi_s = 0.016,
	    .rt_mean_s = 0.0148,
	    .change_frames = 3.0,
	    .rt_share = 0.365,
	    .be_kernel_s = 0.0012,
	    .corun_gain = 0.137,
	    .step_s = 1e-5,
	    .schemes = (1u << SIM_COMBO_N_SCHEMES) - 1u,
	};
	s.p.eps = 0.0;
	return s;
}

const char *sim_combo_scheme_name(enum sim_combo_scheme s)
{
	static const char *const names[] = {"temporal", "relaxed", "integrated",
	                                    "adaptive"};
	return (unsigned)s < SIM_COMBO_N_SCHEMES ? names[s] : NULL;
}

/* The render time of the next frame, from the trace. */
struct trace_state {
	struct sim_rng rng;
	double level;
};

static double next_rt(const struct sim_combo_spec *sp, struct trace_state *t)
{
	if (sp->trace == SIM_COMBO_STABLE)
		return sp->rt_s;
	if (t->level <= 0.0 ||
	    sim_rng_uniform(&t->rng) * sp->change_frames < 1.0) {
		/* x = u^q in [0, 1] has mean 1 / (q + 1): the range's
		 * share the mean sits at. */
		double span = sp->rt_hi_s - sp->rt_lo_s;
		double q = span / (sp->rt_mean_s - sp->rt_lo_s) - 1.0;
		t->level =
		    sp->rt_lo_s + span * pow(sim_rng_uniform(&t->rng), q);
	}
	return t->level;
}

/* A BE kernel in flight. */
struct be_kernel {
	bool on;
	double work;  /* SM-seconds left */
	uint32_t sms; /* the SMs it holds; sm_total when it shares the GPU */
	bool corun;   /* launched into the render's RT phase (intra-SM) */
};

struct run_state {
	const struct sim_combo_spec *sp;
	enum sim_combo_scheme scheme;
	struct core_combo_params p; /* the scheme's view of the policy */
	struct core_combo_game game;
	struct core_combo_frame f;
	double period, deadline, start, next_start, last_shown;
	double cd_left, rt_left; /* the frame's work, SM-seconds */
	bool in_frame;
	struct be_kernel be;
	struct sim_combo_intervals intervals;
	/* The timeline (sim_combo.h): frames started, the current frame's
	 * sample (-1: not kept) and the SM-seconds BE held in it so far. */
	uint64_t frame_no;
	long open;
	double be_sm_s;
};

/* The render's and the kernel's predicted ends if the kernel starts now,
 * sharing the SMs with the RT phase at speed c (sim_combo.h). */
static void corun_ends(const struct run_state *s, double now, double c,
                       double *render_end, double *be_end)
{
	double total = (double)s->p.sm_total;
	double r = (s->cd_left + s->rt_left) / total; /* solo seconds */
	double k = s->sp->be_kernel_s;
	if (k <= r) {
		*be_end = now + k / c;
		*render_end = *be_end + (r - k);
	} else {
		*render_end = now + r / c;
		*be_end = *render_end + (k - r);
	}
}

static void launch(struct run_state *s, uint32_t sms, bool corun)
{
	s->be = (struct be_kernel){.on = true,
	                           .work = s->sp->be_kernel_s *
	                                   (double)s->p.sm_total,
	                           .sms = sms,
	                           .corun = corun};
}

/* Whether a new BE kernel starts now, and where. */
static void maybe_launch(struct run_state *s, double now, double c)
{
	if (s->be.on || s->f.hold_be)
		return;
	uint32_t total = s->p.sm_total;
	double last = s->deadline - s->p.margin_s;
	/* Integrated: back to back on the BE group, through the frame and
	 * its headroom alike (the render group's SMs are the game's). */
	if (s->f.scheme == CORE_COMBO_INTEGRATED) {
		if (s->f.be_sms == 0)
			return;
		double end = now + s->sp->be_kernel_s * (double)total /
		                       (double)s->f.be_sms;
		if (end <= last || core_combo_may_span(&s->p, &s->game,
		                                       s->sp->fps, s->f.split))
			launch(s, s->f.be_sms, false);
		return;
	}
	if (s->in_frame && s->scheme != SIM_COMBO_TEMPORAL &&
	    s->cd_left <= 0.0) {
		double render_end, be_end;
		corun_ends(s, now, c, &render_end, &be_end);
		if (core_combo_fits(&s->p, now, be_end - now, render_end,
		                    s->deadline))
			launch(s, total, true);
		return;
	}
	/* After the render: the kernel alone, if it ends in time. */
	if (!s->in_frame && now + s->sp->be_kernel_s <= last)
		launch(s, total, false);
}

bool sim_combo_intervals_push(struct sim_combo_intervals *iv, double x)
{
	if (iv->n == iv->cap) {
		size_t cap = iv->cap ? 2 * iv->cap : 4096;
		double *v = realloc(iv->v, cap * sizeof(*v));
		if (!v)
			return false;
		iv->v = v;
		iv->cap = cap;
	}
	iv->v[iv->n++] = x;
	return true;
}

bool sim_combo_frame_work(double *cd_left, double *rt_left, double w)
{
	if (*cd_left > 0.0) {
		*cd_left -= w;
		if (*cd_left < 0.0) {
			*rt_left += *cd_left;
			*cd_left = 0.0;
		}
	} else {
		*rt_left -= w;
	}
	return *cd_left <= 0.0 && *rt_left <= 0.0;
}

/* The current frame's sample, if kept, gets its BE figure at end_s. */
static void close_sample(struct run_state *s, struct sim_combo_timeline *tl,
                         double end_s)
{
	if (s->open >= 0 && end_s > s->start)
		tl->v[s->open].be_busy = s->be_sm_s / (end_s - s->start);
	s->open = -1;
	s->be_sm_s = 0.0;
}

static bool start_frame(struct run_state *s, struct trace_state *t, double now,
                        double last_rt, bool measured, struct sim_combo_run *r)
{
	double rt = next_rt(s->sp, t);
	if (last_rt > 0.0)
		core_combo_record(&s->p, &s->game, last_rt);
	s->f = core_combo_decide(&s->p, &s->game, s->sp->fps, rt, s->period);
	if (s->scheme == SIM_COMBO_TEMPORAL) {
		s->f.scheme = CORE_COMBO_RELAXED;
		s->f.hold_be = false;
	}
	double total = (double)s->p.sm_total;
	s->cd_left = rt * (1.0 - s->sp->rt_share) * total;
	s->rt_left = rt * s->sp->rt_share * total;
	/* On the grid: the step that starts it may come a hair after. */
	s->start = now - s->next_start < s->sp->step_s ? s->next_start : now;
	s->deadline = s->start + s->period;
	s->in_frame = true;
	if (measured) {
		r->frames++;
		r->held += s->f.hold_be;
		r->switches += s->f.switched;
		r->integrated_pct += s->f.scheme == CORE_COMBO_INTEGRATED;
	}
	enum sim_combo_scheme in_force =
	    s->scheme == SIM_COMBO_TEMPORAL        ? SIM_COMBO_TEMPORAL
	    : s->f.scheme == CORE_COMBO_INTEGRATED ? SIM_COMBO_INTEGRATED
	                                           : SIM_COMBO_RELAXED;
	struct sim_combo_sample x = {.t_s = s->start,
	                             .rt_s = rt,
	                             .split = s->f.split,
	                             .be_sms = s->f.be_sms,
	                             .scheme = (uint8_t)in_force,
	                             .held = s->f.hold_be};
	return sim_combo_timeline_add(&r->timeline, s->frame_no++, &x,
	                              &s->open);
}

/* The SMs the render has this step and its speed on them: its group
 * when bound, else whatever a bound BE kernel leaves; a co-run shares
 * every SM at speed c. */
static void game_share(const struct run_state *s, double c, double total,
                       double *sms, double *speed)
{
	*sms = 0.0;
	*speed = 1.0;
	if (!s->in_frame)
		return;
	bool bound = s->f.scheme == CORE_COMBO_INTEGRATED && !s->f.hold_be;
	double held = s->be.on && !s->be.corun ? (double)s->be.sms : 0.0;
	*sms = bound ? fmin((double)s->f.split, total - held) : total - held;
	if (s->be.on && s->be.corun)
		*speed = c;
}

/* The frame in progress after w of work (SM-seconds) in the step from
 * now; when it ends, its interval and whether it was late are counted.
 * false when out of memory. */
static bool render_step(struct run_state *s, double now, double dt, double w,
                        bool measured, struct sim_combo_run *r, bool *ended)
{
	*ended = false;
	if (!sim_combo_frame_work(&s->cd_left, &s->rt_left, w))
		return true;
	/* A frame is late past the step that holds its deadline: the model
	 * cannot tell finer (eps 0 sizes a split to end right on the
	 * deadline). */
	bool ok = true;
	double end = now + dt;
	bool late = end > s->deadline + dt;
	double shown = late ? end : s->deadline;
	if (measured) {
		if (late)
			r->late_pct += 1.0;
		if (s->last_shown > 0.0)
			ok = sim_combo_intervals_push(&s->intervals,
			                              shown - s->last_shown);
	}
	if (s->open >= 0)
		r->timeline.v[s->open].render_s = end - s->start;
	s->last_shown = shown;
	s->in_frame = false;
	s->next_start = shown;
	*ended = true;
	return ok;
}

/* The BE kernel's work in one step (at speed c while it co-runs with a
 * frame). */
static void be_step(struct run_state *s, double dt, double c, bool measured,
                    struct sim_combo_run *r)
{
	if (!s->be.on)
		return;
	double speed = s->be.corun && s->in_frame ? c : 1.0;
	s->be_sm_s += (double)s->be.sms * dt;
	s->be.work -= (double)s->be.sms * speed * dt;
	if (s->be.work <= 0.0) {
		s->be.on = false;
		if (measured)
			r->be_kernels += 1.0;
	}
}

/* The run's means from its counts (over the measured frames). */
static void finish_run(const struct run_state *s, double duration,
                       double warmup, struct sim_combo_run *r)
{
	if (r->frames == 0)
		return;
	double n = (double)r->frames;
	r->kernels_per_frame = r->be_kernels / n;
	r->fps_mean = n / (duration - warmup);
	r->late_pct = 100.0 * r->late_pct / n;
	r->integrated_pct = 100.0 * r->integrated_pct / n;
	double p99 = sim_percentile(s->intervals.v, s->intervals.n, 99.0);
	r->fps_p99 = p99 > 0.0 ? 1.0 / p99 : 0.0;
}

static bool run_one(const struct sim_combo_spec *sp,
                    enum sim_combo_scheme scheme, double duration,
                    double warmup, uint64_t seed, struct sim_combo_run *r)
{
	struct run_state s = {
	    .sp = sp, .scheme = scheme, .p = sp->p, .open = -1};
	/* Forced schemes: the policy with Eq. 3's threshold at either end. */
	if (scheme == SIM_COMBO_INTEGRATED)
		s.p.stable_spread = INFINITY;
	else if (scheme != SIM_COMBO_ADAPTIVE)
		s.p.stable_spread = -1.0;
	s.period = 1.0 / sp->fps;
	struct trace_state t = {0};
	sim_rng_seed(&t.rng, seed);
	*r = (struct sim_combo_run){.scheme = scheme};
	r->timeline.sm_total = sp->p.sm_total;
	r->timeline.period_s = s.period;

	const double c = 1.0 / (2.0 * (1.0 - sp->corun_gain));
	const double total = (double)sp->p.sm_total;
	const double dt = sp->step_s;
	double rt_done = 0.0; /* the last frame's render time (whole GPU) */
	double frame_rt = 0.0;
	bool ok = true;
	for (double now = 0.0; now < duration && ok; now += dt) {
		bool measured = now >= warmup;
		if (!s.in_frame && now >= s.next_start) {
			close_sample(&s, &r->timeline, now);
			ok = start_frame(&s, &t, now, rt_done, measured, r);
			frame_rt = (s.cd_left + s.rt_left) / total;
		}
		maybe_launch(&s, now, c);
		double game_sms, game_speed;
		game_share(&s, c, total, &game_sms, &game_speed);
		if (s.in_frame) {
			bool ended;
			bool rok =
			    render_step(&s, now, dt, game_sms * game_speed * dt,
			                measured, r, &ended);
			ok = ok && rok;
			if (ended)
				rt_done = frame_rt;
		}
		be_step(&s, dt, c, measured, r);
	}
	close_sample(&s, &r->timeline, duration);
	if (ok)
		finish_run(&s, duration, warmup, r);
	free(s.intervals.v);
	return ok;
}

bool sim_combo_run(const struct sim_combo_spec *spec, double duration_s,
                   double warmup_s, uint64_t seed, struct sim_combo_result *out)
{
	*out = (struct sim_combo_result){0};
	if (!spec->on || !(spec->fps > 0.0) || spec->p.sm_total == 0 ||
	    !(spec->step_s > 0.0) || !(duration_s > warmup_s))
		return false;
	for (int k = 0; k < SIM_COMBO_N_SCHEMES; k++) {
		if (!(spec->schemes & (1u << k)))
			continue;
		if (!run_one(spec, (enum sim_combo_scheme)k, duration_s,
		             warmup_s, seed, &out->runs[out->n_runs])) {
			sim_combo_free(out);
			return false;
		}
		out->n_runs++;
	}
	return true;
}
