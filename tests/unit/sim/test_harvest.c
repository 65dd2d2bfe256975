/* Time harvesting in the simulator (docs/harvesting.md): the GPU grid
 * built-ins reproduce the shapes of Tables 3 and 4 of Ino et al. 2014 on
 * the non-preemptive FIFO GPU, driven by the core's harvesting stage, and
 * Baton's telemetry-driven window keeps the game's rate while BE work
 * takes most of its idle GPU time. Tolerances are stated per assertion;
 * where the model misses the paper (browsing's Q) the test pins what the
 * model does and docs/harvesting.md says why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>

#include "sim_test.h"

static struct sim_result builtin(const char *name)
{
	struct sim_scenario sc;
	struct sim_error err;
	if (!sim_scenario_load(name, &sc, &err))
		fail_msg("%s: %s: %s", name, err.field, err.msg);
	struct sim_result r = test_run(&sc);
	sim_scenario_finish(&sc);
	return r;
}

/* The BE tenant of a run (the last tenant in these scenarios). */
static const struct sim_tenant_result *guest(const struct sim_result *r)
{
	const struct sim_tenant_result *t = &r->tenants[r->n_tenants - 1];
	assert_true(t->be);
	return t;
}

/* Table 3: host FPS original / naive / shared, 28.7 / 4.0 / 28.6 and
 * 60.0 / 0.3 / 60.0. Shared within 1 % of the host alone; naive far
 * below (under a fifth, and under a fiftieth for the renderer). */
static void test_table3(void **state)
{
	(void)state;
	static const char *hosts[] = {"browsing", "rendering"};
	static const double naive_max[] = {0.2, 0.02};
	for (int h = 0; h < 2; h++) {
		char name[64];
		snprintf(name, sizeof(name), "gpugrid-%s-alone", hosts[h]);
		struct sim_result alone = builtin(name);
		snprintf(name, sizeof(name), "gpugrid-%s-naive", hosts[h]);
		struct sim_result naive = builtin(name);
		snprintf(name, sizeof(name), "gpugrid-%s", hosts[h]);
		struct sim_result shared = builtin(name);
		double a = alone.tenants[0].fps_mean;
		double n = naive.tenants[0].fps_mean;
		double s = shared.tenants[0].fps_mean;
		print_message("%s: alone %.1f naive %.2f shared %.1f FPS\n",
		              hosts[h], a, n, s);
		assert_true(fabs(s - a) <= 0.01 * a);
		assert_true(n < naive_max[h] * a);
		assert_true(n > 0.0); /* FIFO: it still gets a frame through */
		sim_result_finish(&alone);
		sim_result_finish(&naive);
		sim_result_finish(&shared);
	}
}

/* Table 4: P / Q, nothing 93.7 / 92.8 %, browsing 45.9 / 21.8 %, rendering
 * 35.0 / 0.0 %. Nothing and rendering within 2 points of the paper; the
 * ordering nothing > browsing, rendering on both. Browsing's Q is 0 here
 * (a steady 35 ms frame loop never leaves three probes in a row quiet),
 * so its P sits with rendering's, not 11 points above it. */
static void test_table4(void **state)
{
	(void)state;
	struct sim_result none = builtin("gpugrid-nothing");
	struct sim_result br = builtin("gpugrid-browsing");
	struct sim_result re = builtin("gpugrid-rendering");
	const struct sim_tenant_result *n = guest(&none), *b = guest(&br),
	                               *r = guest(&re);
	print_message("P/Q nothing %.1f/%.1f browsing %.1f/%.1f rendering "
	              "%.1f/%.1f; harvest %.1f %.1f %.1f %%\n",
	              100 * n->be_p, 100 * n->be_q, 100 * b->be_p,
	              100 * b->be_q, 100 * r->be_p, 100 * r->be_q,
	              100 * none.harvest, 100 * br.harvest, 100 * re.harvest);
	assert_true(fabs(n->be_p - 0.937) < 0.02);
	assert_true(fabs(n->be_q - 0.928) < 0.02);
	assert_true(fabs(r->be_p - 0.350) < 0.02);
	assert_true(r->be_q < 0.005);
	assert_true(n->be_p > b->be_p + 0.3 && n->be_p > r->be_p + 0.3);
	assert_true(n->be_q > b->be_q && b->be_q >= r->be_q);
	assert_true(fabs(b->be_p - r->be_p) < 0.02);
	sim_result_finish(&none);
	sim_result_finish(&br);
	sim_result_finish(&re);
}

/* harvest-baton with the slot or without, or its game alone (the BE
 * tenant is the last). */
static struct sim_result harvest_baton(bool align, bool game_alone)
{
	struct sim_scenario sc;
	struct sim_error err;
	if (!sim_scenario_load("harvest-baton", &sc, &err))
		fail_msg("harvest-baton: %s: %s", err.field, err.msg);
	sc.harvest.align = align;
	size_t n = sc.n_tenants;
	assert_true(sc.tenants[n - 1].be.gate != SIM_BE_NONE);
	if (game_alone)
		sc.n_tenants = n - 1;
	struct sim_result r = test_run(&sc);
	sc.n_tenants = n;
	sim_scenario_finish(&sc);
	return r;
}

/* Baton's window (Eq. 1 from the shim's H and F), with and without the
 * slot (harvest_slot.h). Both keep the game's mean rate and take far more
 * of its idle time than GPU grid's fixed duty cycle on the same GPU.
 * Sub-launches at any phase take the most (PilotFish reports 85 %) but
 * delay frames past their deadlines: some seconds fall under the SLA.
 * In the slot, none does and the frame tail is the game's own (within
 * 1 % of the game alone), for less of the idle time: the slot leaves out
 * the next frame's CPU phase and a k of possible draining
 * (harvest_slot.h). */
static void test_baton_window(void **state)
{
	(void)state;
	struct sim_result a = harvest_baton(true, false);
	struct sim_result u = harvest_baton(false, false);
	struct sim_result alone = harvest_baton(true, true);
	struct sim_result g = builtin("gpugrid-rendering");
	print_message("Baton, slot: game %.2f FPS, p99 %.2f ms, %.1f %% of "
	              "seconds below, harvest %.1f %%\n",
	              a.tenants[0].fps_mean, a.tenants[0].frame_ms_p99,
	              a.tenants[0].below_sla_pct, 100 * a.harvest);
	print_message("Baton, any phase: game %.2f FPS, p99 %.2f ms, %.1f %% "
	              "of seconds below, harvest %.1f %%\n",
	              u.tenants[0].fps_mean, u.tenants[0].frame_ms_p99,
	              u.tenants[0].below_sla_pct, 100 * u.harvest);
	for (int k = 0; k < 2; k++) {
		const struct sim_result *r = k ? &u : &a;
		assert_true(r->tenants[0].fps_mean > 0.995 * 60.0);
		/* No frame waits past one period behind a sub-launch. */
		assert_true(r->tenants[0].frame_ms_p99 < 2 * 1000.0 / 60.0);
		assert_true(r->harvest > g.harvest + 0.2);
	}
	assert_true(u.harvest >= 0.8);
	assert_true(u.tenants[0].below_sla_pct > 0.0);
	assert_true(a.tenants[0].below_sla_pct == 0.0);
	assert_true(a.tenants[0].frame_ms_p99 <=
	            1.01 * alone.tenants[0].frame_ms_p99);
	assert_true(u.tenants[0].frame_ms_p99 >
	            1.01 * alone.tenants[0].frame_ms_p99);
	assert_true(a.harvest >= 0.55);
	assert_true(g.harvest < 0.4);
	sim_result_finish(&a);
	sim_result_finish(&u);
	sim_result_finish(&alone);
	sim_result_finish(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table3),
	    cmocka_unit_test(test_table4),
	    cmocka_unit_test(test_baton_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
