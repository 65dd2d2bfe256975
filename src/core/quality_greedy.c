/* dJay's greedy optimizer (§6.1 full_assign, §6.2 epoch step, §6.3 joins),
 * with the corrections of docs/papers.md ("dJay") and Baton's
 * guards: candidates with no benefit gain are dropped, a gain at no
 * extra cost ranks first (u = +inf), ties go to the larger benefit gain,
 * then the lower session, then the lower level. A candidate that does not
 * fit is skipped and the walk goes on (classic greedy). */
#include <math.h>
#include <stdint.h>

#include "core/quality_common.h"
#include "core/quality_opt.h"

/* Candidates are made in (session, level) order, so the keys' last tie
 * break (index ascending) is the lower session, then the lower level. */
struct candidates {
	struct quality_key *key;
	uint32_t *sess, *level;
	double *db, *dc;
};

/* Best first: u descending (ascending for downgrades: k1 = -u), then the
 * larger benefit gain (the smaller loss), then the index. */
static void add_key(struct candidates *c, size_t m, double u, bool ascending)
{
	c->key[m] = (struct quality_key){
	    .k1 = ascending ? -u : u, .k2 = c->db[m], .idx = (uint32_t)m};
}

static struct candidates carve_candidates(void *workspace, size_t n)
{
	unsigned char *cur = workspace;
	size_t m = n * QUALITY_MAX_LEVELS;
	struct candidates c = {0};
	c.key = quality_carve(&cur, m, sizeof(struct quality_key));
	c.db = quality_carve(&cur, m, sizeof(double));
	c.dc = quality_carve(&cur, m, sizeof(double));
	c.sess = quality_carve(&cur, m, sizeof(uint32_t));
	c.level = quality_carve(&cur, m, sizeof(uint32_t));
	return c;
}

static double wcost(const struct quality_item *it, unsigned r)
{
	return it->weight * it->cost[r];
}

/* Whether a cost step dc fits the residual R (Eq. 2 after the step). */
static bool step_fits(const struct quality_params *p, double dc, double R)
{
	return p->strict ? dc < R : dc <= R;
}

static unsigned cheapest(const struct quality_item *it)
{
	unsigned q = 0;
	for (unsigned r = 1; r < it->n_levels; r++)
		if (wcost(it, r) < wcost(it, q))
			q = r;
	return q;
}

enum quality_status quality_full_assign(const struct quality_item *items,
                                        size_t n,
                                        const struct quality_params *p,
                                        unsigned *levels, void *workspace)
{
	struct candidates c = carve_candidates(workspace, n);
	double total = 0.0;
	for (size_t s = 0; s < n; s++) {
		levels[s] = cheapest(&items[s]);
		total += wcost(&items[s], levels[s]);
	}
	if (!quality_fits(p, total))
		return QUALITY_INFEASIBLE; /* §6.3/§10: all stay lowest */
	double R = p->budget - total;
	size_t m = 0;
	for (size_t s = 0; s < n; s++) {
		const struct quality_item *it = &items[s];
		unsigned q = levels[s];
		for (unsigned r = 0; r < it->n_levels; r++) {
			double db = it->benefit[r] - it->benefit[q];
			double dc = wcost(it, r) - wcost(it, q);
			if (r == q || !(db > 0.0))
				continue;
			c.sess[m] = (uint32_t)s;
			c.level[m] = r;
			c.db[m] = db;
			c.dc[m] = dc;
			add_key(&c, m, dc <= 0.0 ? INFINITY : db / dc, false);
			m++;
		}
	}
	quality_sort(c.key, m);
	/* A session is picked once its level moved off the cheapest; the
	 * cheapest is unique per session, so levels[s] != q marks it. */
	for (size_t k = 0; k < m; k++) {
		uint32_t i = c.key[k].idx;
		uint32_t s = c.sess[i];
		if (levels[s] != cheapest(&items[s]))
			continue;
		if (step_fits(p, c.dc[i], R)) {
			levels[s] = c.level[i];
			R -= c.dc[i];
		}
	}
	return QUALITY_OK;
}

static bool residual_ok(const struct quality_params *p, double R)
{
	return p->strict ? R > 0.0 : R >= 0.0;
}

struct quality_step_result quality_epoch_step(const struct quality_item *items,
                                              size_t n,
                                              const struct quality_params *p,
                                              unsigned *levels, void *workspace)
{
	struct candidates c = carve_candidates(workspace, n);
	struct quality_step_result res = {0};
	double R = p->budget - quality_total_cost(items, n, levels);
	/* Strict Eq. 2 counts R == 0 as over (spec [ours]). */
	bool down = !residual_ok(p, R);
	if (!down && !(R > 0.0))
		return res; /* exactly at a '<=' budget: nothing to do */
	size_t m = 0;
	for (size_t s = 0; s < n; s++) {
		const struct quality_item *it = &items[s];
		unsigned a = levels[s];
		if (down ? a == 0 : a + 1 >= it->n_levels)
			continue;
		unsigned r = down ? a - 1 : a + 1;
		double db = it->benefit[r] - it->benefit[a];
		double dc = wcost(it, r) - wcost(it, a);
		if (!down && !(db > 0.0))
			continue;
		c.sess[m] = (uint32_t)s;
		c.level[m] = r;
		c.db[m] = db;
		c.dc[m] = dc;
		/* a downgrade that saves nothing goes last, and is skipped */
		if (down)
			add_key(&c, m, dc < 0.0 ? db / dc : INFINITY, true);
		else
			add_key(&c, m, dc <= 0.0 ? INFINITY : db / dc, false);
		m++;
	}
	quality_sort(c.key, m);
	for (size_t k = 0; k < m; k++) {
		uint32_t i = c.key[k].idx;
		if (down) {
			if (residual_ok(p, R))
				break;
			if (!(c.dc[i] < 0.0))
				continue;
		} else if (!step_fits(p, c.dc[i], R)) {
			continue;
		}
		levels[c.sess[i]] = c.level[i];
		R -= c.dc[i];
		res.changed++;
	}
	/* may stay over budget: left to Warning / Critical (§6.2) */
	res.over_budget = !residual_ok(p, R);
	return res;
}

enum quality_join_result quality_join(const struct quality_item *items,
                                      size_t n, size_t j,
                                      const struct quality_params *p,
                                      unsigned *levels, void *workspace)
{
	double others = 0.0, lowest = 0.0;
	for (size_t s = 0; s < n; s++) {
		lowest += wcost(&items[s], cheapest(&items[s]));
		if (s != j)
			others += wcost(&items[s], levels[s]);
	}
	double R = p->budget - others;
	/* the highest level that fits the residual, maybe skipping levels */
	for (unsigned r = items[j].n_levels; r-- > 0;) {
		if (step_fits(p, wcost(&items[j], r), R)) {
			levels[j] = r;
			return QUALITY_JOIN_PLACED;
		}
	}
	if (!quality_fits(p, lowest)) {
		levels[j] = 0; /* admission failure: the others keep theirs */
		return QUALITY_JOIN_REFUSED;
	}
	quality_reassign(items, n, p, levels, workspace);
	return QUALITY_JOIN_REASSIGNED;
}
