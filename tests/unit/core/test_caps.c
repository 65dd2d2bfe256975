/* The capacity stage (src/core/caps.c, gOver Sec. 3.3 and Algorithm 1
 * as docs/papers.md corrects it): sampling, overload detection, mitigation
 * with its clamps and the zero-sum invariant, the severe case, admission,
 * departures, per-user caps, and the printed algorithm's defects (a)-(h)
 * kept out. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/caps.h"
#include "core/controller.h"

#define EPS 1e-12

/* The defaults, with U_o pinned at 0.9: the figures below were worked out
 * by hand for it, and the rules do not depend on its value. */
static struct core_params params(void)
{
	struct core_params p = core_params_default();
	p.cap_u_over = 0.9;
	return p;
}

/* The utilization caps are sized for under it (caps.h): 0.675. */
#define SIZED_U (0.9 * (1.0 - CORE_CAP_SIZE_MARGIN))

/* One sampling period (10 ticks of 100 ms): tenant i uses busy[i] of the
 * GPU and shows fps[i] frames per second; the GPU's utilization is the sum. */
static void period(const struct core_params *p, struct core_gpu *gpu,
                   struct core_tenant *t, size_t n, const double *busy,
                   const double *fps)
{
	for (int k = 0; k < 10; k++) {
		double util = 0.0;
		for (size_t i = 0; i < n; i++) {
			t[i].gpu_busy_s = busy[i] * p->epoch_s;
			t[i].frames = (uint32_t)lround(fps[i] * p->epoch_s);
			util += busy[i];
		}
		gpu->util = util;
		core_caps_tick(p, gpu, t, n);
	}
}

/* Tenants already holding the given dynamic caps, as if they had joined
 * and been sampled; k > 0 means they have presented. */
static void hold(struct core_tenant *t, size_t n, const double *initial,
                 const double *cap)
{
	for (size_t i = 0; i < n; i++) {
		t[i] = (struct core_tenant){.sla_fps = 30, .k = 0.001};
		t[i].cap_initial = initial[i];
		t[i].caps.joined = initial[i] > 0;
		t[i].caps.cap = cap[i];
		t[i].caps.sampled = initial[i] > 0;
	}
}

static double sum_caps(const struct core_gpu *gpu, const struct core_tenant *t,
                       size_t n)
{
	double s = gpu->caps.pool;
	for (size_t i = 0; i < n; i++)
		s += t[i].caps.cap;
	return s;
}

static void test_defaults(void **state)
{
	(void)state;
	struct core_params p = params();
	assert_float_equal(p.cap_period_s, 1.0, 0.0); /* gOver Sec. 3.2 */
	assert_float_equal(p.cap_steal, 0.2, 0.0);    /* "one-fifth" */
	assert_int_equal(p.cap_run, 3);               /* 3 in succession */
	assert_int_equal(p.cap_quiet, 3);             /* 3 quiet rounds */
	assert_float_equal(p.cap_total, 1.0, 0.0);
	assert_true(p.cap_u_over > 0.5 && p.cap_u_over < 1.0);
	assert_true(p.cap_u_limit < p.cap_u_over);
	assert_true(p.cap_u_limit > 0.5 && p.cap_u_limit <= 1.0);
	assert_true(p.cap_w_u > 0.0 && p.cap_w_e > 0.0);
}

/* Newcomers take from the pool, then up to a fair share from the others'
 * spare cap; no cap is made or lost. */
static void test_join_pool_then_fair_share(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[3] = {0};
	for (int i = 0; i < 3; i++)
		t[i] = (struct core_tenant){.sla_fps = 30, .cap_initial = 0.5};
	core_caps_tick(&p, &gpu, t, 2);
	assert_float_equal(t[0].caps.cap, 0.5, EPS);
	assert_float_equal(t[1].caps.cap, 0.5, EPS);
	assert_float_equal(t[0].caps.budget, 0.5, EPS);
	assert_float_equal(gpu.caps.pool, 0.0, EPS);
	/* the third arrives with the pool empty and the others not yet
	 * sampled: it gets a third, half from each */
	core_caps_tick(&p, &gpu, t, 3);
	assert_float_equal(t[2].caps.cap, 1.0 / 3, 1e-9);
	assert_float_equal(t[0].caps.cap, 0.5 - 1.0 / 6, 1e-9);
	assert_float_equal(sum_caps(&gpu, t, 3), 1.0, 1e-9);
	assert_int_equal(gpu.caps.quiet, 0);
}

/* A newcomer never takes more than half the spare cap of the others at
 * their measured use (cap - used / U_o), so they stay under U_o. */
static void test_join_takes_only_spare(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[3];
	hold(t, 2, (double[]){0.5, 0.5}, (double[]){0.5, 0.5});
	double busy[2] = {0.45, 0.09}, fps[2] = {30, 30};
	period(&p, &gpu, t, 2, busy, fps);
	t[2] = (struct core_tenant){.sla_fps = 30, .cap_initial = 0.5};
	core_caps_tick(&p, &gpu, t, 3);
	/* spare: 0.5 - 0.45/0.9 = 0 and 0.5 - 0.09/0.9 = 0.4; half of it */
	assert_float_equal(t[2].caps.cap, 0.2, 1e-9);
	assert_float_equal(t[0].caps.cap, 0.5, 1e-9);
	assert_float_equal(t[1].caps.cap, 0.3, 1e-9);
	assert_float_equal(sum_caps(&gpu, t, 3), 1.0, 1e-9);
}

/* A newcomer whose cost is already learned aims at what it needs at its
 * SLA at the sized utilization (k x sla / 0.675), more or less than a
 * fair share. */
static void test_join_by_need(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[3];
	hold(t, 2, (double[]){0.5, 0.5}, (double[]){0.5, 0.5});
	double busy[2] = {0.1, 0.1}, fps[2] = {30, 30};
	period(&p, &gpu, t, 2, busy, fps);
	t[2] =
	    (struct core_tenant){.sla_fps = 30, .cap_initial = 0.5, .k = 0.015};
	core_caps_tick(&p, &gpu, t, 3);
	/* needs 0.67, wants its 0.5; half the others' spare 2 x (0.5 - 0.1 /
	 * 0.9) */
	double spare = 0.5 - 0.1 / 0.9;
	assert_float_equal(t[2].caps.cap, spare, 1e-9);
	assert_true(t[2].caps.cap > 1.0 / 3);
	assert_float_equal(sum_caps(&gpu, t, 3), 1.0, 1e-9);
	/* a cheap newcomer takes only what it needs: 0.001 x 30 / 0.675 */
	struct core_tenant u = {.sla_fps = 30, .cap_initial = 0.5, .k = 0.001};
	struct core_tenant v[4] = {t[0], t[1], t[2], u};
	core_caps_tick(&p, &gpu, v, 4);
	assert_float_equal(v[3].caps.cap, 0.001 * 30 / SIZED_U, 1e-9);
}

/* G4, G5: u = busy / (cap x T), e = (SLA - fps) / SLA, once per period. */
static void test_sampling(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[2];
	hold(t, 2, (double[]){0.5, 0.25}, (double[]){0.5, 0.25});
	t[0].caps.sampled = t[1].caps.sampled = false; /* never sampled */
	double busy[2] = {0.2, 0.2}, fps[2] = {60, 20};
	for (int k = 0; k < 9; k++) {
		t[0].gpu_busy_s = 0.02;
		t[0].frames = 6;
		t[1].gpu_busy_s = 0.02;
		t[1].frames = 2;
		core_caps_tick(&p, &gpu, t, 2);
	}
	assert_false(t[0].caps.sampled);
	assert_false(gpu.caps.sampled);
	period(&p, &gpu, t, 2, busy, fps); /* ends the first, half the next */
	assert_true(t[0].caps.sampled);
	assert_float_equal(t[0].caps.u, 0.4, 1e-9);
	assert_float_equal(t[1].caps.u, 0.8, 1e-9);
	assert_float_equal(t[0].caps.e, -1.0, 1e-9);
	assert_float_equal(t[1].caps.e, 1.0 / 3, 1e-9);
	assert_float_equal(t[0].caps.fps, 60, 1e-9);
	/* G6: total load = sum u_i cap_i */
	assert_float_equal(gpu.caps.total_load, 0.4, 1e-9);
}

/* Overloaded on u only after cap_run successive samples over U_o; a sample
 * under it restarts the run. */
static void test_overload_needs_three_in_a_row(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[2];
	hold(t, 2, (double[]){0.5, 0.5}, (double[]){0.3, 0.5});
	double hi[2] = {0.3 * 0.95, 0.1}, lo[2] = {0.3 * 0.5, 0.1};
	double fps[2] = {30, 30};
	period(&p, &gpu, t, 2, hi, fps);
	period(&p, &gpu, t, 2, hi, fps);
	assert_false(t[0].caps.overloaded);
	period(&p, &gpu, t, 2, lo, fps);
	assert_int_equal(t[0].caps.over_run, 0);
	period(&p, &gpu, t, 2, hi, fps);
	period(&p, &gpu, t, 2, hi, fps);
	assert_false(t[0].caps.overloaded);
	assert_int_equal(gpu.caps.moves, 0);
	period(&p, &gpu, t, 2, hi, fps);
	assert_true(t[0].caps.overloaded);
	assert_int_equal(gpu.caps.n_overloaded, 1);
	assert_int_equal(gpu.caps.moves, 1);
}

/* Baton's QoS condition on the u-signal: two tenants whose caps bind at
 * twice their SLA are not overloaded (nor severe, and capacity is still
 * advertised); the same caps binding within cap_qos_margin of the SLA are,
 * after cap_run samples; a run is broken by a sample above the margin. */
static void test_u_signal_needs_qos_risk(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[2];
	hold(t, 2, (double[]){0.3, 0.3}, (double[]){0.3, 0.3});
	double busy[2] = {0.3 * 0.99, 0.3 * 0.99}, fps[2] = {60, 60};
	for (int i = 0; i < 5; i++)
		period(&p, &gpu, t, 2, busy, fps);
	assert_false(t[0].caps.overloaded);
	assert_false(t[1].caps.overloaded);
	assert_false(gpu.caps.severe);
	assert_int_equal(t[0].caps.over_run, 0);
	assert_true(core_caps_admit(&p, &gpu, 0.001, 30).fits);

	/* 32 FPS for an SLA of 30: 6.7 % above it, inside the 10 % margin */
	fps[0] = fps[1] = 32;
	period(&p, &gpu, t, 2, busy, fps);
	period(&p, &gpu, t, 2, busy, fps);
	fps[1] = 60; /* tenant 1's run is broken here */
	period(&p, &gpu, t, 2, busy, fps);
	assert_true(t[0].caps.overloaded);
	assert_false(t[1].caps.overloaded);
	assert_int_equal(t[1].caps.over_run, 0);
	assert_false(gpu.caps.severe);
	assert_false(core_caps_admit(&p, &gpu, 0.001, 30).fits);

	/* with the margin at 1 (2 x SLA), 60 FPS counts too: severe */
	p.cap_qos_margin = 1.01;
	for (int i = 0; i < 3; i++)
		period(&p, &gpu, t, 2, busy, fps);
	assert_true(t[1].caps.overloaded);
	assert_true(gpu.caps.severe);
}

/* FPS under the SLA is a signal at once; within the tolerance and one
 * frame of phase it is not (30 frames in a period at SLA 31);
 * a tenant that never presented is never judged on its rate, nor is a
 * tenant on its first period (its start-up). */
static void test_overload_on_fps(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[3];
	hold(t, 3, (double[]){0.5, 0.5, 0.2}, (double[]){0.3, 0.5, 0.2});
	t[2].k = 0.0; /* registered, never presented */
	/* (period() counts whole frames per 100 ms: rates are tens) */
	t[0].sla_fps = 31;
	double busy[3] = {0.1, 0.1, 0.0}, fps[3] = {30, 30, 0};
	period(&p, &gpu, t, 3, busy, fps);
	assert_false(t[0].caps.overloaded); /* 3.2 % under: one frame */
	assert_false(t[2].caps.overloaded);
	assert_int_equal(gpu.caps.quiet, 1);
	fps[0] = 20;
	period(&p, &gpu, t, 3, busy, fps);
	assert_true(t[0].caps.overloaded);
	assert_int_equal(gpu.caps.quiet, 0);

	/* a newcomer's first period, however slow, is its start-up */
	t[1].caps.sampled = false;
	fps[0] = 40;
	fps[1] = 10;
	period(&p, &gpu, t, 3, busy, fps);
	assert_false(t[1].caps.overloaded);
	period(&p, &gpu, t, 3, busy, fps);
	assert_true(t[1].caps.overloaded);
}

/* (a) + (b): the donor is the argmin of w_u u + w_e e over the others, not
 * the last tenant scanned; and with u in [0, 1] a truncating int factor
 * would make 0.3 and 0.6 tie and pick the first. */
static void test_donor_is_argmin(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[4];
	double cap[4] = {0.2, 0.3, 0.3, 0.2};
	hold(t, 4, (double[]){0.5, 0.5, 0.5, 0.5}, cap);
	/* tenant 0 overloaded on FPS; donors' u: 0.6, 0.3, 0.9 */
	double busy[4] = {0.1, 0.3 * 0.6, 0.3 * 0.3, 0.2 * 0.9};
	double fps[4] = {10, 30, 30, 30};
	period(&p, &gpu, t, 4, busy, fps);
	assert_true(t[0].caps.overloaded);
	assert_int_equal(gpu.caps.last_donor, 2);
	assert_int_equal(gpu.caps.last_recipient, 0);
	/* 1/5 of the donor's unused cap: 0.2 x 0.3 x (1 - 0.3) */
	double s = 0.2 * 0.3 * 0.7;
	assert_float_equal(gpu.caps.last_moved, s, 1e-9);
	assert_float_equal(t[2].caps.cap, 0.3 - s, 1e-9);
	assert_float_equal(t[0].caps.cap, 0.2 + s, 1e-9);
	assert_float_equal(t[1].caps.cap, 0.3, 0.0);
	assert_float_equal(t[3].caps.cap, 0.2, 0.0);
	assert_float_equal(sum_caps(&gpu, t, 4), 1.0, 1e-9);
}

/* (c): the overloaded tenant is never its own donor, even when its own
 * factor is the smallest (overloaded on FPS with a low u). */
static void test_never_own_donor(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[2];
	hold(t, 2, (double[]){0.6, 0.5}, (double[]){0.5, 0.5});
	double busy[2] = {0.05, 0.45}, fps[2] = {20, 30};
	period(&p, &gpu, t, 2, busy, fps);
	assert_true(t[0].caps.overloaded);
	assert_int_equal(gpu.caps.last_donor, 1);
	assert_float_equal(t[1].caps.cap, 0.5 - 0.2 * 0.5 * 0.1, 1e-9);
}

/* (g): e is normalised by the SLA. In FPS a game 50 FPS above a 100 SLA
 * would look lighter than one 30 above a 30 SLA; normalised it is not. */
static void test_e_normalised(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[3];
	hold(t, 3, (double[]){0.5, 0.5, 0.5}, (double[]){0.2, 0.4, 0.4});
	t[2].sla_fps = 100;
	/* tenant 1: u 0.5, e -1 -> -0.5; tenant 2: u 0.1, e -0.5 -> -0.4 */
	double busy[3] = {0.1, 0.2, 0.04}, fps[3] = {10, 60, 150};
	period(&p, &gpu, t, 3, busy, fps);
	assert_int_equal(gpu.caps.last_donor, 1);
}

/* (f): the recipient never goes above its published cap; the donor never
 * below zero; only tenants with unused cap donate. */
static void test_clamps(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[2];
	hold(t, 2, (double[]){0.31, 0.7}, (double[]){0.3, 0.7});
	double busy[2] = {0.1, 0.0}, fps[2] = {10, 30};
	period(&p, &gpu, t, 2, busy, fps);
	assert_float_equal(t[0].caps.cap, 0.31, 1e-9); /* 0.138 offered */
	assert_float_equal(t[1].caps.cap, 0.69, 1e-9);
	/* at its published cap: nothing more moves, and that is no
	 * escalation (it has what it bought) */
	uint64_t moves = gpu.caps.moves;
	period(&p, &gpu, t, 2, busy, fps);
	assert_int_equal(gpu.caps.moves, moves);
	assert_false(gpu.caps.severe);

	/* a donor using all of its cap has none unused: (h) no donor at
	 * all is escalated, never a move from nobody */
	hold(t, 2, (double[]){0.5, 0.7}, (double[]){0.3, 0.7});
	gpu = (struct core_gpu){0};
	double busy2[2] = {0.1, 0.7};
	period(&p, &gpu, t, 2, busy2, fps);
	assert_true(t[0].caps.overloaded);
	assert_int_equal(gpu.caps.moves, 0);
	assert_true(gpu.caps.severe);
	for (int i = 0; i < 2; i++)
		assert_true(t[i].caps.cap >= 0.0);
}

/* Repeated steals from a steady donor: its unused cap shrinks x0.8 each
 * time (notes, Sec. 3), the sum never moves, no cap goes negative. */
static void test_zero_sum_over_many_steals(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[3];
	hold(t, 3, (double[]){1.0, 0.5, 0.5}, (double[]){0.2, 0.4, 0.4});
	double fps[3] = {10, 30, 30};
	for (int k = 0; k < 40; k++) {
		double busy[3] = {0.1, 0.1, 0.3 * t[2].caps.cap};
		period(&p, &gpu, t, 3, busy, fps);
		assert_float_equal(sum_caps(&gpu, t, 3), 1.0, 1e-9);
		for (int i = 0; i < 3; i++)
			assert_true(t[i].caps.cap >= 0.0 &&
			            t[i].caps.cap <= t[i].cap_initial + EPS);
	}
	assert_int_equal(gpu.caps.moves, 40);
	assert_true(t[0].caps.cap > 0.6);
}

/* Two overloaded at once: severe, no steal, capacity not advertised. */
static void test_severe(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[3];
	hold(t, 3, (double[]){0.5, 0.5, 0.5}, (double[]){0.3, 0.3, 0.4});
	double busy[3] = {0.1, 0.1, 0.1}, fps[3] = {10, 10, 30};
	period(&p, &gpu, t, 3, busy, fps);
	assert_true(gpu.caps.severe);
	assert_int_equal(gpu.caps.n_overloaded, 2);
	assert_int_equal(gpu.caps.moves, 0);
	struct core_admit a = core_caps_admit(&p, &gpu, 0.001, 30);
	assert_false(a.fits);
	assert_int_equal(a.why, CORE_ADMIT_SEVERE);
	/* once the signals stop, it clears */
	fps[0] = fps[1] = 30;
	period(&p, &gpu, t, 3, busy, fps);
	assert_false(gpu.caps.severe);
}

/* Admission (G6): cap_quiet quiet periods and total load + newcomer < U_l;
 * how many more fit; every reason. (d): an empty signal set alone admits
 * nothing. */
static void test_admission(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[2];
	hold(t, 2, (double[]){0.5, 0.5}, (double[]){0.5, 0.5});
	struct core_admit a = core_caps_admit(&p, &gpu, 0.0021, 30);
	assert_int_equal(a.why, CORE_ADMIT_NO_SAMPLE);
	double busy[2] = {0.2, 0.1}, fps[2] = {30, 30};
	period(&p, &gpu, t, 2, busy, fps);
	a = core_caps_admit(&p, &gpu, 0.0021, 30);
	assert_int_equal(a.why, CORE_ADMIT_NOT_QUIET);
	period(&p, &gpu, t, 2, busy, fps);
	assert_false(core_caps_admit(&p, &gpu, 0.0021, 30).fits);
	period(&p, &gpu, t, 2, busy, fps);
	a = core_caps_admit(&p, &gpu, 0.0021, 30);
	assert_true(a.fits);
	assert_float_equal(a.load, 0.3, 1e-9);
	assert_float_equal(a.newcomer, 0.063, 1e-12);
	/* 0.3 + k 0.063 < U_l = 0.7 for k <= 6 */
	assert_float_equal(a.limit, 0.7, 0.0);
	assert_int_equal(a.more, 6);
	a = core_caps_admit(&p, &gpu, 0.02, 30); /* 0.3 + 0.6 */
	assert_false(a.fits);
	assert_int_equal(a.why, CORE_ADMIT_LOAD);
	assert_int_equal(a.more, 0);
	assert_int_equal(core_caps_admit(&p, &gpu, NAN, 30).why,
	                 CORE_ADMIT_BAD_PROFILE);
	assert_int_equal(core_caps_admit(&p, &gpu, 0.002, 0).why,
	                 CORE_ADMIT_BAD_PROFILE);
	assert_int_equal(core_caps_admit(&p, &gpu, -1, 30).why,
	                 CORE_ADMIT_BAD_PROFILE);
	assert_string_equal(core_admit_reason_str(CORE_ADMIT_FITS), "fits");
	/* the measured utilization counts when it is higher than the
	 * tenants' reports (load nobody reports) */
	for (int k = 0; k < 10; k++) {
		t[0].gpu_busy_s = 0.02;
		t[1].gpu_busy_s = 0.01;
		gpu.util = 0.8;
		core_caps_tick(&p, &gpu, t, 2);
	}
	assert_float_equal(gpu.caps.total_load, 0.8, 1e-9);
	/* and the tenants cause more than they report (0.8 against 0.3:
	 * the X server's copies on a software rasterizer), so a newcomer
	 * brings its share: its cost x SLA scaled by 0.8 / 0.3 */
	assert_float_equal(gpu.caps.overhead, 0.8 / 0.3, 1e-9);
	a = core_caps_admit(&p, &gpu, 0.001, 30);
	assert_float_equal(a.newcomer, 0.03 * 0.8 / 0.3, 1e-9);
	/* load no tenant causes is not theirs: other_util is left out */
	for (int k = 0; k < 10; k++) {
		t[0].gpu_busy_s = 0.02;
		t[1].gpu_busy_s = 0.01;
		gpu.util = 0.8;
		gpu.other_util = 0.5;
		core_caps_tick(&p, &gpu, t, 2);
	}
	assert_float_equal(gpu.caps.overhead, 1.0, 1e-9);
	gpu.other_util = 0.0;
}

/* Admission's load is the highest of the last cap_quiet periods: one
 * quiet second does not let a newcomer in over a load that comes back. */
static void test_admission_takes_the_highest_recent_load(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[2];
	hold(t, 2, (double[]){0.5, 0.5}, (double[]){0.5, 0.5});
	double busy[2] = {0.3, 0.3}, fps[2] = {30, 30};
	for (int k = 0; k < 4; k++)
		period(&p, &gpu, t, 2, busy, fps);
	busy[0] = busy[1] = 0.15; /* one light second */
	period(&p, &gpu, t, 2, busy, fps);
	assert_float_equal(gpu.caps.total_load, 0.3, 1e-9);
	struct core_admit a = core_caps_admit(&p, &gpu, 0.004, 30);
	assert_float_equal(a.load, 0.6, 1e-9);
	assert_false(a.fits); /* 0.6 + 0.12; on the last period 0.42 */
	a = core_caps_admit(&p, &gpu, 0.001, 30);
	assert_true(a.fits); /* 0.6 + 0.03 < 0.7, 3 more: 0.69 */
	assert_int_equal(a.more, 3);
	/* after cap_quiet light periods the heavy ones are out of it */
	for (int k = 0; k < 3; k++)
		period(&p, &gpu, t, 2, busy, fps);
	assert_float_equal(core_caps_admit(&p, &gpu, 0.001, 30).load, 0.3,
	                   1e-9);
}

/* A departure returns its cap to the pool and restarts the quiet count,
 * whether reported with core_caps_depart or by dropping the tenant. */
static void test_departure(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[3];
	hold(t, 3, (double[]){0.5, 0.5, 0.5}, (double[]){0.3, 0.3, 0.4});
	double busy[3] = {0.1, 0.1, 0.1}, fps[3] = {30, 30, 30};
	for (int k = 0; k < 3; k++)
		period(&p, &gpu, t, 3, busy, fps);
	assert_true(core_caps_admit(&p, &gpu, 0.001, 30).fits);
	/* dropped from the array without a call */
	period(&p, &gpu, t, 2, busy, fps);
	assert_float_equal(gpu.caps.pool, 0.4, 1e-9);
	assert_int_equal(gpu.caps.quiet, 1); /* restarted, then 1 period */
	assert_int_equal(core_caps_admit(&p, &gpu, 0.001, 30).why,
	                 CORE_ADMIT_NOT_QUIET);
	period(&p, &gpu, t, 2, busy, fps);
	period(&p, &gpu, t, 2, busy, fps);
	assert_true(core_caps_admit(&p, &gpu, 0.001, 30).fits);
	/* reported */
	core_caps_depart(&gpu, &t[1]);
	assert_int_equal(gpu.caps.quiet, 0);
	assert_float_equal(gpu.caps.pool, 0.7, 1e-9);
	assert_false(core_caps_admit(&p, &gpu, 0.001, 30).fits);
	core_caps_tick(&p, &gpu, t, 1);
	assert_float_equal(gpu.caps.pool, 0.7, 1e-9);
	assert_int_equal(gpu.caps.quiet, 0);
}

/* An overloaded tenant takes from the pool before stealing, up to its
 * published cap. */
static void test_pool_first(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[2];
	hold(t, 2, (double[]){0.6, 0.5}, (double[]){0.3, 0.5});
	double busy[2] = {0.1, 0.1}, fps[2] = {20, 30};
	period(&p, &gpu, t, 2, busy, fps);
	/* the pool's 0.2, then 1/5 of the donor's unused 0.4 */
	assert_float_equal(t[0].caps.cap, 0.58, 1e-9);
	assert_float_equal(t[1].caps.cap, 0.42, 1e-9);
	assert_float_equal(sum_caps(&gpu, t, 2), 1.0, 1e-9);
}

/* A published cap lowered below the dynamic one sends the excess to the
 * pool; set to 0 (uncapped), the whole cap goes back. */
static void test_published_cap_changes(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[2];
	hold(t, 2, (double[]){0.5, 0.5}, (double[]){0.5, 0.5});
	t[0].cap_initial = 0.2;
	core_caps_tick(&p, &gpu, t, 2);
	assert_float_equal(t[0].caps.cap, 0.2, EPS);
	assert_float_equal(t[0].caps.budget, 0.2, EPS);
	assert_float_equal(gpu.caps.pool, 0.3, 1e-9);
	t[1].cap_initial = 0.0;
	core_caps_tick(&p, &gpu, t, 2);
	assert_false(t[1].caps.joined);
	assert_float_equal(t[1].caps.budget, 0.0, 0.0);
	assert_float_equal(gpu.caps.pool, 0.8, 1e-9);
}

/* A published cap outside (0, 1] is no cap: nothing joins, the pool keeps
 * everything. */
static void test_bad_published_caps(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[3] = {{.sla_fps = 30, .cap_initial = NAN},
	                           {.sla_fps = 30, .cap_initial = 1.5},
	                           {.sla_fps = 30, .cap_initial = -0.2}};
	core_caps_tick(&p, &gpu, t, 3);
	for (int i = 0; i < 3; i++) {
		assert_false(t[i].caps.joined);
		assert_float_equal(t[i].caps.budget, 0.0, 0.0);
	}
	assert_float_equal(gpu.caps.pool, 1.0, 0.0);
}

/* A user's tenants together never exceed the user's cap: their budgets
 * scale down in proportion; other users are untouched. */
static void test_owner_caps(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[3];
	hold(t, 3, (double[]){0.4, 0.4, 0.2}, (double[]){0.3, 0.5, 0.2});
	t[0].owner = t[1].owner = 1000;
	t[2].owner = 1001;
	struct core_owner_cap oc[] = {{.owner = 1000, .cap = 0.4},
	                              {.owner = 1001, .cap = 0.5},
	                              {.owner = 7, .cap = NAN}};
	gpu.caps.owner_caps = oc;
	gpu.caps.n_owner_caps = 3;
	for (int i = 0; i < 3; i++)
		t[i].frames = 3; /* 30 FPS: no QoS signal */
	core_caps_tick(&p, &gpu, t, 3);
	/* t[1]'s 0.5 over its 0.4 published went to the pool first */
	assert_float_equal(t[1].caps.cap, 0.4, EPS);
	assert_float_equal(t[0].caps.budget, 0.4 * 0.3 / 0.7, 1e-9);
	assert_float_equal(t[1].caps.budget, 0.4 * 0.4 / 0.7, 1e-9);
	assert_float_equal(t[0].caps.budget + t[1].caps.budget, 0.4, 1e-9);
	assert_float_equal(t[2].caps.budget, 0.2, EPS);
	/* u is judged against the budget the gate enforced */
	double busy[3] = {0.4 * 0.3 / 0.7, 0.0, 0.0}, fps[3] = {30, 30, 30};
	period(&p, &gpu, t, 3, busy, fps);
	period(&p, &gpu, t, 3, busy, fps); /* the first was 0.1 s short */
	assert_float_equal(t[0].caps.u, 1.0, 1e-9);
}

/* A toy GPU for work-conserving budgets: tenant i wants demand[i] of the
 * GPU and gets the smaller of that and the budget of the last tick (all
 * of it while uncapped); its gate holds it (cap-bound) while it wants
 * more. The GPU's utilization is the sum. ticks epochs; returns the
 * largest change of tenant `watch`'s budget over the last 10. */
static double wc_run(const struct core_params *p, struct core_gpu *gpu,
                     struct core_tenant *t, size_t n, const double *demand,
                     int ticks, size_t watch)
{
	double lo = INFINITY, hi = -INFINITY;
	for (int k = 0; k < ticks; k++) {
		double util = 0.0;
		for (size_t i = 0; i < n; i++) {
			double b = t[i].caps.budget;
			double use = b > 0.0 && b < demand[i] ? b : demand[i];
			t[i].cap_bound = b > 0.0 && demand[i] > b;
			t[i].gpu_busy_s = use * p->epoch_s;
			t[i].frames = 3;
			util += use;
		}
		gpu->util = util;
		core_caps_tick(p, gpu, t, n);
		if (k >= ticks - 10) {
			lo = fmin(lo, t[watch].caps.budget);
			hi = fmax(hi, t[watch].caps.budget);
		}
	}
	return hi - lo;
}

/* Work-conserving budgets (caps.c, work_conserve): alone on the GPU a
 * saturating work-conserving tenant capped at 0.1 gets util_target of
 * it, a strict one keeps 0.1; beside a strict saturating tenant capped at
 * 0.1 and an uncapped one using 0.3 it gets the spare, 0.95 - 0.5 on top
 * of its cap, and holds it (a fixed point, not a budget that swings
 * tick by tick); a work-conserving tenant under its cap gets nothing
 * more; two that saturate split the spare. */
static void test_work_conserving_budgets(void **state)
{
	(void)state;
	struct core_params p = params();
	for (int wc = 0; wc < 2; wc++) {
		struct core_gpu gpu = {0};
		struct core_tenant t[1];
		hold(t, 1, (double[]){0.1}, (double[]){0.1});
		t[0].work_conserving = wc;
		wc_run(&p, &gpu, t, 1, (double[]){1.0}, 100, 0);
		assert_float_equal(t[0].caps.budget, wc ? p.util_target : 0.1,
		                   1e-3);
	}

	struct core_gpu gpu = {0};
	struct core_tenant t[3];
	hold(t, 3, (double[]){0.1, 0.1, 0}, (double[]){0.1, 0.1, 0});
	t[0].work_conserving = true;
	double swing =
	    wc_run(&p, &gpu, t, 3, (double[]){1.0, 1.0, 0.3}, 100, 0);
	print_message("wc beside strict 0.1 and 0.3 uncapped: %.4f (swing "
	              "%.2g), strict %.4f, spare %.4f\n",
	              t[0].caps.budget, swing, t[1].caps.budget,
	              gpu.caps.wc_spare);
	assert_float_equal(t[0].caps.budget, 0.1 + (p.util_target - 0.5), 1e-3);
	assert_true(swing < 1e-3);
	assert_float_equal(t[1].caps.budget, 0.1, EPS);
	assert_float_equal(t[2].caps.budget, 0.0, 0.0);

	/* under its cap: its cap, no more */
	wc_run(&p, &gpu, t, 3, (double[]){0.05, 1.0, 0.3}, 100, 0);
	assert_float_equal(t[0].caps.budget, 0.1, EPS);

	/* two saturating work-conserving tenants split the spare */
	t[1].work_conserving = true;
	wc_run(&p, &gpu, t, 3, (double[]){1.0, 1.0, 0.3}, 200, 0);
	double each = 0.1 + (p.util_target - 0.3 - 0.2) / 2;
	assert_float_equal(t[0].caps.budget, each, 2e-3);
	assert_float_equal(t[1].caps.budget, each, 2e-3);
}

/* A work-conserving tenant soaking up an idle GPU does not make it look
 * full to admission: its use beyond its strict budget is left out of G6's
 * total load. A strict tenant's use is not. */
static void test_work_conserving_leaves_admission_open(void **state)
{
	(void)state;
	struct core_params p = params();
	for (int wc = 0; wc < 2; wc++) {
		struct core_gpu gpu = {0};
		struct core_tenant t[2];
		hold(t, 2, (double[]){0.1, 0.2}, (double[]){0.1, 0.2});
		t[0].work_conserving = wc;
		/* 30 FPS for an SLA of 10: a cap that binds is no overload */
		t[0].sla_fps = t[1].sla_fps = 10;
		wc_run(&p, &gpu, t, 2, (double[]){1.0, 0.1}, 100, 0);
		struct core_admit a = core_caps_admit(&p, &gpu, 0.01, 30);
		print_message("%s: budget %.3f, load %.3f\n",
		              wc ? "work-conserving" : "strict",
		              t[0].caps.budget, gpu.caps.total_load);
		/* 0.1 at its cap, 0.1 used of 0.2: 0.2 either way */
		assert_float_equal(gpu.caps.total_load, 0.2, 0.01);
		assert_true(a.fits);
		assert_int_equal(a.more, 1); /* 0.2 + 0.3 < 0.7, + 0.6 not */
		if (wc)
			assert_true(t[0].caps.budget > 0.5);
	}
}

/* An owner cap bounds a work-conserving tenant's budget with its
 * siblings': the extras give way, the strict budgets do not. */
static void test_work_conserving_within_owner_cap(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[3];
	hold(t, 3, (double[]){0.1, 0.1, 0.1}, (double[]){0.1, 0.1, 0.1});
	t[0].owner = t[1].owner = 1000;
	t[2].owner = 1001;
	t[0].work_conserving = t[2].work_conserving = true;
	struct core_owner_cap oc[] = {{.owner = 1000, .cap = 0.3}};
	gpu.caps.owner_caps = oc;
	gpu.caps.n_owner_caps = 1;
	wc_run(&p, &gpu, t, 3, (double[]){1.0, 1.0, 1.0}, 200, 0);
	print_message("owner capped 0.3: wc %.4f + strict %.4f; other "
	              "owner's wc %.4f\n",
	              t[0].caps.budget, t[1].caps.budget, t[2].caps.budget);
	assert_float_equal(t[1].caps.budget, 0.1, EPS);
	assert_float_equal(t[0].caps.budget + t[1].caps.budget, 0.3, 1e-9);
	/* the other owner's takes the rest of the spare */
	assert_true(t[2].caps.budget > 0.5);
	assert_true(t[0].caps.budget + t[1].caps.budget + t[2].caps.budget <=
	            p.util_target + 1e-3);
}

/* The controller tick runs the stage; uncapped tenants are left alone
 * but their load counts. */
static void test_controller_runs_stage(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[2] = {
	    {.sla_fps = 30,
	     .cap_initial = 0.25,
	     .fps = 30,
	     .frames = 3,
	     .gpu_busy_s = 0.003},
	    {.sla_fps = 30, .fps = 30, .frames = 3, .gpu_busy_s = 0.05},
	};
	for (int k = 0; k < 10; k++)
		core_controller_tick(&core_policy_sa, &p, &gpu, t, 2);
	assert_true(t[0].caps.joined);
	assert_float_equal(t[0].caps.budget, 0.25, EPS);
	assert_false(t[1].caps.joined);
	assert_float_equal(t[1].caps.budget, 0.0, 0.0);
	assert_true(gpu.caps.sampled);
	assert_float_equal(gpu.caps.total_load, 0.53, 1e-9);
	assert_float_equal(t[0].caps.u, 0.03 / 0.25, 1e-9);
	assert_true(t[0].target_fps > 0.0); /* pacing still runs */
}

/* One period in which tenant 0 presents `frames` frames (spread over the
 * epochs, at any count, not only multiples of ten a second) and the
 * others 30. */
static void period_frames(const struct core_params *p, struct core_gpu *gpu,
                          struct core_tenant *t, size_t n, int frames)
{
	for (int k = 0; k < 10; k++) {
		for (size_t i = 0; i < n; i++) {
			t[i].gpu_busy_s = 0.05 * p->epoch_s;
			t[i].frames = 3;
		}
		t[0].frames =
		    (uint32_t)((frames * (k + 1)) / 10 - (frames * k) / 10);
		gpu->util = 0.05 * (double)n;
		core_caps_tick(p, gpu, t, n);
	}
}

/* A game holding its SLA of 30 in a light scene on a machine with a few
 * percent steal: a hiccup costs it a frame or two in one period now and
 * then (27-28 FPS, under SLA x 0.98 less one frame). That is noise, not
 * an overload: one such period alone never flags it; two in a row do, and
 * one far under the SLA (a heavy scene at 10 FPS) does at once. */
static void test_one_shallow_dip_is_not_overload(void **state)
{
	(void)state;
	struct core_params p = params();
	struct core_gpu gpu = {0};
	struct core_tenant t[2];
	hold(t, 2, (double[]){0.5, 0.5}, (double[]){0.5, 0.5});
	int steady[] = {30, 31, 28, 30, 30, 27, 31, 30, 28, 30, 30, 27, 30};
	for (size_t i = 0; i < sizeof(steady) / sizeof(steady[0]); i++) {
		period_frames(&p, &gpu, t, 2, steady[i]);
		assert_false(t[0].caps.overloaded);
	}
	assert_int_equal(gpu.caps.moves, 0);
	period_frames(&p, &gpu, t, 2, 27);
	assert_true(t[0].caps.below_sla);
	assert_false(t[0].caps.overloaded);
	period_frames(&p, &gpu, t, 2, 27);
	assert_true(t[0].caps.overloaded);
	period_frames(&p, &gpu, t, 2, 30);
	assert_false(t[0].caps.overloaded);
	period_frames(&p, &gpu, t, 2, 10);
	assert_true(t[0].caps.overloaded);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_join_pool_then_fair_share),
	    cmocka_unit_test(test_join_takes_only_spare),
	    cmocka_unit_test(test_join_by_need),
	    cmocka_unit_test(test_sampling),
	    cmocka_unit_test(test_overload_needs_three_in_a_row),
	    cmocka_unit_test(test_overload_on_fps),
	    cmocka_unit_test(test_u_signal_needs_qos_risk),
	    cmocka_unit_test(test_donor_is_argmin),
	    cmocka_unit_test(test_never_own_donor),
	    cmocka_unit_test(test_e_normalised),
	    cmocka_unit_test(test_clamps),
	    cmocka_unit_test(test_zero_sum_over_many_steals),
	    cmocka_unit_test(test_severe),
	    cmocka_unit_test(test_admission),
	    cmocka_unit_test(test_admission_takes_the_highest_recent_load),
	    cmocka_unit_test(test_departure),
	    cmocka_unit_test(test_pool_first),
	    cmocka_unit_test(test_published_cap_changes),
	    cmocka_unit_test(test_bad_published_caps),
	    cmocka_unit_test(test_owner_caps),
	    cmocka_unit_test(test_controller_runs_stage),
	    cmocka_unit_test(test_work_conserving_budgets),
	    cmocka_unit_test(test_work_conserving_leaves_admission_open),
	    cmocka_unit_test(test_work_conserving_within_owner_cap),
	    cmocka_unit_test(test_one_shallow_dip_is_not_overload),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
