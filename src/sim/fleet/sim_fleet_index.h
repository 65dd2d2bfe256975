/* The fleet's GPUs by bucket of a key (sessions held, or load): doubly
 * linked lists per bucket and a bitmap of the buckets that hold a GPU, so
 * that "the fullest GPU with room" and "the emptiest" cost a few word scans
 * however large the fleet (sim_fleet.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define FLEET_NONE UINT32_MAX

struct fleet_index {
	uint32_t n_buckets;
	uint32_t *head;   /* per bucket: its first GPU, FLEET_NONE if empty */
	uint32_t *next;   /* per GPU */
	uint32_t *prev;   /* per GPU */
	uint32_t *bucket; /* per GPU: FLEET_NONE while out of the index */
	uint64_t *bits;   /* bucket b non-empty: bit b % 64 of word b / 64 */
};

bool fleet_index_init(struct fleet_index *ix, uint32_t n_gpus,
                      uint32_t n_buckets);
void fleet_index_free(struct fleet_index *ix);
/* GPU g (out of the index) into bucket b, at its head. */
void fleet_index_put(struct fleet_index *ix, uint32_t g, uint32_t b);
/* GPU g out of its bucket (nothing if it is in none). */
void fleet_index_remove(struct fleet_index *ix, uint32_t g);
/* The highest non-empty bucket <= b, or FLEET_NONE. */
uint32_t fleet_index_at_or_below(const struct fleet_index *ix, uint32_t b);
/* The lowest non-empty bucket >= b (and < n_buckets), or FLEET_NONE. */
uint32_t fleet_index_at_or_above(const struct fleet_index *ix, uint32_t b);
