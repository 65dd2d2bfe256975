/* The simulator's entry point: sim_run checks a scenario, sets up the
 * engine (games, GPU, BE loops, the first events: refill, arrivals, the
 * first tick), runs the event loop (sim_events.c, the tick in sim_tick.c),
 * turns what it counted into per-tenant and whole-GPU results over the
 * measured time, and frees the engine. The engine's state and its event
 * model are described in sim_engine.h. */
#include "sim/engine/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/engine/metrics.h"
#include "sim/engine/sim_engine.h"
#include "sim/engine/validate.h"

static void sim_free(struct sim *s)
{
	if (s->games)
		for (uint32_t i = 0; i < s->n; i++)
			sim_game_finish(&s->games[i]);
	free(s->games);
	free(s->core);
	free(s->roster);
	free(s->roster_of);
	free(s->tick_exec_ns);
	free(s->tick_held_ns);
	free(s->warm_exec_ns);
	free(s->util_per_s);
	free(s->joined_s);
	free(s->broken_per_s);
	free(s->counted_per_s);
	free(s->be);
	free(s->be_roster);
	free(s->be_of);
	free(s->quality_ws);
	free(s->q_benefit_per_s);
	sim_gpu_finish(&s->gpu);
	sim_heap_finish(&s->heap);
}

/* The per-tenant and per-second arrays and the quality stage's
 * workspace, zeroed; false when out of memory. */
static bool sim_alloc(struct sim *s)
{
	uint32_t n = s->n;
	s->games = calloc(n, sizeof(*s->games));
	s->core = calloc(n, sizeof(*s->core));
	s->roster = calloc(n, sizeof(*s->roster));
	s->roster_of = calloc(n, sizeof(*s->roster_of));
	s->tick_exec_ns = calloc(n, sizeof(*s->tick_exec_ns));
	s->tick_held_ns = calloc(n, sizeof(*s->tick_held_ns));
	s->warm_exec_ns = calloc(n, sizeof(*s->warm_exec_ns));
	s->util_per_s = calloc(s->n_secs, sizeof(*s->util_per_s));
	s->joined_s = calloc(n, sizeof(*s->joined_s));
	s->broken_per_s = calloc(s->n_secs + 1, 1);
	s->counted_per_s = calloc(s->n_secs + 1, 1);
	s->be = calloc(n, sizeof(*s->be));
	s->be_roster = calloc(n, sizeof(*s->be_roster));
	s->be_of = calloc(n, sizeof(*s->be_of));
	/* The quality stage's workspace, for the most tenants a tick sees. */
	size_t qws = core_quality_workspace_size(n);
	s->quality_ws = malloc(qws);
	s->core_gpu.quality.workspace = s->quality_ws;
	s->core_gpu.quality.workspace_size = s->quality_ws ? qws : 0;
	s->q_benefit_per_s = calloc(s->n_secs + 1, sizeof(double));
	return s->games && s->core && s->roster && s->roster_of &&
	       s->tick_exec_ns && s->tick_held_ns && s->warm_exec_ns &&
	       s->util_per_s && s->joined_s && s->broken_per_s &&
	       s->counted_per_s && s->be && s->be_roster && s->be_of &&
	       s->quality_ws && s->q_benefit_per_s;
}

/* Each tenant's game and best-effort state, the GPU (each tenant's
 * frames in flight at most its max_in_flight) and the event heap. */
static bool sim_init_tenants(struct sim *s, const struct sim_scenario *sc)
{
	uint32_t n = s->n;
	uint32_t *caps = calloc(n, sizeof(*caps));
	bool ok = caps != NULL;
	for (uint32_t i = 0; ok && i < n; i++) {
		int mif = sc->tenants[i].max_in_flight;
		caps[i] = mif > 0 ? (uint32_t)mif : 1;
		ok = sim_game_init(&s->games[i], &sc->tenants[i], sc->seed, i,
		                   s->warmup_ns, s->end_ns, sc->quality);
		sim_be_init(&s->be[i], &sc->tenants[i], &sc->harvest);
		if (sim_is_be(s, i))
			s->n_be++;
	}
	ok = ok && sim_gpu_init(&s->gpu, &sc->gpu, n, caps) &&
	     sim_heap_init(&s->heap, (size_t)n + 5);
	free(caps);
	return ok;
}

/* Everyone runs unpaced until the first tick, at one epoch; a tenant
 * waiting for admission starts when it is admitted. */
static void sim_start_tenants(struct sim *s, const struct sim_scenario *sc)
{
	for (uint32_t i = 0; i < s->n; i++) {
		s->joined_s[i] = -1.0;
		if (sim_is_be(s, i)) {
			/* Its loop starts at start_s, with an EV_BE. */
			s->games[i].start_ns = INT64_MAX;
			if (s->be[i].start_ns < s->end_ns) {
				s->joined_s[i] =
				    (double)s->be[i].start_ns / 1e9;
				sim_push_event(s, s->be[i].start_ns, EV_BE, i);
			}
			continue;
		}
		if (sc->tenants[i].admit) {
			s->games[i].start_ns = INT64_MAX;
			continue;
		}
		if (s->games[i].start_ns < s->end_ns) {
			s->joined_s[i] = (double)s->games[i].start_ns / 1e9;
			sim_begin_frame(s, i, s->games[i].start_ns);
		}
	}
}

static bool sim_setup(struct sim *s, const struct sim_scenario *sc)
{
	*s = (struct sim){0};
	s->sc = sc;
	s->policy = core_policy_find(sc->policy);
	s->n = (uint32_t)sc->n_tenants;
	s->warmup_ns = llround(sc->warmup_s * 1e9);
	s->end_ns = llround(sc->duration_s * 1e9);
	s->epoch_ns = llround(sc->params.epoch_s * 1e9);
	s->n_secs = sim_metrics_windows(s->end_ns);
	if (s->epoch_ns < 1)
		s->epoch_ns = 1;
	s->budget_model = sc->gpu.model == SIM_GPU_BUDGET;
	if (!sim_alloc(s) || !sim_init_tenants(s, sc))
		return false;

	/* The published caps hold until the capacity stage sets budgets;
	 * the refill at 0 is stage 0 of the first period. */
	if (s->budget_model) {
		for (uint32_t i = 0; i < s->n; i++) {
			sim_gpu_set_cap(&s->gpu, i, sc->tenants[i].cap);
			sim_gpu_set_work_conserving(
			    &s->gpu, i, sc->tenants[i].work_conserving);
		}
		sim_gpu_refill(&s->gpu, 0);
		if (s->gpu.slot_ns < s->end_ns)
			sim_push_event(s, s->gpu.slot_ns, EV_REFILL, 0);
	}
	sim_start_tenants(s, sc);
	if (s->epoch_ns < s->end_ns)
		sim_push_event(s, s->epoch_ns, EV_TICK, 0);
	sim_plan_next_sample(s);
	return !s->oom;
}

/* GPU grid's figures for one BE tenant (Sec. 5.2): P = p1 / p2, the
 * dedicated time of its work over the time it took shared, i.e. its rate
 * over its dedicated rate; Q = q1 / (q1 + q2), continuous sub-launches
 * over all. */
static void be_result(const struct sim *s, uint32_t i, double measured_s,
                      struct sim_tenant_result *r)
{
	const struct sim_be *b = &s->be[i];
	r->be = true;
	r->be_blocks_per_s = (double)(b->blocks - b->warm_blocks) / measured_s;
	double dedicated = sim_be_dedicated_rate(b->spec);
	r->be_p = dedicated > 0.0 ? r->be_blocks_per_s / dedicated : 0.0;
	uint64_t cont = b->continuous - b->warm_continuous;
	uint64_t all = cont + b->periodical - b->warm_periodical;
	r->be_q = all ? (double)cont / (double)all : 0.0;
	r->be_stuck_s = (double)b->stuck_ns / 1e9;
	r->be_run_while_stuck_ms = (double)b->run_while_stuck_ns / 1e6;
	r->be_launched_while_stuck =
	    b->launched_while_stuck - b->warm_launched_while_stuck;
}

/* The share of the games' idle GPU time the BE tenants used (PilotFish's
 * harvest measure): BE GPU time / (measured time - games' GPU time). */
static double harvest_share(const struct sim *s, const struct sim_result *out)
{
	if (s->n_be == 0)
		return -1.0;
	double be = 0.0, games = 0.0;
	for (uint32_t i = 0; i < s->n; i++) {
		if (sim_is_be(s, i))
			be += out->tenants[i].gpu_share;
		else
			games += out->tenants[i].gpu_share;
	}
	return games < 1.0 ? be / (1.0 - games) : 0.0;
}

static bool collect(struct sim *s, struct sim_result *out)
{
	const struct sim_scenario *sc = s->sc;
	double measured_s = (double)(s->end_ns - s->warmup_ns) / 1e9;
	snprintf(out->policy, sizeof(out->policy), "%s", s->policy->name);
	out->warmup_s = sc->warmup_s;
	out->duration_s = sc->duration_s;
	out->events = s->events;
	out->gpu_util =
	    (double)(sim_gpu_busy_ns(&s->gpu, s->end_ns) - s->warm_busy_ns) /
	    1e9 / measured_s;
	out->n_secs = s->n_secs;
	out->admitted = s->admitted;
	/* Whole windows inside measured time, as below_sla_pct. */
	size_t first =
	    (size_t)((s->warmup_ns + SIM_NS_PER_S - 1) / SIM_NS_PER_S);
	size_t last = (size_t)(s->end_ns / SIM_NS_PER_S);
	size_t judged = 0, broken = 0;
	for (size_t w = first; w < last; w++) {
		judged += s->counted_per_s[w];
		broken += s->broken_per_s[w];
	}
	out->qos_broken_pct =
	    judged ? 100.0 * (double)broken / (double)judged : 0.0;
	out->util_per_s = s->util_per_s;
	s->util_per_s = NULL;
	out->tenants = calloc(s->n, sizeof(*out->tenants));
	if (!out->tenants)
		return false;
	out->n_tenants = s->n;
	for (uint32_t i = 0; i < s->n; i++) {
		struct sim_tenant_result *r = &out->tenants[i];
		snprintf(r->name, sizeof(r->name), "%s", sc->tenants[i].name);
		r->sla_fps = sc->tenants[i].sla_fps;
		int64_t exec =
		    sim_gpu_exec_ns(&s->gpu, i, s->end_ns) - s->warm_exec_ns[i];
		r->gpu_share = (double)exec / 1e9 / measured_s;
		r->joined_s = s->joined_s[i];
		r->cap = s->core[i].caps.budget;
		if (!sim_metrics_summarize(&s->games[i].metrics, r))
			return false;
		if (sim_is_be(s, i))
			be_result(s, i, measured_s, r);
	}
	out->harvest = harvest_share(s, out);
	return sim_quality_collect(s, out);
}

bool sim_run(const struct sim_scenario *sc, struct sim_result *out,
             struct sim_error *err)
{
	*out = (struct sim_result){0};
	if (sc->combo.on) {
		out->duration_s = sc->duration_s;
		out->warmup_s = sc->warmup_s;
		out->harvest = -1.0;
		out->combo = true;
		if (sim_combo_run(&sc->combo, sc->duration_s, sc->warmup_s,
		                  sc->seed, &out->combo_result))
			return true;
		if (err) {
			*err = (struct sim_error){0};
			snprintf(err->msg, sizeof(err->msg),
			         "the combo model refused its input or ran out "
			         "of memory");
		}
		return false;
	}
	if (sc->fleet.on) {
		out->duration_s = sc->duration_s;
		out->harvest = -1.0;
		out->fleet = true;
		if (sim_fleet_run(&sc->fleet, &sc->params, sc->duration_s,
		                  sc->seed, &out->fleet_result))
			return true;
		if (err) {
			*err = (struct sim_error){0};
			snprintf(err->msg, sizeof(err->msg),
			         "the fleet model refused its input or ran out "
			         "of memory");
		}
		return false;
	}
	if (!sim_validate(sc, err))
		return false;
	struct sim s;
	bool ok = sim_setup(&s, sc);
	if (ok) {
		sim_run_events(&s);
		ok = !s.oom && collect(&s, out);
	}
	sim_free(&s);
	if (!ok) {
		sim_result_finish(out);
		if (err) {
			*err = (struct sim_error){0};
			snprintf(err->msg, sizeof(err->msg), "out of memory");
		}
	}
	return ok;
}
