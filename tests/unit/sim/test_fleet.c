/* The fleet simulator (src/sim/sim_fleet*.c, docs/fleet-results.md): arrivals
 * follow the diurnal profile, Packed fills the fullest GPU and Distributed
 * the emptiest, a full fleet refuses, static counts overload where Baton's
 * admission (core_caps_admit) does not on the same arrivals, admission
 * waits for a quiet GPU, a seed gives the same day, and the scenario keys'
 * errors name their field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/policy.h"
#include "sim/scenario/scenario.h"
#include "sim/engine/sim.h"
#include "sim/fleet/sim_fleet.h"

static struct sim_fleet_game game(const char *name, double weight, double sla,
                                  double ms)
{
	struct sim_fleet_game g = {
	    .weight = weight, .sla_fps = sla, .n_levels = 1};
	snprintf(g.name, sizeof(g.name), "%s", name);
	g.cost_s[0] = ms / 1e3;
	g.ssim[0] = 1.0;
	return g;
}

/* One game of `ms` at 30 FPS on n GPUs, hand-placed arrivals. */
static struct sim_fleet_spec tiny(uint32_t gpus, double ms)
{
	struct sim_fleet_spec s = sim_fleet_spec_default();
	s.on = true;
	s.gpus = gpus;
	s.bin_s = 10.0;
	s.games[0] = game("g", 1.0, 30.0, ms);
	s.n_games = 1;
	return s;
}

static struct sim_fleet_run place(const struct sim_fleet_spec *s,
                                  const double *t, const double *len, size_t n,
                                  double duration, enum sim_fleet_placement pl,
                                  uint32_t per)
{
	uint8_t g[16] = {0};
	struct sim_fleet_arrivals a = {
	    .t_s = (double *)t, .len_s = (double *)len, .game = g, .n = n};
	struct core_params p = core_params_default();
	struct sim_fleet_run r;
	assert_true(n <= 16);
	assert_true(sim_fleet_place(s, &p, &a, duration, pl, per, &r));
	return r;
}

static void run_free(struct sim_fleet_run *r)
{
	free(r->sessions_per_bin);
	free(r->gpus_per_bin);
}

/* Counts per hour against the integral of lambda over the hour. */
static void test_diurnal(void **state)
{
	(void)state;
	struct sim_fleet_spec s = tiny(10, 1.0);
	s.rate_per_s = 0.5;
	s.amplitude = 0.8;
	s.peak_s = 20.0 * 3600.0;
	struct sim_fleet_arrivals a;
	assert_true(sim_fleet_arrivals_draw(&s, 86400.0, 7, &a));
	double count[24] = {0}, want[24] = {0};
	for (size_t i = 0; i < a.n; i++) {
		if (i > 0)
			assert_true(a.t_s[i] >= a.t_s[i - 1]);
		count[(int)(a.t_s[i] / 3600.0)] += 1.0;
	}
	for (int h = 0; h < 24; h++)
		for (int k = 0; k < 60; k++)
			want[h] += 60.0 * sim_fleet_rate(
			                      &s, h * 3600.0 + k * 60.0 + 30.0);
	double mc = 0, mw = 0;
	int argmax = 0;
	for (int h = 0; h < 24; h++) {
		mc += count[h] / 24;
		mw += want[h] / 24;
		if (count[h] > count[argmax])
			argmax = h;
		/* each hour within 5 sigma of its Poisson mean */
		assert_true(fabs(count[h] - want[h]) < 5.0 * sqrt(want[h]));
	}
	double sxy = 0, sxx = 0, syy = 0;
	for (int h = 0; h < 24; h++) {
		sxy += (count[h] - mc) * (want[h] - mw);
		sxx += (count[h] - mc) * (count[h] - mc);
		syy += (want[h] - mw) * (want[h] - mw);
	}
	assert_true(sxy / sqrt(sxx * syy) > 0.98);
	assert_true(argmax >= 18 && argmax <= 21);
	assert_true(fabs((double)a.n - 0.5 * 86400.0) < 5.0 * sqrt(43200.0));
	/* the mean length is the scenario's (exponential) */
	double sum = 0;
	for (size_t i = 0; i < a.n; i++)
		sum += a.len_s[i];
	assert_true(fabs(sum / (double)a.n - 3600.0) < 0.05 * 3600.0);
	sim_fleet_arrivals_free(&a);
}

/* Three GPUs of two slots, three arrivals that stay: Packed puts the
 * second on the first GPU (2 in use), Distributed spreads them (3). The
 * seventh of seven finds the fleet full under both. */
static void test_packed_distributed_full(void **state)
{
	(void)state;
	struct sim_fleet_spec s = tiny(3, 1.0);
	const double t[] = {0, 1, 2, 3, 4, 5, 6};
	const double len[] = {100, 100, 100, 100, 100, 100, 100};
	struct sim_fleet_run p = place(&s, t, len, 3, 100, SIM_FLEET_PACKED, 2);
	struct sim_fleet_run d =
	    place(&s, t, len, 3, 100, SIM_FLEET_DISTRIBUTED, 2);
	assert_int_equal(p.peak_gpus, 2);
	assert_int_equal(d.peak_gpus, 3);
	assert_true(fabs(p.gpu_hours * 3600.0 - (100 + 98)) < 1e-6);
	assert_true(fabs(d.gpu_hours * 3600.0 - (100 + 99 + 98)) < 1e-6);
	assert_true(fabs(p.session_s - (100 + 99 + 98)) < 1e-6);
	run_free(&p);
	run_free(&d);
	for (int k = 0; k < 2; k++) {
		struct sim_fleet_run r =
		    place(&s, t, len, 7, 100,
		          k ? SIM_FLEET_DISTRIBUTED : SIM_FLEET_PACKED, 2);
		assert_int_equal(r.served, 6);
		assert_int_equal(r.refused, 1);
		assert_int_equal(r.peak_sessions, 6);
		run_free(&r);
	}
	/* a departure frees the slot: the next arrival is served */
	const double len2[] = {100, 100, 100, 100, 100, 0.5, 100};
	struct sim_fleet_run r =
	    place(&s, t, len2, 7, 100, SIM_FLEET_PACKED, 2);
	assert_int_equal(r.served, 7);
	assert_int_equal(r.refused, 0);
	run_free(&r);
}

/* Baton's admission needs cap_quiet quiet periods since the GPU's last
 * join (caps.h): a second light session a second after the first is
 * refused on a one-GPU fleet, one 5 s later is admitted. */
static void test_quiet(void **state)
{
	(void)state;
	struct sim_fleet_spec s = tiny(1, 1.0);
	const double t1[] = {0, 1}, t2[] = {0, 5}, len[] = {50, 50};
	struct sim_fleet_run a = place(&s, t1, len, 2, 50, SIM_FLEET_BATON, 0);
	struct sim_fleet_run b = place(&s, t2, len, 2, 50, SIM_FLEET_BATON, 0);
	assert_int_equal(a.refused, 1);
	assert_int_equal(b.refused, 0);
	run_free(&a);
	run_free(&b);
	/* and U_l: 0.3 of a GPU each, the third of three on one GPU is
	 * over 0.7 */
	s = tiny(1, 10.0);
	const double t3[] = {0, 10, 20}, len3[] = {50, 50, 50};
	struct sim_fleet_run c = place(&s, t3, len3, 3, 50, SIM_FLEET_BATON, 0);
	assert_int_equal(c.served, 2);
	assert_int_equal(c.refused, 1);
	assert_true(c.below_sla_s == 0.0);
	run_free(&c);
}

static struct sim_fleet_spec mixed(void)
{
	struct sim_fleet_spec s = sim_fleet_spec_default();
	s.on = true;
	s.gpus = 50;
	s.rate_per_s = 0.05;
	s.session_mean_s = 1800;
	s.counts[0] = 3;
	s.n_counts = 1;
	s.games[0] = game("heavy", 0.3, 30.0, 18.0); /* 0.54 of a GPU */
	s.games[1] = game("light", 0.7, 60.0, 2.0);  /* 0.12 */
	s.games[1].n_levels = 1;
	/* a quality game: 0.12 / 0.21 / 0.42 (djay-fig11) */
	s.games[2] = game("djay", 0.5, 30.0, 4.0);
	s.games[2].n_levels = 3;
	s.games[2].cost_s[1] = 7e-3;
	s.games[2].cost_s[2] = 14e-3;
	s.games[2].ssim[0] = 0.88;
	s.games[2].ssim[1] = 0.95;
	s.games[2].ssim[2] = 1.0;
	s.n_games = 3;
	return s;
}

static const struct sim_fleet_run *find(const struct sim_fleet_result *r,
                                        enum sim_fleet_placement p)
{
	for (size_t i = 0; i < r->n_runs; i++)
		if (r->runs[i].placement == p)
			return &r->runs[i];
	fail_msg("no run of placement %d", (int)p);
	return NULL;
}

/* Same arrivals: three a GPU of a mix with heavy games overloads GPUs,
 * Baton's placements never. */
static void test_overload_vs_baton(void **state)
{
	(void)state;
	struct sim_fleet_spec s = mixed();
	struct core_params p = core_params_default();
	struct sim_fleet_result r;
	assert_true(sim_fleet_run(&s, &p, 86400.0, 3, &r));
	assert_int_equal(r.n_runs, 4);
	for (size_t i = 0; i < r.n_runs; i++) {
		assert_int_equal(r.runs[i].arrivals, r.arrivals);
		assert_int_equal(r.runs[i].served + r.runs[i].refused,
		                 r.arrivals);
		assert_true(r.runs[i].peak_gpus <= s.gpus);
	}
	const struct sim_fleet_run *pk = find(&r, SIM_FLEET_PACKED);
	const struct sim_fleet_run *bt = find(&r, SIM_FLEET_BATON);
	const struct sim_fleet_run *bq = find(&r, SIM_FLEET_BATON_QUALITY);
	assert_true(pk->below_sla_s > 0.0);
	assert_true(bt->below_sla_s == 0.0);
	assert_true(bq->below_sla_s == 0.0);
	/* the quality lever trades SSIM for density (dJay) */
	assert_true(bq->density > bt->density);
	assert_true(bq->mean_ssim < 1.0 && bq->mean_ssim > 0.88);
	assert_true(fabs(bt->mean_ssim - 1.0) < 1e-9);
	sim_fleet_result_free(&r);
}

static void test_deterministic(void **state)
{
	(void)state;
	struct sim_fleet_spec s = mixed();
	struct core_params p = core_params_default();
	struct sim_fleet_result a, b, c;
	assert_true(sim_fleet_run(&s, &p, 43200.0, 11, &a));
	assert_true(sim_fleet_run(&s, &p, 43200.0, 11, &b));
	assert_true(sim_fleet_run(&s, &p, 43200.0, 12, &c));
	assert_int_equal(a.n_runs, b.n_runs);
	for (size_t i = 0; i < a.n_runs; i++) {
		const struct sim_fleet_run *x = &a.runs[i], *y = &b.runs[i];
		assert_int_equal(x->served, y->served);
		assert_int_equal(x->refused, y->refused);
		assert_true(x->below_sla_s == y->below_sla_s);
		assert_true(x->gpu_hours == y->gpu_hours);
		assert_int_equal(x->n_bins, y->n_bins);
		assert_memory_equal(x->sessions_per_bin, y->sessions_per_bin,
		                    x->n_bins * sizeof(double));
	}
	assert_true(a.arrivals != c.arrivals ||
	            a.runs[0].session_s != c.runs[0].session_s);
	sim_fleet_result_free(&a);
	sim_fleet_result_free(&b);
	sim_fleet_result_free(&c);
}

/* The small built-in runs through sim_run. */
static void test_builtin(void **state)
{
	(void)state;
	struct sim_scenario sc;
	struct sim_error err;
	if (!sim_scenario_load("fleet-day-small", &sc, &err))
		fail_msg("%s: %s", err.field, err.msg);
	assert_true(sc.fleet.on);
	assert_int_equal(sc.n_tenants, 0);
	struct sim_result r;
	assert_true(sim_run(&sc, &r, &err));
	assert_true(r.fleet);
	assert_int_equal(r.fleet_result.n_runs, 2 * sc.fleet.n_counts + 2);
	assert_true(r.fleet_result.arrivals > 1000);
	sim_result_finish(&r);
	sim_scenario_finish(&sc);
}

static void test_bad_keys(void **state)
{
	(void)state;
#define G                                                                      \
	"games = ({ name = \"g\"; sla_fps = 30; cost_ms = [4]; ssim = [1]; "   \
	"});"
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"name=\"x\"; fleet = { arrivals_per_s = 1; gpus = 0; " G " };",
	     "fleet.gpus"},
	    {"name=\"x\"; fleet = { " G " };", "arrivals_per_s"},
	    {"name=\"x\"; fleet = { arrivals_per_s = 1; };", "games"},
	    {"name=\"x\"; fleet = { arrivals_per_s = 1; per_gpu = [0]; " G
	     " };",
	     "fleet.per_gpu.[0]"},
	    {"name=\"x\"; fleet = { arrivals_per_s = 1; per_gpu = [2.5]; " G
	     " };",
	     "whole number"},
	    {"name=\"x\"; fleet = { arrivals_per_s = 1; placements = "
	     "[\"spread\"]; " G " };",
	     "unknown placement \"spread\""},
	    {"name=\"x\"; fleet = { arrivals_per_s = 1; games = ({ name = "
	     "\"g\"; sla_fps = 30; cost_ms = [4, 3]; ssim = [0.9, 1.0]; }); };",
	     "cheapest first"},
	    {"name=\"x\"; fleet = { arrivals_per_s = 1; games = ({ name = "
	     "\"g\"; sla_fps = 30; cost_ms = [4, 5]; ssim = [1]; }); };",
	     "fleet.games.[0].ssim: needs 2 numbers, not 1"},
	    {"name=\"x\"; duration_s = 86400; fleet = { arrivals_per_s = "
	     "1000; " G " };",
	     "more than"},
	    {"name=\"x\"; fleet = { arrivals_per_s = 1; amplitude = 2; " G
	     " };",
	     "amplitude"},
	    {"name=\"x\"; fleet = { arrivals_per_s = 1; nodes = 3; " G " };",
	     "nodes"},
	    {"name=\"x\"; combo = {}; fleet = { arrivals_per_s = 1; " G " };",
	     "not both"},
	};
#undef G
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_scenario sc;
		struct sim_error err;
		assert_false(
		    sim_scenario_parse(cases[i].text, "<t>", NULL, &sc, &err));
		char msg[600];
		sim_error_format(&err, msg, sizeof(msg));
		if (!strstr(msg, cases[i].want))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, msg,
			         cases[i].want);
		assert_true(err.line > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_diurnal),
	    cmocka_unit_test(test_packed_distributed_full),
	    cmocka_unit_test(test_quiet),
	    cmocka_unit_test(test_overload_vs_baton),
	    cmocka_unit_test(test_deterministic),
	    cmocka_unit_test(test_builtin),
	    cmocka_unit_test(test_bad_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
