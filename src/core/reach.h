/* Can a tenant reach the rate it is asked for?
 *
 * The pacer can only hold a game back: it sleeps before Present. When a
 * game runs slower than its reference while the pacer hardly sleeps,
 * something else limits it (its GPU share, its own CPU thread, a frame that
 * is latency-bound under contention), and raising its pacing target does
 * nothing but wind the controller up. Each epoch the shim reports how long
 * the pacer slept; over the time the epoch's frames spanned (frames / F_out)
 * that is the fraction s of the time the pacer held the game back, so
 * without the pacer it could run at most at
 *
 *     reach = F_out / (1 - s).
 *
 * Each epoch with frames gives one such sample; at a game's rate of 10 FPS
 * and 100-ms epochs, one frame's. reach_fps smooths them (over
 * fps_smooth_s), which is the game's mean frame: a game whose frames
 * mostly take half their period but one in ten takes more than all of it
 * reads twice its rate and still misses a frame a second. reach_low_fps
 * keeps its slow frames: it takes a lower sample at once and rises toward
 * higher ones with the time constant reach_low_s, so it reads the slowest
 * frame of the last few seconds (the quality stage keeps a level only
 * while those would make its period there; quality_stage.c).
 *
 * A tenant whose smoothed F_out stays under ref * (1 - reach_tol) for
 * reach_hold_s seconds in a row, while its smoothed reach is under that too
 * or the PI loop already asks more than ref * (1 + reach_tol) of it, is
 * "limited" (core_tenant.limited): status and metrics report it, the PI
 * loop stops winding its target up, ESA lowers its common reference to
 * what it achieves (policy_esa.c).
 *
 * The budget gate (gate.h) holds a capped game back too, in the same wait
 * before Present; the shim reports its share apart (shm.h gate_us, the
 * core's gate_s), and sleep_s is the pacer's alone. A tenant whose gate
 * held its frames for more than a third of reach_tol of an epoch's span
 * is "cap-bound" (core_tenant.cap_bound) until reach_hold_s of epochs
 * with frames pass without that: its own cap bounds its rate, not the
 * machine. So it is never limited (ESA's ceiling must not come down to
 * what a cap allows one tenant, FSA gives it nothing: no one else's share
 * gets past its gate), and the PI loop integrates no positive error for
 * it (a target toward a rate its cap forbids would only wind up). Its
 * reach is the rate under its cap: in an epoch the gate held, F_out (the
 * gate would take up any sleep the pacer gave back). */
#pragma once

#include <stdbool.h>

#include "core/policy.h"

/* SA's reference, the floor ESA and FSA keep: sla * (1 + sla_margin). */
double core_sla_ref(const struct core_params *p, const struct core_tenant *t);

/* The rate the tenant is held to: its pinned rate, else the policy's
 * reference of the last tick; 0 = none (it runs free). */
double core_reach_ref(const struct core_tenant *t);

/* Fraction of the last epoch the pacer held the game back, [0, 1]; < 0 if
 * the epoch says nothing (no frame, no F_out). */
double core_reach_sleep_fraction(const struct core_tenant *t);

/* Fraction of the last epoch's span the budget gate held the game, [0, 1];
 * < 0 if the epoch says nothing. */
double core_reach_gate_fraction(const struct core_tenant *t);

/* Folds the last epoch into cap_bound, reach_fps, short_epochs and limited.
 * Call once per tick, before the policy sets new references. */
void core_reach_update(const struct core_params *p, struct core_tenant *t);

/* Whether a higher pacing target can raise F_out: the pacer slept more than
 * a third of reach_tol of the last epoch and the tenant is not cap-bound.
 * core_pi_update's can_raise. */
bool core_reach_can_raise(const struct core_params *p,
                          const struct core_tenant *t);
