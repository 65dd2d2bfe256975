/* Placement over a node's GPUs (place.h). */
#include "core/place.h"

#include <string.h>

#include "core/policy.h"

/* Whether a is a better home than b under mode (both admit). */
static bool better(const struct core_place_gpu *a,
                   const struct core_place_gpu *b, enum core_place_mode mode)
{
	if (a->load != b->load)
		return mode == CORE_PLACE_PACK ? a->load > b->load
		                               : a->load < b->load;
	if (a->tenants != b->tenants)
		return mode == CORE_PLACE_PACK ? a->tenants > b->tenants
		                               : a->tenants < b->tenants;
	return false; /* the first of equals stays */
}

int core_place_pick(const struct core_place_gpu *g, size_t n,
                    enum core_place_mode mode)
{
	int best = -1;
	for (size_t i = 0; i < n; i++) {
		if (!g[i].eligible || !g[i].admits)
			continue;
		if (best < 0 || better(&g[i], &g[best], mode))
			best = (int)i;
	}
	return best;
}

struct core_admit core_place_admit_unknown(const struct core_params *p,
                                           const struct core_gpu *gpu)
{
	const struct core_caps_gpu *g = &gpu->caps;
	double load = core_caps_admit_load(p, g);
	struct core_admit a = {
	    .load = load,
	    .overhead = g->overhead >= 1.0 ? g->overhead : 1.0,
	    .limit = p->cap_u_limit,
	};
	if (g->sampled && (g->severe || g->n_overloaded >= 2))
		a.why = CORE_ADMIT_SEVERE;
	else if (g->sampled && !(load < p->cap_u_limit))
		a.why = CORE_ADMIT_LOAD;
	else
		a.why = CORE_ADMIT_FITS;
	a.fits = a.why == CORE_ADMIT_FITS;
	return a;
}

bool core_place_mode_parse(const char *s, enum core_place_mode *out)
{
	if (strcmp(s, "pack") == 0)
		*out = CORE_PLACE_PACK;
	else if (strcmp(s, "spread") == 0)
		*out = CORE_PLACE_SPREAD;
	else
		return false;
	return true;
}

const char *core_place_mode_name(enum core_place_mode m)
{
	return m == CORE_PLACE_PACK ? "pack" : "spread";
}
