#include "core/reach.h"

#include <math.h>
#include <stdint.h>

/* Sleeping nearly all the time says the game could go far faster, but
 * F_out / (1 - s) would blow up: cap the headroom at 20x. */
#define MAX_SLEEP_FRACTION 0.95

double core_sla_ref(const struct core_params *p, const struct core_tenant *t)
{
	return t->sla_fps * (1.0 + p->sla_margin);
}

double core_reach_ref(const struct core_tenant *t)
{
	if (t->fixed_fps > 0.0)
		return t->fixed_fps;
	return t->ref_fps > 0.0 ? t->ref_fps : 0.0;
}

/* A wait summed over the epoch's frames as a fraction of the time they
 * spanned (frames / F_out), [0, 1]; < 0 when the epoch says nothing. */
static double wait_fraction(const struct core_tenant *t, double wait_s)
{
	if (t->frames == 0 || !(t->fps > 0.0) || !isfinite(t->fps))
		return -1.0;
	double span = (double)t->frames / t->fps;
	double s = wait_s > 0.0 && isfinite(wait_s) ? wait_s : 0.0;
	s /= span;
	return s < 1.0 ? s : 1.0;
}

double core_reach_sleep_fraction(const struct core_tenant *t)
{
	return wait_fraction(t, t->sleep_s);
}

double core_reach_gate_fraction(const struct core_tenant *t)
{
	return wait_fraction(t, t->gate_s);
}

/* cap_bound (reach.h): true when this epoch was gated. Set by an epoch whose
 * gate waits pass a third of reach_tol of its span (the threshold at which the
 * pacer's sleep counts, core_reach_can_raise), kept until reach_hold_s of
 * epochs with frames without: a game at its cap sees the gate on most frames
 * but not all (the bucket's credit absorbs its jitter), and the status must not
 * flicker. An epoch without frames says nothing and changes nothing. */
static bool update_cap_bound(const struct core_params *p, struct core_tenant *t)
{
	double g = core_reach_gate_fraction(t);
	if (g < 0.0)
		return false;
	if (g > p->reach_tol / 3.0) {
		t->cap_bound = true;
		t->ungated_epochs = 0;
		return true;
	}
	if (t->ungated_epochs < UINT32_MAX)
		t->ungated_epochs++;
	if ((double)t->ungated_epochs * p->epoch_s >= p->reach_hold_s - 1e-9)
		t->cap_bound = false;
	return false;
}

/* reach_low_fps (reach.h): down at once, up over reach_low_s. */
static void follow_low(const struct core_params *p, struct core_tenant *t,
                       double sample)
{
	if (!(p->reach_low_s > 0.0)) {
		t->reach_low_fps = 0.0;
		return;
	}
	if (!(t->reach_low_fps > 0.0) || sample < t->reach_low_fps) {
		t->reach_low_fps = sample;
		return;
	}
	double a = 1.0 - exp(-p->epoch_s / p->reach_low_s);
	t->reach_low_fps += a * (sample - t->reach_low_fps);
}

void core_reach_update(const struct core_params *p, struct core_tenant *t)
{
	/* In an epoch the gate held, the pacer's sleep is no headroom: the
	 * frames it held present when the gate opens (the gate's wait
	 * starts where the pacer's ends), so the reach is F_out. */
	bool gated = update_cap_bound(p, t);
	double s = gated ? 0.0 : core_reach_sleep_fraction(t);
	if (s >= 0.0) {
		if (s > MAX_SLEEP_FRACTION)
			s = MAX_SLEEP_FRACTION;
		double sample = t->fps / (1.0 - s);
		if (t->reach_fps <= 0.0 || !(p->fps_smooth_s > 0.0)) {
			t->reach_fps = sample;
		} else {
			double a = 1.0 - exp(-p->epoch_s / p->fps_smooth_s);
			t->reach_fps += a * (sample - t->reach_fps);
		}
		follow_low(p, t, sample);
	}
	/* Short: under the reference by more than the tolerance, and not
	 * for the pacer's doing: it hardly sleeps, or the PI loop already
	 * asks for more than the reference (a game that runs at its
	 * capacity with frame-time jitter sleeps on its fast frames and
	 * loses its slow ones: it never reaches the target, yet sleeps). */
	double ref = core_reach_ref(t), lo = ref * (1.0 - p->reach_tol);
	bool short_of = ref > 0.0 && t->fps_smooth > 0.0 &&
	                t->fps_smooth < lo &&
	                ((t->reach_fps > 0.0 && t->reach_fps < lo) ||
	                 t->target_fps >= ref * (1.0 + p->reach_tol));
	/* Held under its reference by its own cap: not limited (reach.h). */
	if (t->cap_bound)
		short_of = false;
	t->short_epochs = short_of ? t->short_epochs + 1 : 0;
	/* epochs, not seconds, are counted: no rounding drift */
	t->limited = short_of && (double)t->short_epochs * p->epoch_s >=
	                             p->reach_hold_s - 1e-9;
}

bool core_reach_can_raise(const struct core_params *p,
                          const struct core_tenant *t)
{
	if (t->paced_frames == 0 || t->cap_bound)
		return false;
	return core_reach_sleep_fraction(t) > p->reach_tol / 3.0;
}
