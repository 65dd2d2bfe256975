/* vkQueuePresentKHR, the frame boundary: mark the GPU's progress, let the
 * shim pace, present, and let the shim record the frame. */
#include "shim/vulkan/layer.h"

#include "shim/shim.h"
#include "shim/vulkan/fence_timer.h"

VKAPI_ATTR VkResult VKAPI_CALL
baton_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	/* A queue carries its device's dispatch pointer. Every device in our
	 * chain was created through us, so a miss means a handle the app
	 * never got from this device; there is nothing to call down to. */
	struct vk_device *dev = vk_map_find(&vk_devices, vk_map_key(queue));
	if (!dev || !dev->next_present)
		return VK_ERROR_DEVICE_LOST;

	/* The fence goes in before the sleep, so that it trails the frame's
	 * own work and not the idle time the pacing adds (fence_timer.h).
	 * It is skipped while the shim is not taking this device's frames:
	 * with BATON_DISABLE=1 that means no fences at all after the first
	 * present. */
	int64_t ticket = -1;
	if (dev->timer &&
	    !atomic_load_explicit(&dev->shim_idle, memory_order_relaxed))
		ticket = fence_timer_mark(dev->timer, queue);
	uint64_t frame = shim_frame_begin(SHIM_API_VULKAN);
	if (ticket >= 0)
		fence_timer_attach(dev->timer, ticket, frame);
	/* 0 means this present is not the shim's: it is disabled, still
	 * being set up by another thread, or another thread is mid-frame.
	 * Only the first is permanent, so this is re-learned every present
	 * rather than latched. */
	atomic_store_explicit(&dev->shim_idle, frame == 0,
	                      memory_order_relaxed);

	VkResult r = dev->next_present(queue, info);
	if (frame != 0)
		shim_frame_end(frame);
	return r;
}
