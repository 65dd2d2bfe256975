/* The producer half of ring.h: libc only, a few stores per frame. */
#include "ipc/ring.h"

/* Relaxed stores field by field: the consumer may be copying the slot at
 * the same moment, and per-field atomics keep that a defined race. */
#define PUT(dst, v) __atomic_store_n(&(dst), (v), __ATOMIC_RELAXED)

uint64_t ipc_ring_push(struct baton_ring *ring, struct baton_frame *records,
                       const struct baton_frame *f)
{
	/* Single producer: nobody else moves head. */
	uint64_t i = atomic_load_explicit(&ring->head, memory_order_relaxed);
	struct baton_frame *r = &records[i & (BATON_RING_CAPACITY - 1)];
	/* Orders the previous head store before this slot's overwrite: a
	 * consumer that sees any of the new bytes (and then fences) also sees
	 * head == i, so it knows the slot may be torn. */
	atomic_thread_fence(memory_order_release);
	PUT(r->present_ns, f->present_ns);
	PUT(r->cpu_ns, f->cpu_ns);
	PUT(r->sleep_ns, f->sleep_ns);
	PUT(r->target_period_ns, f->target_period_ns);
	PUT(r->gpu_ns, f->gpu_ns);
	PUT(r->gpu_frame, f->gpu_frame);
	PUT(r->flags, f->flags);
	PUT(r->gate_us, f->gate_us);
	PUT(r->seq, i + 1);
	atomic_store_explicit(&ring->head, i + 1, memory_order_release);
	return i + 1;
}
