#include "shim/vulkan/vram_table.h"

#include <stdlib.h>

#define MASK (VRAM_TABLE_SLOTS - 1)

/* splitmix64's finalizer: handles are pointers or small counters, and
 * either way their low bits alone would crowd a few slots. */
static uint32_t slot_of(uintptr_t owner, uint64_t handle)
{
	uint64_t x = handle ^ ((uint64_t)owner * 0x9e3779b97f4a7c15ull);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(x ^ (x >> 31)) & MASK;
}

/* The slot holding (owner, handle), or the free slot ending its probe. */
static uint32_t find(const struct vram_table *t, uintptr_t owner,
                     uint64_t handle)
{
	uint32_t i = slot_of(owner, handle);
	while (t->slot[i].owner &&
	       (t->slot[i].owner != owner || t->slot[i].handle != handle))
		i = (i + 1) & MASK;
	return i;
}

bool vram_table_add(struct vram_table *t, uintptr_t owner, uint64_t handle,
                    uint64_t size, uint32_t heap)
{
	if (!owner || !handle)
		return false;
	bool ok = false;
	pthread_mutex_lock(&t->lock);
	if (!t->slot)
		t->slot = calloc(VRAM_TABLE_SLOTS, sizeof(*t->slot));
	if (t->slot && t->count < VRAM_TABLE_MAX) {
		uint32_t i = find(t, owner, handle);
		if (!t->slot[i].owner) {
			t->slot[i] =
			    (struct vram_entry){owner, handle, size, heap};
			t->count++;
			ok = true;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return ok;
}

/* Empties slot i and moves later entries of its probe run back into the
 * gap (linear probing's deletion without tombstones), so that a table
 * that sees millions of allocations and frees never fills with them. */
static void remove_at(struct vram_table *t, uint32_t i)
{
	uint32_t gap = i;
	for (uint32_t j = (i + 1) & MASK; t->slot[j].owner;
	     j = (j + 1) & MASK) {
		uint32_t home = slot_of(t->slot[j].owner, t->slot[j].handle);
		/* j may move to the gap unless its home lies in (gap, j]. */
		bool stays = gap <= j ? (home > gap && home <= j)
		                      : (home > gap || home <= j);
		if (stays)
			continue;
		t->slot[gap] = t->slot[j];
		gap = j;
	}
	t->slot[gap].owner = 0;
	t->count--;
}

bool vram_table_take(struct vram_table *t, uintptr_t owner, uint64_t handle,
                     uint64_t *size, uint32_t *heap)
{
	if (!owner || !handle)
		return false;
	bool ok = false;
	pthread_mutex_lock(&t->lock);
	if (t->slot) {
		uint32_t i = find(t, owner, handle);
		if (t->slot[i].owner) {
			*size = t->slot[i].size;
			*heap = t->slot[i].heap;
			remove_at(t, i);
			ok = true;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return ok;
}

void vram_table_drop_owner(struct vram_table *t, uintptr_t owner,
                           void (*each)(uint64_t, uint32_t, void *), void *ctx)
{
	pthread_mutex_lock(&t->lock);
	for (uint32_t i = 0; t->slot && i < VRAM_TABLE_SLOTS; i++) {
		/* A removal may shift a later entry into slot i: look again. */
		while (t->slot[i].owner == owner) {
			each(t->slot[i].size, t->slot[i].heap, ctx);
			remove_at(t, i);
		}
	}
	pthread_mutex_unlock(&t->lock);
}

bool vram_budget_reserve(struct vram_budget *b, uint32_t heap, uint64_t size)
{
	if (heap >= VRAM_HEAPS)
		return false;
	uint64_t used = atomic_load(&b->used);
	do {
		if (size > b->limit || used > b->limit - size)
			return false;
	} while (!atomic_compare_exchange_weak(&b->used, &used, used + size));
	atomic_fetch_add(&b->heap_used[heap], size);
	return true;
}

void vram_budget_release(struct vram_budget *b, uint32_t heap, uint64_t size)
{
	if (heap >= VRAM_HEAPS)
		return;
	atomic_fetch_sub(&b->heap_used[heap], size);
	atomic_fetch_sub(&b->used, size);
}

uint64_t vram_budget_heap(struct vram_budget *b, uint32_t heap,
                          uint64_t driver_budget)
{
	if (heap >= VRAM_HEAPS)
		return driver_budget;
	uint64_t used = atomic_load(&b->used);
	uint64_t mine = atomic_load(&b->heap_used[heap]);
	/* Read apart, the two may disagree for a moment: never wrap. */
	uint64_t others = used > mine ? used - mine : 0;
	uint64_t left = b->limit > others ? b->limit - others : 0;
	return left < driver_budget ? left : driver_budget;
}
