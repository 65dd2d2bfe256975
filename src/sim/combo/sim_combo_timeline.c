/* Space harvesting's timeline: the frames `baton sim --plot` draws, kept
 * bounded by even decimation (sim_combo.h). */
#include "sim/combo/sim_combo.h"

#include <stdlib.h>

bool sim_combo_timeline_add(struct sim_combo_timeline *tl, uint64_t k,
                            const struct sim_combo_sample *s, long *index)
{
	*index = -1;
	if (tl->stride == 0)
		tl->stride = 1;
	if (k % tl->stride != 0)
		return true;
	if (tl->n == SIM_COMBO_TIMELINE_MAX) {
		/* Keep frames 0, 2 stride, 4 stride, ...: sample i was frame
		 * i x stride. k is then a multiple of the new stride too. */
		for (size_t i = 0; 2 * i < tl->n; i++)
			tl->v[i] = tl->v[2 * i];
		tl->n = (tl->n + 1) / 2;
		tl->stride *= 2;
		if (k % tl->stride != 0)
			return true;
	}
	if (tl->n == tl->cap) {
		size_t cap = tl->cap ? 2 * tl->cap : 1024;
		if (cap > SIM_COMBO_TIMELINE_MAX)
			cap = SIM_COMBO_TIMELINE_MAX;
		struct sim_combo_sample *v = realloc(tl->v, cap * sizeof(*v));
		if (!v)
			return false;
		tl->v = v;
		tl->cap = cap;
	}
	*index = (long)tl->n;
	tl->v[tl->n++] = *s;
	return true;
}

void sim_combo_free(struct sim_combo_result *r)
{
	for (size_t i = 0; i < SIM_COMBO_N_SCHEMES; i++) {
		struct sim_combo_timeline *tl = &r->runs[i].timeline;
		free(tl->v);
		*tl = (struct sim_combo_timeline){0};
	}
}
