/* batond's side of the quality stage (daemon/quality/quality_models.h). */
#include "daemon/quality/quality_models.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "quality/model_file.h"
#include "util/log.h"

bool daemon_quality_load_models(struct daemon_quality *q, const char *dir,
                                const char *who)
{
	free(q->models);
	q->models = NULL;
	if (!q->declared)
		return false;
	char path[512];
	int len = snprintf(path, sizeof(path), "%s/%s.json", dir, q->game_id);
	if (len < 0 || (size_t)len >= sizeof(path))
		return false;
	struct stat st;
	if (stat(path, &st) != 0) {
		log_info("%s: no models for game \"%s\" (%s: %s): it counts "
		         "at its measured cost, one level",
		         who, q->game_id, path, strerror(errno));
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		/* A FIFO or a device would block the loader (and batond's
		 * exit, which waits for it) in open or read. */
		log_warn("%s: models not used: %s is not a regular file", who,
		         path);
		return false;
	}
	struct quality_model_set *set = malloc(sizeof(*set));
	char err[256];
	if (!set) {
		log_warn("%s: no memory for the models of \"%s\"", who,
		         q->game_id);
		return false;
	}
	if (q->n_types > CORE_QM_MAX_TYPES) {
		log_warn("%s: game \"%s\" declared %u object types; models "
		         "hold at most %d",
		         who, q->game_id, q->n_types, CORE_QM_MAX_TYPES);
		free(set);
		return false;
	}
	if (!quality_model_load(path, q->n_levels, q->n_types, set, err,
	                        sizeof(err))) {
		log_warn("%s: models not used: %s", who, err);
		free(set);
		return false;
	}
	q->models = set;
	log_info("%s: models for \"%s\" from %s (%zu levels, %zu types, %s "
	         "mode)",
	         who, q->game_id, path, set->n_levels, set->n_types,
	         set->mode == CORE_QM_PAPER ? "paper" : "baton");
	return true;
}

void daemon_quality_inputs(const struct daemon_quality *q,
                           struct core_quality_tenant *cq)
{
	if (!q->declared) {
		cq->n_levels = 0;
		cq->pinned = 0;
		return;
	}
	cq->start_level = q->default_level;
	cq->pinned = q->pinned >= 0 ? (uint32_t)q->pinned + 1u : 0u;
	const struct quality_model_set *m = q->models;
	if (!m || q->epoch_frames == 0 || m->n_levels < 2 ||
	    m->n_levels > QUALITY_MAX_LEVELS) {
		cq->n_levels = 0;
		return;
	}
	double pol[CORE_QM_MAX_TYPES], aol[CORE_QM_MAX_TYPES];
	for (size_t i = 0; i < m->n_types; i++) {
		pol[i] = q->potential_mean[i];
		aol[i] = q->active_mean[i];
	}
	for (size_t l = 0; l < m->n_levels; l++) {
		cq->cost[l] = core_qm_cost(&m->level[l], pol);
		cq->benefit[l] = core_qm_benefit(&m->level[l], pol);
		cq->cost_active[l] = core_qm_cost(&m->level[l], aol);
	}
	cq->n_levels = (uint32_t)m->n_levels;
}

bool daemon_quality_take_choice(struct daemon_quality *q,
                                const struct core_quality_tenant *cq)
{
	if (!q->declared || !q->models || !cq->chosen ||
	    cq->level >= q->n_levels || cq->n_levels < 2)
		return false;
	uint32_t before = daemon_quality_control_level(q);
	daemon_quality_choose(q, (int32_t)cq->level);
	return daemon_quality_control_level(q) != before;
}
