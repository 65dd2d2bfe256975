/* The device half of the layer: vkGetDeviceProcAddr and the device's
 * lifetime, which also bounds its fence timer's. */
#include "shim/vulkan/layer.h"

#include "shim/shim.h"
#include "shim/vulkan/fence_timer.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct vk_map vk_devices = VK_MAP_INIT;

static VKAPI_ATTR void VKAPI_CALL
baton_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc);

static VkLayerDeviceCreateInfo *find_link(const VkDeviceCreateInfo *info)
{
	const VkBaseInStructure *s = info->pNext;

	for (; s; s = s->pNext) {
		VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)s;
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
		    link->function == VK_LAYER_LINK_INFO)
			return link;
	}
	return NULL;
}

/* Only devices that can present get a waiter thread; a compute-only device
 * would never feed it a fence. */
static bool enables_swapchain(const VkDeviceCreateInfo *info)
{
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
		if (strcmp(info->ppEnabledExtensionNames[i],
		           VK_KHR_SWAPCHAIN_EXTENSION_NAME) == 0)
			return true;
	return false;
}

/* lavapipe (VK_PHYSICAL_DEVICE_TYPE_CPU) draws on the CPU cores every
 * tenant shares: its frames' cost is CPU time, not the fence's latency. */
static void note_device_type(PFN_vkGetInstanceProcAddr gipa,
                             const struct vk_instance *inst,
                             VkPhysicalDevice gpu)
{
	VkInstance instance = inst->handle;
	PFN_vkGetPhysicalDeviceProperties props =
	    (PFN_vkGetPhysicalDeviceProperties)gipa(
	        instance, "vkGetPhysicalDeviceProperties");
	if (!props)
		return;
	VkPhysicalDeviceProperties p;
	props(gpu, &p);
	if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)
		shim_set_software_device(p.deviceName);
	/* Its UUID, for batond's GPU of that UUID (NVML's): only through a
	 * command the instance has (vk_instance.props2). */
	if (!inst->props2)
		return;
	PFN_vkGetPhysicalDeviceProperties2 props2 =
	    (PFN_vkGetPhysicalDeviceProperties2)gipa(instance, inst->props2);
	if (!props2)
		return;
	VkPhysicalDeviceIDProperties id = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
	VkPhysicalDeviceProperties2 p2 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
	    .pNext = &id};
	props2(gpu, &p2);
	shim_set_gpu_uuid(id.deviceUUID);
}

VKAPI_ATTR VkResult VKAPI_CALL
baton_CreateDevice(VkPhysicalDevice gpu, const VkDeviceCreateInfo *info,
                   const VkAllocationCallbacks *alloc, VkDevice *out)
{
	VkLayerDeviceCreateInfo *link = find_link(info);
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	VkLayerDeviceLink *me = link->u.pLayerInfo;
	PFN_vkGetInstanceProcAddr gipa = me->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr gdpa = me->pfnNextGetDeviceProcAddr;
	/* A physical device carries its instance's dispatch pointer. */
	struct vk_instance *inst = vk_map_find(&vk_instances, vk_map_key(gpu));
	PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(
	    inst ? inst->handle : VK_NULL_HANDLE, "vkCreateDevice");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;

	struct vk_device *dev = calloc(1, sizeof(*dev));
	int slot = dev ? vk_map_reserve(&vk_devices) : -1;
	if (slot < 0) {
		free(dev);
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}

	/* VK_EXT_memory_budget is the layer's where the driver lacks it
	 * (vram_budget_ext.c): the driver must not be asked for it. */
	const char *names[256];
	uint32_t count;
	VkDeviceCreateInfo stripped;
	if (vk_budget_ext_strip(inst, gpu, info, names, 256, &count)) {
		stripped = *info;
		stripped.enabledExtensionCount = count;
		stripped.ppEnabledExtensionNames = names;
		info = &stripped;
	}

	link->u.pLayerInfo = me->pNext;
	VkResult r = create(gpu, info, alloc, out);
	link->u.pLayerInfo = me;
	if (r != VK_SUCCESS) {
		vk_map_cancel(&vk_devices, slot);
		free(dev);
		return r;
	}

	dev->handle = *out;
	dev->instance = inst;
	dev->next_gdpa = gdpa;
	dev->next_destroy = (PFN_vkDestroyDevice)gdpa(*out, "vkDestroyDevice");
	if (enables_swapchain(info))
		dev->next_present =
		    (PFN_vkQueuePresentKHR)gdpa(*out, "vkQueuePresentKHR");
	if (dev->next_present) {
		dev->timer = fence_timer_create(*out, gdpa);
		if (inst)
			note_device_type(gipa, inst, gpu);
	}
	vk_vram_device_setup(dev, gipa, gdpa, gpu);
	vk_map_publish(&vk_devices, slot, vk_map_key(*out), dev);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL
baton_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc)
{
	if (device == VK_NULL_HANDLE)
		return;
	struct vk_device *dev = vk_map_remove(&vk_devices, vk_map_key(device));
	if (!dev)
		return;
	/* The waiter still uses the device: stop it before it goes. */
	fence_timer_destroy(dev->timer);
	/* Memory the app did not free goes with the device (the spec has the
	 * app free it first; a leak must not keep counting). */
	vk_vram_device_forget(dev);
	if (dev->next_destroy)
		dev->next_destroy(device, alloc);
	free(dev);
}

static bool of_instance(void *dev, void *instance)
{
	return ((struct vk_device *)dev)->instance == instance;
}

void vk_devices_forget(struct vk_instance *instance)
{
	struct vk_device *dev;

	while ((dev = vk_map_remove_if(&vk_devices, of_instance, instance))) {
		fence_timer_destroy(dev->timer);
		vk_vram_device_forget(dev);
		free(dev);
	}
}

PFN_vkVoidFunction vk_device_intercept(const char *name)
{
	if (strcmp(name, "vkGetDeviceProcAddr") == 0)
		return (PFN_vkVoidFunction)baton_GetDeviceProcAddr;
	if (strcmp(name, "vkDestroyDevice") == 0)
		return (PFN_vkVoidFunction)baton_DestroyDevice;
	if (strcmp(name, "vkQueuePresentKHR") == 0)
		return (PFN_vkVoidFunction)baton_QueuePresentKHR;
	return vk_vram_device_intercept(name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
baton_GetDeviceProcAddr(VkDevice device, const char *name)
{
	if (!name || device == VK_NULL_HANDLE)
		return NULL;
	struct vk_device *dev = vk_map_find(&vk_devices, vk_map_key(device));
	if (!dev)
		return NULL;
	/* The spec wants NULL for commands of extensions not enabled. */
	if (strcmp(name, "vkQueuePresentKHR") == 0 && !dev->next_present)
		return NULL;
	PFN_vkVoidFunction fn = vk_device_intercept(name);
	return fn ? fn : dev->next_gdpa(device, name);
}
