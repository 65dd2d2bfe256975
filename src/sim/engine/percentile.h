/* Percentiles of a sample of doubles. */
#pragma once

#include <stddef.h>

/* Percentile with linear interpolation between closest ranks (numpy's
 * default), p in [0, 100]. Sorts v in place. 0 for n == 0. */
double sim_percentile(double *v, size_t n, double p);

/* The value sim_percentile() returns, found by selection in O(n): v is
 * reordered but not sorted. */
double sim_percentile_select(double *v, size_t n, double p);
