#include "daemon/tick/stats.h"

#include <math.h>

void stats_init(struct stats_window *w)
{
	w->count = 0;
}

void stats_add(struct stats_window *w, int64_t present_ns)
{
	w->present_ns[w->count % STATS_WINDOW] = present_ns;
	w->count++;
}

/* Walks the intervals newest first, while they end inside the span. */
size_t stats_intervals(const struct stats_window *w, int64_t now_ns,
                       int64_t span_ns, double *out)
{
	size_t n = 0;
	uint64_t avail = w->count < STATS_WINDOW ? w->count : STATS_WINDOW;
	for (uint64_t k = 1; k < avail; k++) {
		int64_t end = w->present_ns[(w->count - k) % STATS_WINDOW];
		int64_t start =
		    w->present_ns[(w->count - k - 1) % STATS_WINDOW];
		if (end <= now_ns - span_ns)
			break;
		out[n++] = (double)(end - start) * 1e-9;
	}
	return n;
}

double stats_fps(const struct stats_window *w, int64_t now_ns, int64_t span_ns)
{
	uint64_t avail = w->count < STATS_WINDOW ? w->count : STATS_WINDOW;
	uint64_t k = 1;
	int64_t newest = 0, oldest = 0;
	for (; k < avail; k++) {
		int64_t end = w->present_ns[(w->count - k) % STATS_WINDOW];
		if (end <= now_ns - span_ns)
			break;
		if (k == 1)
			newest = end;
		oldest = w->present_ns[(w->count - k - 1) % STATS_WINDOW];
	}
	uint64_t intervals = k - 1;
	if (intervals == 0 || newest <= oldest)
		return 0.0;
	return (double)intervals / ((double)(newest - oldest) * 1e-9);
}

static void swap(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

/* Hoare-style quickselect: afterwards v[k] is the k-th smallest and
 * everything after it is no smaller. Median-of-three pivots keep sorted
 * input (a steady game) linear. */
static void select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < v[lo])
			swap(&v[mid], &v[lo]);
		if (v[hi] < v[lo])
			swap(&v[hi], &v[lo]);
		if (v[hi] < v[mid])
			swap(&v[hi], &v[mid]);
		double pivot = v[mid];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				swap(&v[i], &v[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

void stats_quantiles(double *v, size_t n, const double *qs, double *res,
                     size_t k)
{
	size_t from = 0;
	for (size_t q = 0; q < k; q++) {
		if (n == 0) {
			res[q] = 0.0;
			continue;
		}
		double r = ceil(qs[q] * (double)n);
		size_t idx = r < 1.0 ? 0 : (size_t)r - 1;
		if (idx >= n)
			idx = n - 1;
		/* Ascending quantiles: the next one lies at or after this. */
		if (idx < from)
			idx = from;
		select_kth(v + from, n - from, idx - from);
		res[q] = v[idx];
		from = idx;
	}
}
