/* The fence timer against a real Vulkan device (lavapipe in CI), headless.
 *
 * A command buffer that waits on a host-set event holds the queue busy for
 * as long as the test likes, which makes the timer's contract observable:
 * the pool bounds the fences in flight without ever blocking, reports come
 * in frame order, the first frame behind the gate is charged the gated time
 * and the ones queued behind it are not, and the report is made by whichever
 * of the presenting thread and the waiter finishes last.
 *
 * The shim core is replaced by the two functions the timer calls. */
#include "shim/shim.h"
#include "shim/shim_clock.h"
#include "shim/vulkan/fence_timer.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#define MS 1000000ll

struct report {
	uint64_t frame;
	int64_t ns;
	bool from_fence;
};

#define MAX_REPORTS 64
static struct report reports[MAX_REPORTS];
static atomic_int nreports;
static pthread_mutex_t reports_lock = PTHREAD_MUTEX_INITIALIZER;

void shim_gpu_time(uint64_t frame, int64_t gpu_ns, bool from_fence)
{
	pthread_mutex_lock(&reports_lock);
	int i = atomic_load(&nreports);
	if (i < MAX_REPORTS)
		reports[i] = (struct report){frame, gpu_ns, from_fence};
	atomic_store(&nreports, i + 1);
	pthread_mutex_unlock(&reports_lock);
}

int64_t shim_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

/* Waits up to two seconds for n reports in all. */
static bool await_reports(int n)
{
	for (int i = 0; i < 2000 && atomic_load(&nreports) < n; i++)
		sleep_ms(1);
	return atomic_load(&nreports) >= n;
}

struct bed {
	VkInstance instance;
	VkDevice device;
	VkQueue queue;
	VkCommandPool pool;
	VkCommandBuffer gate; /* waits for `event` */
	VkEvent event;
	struct fence_timer *timer;
};

static int pin_one(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	/* RTLD_NOLOAD: only objects already there; a no-op for the main
	 * program (empty name) and the vDSO, which dlopen cannot name. */
	if (info->dlpi_name && info->dlpi_name[0] &&
	    dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE))
		(*(int *)data)++;
	return 0;
}

/* Keeps every shared object now loaded, the Vulkan driver and its LLVM
 * among them, loaded until the process exits; returns how many. The
 * loader dlclose()s the driver at vkDestroyInstance, and LeakSanitizer
 * reports at exit: what the driver's globals still held became
 * unreachable when it was unmapped, and was reported as a leak from
 * "<unknown module>", which no suppression can name. Pinned, the driver's
 * globals still hold it, and anything the driver really leaks names its
 * module, which tests/lsan.supp suppresses (never Baton's code). */
static int pin_loaded_modules(void)
{
	int pinned = 0;
	dl_iterate_phdr(pin_one, &pinned);
	return pinned;
}

static int bed_setup(void **state)
{
	static struct bed b;
	const VkInstanceCreateInfo ici = {
	    .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	};
	if (vkCreateInstance(&ici, NULL, &b.instance) != VK_SUCCESS)
		return -1;
	uint32_t n = 1;
	VkPhysicalDevice gpu;
	if (vkEnumeratePhysicalDevices(b.instance, &n, &gpu) < 0 || n == 0)
		return -1;

	/* Event waits need a graphics or compute queue. */
	VkQueueFamilyProperties families[16];
	uint32_t nfam = 16, family = UINT32_MAX;
	vkGetPhysicalDeviceQueueFamilyProperties(gpu, &nfam, families);
	for (uint32_t i = 0; i < nfam && family == UINT32_MAX; i++)
		if (families[i].queueFlags &
		    (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
			family = i;
	if (family == UINT32_MAX)
		return -1;

	const float prio = 1.0f;
	const VkDeviceQueueCreateInfo qci = {
	    .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	    .queueFamilyIndex = family,
	    .queueCount = 1,
	    .pQueuePriorities = &prio,
	};
	const VkDeviceCreateInfo dci = {
	    .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	    .queueCreateInfoCount = 1,
	    .pQueueCreateInfos = &qci,
	};
	if (vkCreateDevice(gpu, &dci, NULL, &b.device) != VK_SUCCESS)
		return -1;
	if (pin_loaded_modules() == 0)
		return -1;
	vkGetDeviceQueue(b.device, family, 0, &b.queue);

	const VkCommandPoolCreateInfo pci = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	    .queueFamilyIndex = family,
	};
	const VkEventCreateInfo eci = {
	    .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO,
	};
	if (vkCreateCommandPool(b.device, &pci, NULL, &b.pool) != VK_SUCCESS ||
	    vkCreateEvent(b.device, &eci, NULL, &b.event) != VK_SUCCESS)
		return -1;
	const VkCommandBufferAllocateInfo cai = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	    .commandPool = b.pool,
	    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	    .commandBufferCount = 1,
	};
	const VkCommandBufferBeginInfo bi = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	};
	if (vkAllocateCommandBuffers(b.device, &cai, &b.gate) != VK_SUCCESS ||
	    vkBeginCommandBuffer(b.gate, &bi) != VK_SUCCESS)
		return -1;
	vkCmdWaitEvents(b.gate, 1, &b.event, VK_PIPELINE_STAGE_HOST_BIT,
	                VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, NULL, 0, NULL, 0,
	                NULL);
	if (vkEndCommandBuffer(b.gate) != VK_SUCCESS)
		return -1;

	b.timer = fence_timer_create(b.device, vkGetDeviceProcAddr);
	if (!b.timer)
		return -1;
	*state = &b;
	return 0;
}

static int bed_teardown(void **state)
{
	struct bed *b = *state;

	fence_timer_destroy(b->timer);
	vkDestroyEvent(b->device, b->event, NULL);
	vkDestroyCommandPool(b->device, b->pool, NULL);
	vkDestroyDevice(b->device, NULL);
	vkDestroyInstance(b->instance, NULL);
	return 0;
}

/* Queues the gate: the queue stays busy until open_gate. */
static void close_gate(struct bed *b)
{
	const VkSubmitInfo si = {
	    .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	    .commandBufferCount = 1,
	    .pCommandBuffers = &b->gate,
	};
	assert_int_equal(vkResetEvent(b->device, b->event), VK_SUCCESS);
	assert_int_equal(vkQueueSubmit(b->queue, 1, &si, VK_NULL_HANDLE),
	                 VK_SUCCESS);
}

static void open_gate(struct bed *b)
{
	assert_int_equal(vkSetEvent(b->device, b->event), VK_SUCCESS);
}

/* Marks a fence, retrying for a while if the pool is momentarily full. */
static int64_t mark(struct fence_timer *t, VkQueue queue)
{
	int64_t ticket = -1;
	for (int i = 0; i < 1000 && ticket < 0; i++) {
		ticket = fence_timer_mark(t, queue);
		if (ticket < 0)
			sleep_ms(1);
	}
	assert_true(ticket >= 0);
	return ticket;
}

static void test_pool_bounds_and_charges_the_gated_frame(void **state)
{
	struct bed *b = *state;
	int base = atomic_load(&nreports);

	close_gate(b);
	for (uint64_t frame = 1; frame <= 4; frame++) {
		int64_t ticket = fence_timer_mark(b->timer, b->queue);
		assert_true(ticket >= 0);
		fence_timer_attach(b->timer, ticket, frame);
	}
	/* All four fences are behind the gate: the fifth frame goes
	 * unmeasured, at once. */
	int64_t t0 = shim_now_ns();
	assert_int_equal(fence_timer_mark(b->timer, b->queue), -1);
	assert_true(shim_now_ns() - t0 < 50 * MS);
	sleep_ms(100);
	assert_int_equal(atomic_load(&nreports), base);

	open_gate(b);
	assert_int_equal(vkQueueWaitIdle(b->queue), VK_SUCCESS);
	assert_true(await_reports(base + 4));
	for (int i = 0; i < 4; i++) {
		assert_int_equal(reports[base + i].frame, i + 1);
		assert_true(reports[base + i].from_fence);
	}
	/* Frame 1 waited behind the gate, which held the GPU ~100 ms; the
	 * others start when it ends and have no work of their own. */
	assert_true(reports[base].ns >= 90 * MS);
	assert_true(reports[base].ns < 1000 * MS);
	for (int i = 1; i < 4; i++)
		assert_true(reports[base + i].ns < 20 * MS);
	assert_int_equal(atomic_load(&nreports), base + 4);

	/* The slots came back. */
	for (uint64_t frame = 5; frame <= 8; frame++)
		fence_timer_attach(b->timer, mark(b->timer, b->queue), frame);
	assert_true(await_reports(base + 8));
	for (int i = 4; i < 8; i++)
		assert_int_equal(reports[base + i].frame, i + 1);
}

/* The fence signals long before the presenting thread learns its frame
 * number (it is sleeping in the shim): the report waits for the number. */
static void test_report_waits_for_the_frame_number(void **state)
{
	struct bed *b = *state;
	int base = atomic_load(&nreports);

	int64_t ticket = mark(b->timer, b->queue);
	assert_int_equal(vkQueueWaitIdle(b->queue), VK_SUCCESS);
	sleep_ms(50);
	assert_int_equal(atomic_load(&nreports), base);
	fence_timer_attach(b->timer, ticket, 42);
	assert_true(await_reports(base + 1));
	assert_int_equal(reports[base].frame, 42);
	assert_true(reports[base].ns >= 0 && reports[base].ns < 20 * MS);
}

/* Frame 0 (the shim did not take the present) reports nothing, and still
 * gives its fence back. */
static void test_frame_zero_reports_nothing(void **state)
{
	struct bed *b = *state;
	int base = atomic_load(&nreports);

	/* Three times the pool: only recycled fences can serve them all. */
	for (int round = 0; round < 3 * 4; round++) {
		fence_timer_attach(b->timer, mark(b->timer, b->queue), 0);
		assert_int_equal(vkQueueWaitIdle(b->queue), VK_SUCCESS);
	}
	sleep_ms(50);
	assert_int_equal(atomic_load(&nreports), base);
}

/* Destroying with fences in flight neither hangs nor leaks the thread. */
static void test_destroy_in_flight(void **state)
{
	struct bed *b = *state;
	struct fence_timer *t =
	    fence_timer_create(b->device, vkGetDeviceProcAddr);
	assert_non_null(t);
	close_gate(b);
	fence_timer_attach(t, mark(t, b->queue), 1);
	open_gate(b);
	fence_timer_destroy(t);
	fence_timer_destroy(NULL);
	assert_int_equal(vkQueueWaitIdle(b->queue), VK_SUCCESS);
}

int main(void)
{
	/* This test talks to the driver directly; the layer stays out. */
	setenv("DISABLE_BATON_LAYER", "1", 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pool_bounds_and_charges_the_gated_frame),
	    cmocka_unit_test(test_report_waits_for_the_frame_number),
	    cmocka_unit_test(test_frame_zero_reports_nothing),
	    cmocka_unit_test(test_destroy_in_flight),
	};
	return cmocka_run_group_tests(tests, bed_setup, bed_teardown);
}
