/* The per-tenant video-memory limit (BATON_VRAM_LIMIT, docs/shim.md "Video
 * memory limit"): vkAllocateMemory on a device-local heap fails with
 * VK_ERROR_OUT_OF_DEVICE_MEMORY, without calling the driver, once the
 * process's device-local allocations would pass the limit; vkFreeMemory
 * gives the bytes back; and VK_EXT_memory_budget's heapBudget reports no
 * more than the limit leaves, so that a game that reads it adapts.
 *
 * Which memory counts: every allocation whose memory type's heap has
 * VK_MEMORY_HEAP_DEVICE_LOCAL_BIT, the heaps a driver calls video memory
 * (on an integrated GPU or lavapipe that is all of them). The limit is
 * the process's (the tenant's), summed over its devices; per-heap use is
 * kept by heap index, which is exact for a game on one physical device.
 *
 * Without a limit none of this is handed to the loader: the commands go
 * straight to the driver. */
#include "shim/vulkan/layer.h"

#include "shim/shim_config.h"
#include "shim/vulkan/vram_table.h"

#include <pthread.h>
#include <string.h>

static struct vram_table sizes = VRAM_TABLE_INIT;
static struct vram_budget budget;
static pthread_once_t limit_once = PTHREAD_ONCE_INIT;

static void read_limit(void)
{
	budget.limit = shim_vram_limit_read();
	if (budget.limit)
		shim_log(SHIM_LOG_INFO,
		         "video memory limited to %llu bytes on device-local "
		         "heaps",
		         (unsigned long long)budget.limit);
}

uint64_t vk_vram_limit(void)
{
	pthread_once(&limit_once, read_limit);
	return budget.limit;
}

void vk_vram_instance_setup(struct vk_instance *inst)
{
	pthread_mutex_init(&inst->budget_lock, NULL);
	if (!vk_vram_limit())
		return;
	inst->next_enum_dev_ext =
	    (PFN_vkEnumerateDeviceExtensionProperties)inst->next_gipa(
	        inst->handle, "vkEnumerateDeviceExtensionProperties");
	/* Asked of the next layer with the new instance, which answers NULL
	 * for a name the instance does not have (a KHR alias whose
	 * extension is not enabled, the core name in a 1.0 instance). */
	inst->next_mem_props2 =
	    (PFN_vkGetPhysicalDeviceMemoryProperties2)inst->next_gipa(
	        inst->handle, "vkGetPhysicalDeviceMemoryProperties2");
	inst->next_mem_props2_khr =
	    (PFN_vkGetPhysicalDeviceMemoryProperties2KHR)inst->next_gipa(
	        inst->handle, "vkGetPhysicalDeviceMemoryProperties2KHR");
}

void vk_vram_device_setup(struct vk_device *dev, PFN_vkGetInstanceProcAddr gipa,
                          PFN_vkGetDeviceProcAddr gdpa, VkPhysicalDevice gpu)
{
	if (!vk_vram_limit())
		return;
	struct vk_vram *v = &dev->vram;
	v->key = vk_map_key(dev->handle);
	v->next_alloc =
	    (PFN_vkAllocateMemory)gdpa(dev->handle, "vkAllocateMemory");
	v->next_free = (PFN_vkFreeMemory)gdpa(dev->handle, "vkFreeMemory");
	PFN_vkGetPhysicalDeviceMemoryProperties props =
	    (PFN_vkGetPhysicalDeviceMemoryProperties)gipa(
	        dev->instance ? dev->instance->handle : VK_NULL_HANDLE,
	        "vkGetPhysicalDeviceMemoryProperties");
	if (!props) {
		/* Its heaps unknown, nothing on it counts. */
		shim_log(SHIM_LOG_WARN, "video memory limit: a device whose "
		                        "heaps are unknown is not limited");
		return;
	}
	VkPhysicalDeviceMemoryProperties p;
	props(gpu, &p);
	for (uint32_t i = 0; i < p.memoryTypeCount && i < VK_MAX_MEMORY_TYPES;
	     i++) {
		uint32_t heap = p.memoryTypes[i].heapIndex;
		v->type_heap[i] = heap;
		if (heap < p.memoryHeapCount && heap < VRAM_HEAPS &&
		    (p.memoryHeaps[heap].flags &
		     VK_MEMORY_HEAP_DEVICE_LOCAL_BIT))
			v->counted_types |= 1u << i;
	}
}

static void give_back(uint64_t size, uint32_t heap, void *ctx)
{
	(void)ctx;
	vram_budget_release(&budget, heap, size);
}

void vk_vram_device_forget(struct vk_device *dev)
{
	if (dev->vram.key)
		vram_table_drop_owner(&sizes, dev->vram.key, give_back, NULL);
}

static VKAPI_ATTR VkResult VKAPI_CALL
baton_AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
                     const VkAllocationCallbacks *alloc, VkDeviceMemory *out)
{
	struct vk_device *dev = vk_map_find(&vk_devices, vk_map_key(device));
	if (!dev || !dev->vram.next_alloc)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	struct vk_vram *v = &dev->vram;
	uint32_t type = info ? info->memoryTypeIndex : VK_MAX_MEMORY_TYPES;
	if (type >= VK_MAX_MEMORY_TYPES || !(v->counted_types & (1u << type)))
		return v->next_alloc(device, info, alloc, out);

	uint32_t heap = v->type_heap[type];
	uint64_t size = info->allocationSize;
	if (!vram_budget_reserve(&budget, heap, size)) {
		shim_log(SHIM_LOG_DEBUG,
		         "vkAllocateMemory of %llu bytes refused: past the "
		         "video memory limit",
		         (unsigned long long)size);
		return VK_ERROR_OUT_OF_DEVICE_MEMORY;
	}
	VkResult r = v->next_alloc(device, info, alloc, out);
	if (r != VK_SUCCESS) {
		vram_budget_release(&budget, heap, size);
		return r;
	}
	if (!vram_table_add(&sizes, v->key, (uint64_t)*out, size, heap)) {
		/* Memory we could not give back later would count forever:
		 * refuse it now, as a driver out of bookkeeping would. */
		shim_log(SHIM_LOG_WARN,
		         "vkAllocateMemory refused: more than "
		         "%d live allocations to track",
		         VRAM_TABLE_MAX);
		v->next_free(device, *out, alloc);
		vram_budget_release(&budget, heap, size);
		*out = VK_NULL_HANDLE;
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL baton_FreeMemory(
    VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks *alloc)
{
	struct vk_device *dev = vk_map_find(&vk_devices, vk_map_key(device));
	if (!dev || !dev->vram.next_free)
		return;
	/* Out of the table before the driver frees it: once freed, another
	 * thread's allocation may get the same handle back. A handle the
	 * table does not know (not device-local, VK_NULL_HANDLE, or one the
	 * app frees twice) changes nothing here. */
	uint64_t size = 0;
	uint32_t heap = 0;
	bool known = vram_table_take(&sizes, dev->vram.key, (uint64_t)memory,
	                             &size, &heap);
	dev->vram.next_free(device, memory, alloc);
	if (known)
		vram_budget_release(&budget, heap, size);
}

uint64_t vk_vram_heap_budget(uint32_t heap, uint64_t driver_budget)
{
	return vram_budget_heap(&budget, heap, driver_budget);
}

uint64_t vk_vram_heap_used(uint32_t heap)
{
	return heap < VRAM_HEAPS ? atomic_load(&budget.heap_used[heap]) : 0;
}

static VKAPI_ATTR void VKAPI_CALL baton_GetPhysicalDeviceMemoryProperties2(
    VkPhysicalDevice gpu, VkPhysicalDeviceMemoryProperties2 *p)
{
	struct vk_instance *inst = vk_map_find(&vk_instances, vk_map_key(gpu));
	if (!inst || !inst->next_mem_props2)
		return;
	vk_budget_ext_report(inst, gpu, p, inst->next_mem_props2);
}

static VKAPI_ATTR void VKAPI_CALL baton_GetPhysicalDeviceMemoryProperties2KHR(
    VkPhysicalDevice gpu, VkPhysicalDeviceMemoryProperties2 *p)
{
	struct vk_instance *inst = vk_map_find(&vk_instances, vk_map_key(gpu));
	if (!inst || !inst->next_mem_props2_khr)
		return;
	vk_budget_ext_report(inst, gpu, p, inst->next_mem_props2_khr);
}

/* vkAllocateMemory and vkFreeMemory are Vulkan 1.0 core device commands,
 * which vkGetDeviceProcAddr returns for every device (the spec's "Command
 * Function Pointers"), so the layer's answer needs no check of the
 * device's version or extensions. */
PFN_vkVoidFunction vk_vram_device_intercept(const char *name)
{
	if (!vk_vram_limit())
		return NULL;
	if (strcmp(name, "vkAllocateMemory") == 0)
		return (PFN_vkVoidFunction)baton_AllocateMemory;
	if (strcmp(name, "vkFreeMemory") == 0)
		return (PFN_vkVoidFunction)baton_FreeMemory;
	return NULL;
}

/* The Vulkan spec's vkGetInstanceProcAddr ("Command Function Pointers")
 * returns NULL for a command the instance does not have, and the loader's
 * layer interface (LoaderLayerInterface.md, "Layer Conventions and Rules")
 * has a layer answer only for what the chain below it supports: ours only
 * where the next layer had one for this instance. */
PFN_vkVoidFunction vk_vram_instance_intercept(struct vk_instance *inst,
                                              const char *name)
{
	if (!inst || !vk_vram_limit())
		return NULL;
	PFN_vkVoidFunction fn = vk_budget_ext_intercept(inst, name);
	if (fn)
		return fn;
	if (inst->next_mem_props2 &&
	    strcmp(name, "vkGetPhysicalDeviceMemoryProperties2") == 0)
		return (
		    PFN_vkVoidFunction)baton_GetPhysicalDeviceMemoryProperties2;
	if (inst->next_mem_props2_khr &&
	    strcmp(name, "vkGetPhysicalDeviceMemoryProperties2KHR") == 0)
		return (PFN_vkVoidFunction)
		    baton_GetPhysicalDeviceMemoryProperties2KHR;
	return NULL;
}
