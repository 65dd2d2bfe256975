/* Space harvesting at the control tick (src/core/harvest_space.c): the
 * GPU's aggregate load through COMBO's decision, the hold before the
 * device is divided, the split from Eq. 5, the safe switch when the
 * games grow, every condition that joins the device again, the measured
 * use that earns a partition and the game's miss that takes it back. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/controller.h"
#include "core/harvest.h"
#include "core/harvest_space.h"

#define TICK 0.1
/* Ticks until a use of every unit, smoothed over space_earn_s from 0,
 * reaches space_earn of the units a partition gives (defaults: 1 - e^-0.1
 * of 2 units is 0.19, of 1 unit needed 0.25: two ticks). */
#define EARN_TICKS 2

static struct core_harvest_params params(uint32_t units)
{
	struct core_harvest_params p = core_harvest_params_default();
	p.space.sm_total = units;
	return p;
}

/* One tick with n_be best-effort tenants whose processes keep every unit
 * busy (they earn any partition), no game under its SLA. */
static void step(const struct core_harvest_params *p, struct core_space_gpu *s,
                 double u, bool quiet, bool overload, size_t n_be)
{
	struct core_space_in in = {
	    .games_util = u,
	    .games_quiet = quiet,
	    .overload = overload,
	    .miss_span_s = 1.0,
	    .n_be = n_be,
	    .be_cpu = n_be > 0 ? (double)p->space.sm_total : 0.0,
	    .dt_s = TICK,
	};
	core_space_tick(p, s, &in);
}

/* Ticks of a steady load until the partition is in force; returns how
 * many it took (0 if it never was within max). */
static int settle(const struct core_harvest_params *p, struct core_space_gpu *s,
                  double u, int max)
{
	for (int i = 1; i <= max; i++) {
		step(p, s, u, false, false, 1);
		if (s->be_count > 0)
			return i;
	}
	return 0;
}

/* Off by default; a device of one unit cannot be divided. */
static void test_off(void **state)
{
	(void)state;
	struct core_harvest_params p = core_harvest_params_default();
	assert_true(p.space.sm_total < 2);
	struct core_space_gpu s = {0};
	assert_int_equal(settle(&p, &s, 0.3, 100), 0);
	assert_int_equal(s.split, 0);
	p.space.sm_total = 1;
	assert_int_equal(settle(&p, &s, 0.3, 100), 0);
}

/* A steady 30 % of a 2-core device: a full window and the 1 s hold of
 * stable ticks, then games on core 0 (ceil(2 x 0.3 x 1.0516) = 1) and
 * best-effort work on core 1; the first integrated tick is held (a
 * change of scheme), so the partition comes the tick after. */
static void test_divides_after_hold(void **state)
{
	(void)state;
	struct core_harvest_params p = params(2);
	struct core_space_gpu s = {0};
	int n = settle(&p, &s, 0.30, 100);
	/* window 8 ticks, then stable_s grows by 0.1 a tick to 1 s, after
	 * the ticks the measured use needs to earn it (EARN_TICKS) */
	assert_true(n >= (int)(p.space.hold_s / TICK));
	assert_true(n <= (int)(p.space.hold_s / TICK) + (int)p.space.window +
	                     2 + EARN_TICKS);
	assert_int_equal(s.scheme, CORE_COMBO_INTEGRATED);
	assert_int_equal(s.split, 1);
	assert_int_equal(s.be_first, 1);
	assert_int_equal(s.be_count, 1);
	assert_int_equal(s.switches, 1);
	/* Eq. 5 on 8 units: ceil(8 x 0.3 x 1.0516) = 3, BE gets 5 */
	struct core_harvest_params p8 = params(8);
	struct core_space_gpu s8 = {0};
	assert_true(settle(&p8, &s8, 0.30, 100) > 0);
	assert_int_equal(s8.split, 3);
	assert_int_equal(s8.be_first, 3);
	assert_int_equal(s8.be_count, 5);
}

/* A load that swings by more than Eq. 3's 10 % across groups never
 * divides, and one such tick joins a divided device at once; a swing
 * inside one group (0.2 and 0.3 of 2 units both need one) divides. */
static void test_swing_joins(void **state)
{
	(void)state;
	struct core_harvest_params p = params(8);
	struct core_space_gpu s = {0};
	for (int i = 0; i < 100; i++) {
		/* Eq. 5: 2 units at 0.2, 4 at 0.4 */
		step(&p, &s, i % 2 ? 0.2 : 0.4, false, false, 1);
		assert_int_equal(s.be_count, 0);
		assert_int_equal(s.split, 0);
	}
	s = (struct core_space_gpu){0};
	assert_true(settle(&p, &s, 0.2, 100) > 0);
	assert_int_equal(s.split, 2);
	step(&p, &s, 0.4, false, false, 1);
	assert_int_equal(s.scheme, CORE_COMBO_RELAXED);
	assert_int_equal(s.split, 0);
	assert_int_equal(s.be_count, 0);
	assert_int_equal(s.switches, 2);

	struct core_harvest_params p2 = params(2);
	struct core_space_gpu s2 = {0};
	int n = 0;
	for (int i = 0; i < 100 && s2.be_count == 0; i++, n++)
		step(&p2, &s2, i % 2 ? 0.2 : 0.3, false, false, 1);
	assert_int_equal(s2.split, 1);
	assert_int_equal(s2.be_count, 1);
	assert_true(n <= (int)(p2.space.hold_s / TICK) + (int)p2.space.window +
	                     2 + EARN_TICKS);
}

/* On 8 units, a load that creeps up inside Eq. 3's band grows the render
 * group: that tick holds the partition (Fig. 11), the next gives the
 * smaller one. */
static void test_growth_holds(void **state)
{
	(void)state;
	struct core_harvest_params p = params(8);
	struct core_space_gpu s = {0};
	assert_true(settle(&p, &s, 0.34, 100) > 0);
	assert_int_equal(s.split, 3);
	step(&p, &s, 0.35, false, false, 1);
	/* ceil(8 x 0.35 x 1.0516) = 3: the same group, no hold */
	assert_int_equal(s.split, 3);
	assert_int_equal(s.be_count, 5);
	step(&p, &s, 0.36, false, false, 1);
	/* ceil(8 x 0.36 x 1.0516) = 4: grown, held */
	assert_int_equal(s.split, 4);
	assert_true(s.held);
	assert_int_equal(s.be_count, 0);
	step(&p, &s, 0.36, false, false, 1);
	assert_int_equal(s.split, 4);
	assert_false(s.held);
	assert_int_equal(s.be_first, 4);
	assert_int_equal(s.be_count, 4);
}

/* No best-effort tenant, quiet games, overload, a load too big to leave
 * a unit: no partition, and the hold starts over. */
static void test_joins(void **state)
{
	(void)state;
	struct core_harvest_params p = params(2);
	struct core_space_gpu s = {0};
	assert_true(settle(&p, &s, 0.3, 100) > 0);
	step(&p, &s, 0.3, false, false, 0);
	assert_int_equal(s.split, 0);
	assert_int_equal(s.be_count, 0);
	/* the hold again from the start, once the tenant is back */
	step(&p, &s, 0.3, false, false, 1);
	assert_int_equal(s.be_count, 0);
	assert_true(settle(&p, &s, 0.3, 100) > 5);

	step(&p, &s, 0.3, true, false, 1);
	assert_int_equal(s.be_count, 0);
	assert_true(settle(&p, &s, 0.3, 100) > 0);
	step(&p, &s, 0.3, false, true, 1);
	assert_int_equal(s.be_count, 0);
	assert_int_equal(s.split, 0);

	/* 0.5 of 2 units: ceil(2 x 0.5 x 1.0516) = 2, the whole device */
	struct core_space_gpu big = {0};
	assert_int_equal(settle(&p, &big, 0.5, 100), 0);
	assert_int_equal(big.split, 0);
	/* nonsense in: nothing divided */
	struct core_space_gpu bad = {0};
	assert_int_equal(settle(&p, &bad, NAN, 50), 0);
	assert_int_equal(settle(&p, &bad, -1.0, 50), 0);
}

/* One tick of a steady 30 % load with the given measured best-effort use
 * and SLA reading. */
static void measured(const struct core_harvest_params *p,
                     struct core_space_gpu *s, double be_cpu, bool missed)
{
	struct core_space_in in = {
	    .games_util = 0.30,
	    .game_missed = missed,
	    .miss_span_s = 1.0,
	    .n_be = 1,
	    .be_cpu = be_cpu,
	    .dt_s = TICK,
	};
	core_space_tick(p, s, &in);
}

/* Ticks of measured() until the partition is in force (0: never). */
static int settle_measured(const struct core_harvest_params *p,
                           struct core_space_gpu *s, double be_cpu, int max)
{
	for (int i = 1; i <= max; i++) {
		measured(p, s, be_cpu, false);
		if (s->be_count > 0)
			return i;
	}
	return 0;
}

/* A partition is earned by the best-effort processes' measured use, a
 * quarter of the units it would give them: a tenant that only
 * registered (use 0, or a process batond cannot read: 0 too) never gets
 * one; 0.2 of the one unit of 2 does not either, 0.3 does; on 8 units
 * (5 for best-effort work) 1.0 does not, 1.5 does. A tenant that stops
 * loses it within a second. */
static void test_earned_by_use(void **state)
{
	(void)state;
	struct core_harvest_params p = params(2);
	struct core_space_gpu s = {0};
	assert_int_equal(settle_measured(&p, &s, 0.0, 200), 0);
	assert_int_equal(s.split, 0);
	assert_false(s.earned);
	assert_int_equal(settle_measured(&p, &s, 0.2, 200), 0);
	assert_int_equal(s.split, 0);
	assert_true(settle_measured(&p, &s, 0.3, 200) > 0);
	assert_true(s.earned);
	assert_int_equal(s.split, 1);
	int gone = 0;
	for (int i = 1; i <= 10 && !gone; i++) {
		measured(&p, &s, 0.0, false);
		gone = s.split == 0 ? i : 0;
	}
	assert_true(gone > 0);
	assert_int_equal(s.be_count, 0);

	struct core_harvest_params p8 = params(8);
	struct core_space_gpu s8 = {0};
	assert_int_equal(settle_measured(&p8, &s8, 1.0, 200), 0);
	assert_true(settle_measured(&p8, &s8, 1.5, 200) > 0);
	assert_int_equal(s8.split, 3);
	/* nonsense measurements count as nothing */
	struct core_space_gpu bad = {0};
	assert_int_equal(settle_measured(&p, &bad, NAN, 50), 0);
	assert_int_equal(settle_measured(&p, &bad, -5.0, 50), 0);
	assert_int_equal(settle_measured(&p, &bad, INFINITY, 50), 0);
}

/* A game under its SLA while the games are confined: the partition goes
 * that tick and none is given for space_holdoff_s from then, however busy
 * best-effort work is; then it is earned again. */
static void test_miss_releases(void **state)
{
	(void)state;
	struct core_harvest_params p = params(2);
	struct core_space_gpu s = {0};
	assert_true(settle_measured(&p, &s, 2.0, 200) > 0);
	measured(&p, &s, 2.0, true);
	assert_int_equal(s.split, 0);
	assert_int_equal(s.be_count, 0);
	assert_int_equal(s.releases, 1);
	assert_float_equal(s.holdoff_s, p.space_holdoff_s, 1e-9);
	/* the reading stays up for its period: one release, one hold-off */
	for (int i = 0; i < 9; i++)
		measured(&p, &s, 2.0, true);
	assert_int_equal(s.releases, 1);
	assert_float_equal(s.holdoff_s, p.space_holdoff_s - 9 * TICK, 1e-6);
	int ticks = (int)(p.space_holdoff_s / TICK) - 9;
	for (int i = 0; i < ticks - 2; i++) {
		measured(&p, &s, 2.0, false);
		assert_int_equal(s.split, 0);
	}
	int n = settle_measured(&p, &s, 2.0, 100);
	assert_true(n > 0);
	assert_true(n <=
	            2 + (int)(p.space.hold_s / TICK) + (int)p.space.window + 2);
	assert_int_equal(s.split, 1);
	assert_int_equal(s.releases, 1);
}

/* A game under its SLA with no partition in force, nor one in its
 * reading's span, only keeps one from being given: no hold-off. Within
 * the span after the games were joined for another reason (overload),
 * the miss is still the partition's. */
static void test_miss_blame(void **state)
{
	(void)state;
	struct core_harvest_params p = params(2);
	struct core_space_gpu s = {0};
	for (int i = 0; i < 100; i++) {
		measured(&p, &s, 2.0, true);
		assert_int_equal(s.split, 0);
	}
	assert_int_equal(s.releases, 0);
	assert_float_equal(s.holdoff_s, 0.0, 0.0);
	assert_true(settle_measured(&p, &s, 2.0, 100) > 0);

	struct core_space_in over = {.games_util = 0.30,
	                             .overload = true,
	                             .miss_span_s = 1.0,
	                             .n_be = 1,
	                             .be_cpu = 2.0,
	                             .dt_s = TICK};
	core_space_tick(&p, &s, &over);
	assert_int_equal(s.split, 0);
	for (int i = 0; i < 5; i++)
		measured(&p, &s, 2.0, false);
	measured(&p, &s, 2.0, true); /* 0.6 s after: the partition's */
	assert_int_equal(s.releases, 1);
	assert_true(s.holdoff_s > 0.0);
}

/* One control tick of a game presenting `frames` in the epoch (0.1 s, 5 ms
 * of GPU each) beside one best-effort tenant. */
static void control_tick(struct core_gpu *gpu, struct core_tenant *g,
                         uint32_t frames, int i)
{
	struct core_params cp = core_params_default();
	g->frames = frames;
	g->fps = frames / cp.epoch_s;
	g->gpu_busy_s = frames * 0.005;
	gpu->harvest.now_s = cp.epoch_s * i;
	core_controller_tick(&core_policy_sa, &cp, gpu, g, 1);
}

/* Through the controller: the measured use of partition-capable tenants
 * only earns the partition, and the capacity stage's reading of a game
 * under its SLA (20 FPS at SLA 30) gives it back within two periods,
 * held off from then on. */
static void test_controller_earn_and_miss(void **state)
{
	(void)state;
	struct core_harvest_params p = params(2);
	struct core_harvest_gpu hg = {0};
	struct core_space_gpu sp = {0};
	/* 1.0 unit used by a tenant that cannot run on a partition, none
	 * by the one that can */
	struct core_be_tenant be[2] = {{.weight = 1, .cpu_use = 1.0},
	                               {.weight = 1, .space = true}};
	struct core_gpu gpu = {0};
	gpu.harvest = (struct core_harvest_stage){
	    .params = &p,
	    .be = be,
	    .n_be = 2,
	    .out = &hg,
	    .games_seen = true,
	    .dt_s = 0.1,
	    .cpu_device = true,
	    .space = &sp,
	};
	struct core_tenant g = {.sla_fps = 30};
	int i = 0;
	for (; i < 60; i++) {
		control_tick(&gpu, &g, 3, i);
		assert_int_equal(sp.split, 0);
	}
	be[1].cpu_use = 1.0; /* now it computes on the CPUs */
	for (int k = 0; k < 60 && sp.be_count == 0; k++, i++)
		control_tick(&gpu, &g, 3, i);
	assert_int_equal(sp.split, 1);
	assert_int_equal(sp.be_count, 1);
	int released = 0;
	for (int k = 1; k <= 25 && !released; k++, i++) {
		control_tick(&gpu, &g, 2, i);
		released = sp.releases > 0 ? k : 0;
	}
	assert_true(released > 0);
	assert_int_equal(sp.split, 0);
	assert_true(sp.holdoff_s > 0.0);
	for (int k = 0; k < 100; k++, i++) {
		control_tick(&gpu, &g, 3, i);
		assert_int_equal(sp.split, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_off),
	    cmocka_unit_test(test_divides_after_hold),
	    cmocka_unit_test(test_swing_joins),
	    cmocka_unit_test(test_growth_holds),
	    cmocka_unit_test(test_joins),
	    cmocka_unit_test(test_earned_by_use),
	    cmocka_unit_test(test_miss_releases),
	    cmocka_unit_test(test_miss_blame),
	    cmocka_unit_test(test_controller_earn_and_miss),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
