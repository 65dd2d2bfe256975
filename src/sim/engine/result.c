/* Freeing a run's results (result.h). */
#include "sim/engine/result.h"

#include <stdlib.h>

static void quality_free(struct sim_result *r)
{
	for (size_t i = 0; r->tenants && i < r->n_tenants; i++) {
		struct sim_quality_result *q = r->tenants[i].quality;
		if (!q)
			continue;
		free(q->ssim_per_s);
		free(q->level_per_s);
		free(q->changes);
		free(q->areas);
		free(q);
		r->tenants[i].quality = NULL;
	}
	free(r->q_benefit_per_s);
	free(r->q_phases);
}

void sim_result_finish(struct sim_result *r)
{
	quality_free(r);
	sim_fleet_result_free(&r->fleet_result);
	sim_combo_free(&r->combo_result);
	if (r->tenants) {
		for (size_t i = 0; i < r->n_tenants; i++) {
			free(r->tenants[i].fps_per_s);
			free(r->tenants[i].target_per_s);
		}
	}
	free(r->tenants);
	free(r->util_per_s);
	*r = (struct sim_result){0};
}
