/* Space harvesting's figures for `baton sim` (sim_combo_report.h). */
#include "sim/combo/sim_combo_report.h"

void sim_combo_report_text(FILE *out, const struct sim_result *r)
{
	if (!r->combo)
		return;
	const struct sim_combo_result *c = &r->combo_result;
	fprintf(out, "%-11s %8s %12s %9s %8s %7s %11s %6s %9s\n", "scheme",
	        "frames", "BE/frame", "mean FPS", "p99 FPS", "late",
	        "integrated", "held", "switches");
	for (size_t i = 0; i < c->n_runs; i++) {
		const struct sim_combo_run *s = &c->runs[i];
		fprintf(out,
		        "%-11s %8llu %12.3f %9.2f %8.2f %6.2f%% %10.1f%% %6llu "
		        "%9llu\n",
		        sim_combo_scheme_name(s->scheme),
		        (unsigned long long)s->frames, s->kernels_per_frame,
		        s->fps_mean, s->fps_p99, s->late_pct, s->integrated_pct,
		        (unsigned long long)s->held,
		        (unsigned long long)s->switches);
	}
	/* Against the temporal baseline (PilotFish) where it ran. */
	const struct sim_combo_run *base = NULL;
	for (size_t i = 0; i < c->n_runs; i++)
		if (c->runs[i].scheme == SIM_COMBO_TEMPORAL)
			base = &c->runs[i];
	if (!base || !(base->be_kernels > 0.0))
		return;
	for (size_t i = 0; i < c->n_runs; i++) {
		const struct sim_combo_run *s = &c->runs[i];
		if (s == base)
			continue;
		fprintf(out, "%s: BE throughput %+.1f%% over temporal\n",
		        sim_combo_scheme_name(s->scheme),
		        100.0 * (s->be_kernels / base->be_kernels - 1.0));
	}
}

json_t *sim_combo_run_json(const struct sim_result *r)
{
	json_t *a = json_array();
	const struct sim_combo_result *c = &r->combo_result;
	for (size_t i = 0; a && i < c->n_runs; i++) {
		const struct sim_combo_run *s = &c->runs[i];
		json_t *o = json_pack(
		    "{s:s, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I}",
		    "scheme", sim_combo_scheme_name(s->scheme), "frames",
		    (json_int_t)s->frames, "be_kernels", s->be_kernels,
		    "kernels_per_frame", s->kernels_per_frame, "fps_mean",
		    s->fps_mean, "fps_p99", s->fps_p99, "late_pct", s->late_pct,
		    "integrated_pct", s->integrated_pct, "held",
		    (json_int_t)s->held, "switches", (json_int_t)s->switches);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}
