/* Figures of merit of a run, as defined in sim.h. */
#include "sim/engine/metrics.h"
#include "sim/engine/percentile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t sim_metrics_windows(int64_t end_ns)
{
	return (size_t)((end_ns + SIM_NS_PER_S - 1) / SIM_NS_PER_S);
}

bool sim_metrics_init(struct sim_metrics *m, int64_t warmup_ns, int64_t end_ns)
{
	*m = (struct sim_metrics){.warmup_ns = warmup_ns, .end_ns = end_ns};
	m->n_secs = sim_metrics_windows(end_ns);
	size_t n = m->n_secs ? m->n_secs : 1;
	m->frames_per_s = calloc(n, sizeof(double));
	m->target_per_s = calloc(n, sizeof(double));
	if (!m->frames_per_s || !m->target_per_s) {
		sim_metrics_finish(m);
		return false;
	}
	return true;
}

void sim_metrics_finish(struct sim_metrics *m)
{
	free(m->frames_per_s);
	free(m->target_per_s);
	free(m->intervals_ms);
	*m = (struct sim_metrics){0};
}

bool sim_metrics_frame(struct sim_metrics *m, int64_t t_ns)
{
	if (t_ns < 0 || t_ns >= m->end_ns)
		return true;
	m->frames_per_s[t_ns / SIM_NS_PER_S] += 1.0;
	bool measured = t_ns >= m->warmup_ns;
	if (measured)
		m->measured_frames++;
	if (measured && m->has_last && m->last_ns >= m->warmup_ns) {
		if (m->n_intervals == m->cap_intervals) {
			size_t cap =
			    m->cap_intervals ? 2 * m->cap_intervals : 1024;
			double *v = realloc(m->intervals_ms, cap * sizeof(*v));
			if (!v)
				return false;
			m->intervals_ms = v;
			m->cap_intervals = cap;
		}
		m->intervals_ms[m->n_intervals++] =
		    (double)(t_ns - m->last_ns) / 1e6;
	}
	m->last_ns = t_ns;
	m->has_last = true;
	return true;
}

bool sim_metrics_summarize(struct sim_metrics *m, struct sim_tenant_result *out)
{
	double measured_s = (double)(m->end_ns - m->warmup_ns) / 1e9;
	out->fps_mean =
	    measured_s > 0.0 ? (double)m->measured_frames / measured_s : 0.0;
	/* The value sim_percentile() gives, in O(n) rather than a sort of
	 * every frame interval of the run. */
	out->frame_ms_p99 =
	    sim_percentile_select(m->intervals_ms, m->n_intervals, 99.0);
	out->frame_ms_max = 0.0;
	for (size_t i = 0; i < m->n_intervals; i++)
		if (m->intervals_ms[i] > out->frame_ms_max)
			out->frame_ms_max = m->intervals_ms[i];

	/* Whole windows inside measured time only: a window cut by the
	 * warm-up or the end would read as a drop in FPS. */
	size_t first =
	    (size_t)((m->warmup_ns + SIM_NS_PER_S - 1) / SIM_NS_PER_S);
	size_t end = (size_t)(m->end_ns / SIM_NS_PER_S);
	size_t n = end > first ? end - first : 0, below = 0;
	double *fps = NULL;
	out->fps_p1 = 0.0;
	out->below_sla_pct = 0.0;
	if (n > 0) {
		fps = malloc(n * sizeof(*fps));
		if (!fps)
			return false;
		for (size_t i = 0; i < n; i++) {
			fps[i] = m->frames_per_s[first + i];
			if (fps[i] < out->sla_fps)
				below++;
		}
		out->below_sla_pct = 100.0 * (double)below / (double)n;
		out->fps_p1 = sim_percentile(fps, n, 1.0);
		free(fps);
	}

	out->fps_per_s = m->frames_per_s;
	out->target_per_s = m->target_per_s;
	out->n_secs = m->n_secs;
	m->frames_per_s = NULL;
	m->target_per_s = NULL;
	return true;
}
