/* ESA bounds each owner's share of the budget (src/core/policy_esa.c), as
 * the simulator runs it: one user's cheap game beside another user's four
 * expensive ones gets the rate its user's half affords, not the one common
 * rate the five would share were they one user's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim_test.h"

static struct sim_result run(bool two_owners)
{
	struct sim_tenant_spec t[5] = {test_tenant("cheap", 30, 0.5, 2.0, 2)};
	for (int i = 1; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "heavy%d", i);
		t[i] = test_tenant(name, 10, 0.5, 10.0, 2);
		t[i].owner = two_owners ? 65534 : 0;
	}
	struct sim_scenario sc = test_scenario("esa", 20.0, 8.0, t, 5);
	return test_run(&sc);
}

static void esa_bounds_each_owners_share(void **state)
{
	(void)state;
	struct sim_result one = run(false), two = run(true);
	double heavy_one = 0.0, heavy_two = 0.0;
	for (int i = 1; i < 5; i++) {
		heavy_one += one.tenants[i].gpu_share;
		heavy_two += two.tenants[i].gpu_share;
		/* never under the SLA either way */
		assert_true(two.tenants[i].fps_mean > 10.0 * 0.97);
	}
	print_message("one owner: cheap %.1f FPS, heavy share %.2f; two "
	              "owners: cheap %.1f FPS, heavy share %.2f\n",
	              one.tenants[0].fps_mean, heavy_one,
	              two.tenants[0].fps_mean, heavy_two);
	/* One owner: vGASA's one rate, 0.95 / 0.042 = 22.6, under the cheap
	 * game's SLA: it is held at its SLA reference. Two owners: the heavy
	 * user is held to about half the GPU and the cheap game runs far
	 * faster. */
	assert_true(one.tenants[0].fps_mean < 40.0);
	assert_true(two.tenants[0].fps_mean > 3.0 * one.tenants[0].fps_mean);
	assert_true(heavy_two < 0.55);
	assert_true(heavy_one > heavy_two);
	sim_result_finish(&one);
	sim_result_finish(&two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(esa_bounds_each_owners_share),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
