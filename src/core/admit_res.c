/* The encoder and VRAM beside the 3D engine (admit_res.h). */
#include "core/admit_res.h"

#include <math.h>

/* How many of x fit in room (strictly under for the encoder, whose
 * limit is U_l as the 3D engine's; at most for memory), capped. */
static uint32_t count_fit(double room, double x, bool strict)
{
	if (!(room > 0.0) && strict)
		return 0;
	double k = floor(room / x);
	if (!(k >= 0.0))
		return 0;
	if (k > (double)UINT32_MAX - 1.0)
		k = (double)UINT32_MAX - 1.0;
	while (strict && k >= 1.0 && !(k * x < room))
		k -= 1.0;
	return (uint32_t)k;
}

static uint32_t encoder_count(const struct core_res_gpu *g,
                              const struct core_res_need *n, double limit)
{
	if (!g->has_encoder || !(n->encoder > 0.0) || !isfinite(n->encoder))
		return UINT32_MAX;
	double load = isfinite(g->encoder_load) && g->encoder_load > 0.0
	                  ? g->encoder_load
	                  : 0.0;
	return count_fit(limit - load, n->encoder, true);
}

static uint32_t vram_count(const struct core_res_gpu *g,
                           const struct core_res_need *n)
{
	if (g->vram_total == 0 || n->vram_bytes == 0)
		return UINT32_MAX;
	uint64_t free_b =
	    g->vram_used < g->vram_total ? g->vram_total - g->vram_used : 0;
	return count_fit((double)free_b, (double)n->vram_bytes, false);
}

void core_admit_resources(const struct core_res_gpu *gpu,
                          const struct core_res_need *need,
                          double encoder_limit, struct core_admit *a)
{
	a->more_encoder = encoder_count(gpu, need, encoder_limit);
	a->more_vram = vram_count(gpu, need);
	if (!a->fits)
		return; /* the 3D engine's reason stands */
	if (a->more_encoder < a->more)
		a->more = a->more_encoder;
	if (a->more_vram < a->more)
		a->more = a->more_vram;
	if (a->more > 0)
		return;
	a->fits = false;
	/* the one that has no room at all; the encoder first when both */
	a->why = a->more_encoder == 0 ? CORE_ADMIT_ENCODER : CORE_ADMIT_VRAM;
}
