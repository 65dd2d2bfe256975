/* The quality stage's budget (quality_stage.h, Baton mode): what the
 * games' levels may cost in all. util_target less the load no tenant
 * reports, under a ceiling learned where the estimates prove too generous,
 * less the headroom the games' joint cost noise asks for; and each game's
 * weight in dJay's knapsack. Split from quality_stage.c, which runs the
 * stage. Pure, as all of src/core. */
#pragma once

#include <stddef.h>

#include "core/policy.h"
#include "core/quality_opt.h"

/* New levels take this long to show in the games' rates: no ceiling cut
 * within it of a level change or a join. */
#define CORE_QUALITY_SETTLE_S 1.0

/* An item's weight in dJay's Eq. 2: the rate the game is held to; 1 in
 * paper mode. */
double core_quality_item_weight(const struct core_params *p,
                                const struct core_tenant *t);

/* Each tick, before the knapsack: the ceiling follows games short of
 * their rate while the GPU is busy, and the joint noise's spread is
 * measured over the tick's epochs. */
void core_quality_learn_ceiling(const struct core_params *p,
                                struct core_gpu *gpu,
                                const struct core_tenant *t, size_t n);
void core_quality_track_spread(const struct core_params *p,
                               struct core_gpu *gpu, struct core_tenant *t,
                               size_t n);

/* The knapsack's parameters with this tick's budget. */
struct quality_params core_quality_budget_for(const struct core_params *p,
                                              const struct core_gpu *gpu);
