/* Fair SLA-Aware scheduling, vGASA Algorithm 2: games above the criterion
 * give up GPU share, in equal parts, to the games below it.
 *
 * Per epoch, on F_out smoothed over fps_smooth_s (controller.c) rather than
 * the raw per-epoch rate:
 *
 * - a tenant is "below" when its F_out is under sla * (1 + fsa_guard): it is
 *   caught while still above the criterion, so the reallocation lands before
 *   the SLA is missed. It runs free and needs k_i * (floor_i - F_out_i) more
 *   of the GPU to reach the floor, floor_i = sla_i * (1 + 2 fsa_guard)
 *   (CalcGPUResource);
 * - the needs add up and are split evenly over the n donors, the tenants
 *   above their floor: donor j gives need / n, so its reference becomes
 *   F_out_j - (need / n) / k_j (calcFPS, the reverse of CalcGPUResource),
 *   but never less than its floor: FSA never pushes a donor under the
 *   criterion;
 * - a reallocation needs a few frames to show in F_out, so the next one
 *   waits fsa_hold_s;
 * - while no tenant is below, the donors' references grow (relax, below:
 *   fast when every game is well above its floor, by fsa_relax a second
 *   when one is just over it), so the share they gave is taken back once
 *   it is not needed, and a reference that no longer binds (well above
 *   what the donor could reach running free) is dropped: the donor runs
 *   free again.
 *
 * The gap between the detection level and the donors' floor (one
 * fsa_guard) keeps a donor held at its floor from being taken for a game in
 * need because of measurement noise.
 *
 * Two rules vGASA does not have, because its share model is not what limits
 * a game on a real host (docs/runtime.md, "FSA gets the share to the game
 * below whatever its bottleneck"; measured on llvmpipe: a game at 24-30 FPS
 * while the donors lost 5-15 % and took it back within a second):
 *
 * - the need is a model's guess (k_i * missing FPS assumes the game's rate
 *   is bound by its share); when a game is still below after a
 *   reallocation, the next one doubles what it asks (fsa_gain, up to
 *   FSA_GAIN_MAX), so the donors give what the game needs whatever its
 *   bottleneck, down to their floors;
 * - the donors keep their references, neither relaxed nor dropped, until
 *   every free-running game is at or above its floor, not merely above the
 *   detection level: a game just over sla * (1 + fsa_guard) is one noisy
 *   second from the SLA; and a reference is dropped only once it would not
 *   bind were the donor free (its reach), not when a busy moment lowers its
 *   F_out: vkcube, capped at 300 FPS, dipped under 270 and went back to
 *   500;
 * - a newcomer, in its first fsa_hold_s * 2 and not yet at its floor,
 *   counts as below and needs at least a fair share (the tenants' measured
 *   shares over their number, less its own): its cost is not known yet,
 *   and joining free-running tenants it would otherwise wait a second or
 *   two under the SLA for the detection and the escalation. */
#include <math.h>

#include "core/policy.h"

/* A tenant held under its SLA by its own cap (reach.h: cap_bound) is not
 * below: no share the donors give gets past its gate. */
static bool is_below(const struct core_params *p, const struct core_tenant *t)
{
	return !t->cap_bound && t->fps_smooth > 0.0 &&
	       t->fps_smooth < t->sla_fps * (1.0 + p->fsa_guard);
}

static double floor_fps(const struct core_params *p,
                        const struct core_tenant *t)
{
	return t->sla_fps * (1.0 + 2.0 * p->fsa_guard);
}

static bool is_new(const struct core_params *p, const struct core_tenant *t)
{
	return (double)t->epochs * p->epoch_s <= 2.0 * p->fsa_hold_s &&
	       !(t->fps_smooth >= floor_fps(p, t));
}

/* The share of the GPU a tenant takes now, 0 if unknown. */
static double share(const struct core_tenant *t)
{
	return t->k > 0.0 && t->fps_smooth > 0.0 ? t->k * t->fps_smooth : 0.0;
}

#define FSA_GAIN_MAX 16.0

/* What the free-running games need and can give this tick. */
struct fsa_census {
	double need;   /* GPU time the games below their floor lack */
	size_t below;  /* games below their floor, or new */
	size_t donors; /* games above their floor with a known cost */
	bool safe;     /* every free-running game at or above its floor */
};

/* Counts the games below their floor (their references dropped: they
 * run free until a reallocation) and what they need, and the donors. */
static struct fsa_census census(const struct core_params *p,
                                struct core_tenant *t, size_t n)
{
	struct fsa_census c = {.safe = true};
	double total = 0.0;
	size_t active = 0;
	for (size_t i = 0; i < n; i++) {
		if (t[i].fixed_fps > 0.0)
			continue;
		active++;
		total += share(&t[i]);
	}
	for (size_t i = 0; i < n; i++) {
		if (t[i].fixed_fps > 0.0)
			continue;
		if (!(t[i].ref_fps > 0.0) && !t[i].cap_bound &&
		    t[i].fps_smooth > 0.0 &&
		    t[i].fps_smooth < floor_fps(p, &t[i]))
			c.safe = false;
		if (is_new(p, &t[i])) {
			c.below++;
			c.safe = false;
			t[i].ref_fps = 0.0;
			double fair = total / (double)active - share(&t[i]);
			double mine = share(&t[i]) > 0.0
			                  ? t[i].k * (floor_fps(p, &t[i]) -
			                              t[i].fps_smooth)
			                  : 0.0;
			c.need += fair > mine ? fair : mine;
		} else if (is_below(p, &t[i])) {
			c.below++;
			t[i].ref_fps = 0.0;
			c.need +=
			    t[i].k * (floor_fps(p, &t[i]) - t[i].fps_smooth);
		} else if (t[i].fps_smooth > floor_fps(p, &t[i]) &&
		           t[i].k > 0.0) {
			c.donors++;
		}
	}
	return c;
}

/* Each donor gives an equal part of the need (times the gain, which
 * doubles while the need persists), never going under its floor. */
static void donate(const struct core_params *p, struct core_gpu *gpu,
                   struct core_tenant *t, size_t n, const struct fsa_census *c)
{
	if (gpu->fsa_hold_s > 0.0 || c->donors == 0 || !(c->need > 0.0))
		return;
	double give = c->need * gpu->fsa_gain / (double)c->donors;
	gpu->fsa_gain = fmin(2.0 * gpu->fsa_gain, FSA_GAIN_MAX);
	for (size_t i = 0; i < n; i++) {
		struct core_tenant *d = &t[i];
		if (d->fixed_fps > 0.0 || is_below(p, d) || is_new(p, d) ||
		    !(d->fps_smooth > floor_fps(p, d)) || !(d->k > 0.0))
			continue;
		/* a donor already capped gives from its cap: a reallocation
		 * never raises one */
		double from = d->fps_smooth;
		if (d->ref_fps > 0.0 && d->ref_fps < from)
			from = d->ref_fps;
		double want = from - give / d->k;
		double fl = floor_fps(p, d);
		d->ref_fps = want > fl ? want : fl;
	}
	gpu->fsa_hold_s = p->fsa_hold_s;
}

/* How far the tightest game FSA may have to help is above its floor,
 * relative: the least of fps_smooth / floor - 1 over the free-running
 * games (a held donor's rate is its reference's doing, not a need), or over
 * every game when all are held. 0 when no game has a rate yet. */
static double least_headroom(const struct core_params *p,
                             const struct core_tenant *t, size_t n)
{
	double least[2] = {INFINITY, INFINITY}; /* [0] free, [1] any */
	for (size_t i = 0; i < n; i++) {
		if (t[i].fixed_fps > 0.0 || t[i].cap_bound ||
		    !(t[i].fps_smooth > 0.0))
			continue;
		double h = t[i].fps_smooth / floor_fps(p, &t[i]) - 1.0;
		least[1] = fmin(least[1], h);
		if (!(t[i].ref_fps > 0.0))
			least[0] = fmin(least[0], h);
	}
	double h = isfinite(least[0]) ? least[0] : least[1];
	return isfinite(h) ? h : 0.0;
}

/* With every game safe, the donors' references relax upwards, each
 * dropped once it would no longer bind. They grow, per fsa_hold_s (the
 * time a reallocation takes to show), by the tightest game's headroom over
 * its floor less a margin (2 fsa_guard, twice the gap between detection
 * and floor), split evenly over the donors, and by at least fsa_relax a second.
 * So a donor takes back at once what nobody is near needing (the others at
 * twice their floor: two donors held at a fifth of their reach run free again
 * in about two seconds, where fsa_relax alone took 85), and as slowly as before
 * when a game is just over its floor, where the release itself may push
 * it back under. */
static void relax(const struct core_params *p, struct core_gpu *gpu,
                  struct core_tenant *t, size_t n)
{
	gpu->fsa_gain = 1.0;
	size_t donors = 0;
	for (size_t i = 0; i < n; i++)
		donors += !(t[i].fixed_fps > 0.0) && t[i].ref_fps > 0.0;
	if (donors == 0)
		return;
	double period = fmax(p->fsa_hold_s, p->epoch_s);
	/* the tightest game's headroom beyond the margin */
	double spare = least_headroom(p, t, n) - 2.0 * p->fsa_guard;
	double step = fmax(p->fsa_relax * p->epoch_s,
	                   spare / (double)donors * p->epoch_s / period);
	for (size_t i = 0; i < n; i++) {
		struct core_tenant *d = &t[i];
		if (d->fixed_fps > 0.0 || !(d->ref_fps > 0.0))
			continue;
		d->ref_fps *= 1.0 + step;
		/* Dropped once it would not bind even were the donor free:
		 * against its reach (reach.h), not its F_out, which a busy
		 * moment lowers while the donor could still run far above
		 * its cap. */
		double can = d->reach_fps > 0.0 ? d->reach_fps : d->fps_smooth;
		if (can > 0.0 && d->ref_fps > can * (1.0 + 2.0 * p->fsa_guard))
			d->ref_fps = 0.0;
	}
}

static void assign_fsa(const struct core_params *p, struct core_gpu *gpu,
                       struct core_tenant *t, size_t n)
{
	if (gpu->fsa_hold_s > 0.0)
		gpu->fsa_hold_s -= p->epoch_s;
	if (gpu->fsa_gain < 1.0)
		gpu->fsa_gain = 1.0;
	struct fsa_census c = census(p, t, n);
	if (c.below > 0)
		donate(p, gpu, t, n, &c);
	else if (c.safe)
		relax(p, gpu, t, n);
}

const struct core_policy core_policy_fsa = {
    .name = "fsa",
    .summary = "fair SLA-aware (vGASA Alg. 2): games above the SLA give "
               "GPU share, evenly, to those below",
    .assign = assign_fsa,
};
