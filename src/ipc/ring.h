/* The telemetry ring of shm.h: one producer (the shim's frame path), one
 * consumer (batond).
 *
 * The producer is wait-free: it fills the slot of record head, stores seq
 * last and publishes with a release store of head. It never looks at the
 * consumer, so a slow or absent daemon costs it nothing; records the
 * daemon does not read in time are overwritten.
 *
 * The consumer keeps its own tail and trusts nothing: it copies records out
 * (so a record cannot change while it is checked), then reads head again,
 * and drops every copied record whose slot the producer may have started to
 * overwrite meanwhile (record i is safe while head < i + capacity). Each
 * surviving record is validated field by field. A head that moves backwards
 * or jumps by more than 2^32 cannot come from an honest producer: that is
 * corruption, and the daemon drops the tenant. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipc/shm.h"

/* Bounds a record must respect. The period and sleep bounds are the
 * longest pacing period the daemon ever asks for; the CPU bound only rules
 * out nonsense (a loading screen may take a minute, not an hour). */
#define IPC_FRAME_MAX_PERIOD_NS 10000000000LL   /* 10 s */
#define IPC_FRAME_MAX_GPU_NS    10000000000LL   /* 10 s, exclusive */
#define IPC_FRAME_MAX_CPU_NS    3600000000000LL /* 1 h */
#define IPC_FRAME_MAX_FUTURE_NS 1000000000LL    /* present_ns vs now */
#define IPC_RING_MAX_JUMP       (1ULL << 32)    /* head - tail */

/* Producer (libc only; the shim's frame path). Writes *f as the next
 * record, with seq set to its index + 1 whatever f->seq holds, and
 * publishes it. Returns that seq. ring and records belong to a region laid
 * out with BATON_RING_CAPACITY records. */
uint64_t ipc_ring_push(struct baton_ring *ring, struct baton_frame *records,
                       const struct baton_frame *f);

struct ipc_ring_reader {
	const struct baton_ring *ring;
	const struct baton_frame *records;
	uint32_t capacity; /* a power of two */
	uint64_t tail;     /* index of the next record to read */
	uint64_t lost;     /* records overrun or overwritten while copied */
	int64_t last_present_ns; /* of the last accepted record */
	/* between ipc_ring_snapshot and ipc_ring_commit */
	uint64_t snap_first; /* index of out[0] */
	uint64_t snap_head;  /* head seen by the snapshot */
};

/* Starts reading at record index start (the daemon passes the current
 * head: records written before it registered are history). */
void ipc_ring_reader_init(struct ipc_ring_reader *rd,
                          const struct baton_ring *ring,
                          const struct baton_frame *records, uint32_t capacity,
                          uint64_t start);

/* The producer's current head (acquire). */
uint64_t ipc_ring_head(const struct baton_ring *ring);

/* One read in two steps, so that tests can change the ring between them:
 * ipc_ring_snapshot copies up to max unread records into out (skipping,
 * and counting as lost, any the producer has already overrun) and returns
 * how many; ipc_ring_commit re-reads head, drops the copies that may have
 * been overwritten while they were copied, validates the rest against
 * now_ns, moves them to the front of out and returns their number.
 * Both return -EBADMSG on corruption, with the reason in err. */
ssize_t ipc_ring_snapshot(struct ipc_ring_reader *rd, struct baton_frame *out,
                          size_t max, char *err, size_t errlen);
ssize_t ipc_ring_commit(struct ipc_ring_reader *rd, struct baton_frame *out,
                        size_t n, int64_t now_ns, char *err, size_t errlen);

/* Snapshot then commit. */
ssize_t ipc_ring_read(struct ipc_ring_reader *rd, struct baton_frame *out,
                      size_t max, int64_t now_ns, char *err, size_t errlen);

/* Checks one copied record as the consumer does: seq == index + 1, times
 * non-negative and bounded, present_ns not before prev_present_ns nor more
 * than IPC_FRAME_MAX_FUTURE_NS after now_ns, known flags only. */
bool ipc_frame_valid(const struct baton_frame *f, uint64_t index,
                     int64_t prev_present_ns, int64_t now_ns, char *err,
                     size_t errlen);
