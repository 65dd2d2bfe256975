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

/* Lawson and Hanson's arrays and counts for one solve. */
struct nnls {
	const double *g, *h;
	size_t n;
	const unsigned char *free_col;
	double *x, *l, *z, *w, *y;
	size_t *p;         /* the passive columns, p[0..k-1] */
	unsigned char *s8; /* one state byte per column */
	size_t k;
	unsigned iter, max_iter;
};

/* The dual's tolerance: |w_j| = |a_j . r| <= ||a_j|| ||b||, the
 * gradient's own scale. false for a non-finite G_jj or h_j. */
static bool dual_tolerance(const struct nnls *c, double btb, double *tol)
{
	double gmax = 0.0, hmax = 0.0;
	for (size_t j = 0; j < c->n; j++) {
		if (!isfinite(c->g[j * c->n + j]) || !isfinite(c->h[j]))
			return false;
		gmax = fmax(gmax, c->g[j * c->n + j]);
		hmax = fmax(hmax, fabs(c->h[j]));
	}
	double scale = btb > 0.0 ? sqrt(gmax) * sqrt(btb) : hmax;
	*tol = 10.0 * DBL_EPSILON * (double)c->n * scale;
	return true;
}

/* x = 0 but for the free columns, which start passive and solved. */
static void start(struct nnls *c)
{
	c->k = 0;
	for (size_t j = 0; j < c->n; j++) {
		c->x[j] = 0.0;
		c->z[j] = 0.0;
		c->s8[j] = is_free(c->free_col, j) ? PASSIVE : ZERO;
		if (c->s8[j] == PASSIVE)
			c->p[c->k++] = j;
	}
	if (c->k > 0) {
		factor_solve(c->g, c->h, c->n, c->p, &c->k, c->s8, c->free_col,
		             c->x, c->l, c->z, c->y);
		for (size_t t = 0; t < c->k; t++)
			c->x[c->p[t]] = c->z[c->p[t]];
	}
}

/* The zero column whose dual w_j = h_j - (G x)_j is largest above tol, or
 * n when none is: x is optimal. */
static size_t most_violated(struct nnls *c, double tol)
{
	size_t n = c->n, best = n;
	double wmax = tol;
	for (size_t j = 0; j < n; j++) {
		if (c->s8[j] != ZERO)
			continue;
		double s = c->h[j];
		for (size_t t = 0; t < n; t++)
			s -= c->g[j * n + t] * c->x[t];
		c->w[j] = s;
		if (s > wmax) {
			wmax = s;
			best = j;
		}
	}
	return best;
}

/* Moves column best into the passive set and solves; false (best
 * rejected until the next column enters) when it depends on the passive
 * columns or its solution is not positive. */
static bool enter(struct nnls *c, size_t best)
{
	c->p[c->k++] = best;
	c->s8[best] = PASSIVE;
	if (factor(c->g, c->n, c->p, c->k, c->l) != c->k) {
		c->k--;
		c->s8[best] = REJECTED;
		return false;
	}
	solve(c->h, c->n, c->p, c->k, c->l, c->z, c->y);
	if (!(c->z[best] > 0.0)) {
		c->k--;
		c->s8[best] = REJECTED;
		return false;
	}
	for (size_t j = 0; j < c->n; j++)
		if (c->s8[j] == REJECTED)
			c->s8[j] = ZERO;
	return true;
}

/* The inner loop: steps back towards feasibility while a constrained
 * passive variable would go non-positive, dropping those that reach 0.
 * false when it runs out of iterations. */
static bool step_back(struct nnls *c)
{
	size_t n = c->n;
	for (;;) {
		double alpha = 2.0;
		size_t hit = n;
		for (size_t t = 0; t < c->k; t++) {
			size_t j = c->p[t];
			if (is_free(c->free_col, j) || c->z[j] > 0.0)
				continue;
			double a = c->x[j] / (c->x[j] - c->z[j]);
			if (a < alpha) {
				alpha = a;
				hit = j;
			}
		}
		if (hit == n)
			return true;
		if (c->iter++ >= c->max_iter)
			return false;
		for (size_t t = 0; t < c->k; t++) {
			size_t j = c->p[t];
			c->x[j] += alpha * (c->z[j] - c->x[j]);
		}
		c->x[hit] = 0.0;
		for (size_t t = c->k; t-- > 0;) {
			size_t j = c->p[t];
			if (is_free(c->free_col, j) || c->x[j] > 0.0)
				continue;
			c->x[j] = 0.0;
			c->s8[j] = ZERO;
			drop_at(c->p, &c->k, t);
		}
		factor_solve(c->g, c->h, n, c->p, &c->k, c->s8, c->free_col,
		             c->x, c->l, c->z, c->y);
	}
}

enum core_nnls_status core_nnls_gram(const double *g, const double *h, size_t n,
                                     double btb, const unsigned char *free_col,
                                     unsigned max_iter, double *x, double *work,
                                     size_t *iwork)
{
	if (!g || !h || !x || !work || !iwork || n == 0)
		return CORE_NNLS_BAD_INPUT;
	struct nnls c = {
	    .g = g,
	    .h = h,
	    .n = n,
	    .free_col = free_col,
	    .x = x,
	    .l = work,
	    .z = work + n * n,
	    .p = iwork,
	    /* one state byte per column, in the second half of iwork */
	    .s8 = (unsigned char *)(iwork + n),
	    .max_iter = max_iter ? max_iter : (unsigned)(3 * n),
	};
	c.w = c.z + n;
	c.y = c.w + n;
	double tol;
	if (!dual_tolerance(&c, btb, &tol))
		return CORE_NNLS_BAD_INPUT;
	start(&c);
	for (;;) {
		size_t best = most_violated(&c, tol);
		if (best == n)
			return CORE_NNLS_OK;
		if (c.iter++ >= c.max_iter)
			return CORE_NNLS_MAX_ITER;
		/* a column that depends on the passive ones, or would enter
		 * at 0: try the next */
		if (!enter(&c, best))
			continue;
		if (!step_back(&c))
			return CORE_NNLS_MAX_ITER;
		for (size_t t = 0; t < c.k; t++)
			x[c.p[t]] = c.z[c.p[t]];
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
