#include "core/pacing.h"

double core_pacing_sleep_relative(double fps, double cpu_s, double gpu_s)
{
	if (!(fps > 0.0))
		return 0.0;
	/* vGASA Eq. 1, in seconds. */
	double sleep = 1.0 / fps - cpu_s - gpu_s;
	return sleep > 0.0 ? sleep : 0.0;
}

void core_pacer_reset(struct core_pacer *p)
{
	*p = (struct core_pacer){0};
}

int64_t core_pacer_next_wake(struct core_pacer *p, int64_t now_ns,
                             int64_t period_ns, int64_t gpu_pred_ns)
{
	if (period_ns <= 0) {
		p->anchored = false;
		return now_ns;
	}
	if (gpu_pred_ns < 0)
		gpu_pred_ns = 0;
	/* The earliest this frame can display if presented now. */
	int64_t earliest = now_ns + gpu_pred_ns;
	if (p->anchored) {
		int64_t deadline = p->deadline_ns + period_ns;
		if (deadline >= earliest) {
			p->deadline_ns = deadline;
			return deadline - gpu_pred_ns;
		}
		/* Late: re-anchor below rather than burst to catch up. */
	}
	p->anchored = true;
	p->deadline_ns = earliest;
	return now_ns;
}
