/* The exact multiple-choice knapsack (dJay Eq. 1-3, Baton's weighted
 * budget): maximise sum_s b_s(r_s) subject to sum_s w_s c_s(r_s) < or <= U.
 *
 * Why branch and bound on the Lagrangian bound, not a DP: costs are real
 * (GPU seconds), so a DP over capacity would have to round them and lose
 * exactness; a DP over benefit has the same problem. The LP relaxation of
 * an MCKP is solved by walking every session's upper convex hull
 * increments in decreasing slope (Sinha and Zoltners); its break slope
 * lambda gives the bound
 *     UB = lambda * R + sum_s max_r (b_s(r) - lambda w_s c_s(r)),
 * valid for any subproblem (weak duality) and O(1) to update as sessions
 * are fixed. Steps:
 *  1. infeasible if every session at its cheapest misses;
 *  2. hulls, increments sorted by slope: lambda, and a greedy incumbent
 *     (take each increment that fits, a session's later ones stop at its
 *     first that does not);
 *  3. reduction: level r of session s survives only if the bound with s
 *     fixed at r beats the incumbent; most sessions keep one level;
 *  4. over the sessions left, a DP on Pareto lists of (cost, benefit)
 *     partial sums pruned by the same bound (quality_pareto.c: Pisinger's
 *     idea; exact with real costs); if its lists outgrow the workspace,
 *     a depth-first search (levels in decreasing b - lambda c, so a failed
 *     bound ends the session's loop), pruning by the bound and by the
 *     cheapest completion's cost. On random 64 x 8 instances the DP cut
 *     the tail (p99 224 us -> ~400 us under load, max 5.9 ms -> 0.7 ms).
 * Improvements smaller than QUALITY_EPS in summed benefit are not sought
 * (rounding of the bound must not prune a true improvement). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/quality_common.h"
#include "core/quality_opt.h"

#define QUALITY_EPS 1e-9
#define L           QUALITY_MAX_LEVELS

struct exact_ws {
	struct quality_key *inc_key;
	double *wc, *score, *inc_dc, *inc_db, *inc_slope;
	double *sfx_best, *sfx_minc, *dfs_R, *dfs_B;
	uint32_t *inc_sess, *inc_to, *surv, *n_surv, *free_s;
	uint32_t *cur, *inc_lv, *pos, *blocked;
};

static struct exact_ws carve(void *workspace, size_t n, void **rest)
{
	unsigned char *c = workspace;
	struct exact_ws w;
	size_t m = n * (L - 1);
	w.inc_key = quality_carve(&c, m, sizeof(struct quality_key));
	w.wc = quality_carve(&c, n * L, sizeof(double));
	w.score = quality_carve(&c, n * L, sizeof(double));
	w.inc_dc = quality_carve(&c, m, sizeof(double));
	w.inc_db = quality_carve(&c, m, sizeof(double));
	w.inc_slope = quality_carve(&c, m, sizeof(double));
	w.sfx_best = quality_carve(&c, n + 1, sizeof(double));
	w.sfx_minc = quality_carve(&c, n + 1, sizeof(double));
	w.dfs_R = quality_carve(&c, n + 1, sizeof(double));
	w.dfs_B = quality_carve(&c, n + 1, sizeof(double));
	w.inc_sess = quality_carve(&c, m, sizeof(uint32_t));
	w.inc_to = quality_carve(&c, m, sizeof(uint32_t));
	w.surv = quality_carve(&c, n * L, sizeof(uint32_t));
	w.n_surv = quality_carve(&c, n, sizeof(uint32_t));
	w.free_s = quality_carve(&c, n, sizeof(uint32_t));
	w.cur = quality_carve(&c, n, sizeof(uint32_t));
	w.inc_lv = quality_carve(&c, n, sizeof(uint32_t));
	w.pos = quality_carve(&c, n + 1, sizeof(uint32_t));
	w.blocked = quality_carve(&c, n, sizeof(uint32_t));
	*rest = c;
	return w;
}

static bool residual_ok(const struct quality_params *p, double R)
{
	return p->strict ? R > 0.0 : R >= 0.0;
}

/* Session s's upper convex hull from its cheapest (best among equally
 * cheap) level; appends its increments at *m. Returns the start level. */
static unsigned hull(const struct quality_item *it, uint32_t s,
                     struct exact_ws *w, size_t *m)
{
	const double *wc = &w->wc[s * L];
	unsigned ord[L], k = it->n_levels;
	for (unsigned i = 0; i < k; i++) {
		unsigned j = i;
		/* insertion sort by cost, then larger benefit, then level */
		while (j > 0 && (wc[ord[j - 1]] > wc[i] ||
		                 (wc[ord[j - 1]] == wc[i] &&
		                  it->benefit[ord[j - 1]] < it->benefit[i]))) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = i;
	}
	unsigned h[L], nh = 0;
	for (unsigned i = 0; i < k; i++) {
		unsigned r = ord[i];
		if (nh > 0 && !(it->benefit[r] > it->benefit[h[nh - 1]]))
			continue; /* no gain over a cheaper point */
		while (nh >= 2) {
			unsigned a = h[nh - 2], b = h[nh - 1];
			double s1 =
			    (it->benefit[b] - it->benefit[a]) * (wc[r] - wc[b]);
			double s2 =
			    (it->benefit[r] - it->benefit[b]) * (wc[b] - wc[a]);
			if (s1 > s2)
				break; /* b is on the hull */
			nh--;
		}
		h[nh++] = r;
	}
	for (unsigned i = 1; i < nh; i++) {
		size_t e = (*m)++;
		w->inc_sess[e] = s;
		w->inc_to[e] = h[i];
		w->inc_dc[e] = wc[h[i]] - wc[h[i - 1]];
		w->inc_db[e] = it->benefit[h[i]] - it->benefit[h[i - 1]];
		w->inc_slope[e] = w->inc_db[e] / w->inc_dc[e];
		w->inc_key[e] = (struct quality_key){.k1 = w->inc_slope[e],
		                                     .idx = (uint32_t)e};
	}
	return h[0];
}

/* Steps 2: lambda (LP break slope) and the greedy incumbent. */
static double lp_and_incumbent(const struct quality_item *items, size_t n,
                               const struct quality_params *p,
                               struct exact_ws *w, double total_min,
                               double *incumbent)
{
	size_t m = 0;
	for (size_t s = 0; s < n; s++) {
		w->inc_lv[s] = hull(&items[s], (uint32_t)s, w, &m);
		w->blocked[s] = 0;
	}
	quality_sort(w->inc_key, m);
	double lambda = 0.0, R = p->budget - total_min, Rg = R;
	bool broke = false;
	for (size_t k = 0; k < m; k++) {
		uint32_t e = w->inc_key[k].idx;
		uint32_t s = w->inc_sess[e];
		if (!broke) {
			if (w->inc_dc[e] <= R)
				R -= w->inc_dc[e];
			else {
				lambda = w->inc_slope[e];
				broke = true;
			}
		}
		if (w->blocked[s])
			continue;
		if (residual_ok(p, Rg - w->inc_dc[e])) {
			w->inc_lv[s] = w->inc_to[e];
			Rg -= w->inc_dc[e];
		} else {
			w->blocked[s] = 1;
		}
	}
	*incumbent = quality_total_benefit(items, n, w->inc_lv);
	return lambda;
}

/* Step 4 over the nf free sessions; improves *inc and w->inc_lv. */
static void search(const struct quality_item *items, size_t n, size_t nf,
                   const struct quality_params *p, struct exact_ws *w,
                   double lambda, double *inc)
{
	size_t d = 0;
	w->pos[0] = 0;
	for (;;) {
		if (d == nf) {
			if (residual_ok(p, w->dfs_R[d]) &&
			    w->dfs_B[d] > *inc + QUALITY_EPS) {
				*inc = w->dfs_B[d];
				for (size_t s = 0; s < n; s++)
					w->inc_lv[s] = w->surv[s * L];
				for (size_t k = 0; k < nf; k++)
					w->inc_lv[w->free_s[k]] =
					    w->cur[w->free_s[k]];
			}
			if (d-- == 0)
				return;
			continue;
		}
		uint32_t s = w->free_s[d];
		if (w->pos[d] >= w->n_surv[s]) {
			if (d-- == 0)
				return;
			continue;
		}
		uint32_t r = w->surv[s * L + w->pos[d]++];
		double bound = w->dfs_B[d] + lambda * w->dfs_R[d] +
		               w->score[s * L + r] + w->sfx_best[d + 1];
		if (bound <= *inc + QUALITY_EPS) {
			w->pos[d] = w->n_surv[s]; /* later levels score less */
			continue;
		}
		double nR = w->dfs_R[d] - w->wc[s * L + r];
		if (!residual_ok(p, nR - w->sfx_minc[d + 1]))
			continue;
		w->cur[s] = r;
		w->dfs_R[d + 1] = nR;
		w->dfs_B[d + 1] = w->dfs_B[d] + items[s].benefit[r];
		w->pos[++d] = 0;
	}
}

/* Each session's weighted costs into w->wc and its cheapest level into
 * levels; returns the sum of the cheapest costs. */
static double cheapest_levels(const struct quality_item *items, size_t n,
                              struct exact_ws *w, unsigned *levels)
{
	double total_min = 0.0;
	for (size_t s = 0; s < n; s++) {
		unsigned q = 0;
		for (unsigned r = 0; r < items[s].n_levels; r++) {
			w->wc[s * L + r] = items[s].weight * items[s].cost[r];
			if (w->wc[s * L + r] < w->wc[s * L + q])
				q = r;
		}
		levels[s] = q;
		total_min += w->wc[s * L + q];
	}
	return total_min;
}

/* The Lagrangian scores b - lambda wc of every level into w->score, each
 * session's best into w->sfx_best; returns the Lagrangian bound. */
static double lagrangian_scores(const struct quality_item *items, size_t n,
                                const struct quality_params *p,
                                struct exact_ws *w, double lambda)
{
	double lsum = lambda * p->budget;
	for (size_t s = 0; s < n; s++) {
		double best = -INFINITY;
		for (unsigned r = 0; r < items[s].n_levels; r++) {
			double *sc = &w->score[s * L + r];
			*sc = items[s].benefit[r] - lambda * w->wc[s * L + r];
			best = fmax(best, *sc);
		}
		w->sfx_best[s] = best; /* per session for now */
		lsum += best;
	}
	return lsum;
}

/* Step 3, reduction: each session's levels that could still beat the
 * incumbent inc, by score descending; a session left with one is fixed,
 * its cost and benefit summed into *fixed_c and *fixed_b, the others
 * listed in w->free_s (*nf of them). false when some session has none:
 * the incumbent is optimal. */
static bool reduce(const struct quality_item *items, size_t n,
                   struct exact_ws *w, double lsum, double inc, size_t *nf,
                   double *fixed_c, double *fixed_b)
{
	*nf = 0;
	*fixed_c = *fixed_b = 0.0;
	for (size_t s = 0; s < n; s++) {
		uint32_t *sv = &w->surv[s * L], k = 0;
		const double *sc = &w->score[s * L];
		for (unsigned r = 0; r < items[s].n_levels; r++) {
			if (!(lsum - w->sfx_best[s] + sc[r] >
			      inc + QUALITY_EPS))
				continue;
			/* insertion by score descending, then level */
			uint32_t j = k++;
			while (j > 0 && sc[sv[j - 1]] < sc[r]) {
				sv[j] = sv[j - 1];
				j--;
			}
			sv[j] = r;
		}
		if (k == 0) /* no level can beat the incumbent */
			return false;
		w->n_surv[s] = k;
		if (k == 1) {
			*fixed_c += w->wc[s * L + sv[0]];
			*fixed_b += items[s].benefit[sv[0]];
		} else {
			w->free_s[(*nf)++] = (uint32_t)s;
		}
	}
	return true;
}

/* The search's bounds over the free sessions from d on: the best score
 * and the least cost of their survivors. */
static void suffix_bounds(struct exact_ws *w, size_t nf)
{
	w->sfx_best[nf] = 0.0;
	w->sfx_minc[nf] = 0.0;
	for (size_t d = nf; d-- > 0;) {
		uint32_t s = w->free_s[d];
		double minc = INFINITY;
		for (uint32_t i = 0; i < w->n_surv[s]; i++)
			minc = fmin(minc, w->wc[s * L + w->surv[s * L + i]]);
		/* the per-session bests are spent: from here on sfx_best is
		 * the suffix sum over free sessions, from the survivors */
		w->sfx_best[d] =
		    w->score[s * L + w->surv[s * L]] + w->sfx_best[d + 1];
		w->sfx_minc[d] = minc + w->sfx_minc[d + 1];
	}
}

enum quality_status quality_exact(const struct quality_item *items, size_t n,
                                  const struct quality_params *p,
                                  unsigned *levels, void *workspace)
{
	void *pareto_ws;
	struct exact_ws w = carve(workspace, n, &pareto_ws);
	double total_min = cheapest_levels(items, n, &w, levels);
	if (!quality_fits(p, total_min))
		return QUALITY_INFEASIBLE;

	double inc;
	double lambda = lp_and_incumbent(items, n, p, &w, total_min, &inc);
	double lsum = lagrangian_scores(items, n, p, &w, lambda);
	size_t nf;
	double fixed_c, fixed_b;
	if (!reduce(items, n, &w, lsum, inc, &nf, &fixed_c, &fixed_b)) {
		memcpy(levels, w.inc_lv, n * sizeof(*levels));
		return QUALITY_OK;
	}
	suffix_bounds(&w, nf);
	struct quality_pareto_in in = {
	    .n = n,
	    .nf = nf,
	    .strict = p->strict,
	    .lambda = lambda,
	    .eps = QUALITY_EPS,
	    .R0 = p->budget - fixed_c,
	    .B0 = fixed_b,
	    .free_s = w.free_s,
	    .surv = w.surv,
	    .n_surv = w.n_surv,
	    .wc = w.wc,
	    .score = w.score,
	    .sfx_best = w.sfx_best,
	    .sfx_minc = w.sfx_minc,
	    .items = items,
	};
	int found = quality_pareto_search(&in, pareto_ws, w.cur, &inc);
	if (found == 1) {
		for (size_t s = 0; s < n; s++)
			w.inc_lv[s] = w.surv[s * L];
		for (size_t k = 0; k < nf; k++)
			w.inc_lv[w.free_s[k]] = w.cur[w.free_s[k]];
	} else if (found < 0) {
		w.dfs_R[0] = in.R0;
		w.dfs_B[0] = fixed_b;
		search(items, n, nf, p, &w, lambda, &inc);
	}
	memcpy(levels, w.inc_lv, n * sizeof(*levels));
	return QUALITY_OK;
}
