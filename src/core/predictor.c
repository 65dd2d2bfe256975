#include "core/predictor.h"

#include <math.h>

void core_predictor_reset(struct core_predictor *p)
{
	*p = (struct core_predictor){0};
}

void core_predictor_add(struct core_predictor *p, double sample)
{
	if (!(sample >= 0.0) || !isfinite(sample))
		return;
	p->v[p->next] = sample;
	p->next = (p->next + 1) % CORE_PREDICTOR_WINDOW;
	if (p->n < CORE_PREDICTOR_WINDOW)
		p->n++;
}

double core_predictor_predict(const struct core_predictor *p)
{
	if (p->n == 0)
		return 0.0;
	/* Insertion sort of a copy: at most 7 elements, no allocation. */
	double s[CORE_PREDICTOR_WINDOW];
	uint32_t n = p->n;
	for (uint32_t i = 0; i < n; i++) {
		double x = p->v[i];
		uint32_t j = i;
		while (j > 0 && s[j - 1] > x) {
			s[j] = s[j - 1];
			j--;
		}
		s[j] = x;
	}
	if (n % 2)
		return s[n / 2];
	return 0.5 * (s[n / 2 - 1] + s[n / 2]);
}
