/* Non-negative least squares: min ||A x - b||_2 subject to x_j >= 0 for
 * every column j not marked free (Lawson and Hanson, "Solving Least Squares
 * Problems", 1974, ch. 23, algorithm NNLS). Used for dJay's per-object cost
 * and loss models (docs/papers.md, "dJay", A2/A3: Baton's choices).
 *
 * The solver works on the normal equations (the Gram form G = A^T A,
 * h = A^T b), so that a caller can accumulate them online, frame by frame,
 * in bounded memory and refit at any time; the passive-set subproblems are
 * solved by Cholesky of G restricted to the passive set. This squares the
 * condition number of A: fine for object counts (tens of columns, counts of
 * order 1..1000), not for ill-conditioned problems in general.
 *
 * Pure: no allocation (the caller supplies the workspace), no globals. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum core_nnls_status {
	CORE_NNLS_OK = 0,
	CORE_NNLS_MAX_ITER = 1, /* stopped at the cap; x is feasible */
	CORE_NNLS_BAD_INPUT = 2,
};

/* Workspace the Gram solver needs for n columns. */
static inline size_t core_nnls_gram_work_doubles(size_t n)
{
	return n * n + 3 * n;
}
static inline size_t core_nnls_gram_work_indices(size_t n)
{
	return 2 * n;
}

/* Solves on the Gram form. g: n x n symmetric (only read), h: n.
 * free_col: NULL, or n flags; a nonzero flag exempts that column from the
 * constraint (e.g. an intercept column of ones). max_iter caps the outer
 * iterations (0: 3 n, as Lawson and Hanson suggest). x: n, written.
 * btb = b^T b, used only for the tolerance on the gradient (pass 0 if not
 * known: the tolerance then scales with h alone). */
enum core_nnls_status core_nnls_gram(const double *g, const double *h, size_t n,
                                     double btb, const unsigned char *free_col,
                                     unsigned max_iter, double *x, double *work,
                                     size_t *iwork);

/* Workspace for core_nnls_solve with n columns. */
static inline size_t core_nnls_work_doubles(size_t n)
{
	return n * n + n + core_nnls_gram_work_doubles(n);
}

/* Solves min ||A x - b|| from the matrix itself. a: m x n, ROW-MAJOR (row i
 * = sample i, the layout of per-frame object counts), b: m. Forms the Gram
 * form in the workspace and calls core_nnls_gram. */
enum core_nnls_status core_nnls_solve(const double *a, const double *b,
                                      size_t m, size_t n,
                                      const unsigned char *free_col,
                                      unsigned max_iter, double *x,
                                      double *work, size_t *iwork);

/* ||A x - b||^2 from the Gram form: x^T G x - 2 x^T h + b^T b. */
double core_nnls_gram_objective(const double *g, const double *h, double btb,
                                const double *x, size_t n);
