/* A tenant's epoch into the core's inputs (see measure.h). */
#include "core/measure.h"

double core_epoch_fps(const struct core_epoch_sample *s)
{
	if (s->intervals > 0 && s->interval_sum_s > 0.0)
		return (double)s->intervals / s->interval_sum_s;
	if (s->frames > 0 || s->last_frame_ns <= 0 ||
	    s->now_ns <= s->last_frame_ns)
		return 0.0;
	return 1e9 / (double)(s->now_ns - s->last_frame_ns);
}

void core_tenant_measure(struct core_tenant *t,
                         const struct core_tenant_terms *terms,
                         const struct core_epoch_sample *s)
{
	t->sla_fps = terms->sla_fps;
	t->fixed_fps = terms->fixed_fps;
	t->owner = terms->owner;
	t->cap_initial = terms->cap;
	t->work_conserving = terms->work_conserving;
	t->work_after_wait = terms->work_after_wait;
	t->fps = core_epoch_fps(s);
	t->frames = s->frames;
	t->paced_frames = s->paced;
	t->sleep_s = s->sleep_s;
	t->gate_s = s->gate_s;
	t->gpu_busy_s = s->gpu_s;
	t->gpu_bounded = s->gpu_bounded;
	/* Divided, not multiplied by 1e-9: 1e-9 has no exact double, and
	 * the product can be an ulp off the quotient. */
	t->present_s = (double)s->last_present_ns / 1e9;
}
