/* Hung best-effort kernels, batond's side (be_stuck.h). */
#include "daemon/tick/be_stuck.h"

#include <stdatomic.h>

#include "ipc/ring.h"
#include "util/log.h"

void daemon_be_inflight(struct tenant *t, int64_t now_ns)
{
	struct core_be_tenant *c = &t->be_state.core;
	c->inflight_s = 0.0;
	c->inflight_window_s = 0.0;
	/* Hostile: the client may write anything, at any moment. The
	 * release is read first (acquire, as it was written), then the
	 * window; a client that started its next sub-launch between the two
	 * reads gives that one's window, which the next tick corrects. */
	int64_t rel = atomic_load_explicit(&t->shm.ring->be_inflight_ns,
	                                   memory_order_acquire);
	int64_t win = atomic_load_explicit(&t->shm.ring->be_inflight_window_ns,
	                                   memory_order_relaxed);
	if (rel <= 0 || rel > now_ns || win <= 0 ||
	    win > IPC_FRAME_MAX_PERIOD_NS)
		return;
	/* batond can vouch for no time before it knew the tenant (a
	 * client that outlived the previous batond hands over its memfd
	 * with its stamp). */
	if (rel < t->be_state.registered_ns)
		rel = t->be_state.registered_ns;
	c->inflight_s = (double)(now_ns - rel) * 1e-9;
	c->inflight_window_s = (double)win * 1e-9;
}

void daemon_be_stuck_log(const struct tenant *t, bool was)
{
	const struct core_be_tenant *c = &t->be_state.core;
	if (c->stuck == was)
		return;
	if (c->stuck)
		log_warn("best-effort tenant %llu \"%s\" pid %d stuck: its "
		         "sub-launch has run %.3f s on a %.3f ms window; "
		         "best-effort windows closed until it reports",
		         (unsigned long long)t->id, t->name, (int)t->pid,
		         c->inflight_s, c->inflight_window_s * 1e3);
	else
		log_info("best-effort tenant %llu \"%s\" pid %d no longer "
		         "stuck",
		         (unsigned long long)t->id, t->name, (int)t->pid);
}
