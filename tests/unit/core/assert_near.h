/* assert_near for the core's tests: cmocka's assert_float_equal compares
 * in single precision. */
#pragma once

#include <math.h>

#define assert_near(a, b, eps)                                                 \
	do {                                                                   \
		double a_ = (a), b_ = (b);                                     \
		if (!(fabs(a_ - b_) <= (eps)))                                 \
			fail_msg("%.17g != %.17g (eps %g)", a_, b_,            \
			         (double)(eps));                               \
	} while (0)
