/* dJay's models: estimation (§5), error metrics, the coarse filter (§4.3)
 * and the normal equations for online refits. The fits are in
 * quality_fit.c. */
#include "core/quality_model.h"

#include <math.h>

struct core_qm_params core_qm_params_default(enum core_qm_mode mode)
{
	return (struct core_qm_params){
	    .mode = mode,
	    .eps_v = 100.0,
	    .eps_w_cost = 1e-7,
	    .eps_w_benefit = 1e-4,
	    .max_iter = 0,
	};
}

double core_qm_linear_eval(const struct core_qm_linear *lin, size_t n_types,
                           const double *counts)
{
	double s = lin->intercept;
	for (size_t j = 0; j < n_types && j < CORE_QM_MAX_TYPES; j++)
		if (lin->kept >> j & 1u)
			s += lin->weight[j] * counts[j];
	return s;
}

double core_qm_cost(const struct core_qm_level *lv, const double *counts)
{
	return fmax(0.0, core_qm_linear_eval(&lv->cost, lv->n_types, counts));
}

double core_qm_benefit(const struct core_qm_level *lv, const double *counts)
{
	double v = core_qm_linear_eval(&lv->benefit, lv->n_types, counts);
	if (lv->mode == CORE_QM_PAPER)
		return v; /* the paper's model as fitted, unclamped */
	return fmin(1.0, fmax(0.0, 1.0 - v));
}

size_t core_qm_rel_error(const double *predicted, const double *measured,
                         size_t rows, struct core_qm_error *out)
{
	double s1 = 0.0, s2 = 0.0;
	size_t used = 0;
	for (size_t i = 0; i < rows; i++) {
		if (measured[i] == 0.0)
			continue;
		double r = (predicted[i] - measured[i]) / measured[i];
		s1 += fabs(r);
		s2 += r * r;
		used++;
	}
	out->l1 = used ? s1 / (double)used : 0.0;
	out->l2 = used ? sqrt(s2 / (double)used) : 0.0;
	return used;
}

uint64_t core_qm_coarse_mask(const double *vertices, size_t n_types,
                             double eps_v)
{
	uint64_t m = 0;
	for (size_t j = 0; j < n_types && j < CORE_QM_MAX_TYPES; j++)
		if (!vertices || vertices[j] >= eps_v)
			m |= (uint64_t)1 << j;
	return m;
}

void core_qm_gram_init(struct core_qm_gram *gr, size_t n_types)
{
	*gr = (struct core_qm_gram){0};
	gr->n_types = n_types < CORE_QM_MAX_TYPES ? n_types : CORE_QM_MAX_TYPES;
}

void core_qm_gram_add(struct core_qm_gram *gr, const double *counts,
                      double cost_s, double ssim, double lambda)
{
	size_t d = gr->n_types + 1;
	double loss = 1.0 - ssim;
	if (lambda != 1.0) {
		for (size_t r = 0; r < d; r++) {
			for (size_t c = r; c < d; c++)
				gr->g[r * CORE_QM_DIM + c] *= lambda;
			gr->h_cost[r] *= lambda;
			gr->h_loss[r] *= lambda;
		}
		gr->btb_cost *= lambda;
		gr->btb_loss *= lambda;
		gr->frames *= lambda;
	}
	/* upper triangle only; the fit mirrors it. Column 0 is the
	 * intercept's column of ones. */
	for (size_t r = 0; r < d; r++) {
		double vr = r == 0 ? 1.0 : counts[r - 1];
		if (vr == 0.0)
			continue;
		for (size_t c = r; c < d; c++) {
			double vc = c == 0 ? 1.0 : counts[c - 1];
			gr->g[r * CORE_QM_DIM + c] += vr * vc;
		}
		gr->h_cost[r] += vr * cost_s;
		gr->h_loss[r] += vr * loss;
	}
	gr->btb_cost += cost_s * cost_s;
	gr->btb_loss += loss * loss;
	gr->frames += 1.0;
}
