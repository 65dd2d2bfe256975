/* Helpers the quality optimizer's files share, and its small public
 * functions: parameters, totals, the budget test, the workspace size. */
#include "core/quality_common.h"
#include "core/quality_opt.h"

struct quality_params quality_params_default(void)
{
	return (struct quality_params){
	    .budget = 1.0,
	    .strict = false,
	    .exact_reassign = true,
	    .warn_epochs = 201, /* "more than 200 epochs" (§6.2) */
	    .critical_epochs = 1,
	    .critical_ratio = 40.0 / 33.0,
	};
}

struct quality_params quality_params_djay(void)
{
	struct quality_params p = quality_params_default();
	p.budget = 33.0;
	p.strict = true;
	p.exact_reassign = false;
	return p;
}

/* The largest of the solvers' needs (quality_opt.c's and
 * quality_greedy.c's carvings), per session: 8 sort keys, 8 levels x 3
 * doubles, 7
 * increments x 3 doubles, a handful of per-session doubles and indices. */
size_t quality_workspace_size(size_t n)
{
	size_t per = QUALITY_MAX_LEVELS * sizeof(struct quality_key) +
	             QUALITY_MAX_LEVELS * 3 * sizeof(double) +
	             (QUALITY_MAX_LEVELS - 1) * 4 * sizeof(double) +
	             8 * sizeof(double) +
	             (QUALITY_MAX_LEVELS * 3 + 12) * sizeof(uint32_t);
	return (n + 2) * per + 16 * 8 + quality_pareto_bytes(n);
}

double quality_total_cost(const struct quality_item *items, size_t n,
                          const unsigned *levels)
{
	double t = 0.0;
	for (size_t s = 0; s < n; s++)
		t += items[s].weight * items[s].cost[levels[s]];
	return t;
}

double quality_total_benefit(const struct quality_item *items, size_t n,
                             const unsigned *levels)
{
	double t = 0.0;
	for (size_t s = 0; s < n; s++)
		t += items[s].benefit[levels[s]];
	return t;
}

bool quality_fits(const struct quality_params *p, double total)
{
	return p->strict ? total < p->budget : total <= p->budget;
}

enum quality_status quality_reassign(const struct quality_item *items, size_t n,
                                     const struct quality_params *p,
                                     unsigned *levels, void *workspace)
{
	if (p->exact_reassign)
		return quality_exact(items, n, p, levels, workspace);
	return quality_full_assign(items, n, p, levels, workspace);
}

void *quality_carve(unsigned char **cursor, size_t count, size_t size)
{
	void *out = *cursor;
	size_t bytes = (count * size + 7u) & ~(size_t)7u;
	*cursor += bytes;
	return out;
}

static inline bool goes_before(const struct quality_key *a,
                               const struct quality_key *b)
{
	if (a->k1 != b->k1)
		return a->k1 > b->k1;
	if (a->k2 != b->k2)
		return a->k2 > b->k2;
	return a->idx < b->idx;
}

static void sift_down(struct quality_key *k, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		/* a heap of "goes later" so the sort comes out in order */
		if (child + 1 < n && goes_before(&k[child], &k[child + 1]))
			child++;
		if (!goes_before(&k[root], &k[child]))
			return;
		struct quality_key t = k[root];
		k[root] = k[child];
		k[child] = t;
		root = child;
	}
}

void quality_sort(struct quality_key *keys, size_t n)
{
	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(keys, i, n);
	for (size_t end = n - 1; end > 0; end--) {
		struct quality_key t = keys[0];
		keys[0] = keys[end];
		keys[end] = t;
		sift_down(keys, 0, end);
	}
}
