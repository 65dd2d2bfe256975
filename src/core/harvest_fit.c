/* Online fit of a kernel's time in blocks and the task's offset (see
 * harvest_fit.h). */
#include "core/harvest_fit.h"

#include <math.h>

void core_harvest_fit_add(struct core_harvest_fit *f, uint64_t n, double t_s)
{
	if (n == 0 || !(t_s > 0.0) || !isfinite(t_s))
		return;
	f->n[f->next] = (double)n;
	f->t[f->next] = t_s;
	f->next = (f->next + 1) % CORE_HARVEST_FIT_N;
	if (f->len < CORE_HARVEST_FIT_N)
		f->len++;
}

bool core_harvest_fit_coef(const struct core_harvest_fit *f, double *c0,
                           double *c1)
{
	if (f->len == 0)
		return false;
	double mn = 0.0, mt = 0.0;
	for (uint32_t i = 0; i < f->len; i++) {
		mn += f->n[i];
		mt += f->t[i];
	}
	mn /= f->len;
	mt /= f->len;
	double sxx = 0.0, sxy = 0.0, snn = 0.0, snt = 0.0;
	for (uint32_t i = 0; i < f->len; i++) {
		sxx += (f->n[i] - mn) * (f->n[i] - mn);
		sxy += (f->n[i] - mn) * (f->t[i] - mt);
		snn += f->n[i] * f->n[i];
		snt += f->n[i] * f->t[i];
	}
	/* Ordinary least squares where the samples show a slope. */
	if (sxx > 1e-9 * snn) {
		double b = sxy / sxx, a = mt - b * mn;
		if (b > 0.0 && a >= 0.0) {
			*c0 = a;
			*c1 = b;
			return true;
		}
	}
	/* Through the origin: t = c1 n. */
	*c0 = 0.0;
	*c1 = snt / snn;
	return true;
}

double core_harvest_fit_predict(const struct core_harvest_fit *f, uint64_t n)
{
	double c0, c1;
	if (!core_harvest_fit_coef(f, &c0, &c1))
		return 0.0;
	return c0 + c1 * (double)n;
}

double core_harvest_fit_spread(const struct core_harvest_fit *f, double q)
{
	if (f->len < CORE_HARVEST_SPREAD_MIN || !(q > 0.0 && q <= 1.0))
		return 1.0;
	double c0, c1, r[CORE_HARVEST_FIT_N];
	core_harvest_fit_coef(f, &c0, &c1);
	/* Insertion sort of the ratios: at most 16 of them. */
	for (uint32_t i = 0; i < f->len; i++) {
		double pred = c0 + c1 * f->n[i];
		double x = pred > 0.0 ? f->t[i] / pred : 1.0;
		uint32_t j = i;
		for (; j > 0 && r[j - 1] > x; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
	uint32_t k = (uint32_t)ceil(q * (double)f->len) - 1u;
	return fmin(fmax(r[k], 1.0), CORE_HARVEST_SPREAD_MAX);
}

uint64_t core_harvest_blocks(const struct core_harvest_fit *f, double budget_s,
                             uint64_t left)
{
	if (left == 0)
		return 0;
	double c0, c1;
	if (!core_harvest_fit_coef(f, &c0, &c1))
		return 1;
	double n = floor((budget_s - c0) / c1);
	if (!(n >= 1.0))
		return 1;
	if (n >= (double)left)
		return left;
	return (uint64_t)n;
}

bool core_harvest_task_next(const struct core_harvest_task *task,
                            const struct core_harvest_fit *f, double budget_s,
                            uint64_t *offset, uint64_t *count)
{
	if (task->done >= task->n)
		return false;
	*offset = task->done;
	*count = core_harvest_blocks(f, budget_s, task->n - task->done);
	return true;
}

void core_harvest_task_done(struct core_harvest_task *task,
                            struct core_harvest_fit *f, uint64_t count,
                            double t_s)
{
	uint64_t left = task->n - task->done;
	task->done += count < left ? count : left;
	core_harvest_fit_add(f, count, t_s);
}
