/* The daemon's seqlock writer (control.h). */
#include "ipc/control.h"

#define PUT(dst, v) __atomic_store_n(&(dst), (v), __ATOMIC_RELAXED)

void ipc_control_write(struct baton_control *c,
                       const struct ipc_control_values *v)
{
	/* The tenant owns this memory and may have left seq odd; always move
	 * to a fresh odd value, then to the even one after it. */
	uint32_t s = atomic_load_explicit(&c->seq, memory_order_relaxed);
	uint32_t odd = (s + 1u) | 1u;
	atomic_store_explicit(&c->seq, odd, memory_order_relaxed);
	/* A reader that sees any field below also sees seq odd. */
	atomic_thread_fence(memory_order_release);
	PUT(c->version, BATON_SHM_VERSION);
	PUT(c->target_period_ns, v->target_period_ns);
	PUT(c->policy_epoch, v->policy_epoch);
	PUT(c->flags, v->flags);
	PUT(c->cap_ns_per_s, v->cap_ns_per_s);
	PUT(c->be_window_ns, v->be_window_ns);
	PUT(c->be_slot_start_ns, v->be_slot_start_ns);
	PUT(c->be_slot_len_ns, v->be_slot_len_ns);
	PUT(c->be_slot_period_ns, v->be_slot_period_ns);
	PUT(c->quality_level, v->quality_level);
	PUT(c->partition, v->partition);
	atomic_store_explicit(&c->seq, odd + 1u, memory_order_release);
}
