/* Figures the reports derive from a run's per-second series: where a tenant
 * ended up and how long it took to get there (vGASA Fig. 8). */
#include <math.h>

#include "cli/cli.h"

double cli_reference_fps(const struct sim_scenario *sc,
                         const struct sim_tenant_result *t, size_t index)
{
	if (index < sc->n_tenants && sc->tenants[index].fixed_fps > 0)
		return sc->tenants[index].fixed_fps;
	return t->sla_fps * (1.0 + sc->params.sla_margin);
}

double cli_tail_fps(const struct sim_tenant_result *t, double secs)
{
	size_t n = secs > 0 ? (size_t)ceil(secs) : 0;

	if (n > t->n_secs)
		n = t->n_secs;
	if (n == 0)
		return 0.0;
	double sum = 0.0;
	for (size_t i = t->n_secs - n; i < t->n_secs; i++)
		sum += t->fps_per_s[i];
	return sum / (double)n;
}

double cli_settle_s(const struct sim_tenant_result *t, double ref, double tol)
{
	/* Walk back from the end while the series stays in the band; the
	 * settling time is where the final in-band stretch begins. A stretch
	 * shorter than the tail is a pass through the band, not settling. */
	size_t k = t->n_secs;
	size_t min_stretch = (size_t)CLI_TAIL_S;

	if (min_stretch > t->n_secs)
		min_stretch = t->n_secs;
	while (k > 0 && fabs(t->fps_per_s[k - 1] - ref) <= tol * ref)
		k--;
	if (t->n_secs == 0 || t->n_secs - k < min_stretch)
		return -1.0;
	return (double)k;
}
