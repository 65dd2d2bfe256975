/* The quality stage inside the control tick (quality_stage.h): joins, the
 * epoch step, Critical, refusal, pins, caps, calibration to the measured
 * cost, and k following a level change into the demand the pacing sees.
 * Table 1 (dJay §6; docs/papers.md) runs through the stage in paper mode. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/controller.h"
#include "core/reach.h"

#define MAX_T 8

struct fixture {
	struct core_params p;
	struct core_gpu gpu;
	struct core_tenant t[MAX_T];
	void *ws;
};

static void setup_fixture(struct fixture *f, bool paper)
{
	*f = (struct fixture){.p = core_params_default()};
	f->p.quality_on = true;
	f->p.quality_paper = paper;
	if (paper)
		f->p.quality = quality_params_djay();
	size_t sz = core_quality_workspace_size(MAX_T);
	f->ws = malloc(sz);
	assert_non_null(f->ws);
	f->gpu.quality.workspace = f->ws;
	f->gpu.quality.workspace_size = sz;
}

static void game(struct core_tenant *t, double sla, const double *cost_s,
                 const double *benefit, uint32_t n_levels)
{
	*t = (struct core_tenant){.sla_fps = sla};
	t->quality.n_levels = n_levels;
	for (uint32_t l = 0; l < n_levels; l++) {
		t->quality.cost[l] = cost_s[l];
		t->quality.benefit[l] = benefit[l];
	}
}

static void tick(struct fixture *f, size_t n)
{
	core_quality_tick(&f->p, &f->gpu, f->t, n);
}

/* Table 1 in ms, as seconds for the stage. */
static const double t1_cost[2][3] = {{0.002, 0.005, 0.029},
                                     {0.010, 0.014, 0.015}};
static const double t1_benefit[2][3] = {{0.7, 0.8, 0.95}, {0.9, 0.94, 0.96}};

static void test_table1_through_stage(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, true);
	game(&f.t[0], 30, t1_cost[0], t1_benefit[0], 3);
	tick(&f, 1);
	/* alone, s1 takes its best level: 29 < 33 */
	assert_int_equal(f.t[0].quality.level, 2);
	game(&f.t[1], 30, t1_cost[1], t1_benefit[1], 3);
	tick(&f, 2);
	/* residual 4 ms fits no level of s2: full reassignment, ME/HI */
	assert_int_equal(f.t[0].quality.level, 1);
	assert_int_equal(f.t[1].quality.level, 2);
	assert_float_equal(f.gpu.quality.total_benefit, 1.76, 1e-12);
	assert_int_equal(f.gpu.quality.reassignments, 1);
	tick(&f, 2);
	assert_int_equal(f.gpu.quality.changed, 0);
	/* costs double: 40 ms is in the Warning band, so the epoch step
	 * moves one level each, to LO/ME with the hysteresis */
	for (int s = 0; s < 2; s++)
		for (int l = 0; l < 3; l++)
			f.t[s].quality.cost[l] *= 2.0;
	tick(&f, 2);
	assert_int_equal(f.gpu.quality.verdict, QUALITY_ALARM_NONE);
	assert_int_equal(f.t[0].quality.level, 0);
	assert_int_equal(f.t[1].quality.level, 1);
	assert_float_equal(f.gpu.quality.total_benefit, 1.64, 1e-12);
	assert_true(f.gpu.quality.total_cost < 33.0);
	free(f.ws);
}

static const double lv_cost[3] = {0.004, 0.010, 0.020};
static const double lv_benefit[3] = {0.80, 0.92, 1.0};

static void test_off_and_starved_leave_levels(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, false);
	game(&f.t[0], 30, lv_cost, lv_benefit, 3);
	f.t[0].quality.start_level = 1;
	f.p.quality_on = false;
	tick(&f, 1);
	assert_false(f.t[0].quality.joined);
	f.p.quality_on = true;
	f.gpu.quality.workspace_size = 8;
	tick(&f, 1);
	assert_true(f.gpu.quality.starved);
	assert_false(f.t[0].quality.joined);
	f.gpu.quality.workspace_size = core_quality_workspace_size(MAX_T);
	tick(&f, 1);
	assert_false(f.gpu.quality.starved);
	assert_true(f.t[0].quality.joined);
	assert_int_equal(f.t[0].quality.level, 2);
	free(f.ws);
}

/* Baton's budget: sum of SLA x cost <= util_target. At 30.3 FPS (SLA and
 * margin), HI costs 0.606 of the GPU: one game at HI, two cannot be. */
static void test_density_trades_levels(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, false);
	size_t n = 0;
	for (; n < 5; n++) {
		game(&f.t[n], 30, lv_cost, lv_benefit, 3);
		f.t[n].quality.start_level = 2;
		tick(&f, n + 1);
		assert_true(f.gpu.quality.total_cost <= f.p.util_target);
		for (int e = 0; e < 20; e++)
			tick(&f, n + 1);
		assert_true(f.gpu.quality.total_cost <= f.p.util_target);
	}
	/* five games at 30.3 x 0.004 = 0.12 each fit only at LO or a mix
	 * with one ME: 0.606 + 4 x 0.121 > 0.95, 2 x 0.303 + 3 x 0.121 =
	 * 0.97 > 0.95, so one ME at most */
	unsigned me = 0;
	for (size_t i = 0; i < n; i++) {
		assert_false(f.t[i].quality.refused);
		assert_true(f.t[i].quality.level <= 1);
		me += f.t[i].quality.level;
	}
	assert_int_equal(me, 1);
	/* admission counts on everyone going down to LO: 5 x 0.121 leaves
	 * room for two more at LO */
	struct core_quality_admit a =
	    core_quality_admit(&f.p, &f.gpu, lv_cost[0], 30);
	assert_true(a.fits);
	assert_int_equal(a.more, 2);
	assert_float_equal(a.floor, 5 * 30.3 * lv_cost[0], 1e-12);
	/* a sixth, seventh: all at LO is 0.85; the eighth (0.97) cannot
	 * join even with everyone at LO, and is refused */
	for (; n < 8; n++) {
		game(&f.t[n], 30, lv_cost, lv_benefit, 3);
		tick(&f, n + 1);
	}
	assert_true(f.t[7].quality.refused);
	assert_int_equal(f.t[7].quality.level, 0);
	assert_int_equal(f.gpu.quality.refusals, 1);
	/* outside the knapsack, it drags no one: the seven keep a total
	 * within budget, and its retries count no new refusal */
	for (int e = 0; e < 5; e++)
		tick(&f, n);
	assert_int_equal(f.gpu.quality.items, 7);
	assert_false(core_quality_admit(&f.p, &f.gpu, lv_cost[0], 30).fits);
	assert_false(core_quality_admit(&f.p, &f.gpu, NAN, 30).fits);
	assert_true(f.gpu.quality.total_cost <= f.p.util_target);
	assert_int_equal(f.gpu.quality.refusals, 1);
	for (size_t i = 0; i < 7; i++)
		assert_false(f.t[i].quality.refused);
	/* once its cost is measured, the refused one's load counts: the
	 * total is over the budget and everyone goes to the cheapest, as
	 * with it in (a Warning takes warn_epochs; run them) */
	f.t[7].k = lv_cost[0];
	tick(&f, n);
	assert_int_equal(f.gpu.quality.items, 8);
	assert_true(f.t[7].quality.refused);
	for (unsigned e = 0; e <= f.p.quality.warn_epochs; e++)
		tick(&f, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(f.t[i].quality.level, 0);
	assert_int_equal(f.gpu.quality.refusals, 1);
	/* one leaves: the eighth joins on its next try */
	f.t[0] = f.t[7];
	tick(&f, 7);
	assert_false(f.t[0].quality.refused);
	assert_true(f.t[0].quality.joined);
	free(f.ws);
}

/* The model was fitted on a faster machine: k measured at HI is 1.5 x
 * the model's, every level is calibrated by it, and the game drops to the
 * level the measured costs afford beside an unmodified game (0.30). The
 * level change rescales k. */
static void test_calibration_and_k_rescale(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, false);
	game(&f.t[0], 30, lv_cost, lv_benefit, 3);
	f.t[1] = (struct core_tenant){.sla_fps = 30, .k = 0.010};
	tick(&f, 2);
	assert_int_equal(f.t[0].quality.level, 2); /* 0.606 + 0.303 fits */
	f.t[0].k = 1.5 * lv_cost[2];               /* measured: 0.03 s */
	tick(&f, 2);
	/* HI is 30.3 x 0.03 = 0.91 now, 1.21 in all: over by more than
	 * 20 %, Critical and a full reassignment to ME (0.45) */
	assert_int_equal(f.gpu.quality.verdict, QUALITY_ALARM_CRITICAL);
	assert_int_equal(f.t[0].quality.level, 1);
	assert_float_equal(f.t[0].k, 1.5 * lv_cost[1], 1e-15);
	assert_float_equal(f.t[0].quality.est_cost, 1.5 * lv_cost[1], 1e-15);
	/* no game counts for more than the whole GPU at its rate */
	f.t[0].k = 10.0 * lv_cost[1];
	tick(&f, 2);
	assert_true(f.t[0].quality.est_cost * 30.3 <= 1.0 + 1e-12);
	free(f.ws);
}

/* dJay's potential list foresees a heavy area: its model cost rises over
 * the drawn frames' beyond their usual ratio while the frames drawn
 * (active counts, what k measured) are still light. The estimate rises
 * with it and the game steps down before a heavy frame is drawn. A
 * potential list that is always heavier than what is drawn (a superset)
 * raises nothing. */
static void set_counts(struct core_tenant *t, double pol, double aol)
{
	for (int l = 0; l < 3; l++) {
		t->quality.cost[l] = pol * lv_cost[l];
		t->quality.cost_active[l] = aol * lv_cost[l];
	}
}

static void test_potential_list_anticipates(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, false);
	game(&f.t[0], 30, lv_cost, lv_benefit, 3);
	game(&f.t[1], 30, lv_cost, lv_benefit, 3);
	set_counts(&f.t[0], 1.5, 1.0);
	set_counts(&f.t[1], 1.5, 1.0);
	tick(&f, 2); /* HI + ME: 0.91 */
	assert_int_equal(f.t[0].quality.level + f.t[1].quality.level, 3);
	int hi = f.t[0].quality.level == 2 ? 0 : 1;
	f.t[hi].k = lv_cost[2]; /* measured: as the model says */
	f.t[1 - hi].k = lv_cost[1];
	for (int e = 0; e < 20; e++)
		tick(&f, 2);
	/* the usual 1.5 raises nothing */
	assert_int_equal(f.t[hi].quality.level, 2);
	assert_float_equal(f.t[hi].quality.est_cost, lv_cost[2], 1e-12);
	set_counts(&f.t[hi], 3.0, 1.0); /* a crowd ahead: x2 the usual */
	tick(&f, 2);
	assert_int_equal(f.gpu.quality.verdict, QUALITY_ALARM_CRITICAL);
	assert_true(f.t[hi].quality.level < 2);
	assert_true(f.gpu.quality.total_cost <= f.p.util_target);
	free(f.ws);
}

/* A peer that reports absurd potential counts (its active ones, which k
 * calibrates, ordinary): the estimate rests on what it draws and what it
 * measurably costs, so the two honest games keep their levels. */
static void test_absurd_counts_hurt_only_their_game(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, false);
	game(&f.t[0], 30, lv_cost, lv_benefit, 3);
	game(&f.t[1], 30, lv_cost, lv_benefit, 3);
	tick(&f, 2); /* HI + ME: 0.91 */
	unsigned l0 = f.t[0].quality.level, l1 = f.t[1].quality.level;
	const double huge[3] = {4.0, 10.0, 20.0}; /* seconds a frame */
	game(&f.t[2], 30, huge, lv_benefit, 3);
	for (int l = 0; l < 3; l++) /* the frames it draws: light */
		f.t[2].quality.cost_active[l] = lv_cost[l] / 10.0;
	f.t[2].k = 0.0004; /* what it measurably costs: 0.012 */
	for (int e = 0; e < 30; e++)
		tick(&f, 3);
	assert_int_equal(f.t[0].quality.level + f.t[1].quality.level,
	                 l0 + l1); /* 0.91 + 0.012 still fits */
	assert_true(f.gpu.quality.total_cost <= f.p.util_target);
	assert_true(f.t[2].quality.est_cost * 30.3 < 0.05);
	free(f.ws);
}

/* Baton's damping of the epoch step: upgrades stop short of the budget
 * by quality_headroom, and a downgrade that undoes an upgrade holds the
 * game for quality_hold_s. k is set each tick to the model's cost at the
 * level in force times a noise factor. */
static void noisy_tick(struct fixture *f, double factor)
{
	struct core_tenant *t = &f->t[0];
	t->k = t->quality.cost[t->quality.level] * factor;
	tick(f, 1);
}

static void test_damping(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, false);
	const double cost[3] = {0.004, 0.010, 0.030}; /* HI: 0.909 */
	game(&f.t[0], 30, cost, lv_benefit, 3);
	tick(&f, 1);
	assert_int_equal(f.t[0].quality.level, 2); /* the join: 0.909 fits */
	noisy_tick(&f, 1.1);                       /* 1.0: over */
	assert_int_equal(f.t[0].quality.level, 1);
	/* back to the model: HI fits 0.95 but not 0.95 x (1 - 0.05) */
	for (int e = 0; e < 50; e++)
		noisy_tick(&f, 1.0);
	assert_int_equal(f.t[0].quality.level, 1);
	/* cheaper: the step upgrades; noise undoes it within the hold
	 * window; the game is held quality_hold_s, then goes up again */
	f.t[0].quality.cost[2] = 0.028; /* 0.85 */
	noisy_tick(&f, 1.0);
	assert_int_equal(f.t[0].quality.level, 2);
	noisy_tick(&f, 1.2); /* 1.02 */
	assert_int_equal(f.t[0].quality.level, 1);
	assert_true(f.t[0].quality.hold_s > 0.0);
	int held = 0;
	while (f.t[0].quality.level == 1 && held < 100) {
		noisy_tick(&f, 1.0);
		held++;
	}
	assert_int_equal(f.t[0].quality.level, 2);
	double want = f.p.quality_hold_s / f.p.epoch_s;
	assert_true(held >= want - 1 && held <= want + 1);
	/* undone again: each undone upgrade doubles the next hold */
	noisy_tick(&f, 1.2);
	assert_int_equal(f.t[0].quality.level, 1);
	assert_int_equal(f.t[0].quality.flaps, 2);
	held = 0;
	while (f.t[0].quality.level == 1 && held < 200) {
		noisy_tick(&f, 1.0);
		held++;
	}
	assert_int_equal(f.t[0].quality.level, 2);
	assert_true(held >= 2 * want - 1 && held <= 2 * want + 2);
	/* an upgrade that holds through its window takes one doubling off */
	for (int e = 0; e < (int)want + 2; e++)
		noisy_tick(&f, 1.0);
	assert_int_equal(f.t[0].quality.level, 2);
	assert_int_equal(f.t[0].quality.flaps, 1);
	free(f.ws);
}

/* A game that cannot reach its rate while the estimates say it fits:
 * a ceiling 3 % under the total takes its level down at the next tick;
 * while none is short the ceiling rises 0.5 % of the budget a second and
 * goes at the budget. On a GPU far from busy, nothing happens. */
static void test_ceiling_learns_contention(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, false);
	game(&f.t[0], 30, lv_cost, lv_benefit, 3);
	tick(&f, 1);
	assert_int_equal(f.t[0].quality.level, 2); /* 0.606 of 0.95 */
	f.t[0].limited = true;
	f.gpu.sla_util = 0.2; /* short of its rate, the GPU idle */
	for (int e = 0; e < 20; e++)
		tick(&f, 1);
	assert_float_equal(f.gpu.quality.ceiling, 0.0, 0.0);
	assert_int_equal(f.t[0].quality.level, 2);
	f.gpu.sla_util = 0.7; /* near the budget: the GPU is busy */
	tick(&f, 1);
	assert_float_equal(f.gpu.quality.ceiling, 0.606 * 0.97, 1e-9);
	tick(&f, 1);
	assert_int_equal(f.t[0].quality.level, 1);
	/* still short: cut again only after the settle time, under the
	 * new total */
	f.gpu.sla_util = 0.5; /* still busy */
	double first = f.gpu.quality.ceiling;
	for (int e = 0; e < 8; e++) {
		tick(&f, 1);
		assert_float_equal(f.gpu.quality.ceiling, first, 0.0);
	}
	for (int e = 0; e < 3; e++)
		tick(&f, 1);
	assert_float_equal(f.gpu.quality.ceiling, 0.303 * 0.97, 1e-9);
	/* none short: 0.5 % of 0.95 a second back, gone at the budget */
	f.t[0].limited = false;
	double c = f.gpu.quality.ceiling;
	for (int e = 0; e < 10; e++)
		tick(&f, 1);
	assert_float_equal(f.gpu.quality.ceiling, c + 0.005 * 0.95, 1e-9);
	int e = 0;
	while (f.gpu.quality.ceiling > 0.0 && e < 10000) {
		tick(&f, 1);
		e++;
	}
	assert_float_equal(f.gpu.quality.ceiling, 0.0, 0.0);
	assert_int_equal(f.t[0].quality.level, 2);
	/* paper mode keeps dJay's budget */
	struct fixture g;
	setup_fixture(&g, true);
	game(&g.t[0], 30, t1_cost[0], t1_benefit[0], 3);
	g.t[0].limited = true;
	g.gpu.sla_util = 1.0;
	for (int i = 0; i < 20; i++)
		tick(&g, 1);
	assert_int_equal(g.t[0].quality.level, 2);
	assert_float_equal(g.gpu.quality.budget, 33.0, 0.0);
	free(f.ws);
	free(g.ws);
}

/* A pinned game keeps its level and its cost counts; an unmodified game
 * (no estimates) is one choice of its measured cost; the SDK game fits in
 * what they leave. */
static void test_pinned_and_unmodified_count(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, false);
	game(&f.t[0], 30, lv_cost, lv_benefit, 3);
	f.t[0].quality.pinned = 3; /* HI: 0.606 */
	f.t[1] = (struct core_tenant){.sla_fps = 30, .k = 0.005}; /* 0.15 */
	game(&f.t[2], 30, lv_cost, lv_benefit, 3);
	tick(&f, 3);
	for (int e = 0; e < 5; e++)
		tick(&f, 3);
	assert_int_equal(f.t[0].quality.level, 2);
	assert_float_equal(f.t[1].quality.est_cost, 0.005, 1e-15);
	/* 0.95 - 0.606 - 0.1515 = 0.19: LO (0.12) only */
	assert_int_equal(f.t[2].quality.level, 0);
	/* unpinned: HI/LO (0.88) still fits, and the epoch step only moves
	 * into room (ME/ME would be better: the hysteresis holds) */
	f.t[0].quality.pinned = 0;
	for (int e = 0; e < 5; e++)
		tick(&f, 3);
	assert_true(f.gpu.quality.total_cost <= f.p.util_target);
	assert_int_equal(f.t[0].quality.level + f.t[2].quality.level, 2);
	free(f.ws);
}

/* A capped tenant is offered only the levels its budget pays for. */
static void test_cap_bounds_levels(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, false);
	game(&f.t[0], 30, lv_cost, lv_benefit, 3);
	f.t[0].caps.budget = 0.4; /* HI needs 0.606 */
	tick(&f, 1);
	assert_int_equal(f.t[0].quality.level, 1);
	free(f.ws);
}

/* Through the whole tick: the demand the pacing policy sees is the one of
 * the level just chosen. */
static void test_demand_follows_level(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, false);
	game(&f.t[0], 30, lv_cost, lv_benefit, 3);
	f.t[0].quality.start_level = 2;
	f.t[0].fps = 30;
	f.t[0].frames = 3;
	f.t[0].gpu_busy_s = 3 * 0.040; /* twice the model at HI */
	core_controller_tick(&core_policy_sa, &f.p, &f.gpu, f.t, 1);
	/* k came from one frame interval (1/30 s bounds it); HI at that is
	 * over 1.2 x budget: the join places it at ME at once */
	assert_int_equal(f.t[0].quality.level, 1);
	assert_float_equal(f.gpu.sla_util,
	                   f.t[0].k * core_sla_ref(&f.p, &f.t[0]), 1e-12);
	assert_true(f.gpu.sla_util <= f.p.util_target);
	assert_false(f.gpu.overload);
	free(f.ws);
}

/* Latency, not load: one game alone fits at HI (0.606 of the GPU), but a
 * frame that takes nearly its whole period is late at the first
 * contention. It keeps a level while its reach there clears its held rate
 * (30.3) by quality_reach_headroom (x 1.25: 37.9), and goes up to one only
 * if it clears it by twice that (x 1.5: 45.5). Its reach follows its level
 * as k does. Cap-bound or with the rule off, the reach says nothing. */
static void test_reach_bounds_levels(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, false);
	struct core_tenant *t = &f.t[0];
	game(t, 30, lv_cost, lv_benefit, 3);
	tick(&f, 1);
	assert_int_equal(t->quality.level, 2);
	t->k = lv_cost[2];
	t->reach_fps = 20.0; /* its first epochs: the reach is settling */
	tick(&f, 1);
	assert_int_equal(t->quality.level, 2);
	t->epochs = 10;      /* 1 s: settled */
	t->reach_fps = 40.0; /* 40 x 0.020 / 0.020 = 40 >= 37.9: keeps HI */
	tick(&f, 1);
	assert_int_equal(t->quality.level, 2);
	t->reach_fps = 35.0; /* under 37.9: down to ME, where it reaches 70 */
	tick(&f, 1);
	assert_int_equal(t->quality.level, 1);
	assert_float_equal(t->k, lv_cost[1], 1e-15);
	assert_float_equal(t->reach_fps, 70.0, 1e-9);
	for (int e = 0; e < 10; e++) { /* HI would reach 35 < 45.5: stays */
		tick(&f, 1);
		assert_int_equal(t->quality.level, 1);
	}
	t->reach_fps = 100.0; /* HI would reach 50: back up */
	tick(&f, 1);
	assert_int_equal(t->quality.level, 2);
	assert_float_equal(t->reach_fps, 50.0, 1e-9);
	/* its reach is its cap's: nothing to say about latency */
	t->reach_fps = 20.0;
	t->cap_bound = true;
	tick(&f, 1);
	assert_int_equal(t->quality.level, 2);
	t->cap_bound = false;
	f.p.quality_reach_headroom = 0.0; /* off */
	tick(&f, 1);
	assert_int_equal(t->quality.level, 2);
	free(f.ws);
}

/* The slow frames bound the levels (reach.h, reach_low_fps). At ME its
 * mean frame says HI would reach 50 (over 45.5, twice the headroom), but
 * its slowest frame of late says 35: under the held rate (30.3) x 1.25,
 * 37.9, so one such frame at HI would be late. It stays at ME until its
 * slow frames clear that too; the low reach follows the level as the mean
 * does. At HI, a frame that missed its period takes it down. Not kept
 * (reach_low_s 0, reach_low_fps 0): the mean alone decides. */
static void test_slow_frames_bound_levels(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f, false);
	struct core_tenant *t = &f.t[0];
	game(t, 30, lv_cost, lv_benefit, 3);
	tick(&f, 1);
	t->k = lv_cost[2];
	t->epochs = 10;
	t->reach_fps = 35.0; /* HI's reach under 37.9: down to ME */
	tick(&f, 1);
	assert_int_equal(t->quality.level, 1);
	t->reach_fps = 100.0;    /* HI: 50 */
	t->reach_low_fps = 70.0; /* HI: 35 < 37.9 */
	for (int e = 0; e < 10; e++) {
		tick(&f, 1);
		assert_int_equal(t->quality.level, 1);
	}
	t->reach_low_fps = 80.0; /* HI: 40 */
	tick(&f, 1);
	assert_int_equal(t->quality.level, 2);
	assert_float_equal(t->reach_low_fps, 40.0, 1e-9);
	/* at HI its mean reach is 50, but a frame just took longer than
	 * its period (a reach of 25 < 30.3): down to ME, where it is 50 */
	t->reach_fps = 50.0;
	t->reach_low_fps = 25.0;
	tick(&f, 1);
	assert_int_equal(t->quality.level, 1);
	assert_float_equal(t->reach_low_fps, 50.0, 1e-9);
	/* the rule off: the mean alone raises it */
	t->quality.hold_s = 0.0;
	t->reach_fps = 100.0;
	t->reach_low_fps = 0.0;
	tick(&f, 1);
	assert_int_equal(t->quality.level, 2);
	free(f.ws);
}

/* reach_low_fps from the epochs (reach.c): a game at 10 FPS whose pacer
 * sleeps half of each period reaches 20. One epoch with no sleep (a frame
 * that took its whole period) takes the low reach to 10 at once, while
 * the mean moves a fifth of the way; after 2 s (reach_low_s) of fast
 * frames again it is back 63 % of the way, at 20 - 10 / e. */
static void test_low_reach_follows_slow_frames(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_tenant t = {.sla_fps = 10, .fps = 10, .frames = 1};
	t.sleep_s = 0.05;
	core_reach_update(&p, &t);
	assert_float_equal(t.reach_low_fps, 20.0, 1e-9);
	t.sleep_s = 0.0;
	core_reach_update(&p, &t);
	assert_float_equal(t.reach_low_fps, 10.0, 1e-9);
	assert_true(t.reach_fps > 17.0);
	t.sleep_s = 0.05;
	for (int e = 0; e < 20; e++)
		core_reach_update(&p, &t);
	assert_float_equal(t.reach_low_fps, 20.0 - 10.0 * exp(-1.0), 1e-6);
	p.reach_low_s = 0.0; /* not kept */
	core_reach_update(&p, &t);
	assert_float_equal(t.reach_low_fps, 0.0, 0.0);
}

/* A cost that steps up with the budget packed: an SDK game at HI (0.606 of
 * the GPU at 30.3 FPS) beside an unmodified one at 0.008 s a frame (0.242;
 * 0.848 in all), whose frames grow to 0.013 s (0.394: 1.0 in all, over).
 * Each epoch, as a driver reports it: three frames at 30 FPS, each a
 * pacing sleep of half its period (the reach, 60 FPS, says nothing). The
 * SDK game's frames cost its level's model cost from the epoch after a
 * change on (a level reaches the game at its next frame, the cost the
 * driver with the next one: lag_epochs more at the old level). */
struct step_bed {
	struct fixture f;
	uint32_t drawn; /* the level the SDK game's frames are drawn at */
	uint32_t lag;   /* epochs left at that level after a change */
	double scale0;  /* the SDK game's frames over its model; 0: 1 */
};

static void step_epoch(struct step_bed *b, double cost1, uint32_t lag_epochs)
{
	struct core_tenant *t = b->f.t;
	double s0 = b->scale0 > 0.0 ? b->scale0 : 1.0;
	double cost[2] = {lv_cost[b->drawn] * s0, cost1};
	for (int i = 0; i < 2; i++) {
		t[i].fps = 30;
		t[i].frames = 3;
		t[i].paced_frames = 3;
		t[i].sleep_s = 0.05;
		t[i].gpu_busy_s = 3 * cost[i];
	}
	uint32_t was = t[0].quality.chosen ? t[0].quality.level : 2;
	core_controller_tick(&core_policy_sa, &b->f.p, &b->f.gpu, t, 2);
	if (t[0].quality.level != was)
		b->lag = lag_epochs + 1;
	if (b->lag > 0 && --b->lag == 0)
		b->drawn = t[0].quality.level;
}

/* Epochs of the heavier cost until the SDK game leaves HI (99: never in
 * 30); then 30 more with the level change's frames lagging, where it
 * must stay at the level it went to. */
static unsigned epochs_to_lower(double ratio)
{
	struct step_bed b = {.drawn = 2};
	setup_fixture(&b.f, false);
	b.f.p.quality_step_ratio = ratio;
	b.f.p.quality_spread_z = 0.0; /* the step rule alone */
	game(&b.f.t[0], 30, lv_cost, lv_benefit, 3);
	b.f.t[0].quality.start_level = 2;
	b.f.t[1] = (struct core_tenant){.sla_fps = 30};
	for (int e = 0; e < 30; e++) /* 0.008 x (1 +- 15 %): no step */
		step_epoch(&b, e % 2 ? 0.0092 : 0.0068, 0);
	assert_int_equal(b.f.t[0].quality.level, 2);
	step_epoch(&b, 0.016, 0); /* one heavy epoch is no step either */
	assert_int_equal(b.f.t[0].quality.level, 2);
	for (int e = 0; e < 10; e++)
		step_epoch(&b, 0.008, 0);
	unsigned n = 1;
	for (; n <= 30; n++) {
		step_epoch(&b, 0.013, 2);
		if (b.f.t[0].quality.level < 2)
			break;
	}
	uint32_t lowered = b.f.t[0].quality.level;
	for (int e = 0; e < 30; e++) {
		step_epoch(&b, 0.013, 2);
		assert_int_equal(b.f.t[0].quality.level, lowered);
	}
	free(b.f.ws);
	return n <= 30 ? n : 99;
}

/* The smoothed k (k_alpha 0.2) shows the step over the budget after five
 * epochs; the step rule lowers at the second (quality_step_epochs). */
static void test_cost_step_lowers_at_once(void **state)
{
	(void)state;
	assert_int_equal(epochs_to_lower(0.25), 2);
	assert_int_equal(epochs_to_lower(0.0), 5);
}

/* The games' joint cost noise with the budget packed (the step bed: the
 * SDK game at HI, 0.606, beside the unmodified one at 0.008 s a frame,
 * 0.242; 0.848 of the 0.95 budget). Steady costs keep no headroom: HI
 * stays. Then both games' frames move together, 0.85 and 1.15 of their
 * means, `half` epochs each way: with half = 5 (half a second heavy,
 * half a second light) the means still fit and k (an EWMA) stays within
 * about 10 % of them, so the knapsack alone keeps HI while every other
 * half second's total is 0.975, over the budget; the measured spread of
 * the total takes the SDK game down to ME, whose total with the spread's
 * headroom fits. With quality_spread_z = 0 (the stage before the spread)
 * it stays at HI. With half = 1 the moves cancel within the spread's
 * window, as a frame's CPU time falling on both sides of an epoch's edge
 * does: HI stays. Returns the level after 80 such epochs. */
static uint32_t level_under_joint_noise(double z, int half, double *spread)
{
	struct step_bed b = {.drawn = 2};
	setup_fixture(&b.f, false);
	b.f.p.quality_spread_z = z;
	game(&b.f.t[0], 30, lv_cost, lv_benefit, 3);
	b.f.t[0].quality.start_level = 2;
	b.f.t[1] = (struct core_tenant){.sla_fps = 30};
	for (int e = 0; e < 30; e++)
		step_epoch(&b, 0.008, 0);
	assert_int_equal(b.f.t[0].quality.level, 2);
	assert_true(b.f.gpu.quality.spread < 1e-9);
	for (int e = 0; e < 80; e++) {
		double f = (e / half) % 2 ? 1.15 : 0.85;
		b.scale0 = f;
		step_epoch(&b, 0.008 * f, 2);
	}
	*spread = b.f.gpu.quality.spread;
	uint32_t level = b.f.t[0].quality.level;
	free(b.f.ws);
	return level;
}

static void test_joint_noise_keeps_headroom(void **state)
{
	(void)state;
	double spread = 0.0;
	assert_int_equal(level_under_joint_noise(0.0, 5, &spread), 2);
	assert_true(spread == 0.0);
	assert_int_equal(level_under_joint_noise(1.282, 1, &spread), 2);
	print_message("joint noise, epoch by epoch: spread %.3f\n", spread);
	/* under a third of what epoch-by-epoch deviations would give:
	 * 1.282 x 0.15 x 0.848 */
	assert_true(spread < 1.282 * 0.127 / 3.0);
	uint32_t level = level_under_joint_noise(1.282, 5, &spread);
	print_message("joint noise, by half seconds: level %u, spread %.3f\n",
	              level, spread);
	assert_int_equal(level, 1);
	/* z x the total's deviation at ME: 0.15 x (0.303 + 0.242) */
	assert_true(spread > 1.282 * 0.6 * 0.082 &&
	            spread < 1.282 * 1.4 * 0.082);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table1_through_stage),
	    cmocka_unit_test(test_off_and_starved_leave_levels),
	    cmocka_unit_test(test_density_trades_levels),
	    cmocka_unit_test(test_calibration_and_k_rescale),
	    cmocka_unit_test(test_potential_list_anticipates),
	    cmocka_unit_test(test_absurd_counts_hurt_only_their_game),
	    cmocka_unit_test(test_damping),
	    cmocka_unit_test(test_ceiling_learns_contention),
	    cmocka_unit_test(test_pinned_and_unmodified_count),
	    cmocka_unit_test(test_cap_bounds_levels),
	    cmocka_unit_test(test_demand_follows_level),
	    cmocka_unit_test(test_reach_bounds_levels),
	    cmocka_unit_test(test_slow_frames_bound_levels),
	    cmocka_unit_test(test_low_reach_follows_slow_frames),
	    cmocka_unit_test(test_cost_step_lowers_at_once),
	    cmocka_unit_test(test_joint_noise_keeps_headroom),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
