/* VK_LAYER_BATON_pacing: the Vulkan front-end of the shim. An implicit layer
 * that paces and measures frames at vkQueuePresentKHR and passes everything
 * else straight down the chain.
 *
 * Layer state lives in two vk_map tables keyed by loader dispatch pointers:
 * instances (also found from their physical devices) and devices (also found
 * from their queues, which is all the present path needs).
 */
#pragma once

#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>

#include "shim/vulkan/map.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct fence_timer;

struct vk_instance {
	VkInstance handle;
	PFN_vkGetInstanceProcAddr next_gipa;
	PFN_vkDestroyInstance next_destroy;
	/* The name under which the app may call GetPhysicalDeviceProperties2
	 * on this instance (core in a 1.1 instance, else its KHR
	 * extension if it enabled it), NULL: neither. */
	const char *props2;
	/* The device the game may see (device_select.c): select when
	 * BATON_VK_DEVICE_UUID named one. */
	bool select;
	uint8_t select_uuid[VK_UUID_SIZE];
	/* The next layer's vkGetPhysicalDeviceMemoryProperties2 under its
	 * core and its KHR name, NULL where the instance lacks it; looked
	 * up only under a video-memory limit (vram.c). */
	PFN_vkGetPhysicalDeviceMemoryProperties2 next_mem_props2;
	PFN_vkGetPhysicalDeviceMemoryProperties2KHR next_mem_props2_khr;
	PFN_vkEnumerateDeviceExtensionProperties next_enum_dev_ext;
	/* Which physical devices' drivers have VK_EXT_memory_budget
	 * themselves (vram_budget_ext.c). */
	pthread_mutex_t budget_lock;
	struct {
		VkPhysicalDevice gpu;
		bool has;
	} budget_ext[8];
};

/* A device's video-memory accounting under BATON_VRAM_LIMIT (vram.c);
 * all zero without a limit. */
struct vk_vram {
	PFN_vkAllocateMemory next_alloc;
	PFN_vkFreeMemory next_free;
	uintptr_t key;          /* the device's dispatch key */
	uint32_t counted_types; /* bit i: memory type i is on a
	                           device-local heap */
	uint32_t type_heap[VK_MAX_MEMORY_TYPES];
};

struct vk_device {
	VkDevice handle;
	struct vk_instance *instance; /* NULL if its instance is unknown */
	PFN_vkGetDeviceProcAddr next_gdpa;
	PFN_vkDestroyDevice next_destroy;
	/* NULL unless the device enabled VK_KHR_swapchain. */
	PFN_vkQueuePresentKHR next_present;
	/* NULL when the device cannot be measured; it is still paced. */
	struct fence_timer *timer;
	/* The shim did not take this device's last present (see present.c). */
	_Atomic(bool) shim_idle;
	struct vk_vram vram;
};

extern struct vk_map vk_instances;
extern struct vk_map vk_devices;

/* The intercepts. Their names carry a prefix so that the library never
 * exports, or binds to, the loader's own vk* symbols. */
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
baton_GetInstanceProcAddr(VkInstance instance, const char *name);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
baton_GetDeviceProcAddr(VkDevice device, const char *name);
VKAPI_ATTR VkResult VKAPI_CALL
baton_CreateDevice(VkPhysicalDevice gpu, const VkDeviceCreateInfo *info,
                   const VkAllocationCallbacks *alloc, VkDevice *out);
VKAPI_ATTR VkResult VKAPI_CALL
baton_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info);

/* The video-memory limit (vram.c). vk_vram_limit is BATON_VRAM_LIMIT in
 * bytes, 0 without one; the hooks below are handed out only with one. */
uint64_t vk_vram_limit(void);
void vk_vram_instance_setup(struct vk_instance *inst);
/* The device selection (device_select.c): BATON_VK_DEVICE_UUID read at
 * vkCreateInstance, and the enumerations that hide other devices. */
void vk_select_instance_setup(struct vk_instance *inst);
VKAPI_ATTR VkResult VKAPI_CALL baton_EnumeratePhysicalDevices(
    VkInstance instance, uint32_t *count, VkPhysicalDevice *out);
VKAPI_ATTR VkResult VKAPI_CALL baton_EnumeratePhysicalDeviceGroups(
    VkInstance instance, uint32_t *count, VkPhysicalDeviceGroupProperties *out);
VKAPI_ATTR VkResult VKAPI_CALL baton_EnumeratePhysicalDeviceGroupsKHR(
    VkInstance instance, uint32_t *count, VkPhysicalDeviceGroupProperties *out);
void vk_vram_device_setup(struct vk_device *dev, PFN_vkGetInstanceProcAddr gipa,
                          PFN_vkGetDeviceProcAddr gdpa, VkPhysicalDevice gpu);
/* What a heap may hold under the limit (vram_table.h's vram_budget_heap)
 * and what the process holds on it. */
uint64_t vk_vram_heap_budget(uint32_t heap, uint64_t driver_budget);
uint64_t vk_vram_heap_used(uint32_t heap);
/* Gives back what a device being destroyed (or forgotten) still held. */
void vk_vram_device_forget(struct vk_device *dev);
/* VK_EXT_memory_budget where the driver lacks it (vram_budget_ext.c):
 * whether gpu's driver has it; the create info's extension list without
 * it where the driver lacks it (in *names, at most n entries; false when
 * nothing needs removing); the app's chained budget structure filled or
 * lowered. */
bool vk_budget_ext_native(struct vk_instance *inst, VkPhysicalDevice gpu);
bool vk_budget_ext_strip(struct vk_instance *inst, VkPhysicalDevice gpu,
                         const VkDeviceCreateInfo *info, const char **names,
                         uint32_t n, uint32_t *count);
void vk_budget_ext_report(struct vk_instance *inst, VkPhysicalDevice gpu,
                          VkPhysicalDeviceMemoryProperties2 *p,
                          PFN_vkGetPhysicalDeviceMemoryProperties2 next);
PFN_vkVoidFunction vk_budget_ext_intercept(struct vk_instance *inst,
                                           const char *name);

/* vkAllocateMemory and vkFreeMemory, or NULL. */
PFN_vkVoidFunction vk_vram_device_intercept(const char *name);
/* vkGetPhysicalDeviceMemoryProperties2 (or its KHR alias) where the
 * instance has it, or NULL. */
PFN_vkVoidFunction vk_vram_instance_intercept(struct vk_instance *inst,
                                              const char *name);

/* The device-level commands this layer serves itself, or NULL. */
PFN_vkVoidFunction vk_device_intercept(const char *name);

/* Drops the layer state of the devices of an instance being destroyed that
 * the app never destroyed itself (the devices stay the app's). */
void vk_devices_forget(struct vk_instance *instance);
