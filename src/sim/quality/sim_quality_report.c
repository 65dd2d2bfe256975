/* The quality figures of a run in `baton sim`'s text and JSON reports
 * (sim_quality_report.h; definitions in docs/scenarios.md "Quality"). */
#include "sim/quality/sim_quality_report.h"

#include <math.h>

#define SHOWN_CHANGES 6 /* level changes listed per game in the text */

void sim_quality_report_text(FILE *out, const struct sim_result *r)
{
	if (!r->quality)
		return;
	fprintf(out,
	        "quality %s: mean SSIM %.4f over %u games, density %u (held "
	        "at SLA), joins refused %u\n",
	        r->quality_mode, r->q_mean_ssim, r->q_games, r->q_density,
	        r->q_refusals);
	fprintf(out, "%-10s %5s %9s %7s %7s  %s\n", "game", "level",
	        "mean SSIM", "min FPS", "s below", "level changes (s: level)");
	for (size_t i = 0; i < r->n_tenants; i++) {
		const struct sim_quality_result *q = r->tenants[i].quality;
		if (!q)
			continue;
		fprintf(out, "%-10s %5u %9.4f %7.0f %7.0f ", r->tenants[i].name,
		        q->level, q->mean_ssim, q->min_fps, q->secs_below);
		for (size_t c = 0; c < q->n_changes && c < SHOWN_CHANGES; c++)
			fprintf(out, " %.2f:%u", q->changes[c].t_s,
			        q->changes[c].level);
		if (q->n_changes > SHOWN_CHANGES)
			fprintf(out, " ... (%zu)", q->n_changes);
		fprintf(out, "%s%s\n", q->n_changes ? "" : " none",
		        q->refused ? " (join refused)" : "");
	}
	fprintf(out, "%-8s %7s %7s %9s %7s %7s\n", "players", "from s", "to s",
	        "mean SSIM", "min FPS", "s below");
	for (size_t k = 0; k < r->q_n_phases; k++) {
		const struct sim_quality_phase *p = &r->q_phases[k];
		fprintf(out, "%-8u %7.1f %7.1f %9.4f %7.0f %7.0f\n", p->players,
		        p->t0_s, p->t1_s, p->mean_ssim, p->min_fps,
		        p->secs_below);
	}
}

/* NaN (no value) as JSON null. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *series(const double *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, num(v[i]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

json_t *sim_quality_tenant_json(const struct sim_tenant_result *t)
{
	const struct sim_quality_result *q = t->quality;
	json_t *o = json_object(), *ch = json_array(), *ar = json_array();
	if (!o || !ch || !ar)
		goto fail;
	for (size_t c = 0; c < q->n_changes; c++)
		if (json_array_append_new(
		        ch, json_pack("{s:f,s:I,s:i}", "t_s", q->changes[c].t_s,
		                      "frame", (json_int_t)q->changes[c].frame,
		                      "level", (int)q->changes[c].level)))
			goto fail;
	for (size_t c = 0; c < q->n_areas; c++)
		if (json_array_append_new(
		        ar, json_pack("{s:f,s:I,s:i}", "t_s", q->areas[c].t_s,
		                      "frame", (json_int_t)q->areas[c].frame,
		                      "area", (int)q->areas[c].area)))
			goto fail;
	if (json_object_set_new(o, "mean_ssim", num(q->mean_ssim)) ||
	    json_object_set_new(o, "min_fps", num(q->min_fps)) ||
	    json_object_set_new(o, "secs_below", num(q->secs_below)) ||
	    json_object_set_new(o, "refused", json_boolean(q->refused)) ||
	    json_object_set_new(o, "level", json_integer(q->level)) ||
	    json_object_set_new(o, "ssim_per_s",
	                        series(q->ssim_per_s, t->n_secs)) ||
	    json_object_set_new(o, "level_per_s",
	                        series(q->level_per_s, t->n_secs)) ||
	    json_object_set_new(o, "level_changes", ch) ||
	    json_object_set_new(o, "area_changes", ar))
		goto fail_o;
	return o;
fail:
	json_decref(ch);
	json_decref(ar);
fail_o:
	json_decref(o);
	return NULL;
}

json_t *sim_quality_run_json(const struct sim_result *r)
{
	json_t *o = json_object(), *ph = json_array();
	if (!o || !ph) {
		json_decref(o);
		json_decref(ph);
		return NULL;
	}
	for (size_t k = 0; k < r->q_n_phases; k++) {
		const struct sim_quality_phase *p = &r->q_phases[k];
		json_t *e = json_object();
		if (!e || json_array_append_new(ph, e) ||
		    json_object_set_new(e, "players",
		                        json_integer(p->players)) ||
		    json_object_set_new(e, "t0_s", num(p->t0_s)) ||
		    json_object_set_new(e, "t1_s", num(p->t1_s)) ||
		    json_object_set_new(e, "mean_ssim", num(p->mean_ssim)) ||
		    json_object_set_new(e, "min_fps", num(p->min_fps)) ||
		    json_object_set_new(e, "secs_below", num(p->secs_below)))
			goto fail;
	}
	if (json_object_set_new(o, "mode", json_string(r->quality_mode)) ||
	    json_object_set_new(o, "mean_ssim", num(r->q_mean_ssim)) ||
	    json_object_set_new(o, "games", json_integer(r->q_games)) ||
	    json_object_set_new(o, "density", json_integer(r->q_density)) ||
	    json_object_set_new(o, "refusals", json_integer(r->q_refusals)) ||
	    json_object_set_new(o, "benefit_per_s",
	                        series(r->q_benefit_per_s, r->n_secs)) ||
	    json_object_set_new(o, "phases", ph))
		goto fail_o;
	return o;
fail:
	json_decref(ph);
fail_o:
	json_decref(o);
	return NULL;
}
