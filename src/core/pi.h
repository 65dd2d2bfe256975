/* PI controller on the log-transformed frame rate (vGASA Sec. 3.1).
 *
 * vGASA linearises F_out = m * T_sleep^-n (Eq. 2) by taking logarithms
 * (Eq. 5): in the log domain the plant G'_p(z) is 1, and the PI controller
 * G_c(z) = kp + ki z/(z-1) (Eq. 3) closes the loop with the pole
 * z = (kp + 1) / (kp + ki + 1) (Eq. 7), stable while |z| < 1 (Eq. 8).
 *
 * Baton's controller adds the reference as feed-forward: the control input
 * is ln F = ln r + kp e_k + ki I_k, with e_k = ln r - ln F_out and
 * I_k = I_{k-1} + e_k. The feed-forward is a constant offset in the log
 * domain, so the closed-loop pole stays the one of Eq. 7, but a new reference
 * takes effect at once instead of being integrated up from zero; the PI part
 * only removes what the pacer alone gets wrong (timer overshoot, contention,
 * missed deadlines).
 *
 * The measurement of step k is the plant's answer to the command of step
 * k-1, so the error is taken against the reference that command aimed at:
 * e_k = ln r_{k-1} - ln F_out. For a constant reference this is vGASA's
 * error; when the policy moves the reference (FSA, ESA, or a new tenant that
 * was running free) it keeps the step from being mistaken for a plant error
 * and wound into the integral. The first step after a reset has no previous
 * reference and uses the feed-forward alone.
 *
 * The output is clamped to [r / max_ratio, r * max_ratio]. Anti-windup by
 * conditional integration: a step whose output saturates does not grow the
 * integral further in the saturated direction. */
#pragma once

#include <stdbool.h>

struct core_pi_gains {
	double kp;        /* proportional gain; vGASA settles on 0.1 */
	double ki;        /* integral gain; vGASA settles on 0.05 */
	double max_ratio; /* output clamp around the reference, > 1 (e.g. 4) */
};

/* Caller-allocated; a zeroed struct is a fresh controller. */
struct core_pi {
	double integral; /* I_k, sum of log errors */
	double last_ref; /* reference of the previous step (0 before one) */
	double last_out; /* last control input F, in FPS (0 before the first) */
	bool saturated;  /* last output was clamped */
};

/* The gains vGASA settles on: kp = 0.1, ki = 0.05, max_ratio = 4. */
struct core_pi_gains core_pi_default_gains(void);

void core_pi_reset(struct core_pi *pi);

/* Closed-loop pole of Eq. 7 for these gains. */
double core_pi_pole(const struct core_pi_gains *g);

/* One controller step. ref_fps > 0 is the reference r, measured_fps the
 * achieved rate F_out of the last step. measured_fps <= 0 means "no
 * measurement": the integral is left alone and the output is the
 * feed-forward plus the current integral term. ref_fps <= 0 resets the
 * controller and returns 0.
 *
 * can_raise is false when the pacer delayed no frame of the last step: the
 * game ran flat out (a stall, a scene too heavy, a stopped process), so a
 * higher command cannot raise F_out. The actuator, the sleep, is at its
 * limit of zero; a positive error is then neither integrated nor acted on,
 * or a game that stalls would come back with a wound-up target and burst.
 * Returns the control input F in FPS, which the pacer turns into a frame
 * period. */
double core_pi_update(struct core_pi *pi, const struct core_pi_gains *g,
                      double ref_fps, double measured_fps, bool can_raise);
