/* SA, FSA and ESA reference assignment (vGASA Algorithms 1-3). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/policy.h"

static struct core_tenant tenant(double sla, double fps, double k)
{
	return (struct core_tenant){.sla_fps = sla,
	                            .fps = fps,
	                            .fps_smooth = fps,
	                            .k = k,
	                            .epochs = 1000};
}

static void test_find(void **state)
{
	(void)state;
	assert_ptr_equal(core_policy_find("sa"), &core_policy_sa);
	assert_ptr_equal(core_policy_find("fsa"), &core_policy_fsa);
	assert_ptr_equal(core_policy_find("esa"), &core_policy_esa);
	assert_ptr_equal(core_policy_find("none"), &core_policy_none);
	assert_null(core_policy_find("SA"));
	assert_null(core_policy_find(NULL));
	size_t n = 0;
	for (const struct core_policy *const *p = core_policy_all(); *p; p++)
		n++;
	assert_int_equal(n, 4);
}

static void test_sa_reference_is_the_criterion(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[2] = {tenant(30, 80, 0.005), tenant(60, 20, 0.02)};
	core_policy_sa.assign(&p, &gpu, t, 2);
	assert_float_equal(t[0].ref_fps, 30.0 * (1 + p.sla_margin), 1e-12);
	assert_float_equal(t[1].ref_fps, 60.0 * (1 + p.sla_margin), 1e-12);
}

static void test_esa_common_reference_fills_the_gpu(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	p.util_target = 1.0;
	struct core_gpu gpu = {0};
	/* vGASA's example shape: F = 1 / sum k_i. SLAs low enough that the
	 * floor (never under the SLA) does not bind here. */
	struct core_tenant t[3] = {tenant(10, 25, 0.0125),
	                           tenant(10, 40, 0.0085),
	                           tenant(10, 70, 0.006)};
	core_policy_esa.assign(&p, &gpu, t, 3);
	double F = 1.0 / (0.0125 + 0.0085 + 0.006);
	double used = 0.0;
	for (int i = 0; i < 3; i++) {
		assert_float_equal(t[i].ref_fps, F, 1e-9);
		used += t[i].k * t[i].ref_fps; /* g_i = k_i * F */
	}
	assert_float_equal(used, 1.0, 1e-12);
	assert_float_equal(gpu.common_fps, F, 1e-9);

	/* a utilization target below 100% scales the common rate */
	p.util_target = 0.9;
	core_policy_esa.assign(&p, &gpu, t, 3);
	assert_float_equal(t[0].ref_fps, 0.9 * F, 1e-9);

	/* a pinned tenant's share comes off the budget first */
	t[2].fixed_fps = 50.0;
	core_policy_esa.assign(&p, &gpu, t, 3);
	double F2 = (0.9 - 0.006 * 50.0) / (0.0125 + 0.0085);
	assert_float_equal(t[0].ref_fps, F2, 1e-9);
	assert_float_equal(t[1].ref_fps, F2, 1e-9);

	/* so does load on the device that no tenant reports */
	gpu.other_util = 0.2;
	core_policy_esa.assign(&p, &gpu, t, 3);
	double F3 = (0.9 - 0.2 - 0.006 * 50.0) / (0.0125 + 0.0085);
	assert_float_equal(t[0].ref_fps, F3, 1e-9);
	gpu.other_util = 0.0;
}

/* When the budget cannot hold every game at its SLA, ESA holds each at its
 * SLA reference as SA would, never all of them under it together; without
 * a common rate (a coefficient unknown, the budget taken) it does the
 * same. */
static void test_esa_never_aims_under_the_sla(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	/* sum k = 0.04: U / sum k = 23.75 FPS, under both SLAs */
	struct core_tenant t[2] = {tenant(30, 20, 0.02), tenant(25, 20, 0.02)};
	core_policy_esa.assign(&p, &gpu, t, 2);
	assert_float_equal(gpu.common_fps, 0.95 / 0.04, 1e-9);
	assert_float_equal(t[0].ref_fps, 30 * (1 + p.sla_margin), 1e-9);
	assert_float_equal(t[1].ref_fps, 25 * (1 + p.sla_margin), 1e-9);

	/* other load takes the whole budget */
	gpu.other_util = 0.99;
	core_policy_esa.assign(&p, &gpu, t, 2);
	assert_float_equal(gpu.common_fps, 0.0, 0.0);
	assert_float_equal(t[0].ref_fps, 30 * (1 + p.sla_margin), 1e-9);
	gpu.other_util = 0.0;

	/* no coefficient known yet: every game starts at its SLA */
	struct core_gpu fresh = {0};
	t[0].k = t[1].k = 0.0;
	core_policy_esa.assign(&p, &fresh, t, 2);
	assert_float_equal(fresh.common_fps, 0.0, 0.0);
	assert_float_equal(t[0].ref_fps, 30 * (1 + p.sla_margin), 1e-9);
	assert_float_equal(t[1].ref_fps, 25 * (1 + p.sla_margin), 1e-9);
	/* one unknown is left out (test_esa_leaves_out_unmeasured): the
	 * common rate is the other's, 0.95 / 0.02, and both get it */
	t[0].k = 0.02;
	core_policy_esa.assign(&p, &fresh, t, 2);
	assert_float_equal(fresh.common_fps, 47.5, 1e-9);
	assert_float_equal(t[1].ref_fps, 47.5, 1e-9);

	/* a newcomer is left out until its cost is known, and starts at
	 * the common rate */
	t[1].k = 0.005;
	core_policy_esa.assign(&p, &fresh, t, 2); /* 0.95 / 0.025 = 38 */
	struct core_tenant three[3] = {t[0], t[1], tenant(30, 0, 0.0)};
	core_policy_esa.assign(&p, &fresh, three, 3);
	assert_float_equal(fresh.common_fps, 38.0, 1e-9);
	for (int i = 0; i < 3; i++)
		assert_float_equal(three[i].ref_fps, 38.0, 1e-9);
}

/* A tenant that never presents has no coefficient: it is left out of the
 * common rate instead of leaving the rate unknown for everyone (before,
 * one such tenant held every game at its SLA reference, 30.3 here, for as
 * long as it stayed). */
static void test_esa_leaves_out_unmeasured(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[2] = {tenant(30, 400, 0.002), tenant(30, 0, 0)};
	t[1].owner = 65534;
	for (int i = 0; i < 3; i++)
		core_policy_esa.assign(&p, &gpu, t, 2);
	assert_float_equal(gpu.common_fps, 0.95 / 0.002, 1e-9);
	assert_float_equal(t[0].ref_fps, 475.0, 1e-9);
	assert_float_equal(t[1].ref_fps, 475.0, 1e-9);
}

/* Each owner's share of the budget is bounded: ten tenants of one user
 * that report huge costs take at most that user's half of the GPU, not
 * another user's game's rate (before: 0.95 / 1.002 = 0.95 FPS, the game
 * held at its SLA reference only by the floor). With one owner the rule
 * is vGASA's F = U / sum k (test_esa_common_reference_fills_the_gpu). */
static void test_esa_bounds_each_owners_share(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[11];
	t[0] = tenant(30, 400, 0.002); /* owner 0: a game alone at 475 */
	for (int i = 1; i < 11; i++) {
		t[i] = tenant(30, 1, 0.1); /* claims a tenth of a GPU a frame */
		t[i].owner = 65534;
	}
	core_policy_esa.assign(&p, &gpu, t, 11);
	double half = 0.95 / 2;
	assert_float_equal(gpu.common_fps, half / 0.002, 1e-6);
	assert_float_equal(t[0].ref_fps, half / 0.002, 1e-6);
	/* the capped user's tenants: what its half affords (0.475 / 1.0),
	 * under their SLA, so their SLA reference */
	for (int i = 1; i < 11; i++)
		assert_float_equal(t[i].ref_fps, 30 * (1 + p.sla_margin), 1e-9);

	/* the capped user's tenants, limited at 1 FPS, do not pull the
	 * common rate down */
	for (int i = 1; i < 11; i++)
		t[i].limited = true;
	for (int r = 0; r < 20; r++)
		core_policy_esa.assign(&p, &gpu, t, 11);
	assert_float_equal(gpu.esa_ceiling, 0.0, 0.0);
	assert_float_equal(t[0].ref_fps, half / 0.002, 1e-6);
	for (int i = 1; i < 11; i++)
		t[i].limited = false;

	/* pinning its tenants at a high rate takes no more than its share */
	t[1].fixed_fps = 1000;
	t[2].fixed_fps = 1000;
	core_policy_esa.assign(&p, &gpu, t, 11);
	assert_float_equal(t[0].ref_fps, half / 0.002, 1e-6);

	/* owners under their share are not touched: two users, equal costs,
	 * vGASA's one rate */
	struct core_tenant u[3] = {tenant(10, 40, 0.01), tenant(10, 40, 0.01),
	                           tenant(5, 40, 0.02)};
	u[2].owner = 7;
	struct core_gpu g2 = {0};
	core_policy_esa.assign(&p, &g2, u, 3);
	for (int i = 0; i < 3; i++)
		assert_float_equal(u[i].ref_fps, 0.95 / 0.04, 1e-9);

	/* one user over its share: the other user's cheap game gets the rate
	 * its half affords, the expensive user what its half affords */
	u[2].k = 0.08; /* at 0.95 / 0.1 = 9.5 FPS it would cost 0.76 */
	core_policy_esa.assign(&p, &g2, u, 3);
	assert_float_equal(u[0].ref_fps, half / 0.02, 1e-9);
	assert_float_equal(u[1].ref_fps, half / 0.02, 1e-9);
	assert_float_equal(u[2].ref_fps, half / 0.08, 1e-9);
}

/* A limited tenant pulls the common reference down to what it achieves; the
 * ceiling climbs at esa_climb per second once nobody is limited, and goes
 * once it reaches the budget's rate. */
static void test_esa_ceiling_follows_the_limited_tenant(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[2] = {tenant(30, 60, 0.005),
	                           tenant(30, 80, 0.005)};
	double ideal = 0.95 / 0.01, step = 1 + p.esa_climb * p.epoch_s;
	core_policy_esa.assign(&p, &gpu, t, 2);
	assert_float_equal(gpu.common_fps, ideal, 1e-9);
	assert_float_equal(gpu.esa_ceiling, 0.0, 0.0);

	/* 80 is within one step (10 %) of 95: straight there */
	t[1].limited = true;
	core_policy_esa.assign(&p, &gpu, t, 2);
	double c = 0.9 * ideal;
	assert_float_equal(gpu.common_fps, c, 1e-9);
	assert_float_equal(t[0].ref_fps, c, 1e-9);
	assert_float_equal(t[1].ref_fps, c, 1e-9);
	/* the next step waits for the first to show */
	core_policy_esa.assign(&p, &gpu, t, 2);
	assert_float_equal(gpu.common_fps, c, 1e-9);
	for (int i = 0; i < 20 && gpu.common_fps == c; i++)
		core_policy_esa.assign(&p, &gpu, t, 2);
	assert_float_equal(gpu.common_fps, 80.0, 1e-9);

	/* nobody limited: climb one step per epoch */
	t[1].limited = false;
	core_policy_esa.assign(&p, &gpu, t, 2);
	assert_float_equal(gpu.common_fps, 80.0 * step, 1e-9);

	/* a limited tenant under the SLA: a step at a time down to the
	 * lowest SLA reference, the others held at their SLA */
	t[1].limited = true;
	t[1].fps_smooth = 20.0;
	for (int i = 0; i < 200; i++)
		core_policy_esa.assign(&p, &gpu, t, 2);
	assert_float_equal(t[0].ref_fps, 30 * (1 + p.sla_margin), 1e-9);
	assert_float_equal(gpu.esa_ceiling, 30 * (1 + p.sla_margin), 1e-9);

	/* climb back, then the ceiling goes */
	t[1].limited = false;
	for (int i = 0; i < 10000 && gpu.esa_ceiling > 0.0; i++)
		core_policy_esa.assign(&p, &gpu, t, 2);
	assert_float_equal(gpu.esa_ceiling, 0.0, 0.0);
	assert_float_equal(gpu.common_fps, ideal, 1e-9);
}

/* A moment's stall (a game loading its next scene) moves the ceiling one
 * step, not down to the stall; a stall that leaves the game's share under
 * a tenth of the other's (it barely uses the GPU then) none at all. */
static void test_esa_stall_is_one_step(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[2] = {tenant(30, 60, 0.005), tenant(30, 5, 0.02)};
	double ideal = 0.95 / 0.025;
	t[1].limited = true;        /* share 0.1 beside the other's 0.3 */
	for (int i = 0; i < 5; i++) /* half a second */
		core_policy_esa.assign(&p, &gpu, t, 2);
	assert_float_equal(gpu.common_fps, 0.9 * ideal, 1e-9);

	/* counted at the share it takes, the other at the rest */
	struct core_gpu g2 = {0};
	t[1].k = 0.005; /* share 0.025 */
	for (int i = 0; i < 5; i++)
		core_policy_esa.assign(&p, &g2, t, 2);
	assert_float_equal(g2.common_fps, (0.95 - 0.025) / 0.005, 1e-9);
}

/* A cheap game that is slow for another reason (0.2 ms of GPU a frame,
 * presenting 31 FPS: under a hundredth of the GPU) beside a GPU-bound one
 * of another user does not set the common rate: it is counted at the
 * share it takes, and the other gets the rest, (U - 0.0062) / k (before:
 * its owner's half of the budget, the other user's game capped at the
 * other half, 30.4 FPS, and the ceiling came down to 31). A GPU-bound
 * limited game beside it still pulls the ceiling down. */
static void test_esa_cheap_slow_game_sets_no_rate(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[2] = {tenant(30, 60, 0.0156),
	                           tenant(30, 31, 0.0002)};
	t[1].owner = 65534;
	double ideal = (0.95 - 0.0002 * 31) / 0.0156;
	t[0].fps_smooth = ideal;
	t[1].limited = true;
	for (int i = 0; i < 200; i++) /* 20 s */
		core_policy_esa.assign(&p, &gpu, t, 2);
	assert_float_equal(gpu.esa_ceiling, 0.0, 0.0);
	assert_float_equal(t[0].ref_fps, ideal, 1e-9);
	assert_float_equal(t[1].ref_fps, ideal, 1e-9);

	/* the same rate at a GPU-bound cost (and one owner, so no share
	 * bound plays): the ceiling follows it */
	t[1].owner = 0;
	t[1].k = 0.005; /* 0.155 of the GPU beside the other's 0.94 */
	for (int i = 0; i < 200; i++)
		core_policy_esa.assign(&p, &gpu, t, 2);
	assert_float_equal(t[0].ref_fps, 31.0, 0.31); /* the ceiling's saw */
}

static void test_fsa_moves_share_to_the_game_below(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[3] = {tenant(30, 26, 0.0125),
	                           tenant(30, 40, 0.0085),
	                           tenant(30, 70, 0.006)};
	core_policy_fsa.assign(&p, &gpu, t, 3);
	/* the game below runs free and needs k * (floor - fps) */
	assert_float_equal(t[0].ref_fps, 0.0, 0.0);
	double floor = 30 * (1 + 2 * p.fsa_guard);
	double need = 0.0125 * (floor - 26);
	/* each donor gives half, at its own k */
	assert_float_equal(t[1].ref_fps, 40 - need / 2 / 0.0085, 1e-9);
	assert_float_equal(t[2].ref_fps, 70 - need / 2 / 0.006, 1e-9);
	/* and the GPU share given adds up to the need */
	double given =
	    0.0085 * (40 - t[1].ref_fps) + 0.006 * (70 - t[2].ref_fps);
	assert_float_equal(given, need, 1e-12);
	/* the next reallocation waits for the hold */
	double before = t[1].ref_fps;
	t[0].fps = t[0].fps_smooth = 27;
	core_policy_fsa.assign(&p, &gpu, t, 3);
	assert_float_equal(t[1].ref_fps, before, 0.0);
}

/* Property: whatever the mix, no donor's reference is put under its floor
 * (which is above the criterion). */
static void test_fsa_never_pushes_a_donor_under_the_criterion(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	srand(7);
	for (int round = 0; round < 2000; round++) {
		struct core_gpu gpu = {0};
		struct core_tenant t[6];
		int n = 2 + rand() % 5;
		for (int i = 0; i < n; i++) {
			double sla = 30 + 30 * (rand() % 2);
			t[i] = tenant(sla, 5 + rand() % 150,
			              0.001 + 0.02 * rand() / (double)RAND_MAX);
		}
		core_policy_fsa.assign(&p, &gpu, t, (size_t)n);
		for (int i = 0; i < n; i++) {
			if (t[i].ref_fps > 0.0)
				assert_true(t[i].ref_fps >= t[i].sla_fps);
		}
	}
}

/* The step a donor's reference grows by in one epoch with every game safe:
 * the tightest game's headroom over its floor, less 2 fsa_guard, over the
 * donors, per fsa_hold_s; at least fsa_relax a second. */
static double relax_step(const struct core_params *p, double headroom,
                         int donors)
{
	double spare = headroom - 2 * p->fsa_guard;
	return fmax(p->fsa_relax,
	            spare / donors / fmax(p->fsa_hold_s, p->epoch_s)) *
	       p->epoch_s;
}

static void test_fsa_gives_back_when_nobody_needs(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant d = tenant(30, 40, 0.01);
	double floor = 30 * (1 + 2 * p.fsa_guard);
	d.ref_fps = 40;
	core_policy_fsa.assign(&p, &gpu, &d, 1);
	/* alone and held: its own headroom is the tightest */
	assert_float_equal(d.ref_fps,
	                   40 * (1 + relax_step(&p, 40 / floor - 1, 1)), 1e-9);
	/* a reference far above what it achieves no longer binds: free */
	d.ref_fps = 50;
	core_policy_fsa.assign(&p, &gpu, &d, 1);
	assert_float_equal(d.ref_fps, 0.0, 0.0);
	/* ... unless the donor could reach far more running free: a busy
	 * moment lowered its rate, the cap still binds */
	d.ref_fps = 50;
	d.reach_fps = 300;
	core_policy_fsa.assign(&p, &gpu, &d, 1);
	assert_float_equal(d.ref_fps,
	                   50 * (1 + relax_step(&p, 40 / floor - 1, 1)), 1e-9);
}

/* The case the digital twin caught: two glmark2 scenes free-running at
 * twice the SLA and more, a third held as a donor at 47 FPS (it could run
 * at 227) since the others' start-up made them newcomers. Nobody needs
 * its share: it runs free again within a few epochs, where growing by
 * fsa_relax alone (2 % a second) took 84 s. */
static void test_fsa_releases_a_donor_nobody_needs(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[3] = {tenant(30, 70, 0.0042),
	                           tenant(30, 60, 0.0055),
	                           tenant(30, 47, 0.0015)};
	t[2].ref_fps = 47;
	t[2].reach_fps = 227;
	int epochs = 0;
	while (t[2].ref_fps > 0.0 && epochs < 1000) {
		core_policy_fsa.assign(&p, &gpu, t, 3);
		t[2].fps = t[2].fps_smooth = fmin(t[2].ref_fps, 227);
		epochs++;
	}
	/* 60 FPS is 0.90 over its floor of 31.5, 0.80 beyond the margin:
	 * x1.16 an epoch, free after 13 epochs (1.3 s) */
	assert_true(epochs <= 15);
	assert_float_equal(t[0].ref_fps, 0.0, 0.0);
	assert_float_equal(t[1].ref_fps, 0.0, 0.0);
}

/* Near its floor, the release is as slow as fsa_relax: a game just over
 * it is not pushed back under by the donors taking their share back. */
static void test_fsa_releases_slowly_near_the_floor(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	double floor = 30 * (1 + 2 * p.fsa_guard);
	struct core_tenant t[3] = {tenant(30, floor * 1.005, 0.01),
	                           tenant(30, 100, 0.002),
	                           tenant(30, 150, 0.001)};
	t[1].ref_fps = 100;
	t[2].ref_fps = 150;
	core_policy_fsa.assign(&p, &gpu, t, 3);
	assert_float_equal(t[1].ref_fps, 100 * (1 + p.fsa_relax * p.epoch_s),
	                   1e-9);
	assert_float_equal(t[2].ref_fps, 150 * (1 + p.fsa_relax * p.epoch_s),
	                   1e-9);
	/* with more headroom, faster, split over the two donors */
	t[0].fps = t[0].fps_smooth = floor * 1.2;
	core_policy_fsa.assign(&p, &gpu, t, 3);
	double grown = 100 * (1 + p.fsa_relax * p.epoch_s);
	assert_float_equal(t[1].ref_fps, grown * (1 + relax_step(&p, 0.2, 2)),
	                   1e-9);
	assert_true(relax_step(&p, 0.2, 2) > p.fsa_relax * p.epoch_s);
}

/* A game still below after a reallocation asks twice as much the next time
 * (its bottleneck is not its share alone), and the donors keep their cut,
 * neither relaxed nor dropped, while it is between the detection level and
 * its floor; once it is at its floor, the gain resets and they relax. */
static void test_fsa_escalates_and_holds_until_safe(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[2] = {tenant(30, 25, 0.01),
	                           tenant(30, 400, 0.001)};
	double floor = 30 * (1 + 2 * p.fsa_guard);
	double need = 0.01 * (floor - 25);
	core_policy_fsa.assign(&p, &gpu, t, 2);
	assert_float_equal(t[1].ref_fps, 400 - need / 0.001, 1e-9);
	/* still below after the hold: twice the need */
	t[1].fps_smooth = t[1].fps = t[1].ref_fps;
	double before = t[1].ref_fps;
	for (int i = 0; i < 20 && t[1].ref_fps == before; i++)
		core_policy_fsa.assign(&p, &gpu, t, 2);
	assert_float_equal(t[1].ref_fps, before - 2 * need / 0.001, 1e-9);

	/* between the detection level and the floor: hold */
	t[0].fps = t[0].fps_smooth = 32.0;
	t[1].fps_smooth = t[1].fps = t[1].ref_fps;
	before = t[1].ref_fps;
	for (int i = 0; i < 20; i++)
		core_policy_fsa.assign(&p, &gpu, t, 2);
	assert_float_equal(t[1].ref_fps, before, 0.0);
	/* at its floor: the donor relaxes, the gain is back to 1 */
	t[0].fps = t[0].fps_smooth = floor + 0.1;
	core_policy_fsa.assign(&p, &gpu, t, 2);
	assert_float_equal(t[1].ref_fps, before * (1 + p.fsa_relax * p.epoch_s),
	                   1e-9);
	assert_float_equal(gpu.fsa_gain, 1.0, 0.0);
}

/* A newcomer joining free-running games gets a fair share at once, before
 * its own cost is known: the donors give the average share, less its own. */
static void test_fsa_newcomer_gets_a_fair_share(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t[3] = {tenant(30, 100, 0.004),
	                           tenant(30, 300, 0.001), tenant(30, 0, 0.0)};
	t[2].epochs = 1;
	core_policy_fsa.assign(&p, &gpu, t, 3);
	double fair = (0.004 * 100 + 0.001 * 300) / 3; /* its own share: 0 */
	assert_float_equal(t[2].ref_fps, 0.0, 0.0);
	assert_float_equal(t[0].ref_fps, 100 - fair / 2 / 0.004, 1e-9);
	assert_float_equal(t[1].ref_fps, 300 - fair / 2 / 0.001, 1e-9);
	/* once past its first second it is judged like any other */
	t[2].epochs = 1000;
	t[2].fps = t[2].fps_smooth = 60;
	t[2].k = 0.003;
	struct core_gpu later = {0};
	t[0].ref_fps = t[1].ref_fps = 0.0;
	core_policy_fsa.assign(&p, &later, t, 3);
	assert_float_equal(t[0].ref_fps, 0.0, 0.0);
}

static void test_none_frees_everyone(void **state)
{
	(void)state;
	struct core_params p = core_params_default();
	struct core_gpu gpu = {0};
	struct core_tenant t = tenant(30, 20, 0.01);
	t.ref_fps = 33;
	core_policy_none.assign(&p, &gpu, &t, 1);
	assert_float_equal(t.ref_fps, 0.0, 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_find),
	    cmocka_unit_test(test_sa_reference_is_the_criterion),
	    cmocka_unit_test(test_esa_common_reference_fills_the_gpu),
	    cmocka_unit_test(test_esa_never_aims_under_the_sla),
	    cmocka_unit_test(test_esa_ceiling_follows_the_limited_tenant),
	    cmocka_unit_test(test_esa_stall_is_one_step),
	    cmocka_unit_test(test_esa_cheap_slow_game_sets_no_rate),
	    cmocka_unit_test(test_esa_leaves_out_unmeasured),
	    cmocka_unit_test(test_esa_bounds_each_owners_share),
	    cmocka_unit_test(test_fsa_moves_share_to_the_game_below),
	    cmocka_unit_test(test_fsa_never_pushes_a_donor_under_the_criterion),
	    cmocka_unit_test(test_fsa_gives_back_when_nobody_needs),
	    cmocka_unit_test(test_fsa_releases_a_donor_nobody_needs),
	    cmocka_unit_test(test_fsa_releases_slowly_near_the_floor),
	    cmocka_unit_test(test_fsa_escalates_and_holds_until_safe),
	    cmocka_unit_test(test_fsa_newcomer_gets_a_fair_share),
	    cmocka_unit_test(test_none_frees_everyone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
