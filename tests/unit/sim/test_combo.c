/* Space harvesting in the simulator (src/sim/combo/sim_combo.c, core/combo.h):
 * COMBO's Table 6 through the built-ins, shapes and figures derived
 * from the paper's numbers, not the paper's decimals. Stable frames: the
 * inter-SM split does about 1.5 mriq kernels a frame (ideal 1.53, the paper
 * 1.45), the relaxed scheme one (0.998), the frame rate is kept. Swinging
 * frames:
 * the split loses its lead (the paper: 1 against relaxed's 1.16), and the
 * adaptive policy does no worse than the split. Also the scenario keys'
 * errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>

#include "sim_test.h"
#include "sim/combo/sim_combo.h"

static struct sim_result run(const char *name)
{
	struct sim_scenario sc;
	struct sim_error err;
	if (!sim_scenario_load(name, &sc, &err))
		fail_msg("%s: %s: %s", name, err.field, err.msg);
	assert_true(sc.combo.on);
	assert_int_equal(sc.n_tenants, 0);
	struct sim_result r;
	if (!sim_run(&sc, &r, &err))
		fail_msg("%s: %s", name, err.msg);
	sim_scenario_finish(&sc);
	assert_true(r.combo);
	assert_int_equal(r.combo_result.n_runs, SIM_COMBO_N_SCHEMES);
	return r;
}

static const struct sim_combo_run *scheme(const struct sim_result *r,
                                          enum sim_combo_scheme s)
{
	for (size_t i = 0; i < r->combo_result.n_runs; i++)
		if (r->combo_result.runs[i].scheme == s)
			return &r->combo_result.runs[i];
	fail_msg("no %s run", sim_combo_scheme_name(s));
	return NULL;
}

static void show(const char *what, const struct sim_result *r)
{
	for (size_t i = 0; i < r->combo_result.n_runs; i++) {
		const struct sim_combo_run *s = &r->combo_result.runs[i];
		print_message("%s %-10s %.3f kernels/frame, %.2f FPS, p99 "
		              "%.2f, late %.2f %%, integrated %.0f %%\n",
		              what, sim_combo_scheme_name(s->scheme),
		              s->kernels_per_frame, s->fps_mean, s->fps_p99,
		              s->late_pct, s->integrated_pct);
	}
}

static void test_table6_stable(void **state)
{
	(void)state;
	struct sim_result r = run("combo-table6-stable");
	show("stable", &r);
	const struct sim_combo_run *tem = scheme(&r, SIM_COMBO_TEMPORAL);
	const struct sim_combo_run *rel = scheme(&r, SIM_COMBO_RELAXED);
	const struct sim_combo_run *in = scheme(&r, SIM_COMBO_INTEGRATED);
	const struct sim_combo_run *ad = scheme(&r, SIM_COMBO_ADAPTIVE);
	/* 1.9 ms of headroom holds one 1.2-ms kernel */
	assert_true(fabs(rel->kernels_per_frame - 1.0) < 0.02);
	assert_true(fabs(tem->kernels_per_frame - 1.0) < 0.02);
	/* 9 SMs of 82 for the whole period: 1.53 at most */
	assert_true(in->kernels_per_frame > 1.40);
	assert_true(in->kernels_per_frame <= 9.0 / 82 * 16.7 / 1.2 + 0.01);
	/* the adaptive policy finds the load stable */
	assert_true(ad->integrated_pct > 95.0);
	assert_true(ad->kernels_per_frame > 1.40);
	for (size_t i = 0; i < r.combo_result.n_runs; i++) {
		const struct sim_combo_run *s = &r.combo_result.runs[i];
		assert_true(s->late_pct == 0.0);
		assert_true(fabs(s->fps_mean - 59.88) < 0.1);
	}
	sim_result_finish(&r);
}

static void test_table6_dynamic(void **state)
{
	(void)state;
	struct sim_result r = run("combo-table6-dynamic");
	show("dynamic", &r);
	const struct sim_combo_run *tem = scheme(&r, SIM_COMBO_TEMPORAL);
	const struct sim_combo_run *rel = scheme(&r, SIM_COMBO_RELAXED);
	const struct sim_combo_run *in = scheme(&r, SIM_COMBO_INTEGRATED);
	const struct sim_combo_run *ad = scheme(&r, SIM_COMBO_ADAPTIVE);
	/* the split loses its lead to the relaxed scheme */
	assert_true(rel->kernels_per_frame > in->kernels_per_frame);
	assert_true(in->kernels_per_frame < 1.2);
	/* co-running in the RT phase beats the temporal window alone */
	assert_true(rel->kernels_per_frame > tem->kernels_per_frame);
	/* the adaptive policy: more than the split, fewer late frames */
	assert_true(ad->kernels_per_frame > in->kernels_per_frame);
	assert_true(ad->late_pct <= in->late_pct);
	assert_true(ad->integrated_pct < 50.0);
	assert_true(rel->late_pct == 0.0 && tem->late_pct == 0.0);
	sim_result_finish(&r);
}

static void test_bad_keys(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"name=\"x\"; combo = { sm_total = 0; };", "sm_total"},
	    {"name=\"x\"; combo = { trace = \"wavy\"; };", "unknown value"},
	    {"name=\"x\"; combo = { schemes = [\"fast\"]; };",
	     "unknown scheme \"fast\""},
	    {"name=\"x\"; combo = { trace = \"dynamic\"; rt_lo_ms = 15; "
	     "rt_mean_ms = 14; };",
	     "rt_lo_ms < rt_mean_ms < rt_hi_ms"},
	    {"name=\"x\"; combo = { corun_gain = 0.5; };", "corun_gain"},
	    {"name=\"x\"; combo = { rt_share = 2; };", "rt_share"},
	    {"name=\"x\"; combo = { fps = 60; speed = 1; };", "speed"},
	    {"name=\"x\"; duration_s = 86400; combo = { step_us = 1; };",
	     "more than 2e9"},
	};
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
	}
	/* Without a combo group, tenants are still required. */
	struct sim_scenario sc;
	struct sim_error err;
	assert_false(sim_scenario_parse("name=\"x\";", "<t>", NULL, &sc, &err));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table6_stable),
	    cmocka_unit_test(test_table6_dynamic),
	    cmocka_unit_test(test_bad_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
