/* The video-memory limit's test client (vram_e2e.py): no window, no
 * swapchain. It makes an instance (Vulkan 1.1), takes the first physical
 * device, makes a device (with VK_EXT_memory_budget where the driver has
 * it), then on the first memory type of a device-local heap:
 *
 *   reads the heap's budget (VK_EXT_memory_budget's heapBudget),
 *   allocates BLOCK-byte blocks until VK_ERROR_OUT_OF_DEVICE_MEMORY or CAP,
 *   frees every other block, and allocates again the same way.
 *
 *   vram_client BLOCK CAP
 *
 * One JSON line on stdout: the budget read (-1 without the extension),
 * the blocks got each time, the blocks freed, and how each run ended
 * (0: CAP reached, else the VkResult that refused a block). Exit 0, or 1 when
 * Vulkan setup fails. */
#include <vulkan/vulkan.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCKS 4096

struct bed {
	VkInstance instance;
	VkPhysicalDevice gpu;
	VkDevice device;
	bool budget_ext;
	uint32_t type, heap;
};

static bool has_budget_ext(VkPhysicalDevice gpu)
{
	uint32_t n = 0;
	vkEnumerateDeviceExtensionProperties(gpu, NULL, &n, NULL);
	VkExtensionProperties *e = calloc(n ? n : 1, sizeof(*e));
	vkEnumerateDeviceExtensionProperties(gpu, NULL, &n, e);
	bool found = false;
	for (uint32_t i = 0; i < n; i++)
		found |= strcmp(e[i].extensionName,
		                VK_EXT_MEMORY_BUDGET_EXTENSION_NAME) == 0;
	free(e);
	return found;
}

static bool pick_type(struct bed *b)
{
	VkPhysicalDeviceMemoryProperties p;
	vkGetPhysicalDeviceMemoryProperties(b->gpu, &p);
	for (uint32_t i = 0; i < p.memoryTypeCount; i++) {
		uint32_t h = p.memoryTypes[i].heapIndex;
		if (p.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
			b->type = i;
			b->heap = h;
			return true;
		}
	}
	return false;
}

static bool setup(struct bed *b)
{
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                         .pApplicationName = "vram_client",
	                         .apiVersion = VK_API_VERSION_1_1};
	VkInstanceCreateInfo ici = {.sType =
	                                VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	                            .pApplicationInfo = &app};
	if (vkCreateInstance(&ici, NULL, &b->instance) != VK_SUCCESS)
		return false;
	uint32_t n = 1;
	VkResult r = vkEnumeratePhysicalDevices(b->instance, &n, &b->gpu);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0 || !pick_type(b))
		return false;
	b->budget_ext = has_budget_ext(b->gpu);
	float prio = 1.0f;
	VkDeviceQueueCreateInfo q = {
	    .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	    .queueFamilyIndex = 0,
	    .queueCount = 1,
	    .pQueuePriorities = &prio};
	const char *ext = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
	VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                          .queueCreateInfoCount = 1,
	                          .pQueueCreateInfos = &q,
	                          .enabledExtensionCount = b->budget_ext,
	                          .ppEnabledExtensionNames = &ext};
	return vkCreateDevice(b->gpu, &dci, NULL, &b->device) == VK_SUCCESS;
}

static long long read_budget(const struct bed *b)
{
	if (!b->budget_ext)
		return -1;
	VkPhysicalDeviceMemoryBudgetPropertiesEXT budget = {
	    .sType =
	        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
	VkPhysicalDeviceMemoryProperties2 p = {
	    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
	    .pNext = &budget};
	vkGetPhysicalDeviceMemoryProperties2(b->gpu, &p);
	return (long long)budget.heapBudget[b->heap];
}

/* Fills the empty entries of mem[0, cap) with blocks until the driver (or
 * the layer) refuses one; the number got, and how it ended in *end. */
static int fill(const struct bed *b, VkDeviceMemory *mem, int cap,
                VkDeviceSize block, int *end)
{
	VkMemoryAllocateInfo ai = {.sType =
	                               VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                           .allocationSize = block,
	                           .memoryTypeIndex = b->type};
	int got = 0;
	*end = VK_SUCCESS; /* reached cap */
	for (int i = 0; i < cap; i++) {
		if (mem[i] != VK_NULL_HANDLE)
			continue;
		VkResult r = vkAllocateMemory(b->device, &ai, NULL, &mem[i]);
		if (r != VK_SUCCESS) {
			mem[i] = VK_NULL_HANDLE;
			*end = r;
			break;
		}
		got++;
	}
	return got;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: vram_client BLOCK CAP\n");
		return 2;
	}
	VkDeviceSize block = strtoull(argv[1], NULL, 10);
	int cap = atoi(argv[2]);
	if (block == 0 || cap <= 0 || cap > MAX_BLOCKS) {
		fprintf(stderr, "vram_client: BLOCK > 0, CAP in [1, %d]\n",
		        MAX_BLOCKS);
		return 2;
	}
	struct bed b = {0};
	if (!setup(&b)) {
		fprintf(stderr, "vram_client: Vulkan setup failed\n");
		return 1;
	}
	static VkDeviceMemory mem[MAX_BLOCKS];
	long long budget = read_budget(&b);
	int end1, end2;
	int first = fill(&b, mem, cap, block, &end1);
	long long budget_full = read_budget(&b);
	int freed = 0;
	for (int i = 0; i < cap; i += 2) {
		if (mem[i] != VK_NULL_HANDLE) {
			vkFreeMemory(b.device, mem[i], NULL);
			mem[i] = VK_NULL_HANDLE;
			freed++;
		}
	}
	/* Freeing nothing is allowed and must change nothing. */
	vkFreeMemory(b.device, VK_NULL_HANDLE, NULL);
	int again = fill(&b, mem, cap, block, &end2);
	printf("{\"budget\": %lld, \"budget_full\": %lld, \"block\": %llu, "
	       "\"first\": %d, \"first_end\": %d, \"freed\": %d, "
	       "\"again\": %d, \"again_end\": %d}\n",
	       budget, budget_full, (unsigned long long)block, first, end1,
	       freed, again, end2);
	for (int i = 0; i < cap; i++)
		if (mem[i] != VK_NULL_HANDLE)
			vkFreeMemory(b.device, mem[i], NULL);
	vkDestroyDevice(b.device, NULL);
	vkDestroyInstance(b.instance, NULL);
	return 0;
}
