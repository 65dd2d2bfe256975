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

/* The device-level commands this layer serves itself, or NULL. */
PFN_vkVoidFunction vk_device_intercept(const char *name);

/* Drops the layer state of the devices of an instance being destroyed that
 * the app never destroyed itself (the devices stay the app's). */
void vk_devices_forget(struct vk_instance *instance);
