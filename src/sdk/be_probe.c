/* GPU grid's probe (notes Sec. 2, defect 2): an empty kernel launched and
 * synchronised on the caller's own queue, timed from the host. alpha is
 * "k under dedicated execution" (Sec. 4), which the paper leaves
 * unspecified: here a high percentile of M probes on the idle device,
 * times a factor, so that the jitter of an idle device does not read as
 * load. */
#include <stdlib.h>

#include "sdk/be_internal.h"

int64_t be_probe_once(const struct baton_be *be)
{
	int64_t t0 = be_now_ns();
	if (be->opt.probe(be->opt.probe_user) != 0)
		return -1;
	int64_t k = be_now_ns() - t0;
	return k > 0 ? k : 1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int64_t be_probe_calibrate(const struct baton_be *be, uint32_t m, double pct,
                           double factor)
{
	if (m == 0)
		return -1;
	int64_t *k = malloc(m * sizeof(*k));
	if (!k)
		return -1;
	/* One probe first, not kept: the first launch pays for compiling
	 * and warming up. */
	if (be_probe_once(be) < 0) {
		free(k);
		return -1;
	}
	for (uint32_t i = 0; i < m; i++) {
		k[i] = be_probe_once(be);
		if (k[i] < 0) {
			free(k);
			return -1;
		}
	}
	qsort(k, m, sizeof(*k), cmp_i64);
	uint32_t i = (uint32_t)(pct / 100.0 * (double)(m - 1) + 0.5);
	if (i >= m)
		i = m - 1;
	int64_t alpha = (int64_t)((double)k[i] * factor);
	free(k);
	return alpha > 0 ? alpha : 1;
}
