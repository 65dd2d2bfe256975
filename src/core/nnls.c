/* Lawson-Hanson active-set NNLS on the Gram form (see nnls.h). */
#include "core/nnls.h"

#include <float.h>
#include <math.h>

enum { ZERO = 0, PASSIVE = 1, REJECTED = 2, DEPENDENT = 3 };

/* A pivot below this fraction of its column's own G_jj means the column is
 * (numerically) a combination of the passive ones already in. */
#define PIVOT_REL 1e-11

/* Cholesky of G restricted to p[0..k-1] into l (k x k, stride n). Returns k
 * when it succeeds, else the position of the first dependent column. */
static size_t factor(const double *g, size_t n, const size_t *p, size_t k,
                     double *l)
{
	for (size_t r = 0; r < k; r++) {
		for (size_t c = 0; c <= r; c++) {
			double s = g[p[r] * n + p[c]];
			for (size_t t = 0; t < c; t++)
				s -= l[r * n + t] * l[c * n + t];
			if (c < r) {
				l[r * n + c] = s / l[c * n + c];
				continue;
			}
			double gjj = g[p[r] * n + p[r]];
			if (!(s > PIVOT_REL * gjj) || !(gjj > 0.0))
				return r;
			l[r * n + r] = sqrt(s);
		}
	}
	return k;
}

/* z[p[t]] = solution of G_PP z_P = h_P, given the factor. */
static void solve(const double *h, size_t n, const size_t *p, size_t k,
                  const double *l, double *z, double *y)
{
	for (size_t r = 0; r < k; r++) {
		double s = h[p[r]];
		for (size_t t = 0; t < r; t++)
			s -= l[r * n + t] * y[t];
		y[r] = s / l[r * n + r];
	}
	for (size_t r = k; r-- > 0;) {
		double s = y[r];
		for (size_t t = r + 1; t < k; t++)
			s -= l[t * n + r] * y[t];
		y[r] = s / l[r * n + r];
	}
	for (size_t r = 0; r < k; r++)
		z[p[r]] = y[r];
}

/* Drops p[pos] from the passive list, keeping the order of the rest. */
static void drop_at(size_t *p, size_t *k, size_t pos)
{
	for (size_t t = pos + 1; t < *k; t++)
		p[t - 1] = p[t];
	(*k)--;
}

/* Factors and solves, dropping dependent columns (set to zero) until the
 * passive set is independent. */
static void factor_solve(const double *g, const double *h, size_t n, size_t *p,
                         size_t *k, unsigned char *state,
                         const unsigned char *free_col, double *x, double *l,
                         double *z, double *y)
{
	for (;;) {
		size_t bad = factor(g, n, p, *k, l);
		if (bad == *k)
			break;
		size_t j = p[bad];
		state[j] = free_col && free_col[j] ? DEPENDENT : ZERO;
		x[j] = 0.0;
		drop_at(p, k, bad);
	}
	solve(h, n, p, *k, l, z, y);
}

static bool is_free(const unsigned char *free_col, size_t j)
{
	return free_col && free_col[j];
}

enum core_nnls_status core_nnls_gram(const double *g, const double *h, size_t n,
                                     double btb, const unsigned char *free_col,
                                     unsigned max_iter, double *x, double *work,
                                     size_t *iwork)
{
	if (!g || !h || !x || !work || !iwork || n == 0)
		return CORE_NNLS_BAD_INPUT;
	double *l = work, *z = work + n * n, *w = z + n, *y = w + n;
	size_t *p = iwork;
	/* one state byte per column, in the second half of iwork */
	unsigned char *s8 = (unsigned char *)(iwork + n);
	if (max_iter == 0)
		max_iter = (unsigned)(3 * n);

	double gmax = 0.0, hmax = 0.0;
	for (size_t j = 0; j < n; j++) {
		if (!isfinite(g[j * n + j]) || !isfinite(h[j]))
			return CORE_NNLS_BAD_INPUT;
		gmax = fmax(gmax, g[j * n + j]);
		hmax = fmax(hmax, fabs(h[j]));
	}
	/* |w_j| = |a_j . r| <= ||a_j|| ||b||: the gradient's own scale */
	double scale = btb > 0.0 ? sqrt(gmax) * sqrt(btb) : hmax;
	double tol = 10.0 * DBL_EPSILON * (double)n * scale;

	size_t k = 0;
	for (size_t j = 0; j < n; j++) {
		x[j] = 0.0;
		z[j] = 0.0;
		s8[j] = is_free(free_col, j) ? PASSIVE : ZERO;
		if (s8[j] == PASSIVE)
			p[k++] = j;
	}
	if (k > 0) {
		factor_solve(g, h, n, p, &k, s8, free_col, x, l, z, y);
		for (size_t t = 0; t < k; t++)
			x[p[t]] = z[p[t]];
	}

	unsigned iter = 0;
	for (;;) {
		size_t best = n;
		double wmax = tol;
		for (size_t j = 0; j < n; j++) {
			if (s8[j] != ZERO)
				continue;
			double s = h[j];
			for (size_t t = 0; t < n; t++)
				s -= g[j * n + t] * x[t];
			w[j] = s;
			if (s > wmax) {
				wmax = s;
				best = j;
			}
		}
		if (best == n)
			return CORE_NNLS_OK;
		if (iter++ >= max_iter)
			return CORE_NNLS_MAX_ITER;

		p[k++] = best;
		s8[best] = PASSIVE;
		size_t bad = factor(g, n, p, k, l);
		if (bad != k) {
			/* best depends on the passive columns: try the next */
			k--;
			s8[best] = REJECTED;
			continue;
		}
		solve(h, n, p, k, l, z, y);
		if (!(z[best] > 0.0)) {
			k--;
			s8[best] = REJECTED;
			continue;
		}
		for (size_t j = 0; j < n; j++)
			if (s8[j] == REJECTED)
				s8[j] = ZERO;

		/* Inner loop: step back towards feasibility while a
		 * constrained passive variable would go non-positive. */
		for (;;) {
			double alpha = 2.0;
			size_t hit = n;
			for (size_t t = 0; t < k; t++) {
				size_t j = p[t];
				if (is_free(free_col, j) || z[j] > 0.0)
					continue;
				double a = x[j] / (x[j] - z[j]);
				if (a < alpha) {
					alpha = a;
					hit = j;
				}
			}
			if (hit == n)
				break;
			if (iter++ >= max_iter)
				return CORE_NNLS_MAX_ITER;
			for (size_t t = 0; t < k; t++) {
				size_t j = p[t];
				x[j] += alpha * (z[j] - x[j]);
			}
			x[hit] = 0.0;
			for (size_t t = k; t-- > 0;) {
				size_t j = p[t];
				if (is_free(free_col, j) || x[j] > 0.0)
					continue;
				x[j] = 0.0;
				s8[j] = ZERO;
				drop_at(p, &k, t);
			}
			factor_solve(g, h, n, p, &k, s8, free_col, x, l, z, y);
		}
		for (size_t t = 0; t < k; t++)
			x[p[t]] = z[p[t]];
	}
}

enum core_nnls_status core_nnls_solve(const double *a, const double *b,
                                      size_t m, size_t n,
                                      const unsigned char *free_col,
                                      unsigned max_iter, double *x,
                                      double *work, size_t *iwork)
{
	if (!a || !b || !work || n == 0)
		return CORE_NNLS_BAD_INPUT;
	double *g = work, *h = work + n * n;
	double btb = 0.0;
	for (size_t j = 0; j < n * n; j++)
		g[j] = 0.0;
	for (size_t j = 0; j < n; j++)
		h[j] = 0.0;
	for (size_t i = 0; i < m; i++) {
		const double *row = a + i * n;
		for (size_t r = 0; r < n; r++) {
			if (row[r] == 0.0)
				continue;
			for (size_t c = r; c < n; c++)
				g[r * n + c] += row[r] * row[c];
			h[r] += row[r] * b[i];
		}
		btb += b[i] * b[i];
	}
	for (size_t r = 0; r < n; r++)
		for (size_t c = 0; c < r; c++)
			g[r * n + c] = g[c * n + r];
	return core_nnls_gram(g, h, n, btb, free_col, max_iter, x,
	                      work + n * n + n, iwork);
}

double core_nnls_gram_objective(const double *g, const double *h, double btb,
                                const double *x, size_t n)
{
	double q = 0.0, lin = 0.0;
	for (size_t r = 0; r < n; r++) {
		double s = 0.0;
		for (size_t c = 0; c < n; c++)
			s += g[r * n + c] * x[c];
		q += x[r] * s;
		lin += x[r] * h[r];
	}
	return q - 2.0 * lin + btb;
}
