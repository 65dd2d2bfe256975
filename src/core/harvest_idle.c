/* The idle-priority lane (see harvest_idle.h). */
#include "core/harvest_idle.h"

#include <math.h>

static double weight_of(const struct core_be_tenant *b)
{
	return b->weight > 0.0 && isfinite(b->weight) ? b->weight : 1.0;
}

size_t core_harvest_idle(const struct core_harvest_params *p,
                         const struct core_harvest_gpu *hg, bool overload,
                         struct core_be_tenant *be, size_t n)
{
	bool open = p->idle_lane && !overload && hg->n_stuck == 0;
	double w_max = 0.0;
	for (size_t i = 0; i < n; i++) {
		be[i].idle = open && be[i].idle_capable;
		if (be[i].idle && weight_of(&be[i]) > w_max)
			w_max = weight_of(&be[i]);
	}
	size_t in_lane = 0;
	for (size_t i = 0; i < n; i++) {
		if (!be[i].idle)
			continue;
		in_lane++;
		double b = weight_of(&be[i]) / w_max;
		if (be[i].cap > 0.0 && be[i].cap < b)
			b = be[i].cap;
		be[i].budget = b;
		be[i].window_s = p->continuous_s;
	}
	return in_lane;
}
