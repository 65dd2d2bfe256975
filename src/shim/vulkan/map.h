/* The layer's table from a dispatchable Vulkan handle to its layer state.
 *
 * Layers cannot wrap handles cheaply, so they key their state by the loader
 * dispatch pointer stored in the first word of every dispatchable object: a
 * VkQueue carries its VkDevice's pointer and a VkPhysicalDevice its
 * VkInstance's, so one lookup from a queue finds the device's state.
 *
 * Lookups run on the present path and take no lock: a fixed array of slots
 * whose keys are published with release stores. Inserts and removals happen
 * at create/destroy time under a mutex. Removal never frees anything the
 * table still points to; the caller frees the value it gets back, which is
 * safe because Vulkan forbids using a handle while it is being destroyed.
 * The capacity is fixed so that a reader never sees the array move; a slot
 * is reserved before the object is created, so a full table surfaces as a
 * clean VK_ERROR_OUT_OF_HOST_MEMORY instead of an object we cannot serve.
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define VK_MAP_SLOTS 256

struct vk_map_slot {
	_Atomic(uintptr_t) key; /* 0: free, VK_MAP_RESERVED, or a key */
	_Atomic(void *) value;
};

struct vk_map {
	pthread_mutex_t lock;
	_Atomic(uint32_t) used; /* slots [0, used) have ever been handed out */
	struct vk_map_slot slot[VK_MAP_SLOTS];
};

#define VK_MAP_INIT                                                            \
	{                                                                      \
		.lock = PTHREAD_MUTEX_INITIALIZER                              \
	}

/* The loader dispatch pointer of a dispatchable handle. */
static inline uintptr_t vk_map_key(const void *handle)
{
	return (uintptr_t) * (void *const *)handle;
}

/* Reserves a slot for an object about to be created; -1 if the table is
 * full. Follow with vk_map_publish or vk_map_cancel. */
int vk_map_reserve(struct vk_map *map);
void vk_map_publish(struct vk_map *map, int index, uintptr_t key, void *value);
void vk_map_cancel(struct vk_map *map, int index);

/* Lock-free; NULL if the key is not in the table. */
void *vk_map_find(struct vk_map *map, uintptr_t key);

/* Removes the key and returns its value (NULL if absent). */
void *vk_map_remove(struct vk_map *map, uintptr_t key);

/* Removes and returns some value for which match(value, ctx) holds, or NULL
 * when none does. */
void *vk_map_remove_if(struct vk_map *map, bool (*match)(void *, void *),
                       void *ctx);
