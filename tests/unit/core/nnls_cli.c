/* Reads one NNLS problem from stdin and prints core_nnls_solve's answer, for
 * nnls_check.py to compare against SciPy. Input (whitespace separated):
 *   m n
 *   free_0 .. free_{n-1}          (1: column exempt from x >= 0)
 *   A, row-major, m * n numbers
 *   b, m numbers
 * Output: the status, then x (n numbers), then ||A x - b||^2. */
#include <stdio.h>
#include <stdlib.h>

#include "core/nnls.h"

int main(void)
{
	size_t m, n;
	if (scanf("%zu %zu", &m, &n) != 2 || n == 0 || m == 0 || n > 512 ||
	    m > 100000)
		return 2;
	unsigned char *free_col = calloc(n, 1);
	double *a = calloc(m * n, sizeof(double));
	double *b = calloc(m, sizeof(double));
	double *x = calloc(n, sizeof(double));
	double *work = calloc(core_nnls_work_doubles(n), sizeof(double));
	size_t *iwork = calloc(core_nnls_gram_work_indices(n), sizeof(size_t));
	if (!free_col || !a || !b || !x || !work || !iwork)
		return 2;
	for (size_t j = 0; j < n; j++) {
		int f;
		if (scanf("%d", &f) != 1)
			return 2;
		free_col[j] = (unsigned char)(f != 0);
	}
	for (size_t i = 0; i < m * n; i++)
		if (scanf("%lf", &a[i]) != 1)
			return 2;
	for (size_t i = 0; i < m; i++)
		if (scanf("%lf", &b[i]) != 1)
			return 2;
	enum core_nnls_status st =
	    core_nnls_solve(a, b, m, n, free_col, 0, x, work, iwork);
	printf("%d\n", (int)st);
	double obj = 0.0;
	for (size_t i = 0; i < m; i++) {
		double r = -b[i];
		for (size_t j = 0; j < n; j++)
			r += a[i * n + j] * x[j];
		obj += r * r;
	}
	for (size_t j = 0; j < n; j++)
		printf("%.17g ", x[j]);
	printf("\n%.17g\n", obj);
	free(free_col);
	free(a);
	free(b);
	free(x);
	free(work);
	free(iwork);
	return 0;
}
