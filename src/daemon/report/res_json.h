/* A GPU's encoder and VRAM figures and a tenant's share of them
 * (daemon/accounting/gpu_res.h) as `baton status` and the history file
 * give them: one shape in both. */
#pragma once

#include <jansson.h>

#include "daemon/accounting/gpu_res.h"

/* {"encoder_util", "decoder_util" (null where unmeasured),
 *  "encoder_source", "vram_total_mb" (null: unknown), "vram_used_mb",
 *  "vram_source"}; NULL when out of memory. */
json_t *res_json_gpu(const struct gpu_res *r);

/* {"video_share", "vram_mb"}; NULL when out of memory. */
json_t *res_json_tenant(const struct gpu_res_tenant *r);
