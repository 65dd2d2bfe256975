/* `baton sim --json`: the results as one JSON document. Keys keep their
 * insertion order and reals a fixed precision, so the same scenario and
 * seed give byte-identical output that scripts and tests can diff. */
#include <jansson.h>
#include <math.h>

#include "cli/cli.h"
#include "sim/combo/sim_combo_report.h"
#include "sim/fleet/sim_fleet_report.h"
#include "sim/quality/sim_quality_report.h"

/* jansson refuses NaN and infinities; a figure that could not be computed
 * is null rather than a broken document. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* json_object_set_new takes the reference, also on failure; a NULL value
 * (out of memory) makes the set fail, which the caller sees. */
static bool set(json_t *obj, const char *key, json_t *value)
{
	return json_object_set_new(obj, key, value) == 0;
}

/* The frames of each whole second from 0 (warm-up included), so that a
 * script can judge a tenant only while it is present (start_s, stop_s)
 * and compare second by second with a measurement. */
static json_t *per_second(const struct sim_tenant_result *t)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < t->n_secs; i++) {
		if (json_array_append_new(a, num(t->fps_per_s[i]))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *tenant_json(const struct cli_report *r,
                           const struct sim_tenant_result *t, size_t index)
{
	json_t *o = json_object();
	bool ok = o && set(o, "name", json_string(t->name)) &&
	          set(o, "sla_fps", num(t->sla_fps)) &&
	          set(o, "fps_mean", num(t->fps_mean)) &&
	          set(o, "fps_p1", num(t->fps_p1)) &&
	          set(o, "frame_ms_p99", num(t->frame_ms_p99)) &&
	          set(o, "frame_ms_max", num(t->frame_ms_max)) &&
	          set(o, "below_sla_pct", num(t->below_sla_pct)) &&
	          set(o, "gpu_share", num(t->gpu_share)) &&
	          set(o, "fps_per_s", per_second(t));
	if (ok && t->be)
		ok = set(o, "be_blocks_per_s", num(t->be_blocks_per_s)) &&
		     set(o, "be_p", num(t->be_p)) &&
		     set(o, "be_q", num(t->be_q)) &&
		     set(o, "be_stuck_s", num(t->be_stuck_s)) &&
		     set(o, "be_run_while_stuck_ms",
		         num(t->be_run_while_stuck_ms)) &&
		     set(o, "be_launched_while_stuck",
		         json_integer((json_int_t)t->be_launched_while_stuck));
	if (ok && t->quality)
		ok = set(o, "quality", sim_quality_tenant_json(t));
	if (ok && cli_uses_capacity(r->sc))
		ok = set(o, "joined_s",
		         t->joined_s >= 0 ? json_real(t->joined_s)
		                          : json_null()) &&
		     set(o, "cap", num(t->cap));
	/* Sweeps study convergence (vGASA Fig. 8), which the summary
	 * figures above do not show. */
	if (ok && r->sweep) {
		double ref = cli_reference_fps(r->sc, t, index);
		double settle = cli_settle_s(t, ref, CLI_SETTLE_TOL);
		ok = set(o, "fps_last5s", num(cli_tail_fps(t, CLI_TAIL_S))) &&
		     set(o, "settle_s",
		         settle >= 0 ? json_real(settle) : json_null());
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The figures of one run, added to obj. */
static bool add_run(json_t *obj, const struct cli_report *r,
                    const struct sim_result *res)
{
	json_t *tenants = json_array();

	if (!set(obj, "duration_s", num(res->duration_s)) ||
	    !set(obj, "warmup_s", num(res->warmup_s)) ||
	    !set(obj, "gpu_util", num(res->gpu_util)) ||
	    !set(obj, "tenants", tenants))
		return false;
	if (res->harvest >= 0.0 && !set(obj, "harvest", num(res->harvest)))
		return false;
	if (res->combo && !set(obj, "combo", sim_combo_run_json(res)))
		return false;
	if (res->fleet &&
	    (!set(obj, "fleet", sim_fleet_run_json(res)) ||
	     !set(obj, "arrivals",
	          json_integer((json_int_t)res->fleet_result.arrivals))))
		return false;
	if (res->quality && !set(obj, "quality", sim_quality_run_json(res)))
		return false;
	if (cli_uses_capacity(r->sc) &&
	    (!set(obj, "qos_broken_pct", num(res->qos_broken_pct)) ||
	     !set(obj, "admitted", json_integer(res->admitted))))
		return false;
	for (size_t i = 0; i < res->n_tenants; i++) {
		if (json_array_append_new(tenants,
		                          tenant_json(r, &res->tenants[i], i)))
			return false;
	}
	return true;
}

static json_t *build(const struct cli_report *r)
{
	json_t *root = json_object();

	if (!root || !set(root, "scenario", json_string(r->sc->name)) ||
	    !set(root, "policy", json_string(r->sc->policy)) ||
	    !set(root, "seed", json_integer((json_int_t)r->sc->seed)))
		goto fail;
	if (!r->sweep) {
		if (r->n_runs != 1 || !add_run(root, r, &r->runs[0].result))
			goto fail;
		return root;
	}
	json_t *sweep = json_array();
	if (!set(root, "sweep", sweep))
		goto fail;
	for (size_t i = 0; i < r->n_runs; i++) {
		struct core_pi_gains g = r->sc->params.pi;
		g.kp = r->runs[i].gains.kp;
		g.ki = r->runs[i].gains.ki;
		json_t *e = json_object();
		if (json_array_append_new(sweep, e) ||
		    !set(e, "kp", num(g.kp)) || !set(e, "ki", num(g.ki)) ||
		    !set(e, "pole", num(core_pi_pole(&g))) ||
		    !add_run(e, r, &r->runs[i].result))
			goto fail;
	}
	return root;
fail:
	json_decref(root);
	return NULL;
}

bool report_json(FILE *out, const struct cli_report *r)
{
	json_t *root = build(r);

	if (!root) {
		fprintf(stderr, "baton sim: out of memory building JSON\n");
		return false;
	}
	int rc =
	    json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(root);
	if (rc != 0 || fputc('\n', out) == EOF) {
		fprintf(stderr, "baton sim: cannot write the JSON report\n");
		return false;
	}
	return true;
}
