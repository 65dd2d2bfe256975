/* dJay's model fits (src/core/quality_model.h, nnls.h) on a realistic data
 * set: 3000 frames x 40 object types (Poisson-like counts, a true intercept,
 * non-negative weights, 3 % noise). Times the plain NNLS on the matrix, the
 * Baton-mode fit from samples (normal equations + NNLS + fine filter), the
 * online pieces (adding one frame to the normal equations, a refit from
 * them) and the paper-mode OLS through LAPACKE dgels. Medians of 21. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_time.h"
#include "core/nnls.h"
#include "core/quality_model.h"

enum { ROWS = 3000, TYPES = 40, RUNS = 21 };

static double median(double *v)
{
	qsort(v, RUNS, sizeof(double), cmp_double);
	return v[RUNS / 2];
}

static unsigned long long lcg = 12345;
static double uniform(void)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(lcg >> 11) * (1.0 / 9007199254740992.0);
}

static struct core_qm_gram gram;
static struct core_qm_work qwork;

int main(void)
{
	double *counts = malloc(sizeof(double) * ROWS * TYPES);
	double *cost = malloc(sizeof(double) * ROWS);
	double *ssim = malloc(sizeof(double) * ROWS);
	double *work =
	    malloc(sizeof(double) * core_qm_fit_work_doubles(ROWS, TYPES));
	double *nwork = malloc(sizeof(double) * core_nnls_work_doubles(TYPES));
	size_t iwork[2 * TYPES];
	double x[TYPES], wc[TYPES], wl[TYPES], t[RUNS];
	if (!counts || !cost || !ssim || !work || !nwork)
		return 1;
	for (size_t j = 0; j < TYPES; j++) {
		/* a quarter of the types cost (and lose) nothing */
		wc[j] = j % 4 == 3 ? 0.0 : 2e-6 * (double)(j + 1);
		wl[j] = j % 4 == 1 ? 0.0 : 2e-4 * uniform();
	}
	for (size_t i = 0; i < ROWS; i++) {
		double c = 2e-3, l = 0.01;
		for (size_t j = 0; j < TYPES; j++) {
			double g = floor(uniform() * (double)(2 * j + 4));
			counts[i * TYPES + j] = g;
			c += wc[j] * g;
			l += wl[j] * g;
		}
		cost[i] = c * (1.0 + 0.03 * (uniform() - 0.5) * 3.46);
		ssim[i] = 1.0 - l * (1.0 + 0.03 * (uniform() - 0.5) * 3.46);
	}
	struct core_qm_params pb = core_qm_params_default(CORE_QM_BATON);
	struct core_qm_params pp = core_qm_params_default(CORE_QM_PAPER);
	struct core_qm_level lv;

	for (int r = 0; r < RUNS; r++) {
		double t0 = now_s();
		if (core_nnls_solve(counts, cost, ROWS, TYPES, NULL, 0, x,
		                    nwork, iwork) != CORE_NNLS_OK)
			return 1;
		t[r] = now_s() - t0;
	}
	printf("nnls %dx%d (matrix, no intercept): %.3f ms\n", ROWS, TYPES,
	       median(t) * 1e3);

	for (int r = 0; r < RUNS; r++) {
		double t0 = now_s();
		if (!core_qm_fit_samples(counts, cost, ssim, ROWS, TYPES,
		                         UINT64_MAX, &pb, work, &gram, &qwork,
		                         &lv))
			return 1;
		t[r] = now_s() - t0;
	}
	printf("baton fit %dx%d (cost + loss, filters): %.3f ms\n", ROWS, TYPES,
	       median(t) * 1e3);

	for (int r = 0; r < RUNS; r++) {
		double t0 = now_s();
		if (!core_qm_fit_gram(&gram, UINT64_MAX, &pb, &qwork, &lv))
			return 1;
		t[r] = now_s() - t0;
	}
	printf("online refit from normal equations (%d types): %.1f us\n",
	       TYPES, median(t) * 1e6);

	for (int r = 0; r < RUNS; r++) {
		double t0 = now_s();
		for (size_t i = 0; i < ROWS; i++)
			core_qm_gram_add(&gram, counts + i * TYPES, cost[i],
			                 ssim[i], 0.999);
		t[r] = (now_s() - t0) / ROWS;
	}
	printf("add one frame to the normal equations (lambda 0.999): "
	       "%.0f ns\n",
	       median(t) * 1e9);

	for (int r = 0; r < RUNS; r++) {
		double t0 = now_s();
		if (!core_qm_fit_samples(counts, cost, ssim, ROWS, TYPES,
		                         UINT64_MAX, &pp, work, NULL, NULL,
		                         &lv))
			return 1;
		t[r] = now_s() - t0;
	}
	printf("paper fit %dx%d (dgels OLS, drop, refit): %.3f ms\n", ROWS,
	       TYPES, median(t) * 1e3);

	free(counts);
	free(cost);
	free(ssim);
	free(work);
	free(nwork);
	return 0;
}
