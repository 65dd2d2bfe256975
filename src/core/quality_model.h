/* dJay's per-object cost and benefit models (docs/papers.md, "dJay";
 * paper §4–5): per game and quality level, GPU seconds per frame and SSIM
 * against the best level, each linear in the per-type object counts of the
 * frame.
 *
 * Two modes:
 *  - CORE_QM_PAPER (§4.1, §4.3, §7.1): ordinary least squares with no
 *    intercept (LAPACKE dgels), benefit fitted on SSIM directly; the fine
 *    filter drops type j when w_j^c < eps or w_j^b < eps (one set for both
 *    models) and refits once.
 *  - CORE_QM_BATON ([ours] A2/A3): cost = free intercept + non-negative
 *    per-type weights (NNLS); benefit through the loss d = 1 - SSIM, also a
 *    free intercept + non-negative weights, b = 1 - d. The fine filter
 *    applies to each model on its own (the best level has d = 0, so its
 *    loss model keeps no type while its cost model keeps all) and refits
 *    until no kept weight is below eps.
 * The coarse filter (eps_v = 100 vertices, §4.3) drops types whose declared
 * vertex count is below it before any fit.
 *
 * Pure: no I/O, no allocation (fixed-size structs and caller workspace). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CORE_QM_MAX_TYPES 64 /* kept sets are 64-bit masks */

enum core_qm_mode { CORE_QM_BATON = 0, CORE_QM_PAPER = 1 };

/* target = intercept + sum_j weight[j] * count[j] over the kept types. */
struct core_qm_linear {
	double intercept; /* 0 in paper mode */
	double weight[CORE_QM_MAX_TYPES];
	uint64_t kept; /* bit j: type j survived the filters */
};

/* One quality level of one game. */
struct core_qm_level {
	enum core_qm_mode mode;
	size_t n_types;
	struct core_qm_linear cost; /* GPU seconds per frame */
	/* Baton mode: the loss 1 - SSIM; paper mode: SSIM itself */
	struct core_qm_linear benefit;
};

struct core_qm_params {
	enum core_qm_mode mode;
	double eps_v; /* coarse filter: vertices (§4.3: 100) */
	/* Fine filter on the cost weights, in seconds per object. The paper's
	 * eps_w = 0.0001 applies to weights fitted on milliseconds, i.e.
	 * 1e-7 s; on seconds, 0.0001 would drop every type under 0.1 ms. */
	double eps_w_cost;
	double eps_w_benefit; /* on SSIM (or loss) per object: 0.0001 */
	unsigned max_iter;    /* NNLS cap; 0: 3 n */
};

struct core_qm_params core_qm_params_default(enum core_qm_mode mode);

/* §5: estimates from a count vector (e.g. the potential object list,
 * averaged over the epoch). counts: n_types. The benefit is clamped to
 * [0, 1] in Baton mode (it is 1 - d, and SSIM lives there); the cost is
 * never negative. */
double core_qm_linear_eval(const struct core_qm_linear *lin, size_t n_types,
                           const double *counts);
double core_qm_cost(const struct core_qm_level *lv, const double *counts);
double core_qm_benefit(const struct core_qm_level *lv, const double *counts);

/* Prediction error of predicted[i] against measured[i], relative to
 * measured: mean |rel| (L1) and sqrt(mean rel^2) (L2). Rows whose
 * measurement is 0 are skipped (relative error is undefined there); returns
 * how many rows counted. */
struct core_qm_error {
	double l1, l2;
};
size_t core_qm_rel_error(const double *predicted, const double *measured,
                         size_t rows, struct core_qm_error *out);

/* The coarse filter: the types whose vertex count is at least eps_v (all of
 * them when vertices is NULL). */
uint64_t core_qm_coarse_mask(const double *vertices, size_t n_types,
                             double eps_v);

/* Normal equations for online refits (Baton mode): the Gram matrix of the
 * design [1, counts] and its products with the cost and loss targets,
 * accumulated frame by frame in O(n^2) and fixed memory. A forgetting
 * factor lambda in (0, 1] scales the old data at each add (1: plain sums;
 * 0.999: an effective window of ~1000 frames), so the model follows a game
 * whose costs drift without keeping samples. */
#define CORE_QM_DIM (CORE_QM_MAX_TYPES + 1)
struct core_qm_gram {
	size_t n_types;
	double frames;                       /* weighted count */
	double g[CORE_QM_DIM * CORE_QM_DIM]; /* row-major, dim n_types + 1 */
	double h_cost[CORE_QM_DIM], h_loss[CORE_QM_DIM];
	double btb_cost, btb_loss;
};

void core_qm_gram_init(struct core_qm_gram *gr, size_t n_types);
/* One frame: its counts (n_types), measured cost (s) and SSIM. */
void core_qm_gram_add(struct core_qm_gram *gr, const double *counts,
                      double cost_s, double ssim, double lambda);

/* Workspace for the Baton-mode fits (fixed size, so it can live on the
 * caller's stack or in its state). */
struct core_qm_work {
	double g[CORE_QM_DIM * CORE_QM_DIM];
	double h[CORE_QM_DIM];
	double x[CORE_QM_DIM];
	double nnls[CORE_QM_DIM * CORE_QM_DIM + 3 * CORE_QM_DIM];
	size_t idx[CORE_QM_DIM];
	size_t nnls_idx[2 * CORE_QM_DIM];
};

/* Baton mode from accumulated normal equations: coarse mask (from
 * core_qm_coarse_mask), NNLS with a free intercept, then the fine filter
 * with refits until no kept weight is below eps. Returns false on bad input
 * or if NNLS hit its cap. */
bool core_qm_fit_gram(const struct core_qm_gram *gr, uint64_t coarse,
                      const struct core_qm_params *p, struct core_qm_work *work,
                      struct core_qm_level *out);

/* Offline fit from samples. counts: rows x n_types, row-major (one frame a
 * row); cost_s and ssim: rows. Baton mode accumulates the normal equations
 * and calls core_qm_fit_gram; paper mode runs OLS through LAPACKE dgels
 * on a column-major copy in work (core_qm_fit_work_doubles). */
size_t core_qm_fit_work_doubles(size_t rows, size_t n_types);
bool core_qm_fit_samples(const double *counts, const double *cost_s,
                         const double *ssim, size_t rows, size_t n_types,
                         uint64_t coarse, const struct core_qm_params *p,
                         double *work, struct core_qm_gram *gram_scratch,
                         struct core_qm_work *nnls_work,
                         struct core_qm_level *out);
