/* Admission beyond the 3D engine: the video encoder and video memory.
 *
 * Cloud-gaming hosts often run out of one of these before the 3D engine
 * does: every session streams its frames through the GPU's encoder
 * (NVENC, VCN, Quick Sync), and every game's textures and buffers stay
 * resident in VRAM. gOver's rule (caps.h, core_caps_admit) counts the 3D
 * engine only; this refines its answer with the other two:
 *
 *   encoder: the GPU's measured encoder load + k x the newcomer's encoder
 *            share < cap_encoder_limit (0.9: an encoder has no slices to
 *            share as the 3D engine's oversold U_l assumes; a frame
 *            queued behind a busy encoder is streamed late);
 *   VRAM:    k x the newcomer's VRAM <= the GPU's total - used.
 *
 * A resource the newcomer needs none of, or whose size the GPU does not
 * know, does not bind. The answer's `more` is the smallest count; when
 * the 3D engine admits but another resource does not, the reason names
 * that resource (CORE_ADMIT_ENCODER, CORE_ADMIT_VRAM). Pure. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "core/caps.h"

/* What a GPU has of the other resources, as measured. */
struct core_res_gpu {
	bool has_encoder;    /* its encoder's load is measured */
	double encoder_load; /* busy share of its encoder(s), [0, 1] */
	uint64_t vram_total; /* bytes; 0 = unknown (VRAM does not bind) */
	uint64_t vram_used;  /* bytes in use, by anyone */
};

/* What one more session needs of them (its profile, or what it
 * declared): 0 = none or unknown. */
struct core_res_need {
	double encoder;      /* busy share of one encoder, [0, 1] */
	uint64_t vram_bytes; /* resident video memory */
};

/* a: core_caps_admit's answer for the same session on the same GPU;
 * encoder_limit: cap_encoder_limit. Sets a->more_encoder, a->more_vram, and
 * lowers a->more (or refuses, naming the resource) where either binds. */
void core_admit_resources(const struct core_res_gpu *gpu,
                          const struct core_res_need *need,
                          double encoder_limit, struct core_admit *a);
