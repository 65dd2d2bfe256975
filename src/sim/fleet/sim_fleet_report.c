/* The fleet simulator's figures for `baton sim` (sim_fleet_report.h). */
#include "sim/fleet/sim_fleet_report.h"

void sim_fleet_run_label(const struct sim_fleet_run *run, char *buf, size_t len)
{
	if (run->per_gpu)
		snprintf(buf, len, "%s %u",
		         sim_fleet_placement_name(run->placement),
		         (unsigned)run->per_gpu);
	else
		snprintf(buf, len, "%s",
		         sim_fleet_placement_name(run->placement));
}

void sim_fleet_report_text(FILE *out, const struct sim_result *r)
{
	if (!r->fleet)
		return;
	const struct sim_fleet_result *f = &r->fleet_result;
	fprintf(out, "%-15s %9s %8s %12s %7s %10s %9s %8s %6s %6s\n",
	        "placement", "served", "refused", "below-SLA s", "share",
	        "GPU-hours", "served/GPUh", "density", "SSIM", "peak");
	for (size_t i = 0; i < f->n_runs; i++) {
		const struct sim_fleet_run *s = &f->runs[i];
		char label[48];
		sim_fleet_run_label(s, label, sizeof(label));
		fprintf(out,
		        "%-15s %9llu %8llu %12.0f %6.2f%% %10.1f %11.2f %8.2f "
		        "%6.3f %6u\n",
		        label, (unsigned long long)s->served,
		        (unsigned long long)s->refused, s->below_sla_s,
		        100.0 * s->below_share, s->gpu_hours,
		        s->served_per_gpu_hour, s->density, s->mean_ssim,
		        (unsigned)s->peak_gpus);
	}
}

static json_t *series(const double *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_real(v[i]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

json_t *sim_fleet_run_json(const struct sim_result *r)
{
	json_t *a = json_array();
	const struct sim_fleet_result *f = &r->fleet_result;
	for (size_t i = 0; a && i < f->n_runs; i++) {
		const struct sim_fleet_run *s = &f->runs[i];
		json_t *o = json_pack(
		    "{s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, "
		    "s:f, s:I, s:I, s:o, s:o}",
		    "placement", sim_fleet_placement_name(s->placement),
		    "per_gpu", (json_int_t)s->per_gpu, "arrivals",
		    (json_int_t)s->arrivals, "served", (json_int_t)s->served,
		    "refused", (json_int_t)s->refused, "session_s",
		    s->session_s, "below_sla_s", s->below_sla_s, "below_share",
		    s->below_share, "gpu_hours", s->gpu_hours,
		    "served_per_gpu_hour", s->served_per_gpu_hour, "density",
		    s->density, "mean_ssim", s->mean_ssim, "peak_sessions",
		    (json_int_t)s->peak_sessions, "peak_gpus",
		    (json_int_t)s->peak_gpus, "sessions_per_bin",
		    series(s->sessions_per_bin, s->n_bins), "gpus_per_bin",
		    series(s->gpus_per_bin, s->n_bins));
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}
