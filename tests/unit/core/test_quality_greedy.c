/* The quality optimizer's churn and alarms (dJay §6.2-6.3): joins placed,
 * reassigned or refused; a leave's budget spent one level per epoch;
 * Warning and Critical counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "assert_near.h"
#include "quality_fixture.h"

static void test_join_placed_reassigned_refused(void **state)
{
	(void)state;
	struct quality_item it[4];
	struct quality_params p = quality_params_djay();
	unsigned lv[4] = {1, 0, 0, 0};
	void *ws = workspace(4);
	table1(it, 1.0);
	/* s2 joins beside s1 on ME: R = 28, HI (15) is the best that fits */
	assert_int_equal(quality_join(it, 2, 1, &p, lv, ws),
	                 QUALITY_JOIN_PLACED);
	assert_int_equal(lv[1], 2);
	/* a third: R = 33 - 20 = 13, not even its LO (20) fits, but all
	 * lowest do (2 + 10 + 20 = 32): full reassignment */
	it[2] = (struct quality_item){.n_levels = 3,
	                              .weight = 1,
	                              .cost = {20, 25, 30},
	                              .benefit = {0.5, 0.6, 0.7}};
	assert_int_equal(quality_join(it, 3, 2, &p, lv, ws),
	                 QUALITY_JOIN_REASSIGNED);
	assert_true(quality_fits(&p, quality_total_cost(it, 3, lv)));
	unsigned before[3] = {lv[0], lv[1], lv[2]};
	/* a fourth: lowest total 32 + 5 > 33: refused, the others keep */
	it[3] = (struct quality_item){
	    .n_levels = 2, .weight = 1, .cost = {5, 6}, .benefit = {0.5, 0.6}};
	assert_int_equal(quality_join(it, 4, 3, &p, lv, ws),
	                 QUALITY_JOIN_REFUSED);
	for (int s = 0; s < 3; s++)
		assert_int_equal(lv[s], before[s]);
	assert_int_equal(lv[3], 0);
	free(ws);
}

/* After a leave the freed budget goes one level per session per epoch. */
static void test_leave_spends_one_level_per_epoch(void **state)
{
	(void)state;
	struct quality_item it[3];
	struct quality_params p = quality_params_djay();
	void *ws = workspace(3);
	table1(it, 1.0);
	it[2] = (struct quality_item){.n_levels = 4,
	                              .weight = 1,
	                              .cost = {3, 4, 5, 6},
	                              .benefit = {0.5, 0.6, 0.7, 0.8}};
	/* s1 (index 0) and the 4-level one, with s2 gone */
	struct quality_item rest[2] = {it[0], it[2]};
	unsigned lv[2] = {0, 0}, prev[2];
	int epochs = 0;
	for (;;) {
		prev[0] = lv[0];
		prev[1] = lv[1];
		struct quality_step_result r =
		    quality_epoch_step(rest, 2, &p, lv, ws);
		assert_false(r.over_budget);
		assert_true(quality_fits(&p, quality_total_cost(rest, 2, lv)));
		for (int s = 0; s < 2; s++)
			assert_true(lv[s] - prev[s] <= 1);
		if (r.changed == 0)
			break;
		epochs++;
	}
	/* 3 epochs to walk the 4-level session to its top */
	assert_int_equal(epochs, 3);
	assert_int_equal(lv[1], 3);
	assert_int_equal(lv[0], 1); /* ME->HI needs 24; 22 are left */
	free(ws);
}

static void test_warning_after_consecutive_band_epochs(void **state)
{
	(void)state;
	struct quality_params p = quality_params_default(); /* B = 1 */
	struct quality_alarm a = {0};
	for (unsigned k = 1; k < p.warn_epochs; k++)
		assert_int_equal(quality_alarm_step(&a, &p, 1.1, NULL),
		                 QUALITY_ALARM_NONE);
	assert_int_equal(quality_alarm_step(&a, &p, 1.1, NULL),
	                 QUALITY_ALARM_WARNING);
	assert_int_equal(a.warn_count, 0); /* reset on firing */
	/* an epoch within budget resets the run */
	for (unsigned k = 1; k < p.warn_epochs; k++)
		quality_alarm_step(&a, &p, 1.1, NULL);
	assert_int_equal(quality_alarm_step(&a, &p, 0.9, NULL),
	                 QUALITY_ALARM_NONE);
	assert_int_equal(quality_alarm_step(&a, &p, 1.1, NULL),
	                 QUALITY_ALARM_NONE);
	assert_int_equal(a.warn_count, 1);
}

static void test_critical_and_measured_total(void **state)
{
	(void)state;
	struct quality_params p = quality_params_djay(); /* 33, 40 */
	struct quality_alarm a = {0};
	double measured = 41.0;
	/* critical_epochs = 1: the first epoch over 40 (Fig. 13) */
	assert_int_equal(quality_alarm_step(&a, &p, 30.0, &measured),
	                 QUALITY_ALARM_CRITICAL);
	/* the estimate is used only without a measurement */
	assert_int_equal(quality_alarm_step(&a, &p, 41.0, NULL),
	                 QUALITY_ALARM_CRITICAL);
	measured = 30.0;
	assert_int_equal(quality_alarm_step(&a, &p, 41.0, &measured),
	                 QUALITY_ALARM_NONE);
	/* critical_epochs = 2 (the text): a band epoch breaks the run */
	p.critical_epochs = 2;
	assert_int_equal(quality_alarm_step(&a, &p, 41.0, NULL),
	                 QUALITY_ALARM_NONE);
	assert_int_equal(quality_alarm_step(&a, &p, 35.0, NULL),
	                 QUALITY_ALARM_NONE);
	assert_int_equal(quality_alarm_step(&a, &p, 41.0, NULL),
	                 QUALITY_ALARM_NONE);
	assert_int_equal(quality_alarm_step(&a, &p, 41.0, NULL),
	                 QUALITY_ALARM_CRITICAL);
	/* strict: exactly 33 is over (Eq. 2) and counts in the band */
	assert_int_equal(quality_alarm_step(&a, &p, 33.0, NULL),
	                 QUALITY_ALARM_NONE);
	assert_int_equal(a.warn_count, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_join_placed_reassigned_refused),
	    cmocka_unit_test(test_leave_spends_one_level_per_epoch),
	    cmocka_unit_test(test_warning_after_consecutive_band_epochs),
	    cmocka_unit_test(test_critical_and_measured_total),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
