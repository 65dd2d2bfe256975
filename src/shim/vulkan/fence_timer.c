#include "shim/vulkan/fence_timer.h"

#include "shim/shim.h"
#include "shim/shim_clock.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

/* Enough for the frames a swapchain keeps in flight; more would only
 * measure frames whose numbers the shim has long moved past. */
#define FENCE_SLOTS 4
/* One vkWaitForFences blocks at most this long, so a stop is noticed. */
#define WAIT_STEP_NS 100000000ull
/* Once stopping, how long the waiter still waits for in-flight fences. */
#define DRAIN_NS 1000000000ll

struct fence_slot {
	VkFence fence;
	/* The sequence of Vyukov's bounded queue: equal to the ticket that
	 * may claim the slot while free, ticket + 1 once it is submitted. */
	_Atomic(uint64_t) seq;
	/* The presenting thread (which learns the frame) and the waiter
	 * (which learns the GPU time) both finish with a slot; the second
	 * one reports and frees it, so neither ever waits for the other. */
	_Atomic(int) parties;
	bool submitted;
	int64_t submit_ns;
	uint64_t frame;
	int64_t gpu_ns; /* < 0: nothing to report */
};

struct fence_timer {
	VkDevice device;
	PFN_vkQueueSubmit queue_submit;
	PFN_vkWaitForFences wait_for_fences;
	PFN_vkResetFences reset_fences;
	PFN_vkDestroyFence destroy_fence;
	struct fence_slot slot[FENCE_SLOTS];
	_Atomic(uint64_t) next_ticket;
	/* Set when a fence could not be waited for or reset: its state is
	 * unknown, so it must never be submitted again. */
	_Atomic(bool) broken;
	_Atomic(bool) stop;
	sem_t ready; /* posted once per submitted slot, and at stop */
	pthread_t thread;
};

static void slot_finish(struct fence_slot *slot, uint64_t ticket)
{
	if (atomic_fetch_add_explicit(&slot->parties, 1,
	                              memory_order_acq_rel) == 0)
		return;
	if (slot->frame != 0 && slot->gpu_ns >= 0)
		shim_gpu_time(slot->frame, slot->gpu_ns, true);
	atomic_store_explicit(&slot->seq, ticket + FENCE_SLOTS,
	                      memory_order_release);
}

/* Blocks until the slot's fence signals; returns the signal time, or -1. */
static int64_t wait_signal(struct fence_timer *t, struct fence_slot *slot)
{
	int64_t deadline = 0;
	VkResult r;

	for (;;) {
		r = t->wait_for_fences(t->device, 1, &slot->fence, VK_TRUE,
		                       WAIT_STEP_NS);
		if (r != VK_TIMEOUT)
			break;
		if (!atomic_load_explicit(&t->stop, memory_order_relaxed))
			continue;
		if (deadline == 0)
			deadline = shim_now_ns() + DRAIN_NS;
		else if (shim_now_ns() > deadline)
			break;
	}
	int64_t signal = shim_now_ns();
	if (r != VK_SUCCESS ||
	    t->reset_fences(t->device, 1, &slot->fence) != VK_SUCCESS) {
		atomic_store_explicit(&t->broken, true, memory_order_relaxed);
		return -1;
	}
	return signal;
}

static void *waiter_main(void *arg)
{
	struct fence_timer *t = arg;
	uint64_t cursor = 0;
	int64_t prev_signal = 0;

	for (;;) {
		while (sem_wait(&t->ready) != 0 && errno == EINTR)
			;
		/* Producers on several queues may publish out of ticket
		 * order, so drain whatever is ready in order; a post whose
		 * slot is not ready yet is covered by that slot's own post. */
		for (;;) {
			struct fence_slot *slot =
			    &t->slot[cursor % FENCE_SLOTS];
			if (atomic_load_explicit(
			        &slot->seq, memory_order_acquire) != cursor + 1)
				break;
			slot->gpu_ns = -1;
			if (slot->submitted) {
				int64_t signal = wait_signal(t, slot);
				if (signal >= 0) {
					int64_t start = slot->submit_ns;
					if (prev_signal > start)
						start = prev_signal;
					slot->gpu_ns = signal - start;
					prev_signal = signal;
				}
			}
			slot_finish(slot, cursor);
			cursor++;
		}
		if (atomic_load_explicit(&t->stop, memory_order_relaxed))
			return NULL;
	}
}

int64_t fence_timer_mark(struct fence_timer *t, VkQueue queue)
{
	if (atomic_load_explicit(&t->broken, memory_order_relaxed))
		return -1;

	uint64_t ticket =
	    atomic_load_explicit(&t->next_ticket, memory_order_relaxed);
	struct fence_slot *slot;
	for (;;) {
		slot = &t->slot[ticket % FENCE_SLOTS];
		uint64_t seq =
		    atomic_load_explicit(&slot->seq, memory_order_acquire);
		int64_t diff = (int64_t)(seq - ticket);
		if (diff < 0)
			return -1; /* every fence is in flight */
		if (diff > 0) {
			/* Another queue took this ticket; try the next. */
			ticket = atomic_load_explicit(&t->next_ticket,
			                              memory_order_relaxed);
			continue;
		}
		if (atomic_compare_exchange_weak_explicit(
		        &t->next_ticket, &ticket, ticket + 1,
		        memory_order_relaxed, memory_order_relaxed))
			break;
	}

	atomic_store_explicit(&slot->parties, 0, memory_order_relaxed);
	slot->frame = 0;
	slot->gpu_ns = -1;
	slot->submit_ns = shim_now_ns();
	slot->submitted =
	    t->queue_submit(queue, 0, NULL, slot->fence) == VK_SUCCESS;
	atomic_store_explicit(&slot->seq, ticket + 1, memory_order_release);
	sem_post(&t->ready);
	return (int64_t)ticket;
}

void fence_timer_attach(struct fence_timer *t, int64_t ticket, uint64_t frame)
{
	struct fence_slot *slot = &t->slot[(uint64_t)ticket % FENCE_SLOTS];

	slot->frame = frame;
	slot_finish(slot, (uint64_t)ticket);
}

static void destroy_fences(struct fence_timer *t)
{
	for (int i = 0; i < FENCE_SLOTS; i++)
		if (t->slot[i].fence != VK_NULL_HANDLE)
			t->destroy_fence(t->device, t->slot[i].fence, NULL);
}

/* The waiter must never take a signal meant for the game's threads. */
static bool start_waiter(struct fence_timer *t)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	bool ok = pthread_create(&t->thread, NULL, waiter_main, t) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ok)
		pthread_setname_np(t->thread, "baton-vkfence");
	return ok;
}

struct fence_timer *fence_timer_create(VkDevice device,
                                       PFN_vkGetDeviceProcAddr gdpa)
{
	PFN_vkCreateFence create_fence =
	    (PFN_vkCreateFence)gdpa(device, "vkCreateFence");
	struct fence_timer *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->device = device;
	t->queue_submit = (PFN_vkQueueSubmit)gdpa(device, "vkQueueSubmit");
	t->wait_for_fences =
	    (PFN_vkWaitForFences)gdpa(device, "vkWaitForFences");
	t->reset_fences = (PFN_vkResetFences)gdpa(device, "vkResetFences");
	t->destroy_fence = (PFN_vkDestroyFence)gdpa(device, "vkDestroyFence");
	if (!create_fence || !t->queue_submit || !t->wait_for_fences ||
	    !t->reset_fences || !t->destroy_fence)
		goto fail_free;

	const VkFenceCreateInfo info = {
	    .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
	};
	for (int i = 0; i < FENCE_SLOTS; i++) {
		atomic_init(&t->slot[i].seq, (uint64_t)i);
		if (create_fence(device, &info, NULL, &t->slot[i].fence) !=
		    VK_SUCCESS)
			goto fail_fences;
	}
	if (sem_init(&t->ready, 0, 0) != 0)
		goto fail_fences;
	if (!start_waiter(t))
		goto fail_sem;
	return t;

fail_sem:
	sem_destroy(&t->ready);
fail_fences:
	destroy_fences(t);
fail_free:
	free(t);
	return NULL;
}

void fence_timer_destroy(struct fence_timer *t)
{
	if (!t)
		return;
	atomic_store_explicit(&t->stop, true, memory_order_relaxed);
	sem_post(&t->ready);
	pthread_join(t->thread, NULL);
	destroy_fences(t);
	sem_destroy(&t->ready);
	free(t);
}
