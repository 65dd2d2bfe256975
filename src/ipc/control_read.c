/* The shim's seqlock reader (control.h): libc only, no loop. */
#include "ipc/control.h"

#define GET(src) __atomic_load_n(&(src), __ATOMIC_RELAXED)

bool ipc_control_read(const struct baton_control *c,
                      struct ipc_control_values *out)
{
	uint32_t s1 = atomic_load_explicit(&c->seq, memory_order_acquire);
	if (s1 & 1u)
		return false;
	struct ipc_control_values v = {
	    .target_period_ns = GET(c->target_period_ns),
	    .policy_epoch = GET(c->policy_epoch),
	    .flags = GET(c->flags),
	    .cap_ns_per_s = GET(c->cap_ns_per_s),
	    .be_window_ns = GET(c->be_window_ns),
	    .be_slot_start_ns = GET(c->be_slot_start_ns),
	    .be_slot_len_ns = GET(c->be_slot_len_ns),
	    .be_slot_period_ns = GET(c->be_slot_period_ns),
	    .quality_level = GET(c->quality_level),
	    .partition = GET(c->partition),
	    .version = GET(c->version),
	};
	/* The field loads must complete before seq is read again. */
	atomic_thread_fence(memory_order_acquire);
	uint32_t s2 = atomic_load_explicit(&c->seq, memory_order_relaxed);
	if (s1 != s2)
		return false;
	*out = v;
	return true;
}
