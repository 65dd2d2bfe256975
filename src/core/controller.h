/* The per-GPU control tick: what batond runs every epoch on real clocks and
 * what the simulator runs on its virtual clock, unchanged.
 *
 *   1. learn each tenant's GPU seconds per frame k_i from the epoch's
 *      gpu_busy_s / frames (EWMA, vGASA: "the proportional coefficient of
 *      each game is calculated by the history FPS and GPU usage"), and
 *      smooth F_out for the policies that decide on it; judge whether each
 *      tenant reached the reference of the last tick (reach.h: limited);
 *      add up the GPU share the tenants need at their SLAs (overload);
 *   2. the capacity stage (caps.h, gOver): per-tenant caps sampled each
 *      period, overload detection and mitigation, the load admission
 *      reads (core_caps_admit);
 *   3. the quality stage (quality_stage.h, dJay) chooses each game's
 *      level within the budget caps leave and rescales k to it;
 *   4. the policy sets references (ref_fps);
 *   5. the PI loop turns each reference and the measured F_out into the
 *      pacing target (target_fps): pinned tenants get fixed_fps, free ones 0;
 *      a limited tenant's target is not wound up.
 *
 * No I/O, no clock reads, no allocation (the quality stage's workspace is
 * the caller's, core_gpu.quality): O(n) over the caller's array, but
 * for the quality solver (quality_opt.h). */
#pragma once

#include "core/policy.h"

void core_controller_tick(const struct core_policy *policy,
                          const struct core_params *params,
                          struct core_gpu *gpu, struct core_tenant *tenants,
                          size_t n);
