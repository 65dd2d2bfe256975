#include "core/reach.h"

#include <math.h>

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

double core_reach_sleep_fraction(const struct core_tenant *t)
{
	if (t->frames == 0 || !(t->fps > 0.0) || !isfinite(t->fps))
		return -1.0;
	double span = (double)t->frames / t->fps;
	double s = t->sleep_s > 0.0 && isfinite(t->sleep_s) ? t->sleep_s : 0.0;
	s /= span;
	return s < 1.0 ? s : 1.0;
}

void core_reach_update(const struct core_params *p, struct core_tenant *t)
{
	double s = core_reach_sleep_fraction(t);
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
	t->short_epochs = short_of ? t->short_epochs + 1 : 0;
	/* epochs, not seconds, are counted: no rounding drift */
	t->limited = short_of && (double)t->short_epochs * p->epoch_s >=
	                             p->reach_hold_s - 1e-9;
}

bool core_reach_can_raise(const struct core_params *p,
                          const struct core_tenant *t)
{
	if (t->paced_frames == 0)
		return false;
	return core_reach_sleep_fraction(t) > p->reach_tol / 3.0;
}
