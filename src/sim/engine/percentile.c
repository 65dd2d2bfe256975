/* Percentiles of a sample (percentile.h): an introsort for the exact
 * interpolated value and a selection for the same value in O(n). */
#include "sim/engine/percentile.h"

#include <math.h>

static void swap(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

static void insertion_sort(double *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void sift_down(double *v, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && v[c + 1] > v[c])
			c++;
		if (!(v[c] > v[i]))
			return;
		swap(&v[i], &v[c]);
		i = c;
	}
}

static void heap_sort(double *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n; end-- > 1;) {
		swap(&v[0], &v[end]);
		sift_down(v, 0, end);
	}
}

/* Introsort: qsort() calls a comparison function per step, and a run sorts
 * every frame interval of every tenant, which made qsort a fifth of the
 * whole simulation's time. Median-of-three quicksort, recursing on the
 * smaller side (O(log n) stack), heapsort past a depth limit so the worst
 * case stays O(n log n), insertion sort for short ranges. Inputs are never
 * NaN (frame intervals, frame counts). */
/* Hoare partition around the median of three (n > 2): returns left, with
 * v[0, left) <= pivot <= v[left, n) and 0 < left < n. v[0] <= pivot <=
 * v[n - 1] stop both scans. */
static size_t partition(double *v, size_t n)
{
	size_t mid = n / 2;
	if (v[mid] < v[0])
		swap(&v[mid], &v[0]);
	if (v[n - 1] < v[0])
		swap(&v[n - 1], &v[0]);
	if (v[n - 1] < v[mid])
		swap(&v[n - 1], &v[mid]);
	double pivot = v[mid];
	size_t i = 0, j = n - 1;
	for (;;) {
		while (v[i] < pivot)
			i++;
		while (pivot < v[j])
			j--;
		if (i >= j)
			return j + 1;
		swap(&v[i], &v[j]);
		i++;
		j--;
	}
}

static void intro_sort(double *v, size_t n, int depth)
{
	while (n > 16) {
		if (depth-- == 0) {
			heap_sort(v, n);
			return;
		}
		size_t left = partition(v, n);
		if (left < n - left) {
			intro_sort(v, left, depth);
			v += left;
			n -= left;
		} else {
			intro_sort(v + left, n - left, depth);
			n = left;
		}
	}
	insertion_sort(v, n);
}

static int depth_limit(size_t n)
{
	int depth = 0;
	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	return depth;
}

static void sort_doubles(double *v, size_t n)
{
	intro_sort(v, n, depth_limit(n));
}

/* Puts the k-th smallest at v[k], smaller ones before, larger after
 * (quickselect; sorts what is left past the depth limit). */
static void select_kth(double *v, size_t n, size_t k)
{
	int depth = depth_limit(n);
	while (n > 16) {
		if (depth-- == 0)
			break;
		size_t left = partition(v, n);
		if (k < left) {
			n = left;
		} else {
			v += left;
			n -= left;
			k -= left;
		}
	}
	sort_doubles(v, n);
}

static double interpolate(double lo, double hi, double frac)
{
	return lo + frac * (hi - lo);
}

/* numpy's "linear": rank p/100 * (n - 1), interpolated between the two
 * closest ranks lo and lo + 1. */
static size_t rank_of(size_t n, double p, double *frac)
{
	if (!(p > 0.0)) {
		*frac = 0.0;
		return 0;
	}
	double rank =
	    p >= 100.0 ? (double)(n - 1) : p / 100.0 * (double)(n - 1);
	size_t lo = (size_t)floor(rank);
	if (lo >= n - 1) {
		*frac = 0.0;
		return n - 1;
	}
	*frac = rank - (double)lo;
	return lo;
}

double sim_percentile(double *v, size_t n, double p)
{
	if (n == 0)
		return 0.0;
	sort_doubles(v, n);
	double frac;
	size_t lo = rank_of(n, p, &frac);
	if (lo + 1 >= n)
		return v[lo];
	return interpolate(v[lo], v[lo + 1], frac);
}

double sim_percentile_select(double *v, size_t n, double p)
{
	if (n == 0)
		return 0.0;
	double frac;
	size_t lo = rank_of(n, p, &frac);
	select_kth(v, n, lo);
	if (lo + 1 >= n)
		return v[lo];
	/* Rank lo + 1 is the smallest of what select_kth left above. */
	double next = v[lo + 1];
	for (size_t i = lo + 2; i < n; i++)
		next = v[i] < next ? v[i] : next;
	return interpolate(v[lo], next, frac);
}
