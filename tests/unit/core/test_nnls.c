/* core_nnls beyond the SciPy comparison (nnls_check.py): a tiny problem
 * worked by hand, the iteration cap, bad input and a free column. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "assert_near.h"
#include "core/nnls.h"

/* A = [[1,0],[0,1],[1,1]], b = [1,-1,0.5]: x_2 wants to be negative, so the
 * optimum is x = (0.75, 0) with ||r||^2 = 1.125. */
static const double a[6] = {1, 0, 0, 1, 1, 1};
static const double b[3] = {1, -1, 0.5};

static void hand_worked(void **state)
{
	double x[2], work[16];
	size_t iwork[4];
	assert_int_equal(core_nnls_solve(a, b, 3, 2, NULL, 0, x, work, iwork),
	                 CORE_NNLS_OK);
	assert_near(x[0], 0.75, 1e-15);
	assert_near(x[1], 0.0, 0.0);
	/* with x_2 free: the unconstrained least squares, G = [[2,1],[1,2]],
	 * h = (1.5, -0.5), x = (7/6, -5/6), residual (1, 1, -1) / 6 */
	const unsigned char free_col[2] = {0, 1};
	assert_int_equal(
	    core_nnls_solve(a, b, 3, 2, free_col, 0, x, work, iwork),
	    CORE_NNLS_OK);
	assert_near(x[0], 7.0 / 6.0, 1e-15);
	assert_near(x[1], -5.0 / 6.0, 1e-15);
	const double *g = work, *h = work + 4; /* the Gram form it built */
	assert_near(core_nnls_gram_objective(g, h, 2.25, x, 2), 1.0 / 12.0,
	            1e-14);
}

static void cap_and_bad_input(void **state)
{
	double x[2], work[16];
	size_t iwork[4];
	/* both columns enter, one at a time: a cap of 1 stops it early */
	const double b2[3] = {1, 1, 2};
	assert_int_equal(core_nnls_solve(a, b2, 3, 2, NULL, 1, x, work, iwork),
	                 CORE_NNLS_MAX_ITER);
	assert_true(x[0] >= 0.0 && x[1] >= 0.0);
	const double bad[3] = {1, NAN, 0};
	assert_int_equal(core_nnls_solve(a, bad, 3, 2, NULL, 0, x, work, iwork),
	                 CORE_NNLS_BAD_INPUT);
	assert_int_equal(core_nnls_solve(a, b, 3, 0, NULL, 0, x, work, iwork),
	                 CORE_NNLS_BAD_INPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(hand_worked),
	    cmocka_unit_test(cap_and_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
