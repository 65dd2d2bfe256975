/* The human summary of `baton sim`: a header line per run and an aligned
 * table with one row per tenant. */
#include <string.h>

#include "cli/cli.h"
#include "sim/combo/sim_combo_report.h"
#include "sim/fleet/sim_fleet_report.h"
#include "sim/quality/sim_quality_report.h"

static void header(FILE *out, const struct cli_report *r,
                   const struct sim_result *res)
{
	if (res->combo) {
		const struct sim_combo_spec *c = &r->sc->combo;
		fprintf(out,
		        "scenario %s  seed %llu  measured %.1f s  SM-level "
		        "model: %u SMs, QoS %.2f ms, BE kernel %.2f ms\n",
		        r->sc->name, (unsigned long long)r->sc->seed,
		        res->duration_s - res->warmup_s,
		        (unsigned)c->p.sm_total, 1e3 / c->fps,
		        c->be_kernel_s * 1e3);
		return;
	}
	if (res->fleet) {
		const struct sim_fleet_spec *f = &r->sc->fleet;
		fprintf(out,
		        "scenario %s  seed %llu  fleet of %u GPUs over %.1f h: "
		        "%llu arrivals, U_l %.2f\n",
		        r->sc->name, (unsigned long long)r->sc->seed,
		        (unsigned)f->gpus, res->duration_s / 3600.0,
		        (unsigned long long)res->fleet_result.arrivals,
		        r->sc->params.cap_u_limit);
		return;
	}
	fprintf(out,
	        "scenario %s  policy %s  seed %llu  measured %.1f s  "
	        "GPU utilization %.1f%%\n",
	        r->sc->name, r->sc->policy, (unsigned long long)r->sc->seed,
	        res->duration_s - res->warmup_s, res->gpu_util * 100.0);
}

bool cli_uses_capacity(const struct sim_scenario *sc)
{
	if (sc->gpu.model == SIM_GPU_BUDGET)
		return true;
	for (size_t i = 0; i < sc->n_tenants; i++)
		if (sc->tenants[i].cap > 0.0 || sc->tenants[i].admit)
			return true;
	return false;
}

/* gOver's figures: QoS broken time, arrivals, each tenant's cap. */
static void capacity(FILE *out, const struct sim_result *res)
{
	fprintf(out, "capacity: QoS broken in %.1f%% of seconds, %u admitted\n",
	        res->qos_broken_pct, res->admitted);
	for (size_t i = 0; i < res->n_tenants; i++) {
		const struct sim_tenant_result *t = &res->tenants[i];
		if (t->joined_s < 0.0)
			fprintf(out, "  %s: never admitted\n", t->name);
		else
			fprintf(out, "  %s: joined at %.1f s, cap %.3f\n",
			        t->name, t->joined_s, t->cap);
	}
}

/* Time harvesting (docs/harvesting.md): the harvest measure, and per BE
 * tenant its throughput and GPU grid's P and Q. */
static void harvest(FILE *out, const struct sim_result *res)
{
	fprintf(out, "harvest: BE used %.1f%% of the games' idle GPU time\n",
	        res->harvest * 100.0);
	for (size_t i = 0; i < res->n_tenants; i++) {
		const struct sim_tenant_result *t = &res->tenants[i];
		if (t->be)
			fprintf(out,
			        "  %s: %.1f blocks/s, P %.1f%% of dedicated, "
			        "Q %.1f%% continuous, GPU share %.1f%%\n",
			        t->name, t->be_blocks_per_s, t->be_p * 100.0,
			        t->be_q * 100.0, t->gpu_share * 100.0);
		/* The stuck rule (docs/harvesting.md), when it acted. */
		if (t->be &&
		    (t->be_stuck_s > 0.0 || t->be_run_while_stuck_ms > 0.0 ||
		     t->be_launched_while_stuck > 0))
			fprintf(out,
			        "    stuck %.2f s; while another was: ran "
			        "%.1f ms, released %llu sub-launches\n",
			        t->be_stuck_s, t->be_run_while_stuck_ms,
			        (unsigned long long)t->be_launched_while_stuck);
	}
}

static void table(FILE *out, const struct sim_result *res)
{
	int w = (int)strlen("tenant");

	for (size_t i = 0; i < res->n_tenants; i++) {
		int len = (int)strlen(res->tenants[i].name);
		if (len > w)
			w = len;
	}
	fprintf(out, "%-*s %7s %9s %7s %7s %10s %10s\n", w, "tenant", "SLA",
	        "mean FPS", "p1 FPS", "p99 ms", "below SLA", "GPU share");
	for (size_t i = 0; i < res->n_tenants; i++) {
		const struct sim_tenant_result *t = &res->tenants[i];
		if (t->be)
			continue; /* no frames: see harvest() */
		fprintf(out, "%-*s %7.1f %9.1f %7.1f %7.2f %9.1f%% %9.1f%%\n",
		        w, t->name, t->sla_fps, t->fps_mean, t->fps_p1,
		        t->frame_ms_p99, t->below_sla_pct,
		        t->gpu_share * 100.0);
	}
}

/* Per pair of a sweep: where each tenant ended up (mean over the last
 * seconds) and when it settled near its reference. */
static void sweep_figures(FILE *out, const struct cli_report *r,
                          const struct sim_result *res)
{
	for (size_t i = 0; i < res->n_tenants; i++) {
		const struct sim_tenant_result *t = &res->tenants[i];
		double ref = cli_reference_fps(r->sc, t, i);
		double settle = cli_settle_s(t, ref, CLI_SETTLE_TOL);
		fprintf(out, "  %s: last %g s %.2f FPS (reference %.2f), ",
		        t->name, CLI_TAIL_S, cli_tail_fps(t, CLI_TAIL_S), ref);
		if (settle >= 0)
			fprintf(out, "settled within %g%% after %g s\n",
			        CLI_SETTLE_TOL * 100.0, settle);
		else
			fprintf(out, "never settled within %g%%\n",
			        CLI_SETTLE_TOL * 100.0);
	}
}

void report_text(FILE *out, const struct cli_report *r)
{
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct cli_run *run = &r->runs[i];
		if (i > 0)
			fputc('\n', out);
		if (r->sweep) {
			struct core_pi_gains g = r->sc->params.pi;
			g.kp = run->gains.kp;
			g.ki = run->gains.ki;
			fprintf(out, "kp=%g ki=%g (closed-loop pole %.3f)\n",
			        g.kp, g.ki, core_pi_pole(&g));
		}
		header(out, r, &run->result);
		if (run->result.combo) {
			sim_combo_report_text(out, &run->result);
			continue;
		}
		if (run->result.fleet) {
			sim_fleet_report_text(out, &run->result);
			continue;
		}
		table(out, &run->result);
		if (cli_uses_capacity(r->sc))
			capacity(out, &run->result);
		if (run->result.harvest >= 0.0)
			harvest(out, &run->result);
		sim_quality_report_text(out, &run->result);
		if (r->sweep)
			sweep_figures(out, r, &run->result);
	}
}
