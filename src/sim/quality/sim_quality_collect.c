/* The quality games' figures (sim.h struct sim_quality_result, phases; the
 * definitions are in docs/scenarios.md "Quality").
 *
 * Displayed SSIM of a window: the display refreshes at the SLA rate S
 * (dJay §2: 30 FPS); a refresh that finds no new frame shows the last one
 * again, a stale frame, whose SSIM against what should be on screen is
 * lower (dJay §8.4: "stale frames lower its SSIM"; the size is not given,
 * so Baton makes it a parameter). With F frames displayed in the window
 * and B the sum of their SSIM:
 *   F >= S: B / F;
 *   F <  S: (B + (S - F) x p x b) / S, b = B / F (the last frame's SSIM
 *           when F = 0), p = stale_penalty (multiplicative, default 0.5). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine/metrics.h"
#include "sim/engine/sim_engine.h"

/* Whether window w counts for game g (sim.h): whole, measured, from a
 * second after its start, until its stop. */
static bool counted(const struct sim *s, const struct sim_game *g, size_t w)
{
	int64_t from = (int64_t)w * SIM_NS_PER_S, to = from + SIM_NS_PER_S;
	return g->start_ns != INT64_MAX && from >= g->start_ns + SIM_NS_PER_S &&
	       from >= s->warmup_ns && to <= s->end_ns &&
	       (g->stop_ns < 0 || to <= g->stop_ns);
}

/* fps: the game's frames per window (its result's fps_per_s: the metrics
 * handed theirs over). */
static double window_ssim(const struct sim *s, const struct sim_game *g,
                          const double *fps, size_t w)
{
	const struct sim_qgame *q = g->q;
	double f = fps[w], S = g->spec->sla_fps;
	double b = q->ssim_sum_per_s[w];
	if (f >= S)
		return b / f;
	double mean = f > 0.0 ? b / f : q->last_per_s[w];
	return (b + (S - f) * s->sc->stale_penalty * mean) / S;
}

static bool below(const struct sim_game *g, const double *fps, size_t w)
{
	/* More than one frame short: one frame is a paced game's phase
	 * against the window's edges, not a missed SLA. */
	return fps[w] + 1.0 < g->spec->sla_fps;
}

static bool tenant(struct sim *s, uint32_t i, struct sim_tenant_result *r)
{
	struct sim_game *g = &s->games[i];
	struct sim_qgame *q = g->q;
	struct sim_quality_result *qr = calloc(1, sizeof(*qr));
	if (!qr)
		return false;
	r->quality = qr;
	qr->ssim_per_s = malloc((s->n_secs + 1) * sizeof(double));
	if (!qr->ssim_per_s)
		return false;
	double sum = 0.0;
	qr->min_fps = INFINITY;
	for (size_t w = 0; w < s->n_secs; w++) {
		qr->ssim_per_s[w] = NAN;
		if (!counted(s, g, w))
			continue;
		double v = window_ssim(s, g, r->fps_per_s, w);
		qr->ssim_per_s[w] = v;
		sum += v;
		qr->windows += 1.0;
		qr->min_fps = fmin(qr->min_fps, r->fps_per_s[w]);
		qr->secs_below += below(g, r->fps_per_s, w);
	}
	qr->mean_ssim = qr->windows > 0 ? sum / qr->windows : 0.0;
	if (!(qr->windows > 0))
		qr->min_fps = 0.0;
	qr->refused = s->core[i].quality.refused;
	qr->level = q->level;
	qr->level_per_s = q->level_per_s;
	q->level_per_s = NULL;
	qr->changes = q->changes;
	qr->n_changes = q->n_changes;
	q->changes = NULL;
	qr->areas = q->areas;
	qr->n_areas = q->n_areas;
	q->areas = NULL;
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Phases between distinct start times of the quality games. */
static bool phases(struct sim *s, struct sim_result *out)
{
	double *t = malloc((s->n + 1) * sizeof(double));
	if (!t)
		return false;
	size_t m = 0;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->games[i].q && s->games[i].start_ns < s->end_ns)
			t[m++] = (double)s->games[i].start_ns / 1e9;
	qsort(t, m, sizeof(double), cmp_double);
	out->q_phases = calloc(m ? m : 1, sizeof(*out->q_phases));
	if (!out->q_phases) {
		free(t);
		return false;
	}
	for (size_t k = 0; k < m; k++) {
		if (k + 1 < m && t[k + 1] == t[k])
			continue;
		struct sim_quality_phase *p = &out->q_phases[out->q_n_phases++];
		p->t0_s = t[k];
		p->t1_s = k + 1 < m ? t[k + 1] : (double)s->end_ns / 1e9;
		p->min_fps = INFINITY;
		double sum = 0.0, n = 0.0;
		for (uint32_t i = 0; i < s->n; i++) {
			const struct sim_game *g = &s->games[i];
			if (!g->q || (double)g->start_ns / 1e9 > p->t0_s ||
			    (g->stop_ns >= 0 &&
			     (double)g->stop_ns / 1e9 <= p->t0_s))
				continue;
			p->players++;
			for (size_t w = (size_t)ceil(p->t0_s) + 1;
			     (double)(w + 1) <= p->t1_s && w < s->n_secs; w++) {
				if (!counted(s, g, w))
					continue;
				const struct sim_tenant_result *r =
				    &out->tenants[i];
				sum += r->quality->ssim_per_s[w];
				n += 1.0;
				p->min_fps = fmin(p->min_fps, r->fps_per_s[w]);
				p->secs_below += below(g, r->fps_per_s, w);
			}
		}
		p->windows = n;
		p->mean_ssim = n > 0 ? sum / n : NAN;
		if (!(n > 0))
			p->min_fps = NAN;
	}
	free(t);
	return true;
}

bool sim_quality_collect(struct sim *s, struct sim_result *out)
{
	for (uint32_t i = 0; i < s->n; i++)
		out->quality = out->quality || s->games[i].q;
	if (!out->quality)
		return true;
	snprintf(out->quality_mode, sizeof(out->quality_mode), "%s",
	         sim_quality_mode_name(s->sc->quality));
	double sum = 0.0;
	for (uint32_t i = 0; i < s->n; i++) {
		if (!s->games[i].q)
			continue;
		struct sim_tenant_result *r = &out->tenants[i];
		if (!tenant(s, i, r))
			return false;
		const struct sim_quality_result *q = r->quality;
		if (!(q->windows > 0))
			continue;
		out->q_games++;
		sum += q->mean_ssim;
		if (!q->refused && q->secs_below <= 0.01 * q->windows)
			out->q_density++;
	}
	out->q_mean_ssim = out->q_games ? sum / out->q_games : 0.0;
	out->q_refusals = (uint32_t)s->core_gpu.quality.refusals;
	out->q_benefit_per_s = s->q_benefit_per_s;
	s->q_benefit_per_s = NULL;
	return phases(s, out);
}
