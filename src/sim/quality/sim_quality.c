/* A simulated game's quality levels, frame by frame (see sim_quality.h). */
#include "sim/quality/sim_quality.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/metrics.h"

uint32_t sim_quality_first_level(const struct sim_quality_spec *q,
                                 enum sim_quality_mode mode)
{
	uint32_t top = (uint32_t)q->n_levels - 1;
	switch (mode) {
	case SIM_QUALITY_ALL_LO:
		return 0;
	case SIM_QUALITY_ALL_ME:
		return (uint32_t)q->n_levels / 2;
	case SIM_QUALITY_ALL_HI:
		return top;
	default:
		return q->start_level;
	}
}

bool sim_qgame_init(struct sim_qgame *q, const struct sim_quality_spec *spec,
                    uint32_t level, size_t n_secs)
{
	*q = (struct sim_qgame){.spec = spec, .level = level, .n_secs = n_secs};
	size_t n = n_secs ? n_secs : 1;
	q->ssim_sum_per_s = calloc(n, sizeof(double));
	q->last_per_s = calloc(n, sizeof(double));
	q->level_per_s = malloc(n * sizeof(double));
	if (!q->ssim_sum_per_s || !q->last_per_s || !q->level_per_s)
		return false;
	for (size_t w = 0; w < n; w++)
		q->level_per_s[w] = NAN;
	return true;
}

void sim_qgame_finish(struct sim_qgame *q)
{
	free(q->ssim_sum_per_s);
	free(q->last_per_s);
	free(q->level_per_s);
	free(q->changes);
	free(q->areas);
	*q = (struct sim_qgame){0};
}

/* Appends one element of size sz to *v (n, cap), doubling. */
static void *grow(void *v, size_t *cap, size_t n, size_t sz, bool *oom)
{
	if (n < *cap)
		return v;
	size_t c = *cap ? 2 * *cap : 16;
	void *p = realloc(v, c * sz);
	if (!p) {
		*oom = true;
		return v;
	}
	*cap = c;
	return p;
}

static bool area_over(const struct sim_area *a, int64_t t0, uint64_t f0,
                      int64_t now, uint64_t frame)
{
	if (a->frames > 0)
		return frame - f0 >= a->frames;
	if (a->duration_s > 0.0)
		return now - t0 >= llround(a->duration_s * 1e9);
	return false; /* the last area, for ever */
}

static void enter_area(struct sim_qgame *q, size_t area, int64_t t0,
                       uint64_t frame)
{
	q->area = area;
	q->area_t0_ns = t0;
	q->area_f0 = frame;
	q->areas = grow(q->areas, &q->cap_areas, q->n_areas, sizeof(*q->areas),
	                &q->oom);
	if (q->n_areas < q->cap_areas)
		q->areas[q->n_areas++] =
		    (struct sim_area_change){.t_s = (double)t0 / 1e9,
		                             .frame = frame,
		                             .area = (uint32_t)area};
}

double sim_qgame_frame_ms(struct sim_qgame *q, int64_t now, int64_t start_ns,
                          uint64_t frame)
{
	const struct sim_quality_spec *s = q->spec;
	if (frame == 1)
		enter_area(q, 0, start_ns, 1);
	/* An area ends at its time (or frame count); the next begins then,
	 * so a late frame does not shift the areas after it. */
	while (area_over(&s->areas[q->area], q->area_t0_ns, q->area_f0, now,
	                 frame)) {
		const struct sim_area *a = &s->areas[q->area];
		size_t next = q->area + 1;
		if (next == s->n_areas) {
			if (!s->loop)
				break;
			next = 0;
		}
		int64_t t0 = a->frames > 0
		                 ? now
		                 : q->area_t0_ns + llround(a->duration_s * 1e9);
		enter_area(q, next, t0, frame);
	}
	const struct sim_area *a = &s->areas[q->area];
	for (size_t j = 0; j < s->n_types; j++) {
		q->ep_pot[j] += a->potential[j];
		q->ep_act[j] += a->active[j];
	}
	q->ep_pot_frames++;
	const struct core_qm_level *lv = &s->level[q->level];
	double ssim = core_qm_benefit(lv, a->active);
	uint32_t tail = (q->head + q->count) % SIM_QRING;
	q->ring_ssim[tail] = ssim;
	q->ring_cost_s[tail] = 0.0;
	return core_qm_cost(lv, a->active) * 1000.0;
}

void sim_qgame_push(struct sim_qgame *q, double cost_s)
{
	if (q->count == SIM_QRING) { /* cannot happen: <= 17 in flight */
		q->oom = true;
		return;
	}
	q->ring_cost_s[(q->head + q->count) % SIM_QRING] = cost_s;
	q->count++;
}

void sim_qgame_displayed(struct sim_qgame *q, int64_t now)
{
	if (q->count == 0)
		return;
	double ssim = q->ring_ssim[q->head];
	q->ep_cost_s += q->ring_cost_s[q->head];
	q->head = (q->head + 1) % SIM_QRING;
	q->count--;
	q->last_ssim = ssim;
	size_t w = (size_t)(now / SIM_NS_PER_S);
	if (w < q->n_secs)
		q->ssim_sum_per_s[w] += ssim;
}

double sim_qgame_fill(struct sim_qgame *q, struct core_quality_tenant *t)
{
	const struct sim_quality_spec *s = q->spec;
	double pot[CORE_QM_MAX_TYPES];
	/* dJay §6.2: the epoch's mean of the per-frame estimates, which
	 * are linear in the counts: the model on the mean counts. */
	const double *src = s->areas[q->area].potential;
	const double *drawn = s->areas[q->area].active;
	double act[CORE_QM_MAX_TYPES];
	if (q->ep_pot_frames > 0) {
		for (size_t j = 0; j < s->n_types; j++) {
			pot[j] = q->ep_pot[j] / q->ep_pot_frames;
			act[j] = q->ep_act[j] / q->ep_pot_frames;
		}
		src = pot;
		drawn = act;
	}
	t->n_levels = (uint32_t)s->n_levels;
	for (size_t l = 0; l < s->n_levels; l++) {
		t->cost[l] = core_qm_cost(&s->level[l], src);
		t->benefit[l] = core_qm_benefit(&s->level[l], src);
		/* the frames k measured: the stage calibrates on these, so
		 * that the potential list still anticipates (quality_stage.h)
		 */
		t->cost_active[l] = core_qm_cost(&s->level[l], drawn);
	}
	t->start_level = s->start_level;
	t->pinned = 0;
	double busy = q->ep_cost_s;
	memset(q->ep_pot, 0, sizeof(q->ep_pot));
	memset(q->ep_act, 0, sizeof(q->ep_act));
	q->ep_pot_frames = 0;
	q->ep_cost_s = 0.0;
	return busy;
}

void sim_qgame_set_level(struct sim_qgame *q, uint32_t level, int64_t now,
                         uint64_t frame)
{
	if (level == q->level || level >= q->spec->n_levels)
		return;
	q->level = level;
	q->changes = grow(q->changes, &q->cap_changes, q->n_changes,
	                  sizeof(*q->changes), &q->oom);
	if (q->n_changes < q->cap_changes)
		q->changes[q->n_changes++] = (struct sim_level_change){
		    .t_s = (double)now / 1e9, .frame = frame, .level = level};
}

void sim_qgame_sample(struct sim_qgame *q, size_t w)
{
	if (w >= q->n_secs)
		return;
	q->level_per_s[w] = q->level;
	q->last_per_s[w] = q->last_ssim;
}
