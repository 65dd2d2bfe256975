/* Bucketed GPU lists of the fleet simulator (sim_fleet_index.h). */
#include "sim/fleet/sim_fleet_index.h"

#include <stdlib.h>

bool fleet_index_init(struct fleet_index *ix, uint32_t n_gpus,
                      uint32_t n_buckets)
{
	size_t words = ((size_t)n_buckets + 63) / 64;
	*ix = (struct fleet_index){.n_buckets = n_buckets};
	ix->head = malloc((size_t)n_buckets * sizeof(*ix->head));
	ix->next = malloc((size_t)n_gpus * sizeof(*ix->next));
	ix->prev = malloc((size_t)n_gpus * sizeof(*ix->prev));
	ix->bucket = malloc((size_t)n_gpus * sizeof(*ix->bucket));
	ix->bits = calloc(words, sizeof(*ix->bits));
	if (!ix->head || !ix->next || !ix->prev || !ix->bucket || !ix->bits) {
		fleet_index_free(ix);
		return false;
	}
	for (uint32_t b = 0; b < n_buckets; b++)
		ix->head[b] = FLEET_NONE;
	for (uint32_t g = 0; g < n_gpus; g++)
		ix->bucket[g] = FLEET_NONE;
	return true;
}

void fleet_index_free(struct fleet_index *ix)
{
	free(ix->head);
	free(ix->next);
	free(ix->prev);
	free(ix->bucket);
	free(ix->bits);
	*ix = (struct fleet_index){0};
}

void fleet_index_put(struct fleet_index *ix, uint32_t g, uint32_t b)
{
	uint32_t h = ix->head[b];
	ix->next[g] = h;
	ix->prev[g] = FLEET_NONE;
	if (h != FLEET_NONE)
		ix->prev[h] = g;
	ix->head[b] = g;
	ix->bucket[g] = b;
	ix->bits[b / 64] |= 1ull << (b % 64);
}

void fleet_index_remove(struct fleet_index *ix, uint32_t g)
{
	uint32_t b = ix->bucket[g];
	if (b == FLEET_NONE)
		return;
	uint32_t n = ix->next[g], p = ix->prev[g];
	if (p != FLEET_NONE)
		ix->next[p] = n;
	else
		ix->head[b] = n;
	if (n != FLEET_NONE)
		ix->prev[n] = p;
	ix->bucket[g] = FLEET_NONE;
	if (ix->head[b] == FLEET_NONE)
		ix->bits[b / 64] &= ~(1ull << (b % 64));
}

uint32_t fleet_index_at_or_below(const struct fleet_index *ix, uint32_t b)
{
	if (b >= ix->n_buckets)
		b = ix->n_buckets - 1;
	uint32_t w = b / 64;
	/* bits 0..b%64 of the first word */
	uint64_t m = ix->bits[w] & (~0ull >> (63 - b % 64));
	for (;;) {
		if (m)
			return w * 64 + 63 - (uint32_t)__builtin_clzll(m);
		if (w == 0)
			return FLEET_NONE;
		m = ix->bits[--w];
	}
}

uint32_t fleet_index_at_or_above(const struct fleet_index *ix, uint32_t b)
{
	uint32_t words = (ix->n_buckets + 63) / 64;
	if (b >= ix->n_buckets)
		return FLEET_NONE;
	uint32_t w = b / 64;
	uint64_t m = ix->bits[w] & (~0ull << (b % 64));
	for (;;) {
		if (m) {
			uint32_t r = w * 64 + (uint32_t)__builtin_ctzll(m);
			return r < ix->n_buckets ? r : FLEET_NONE;
		}
		if (++w >= words)
			return FLEET_NONE;
		m = ix->bits[w];
	}
}
