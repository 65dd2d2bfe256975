/* The exact solver's search over the sessions its reduction left free
 * (quality_opt.c step 4): a dynamic programme over sessions whose states
 * are (cost, benefit) partial sums, kept only when no other state is at
 * most as dear and at least as good (Pareto dominance: exact with real
 * costs, no rounding to a grid), and only while the Lagrangian bound
 *     state benefit + lambda * residual + sum of later best scores
 * beats the incumbent and the cheapest completion fits. Bounded lists
 * keep it in the caller's workspace; if a list outgrows it, the caller
 * falls back to its depth-first search (same optimum, slower). */
#include <math.h>

#include "core/quality_common.h"

struct state {
	double c, b;
	uint32_t parent, level;
};

size_t quality_pareto_stage_cap(size_t n)
{
	return 1024 + 64 * n;
}

size_t quality_pareto_bytes(size_t n)
{
	return 4 * quality_pareto_stage_cap(n) * sizeof(struct state) + 16;
}

static bool residual_ok(bool strict, double R)
{
	return strict ? R > 0.0 : R >= 0.0;
}

/* One level's list: the previous stage's states plus level r, in the
 * previous stage's order (cost ascending); pruned states are skipped. */
struct list {
	size_t i;    /* next state of the previous stage */
	double c, b; /* its candidate, when i < hi */
};

static void advance(const struct quality_pareto_in *in, size_t d,
                    const struct state *st, size_t hi, uint32_t r, double inc,
                    struct list *l)
{
	uint32_t s = in->free_s[d];
	double wc = in->wc[s * QUALITY_MAX_LEVELS + r];
	double sc = in->score[s * QUALITY_MAX_LEVELS + r];
	for (; l->i < hi; l->i++) {
		const struct state *x = &st[l->i];
		double c = x->c + wc;
		if (!residual_ok(in->strict,
		                 in->R0 - c - in->sfx_minc[d + 1])) {
			l->i = hi; /* costs only rise along the list */
			return;
		}
		double bound = in->B0 + x->b + sc +
		               in->lambda * (in->R0 - x->c) +
		               in->sfx_best[d + 1];
		if (bound > inc + in->eps) {
			l->c = c;
			l->b = x->b + in->items[s].benefit[r];
			return;
		}
	}
}

int quality_pareto_search(const struct quality_pareto_in *in, void *ws,
                          uint32_t *cur, double *inc)
{
	size_t cap = quality_pareto_stage_cap(in->n);
	unsigned char *cursor = ws;
	struct state *st = quality_carve(&cursor, 4 * cap, sizeof(*st));
	size_t lo = 0, hi = 1, arena = 4 * cap;
	st[0] = (struct state){0};
	for (size_t d = 0; d < in->nf; d++) {
		uint32_t s = in->free_s[d];
		const uint32_t *sv = &in->surv[s * QUALITY_MAX_LEVELS];
		uint32_t ns = in->n_surv[s];
		struct list l[QUALITY_MAX_LEVELS];
		for (uint32_t k = 0; k < ns; k++) {
			l[k].i = lo;
			advance(in, d, st, hi, sv[k], *inc, &l[k]);
		}
		/* merge the lists by cost (then the larger benefit, then the
		 * earlier list), keeping only states that gain benefit */
		size_t base = hi;
		double last_b = -INFINITY;
		for (;;) {
			int bk = -1;
			for (uint32_t k = 0; k < ns; k++) {
				if (l[k].i >= base)
					continue;
				if (bk < 0 || l[k].c < l[bk].c ||
				    (l[k].c == l[bk].c && l[k].b > l[bk].b))
					bk = (int)k;
			}
			if (bk < 0)
				break;
			if (l[bk].b > last_b) {
				if (hi == arena || hi - base == cap)
					return -1;
				last_b = l[bk].b;
				st[hi++] =
				    (struct state){.c = l[bk].c,
				                   .b = l[bk].b,
				                   .parent = (uint32_t)l[bk].i,
				                   .level = sv[bk]};
			}
			l[bk].i++;
			advance(in, d, st, base, sv[bk], *inc, &l[bk]);
		}
		if (hi == base)
			return 0; /* nothing beats the incumbent */
		lo = base;
	}
	/* the last stage's best; benefits rise along a Pareto list */
	size_t best = hi - 1;
	if (in->nf == 0 || !(in->B0 + st[best].b > *inc + in->eps))
		return 0;
	*inc = in->B0 + st[best].b;
	for (size_t d = in->nf; d-- > 0;) {
		cur[in->free_s[d]] = st[best].level;
		best = st[best].parent;
	}
	return 1;
}
