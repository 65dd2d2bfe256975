/* Fitting dJay's per-object models (§4.1, §4.3, §7.1; A2/A3 [ours]). */
#include <lapacke.h>
#include <math.h>

#include "core/nnls.h"
#include "core/quality_model.h"

static double gram_at(const struct core_qm_gram *gr, size_t r, size_t c)
{
	return r <= c ? gr->g[r * CORE_QM_DIM + c] : gr->g[c * CORE_QM_DIM + r];
}

/* One Baton-mode model: NNLS with a free intercept on the types in mask,
 * then drop the kept types whose weight is below eps and refit, until none
 * is (A3 [ours]; the set only shrinks, so at most n_types + 1 fits). */
static bool fit_one(const struct core_qm_gram *gr, const double *h_full,
                    double btb, uint64_t mask, double eps, unsigned max_iter,
                    struct core_qm_work *w, struct core_qm_linear *out)
{
	unsigned char free_col[CORE_QM_DIM] = {1};
	for (;;) {
		size_t k = 0;
		w->idx[k++] = 0;
		for (size_t j = 0; j < gr->n_types; j++)
			if (mask >> j & 1u)
				w->idx[k++] = j + 1;
		for (size_t r = 0; r < k; r++) {
			for (size_t c = 0; c < k; c++)
				w->g[r * k + c] =
				    gram_at(gr, w->idx[r], w->idx[c]);
			w->h[r] = h_full[w->idx[r]];
		}
		enum core_nnls_status st =
		    core_nnls_gram(w->g, w->h, k, btb, free_col, max_iter, w->x,
		                   w->nnls, w->nnls_idx);
		if (st != CORE_NNLS_OK)
			return false;
		*out = (struct core_qm_linear){.intercept = w->x[0]};
		uint64_t keep = 0;
		for (size_t r = 1; r < k; r++) {
			size_t j = w->idx[r] - 1;
			out->weight[j] = w->x[r];
			if (w->x[r] >= eps)
				keep |= (uint64_t)1 << j;
		}
		if (keep == mask) {
			out->kept = keep;
			return true;
		}
		mask = keep;
	}
}

bool core_qm_fit_gram(const struct core_qm_gram *gr, uint64_t coarse,
                      const struct core_qm_params *p, struct core_qm_work *work,
                      struct core_qm_level *out)
{
	if (!gr || !p || !work || !out || gr->n_types == 0 ||
	    gr->n_types > CORE_QM_MAX_TYPES || !(gr->frames > 0.0))
		return false;
	*out = (struct core_qm_level){.mode = CORE_QM_BATON,
	                              .n_types = gr->n_types};
	if (gr->n_types < CORE_QM_MAX_TYPES)
		coarse &= ((uint64_t)1 << gr->n_types) - 1;
	return fit_one(gr, gr->h_cost, gr->btb_cost, coarse, p->eps_w_cost,
	               p->max_iter, work, &out->cost) &&
	       fit_one(gr, gr->h_loss, gr->btb_loss, coarse, p->eps_w_benefit,
	               p->max_iter, work, &out->benefit);
}

size_t core_qm_fit_work_doubles(size_t rows, size_t n_types)
{
	size_t ld = rows > n_types ? rows : n_types;
	/* design, two right-hand sides, then dgels' own workspace (its
	 * blocked QR wants up to mn + max(mn, nrhs) * nb; nb <= 64) */
	return rows * n_types + 2 * ld + n_types + (n_types + 2) * 64 + 1;
}

/* Paper mode, §7.1: OLS with no intercept on the types in mask, both
 * targets at once. Returns false when LAPACK reports a rank-deficient
 * design (dgels assumes full rank, as the paper's plain LS does). */
static bool ols(const double *counts, const double *cost_s, const double *ssim,
                size_t rows, size_t n_types, uint64_t mask, double *work,
                struct core_qm_level *out)
{
	size_t k = 0;
	size_t cols[CORE_QM_MAX_TYPES];
	for (size_t j = 0; j < n_types; j++)
		if (mask >> j & 1u)
			cols[k++] = j;
	out->cost = (struct core_qm_linear){.kept = mask};
	out->benefit = (struct core_qm_linear){.kept = mask};
	if (k == 0)
		return true;
	size_t ld = rows > k ? rows : k;
	double *a = work, *b = work + rows * k, *wk = b + 2 * ld;
	for (size_t c = 0; c < k; c++)
		for (size_t i = 0; i < rows; i++)
			a[c * rows + i] = counts[i * n_types + cols[c]];
	for (size_t i = 0; i < ld; i++) {
		b[i] = i < rows ? cost_s[i] : 0.0;
		b[ld + i] = i < rows ? ssim[i] : 0.0;
	}
	lapack_int lwork = (lapack_int)(k + (k + 2) * 64 + 1);
	lapack_int info = LAPACKE_dgels_work(
	    LAPACK_COL_MAJOR, 'N', (lapack_int)rows, (lapack_int)k, 2, a,
	    (lapack_int)rows, b, (lapack_int)ld, wk, lwork);
	if (info != 0)
		return false;
	for (size_t c = 0; c < k; c++) {
		out->cost.weight[cols[c]] = b[c];
		out->benefit.weight[cols[c]] = b[ld + c];
	}
	return true;
}

bool core_qm_fit_samples(const double *counts, const double *cost_s,
                         const double *ssim, size_t rows, size_t n_types,
                         uint64_t coarse, const struct core_qm_params *p,
                         double *work, struct core_qm_gram *gram_scratch,
                         struct core_qm_work *nnls_work,
                         struct core_qm_level *out)
{
	if (!counts || !cost_s || !ssim || !p || !out || rows == 0 ||
	    n_types == 0 || n_types > CORE_QM_MAX_TYPES)
		return false;
	if (n_types < CORE_QM_MAX_TYPES)
		coarse &= ((uint64_t)1 << n_types) - 1;
	if (p->mode == CORE_QM_BATON) {
		if (!gram_scratch || !nnls_work)
			return false;
		core_qm_gram_init(gram_scratch, n_types);
		for (size_t i = 0; i < rows; i++)
			core_qm_gram_add(gram_scratch, counts + i * n_types,
			                 cost_s[i], ssim[i], 1.0);
		return core_qm_fit_gram(gram_scratch, coarse, p, nnls_work,
		                        out);
	}
	if (!work)
		return false;
	*out =
	    (struct core_qm_level){.mode = CORE_QM_PAPER, .n_types = n_types};
	if (!ols(counts, cost_s, ssim, rows, n_types, coarse, work, out))
		return false;
	/* §4.3: drop j if w_j^c < eps_w or w_j^b < eps_w, refit once */
	uint64_t keep = 0;
	for (size_t j = 0; j < n_types; j++)
		if ((coarse >> j & 1u) &&
		    out->cost.weight[j] >= p->eps_w_cost &&
		    out->benefit.weight[j] >= p->eps_w_benefit)
			keep |= (uint64_t)1 << j;
	return ols(counts, cost_s, ssim, rows, n_types, keep, work, out);
}
