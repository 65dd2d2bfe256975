/* Space harvesting with kernel classes and two BE applications
 * (src/sim/combo/sim_combo_apps.c) and COMBO's sweep (sim_combo_sweep.c):
 *   - rate sharing as Table 3 measured it: a CD + TC pair of equal solo
 *     times takes (1 - 0.4412)(T1 + T2), two CD kernels (same class) no
 *     less than back to back;
 *   - the pairing rule as the model runs it: no TC kernel beside the RT
 *     phase, no BE kernel beside the game's CD phase;
 *   - the sweep's shapes on a subset of the 128 groups (Figs. 13, 14, 16,
 *     17): COMBO above PilotFish in every group, compute-bound BE gaining
 *     more than memory-bound, the frame rate kept, merging not costing
 *     throughput on average. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>

#include "sim/combo/sim_combo_sweep.h"

/* A game that renders 1 ms of CD work (no RT phase) every 10 ms, and two
 * applications of 1-ms kernels of the given classes. */
static struct sim_combo_mix window_mix(enum core_combo_kclass a,
                                       enum core_combo_kclass b)
{
	struct sim_combo_mix mx = {
	    .p = core_combo_params_default(),
	    .fps = 100.0,
	    .trace = SIM_COMBO_STABLE,
	    .rt_s = 0.001,
	    .calm_frames = 1e12, /* the level never moves */
	    .rt_share = 0.0,
	    .apps = {{"a", false, 1, {a}, {0.001}},
	             {"b", false, 1, {b}, {0.001}}},
	    .m = sim_combo_pairs_table3(),
	    .step_s = 1e-5,
	};
	mx.p.eps = 0.0;
	return mx;
}

static double per_frame(const struct sim_combo_mix *mx, enum sim_combo_scheme s,
                        struct sim_combo_mix_run *r)
{
	assert_true(sim_combo_mix_run(mx, s, false, 1.0, 0.1, 1, r));
	assert_true(r->frames > 80);
	assert_true(r->late_pct == 0.0);
	return (r->work_s[0] + r->work_s[1]) / (double)r->frames;
}

/* The 8.8 ms a frame leaves (10 - 1 - 0.2 margin): PilotFish runs 8
 * kernels alone; the relaxed scheme co-runs CD with TC in pairs of
 * (1 - 0.4412) x 2 ms = 1.1176 ms (1.12 in 10-us steps), 7 pairs, 14 ms
 * of solo work a frame; two CD kernels share at m = 0: 2 ms a pair, 4
 * pairs, no more than alone. */
static void test_rate_sharing(void **state)
{
	(void)state;
	struct sim_combo_mix_run r;
	struct sim_combo_mix mx = window_mix(CORE_COMBO_CD, CORE_COMBO_TC);
	assert_true(fabs(per_frame(&mx, SIM_COMBO_TEMPORAL, &r) - 0.008) <
	            1e-9);
	assert_int_equal(r.coruns, 0);
	assert_true(fabs(per_frame(&mx, SIM_COMBO_RELAXED, &r) - 0.014) < 1e-9);
	assert_true(r.coruns > 0);
	assert_true(fabs(r.work_cd_s - r.work_tc_s) < 1e-9);
	mx = window_mix(CORE_COMBO_CD, CORE_COMBO_CD);
	assert_true(fabs(per_frame(&mx, SIM_COMBO_RELAXED, &r) - 0.008) < 1e-9);
}

/* Severed Steel's stable Medium frame (5.75 ms at 120 FPS, 36.5 % RT):
 * with two TC-only applications nothing ever runs beside the render (RT
 * with TC is forbidden); with a CD application, CD kernels join the RT
 * phase, and never the game's CD phase. */
static void test_pairing_in_model(void **state)
{
	(void)state;
	struct sim_combo_mix mx = window_mix(CORE_COMBO_TC, CORE_COMBO_TC);
	mx.fps = 120.0;
	mx.rt_s = 0.00575;
	mx.rt_share = 0.365;
	mx.m = sim_combo_pairs_table3();
	struct sim_combo_mix_run r;
	for (int merge = 0; merge < 2; merge++) {
		assert_true(sim_combo_mix_run(&mx, SIM_COMBO_RELAXED, merge,
		                              1.0, 0.1, 3, &r));
		assert_int_equal(r.rt_coruns, 0);
		assert_true(r.work_tc_s > 0.0);
		assert_true(r.forbidden_s == 0.0);
	}
	mx.apps[0].cls[0] = CORE_COMBO_CD;
	mx.apps[0].solo_s[0] = 0.0005;
	for (int s = SIM_COMBO_RELAXED; s <= SIM_COMBO_ADAPTIVE; s++) {
		assert_true(sim_combo_mix_run(&mx, (enum sim_combo_scheme)s,
		                              true, 1.0, 0.1, 3, &r));
		assert_true(r.forbidden_s == 0.0);
		assert_true(r.late_pct == 0.0);
		if (s == SIM_COMBO_RELAXED)
			assert_true(r.rt_coruns > 0);
	}
}

/* Bad input is refused. */
static void test_bad_input(void **state)
{
	(void)state;
	struct sim_combo_mix mx = window_mix(CORE_COMBO_CD, CORE_COMBO_TC);
	struct sim_combo_mix_run r;
	mx.apps[1].n = 0;
	assert_false(
	    sim_combo_mix_run(&mx, SIM_COMBO_RELAXED, false, 1.0, 0.1, 1, &r));
	mx = window_mix(CORE_COMBO_CD, CORE_COMBO_TC);
	mx.apps[0].solo_s[0] = 0.0;
	assert_false(
	    sim_combo_mix_run(&mx, SIM_COMBO_RELAXED, false, 1.0, 0.1, 1, &r));
	mx = window_mix(CORE_COMBO_CD, CORE_COMBO_TC);
	assert_false(sim_combo_mix_run(&mx, SIM_COMBO_N_SCHEMES, false, 1.0,
	                               0.1, 1, &r));
	assert_false(
	    sim_combo_mix_run(&mx, SIM_COMBO_RELAXED, false, 0.1, 0.1, 1, &r));
	struct sim_combo_sweep_opts o = sim_combo_sweep_opts_default();
	struct sim_combo_sweep s;
	o.games = 0;
	assert_false(sim_combo_sweep_run(&o, &s));
	assert_null(sim_combo_sweep_find("combo-fig99"));
}

/* 2 games x 4 Parboil x 2 DNNs, 1 s a trace: the shapes of Figs. 13, 14,
 * 16 and 17. */
static void test_sweep_shape(void **state)
{
	(void)state;
	struct sim_combo_sweep_opts o =
	    sim_combo_sweep_opts_of(sim_combo_sweep_find("combo-fig13"));
	o.duration_s = 1.0;
	o.games = 1u << 0 | 1u << 2; /* Steel, Quake 2 */
	o.parboil =
	    1u << 0 | 1u << 2 | 1u << 4 | 1u << 7; /* cp mriq lbm tpacf */
	o.dnns = 1u << 0 | 1u << 1;                /* Resnet50, VGG16 */
	struct sim_combo_sweep s;
	assert_true(sim_combo_sweep_run(&o, &s));
	assert_int_equal(s.n, 16);
	for (size_t i = 0; i < s.n; i++) {
		const struct sim_combo_group *g = &s.g[i];
		print_message("%s %s %s: fig13 %+.1f%% fig16 %+.1f%% fig17 "
		              "%+.1f%% FPS %.2f p99 %.2f\n",
		              sim_combo_game_def(g->game)->name,
		              sim_combo_parboil(g->parboil)->name,
		              sim_combo_dnn(g->dnn)->name, 100 * g->gain13,
		              100 * g->gain16, 100 * g->gain17, g->fps_mean,
		              g->fps_p99);
		/* Fig. 13: every group gains over PilotFish */
		assert_true(g->gain13 > 0.0);
		/* merging costs at most the delayed frames' RT co-runs */
		assert_true(g->gain16 > -0.02);
		assert_true(g->forbidden_s == 0.0);
	}
	/* Fig. 13: compute-bound gains more; Fig. 14: the rate is kept */
	assert_true(s.fig13_compute > s.fig13_memory);
	assert_true(s.fps_mean > 119.0 && s.fps_p99_min > 117.0);
	/* Fig. 16: merging gains on average; Fig. 17: the split pays
	 * most with VGG16's long kernels */
	assert_true(s.fig16.mean >= 0.0);
	assert_true(s.fig17.mean > 0.0);
	assert_true(s.fig17_dnn[1] > s.fig17_dnn[0]);
	sim_combo_sweep_finish(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rate_sharing),
	    cmocka_unit_test(test_pairing_in_model),
	    cmocka_unit_test(test_bad_input),
	    cmocka_unit_test(test_sweep_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
