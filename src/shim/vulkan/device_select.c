/* The physical device batond placed the game on (BATON_VK_DEVICE_UUID,
 * set by baton run: docs/runtime.md, "Several GPUs"): vkEnumeratePhysical
 * Devices and vkEnumeratePhysicalDeviceGroups(KHR) show only the devices
 * whose VkPhysicalDeviceIDProperties.deviceUUID is that one, so a game
 * that takes the first device renders where it was admitted. A device
 * whose UUID cannot be read (a Vulkan 1.0 driver in an instance without
 * properties2) stays: the layer hides only what it knows is another
 * device. A malformed value turns the filter off. */
#include "shim/vulkan/layer.h"

#include "ipc/device_id.h"

#include <stdlib.h>
#include <string.h>

void vk_select_instance_setup(struct vk_instance *inst)
{
	_Static_assert(VK_UUID_SIZE == IPC_DEVICE_UUID_SIZE, "one UUID size");
	inst->select = ipc_device_uuid_parse(getenv(BATON_DEVICE_UUID_ENV),
	                                     inst->select_uuid);
}

/* Whether gpu is another device than the one selected. */
static bool hidden(struct vk_instance *inst, VkPhysicalDevice gpu)
{
	PFN_vkGetPhysicalDeviceProperties props =
	    (PFN_vkGetPhysicalDeviceProperties)inst->next_gipa(
	        inst->handle, "vkGetPhysicalDeviceProperties");
	if (!props)
		return false;
	VkPhysicalDeviceProperties p;
	props(gpu, &p);
	/* Core physical-device commands of 1.1 are there for a 1.1 device
	 * (the spec's "Extending Physical Device Core Functionality"). */
	const char *name = inst->props2;
	if (!name && p.apiVersion >= VK_API_VERSION_1_1)
		name = "vkGetPhysicalDeviceProperties2";
	PFN_vkGetPhysicalDeviceProperties2 props2 =
	    name ? (PFN_vkGetPhysicalDeviceProperties2)inst->next_gipa(
	               inst->handle, name)
	         : NULL;
	if (!props2)
		return false;
	VkPhysicalDeviceIDProperties id = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
	VkPhysicalDeviceProperties2 p2 = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
	    .pNext = &id};
	props2(gpu, &p2);
	return memcmp(id.deviceUUID, inst->select_uuid, VK_UUID_SIZE) != 0;
}

/* Copies the n kept items of size sz from src to the caller's out
 * (*count of room, NULL: only the count), as an enumeration does. */
static VkResult hand_out(const void *src, uint32_t n, size_t sz,
                         uint32_t *count, void *out)
{
	if (!out) {
		*count = n;
		return VK_SUCCESS;
	}
	uint32_t k = *count < n ? *count : n;
	memcpy(out, src, k * sz);
	*count = k;
	return k < n ? VK_INCOMPLETE : VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL baton_EnumeratePhysicalDevices(
    VkInstance instance, uint32_t *count, VkPhysicalDevice *out)
{
	struct vk_instance *inst =
	    vk_map_find(&vk_instances, vk_map_key(instance));
	if (!inst)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkEnumeratePhysicalDevices next =
	    (PFN_vkEnumeratePhysicalDevices)inst->next_gipa(
	        instance, "vkEnumeratePhysicalDevices");
	if (!next)
		return VK_ERROR_INITIALIZATION_FAILED;
	if (!inst->select)
		return next(instance, count, out);
	uint32_t n = 0;
	VkResult r = next(instance, &n, NULL);
	if (r != VK_SUCCESS)
		return r;
	VkPhysicalDevice *all = calloc(n ? n : 1, sizeof(*all));
	if (!all)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	r = next(instance, &n, all);
	if (r < 0) {
		free(all);
		return r;
	}
	uint32_t kept = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!hidden(inst, all[i]))
			all[kept++] = all[i];
	r = hand_out(all, kept, sizeof(*all), count, out);
	free(all);
	return r;
}

/* Groups under either name (core 1.1 or VK_KHR_device_group_creation):
 * each group keeps its selected devices, and a group left empty goes. */
static VkResult enumerate_groups(VkInstance instance, const char *name,
                                 uint32_t *count,
                                 VkPhysicalDeviceGroupProperties *out)
{
	struct vk_instance *inst =
	    vk_map_find(&vk_instances, vk_map_key(instance));
	if (!inst)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkEnumeratePhysicalDeviceGroups next =
	    (PFN_vkEnumeratePhysicalDeviceGroups)inst->next_gipa(instance,
	                                                         name);
	if (!next)
		return VK_ERROR_INITIALIZATION_FAILED;
	if (!inst->select)
		return next(instance, count, out);
	uint32_t n = 0;
	VkResult r = next(instance, &n, NULL);
	if (r != VK_SUCCESS)
		return r;
	VkPhysicalDeviceGroupProperties *all = calloc(n ? n : 1, sizeof(*all));
	if (!all)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	for (uint32_t i = 0; i < n; i++)
		all[i].sType =
		    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
	r = next(instance, &n, all);
	uint32_t kept = 0;
	for (uint32_t i = 0; r >= 0 && i < n; i++) {
		VkPhysicalDeviceGroupProperties g = all[i];
		uint32_t in = 0;
		for (uint32_t j = 0; j < g.physicalDeviceCount; j++)
			if (!hidden(inst, g.physicalDevices[j]))
				g.physicalDevices[in++] = g.physicalDevices[j];
		if (in == 0)
			continue;
		/* one device of a group is no longer a subset allocation */
		g.subsetAllocation =
		    in == g.physicalDeviceCount && g.subsetAllocation;
		g.physicalDeviceCount = in;
		all[kept++] = g;
	}
	if (r >= 0 && out) {
		/* the caller's structures keep their own sType and pNext */
		uint32_t k = *count < kept ? *count : kept;
		for (uint32_t i = 0; i < k; i++) {
			void *pnext = out[i].pNext;
			VkStructureType type = out[i].sType;
			out[i] = all[i];
			out[i].pNext = pnext;
			out[i].sType = type;
		}
		r = k < kept ? VK_INCOMPLETE : VK_SUCCESS;
		*count = k;
	} else if (r >= 0) {
		*count = kept;
		r = VK_SUCCESS;
	}
	free(all);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL baton_EnumeratePhysicalDeviceGroups(
    VkInstance instance, uint32_t *count, VkPhysicalDeviceGroupProperties *out)
{
	return enumerate_groups(instance, "vkEnumeratePhysicalDeviceGroups",
	                        count, out);
}

VKAPI_ATTR VkResult VKAPI_CALL baton_EnumeratePhysicalDeviceGroupsKHR(
    VkInstance instance, uint32_t *count, VkPhysicalDeviceGroupProperties *out)
{
	return enumerate_groups(instance, "vkEnumeratePhysicalDeviceGroupsKHR",
	                        count, out);
}
