/* The consumer half of ring.h: batond's view of a hostile producer. */
#include "ipc/ring.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void say(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *err, size_t len, const char *fmt, ...)
{
	if (!err || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

void ipc_ring_reader_init(struct ipc_ring_reader *rd,
                          const struct baton_ring *ring,
                          const struct baton_frame *records, uint32_t capacity,
                          uint64_t start)
{
	*rd = (struct ipc_ring_reader){
	    .ring = ring,
	    .records = records,
	    .capacity = capacity,
	    .tail = start,
	};
}

uint64_t ipc_ring_head(const struct baton_ring *ring)
{
	return atomic_load_explicit(&ring->head, memory_order_acquire);
}

#define GET(src) __atomic_load_n(&(src), __ATOMIC_RELAXED)

static void copy_record(struct baton_frame *dst, const struct baton_frame *src)
{
	dst->seq = GET(src->seq);
	dst->present_ns = GET(src->present_ns);
	dst->cpu_ns = GET(src->cpu_ns);
	dst->sleep_ns = GET(src->sleep_ns);
	dst->target_period_ns = GET(src->target_period_ns);
	dst->gpu_ns = GET(src->gpu_ns);
	dst->gpu_frame = GET(src->gpu_frame);
	dst->flags = GET(src->flags);
	dst->gate_us = GET(src->gate_us);
}

/* head must only grow, and never by more than an honest producer could
 * write between two reads. */
static bool head_sane(uint64_t head, uint64_t since, char *err, size_t len)
{
	if (head < since) {
		say(err, len, "ring head went backwards (%llu < %llu)",
		    (unsigned long long)head, (unsigned long long)since);
		return false;
	}
	if (head - since > IPC_RING_MAX_JUMP) {
		say(err, len, "ring head jumped by %llu records",
		    (unsigned long long)(head - since));
		return false;
	}
	return true;
}

ssize_t ipc_ring_snapshot(struct ipc_ring_reader *rd, struct baton_frame *out,
                          size_t max, char *err, size_t errlen)
{
	uint64_t head = ipc_ring_head(rd->ring);
	if (!head_sane(head, rd->tail, err, errlen))
		return -EBADMSG;
	if (head - rd->tail > rd->capacity) {
		/* Overrun: the oldest unread records are gone already. */
		rd->lost += head - rd->capacity - rd->tail;
		rd->tail = head - rd->capacity;
	}
	size_t n = (size_t)(head - rd->tail);
	if (n > max)
		n = max;
	for (size_t k = 0; k < n; k++) {
		uint64_t i = rd->tail + k;
		copy_record(&out[k], &rd->records[i & (rd->capacity - 1)]);
	}
	rd->snap_first = rd->tail;
	rd->snap_head = head;
	return (ssize_t)n;
}

bool ipc_frame_valid(const struct baton_frame *f, uint64_t index,
                     int64_t prev_present_ns, int64_t now_ns, char *err,
                     size_t errlen)
{
	if (f->seq != index + 1) {
		say(err, errlen, "record %llu has seq %llu",
		    (unsigned long long)index, (unsigned long long)f->seq);
		return false;
	}
	if (f->present_ns < 0 || f->present_ns < prev_present_ns) {
		say(err, errlen, "record %llu present_ns %lld before %lld",
		    (unsigned long long)index, (long long)f->present_ns,
		    (long long)prev_present_ns);
		return false;
	}
	/* Written so that no value of now_ns can overflow. */
	int64_t latest = now_ns > INT64_MAX - IPC_FRAME_MAX_FUTURE_NS
	                     ? INT64_MAX
	                     : now_ns + IPC_FRAME_MAX_FUTURE_NS;
	if (f->present_ns > latest) {
		say(err, errlen, "record %llu present_ns %lld is in the future",
		    (unsigned long long)index, (long long)f->present_ns);
		return false;
	}
	struct {
		const char *name;
		int64_t v, max;
	} spans[] = {
	    {"cpu_ns", f->cpu_ns, IPC_FRAME_MAX_CPU_NS},
	    /* A best-effort tenant may wait for a window as long as the
	     * games leave it none: its wait is bounded by the daemon
	     * (tick.c: never more than the time since its last record). */
	    {"sleep_ns", f->sleep_ns,
	     (f->flags & BATON_FRAME_BE) ? INT64_MAX : IPC_FRAME_MAX_PERIOD_NS},
	    {"target_period_ns", f->target_period_ns, IPC_FRAME_MAX_PERIOD_NS},
	};
	for (size_t k = 0; k < sizeof(spans) / sizeof(spans[0]); k++) {
		if (spans[k].v < 0 || spans[k].v > spans[k].max) {
			say(err, errlen, "record %llu %s %lld out of range",
			    (unsigned long long)index, spans[k].name,
			    (long long)spans[k].v);
			return false;
		}
	}
	/* gpu_ns < 0 means "not measured this frame". */
	if (f->gpu_ns >= 0) {
		if (f->gpu_ns >= IPC_FRAME_MAX_GPU_NS) {
			say(err, errlen, "record %llu gpu_ns %lld out of range",
			    (unsigned long long)index, (long long)f->gpu_ns);
			return false;
		}
		if (f->gpu_frame == 0 || f->gpu_frame > f->seq) {
			say(err, errlen,
			    "record %llu gpu_frame %llu is not an earlier "
			    "frame",
			    (unsigned long long)index,
			    (unsigned long long)f->gpu_frame);
			return false;
		}
	}
	/* The gate's share is part of the wait: at most sleep_ns, which
	 * the shim rounds up to whole microseconds. */
	if ((int64_t)f->gate_us * 1000 > f->sleep_ns + 999) {
		say(err, errlen, "record %llu gate_us %u beyond sleep_ns %lld",
		    (unsigned long long)index, f->gate_us,
		    (long long)f->sleep_ns);
		return false;
	}
	/* BATON_FRAME_BE is valid here; whether this tenant may write it
	 * is the daemon's check (it knows the registration's role). */
	if (f->flags & ~(BATON_FRAME_GPU_FENCE | BATON_FRAME_GPU_SOFTWARE |
	                 BATON_FRAME_BE)) {
		say(err, errlen, "record %llu has unknown flags 0x%x",
		    (unsigned long long)index, f->flags);
		return false;
	}
	return true;
}

ssize_t ipc_ring_commit(struct ipc_ring_reader *rd, struct baton_frame *out,
                        size_t n, int64_t now_ns, char *err, size_t errlen)
{
	/* Pairs with the producer's release fence: if any copied byte came
	 * from an overwrite, the head read below shows that overwrite. */
	atomic_thread_fence(memory_order_acquire);
	uint64_t head =
	    atomic_load_explicit(&rd->ring->head, memory_order_relaxed);
	if (!head_sane(head, rd->snap_head, err, errlen))
		return -EBADMSG;
	uint64_t first = rd->snap_first;
	/* Record i's slot is rewritten from the moment head reaches
	 * i + capacity (the producer writes before it publishes), so only
	 * i > head - capacity is certainly intact. */
	size_t torn = 0;
	if (head >= rd->capacity) {
		uint64_t safe_from = head - rd->capacity + 1;
		if (safe_from > first)
			torn =
			    (size_t)(safe_from - first < n ? safe_from - first
			                                   : n);
	}
	rd->lost += torn;
	rd->tail = first + n;
	size_t kept = n - torn;
	if (torn && kept)
		memmove(out, out + torn, kept * sizeof(*out));
	for (size_t k = 0; k < kept; k++) {
		if (!ipc_frame_valid(&out[k], first + torn + k,
		                     rd->last_present_ns, now_ns, err, errlen))
			return -EBADMSG;
		rd->last_present_ns = out[k].present_ns;
	}
	return (ssize_t)kept;
}

ssize_t ipc_ring_read(struct ipc_ring_reader *rd, struct baton_frame *out,
                      size_t max, int64_t now_ns, char *err, size_t errlen)
{
	ssize_t n = ipc_ring_snapshot(rd, out, max, err, errlen);
	if (n < 0)
		return n;
	return ipc_ring_commit(rd, out, (size_t)n, now_ns, err, errlen);
}
