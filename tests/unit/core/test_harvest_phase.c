/* Packing the games' Present phases (src/core/harvest_phase.c): who
 * leads, where each follower is packed, and when nobody is moved. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "assert_near.h"
#include "core/controller.h"
#include "core/harvest.h"
#include "core/harvest_phase.h"
#include "paced_game.h"

#define EPS 1e-9

/* paced_game(), with a phase left from an earlier tick */
static struct core_tenant game(double fps, double k, double wait,
                               double present)
{
	struct core_tenant g = paced_game(fps, k, wait, present);
	g.phase_s = 123.0;
	return g;
}

/* The first game with a Present, a target, a k and a wait leads; each
 * other within the period tolerance is packed after the one before it:
 * that one's next Present plus its busy span (period - wait, + k unless
 * its frames reach the GPU after the wait) plus the margin. */
static void test_leader_and_followers(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	const double P = 1.0 / 30;
	struct core_tenant g[5] = {
	    game(30, 0.003, 0.025, 0.0),       /* no Present yet */
	    game(30, 0.003, 0.025, 100.000),   /* leads: busy P - 25 + 3 ms */
	    game(30.3, 0.002, 0.028, 100.011), /* 1 % off: packed after */
	    game(60, 0.002, 0.010, 100.002),   /* twice the rate: left */
	    game(30, 0.002, 0.026, 100.020),   /* packed after [2] */
	};
	g[2].work_after_wait = true; /* OpenGL: busy P - 28 ms, no k */
	size_t lead = core_harvest_phase(&p, g, 5, 1, 100.020);
	assert_int_equal(lead, 1);
	double next = 100.0 + P, lead_busy = P - 0.025 + 0.003;
	double b2 = 1.0 / 30.3 - 0.028;
	assert_near(g[1].phase_s, 0.0, EPS);
	assert_near(g[0].phase_s, 0.0, EPS); /* no Present, not steered */
	assert_near(g[2].phase_s, next + lead_busy + p.margin_s, EPS);
	assert_near(g[3].phase_s, 0.0, EPS);
	assert_near(g[4].phase_s, next + lead_busy + b2 + 2 * p.margin_s, EPS);
	/* the targets are the policy's */
	assert_near(g[2].target_fps, 30.3, EPS);
	assert_near(g[3].target_fps, 60.0, EPS);
	/* a tick late by whole periods projects the leader forward */
	core_harvest_phase(&p, g, 5, 1, 100.101);
	assert_near(g[2].phase_s, 100.0 + 4 * P + lead_busy + p.margin_s, EPS);
	/* a pinned game keeps its grid; a game whose SLA is over the
	 * leader's rate is not paced at it */
	g[2].target_fps = 30.3;
	g[2].fixed_fps = 30.3;
	g[4].sla_fps = 30.2;
	core_harvest_phase(&p, g, 5, 1, 100.020);
	assert_near(g[2].phase_s + g[4].phase_s, 0.0, EPS);
	assert_near(g[2].target_fps, 30.3, EPS);
	g[2].fixed_fps = 0.0;
	g[4].sla_fps = 30.0;
	/* a game with no k or no wait is neither led nor packed */
	g[1].k = 0.0;
	assert_int_equal(core_harvest_phase(&p, g, 5, 1, 100.020), 2);
	assert_near(g[1].phase_s, 0.0, EPS);
	assert_near(g[4].phase_s, 100.011 + 1.0 / 30.3 + b2 + p.margin_s, EPS);
}

/* Nobody is moved: no best-effort tenant using the slot, one game,
 * alignment or steering off, or no game that can lead. */
static void test_nobody_moved(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	struct core_tenant g[2] = {game(30, 0.002, 0.02, 100.0),
	                           game(30, 0.002, 0.02, 100.01)};
	assert_int_equal(core_harvest_phase(&p, g, 2, 0, 100.02), 2);
	assert_near(g[0].phase_s + g[1].phase_s, 0.0, EPS);
	g[1].phase_s = 1.0;
	assert_int_equal(core_harvest_phase(&p, g, 1, 1, 100.02), 1);
	p.steer = false;
	assert_int_equal(core_harvest_phase(&p, g, 2, 1, 100.02), 2);
	assert_near(g[1].phase_s, 0.0, EPS);
	p.steer = true;
	p.align = false;
	assert_int_equal(core_harvest_phase(&p, g, 2, 1, 100.02), 2);
	p.align = true;
	g[0].target_fps = g[1].target_fps = 0.0; /* unpaced */
	assert_int_equal(core_harvest_phase(&p, g, 2, 1, 100.02), 2);
	assert_near(g[0].phase_s + g[1].phase_s, 0.0, EPS);
}

/* A phase once given is kept while the packing moves by less than one of
 * the shim's steps (period / 32): the leader's spans moving by half a
 * millisecond leave it, by two they move it. A game given no phase for a
 * tick starts afresh. */
static void test_phase_kept_within_a_step(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	const double P = 1.0 / 30, busy = P - 0.025 + 0.003;
	double phase = 100.0 + P + busy + p.margin_s;
	struct core_tenant g[2] = {game(30, 0.003, 0.025, 100.000),
	                           game(30, 0.003, 0.025, 100.010)};
	core_harvest_phase(&p, g, 2, 1, 100.020);
	assert_near(g[1].phase_s, phase, EPS);
	assert_near(g[1].phase_held_s, phase, EPS);
	g[0].sleep_s -= 10 * 0.0005;
	core_harvest_phase(&p, g, 2, 1, 100.020);
	assert_near(g[1].phase_s, phase, EPS);
	g[0].sleep_s -= 10 * 0.0015;
	core_harvest_phase(&p, g, 2, 1, 100.020);
	assert_near(g[1].phase_s, phase + 0.002, EPS);
	/* a tick with no best-effort work in the slot forgets it */
	core_harvest_phase(&p, g, 2, 0, 100.020);
	assert_near(g[1].phase_held_s, 0.0, EPS);
	g[0].sleep_s += 10 * 0.0015;
	core_harvest_phase(&p, g, 2, 1, 100.020);
	assert_near(g[1].phase_s, phase + 0.0005, EPS);
}

/* Through the control tick: with a best-effort tenant the follower gets
 * a phase, with that tenant in the idle lane it does not (the lane does
 * not use the slot), and without the stage's parameters nothing stale is
 * left. */
static void test_through_the_tick(void **state)
{
	(void)state;
	struct core_params params = core_params_default();
	struct core_harvest_params hp = core_harvest_params_default();
	struct core_gpu gpu = {0};
	struct core_harvest_gpu hg = {0};
	struct core_be_tenant be = {.weight = 1.0};
	struct core_tenant g[2];
	for (int i = 0; i < 2; i++) {
		g[i] = game(30, 0.002, 0.02, 100.0 + 0.01 * i);
		g[i].fps = 30.0;
		g[i].paced_frames = 10;
		g[i].gpu_busy_s = 0.02;
	}
	gpu.harvest = (struct core_harvest_stage){.params = &hp,
	                                          .be = &be,
	                                          .n_be = 1,
	                                          .out = &hg,
	                                          .games_seen = true,
	                                          .now_s = 100.02,
	                                          .dt_s = 0.1,
	                                          .cpu_device = true};
	const struct core_policy *sa = &core_policy_sa;
	core_controller_tick(sa, &params, &gpu, g, 2);
	assert_near(g[0].phase_s, 0.0, EPS);
	assert_true(g[1].phase_s > 100.02 && g[1].phase_s < 100.06);

	hp.idle_lane = true;
	be.idle_capable = true;
	core_controller_tick(sa, &params, &gpu, g, 2);
	assert_true(be.idle);
	assert_near(g[1].phase_s, 0.0, EPS);

	hp.idle_lane = false;
	core_controller_tick(sa, &params, &gpu, g, 2);
	assert_true(g[1].phase_s > 0.0);
	/* a GPU, not this host's CPUs: nobody is steered */
	gpu.harvest.cpu_device = false;
	core_controller_tick(sa, &params, &gpu, g, 2);
	assert_near(g[1].phase_s, 0.0, EPS);
	gpu.harvest.cpu_device = true;
	gpu.harvest.params = NULL;
	core_controller_tick(sa, &params, &gpu, g, 2);
	assert_near(g[1].phase_s, 0.0, EPS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_leader_and_followers),
	    cmocka_unit_test(test_nobody_moved),
	    cmocka_unit_test(test_phase_kept_within_a_step),
	    cmocka_unit_test(test_through_the_tick),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
