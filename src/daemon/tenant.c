#include "daemon/tenant.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S 1000000000LL

struct tenant *tenant_create(uint64_t id, const char *name, pid_t pid,
                             uid_t uid, double sla_fps, double fixed_fps,
                             struct ipc_shm *shm, int64_t now_ns)
{
	struct tenant *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->id = id;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->pid = pid;
	t->uid = uid;
	t->sla_fps = sla_fps;
	t->fixed_fps = fixed_fps;
	t->shm = *shm;
	*shm = (struct ipc_shm){0};
	ipc_ring_reader_init(&t->reader, t->shm.ring, t->shm.records,
	                     t->shm.capacity, ipc_ring_head(t->shm.ring));
	t->be_state.blocks_seen = atomic_load_explicit(
	    &t->shm.ring->be_blocks_total, memory_order_relaxed);
	t->be_state.device_ns_seen = atomic_load_explicit(
	    &t->shm.ring->be_device_ns_total, memory_order_relaxed);
	stats_init(&t->win);
	daemon_quality_init(&t->quality);
	t->second_start_ns = now_ns;
	return t;
}

void tenant_destroy(struct tenant *t)
{
	if (!t)
		return;
	ipc_shm_unmap(&t->shm);
	daemon_quality_release(&t->quality);
	free(t);
}

void tenant_count_frame(struct tenant *t, int64_t present_ns)
{
	/* A frame presented before registration (the reader starts at the
	 * head, but a record can be written late) or in a second already
	 * closed counts nowhere rather than in the wrong second. */
	if (present_ns < t->second_start_ns)
		return;
	if (present_ns < t->second_start_ns + NS_PER_S)
		t->second_frames++;
	/* Frames of later seconds are counted when those seconds open:
	 * tenant_close_seconds recounts them from the window. */
}

void tenant_close_seconds(struct tenant *t, double sla, int64_t now_ns,
                          int64_t grace_ns)
{
	while (now_ns - grace_ns >= t->second_start_ns + NS_PER_S) {
		if ((double)t->second_frames < sla)
			t->below_sla_s++;
		t->second_start_ns += NS_PER_S;
		/* Frames already seen for the new second. */
		t->second_frames = 0;
		uint64_t avail =
		    t->win.count < STATS_WINDOW ? t->win.count : STATS_WINDOW;
		for (uint64_t k = 1; k <= avail; k++) {
			int64_t p =
			    t->win
			        .present_ns[(t->win.count - k) % STATS_WINDOW];
			if (p < t->second_start_ns)
				break;
			if (p < t->second_start_ns + NS_PER_S)
				t->second_frames++;
		}
	}
}
