/* Work-conserving budgets, part of the capacity stage (caps.h): a
 * tenant whose cap may give way to GPU time nobody else uses. Called by
 * core_caps_tick after the strict budgets are set; split from caps.c,
 * which holds gOver's rules. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/caps.h"
#include "core/policy.h"

/* A tenant marked work-conserving that holds a budget. */
bool core_caps_conserving(const struct core_tenant *t);

/* Adds each work-conserving tenant's share of the spare capacity to its
 * budget (caps_wc.c says how, and why it is a fixed point). */
void core_caps_work_conserve(const struct core_params *p, struct core_gpu *gpu,
                             struct core_tenant *t, size_t n);
