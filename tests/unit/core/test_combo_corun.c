/* COMBO's pairing rule and rate sharing (src/core/combo.c): which kernel
 * classes may share SMs (§5.1.2 and docs/papers.md's erratum 6), and the
 * co-run ends of Eq. 1 with Table 3's makespan reductions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "assert_near.h"
#include "core/combo.h"

#define EPS 1e-12

static const struct core_combo_kernel game_cd = {CORE_COMBO_CD, true};
static const struct core_combo_kernel game_rt = {CORE_COMBO_RT, true};
static const struct core_combo_kernel be_cd = {CORE_COMBO_CD, false};
static const struct core_combo_kernel be_tc = {CORE_COMBO_TC, false};

/* Both orders of every pair COMBO allows and forbids. */
static void test_pairs(void **state)
{
	(void)state;
	static const struct {
		struct core_combo_kernel a, b;
		bool ok;
	} cases[] = {
	    {game_rt, be_cd, true},  /* Fig. 7: RT + CD */
	    {be_cd, be_tc, true},    /* Fig. 10: CD + TC */
	    {be_cd, be_cd, true},    /* same class: shares, gains 0 */
	    {be_tc, be_tc, true},    /* (two BE applications) */
	    {game_rt, be_tc, false}, /* RT + TC: shared memory */
	    {game_cd, be_tc, false}, /* game CD + BE TC: shared memory */
	    {game_cd, be_cd, false}, /* the game's CD runs alone */
	    {game_cd, game_rt, false},
	    {game_rt, game_rt, false},
	    {game_rt, (struct core_combo_kernel){CORE_COMBO_RT, false}, false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (core_combo_may_corun(cases[i].a, cases[i].b) !=
		        cases[i].ok ||
		    core_combo_may_corun(cases[i].b, cases[i].a) != cases[i].ok)
			fail_msg("case %zu: want %d", i, cases[i].ok);
	}
}

/* Eq. 1 with Table 3's reductions: equal solo times T1 = T2 = T end
 * together at (1 - m)(T1 + T2); m = 0 (same class) is time sharing. */
static void test_equal_times(void **state)
{
	(void)state;
	static const double m[] = {0.4412, 0.3987, 0.137, 0.0};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		double a, b, t = 0.0012;
		core_combo_corun_ends(t, t, m[i], &a, &b);
		assert_near(a, (1.0 - m[i]) * 2.0 * t, EPS);
		assert_near(b, a, EPS);
		/* Eq. 1 read back: MR = (T1 + T2 - Tcolo) / (T1 + T2). */
		assert_near((2.0 * t - fmax(a, b)) / (2.0 * t), m[i], 1e-9);
	}
	assert_near(core_combo_corun_speed(0.4412), 1.0 / (2.0 * 0.5588), EPS);
}

/* Unequal times: the shorter ends at T_short / c, the longer runs on
 * alone at full speed; m out of [0, 0.5) is clamped; bad input never
 * fits anywhere. */
static void test_unequal_and_bad(void **state)
{
	(void)state;
	double a, b, m = 0.4412, c = 1.0 / (2.0 * (1.0 - m));
	core_combo_corun_ends(0.001, 0.003, m, &a, &b);
	assert_near(a, 0.001 / c, EPS);
	assert_near(b, 0.001 / c + 0.002, EPS);
	core_combo_corun_ends(0.003, 0.001, m, &a, &b);
	assert_near(b, 0.001 / c, EPS);
	assert_near(a, 0.001 / c + 0.002, EPS);
	/* the pair beats running the two back to back, never below half */
	assert_true(fmax(a, b) < 0.004 && fmax(a, b) > 0.003);
	assert_near(core_combo_corun_speed(-1.0), 0.5, EPS);
	assert_true(core_combo_corun_speed(0.9) < 1e4);
	core_combo_corun_ends(NAN, 0.001, m, &a, &b);
	assert_true(isinf(a) && isinf(b));
	core_combo_corun_ends(0.001, -1.0, m, &a, &b);
	assert_true(isinf(a) && isinf(b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pairs),
	    cmocka_unit_test(test_equal_times),
	    cmocka_unit_test(test_unequal_and_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
