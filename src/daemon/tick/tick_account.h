/* The accounting step of batond's tick: each game's GPU seconds of the
 * epoch from the best source there is (docs/runtime.md, "Accounting
 * sources"), and the device's busy time no tenant accounts for
 * (other_util). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/daemon.h"

/* A game's GPU seconds of the epoch of length dt ending at now: the
 * kernel's count of its DRM clients (at most *scans_left fd scans, this
 * tick's budget for all tenants), else NVML's count of its process, else
 * on a CPU device (cpu) its process's CPU time over the device's cores,
 * else shim_s, its shim's claim as tenant_seen bounded it. Sets
 * t->gpu_source and logs each change of source. A game whose hello named
 * no GPU (t->gpu_open) moves, at the first read that finds its DRM
 * clients, to the GPU their drm-pdev names (accounting/gpu_pdev.h), before
 * this tick's controllers run: t->gpu may change. */
double tick_account_gpu(struct daemon *d, struct tenant *t, double shim_s,
                        bool cpu, int64_t now, double dt, unsigned *scans_left);

/* GPU g's other_util: the device's busy fraction (a CPU device's host
 * load, an NVIDIA GPU's NVML utilization) less busy, the tenants' own,
 * smoothed; 0 on a hardware GPU without NVML. */
void tick_update_other_util(struct daemon *d, size_t g, bool software,
                            double busy, double dt);
