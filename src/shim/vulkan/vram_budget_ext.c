/* VK_EXT_memory_budget under a video-memory limit. A game learns its
 * budget from the heapBudget this extension reports, so the layer lowers
 * it to what the limit leaves; and where the driver does not have the
 * extension (lavapipe before Mesa 23, some older drivers) the layer
 * provides it, since a budget the game cannot read cannot make it adapt.
 *
 * Providing a device extension, as the loader's layer interface has a
 * layer do it (LoaderLayerInterface.md, "Layer Conventions and Rules"):
 * vkEnumerateDeviceExtensionProperties with no layer name reaches the
 * layer, which adds the extension to the list from below; vkCreateDevice
 * removes it before the driver sees it (the Vulkan spec's vkCreateDevice
 * fails with VK_ERROR_EXTENSION_NOT_PRESENT otherwise); and the layer fills
 * VkPhysicalDeviceMemoryBudgetPropertiesEXT itself, unlinking it from the
 * chain the driver sees (a structure of an extension the driver lacks is
 * not valid there). It is not listed in the layer's manifest: the loader
 * adds an implicit layer's listed device extensions to every driver's
 * list, so this layer could no longer tell which drivers have it, and it
 * would be advertised without a limit too. Everything here is handed to
 * the loader only with a limit set (vram.c). */
#include "shim/vulkan/layer.h"

#include <stdlib.h>
#include <string.h>

static const char budget_ext_name[] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;

static bool driver_lists_budget(struct vk_instance *inst, VkPhysicalDevice gpu)
{
	if (!inst->next_enum_dev_ext)
		return true; /* unknown: leave it to the driver */
	uint32_t n = 0;
	if (inst->next_enum_dev_ext(gpu, NULL, &n, NULL) != VK_SUCCESS)
		return true;
	VkExtensionProperties *e = calloc(n ? n : 1, sizeof(*e));
	if (!e)
		return true;
	bool found = false;
	VkResult r = inst->next_enum_dev_ext(gpu, NULL, &n, e);
	for (uint32_t i = 0;
	     (r == VK_SUCCESS || r == VK_INCOMPLETE) && i < n && !found; i++)
		found = strcmp(e[i].extensionName, budget_ext_name) == 0;
	free(e);
	return found;
}

bool vk_budget_ext_native(struct vk_instance *inst, VkPhysicalDevice gpu)
{
	size_t slots = sizeof(inst->budget_ext) / sizeof(inst->budget_ext[0]);
	pthread_mutex_lock(&inst->budget_lock);
	for (size_t i = 0; i < slots; i++) {
		if (inst->budget_ext[i].gpu == gpu) {
			bool has = inst->budget_ext[i].has;
			pthread_mutex_unlock(&inst->budget_lock);
			return has;
		}
	}
	pthread_mutex_unlock(&inst->budget_lock);
	/* Asked outside the lock: it calls down the chain. Past the cache's
	 * few entries it is asked every time, which is only slower. */
	bool has = driver_lists_budget(inst, gpu);
	pthread_mutex_lock(&inst->budget_lock);
	for (size_t i = 0; i < slots; i++) {
		if (!inst->budget_ext[i].gpu) {
			inst->budget_ext[i].gpu = gpu;
			inst->budget_ext[i].has = has;
			break;
		}
	}
	pthread_mutex_unlock(&inst->budget_lock);
	return has;
}

bool vk_budget_ext_strip(struct vk_instance *inst, VkPhysicalDevice gpu,
                         const VkDeviceCreateInfo *info, const char **names,
                         uint32_t n, uint32_t *count)
{
	bool asked = false;
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
		asked |= strcmp(info->ppEnabledExtensionNames[i],
		                budget_ext_name) == 0;
	if (!inst || !asked || info->enabledExtensionCount > n ||
	    vk_budget_ext_native(inst, gpu))
		return false;
	*count = 0;
	for (uint32_t i = 0; i < info->enabledExtensionCount && *count < n; i++)
		if (strcmp(info->ppEnabledExtensionNames[i], budget_ext_name))
			names[(*count)++] = info->ppEnabledExtensionNames[i];
	return true;
}

static VKAPI_ATTR VkResult VKAPI_CALL baton_EnumerateDeviceExtensionProperties(
    VkPhysicalDevice gpu, const char *layer, uint32_t *count,
    VkExtensionProperties *props)
{
	struct vk_instance *inst = vk_map_find(&vk_instances, vk_map_key(gpu));
	if (!inst || !inst->next_enum_dev_ext)
		return VK_ERROR_INITIALIZATION_FAILED;
	/* Another layer's own list, or a driver that has the extension. */
	if (layer || vk_budget_ext_native(inst, gpu))
		return inst->next_enum_dev_ext(gpu, layer, count, props);
	uint32_t below = 0;
	VkResult r = inst->next_enum_dev_ext(gpu, NULL, &below, NULL);
	if (r != VK_SUCCESS)
		return r;
	if (!props) {
		*count = below + 1;
		return VK_SUCCESS;
	}
	/* The driver's list, then ours last (the spec's two-call idiom:
	 * VK_INCOMPLETE when the caller's array is short). */
	uint32_t room = *count;
	uint32_t got = room < below ? room : below;
	r = inst->next_enum_dev_ext(gpu, NULL, &got, props);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return r;
	if (got < room) {
		props[got] = (VkExtensionProperties){
		    .specVersion = VK_EXT_MEMORY_BUDGET_SPEC_VERSION};
		memcpy(props[got].extensionName, budget_ext_name,
		       sizeof(budget_ext_name));
		got++;
	}
	*count = got;
	return got < below + 1 ? VK_INCOMPLETE : VK_SUCCESS;
}

/* The app's budget structure in p's chain, or NULL. */
static VkPhysicalDeviceMemoryBudgetPropertiesEXT *
find_budget(VkPhysicalDeviceMemoryProperties2 *p, VkBaseOutStructure **prev)
{
	VkBaseOutStructure *before = (VkBaseOutStructure *)p;
	for (VkBaseOutStructure *s = before->pNext; s; s = s->pNext) {
		if (s->sType ==
		    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT) {
			*prev = before;
			return (VkPhysicalDeviceMemoryBudgetPropertiesEXT *)s;
		}
		before = s;
	}
	return NULL;
}

void vk_budget_ext_report(struct vk_instance *inst, VkPhysicalDevice gpu,
                          VkPhysicalDeviceMemoryProperties2 *p,
                          PFN_vkGetPhysicalDeviceMemoryProperties2 next)
{
	VkBaseOutStructure *prev = NULL;
	VkPhysicalDeviceMemoryBudgetPropertiesEXT *b = find_budget(p, &prev);
	bool native = !b || vk_budget_ext_native(inst, gpu);
	/* A driver without the extension must not see its structure. */
	if (!native)
		prev->pNext = b->pNext;
	next(gpu, p);
	if (!b)
		return;
	const VkPhysicalDeviceMemoryProperties *m = &p->memoryProperties;
	if (!native) {
		prev->pNext = (VkBaseOutStructure *)b;
		memset(b->heapBudget, 0, sizeof(b->heapBudget));
		memset(b->heapUsage, 0, sizeof(b->heapUsage));
		/* What this process allocated, which is all the layer
		 * knows; the whole heap as the budget, lowered below. */
		for (uint32_t h = 0;
		     h < m->memoryHeapCount && h < VK_MAX_MEMORY_HEAPS; h++) {
			b->heapUsage[h] = vk_vram_heap_used(h);
			b->heapBudget[h] = m->memoryHeaps[h].size;
		}
	}
	for (uint32_t h = 0; h < m->memoryHeapCount && h < VK_MAX_MEMORY_HEAPS;
	     h++)
		if (m->memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
			b->heapBudget[h] =
			    vk_vram_heap_budget(h, b->heapBudget[h]);
}

PFN_vkVoidFunction vk_budget_ext_intercept(struct vk_instance *inst,
                                           const char *name)
{
	if (inst->next_enum_dev_ext &&
	    strcmp(name, "vkEnumerateDeviceExtensionProperties") == 0)
		return (
		    PFN_vkVoidFunction)baton_EnumerateDeviceExtensionProperties;
	return NULL;
}
