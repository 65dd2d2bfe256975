/* dJay's per-object models (dJay §4-5; docs/papers.md): known weights
 * recovered from noisy synthetic frames, the coarse and fine filters, paper
 * mode against Baton mode, estimation, the error metrics and online refits
 * with forgetting. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "assert_near.h"
#include "core/quality_model.h"

enum { ROWS = 2000, TYPES = 8 };

struct rng {
	uint64_t s;
};

static double uniform(struct rng *r)
{
	r->s = r->s * 6364136223846793005u + 1442695040888963407u;
	return (double)(r->s >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(struct rng *r)
{
	double u = uniform(r) + 1e-300, v = uniform(r);
	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Frames with 0..2*mean[j] objects of type j; cost and loss linear in the
 * counts plus Gaussian noise of the given relative size. */
struct data {
	double counts[ROWS * TYPES];
	double cost[ROWS], ssim[ROWS];
};

static void make_data(struct data *d, const double *wc, double c0,
                      const double *wl, double l0, double noise, uint64_t seed)
{
	struct rng r = {seed};
	for (size_t i = 0; i < ROWS; i++) {
		double c = c0, l = l0;
		for (size_t j = 0; j < TYPES; j++) {
			double g = floor(uniform(&r) * (double)(4 * j + 5));
			d->counts[i * TYPES + j] = g;
			c += wc[j] * g;
			l += wl[j] * g;
		}
		d->cost[i] = c * (1.0 + noise * gauss(&r));
		d->ssim[i] = 1.0 - l * (1.0 + noise * gauss(&r));
	}
}

static const double true_wc[TYPES] = {2e-5, 5e-5, 0.0,  1e-4,
                                      3e-6, 8e-5, 1e-5, 4e-5};
static const double true_wl[TYPES] = {1e-3, 0.0, 2e-3, 5e-4,
                                      1e-3, 0.0, 3e-3, 1e-4};

static struct core_qm_gram gram;
static struct core_qm_work work;

static void fit(const struct data *d, uint64_t coarse,
                const struct core_qm_params *p, struct core_qm_level *lv)
{
	size_t len = core_qm_fit_work_doubles(ROWS, TYPES);
	double *w = calloc(len, sizeof(double));
	assert_non_null(w);
	assert_true(core_qm_fit_samples(d->counts, d->cost, d->ssim, ROWS,
	                                TYPES, coarse, p, w, &gram, &work, lv));
	free(w);
}

static void recovers_known_weights(void **state)
{
	struct data *d = malloc(sizeof(*d));
	assert_non_null(d);
	make_data(d, true_wc, 2e-3, true_wl, 0.01, 0.02, 1);
	struct core_qm_params p = core_qm_params_default(CORE_QM_BATON);
	struct core_qm_level lv;
	fit(d, UINT64_MAX, &p, &lv);
	assert_near(lv.cost.intercept, 2e-3, 2e-4);
	assert_near(lv.benefit.intercept, 0.01, 2e-3);
	for (size_t j = 0; j < TYPES; j++) {
		/* 2 % noise on 2000 frames: within ~10 % of the larger weights
		 */
		assert_near(lv.cost.weight[j], true_wc[j],
		            0.1 * true_wc[j] + 2e-6);
		assert_near(lv.benefit.weight[j], true_wl[j],
		            0.1 * true_wl[j] + 1e-4);
		assert_true(lv.cost.weight[j] >= 0.0);
	}
	/* Noise gives a true zero a small weight, which the filter may keep
	 * (the noise-free filter tests are below); the real ones are kept. */
	assert_int_equal(lv.cost.kept & 0xFBu, 0xFBu);
	/* type 7's loss weight is eps_w itself: either way */
	assert_int_equal(lv.benefit.kept & 0x5Du, 0x5Du);
	assert_true(lv.cost.weight[2] < 1e-6);
	struct core_qm_error e;
	double pred[ROWS];
	for (size_t i = 0; i < ROWS; i++)
		pred[i] = core_qm_cost(&lv, d->counts + i * TYPES);
	assert_int_equal(core_qm_rel_error(pred, d->cost, ROWS, &e), ROWS);
	assert_true(e.l1 < 0.025 && e.l2 < 0.03 && e.l2 >= e.l1);
	free(d);
}

static void coarse_filter_drops_small_meshes(void **state)
{
	struct data *d = malloc(sizeof(*d));
	assert_non_null(d);
	make_data(d, true_wc, 2e-3, true_wl, 0.01, 0.0, 2);
	const double vertices[TYPES] = {5000, 99, 100, 2000, 12, 800, 300, 1e4};
	uint64_t coarse = core_qm_coarse_mask(vertices, TYPES, 100.0);
	assert_int_equal(coarse, 0xEDu);
	struct core_qm_params p = core_qm_params_default(CORE_QM_BATON);
	struct core_qm_level lv;
	fit(d, coarse, &p, &lv);
	assert_int_equal(lv.cost.kept & ~coarse, 0u);
	assert_near(lv.cost.weight[1], 0.0, 0.0);
	assert_near(lv.cost.weight[4], 0.0, 0.0);
	assert_int_equal(core_qm_coarse_mask(NULL, TYPES, 100.0), 0xFFu);
	free(d);
}

static void fine_filter_refits_until_none_below(void **state)
{
	double wc[TYPES];
	for (size_t j = 0; j < TYPES; j++)
		wc[j] = true_wc[j];
	wc[6] = 5e-8; /* below eps_w_cost = 1e-7 s */
	struct data *d = malloc(sizeof(*d));
	assert_non_null(d);
	make_data(d, wc, 2e-3, true_wl, 0.01, 0.0, 3);
	struct core_qm_params p = core_qm_params_default(CORE_QM_BATON);
	struct core_qm_level lv;
	fit(d, UINT64_MAX, &p, &lv);
	assert_int_equal(lv.cost.kept, 0xBBu);
	for (size_t j = 0; j < TYPES; j++)
		if (lv.cost.kept >> j & 1u)
			assert_true(lv.cost.weight[j] >= p.eps_w_cost);
		else
			assert_near(lv.cost.weight[j], 0.0, 0.0);
	free(d);
}

/* With an intercept in the truth, the paper's model (none) must push it
 * into the weights and predicts worse; Baton mode fits it. Paper-mode
 * weights can go negative, and its fine filter drops those. */
static void paper_mode_against_baton_mode(void **state)
{
	struct data *d = malloc(sizeof(*d));
	assert_non_null(d);
	make_data(d, true_wc, 4e-3, true_wl, 0.05, 0.01, 4);
	struct core_qm_level paper, baton;
	struct core_qm_params pp = core_qm_params_default(CORE_QM_PAPER);
	struct core_qm_params pb = core_qm_params_default(CORE_QM_BATON);
	fit(d, UINT64_MAX, &pp, &paper);
	fit(d, UINT64_MAX, &pb, &baton);
	assert_near(paper.cost.intercept, 0.0, 0.0);
	for (size_t j = 0; j < TYPES; j++)
		if (paper.cost.kept >> j & 1u) {
			assert_true(paper.cost.weight[j] >= pp.eps_w_cost ||
			            paper.benefit.weight[j] >= 0.0);
		}
	double pc[ROWS], bc[ROWS];
	for (size_t i = 0; i < ROWS; i++) {
		pc[i] = core_qm_cost(&paper, d->counts + i * TYPES);
		bc[i] = core_qm_cost(&baton, d->counts + i * TYPES);
	}
	struct core_qm_error ep, eb;
	core_qm_rel_error(pc, d->cost, ROWS, &ep);
	core_qm_rel_error(bc, d->cost, ROWS, &eb);
	assert_true(eb.l1 < 0.015);
	assert_true(ep.l1 > 2.0 * eb.l1);
	/* paper mode, no intercept, exact cost data: OLS recovers the cost
	 * weights of the kept types, and the type with a zero cost weight is
	 * dropped (§4.3). Its benefit is fitted on SSIM itself, so with no
	 * intercept those weights absorb the constant 1 and mean little. */
	make_data(d, true_wc, 0.0, true_wl, 0.0, 0.0, 5);
	fit(d, UINT64_MAX, &pp, &paper);
	assert_int_equal(paper.cost.kept & 0x04u, 0u);
	assert_int_equal(paper.cost.kept, paper.benefit.kept);
	for (size_t j = 0; j < TYPES; j++)
		if (paper.cost.kept >> j & 1u)
			assert_near(paper.cost.weight[j], true_wc[j], 1e-12);
	free(d);
}

static void estimation_and_clamps(void **state)
{
	struct core_qm_level lv = {.mode = CORE_QM_BATON, .n_types = 3};
	lv.cost = (struct core_qm_linear){
	    .intercept = 0.001, .weight = {1e-4, 2e-4, 9.0}, .kept = 0x3};
	lv.benefit = (struct core_qm_linear){
	    .intercept = 0.01, .weight = {0.1, 0.0, 0.0}, .kept = 0x1};
	const double g[3] = {2.0, 3.0, 100.0};
	assert_near(core_qm_cost(&lv, g), 0.001 + 2e-4 + 6e-4, 1e-15);
	assert_near(core_qm_benefit(&lv, g), 1.0 - 0.21, 1e-15);
	const double many[3] = {50.0, 0.0, 0.0};
	assert_near(core_qm_benefit(&lv, many), 0.0, 0.0);
	lv.mode = CORE_QM_PAPER;
	assert_near(core_qm_benefit(&lv, g), 0.21, 1e-15);
}

static void error_metrics(void **state)
{
	const double meas[4] = {1.0, 2.0, 0.0, 4.0};
	const double pred[4] = {1.1, 1.0, 5.0, 4.0};
	struct core_qm_error e;
	assert_int_equal(core_qm_rel_error(pred, meas, 4, &e), 3);
	assert_near(e.l1, (0.1 + 0.5 + 0.0) / 3.0, 1e-12);
	assert_near(e.l2, sqrt((0.01 + 0.25) / 3.0), 1e-12);
}

/* The best level: SSIM = 1 everywhere, so the loss keeps nothing and the
 * benefit is 1; the cost model is unaffected. */
static void best_level_has_benefit_one(void **state)
{
	const double zero[TYPES] = {0};
	struct data *d = malloc(sizeof(*d));
	assert_non_null(d);
	make_data(d, true_wc, 2e-3, zero, 0.0, 0.0, 6);
	struct core_qm_params p = core_qm_params_default(CORE_QM_BATON);
	struct core_qm_level lv;
	fit(d, UINT64_MAX, &p, &lv);
	assert_int_equal(lv.benefit.kept, 0u);
	assert_near(core_qm_benefit(&lv, d->counts), 1.0, 1e-12);
	assert_int_equal(lv.cost.kept, 0xFBu);
	free(d);
}

/* Online: the cost doubles halfway; with lambda = 0.99 (a ~100-frame
 * memory) the refit follows the new weights, with 1 it averages them. */
static void online_refit_follows_drift(void **state)
{
	struct data *d = malloc(sizeof(*d));
	assert_non_null(d);
	double wc2[TYPES];
	for (size_t j = 0; j < TYPES; j++)
		wc2[j] = 2.0 * true_wc[j];
	struct core_qm_gram fast, slow;
	core_qm_gram_init(&fast, TYPES);
	core_qm_gram_init(&slow, TYPES);
	for (int half = 0; half < 2; half++) {
		make_data(d, half ? wc2 : true_wc, 2e-3, true_wl, 0.01, 0.0,
		          7 + (uint64_t)half);
		for (size_t i = 0; i < ROWS / 2; i++) {
			core_qm_gram_add(&fast, d->counts + i * TYPES,
			                 d->cost[i], d->ssim[i], 0.99);
			core_qm_gram_add(&slow, d->counts + i * TYPES,
			                 d->cost[i], d->ssim[i], 1.0);
		}
	}
	struct core_qm_params p = core_qm_params_default(CORE_QM_BATON);
	struct core_qm_level lf, ls;
	assert_true(core_qm_fit_gram(&fast, UINT64_MAX, &p, &work, &lf));
	assert_true(core_qm_fit_gram(&slow, UINT64_MAX, &p, &work, &ls));
	assert_near(lf.cost.weight[3], 2e-4, 1e-8);
	assert_true(ls.cost.weight[3] > 1.2e-4 && ls.cost.weight[3] < 1.8e-4);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(recovers_known_weights),
	    cmocka_unit_test(coarse_filter_drops_small_meshes),
	    cmocka_unit_test(fine_filter_refits_until_none_below),
	    cmocka_unit_test(paper_mode_against_baton_mode),
	    cmocka_unit_test(estimation_and_clamps),
	    cmocka_unit_test(error_metrics),
	    cmocka_unit_test(best_level_has_benefit_one),
	    cmocka_unit_test(online_refit_follows_drift),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
