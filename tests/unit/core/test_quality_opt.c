/* The quality optimizer (dJay §6): Table 1's vectors,
 * the exact solver against brute force and the greedy, infeasibility and
 * single-choice items. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "assert_near.h"
#include "quality_fixture.h"

static void test_table1_full_assign(void **state)
{
	(void)state;
	struct quality_item it[2];
	struct quality_params p = quality_params_djay();
	unsigned lv[2];
	void *ws = workspace(2);
	table1(it, 1.0);
	assert_int_equal(quality_full_assign(it, 2, &p, lv, ws), QUALITY_OK);
	assert_int_equal(lv[0], 1); /* ME */
	assert_int_equal(lv[1], 2); /* HI */
	assert_near(quality_total_benefit(it, 2, lv), 1.76, 1e-12);
	assert_near(33.0 - quality_total_cost(it, 2, lv), 13.0, 1e-12);
	assert_near(brute_force(it, 2, &p), 1.76, 1e-12);
	assert_int_equal(quality_exact(it, 2, &p, lv, ws), QUALITY_OK);
	assert_near(quality_total_benefit(it, 2, lv), 1.76, 1e-12);

	/* epoch 2, same costs: s1 ME->HI costs 24 > 13, nothing moves */
	struct quality_step_result r = quality_epoch_step(it, 2, &p, lv, ws);
	assert_int_equal(r.changed, 0);
	assert_false(r.over_budget);
	assert_int_equal(lv[0], 1);
	assert_int_equal(lv[1], 2);
	free(ws);
}

static void test_table1_doubled_costs(void **state)
{
	(void)state;
	struct quality_item it[2];
	struct quality_params p = quality_params_djay();
	unsigned lv[2] = {1, 2};
	void *ws = workspace(2);
	table1(it, 2.0);
	/* R = -7: s2 HI->ME first (u 0.01), then s1 ME->LO (u 0.0167) */
	struct quality_step_result r = quality_epoch_step(it, 2, &p, lv, ws);
	assert_int_equal(r.changed, 2);
	assert_false(r.over_budget);
	assert_int_equal(lv[0], 0);
	assert_int_equal(lv[1], 1);
	assert_near(quality_total_benefit(it, 2, lv), 1.64, 1e-12);
	/* hysteresis holds the settings the next epoch */
	r = quality_epoch_step(it, 2, &p, lv, ws);
	assert_int_equal(r.changed, 0);

	assert_int_equal(quality_full_assign(it, 2, &p, lv, ws), QUALITY_OK);
	assert_int_equal(lv[0], 1);
	assert_int_equal(lv[1], 0);
	assert_near(quality_total_benefit(it, 2, lv), 1.7, 1e-12);
	assert_near(33.0 - quality_total_cost(it, 2, lv), 3.0, 1e-12);
	assert_int_equal(quality_exact(it, 2, &p, lv, ws), QUALITY_OK);
	assert_near(quality_total_benefit(it, 2, lv), 1.7, 1e-12);
	assert_near(brute_force(it, 2, &p), 1.7, 1e-12);
	free(ws);
}

/* Random instances: exact == brute force, exact >= greedy, the greedy
 * and the epoch step never end over budget when a fit exists. */
static void check_random(bool strict, unsigned max_levels, size_t max_n)
{
	uint64_t st = 12345 + strict + max_levels;
	struct quality_item it[8];
	unsigned lv[8], lg[8];
	void *ws = workspace(8);
	for (int trial = 0; trial < 3000; trial++) {
		size_t n = 1 + rng_next(&st) % max_n;
		random_items(it, n, max_levels, &st);
		struct quality_params p = quality_params_default();
		p.strict = strict;
		double lo = 0, hi = 0;
		for (size_t s = 0; s < n; s++) {
			lo += it[s].weight * it[s].cost[0];
			hi += it[s].weight * it[s].cost[it[s].n_levels - 1];
		}
		/* budgets from a bit under the cheapest to past the dearest,
		 * on the 1/8 grid so ties with '<' and '<=' happen */
		p.budget =
		    floor((lo - 1 +
		           (hi - lo + 2) * (rng_next(&st) % 1000) / 999.0) *
		          8) /
		    8;
		double opt = brute_force(it, n, &p);
		enum quality_status e = quality_exact(it, n, &p, lv, ws);
		enum quality_status g = quality_full_assign(it, n, &p, lg, ws);
		if (opt == -INFINITY) {
			assert_int_equal(e, QUALITY_INFEASIBLE);
			assert_int_equal(g, QUALITY_INFEASIBLE);
			continue;
		}
		assert_int_equal(e, QUALITY_OK);
		assert_int_equal(g, QUALITY_OK);
		assert_true(quality_fits(&p, quality_total_cost(it, n, lv)));
		assert_true(quality_fits(&p, quality_total_cost(it, n, lg)));
		double be = quality_total_benefit(it, n, lv);
		assert_near(be, opt, 1e-9);
		assert_true(be >= quality_total_benefit(it, n, lg) - 1e-12);
		/* an epoch step from the top downgrades level by level */
		for (size_t s = 0; s < n; s++)
			lg[s] = it[s].n_levels - 1;
		for (int k = 0; k < 8; k++) {
			struct quality_step_result r =
			    quality_epoch_step(it, n, &p, lg, ws);
			if (!r.over_budget && r.changed == 0)
				break;
		}
		for (size_t s = 0; s < n; s++)
			assert_true(lg[s] < it[s].n_levels);
	}
	free(ws);
}

static void test_random_against_brute_force(void **state)
{
	(void)state;
	check_random(false, 4, 6);
	check_random(true, 4, 6);
	check_random(false, 8, 3);
	check_random(true, 8, 3);
}

/* 64 x 8: the exact never below the greedy, never above the LP bound's
 * weakest form (every session at its best benefit). */
static void test_large_exact_vs_greedy(void **state)
{
	(void)state;
	enum { N = 64 };
	static struct quality_item it[N];
	unsigned lv[N], lg[N];
	void *ws = workspace(N);
	uint64_t st = 99;
	for (int trial = 0; trial < 50; trial++) {
		random_items(it, N, 8, &st);
		struct quality_params p = quality_params_default();
		double lo = 0;
		for (size_t s = 0; s < N; s++)
			lo += it[s].weight * it[s].cost[0];
		p.budget = lo * (1.2 + 0.05 * (trial % 20));
		assert_int_equal(quality_exact(it, N, &p, lv, ws), QUALITY_OK);
		assert_int_equal(quality_full_assign(it, N, &p, lg, ws),
		                 QUALITY_OK);
		assert_true(quality_fits(&p, quality_total_cost(it, N, lv)));
		assert_true(quality_total_benefit(it, N, lv) >=
		            quality_total_benefit(it, N, lg) - 1e-12);
	}
	free(ws);
}

static void test_infeasible(void **state)
{
	(void)state;
	struct quality_item it[2];
	struct quality_params p = quality_params_djay();
	unsigned lv[2] = {2, 2};
	void *ws = workspace(2);
	table1(it, 3.0); /* cheapest: 6 + 30 = 36 > 33 */
	assert_int_equal(quality_exact(it, 2, &p, lv, ws), QUALITY_INFEASIBLE);
	assert_int_equal(lv[0], 0);
	assert_int_equal(lv[1], 0);
	lv[0] = lv[1] = 2;
	assert_int_equal(quality_full_assign(it, 2, &p, lv, ws),
	                 QUALITY_INFEASIBLE);
	assert_int_equal(lv[0] + lv[1], 0);
	/* exactly at the budget: strict refuses, '<=' accepts */
	table1(it, 33.0 / 12.0);
	assert_int_equal(quality_exact(it, 2, &p, lv, ws), QUALITY_INFEASIBLE);
	p.strict = false;
	assert_int_equal(quality_exact(it, 2, &p, lv, ws), QUALITY_OK);
	free(ws);
}

static void test_single_choice_items(void **state)
{
	(void)state;
	/* two unmodified games (one level each) beside Table 1's s1 */
	struct quality_item it[3];
	struct quality_params p = quality_params_djay();
	unsigned lv[3];
	void *ws = workspace(3);
	table1(it, 1.0);
	it[1] = (struct quality_item){
	    .n_levels = 1, .weight = 1, .cost = {8}, .benefit = {1}};
	it[2] = (struct quality_item){
	    .n_levels = 1, .weight = 1, .cost = {10}, .benefit = {1}};
	/* residual for s1: 33 - 18 = 15 > 5 - 2; 29 - 2 does not fit */
	assert_int_equal(quality_exact(it, 3, &p, lv, ws), QUALITY_OK);
	assert_int_equal(lv[0], 1);
	assert_int_equal(lv[1] + lv[2], 0);
	assert_int_equal(quality_full_assign(it, 3, &p, lv, ws), QUALITY_OK);
	assert_int_equal(lv[0], 1);
	/* all single-choice: the only assignment, or infeasible */
	assert_int_equal(quality_exact(&it[1], 2, &p, lv, ws), QUALITY_OK);
	p.budget = 18.0;
	assert_int_equal(quality_exact(&it[1], 2, &p, lv, ws),
	                 QUALITY_INFEASIBLE);
	free(ws);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table1_full_assign),
	    cmocka_unit_test(test_table1_doubled_costs),
	    cmocka_unit_test(test_random_against_brute_force),
	    cmocka_unit_test(test_large_exact_vs_greedy),
	    cmocka_unit_test(test_infeasible),
	    cmocka_unit_test(test_single_choice_items),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
