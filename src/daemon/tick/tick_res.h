/* The encoder and VRAM each epoch (daemon/accounting/gpu_res.h): each
 * tenant's share and each GPU's load and size from the best source, and
 * the admission that counts them beside the 3D engine's (core/admit_res.h)
 * for the capacity request, /metrics and the publishers. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "core/admit_res.h"

struct daemon;
struct daemon_app;

/* After the tenants' epochs (their DRM clients read): every tenant's
 * video share and VRAM, every GPU's encoder load and VRAM. NVML is read
 * once a second. */
void daemon_res_tick(struct daemon *d, int64_t now_ns, double dt);

/* What a configured app declares it needs (its encoder and vram_mb). */
struct core_res_need daemon_app_need(const struct daemon_app *a);

/* Does one more session of cost_s at sla_fps, needing need, fit on GPU g:
 * gOver's rule on the 3D engine, then the encoder and VRAM. */
struct core_admit daemon_gpu_admit(const struct daemon *d, size_t g,
                                   double cost_s, double sla_fps,
                                   const struct core_res_need *need);
