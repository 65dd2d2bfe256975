/* The control block of shm.h under its seqlock.
 *
 * The daemon writes (seq odd, fields, seq even). The shim reads once per
 * frame, lock-free and wait-free: one try, and on a torn or in-progress
 * read it keeps what it had and tries again at the next frame. It never
 * spins on the writer, which lives in another process and may be stopped
 * half-way through a write forever. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "ipc/shm.h"

struct ipc_control_values {
	int64_t target_period_ns; /* 0 = unpaced */
	uint64_t policy_epoch;
	uint32_t flags;        /* BATON_CONTROL_* */
	uint32_t cap_ns_per_s; /* 0 = no cap (shm.h) */
	uint32_t version;
	int64_t be_window_ns; /* best-effort tenants (shm.h), 0 otherwise */
	union {
		int64_t be_slot_start_ns; /* best-effort tenants: the slot */
		int64_t present_phase_ns; /* games: their phase (shm.h) */
	};
	uint32_t be_slot_len_ns; /* 0 = none */
	uint32_t be_slot_period_ns;
	uint32_t quality_level; /* games: chosen level + 1, 0 = none */
	uint32_t partition;     /* BATON_PARTITION(first, count), 0 = all */
};

/* Daemon side. Publishes v (v->version is ignored: BATON_SHM_VERSION is
 * written). Copes with a seq the tenant scribbled on. */
void ipc_control_write(struct baton_control *c,
                       const struct ipc_control_values *v);

/* Shim side (libc only). One attempt: true and *out filled if a complete
 * write was seen; false (and *out untouched) if a write was in progress or
 * raced with the read. */
bool ipc_control_read(const struct baton_control *c,
                      struct ipc_control_values *out);
