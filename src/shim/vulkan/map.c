#include "shim/vulkan/map.h"

#include <stddef.h>

/* Dispatch pointers are aligned, so 1 can never be a real key. */
#define VK_MAP_RESERVED ((uintptr_t)1)

int vk_map_reserve(struct vk_map *map)
{
	int index = -1;

	pthread_mutex_lock(&map->lock);
	uint32_t used = atomic_load_explicit(&map->used, memory_order_relaxed);
	for (uint32_t i = 0; i < used; i++) {
		if (atomic_load_explicit(&map->slot[i].key,
		                         memory_order_relaxed) == 0) {
			index = (int)i;
			break;
		}
	}
	if (index < 0 && used < VK_MAP_SLOTS) {
		index = (int)used;
		atomic_store_explicit(&map->used, used + 1,
		                      memory_order_release);
	}
	if (index >= 0)
		atomic_store_explicit(&map->slot[index].key, VK_MAP_RESERVED,
		                      memory_order_relaxed);
	pthread_mutex_unlock(&map->lock);
	return index;
}

void vk_map_publish(struct vk_map *map, int index, uintptr_t key, void *value)
{
	struct vk_map_slot *slot = &map->slot[index];

	/* Value first: a reader that sees the key must see its value. */
	atomic_store_explicit(&slot->value, value, memory_order_release);
	atomic_store_explicit(&slot->key, key, memory_order_release);
}

void vk_map_cancel(struct vk_map *map, int index)
{
	pthread_mutex_lock(&map->lock);
	atomic_store_explicit(&map->slot[index].key, 0, memory_order_release);
	pthread_mutex_unlock(&map->lock);
}

void *vk_map_find(struct vk_map *map, uintptr_t key)
{
	uint32_t used = atomic_load_explicit(&map->used, memory_order_acquire);

	for (uint32_t i = 0; i < used; i++) {
		struct vk_map_slot *slot = &map->slot[i];
		if (atomic_load_explicit(&slot->key, memory_order_acquire) ==
		    key)
			return atomic_load_explicit(&slot->value,
			                            memory_order_acquire);
	}
	return NULL;
}

/* Removes the first published entry that matches, under the lock: by key,
 * or by match(value, ctx) when match is given. */
static void *remove_locked(struct vk_map *map, uintptr_t key,
                           bool (*match)(void *, void *), void *ctx)
{
	uint32_t used = atomic_load_explicit(&map->used, memory_order_relaxed);

	for (uint32_t i = 0; i < used; i++) {
		struct vk_map_slot *slot = &map->slot[i];
		uintptr_t k =
		    atomic_load_explicit(&slot->key, memory_order_relaxed);
		if (k == 0 || k == VK_MAP_RESERVED)
			continue;
		void *value =
		    atomic_load_explicit(&slot->value, memory_order_relaxed);
		if (match ? !match(value, ctx) : k != key)
			continue;
		atomic_store_explicit(&slot->key, 0, memory_order_release);
		return value;
	}
	return NULL;
}

void *vk_map_remove(struct vk_map *map, uintptr_t key)
{
	pthread_mutex_lock(&map->lock);
	void *value = remove_locked(map, key, NULL, NULL);
	pthread_mutex_unlock(&map->lock);
	return value;
}

void *vk_map_remove_if(struct vk_map *map, bool (*match)(void *, void *),
                       void *ctx)
{
	pthread_mutex_lock(&map->lock);
	void *value = remove_locked(map, 0, match, ctx);
	pthread_mutex_unlock(&map->lock);
	return value;
}
