#include "core/pacing.h"

double core_pacing_sleep_relative(double fps, double cpu_s, double gpu_s)
{
	if (!(fps > 0.0))
		return 0.0;
	/* vGASA Eq. 1, in seconds. */
	double sleep = 1.0 / fps - cpu_s - gpu_s;
	return sleep > 0.0 ? sleep : 0.0;
}

void core_pacer_reset(struct core_pacer *p)
{
	*p = (struct core_pacer){0};
}

/* A constant offset only shifts the grid's phase; every change of it moves
 * one wake-up, and so one interval, by as much. A prediction made from
 * recent GPU times (the median of the last few) moves with their
 * frame-to-frame noise, which the next frame does not repeat: following it
 * frame by frame adds that noise to the intervals. Measured on glxgears /
 * llvmpipe, median |interval - period| where the frame is released: 12-21
 * us with the raw median, 8-10 us smoothed over 16 frames, 2 us with no
 * offset or this dead band; where it is shown, no better either way. So
 * the offset holds until the prediction leaves the band (a scene change),
 * then moves at once. */
static int64_t held_offset(struct core_pacer *p, int64_t pred)
{
	int64_t band = p->offset_ns / 4;
	if (band < CORE_PACER_DEADBAND_NS)
		band = CORE_PACER_DEADBAND_NS;
	if (pred > p->offset_ns + band || pred < p->offset_ns - band ||
	    (pred == 0) != (p->offset_ns == 0))
		p->offset_ns = pred;
	return p->offset_ns;
}

int64_t core_pacer_next_wake(struct core_pacer *p, int64_t now_ns,
                             int64_t period_ns, int64_t gpu_pred_ns)
{
	if (period_ns <= 0) {
		p->anchored = false;
		return now_ns;
	}
	if (gpu_pred_ns < 0)
		gpu_pred_ns = 0;
	gpu_pred_ns = held_offset(p, gpu_pred_ns);
	/* The earliest this frame can display if presented now. */
	int64_t earliest = now_ns + gpu_pred_ns;
	if (p->anchored) {
		int64_t deadline = p->deadline_ns + period_ns;
		if (deadline >= earliest) {
			p->deadline_ns = deadline;
			return deadline - gpu_pred_ns;
		}
		/* Late: re-anchor below rather than burst to catch up. */
	}
	p->anchored = true;
	p->deadline_ns = earliest;
	return now_ns;
}

int64_t core_pacer_steer(struct core_pacer *p, int64_t now_ns, int64_t wake_ns,
                         int64_t period_ns, int64_t phase_ns)
{
	if (phase_ns <= 0 || period_ns <= 0 || !p->anchored)
		return wake_ns;
	int64_t d = wake_ns - phase_ns;
	if (d > CORE_PACER_STEER_MAX_AGE_NS || d < -CORE_PACER_STEER_MAX_AGE_NS)
		return wake_ns;
	/* How far past the nearest phase point the wake falls, in
	 * (-period/2, period/2]: positive, it should come earlier. */
	int64_t e = d % period_ns;
	if (e < 0)
		e += period_ns;
	if (e > period_ns / 2)
		e -= period_ns;
	if (e <= CORE_PACER_STEER_DEADBAND_NS &&
	    e >= -CORE_PACER_STEER_DEADBAND_NS)
		return wake_ns;
	int64_t step = period_ns / CORE_PACER_STEER_DIV;
	if (step < 1)
		step = 1;
	int64_t move = e > step ? step : e < -step ? -step : e;
	int64_t wake = wake_ns - move;
	if (wake < now_ns)
		wake = now_ns > wake_ns ? wake_ns : now_ns;
	p->deadline_ns -= wake_ns - wake;
	return wake;
}
