/* The Vulkan layer's video-memory accounting under BATON_VRAM_LIMIT
 * (docs/shim.md, "Video memory limit"): what each live VkDeviceMemory
 * took, and the process's total on device-local heaps against the limit.
 * No Vulkan types, so that the unit tests need no driver.
 *
 * The table is bounded (VRAM_TABLE_MAX live allocations, a fixed array
 * allocated once) and guarded by one mutex: allocations are not on the
 * frame path, and a game makes at most a few thousand (drivers commonly
 * allow 4096, maxMemoryAllocationCount). The budget is lock-free: a
 * compare-and-swap reserves an allocation's bytes before the driver is
 * called, so two threads cannot both take the last of the limit. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Slots in the table; at most three quarters hold an entry, so that a
 * probe stays short. */
#define VRAM_TABLE_SLOTS 65536
#define VRAM_TABLE_MAX   (VRAM_TABLE_SLOTS / 4 * 3)
/* VK_MAX_MEMORY_HEAPS in vulkan_core.h. */
#define VRAM_HEAPS 16

struct vram_entry {
	uintptr_t owner; /* the VkDevice's dispatch key, 0: free slot */
	uint64_t handle; /* the VkDeviceMemory */
	uint64_t size;
	uint32_t heap;
};

struct vram_table {
	pthread_mutex_t lock;
	uint32_t count;
	struct vram_entry *slot; /* VRAM_TABLE_SLOTS, on first add */
};

#define VRAM_TABLE_INIT                                                        \
	{                                                                      \
		.lock = PTHREAD_MUTEX_INITIALIZER                              \
	}

/* Records handle's size and heap; false when the table is full, out of
 * memory, handle is 0 or already recorded for this owner. */
bool vram_table_add(struct vram_table *t, uintptr_t owner, uint64_t handle,
                    uint64_t size, uint32_t heap);
/* Removes handle's entry into *size and *heap; false (nothing changed)
 * for a handle never recorded, already taken, or 0. */
bool vram_table_take(struct vram_table *t, uintptr_t owner, uint64_t handle,
                     uint64_t *size, uint32_t *heap);
/* Removes every entry of owner, calling each(size, heap, ctx) for it. */
void vram_table_drop_owner(struct vram_table *t, uintptr_t owner,
                           void (*each)(uint64_t, uint32_t, void *), void *ctx);

struct vram_budget {
	uint64_t limit; /* bytes; 0: none */
	_Atomic(uint64_t) used;
	_Atomic(uint64_t) heap_used[VRAM_HEAPS];
};

/* Takes size bytes on heap if the total stays within the limit. */
bool vram_budget_reserve(struct vram_budget *b, uint32_t heap, uint64_t size);
void vram_budget_release(struct vram_budget *b, uint32_t heap, uint64_t size);
/* What heap may hold in all, its own use included (VK_EXT_memory_budget's
 * heapBudget): the limit less what the other heaps hold, and never more
 * than the driver's own figure. */
uint64_t vram_budget_heap(struct vram_budget *b, uint32_t heap,
                          uint64_t driver_budget);
