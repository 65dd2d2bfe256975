/* Vulkan frames through vulkan-1.dll, loaded at run time (no import
 * library needed): under Wine that is winevulkan, which hands each call
 * to the host's Vulkan loader, so the host's implicit layers (Baton's)
 * see this program's vkQueuePresentKHR. Each frame clears a swapchain
 * image and presents it, in the IMMEDIATE present mode where the surface
 * offers it (else MAILBOX, else FIFO). */
#define VK_NO_PROTOTYPES
#define VK_USE_PLATFORM_WIN32_KHR
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "wine_probe.h"

#define MAX_IMAGES 8

/* Each function this file calls, looked up once. */
#define VK_FUNCS(X)                                                            \
	X(vkCreateInstance)                                                    \
	X(vkEnumeratePhysicalDevices)                                          \
	X(vkGetPhysicalDeviceQueueFamilyProperties)                            \
	X(vkGetPhysicalDeviceSurfaceSupportKHR)                                \
	X(vkGetPhysicalDeviceSurfaceCapabilitiesKHR)                           \
	X(vkGetPhysicalDeviceSurfaceFormatsKHR)                                \
	X(vkGetPhysicalDeviceSurfacePresentModesKHR)                           \
	X(vkCreateWin32SurfaceKHR)                                             \
	X(vkCreateDevice)                                                      \
	X(vkGetDeviceProcAddr)                                                 \
	X(vkGetDeviceQueue)                                                    \
	X(vkCreateSwapchainKHR)                                                \
	X(vkGetSwapchainImagesKHR)                                             \
	X(vkCreateCommandPool)                                                 \
	X(vkAllocateCommandBuffers)                                            \
	X(vkBeginCommandBuffer)                                                \
	X(vkCmdPipelineBarrier)                                                \
	X(vkCmdClearColorImage)                                                \
	X(vkEndCommandBuffer)                                                  \
	X(vkCreateSemaphore)                                                   \
	X(vkCreateFence)                                                       \
	X(vkAcquireNextImageKHR)                                               \
	X(vkQueueSubmit)                                                       \
	X(vkQueuePresentKHR)                                                   \
	X(vkWaitForFences)                                                     \
	X(vkResetFences)                                                       \
	X(vkDeviceWaitIdle)

#define DECLARE(f) static PFN_##f f;
VK_FUNCS(DECLARE)

struct probe_vk {
	VkInstance instance;
	VkPhysicalDevice gpu;
	uint32_t family;
	VkSurfaceKHR surface;
	VkDevice device;
	VkQueue queue;
	VkSwapchainKHR swapchain;
	uint32_t n_images;
	VkImage images[MAX_IMAGES];
	VkCommandBuffer cmd[MAX_IMAGES];
	VkSemaphore acquired, rendered[MAX_IMAGES];
	VkFence done;
};

#define CHECK(call)                                                            \
	do {                                                                   \
		VkResult r_ = (call);                                          \
		if (r_ != VK_SUCCESS)                                          \
			return probe_fail(#call, (long)r_);                    \
	} while (0)

/* Instance-level functions from vkGetInstanceProcAddr; device-level ones
 * are looked up the same way (the loader's trampolines), which is all a
 * one-device program needs. */
static int load_functions(PFN_vkGetInstanceProcAddr gipa, VkInstance inst)
{
#define LOAD(f)                                                                \
	f = (PFN_##f)(void (*)(void))gipa(inst, #f);                           \
	if (!f)                                                                \
		return probe_fail("vkGetInstanceProcAddr(" #f ")", 0);
	VK_FUNCS(LOAD)
#undef LOAD
	return 0;
}

static int create_instance(struct probe_vk *vk, PFN_vkGetInstanceProcAddr gipa)
{
	vkCreateInstance = (PFN_vkCreateInstance)(void (*)(void))gipa(
	    NULL, "vkCreateInstance");
	if (!vkCreateInstance)
		return probe_fail("vkGetInstanceProcAddr(vkCreateInstance)", 0);
	const char *ext[] = {VK_KHR_SURFACE_EXTENSION_NAME,
	                     VK_KHR_WIN32_SURFACE_EXTENSION_NAME};
	VkApplicationInfo app = {
	    .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	    .pApplicationName = "wine_probe",
	    .apiVersion = VK_API_VERSION_1_0,
	};
	VkInstanceCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	    .pApplicationInfo = &app,
	    .enabledExtensionCount = 2,
	    .ppEnabledExtensionNames = ext,
	};
	CHECK(vkCreateInstance(&ci, NULL, &vk->instance));
	return load_functions(gipa, vk->instance);
}

/* The first device with a queue family that draws and presents. */
static int pick_device(struct probe_vk *vk)
{
	VkPhysicalDevice gpus[8];
	uint32_t n = 8;
	VkResult r = vkEnumeratePhysicalDevices(vk->instance, &n, gpus);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return probe_fail("vkEnumeratePhysicalDevices", r);
	for (uint32_t g = 0; g < n; g++) {
		VkQueueFamilyProperties fam[16];
		uint32_t nf = 16;
		vkGetPhysicalDeviceQueueFamilyProperties(gpus[g], &nf, fam);
		for (uint32_t f = 0; f < nf; f++) {
			VkBool32 present = VK_FALSE;
			vkGetPhysicalDeviceSurfaceSupportKHR(
			    gpus[g], f, vk->surface, &present);
			if (present &&
			    (fam[f].queueFlags & VK_QUEUE_GRAPHICS_BIT)) {
				vk->gpu = gpus[g];
				vk->family = f;
				return 0;
			}
		}
	}
	return probe_fail("finding a device that presents", 0);
}

static int create_device(struct probe_vk *vk)
{
	float prio = 1.0f;
	VkDeviceQueueCreateInfo q = {
	    .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	    .queueFamilyIndex = vk->family,
	    .queueCount = 1,
	    .pQueuePriorities = &prio,
	};
	const char *ext[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
	VkDeviceCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	    .queueCreateInfoCount = 1,
	    .pQueueCreateInfos = &q,
	    .enabledExtensionCount = 1,
	    .ppEnabledExtensionNames = ext,
	};
	CHECK(vkCreateDevice(vk->gpu, &ci, NULL, &vk->device));
	vkGetDeviceQueue(vk->device, vk->family, 0, &vk->queue);
	return 0;
}

static VkPresentModeKHR fastest_present_mode(struct probe_vk *vk)
{
	VkPresentModeKHR modes[16];
	uint32_t n = 16;
	VkResult r = vkGetPhysicalDeviceSurfacePresentModesKHR(
	    vk->gpu, vk->surface, &n, modes);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		n = 0;
	VkPresentModeKHR best = VK_PRESENT_MODE_FIFO_KHR;
	for (uint32_t i = 0; i < n; i++) {
		if (modes[i] == VK_PRESENT_MODE_IMMEDIATE_KHR)
			return modes[i];
		if (modes[i] == VK_PRESENT_MODE_MAILBOX_KHR)
			best = modes[i];
	}
	return best;
}

static int create_swapchain(struct probe_vk *vk)
{
	VkSurfaceCapabilitiesKHR caps;
	CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(vk->gpu, vk->surface,
	                                                &caps));
	VkSurfaceFormatKHR fmt;
	uint32_t nf = 1;
	VkResult r = vkGetPhysicalDeviceSurfaceFormatsKHR(vk->gpu, vk->surface,
	                                                  &nf, &fmt);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || nf == 0)
		return probe_fail("vkGetPhysicalDeviceSurfaceFormatsKHR", r);
	VkExtent2D extent = caps.currentExtent;
	if (extent.width == UINT32_MAX)
		extent = (VkExtent2D){PROBE_WIDTH, PROBE_HEIGHT};
	uint32_t count = caps.minImageCount + 1;
	if (caps.maxImageCount && count > caps.maxImageCount)
		count = caps.maxImageCount;
	VkSwapchainCreateInfoKHR ci = {
	    .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
	    .surface = vk->surface,
	    .minImageCount = count,
	    .imageFormat = fmt.format,
	    .imageColorSpace = fmt.colorSpace,
	    .imageExtent = extent,
	    .imageArrayLayers = 1,
	    .imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT,
	    .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
	    .preTransform = caps.currentTransform,
	    .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
	    .presentMode = fastest_present_mode(vk),
	    .clipped = VK_TRUE,
	};
	CHECK(vkCreateSwapchainKHR(vk->device, &ci, NULL, &vk->swapchain));
	vk->n_images = MAX_IMAGES;
	r = vkGetSwapchainImagesKHR(vk->device, vk->swapchain, &vk->n_images,
	                            vk->images);
	if (r != VK_SUCCESS)
		return probe_fail("vkGetSwapchainImagesKHR", r);
	return 0;
}

static void barrier(VkCommandBuffer cb, VkImage img, VkImageLayout from,
                    VkImageLayout to)
{
	VkImageMemoryBarrier b = {
	    .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
	    .srcAccessMask = from == VK_IMAGE_LAYOUT_UNDEFINED
	                         ? 0
	                         : VK_ACCESS_TRANSFER_WRITE_BIT,
	    .dstAccessMask = to == VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL
	                         ? VK_ACCESS_TRANSFER_WRITE_BIT
	                         : 0,
	    .oldLayout = from,
	    .newLayout = to,
	    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
	    .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
	    .image = img,
	    .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
	};
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
	                     VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0,
	                     NULL, 1, &b);
}

/* One command buffer per swapchain image, recorded once: clear it to a
 * colour of its own and hand it to the presentation engine. */
static int record_commands(struct probe_vk *vk)
{
	VkCommandPoolCreateInfo pci = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	    .queueFamilyIndex = vk->family,
	};
	VkCommandPool pool;
	CHECK(vkCreateCommandPool(vk->device, &pci, NULL, &pool));
	VkCommandBufferAllocateInfo ai = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	    .commandPool = pool,
	    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	    .commandBufferCount = vk->n_images,
	};
	CHECK(vkAllocateCommandBuffers(vk->device, &ai, vk->cmd));
	VkImageSubresourceRange all = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
	for (uint32_t i = 0; i < vk->n_images; i++) {
		VkCommandBufferBeginInfo bi = {
		    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		};
		VkClearColorValue colour = {
		    .float32 = {0.2f * (float)i, 0.3f, 0.6f, 1.0f}};
		CHECK(vkBeginCommandBuffer(vk->cmd[i], &bi));
		barrier(vk->cmd[i], vk->images[i], VK_IMAGE_LAYOUT_UNDEFINED,
		        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
		vkCmdClearColorImage(vk->cmd[i], vk->images[i],
		                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		                     &colour, 1, &all);
		barrier(vk->cmd[i], vk->images[i],
		        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		        VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
		CHECK(vkEndCommandBuffer(vk->cmd[i]));
	}
	return 0;
}

static int create_sync(struct probe_vk *vk)
{
	VkSemaphoreCreateInfo si = {
	    .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	CHECK(vkCreateSemaphore(vk->device, &si, NULL, &vk->acquired));
	for (uint32_t i = 0; i < vk->n_images; i++)
		CHECK(
		    vkCreateSemaphore(vk->device, &si, NULL, &vk->rendered[i]));
	CHECK(vkCreateFence(vk->device, &fi, NULL, &vk->done));
	return 0;
}

/* One frame: acquire, clear, present, and wait for the clear to finish
 * before the acquire semaphore is used again. */
static int frame(struct probe_vk *vk)
{
	uint32_t i;
	VkResult r =
	    vkAcquireNextImageKHR(vk->device, vk->swapchain, UINT64_MAX,
	                          vk->acquired, VK_NULL_HANDLE, &i);
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
		return probe_fail("vkAcquireNextImageKHR", r);
	VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	VkSubmitInfo si = {
	    .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	    .waitSemaphoreCount = 1,
	    .pWaitSemaphores = &vk->acquired,
	    .pWaitDstStageMask = &stage,
	    .commandBufferCount = 1,
	    .pCommandBuffers = &vk->cmd[i],
	    .signalSemaphoreCount = 1,
	    .pSignalSemaphores = &vk->rendered[i],
	};
	CHECK(vkQueueSubmit(vk->queue, 1, &si, vk->done));
	VkPresentInfoKHR pi = {
	    .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
	    .waitSemaphoreCount = 1,
	    .pWaitSemaphores = &vk->rendered[i],
	    .swapchainCount = 1,
	    .pSwapchains = &vk->swapchain,
	    .pImageIndices = &i,
	};
	r = vkQueuePresentKHR(vk->queue, &pi);
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
		return probe_fail("vkQueuePresentKHR", r);
	CHECK(vkWaitForFences(vk->device, 1, &vk->done, VK_TRUE, UINT64_MAX));
	CHECK(vkResetFences(vk->device, 1, &vk->done));
	return 0;
}

static int set_up(struct probe_vk *vk, HWND w)
{
	HMODULE lib = LoadLibraryA("vulkan-1.dll");
	if (!lib)
		return probe_fail("LoadLibrary(vulkan-1.dll)",
		                  (long)GetLastError());
	PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)(void (*)(
	    void))GetProcAddress(lib, "vkGetInstanceProcAddr");
	if (!gipa)
		return probe_fail("GetProcAddress(vkGetInstanceProcAddr)", 0);
	int rc = create_instance(vk, gipa);
	if (rc)
		return rc;
	VkWin32SurfaceCreateInfoKHR sci = {
	    .sType = VK_STRUCTURE_TYPE_WIN32_SURFACE_CREATE_INFO_KHR,
	    .hinstance = GetModuleHandleA(NULL),
	    .hwnd = w,
	};
	CHECK(vkCreateWin32SurfaceKHR(vk->instance, &sci, NULL, &vk->surface));
	if ((rc = pick_device(vk)) || (rc = create_device(vk)) ||
	    (rc = create_swapchain(vk)) || (rc = record_commands(vk)))
		return rc;
	return create_sync(vk);
}

int probe_run_vulkan(int64_t *t, int n)
{
	HWND w = probe_window("wine_probe vulkan");
	if (!w)
		return probe_fail("CreateWindow", (long)GetLastError());
	struct probe_vk vk;
	memset(&vk, 0, sizeof(vk));
	int rc = set_up(&vk, w);
	for (int i = 0; !rc && i < n; i++) {
		probe_pump();
		rc = frame(&vk);
		t[i] = probe_now_us();
	}
	if (vk.device)
		vkDeviceWaitIdle(vk.device);
	/* The process ends here: Windows and Wine free the rest. */
	DestroyWindow(w);
	return rc;
}
