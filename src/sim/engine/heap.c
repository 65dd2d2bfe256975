/* Binary min-heap of simulator events ordered by (time, sequence).
 *
 * Sift-up and sift-down move a hole instead of swapping, so each level costs
 * one copy. The array only grows (doubling), so a run allocates O(log n)
 * times in all and never per event. */
#include "sim/engine/heap.h"

#include <stdlib.h>

static inline bool before(const struct sim_event *a, const struct sim_event *b)
{
	return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->seq < b->seq);
}

bool sim_heap_init(struct sim_heap *h, size_t initial_cap)
{
	*h = (struct sim_heap){0};
	if (initial_cap < 16)
		initial_cap = 16;
	h->v = malloc(initial_cap * sizeof(*h->v));
	if (!h->v)
		return false;
	h->cap = initial_cap;
	return true;
}

void sim_heap_finish(struct sim_heap *h)
{
	free(h->v);
	*h = (struct sim_heap){0};
}

bool sim_heap_push(struct sim_heap *h, int64_t t_ns, uint32_t kind,
                   uint32_t target)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 16;
		struct sim_event *v = realloc(h->v, cap * sizeof(*v));
		if (!v)
			return false;
		h->v = v;
		h->cap = cap;
	}
	struct sim_event ev = {
	    .t_ns = t_ns, .seq = h->next_seq++, .kind = kind, .target = target};
	size_t i = h->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!before(&ev, &h->v[parent]))
			break;
		h->v[i] = h->v[parent];
		i = parent;
	}
	h->v[i] = ev;
	return true;
}

/* Fills the hole at the root with ev, moving it down to its place. */
static void sift_down(struct sim_heap *h, struct sim_event ev)
{
	size_t n = h->n, i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(&h->v[c + 1], &h->v[c]))
			c++;
		if (!before(&h->v[c], &ev))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	h->v[i] = ev;
}

bool sim_heap_pop(struct sim_heap *h, struct sim_event *out)
{
	if (h->n == 0)
		return false;
	*out = h->v[0];
	struct sim_event last = h->v[--h->n];
	if (h->n > 0)
		sift_down(h, last);
	return true;
}

void sim_heap_replace_top(struct sim_heap *h, int64_t t_ns, uint32_t kind,
                          uint32_t target)
{
	/* Both subtrees of the root are heaps, so sifting the new event down
	 * from the root places it, whatever its time. */
	struct sim_event ev = {
	    .t_ns = t_ns, .seq = h->next_seq++, .kind = kind, .target = target};
	sift_down(h, ev);
}
