/* Event heap of the discrete-event simulator: a binary min-heap ordered by
 * (time, sequence). The sequence number is assigned at push, so events at
 * the same instant pop in the order they were scheduled and a run is
 * deterministic. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim_event {
	int64_t t_ns;
	uint64_t seq;
	uint32_t kind;
	uint32_t target; /* tenant index, or whatever the kind means */
};

struct sim_heap {
	struct sim_event *v;
	size_t n;
	size_t cap;
	uint64_t next_seq;
};

bool sim_heap_init(struct sim_heap *h, size_t initial_cap);
void sim_heap_finish(struct sim_heap *h);
/* False only if growing the array failed. */
bool sim_heap_push(struct sim_heap *h, int64_t t_ns, uint32_t kind,
                   uint32_t target);
/* False when empty. */
bool sim_heap_pop(struct sim_heap *h, struct sim_event *out);
static inline size_t sim_heap_size(const struct sim_heap *h)
{
	return h->n;
}
/* The earliest event, left in place; NULL when empty. */
static inline const struct sim_event *sim_heap_top(const struct sim_heap *h)
{
	return h->n ? &h->v[0] : NULL;
}
/* Pops the earliest event and pushes a new one (with the next sequence
 * number) in one sift, the same heap as sim_heap_pop + sim_heap_push. The
 * heap must not be empty. */
void sim_heap_replace_top(struct sim_heap *h, int64_t t_ns, uint32_t kind,
                          uint32_t target);
