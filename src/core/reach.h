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
 * A tenant whose smoothed F_out stays under ref * (1 - reach_tol) for
 * reach_hold_s seconds in a row, while its smoothed reach is under that too
 * or the PI loop already asks more than ref * (1 + reach_tol) of it, is
 * "limited" (core_tenant.limited): status and metrics report it, the PI
 * loop stops winding its target up, ESA lowers its common reference to
 * what it achieves (policy_esa.c). */
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

/* Folds the last epoch into reach_fps, short_epochs and limited. Call once
 * per tick, before the policy sets new references. */
void core_reach_update(const struct core_params *p, struct core_tenant *t);

/* Whether a higher pacing target can raise F_out: the pacer slept more than
 * a third of reach_tol of the last epoch. core_pi_update's can_raise. */
bool core_reach_can_raise(const struct core_params *p,
                          const struct core_tenant *t);
