/* The instance half of the layer: loader negotiation, vkGetInstanceProcAddr
 * and the instance's lifetime. */
#include "shim/vulkan/layer.h"

#include <stdlib.h>
#include <string.h>

struct vk_map vk_instances = VK_MAP_INIT;

static VKAPI_ATTR VkResult VKAPI_CALL
baton_CreateInstance(const VkInstanceCreateInfo *info,
                     const VkAllocationCallbacks *alloc, VkInstance *out);
static VKAPI_ATTR void VKAPI_CALL
baton_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc);

/* The only exported symbol (see layer.map). Interface version 2 hands the
 * loader our GetProcAddrs directly, so nothing else needs exporting. */
VK_LAYER_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v)
{
	if (!v || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT ||
	    v->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	v->loaderLayerInterfaceVersion = 2;
	v->pfnGetInstanceProcAddr = baton_GetInstanceProcAddr;
	v->pfnGetDeviceProcAddr = baton_GetDeviceProcAddr;
	v->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}

static VkLayerInstanceCreateInfo *find_link(const VkInstanceCreateInfo *info)
{
	const VkBaseInStructure *s = info->pNext;

	for (; s; s = s->pNext) {
		VkLayerInstanceCreateInfo *link =
		    (VkLayerInstanceCreateInfo *)s;
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
		    link->function == VK_LAYER_LINK_INFO)
			return link;
	}
	return NULL;
}

/* Calling a command the instance does not have is undefined: only the
 * 1.1 core name in a 1.1 instance, or the extension's when enabled. */
static const char *props2_name(const VkInstanceCreateInfo *info)
{
	if (info->pApplicationInfo &&
	    info->pApplicationInfo->apiVersion >= VK_API_VERSION_1_1)
		return "vkGetPhysicalDeviceProperties2";
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
		if (strcmp(
		        info->ppEnabledExtensionNames[i],
		        VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME) ==
		    0)
			return "vkGetPhysicalDeviceProperties2KHR";
	return NULL;
}

static VKAPI_ATTR VkResult VKAPI_CALL
baton_CreateInstance(const VkInstanceCreateInfo *info,
                     const VkAllocationCallbacks *alloc, VkInstance *out)
{
	VkLayerInstanceCreateInfo *link = find_link(info);
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	VkLayerInstanceLink *me = link->u.pLayerInfo;
	PFN_vkGetInstanceProcAddr gipa = me->pfnNextGetInstanceProcAddr;
	PFN_vkCreateInstance create =
	    (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;

	struct vk_instance *inst = calloc(1, sizeof(*inst));
	int slot = inst ? vk_map_reserve(&vk_instances) : -1;
	if (slot < 0) {
		free(inst);
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}

	/* The next layer finds its own link; put ours back afterwards so the
	 * caller's chain is as it gave it to us. */
	link->u.pLayerInfo = me->pNext;
	VkResult r = create(info, alloc, out);
	link->u.pLayerInfo = me;
	if (r != VK_SUCCESS) {
		vk_map_cancel(&vk_instances, slot);
		free(inst);
		return r;
	}

	inst->handle = *out;
	inst->next_gipa = gipa;
	inst->props2 = props2_name(info);
	inst->next_destroy =
	    (PFN_vkDestroyInstance)gipa(*out, "vkDestroyInstance");
	vk_vram_instance_setup(inst);
	vk_select_instance_setup(inst);
	vk_map_publish(&vk_instances, slot, vk_map_key(*out), inst);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL
baton_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc)
{
	if (instance == VK_NULL_HANDLE)
		return;
	/* Read the key now: the dispatch pointer is gone after the call. */
	struct vk_instance *inst =
	    vk_map_remove(&vk_instances, vk_map_key(instance));
	if (!inst)
		return;
	/* A device the app leaked still has a waiter thread, which would call
	 * into the driver that the loader unloads with the instance. */
	vk_devices_forget(inst);
	if (inst->next_destroy)
		inst->next_destroy(instance, alloc);
	free(inst);
}

/* The instance-level commands this layer serves itself. */
static PFN_vkVoidFunction intercept(const char *name)
{
	static const struct {
		const char *name;
		PFN_vkVoidFunction fn;
	} table[] = {
	    {"vkGetInstanceProcAddr",
	     (PFN_vkVoidFunction)baton_GetInstanceProcAddr},
	    {"vkCreateInstance", (PFN_vkVoidFunction)baton_CreateInstance},
	    {"vkDestroyInstance", (PFN_vkVoidFunction)baton_DestroyInstance},
	    {"vkCreateDevice", (PFN_vkVoidFunction)baton_CreateDevice},
	    {"vkEnumeratePhysicalDevices",
	     (PFN_vkVoidFunction)baton_EnumeratePhysicalDevices},
	    {"vkEnumeratePhysicalDeviceGroups",
	     (PFN_vkVoidFunction)baton_EnumeratePhysicalDeviceGroups},
	    {"vkEnumeratePhysicalDeviceGroupsKHR",
	     (PFN_vkVoidFunction)baton_EnumeratePhysicalDeviceGroupsKHR},
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(name, table[i].name) == 0)
			return table[i].fn;
	return NULL;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
baton_GetInstanceProcAddr(VkInstance instance, const char *name)
{
	if (!name)
		return NULL;
	PFN_vkVoidFunction fn = intercept(name);
	if (fn)
		return fn;
	if (instance == VK_NULL_HANDLE)
		return NULL;
	/* Device commands asked of the instance: ours where we hook them, so
	 * a layer above that builds its device table this way still paces. */
	fn = vk_device_intercept(name);
	if (fn)
		return fn;
	struct vk_instance *inst =
	    vk_map_find(&vk_instances, vk_map_key(instance));
	fn = vk_vram_instance_intercept(inst, name);
	if (fn)
		return fn;
	return inst ? inst->next_gipa(instance, name) : NULL;
}
