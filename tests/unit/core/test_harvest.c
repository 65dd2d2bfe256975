/* Time harvesting (src/core/harvest.c, harvest_fit.c; GPU grid and its
 * Algorithm 1 as docs/papers.md corrects it): the Eq. 1 window, the budget and
 * its split by weight and cap, the asymmetric saturating hysteresis, the
 * rest after a sub-launch, the online fit and the block offset. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "assert_near.h"
#include "core/controller.h"
#include "core/harvest.h"
#include "core/harvest_fit.h"

#define EPS 1e-12

static struct core_tenant game(double target_fps, double k)
{
	return (struct core_tenant){
	    .sla_fps = 30, .target_fps = target_fps, .k = k, .frames = 3};
}

/* One game: Eq. 1 exactly, t = 1/F - H - margin. */
static void test_eq1_one_game(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	struct core_tenant g = game(60, 0.008);
	assert_near(core_harvest_eq1(&p, &g, 1), 1.0 / 60 - 0.008 - p.margin_s,
	            EPS);
	/* A frame as long as its period leaves nothing. */
	g.k = 1.0 / 60;
	assert_near(core_harvest_eq1(&p, &g, 1), 0.0, EPS);
	/* No game: no Eq. 1 constraint at all. */
	assert_true(core_harvest_eq1(&p, &g, 0) < 0.0);
}

/* Several games: the shortest period, every H against it; a game without
 * a learned cost closes the window; an unpaced game counts at its rate. */
static void test_eq1_games(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	p.margin_s = 0.0;
	struct core_tenant g[3] = {game(30, 0.004), game(60, 0.003),
	                           game(0, 0.002)};
	g[2].fps = 100; /* free, showing 100 FPS: period 10 ms */
	assert_near(core_harvest_eq1(&p, g, 3), 0.010 - 0.009, EPS);
	g[2].fps = 0; /* unknown rate: its SLA (30) */
	assert_near(core_harvest_eq1(&p, g, 3), 1.0 / 60 - 0.009, EPS);
	g[1].k = 0.0;
	assert_near(core_harvest_eq1(&p, g, 3), 0.0, EPS);
}

/* The budget: what the games leave, minus the margin; split by weight;
 * a cap binds and what it leaves goes to the others. */
static void test_budget_split(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	struct core_tenant g = game(50, 0.006); /* 30 % of the GPU */
	struct core_harvest_gpu hg;
	struct core_be_tenant be[3] = {
	    {.weight = 1}, {.weight = 3}, {.weight = 4, .cap = 0.1}};

	core_harvest_tick(&p, &g, 1, 0.05, &hg, be, 3);
	assert_near(hg.games_util, 0.3, EPS);
	double free = 1.0 - 0.3 - 0.05 - p.util_margin;
	assert_near(hg.free_util, free, EPS);
	/* Weights 1:3:4 would give the third 0.3; its cap holds it at 0.1,
	 * and the rest goes 1:3 to the others. */
	assert_near(be[2].budget, 0.1, EPS);
	assert_near(be[0].budget, (free - 0.1) / 4, EPS);
	assert_near(be[1].budget, 3 * (free - 0.1) / 4, EPS);
	assert_near(be[0].budget + be[1].budget + be[2].budget, free, EPS);

	/* Games over the whole GPU: nothing for BE, no window. */
	g.k = 0.02;
	core_harvest_tick(&p, &g, 1, 0.0, &hg, be, 3);
	assert_near(hg.free_util, 0.0, EPS);
	for (int i = 0; i < 3; i++) {
		assert_near(be[i].budget, 0.0, EPS);
		assert_near(be[i].window_s, 0.0, EPS);
		assert_true(core_harvest_rest(&p, &be[i], 0.005) < 0.0);
	}
}

/* Windows split by weight: the BE tenants' sub-launches together delay a
 * frame by at most the Eq. 1 window; periodical_s caps it. */
static void test_window_split(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	p.margin_s = 0.0;
	struct core_tenant g = game(50, 0.008); /* window 12 ms */
	struct core_harvest_gpu hg;
	struct core_be_tenant be[2] = {{.weight = 1}, {.weight = 2}};

	core_harvest_tick(&p, &g, 1, 0.0, &hg, be, 2);
	assert_near(be[0].window_s + be[1].window_s, 0.012, EPS);
	assert_near(be[1].window_s, 0.008, EPS);
	p.periodical_s = 0.006;
	core_harvest_tick(&p, &g, 1, 0.0, &hg, be, 2);
	assert_near(be[0].window_s + be[1].window_s, 0.006, EPS);
	/* No game reports: the periodical cap alone. */
	core_harvest_tick(&p, NULL, 0, 0.0, &hg, be, 1);
	assert_near(be[0].window_s, 0.006, EPS);
}

/* Stage 6 inside core_controller_tick: the BE tenants the caller hands it
 * get their budgets and windows from the games as the same tick left them
 * (the k learned and the target the PI loop just set); no stage without
 * parameters; without the games' telemetry they count for nothing. */
static void test_stage_in_tick(void **state)
{
	(void)state;
	struct core_params cp = core_params_default();
	struct core_harvest_params p = core_harvest_params_default();
	struct core_harvest_gpu hg = {0};
	struct core_be_tenant be = {.weight = 1, .window_s = -1};
	struct core_gpu gpu = {.other_util = 0.02};
	struct core_tenant g = {
	    .sla_fps = 30, .fps = 30, .frames = 3, .gpu_busy_s = 0.015};

	/* Off: the BE tenant is left as it was. */
	gpu.harvest = (struct core_harvest_stage){.be = &be, .n_be = 1};
	core_controller_tick(&core_policy_sa, &cp, &gpu, &g, 1);
	assert_near(be.window_s, -1, EPS);

	gpu.harvest = (struct core_harvest_stage){.params = &p,
	                                          .be = &be,
	                                          .n_be = 1,
	                                          .out = &hg,
	                                          .games_seen = true,
	                                          .now_s = 10.0};
	core_controller_tick(&core_policy_sa, &cp, &gpu, &g, 1);
	assert_true(g.k > 0.0 && g.target_fps >= 30.0);
	/* The game shows 30 FPS, under its target: its frames come 1/30 s
	 * apart, whatever it is paced to. */
	double games = g.k * 30.0;
	assert_near(hg.games_util, games, EPS);
	assert_near(be.budget, 1.0 - games - 0.02 - p.util_margin, EPS);
	assert_near(be.window_s, 1.0 / 30.0 - g.k - p.margin_s, EPS);
	assert_near(hg.eq1_s, be.window_s, EPS);

	/* A host Baton does not see: no Eq. 1 window, the whole share. */
	gpu.harvest.games_seen = false;
	core_controller_tick(&core_policy_sa, &cp, &gpu, &g, 1);
	assert_true(hg.eq1_s < 0.0);
	assert_near(be.budget, 1.0 - 0.02 - p.util_margin, EPS);
}

/* A game's claims do not shut the window beyond what it does: one asking
 * for 1000 FPS and presenting 5 counts at its 5 (before: its target 1000,
 * a 1 ms period, window 0, and k x 1000 of load, budget 0); one that
 * never reports a GPU time shuts the window for cost_grace_ticks, named
 * as the holder, and is left out after. */
static void test_claims_do_not_shut(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	struct core_tenant g[2] = {game(30, 0.005), game(1000, 0.001)};
	g[0].fps = 30;
	g[1].sla_fps = 1000;
	g[1].fps = 5;
	g[1].fps_smooth = 5;
	struct core_harvest_gpu hg;
	struct core_be_tenant be = {.weight = 1};

	core_harvest_tick(&p, g, 2, 0.0, &hg, &be, 1);
	assert_near(hg.eq1_s, 1.0 / 30 - 0.006 - p.margin_s, EPS);
	assert_near(hg.games_util, 0.005 * 30 + 0.001 * 5, EPS);
	assert_int_equal(hg.hold.reason, CORE_HARVEST_OPEN);
	assert_true(be.window_s > 0.025 && be.budget > 0.7);

	/* Really presenting at 1000 FPS: the window is shut, and the game
	 * with the 1 ms period is named. */
	g[1].fps = g[1].fps_smooth = 1000;
	core_harvest_tick(&p, g, 2, 0.0, &hg, &be, 1);
	assert_near(be.window_s, 0.0, EPS);
	assert_int_equal(hg.hold.reason, CORE_HARVEST_HOLD_PERIOD);
	assert_int_equal(hg.hold.game, 1);
	assert_near(hg.hold.period_s, 0.001, EPS);
	assert_near(hg.hold.games_gpu_s, 0.006, EPS);

	/* No GPU time reported: within the grace the window is shut and the
	 * game named; after it the game is left out. */
	g[1] = game(30, 0.0);
	g[1].fps = 30;
	g[1].epochs = p.cost_grace_ticks;
	core_harvest_tick(&p, g, 2, 0.0, &hg, &be, 1);
	assert_near(be.window_s, 0.0, EPS);
	assert_int_equal(hg.hold.reason, CORE_HARVEST_HOLD_COST);
	assert_int_equal(hg.hold.game, 1);
	g[1].epochs = p.cost_grace_ticks + 1;
	core_harvest_tick(&p, g, 2, 0.0, &hg, &be, 1);
	assert_near(be.window_s, 1.0 / 30 - 0.005 - p.margin_s, EPS);
	assert_int_equal(hg.hold.reason, CORE_HARVEST_OPEN);
	assert_false(hg.games_quiet); /* its frames still count as busy */

	/* The games' load leaves no budget (one game at 10 FPS, 96 ms of
	 * GPU a frame: Eq. 1 still leaves 3 ms): the largest share is
	 * named. */
	g[1] = game(10, 0.096);
	g[1].fps = 10;
	g[0].fps = 1;
	g[0].k = 0.0001;
	core_harvest_tick(&p, g, 2, 0.0, &hg, &be, 1);
	assert_true(hg.eq1_s > 0.0);
	assert_near(be.budget, 0.0, EPS);
	assert_near(be.window_s, 0.0, EPS);
	assert_int_equal(hg.hold.reason, CORE_HARVEST_HOLD_LOAD);
	assert_int_equal(hg.hold.game, 1);
}

/* The paper's hysteresis: 3 quiet to enter continuous, 1 busy to leave;
 * the counter saturates, so one busy observation always leaves at once,
 * however long the quiet lasted (defect 3: an unbounded count would
 * need only one reset but overflow; a bound of 3 keeps the rule exact). */
static void test_hysteresis(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	struct core_be_tenant be = {.budget = 1};

	assert_int_equal(core_harvest_observe(&p, &be, true),
	                 CORE_HARVEST_PERIODICAL);
	assert_int_equal(core_harvest_observe(&p, &be, true),
	                 CORE_HARVEST_PERIODICAL);
	assert_int_equal(core_harvest_observe(&p, &be, true),
	                 CORE_HARVEST_CONTINUOUS);
	for (int i = 0; i < 1000; i++)
		core_harvest_observe(&p, &be, true);
	assert_int_equal(be.quiet, 3);
	assert_int_equal(core_harvest_observe(&p, &be, false),
	                 CORE_HARVEST_PERIODICAL);
	/* Two quiet, one busy, two quiet: still periodical. */
	core_harvest_observe(&p, &be, true);
	core_harvest_observe(&p, &be, true);
	core_harvest_observe(&p, &be, false);
	core_harvest_observe(&p, &be, true);
	assert_int_equal(core_harvest_observe(&p, &be, true),
	                 CORE_HARVEST_PERIODICAL);
}

/* Telemetry-driven tenants observe "no game presented this tick"; probe-
 * driven ones are left to their probe. Continuous mode gets continuous_s. */
static void test_tick_modes(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	struct core_tenant g = game(60, 0.004);
	g.frames = 0;
	struct core_harvest_gpu hg;
	struct core_be_tenant be[2] = {{.weight = 1},
	                               {.weight = 1, .probe = true}};
	for (int i = 0; i < 3; i++)
		core_harvest_tick(&p, &g, 1, 0.0, &hg, be, 2);
	assert_true(hg.games_quiet);
	assert_int_equal(be[0].mode, CORE_HARVEST_CONTINUOUS);
	assert_int_equal(be[1].mode, CORE_HARVEST_PERIODICAL);
	assert_near(be[0].window_s, p.continuous_s / 2, EPS);
	g.frames = 1;
	core_harvest_tick(&p, &g, 1, 0.0, &hg, be, 2);
	assert_int_equal(be[0].mode, CORE_HARVEST_PERIODICAL);
}

/* Rest: the budget's duty cycle, and at least rest_s in periodical mode
 * (the paper's Sleep(1/F)); none in continuous mode on a free GPU. */
static void test_rest(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	struct core_be_tenant be = {.budget = 0.25};
	assert_near(core_harvest_rest(&p, &be, 0.004), 0.012, EPS);
	p.rest_s = 1.0 / 60;
	assert_near(core_harvest_rest(&p, &be, 0.004), 1.0 / 60, EPS);
	be.mode = CORE_HARVEST_CONTINUOUS;
	be.budget = 1.0;
	assert_near(core_harvest_rest(&p, &be, 0.017), 0.0, EPS);
}

/* The fit recovers c0 and c1 from sub-launches of different sizes, and
 * sizes the next one as floor((budget - c0) / c1). */
static void test_fit_line(void **state)
{
	(void)state;
	struct core_harvest_fit f = {0};
	double c0, c1;
	assert_false(core_harvest_fit_coef(&f, &c0, &c1));
	assert_int_equal(core_harvest_blocks(&f, 0.01, 100), 1);
	for (uint64_t n = 1; n <= 40; n += 3)
		core_harvest_fit_add(&f, n, 0.0002 + 0.0005 * (double)n);
	assert_true(core_harvest_fit_coef(&f, &c0, &c1));
	assert_near(c0, 0.0002, 1e-12);
	assert_near(c1, 0.0005, 1e-12);
	/* (8.5 ms - 0.2) / 0.5 = 16.6 -> 16 */
	assert_int_equal(core_harvest_blocks(&f, 0.0085, 100), 16);
	assert_int_equal(core_harvest_blocks(&f, 0.0085, 10), 10);
	assert_int_equal(core_harvest_blocks(&f, 0.0001, 10), 1);
	assert_int_equal(core_harvest_blocks(&f, 0.0085, 0), 0);
	assert_near(core_harvest_fit_predict(&f, 16), 0.0082, 1e-12);
}

/* One distinct size: a line through the origin (over-states c1 when c0 >
 * 0, so the next sub-launch errs short); a negative slope the same. */
static void test_fit_degenerate(void **state)
{
	(void)state;
	struct core_harvest_fit f = {0};
	double c0, c1;
	core_harvest_fit_add(&f, 4, 0.002);
	core_harvest_fit_add(&f, 4, 0.003);
	core_harvest_fit_add(&f, 0, 0.003); /* ignored */
	core_harvest_fit_add(&f, 4, -1.0);  /* ignored */
	core_harvest_fit_add(&f, 4, NAN);   /* ignored */
	assert_int_equal(f.len, 2);
	assert_true(core_harvest_fit_coef(&f, &c0, &c1));
	assert_near(c0, 0.0, EPS);
	assert_near(c1, 0.0025 / 4, 1e-15);
	struct core_harvest_fit g = {0};
	core_harvest_fit_add(&g, 2, 0.004);
	core_harvest_fit_add(&g, 8, 0.002);
	assert_true(core_harvest_fit_coef(&g, &c0, &c1));
	assert_near(c0, 0.0, EPS);
	assert_true(c1 > 0.0);
}

/* The window of samples slides: a kernel that got slower is followed. */
static void test_fit_slides(void **state)
{
	(void)state;
	struct core_harvest_fit f = {0};
	double c0, c1;
	for (int i = 0; i < CORE_HARVEST_FIT_N; i++)
		core_harvest_fit_add(&f, 1 + (uint64_t)(i % 4),
		                     0.001 * (1 + i % 4));
	for (int i = 0; i < CORE_HARVEST_FIT_N; i++)
		core_harvest_fit_add(&f, 1 + (uint64_t)(i % 4),
		                     0.002 * (1 + i % 4));
	assert_true(core_harvest_fit_coef(&f, &c0, &c1));
	assert_near(c1, 0.002, 1e-12);
}

/* Defect 1: the offset moves with every sub-launch, the last one is cut
 * to what is left, and the blocks are covered exactly once. */
static void test_task_offsets(void **state)
{
	(void)state;
	struct core_harvest_task task = {.n = 96};
	struct core_harvest_fit f = {0};
	uint64_t off, cnt, covered = 0, launches = 0;
	while (core_harvest_task_next(&task, &f, 0.0085, &off, &cnt)) {
		assert_int_equal(off, covered);
		assert_true(cnt >= 1 && off + cnt <= 96);
		covered += cnt;
		launches++;
		/* 4 ms per block, no launch cost: 2 blocks per 8.5 ms
		 * once the fit has a sample. */
		core_harvest_task_done(&task, &f, cnt, 0.004 * (double)cnt);
	}
	assert_int_equal(covered, 96);
	assert_int_equal(task.done, 96);
	assert_int_equal(launches, 1 + 95 / 2 + 1); /* 1, then 47 x 2, 1 */
	/* Completing more than is left never runs past n. */
	core_harvest_task_done(&task, &f, 5, 0.001);
	assert_int_equal(task.done, 96);
}

/* The spread: 1 on an exact line or with few samples; on noisy times
 * the ratio 90 % of them stay within, bounded. */
static void test_fit_spread(void **state)
{
	(void)state;
	struct core_harvest_fit f = {0};
	for (int i = 0; i < CORE_HARVEST_SPREAD_MIN - 1; i++)
		core_harvest_fit_add(&f, 10, i % 2 ? 0.012 : 0.004);
	assert_near(core_harvest_fit_spread(&f, 0.9), 1.0, 1e-12);
	struct core_harvest_fit line = {0};
	for (int i = 0; i < CORE_HARVEST_FIT_N; i++)
		core_harvest_fit_add(&line, 1 + (uint64_t)(i % 4),
		                     0.0002 + 0.001 * (1 + i % 4));
	assert_near(core_harvest_fit_spread(&line, 0.9), 1.0, 1e-9);
	/* 10 blocks each, mean 8 ms: 14 at 7.5 ms, one at 9 and one at 14.
	 * Through the origin (one size): predict 8 ms; ratios sorted,
	 * the 15th of 16 is 9 / 8. */
	struct core_harvest_fit noisy = {0};
	for (int i = 0; i < 14; i++)
		core_harvest_fit_add(&noisy, 10, 0.0075);
	core_harvest_fit_add(&noisy, 10, 0.009);
	core_harvest_fit_add(&noisy, 10, 0.014);
	assert_near(core_harvest_fit_spread(&noisy, 0.9), 0.009 / 0.008, 1e-9);
	assert_near(core_harvest_fit_spread(&noisy, 1.0), 0.014 / 0.008, 1e-9);
	assert_near(core_harvest_fit_spread(&noisy, 0.0), 1.0, 1e-12);
	/* Bounded: a sub-launch stalled far past the rest. */
	core_harvest_fit_add(&noisy, 10, 1.0);
	assert_near(core_harvest_fit_spread(&noisy, 1.0),
	            CORE_HARVEST_SPREAD_MAX, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_eq1_one_game),
	    cmocka_unit_test(test_eq1_games),
	    cmocka_unit_test(test_budget_split),
	    cmocka_unit_test(test_window_split),
	    cmocka_unit_test(test_stage_in_tick),
	    cmocka_unit_test(test_claims_do_not_shut),
	    cmocka_unit_test(test_hysteresis),
	    cmocka_unit_test(test_tick_modes),
	    cmocka_unit_test(test_rest),
	    cmocka_unit_test(test_fit_line),
	    cmocka_unit_test(test_fit_degenerate),
	    cmocka_unit_test(test_fit_slides),
	    cmocka_unit_test(test_task_offsets),
	    cmocka_unit_test(test_fit_spread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
