#include "core/pi.h"

#include <math.h>

struct core_pi_gains core_pi_default_gains(void)
{
	/* vGASA Sec. 4.2: kp = 0.1 converges fastest with ki = 0, and adding
	 * ki = 0.05 removes the steady-state error (Fig. 8a, 8b). */
	return (struct core_pi_gains){.kp = 0.1, .ki = 0.05, .max_ratio = 4.0};
}

void core_pi_reset(struct core_pi *pi)
{
	*pi = (struct core_pi){0};
}

double core_pi_pole(const struct core_pi_gains *g)
{
	/* Eq. 7 */
	return (g->kp + 1.0) / (g->kp + g->ki + 1.0);
}

double core_pi_update(struct core_pi *pi, const struct core_pi_gains *g,
                      double ref_fps, double measured_fps, bool can_raise)
{
	if (!(ref_fps > 0.0) || !isfinite(ref_fps)) {
		core_pi_reset(pi);
		return 0.0;
	}
	double ratio = g->max_ratio > 1.0 ? g->max_ratio : 1.0;
	double log_ref = log(ref_fps);
	double lo = log_ref - log(ratio), hi = log_ref + log(ratio);

	/* Error in the log domain, against what the last command aimed at
	 * (see pi.h). No previous step, no measurement: no error. */
	double e = 0.0;
	if (pi->last_ref > 0.0 && measured_fps > 0.0 && isfinite(measured_fps))
		e = log(pi->last_ref) - log(measured_fps);
	pi->last_ref = ref_fps;
	if (e > 0.0 && !can_raise)
		e = 0.0; /* see can_raise in pi.h */

	/* Eq. 3 in positional form, I_k = I_{k-1} + e_k, with the reference
	 * fed forward (see pi.h). */
	double integral = pi->integral + e;
	double x = log_ref + g->kp * e + g->ki * integral;

	pi->saturated = false;
	if (x > hi || x < lo) {
		pi->saturated = true;
		/* Conditional integration: keep this step's error out of the
		 * integral when it pushes further into the limit. */
		if ((x > hi && e > 0.0) || (x < lo && e < 0.0))
			integral = pi->integral;
		x = x > hi ? hi : lo;
	}
	pi->integral = integral;
	pi->last_out = exp(x);
	return pi->last_out;
}
