/* libFuzzer: a tenant's shared memory as the daemon meets it. The input is
 * the memory image (after an 18-byte prefix: the reader's start index, the
 * daemon's "now" and two mode bytes). The header is checked as
 * ipc_shm_map checks it; in "raw" mode an image that fails stops there, as
 * in the daemon, otherwise a valid header is written so that the fuzzer's
 * bytes reach the ring reader. Records are read as daemon_tick reads them
 * (twice, with the head moved in between) and the control block written and
 * read back. Nothing may crash, and whatever the reader accepts must pass
 * the record checks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/control.h"
#include "ipc/ring.h"
#include "ipc/shm_layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct baton_shm_header good = {
    .magic = BATON_SHM_MAGIC,
    .version = BATON_SHM_VERSION,
    .header_size = sizeof(struct baton_shm_header),
    .total_size = BATON_SHM_SIZE,
    .control_offset = 64,
    .ring_offset = 128,
    .records_offset = 192,
    .record_size = sizeof(struct baton_frame),
    .capacity = BATON_RING_CAPACITY,
    .quality_offset = BATON_SHM_QUALITY_OFFSET,
    .quality_size = sizeof(struct baton_quality),
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static _Alignas(64) unsigned char image[BATON_SHM_SIZE];
	static struct baton_frame out[BATON_RING_CAPACITY];
	enum { PREFIX = 18 };
	if (size < PREFIX)
		return 0;
	uint64_t start;
	int64_t now;
	memcpy(&start, data, 8);
	memcpy(&now, data + 8, 8);
	uint8_t mode = data[16], bump = data[17];
	data += PREFIX;
	size -= PREFIX;

	memset(image, 0, sizeof(image));
	memcpy(image, data, size < sizeof(image) ? size : sizeof(image));
	char err[160];
	bool valid =
	    ipc_shm_check_header(image, sizeof(image), err, sizeof(err));
	if (!valid) {
		if (mode & 1)
			return 0;
		memcpy(image, &good, sizeof(good));
	}
	struct ipc_shm shm;
	ipc_shm_view(image, &shm);

	/* A start near the head, as the daemon's (it starts at the head). */
	uint64_t head = atomic_load(&shm.ring->head);
	if (mode & 2)
		start = head - (start % (2 * BATON_RING_CAPACITY));
	struct ipc_ring_reader rd;
	ipc_ring_reader_init(&rd, shm.ring, shm.records, shm.capacity, start);
	for (int pass = 0; pass < 2; pass++) {
		ssize_t n = ipc_ring_read(&rd, out, BATON_RING_CAPACITY, now,
		                          err, sizeof(err));
		if (n < 0)
			break;
		if ((size_t)n > BATON_RING_CAPACITY)
			__builtin_trap();
		int64_t prev = 0;
		for (ssize_t k = 0; k < n; k++) {
			if (!ipc_frame_valid(&out[k], out[k].seq - 1, prev, now,
			                     err, sizeof(err)))
				__builtin_trap();
			prev = out[k].present_ns;
		}
		/* The producer moves on (or back) between two ticks. */
		atomic_store(&shm.ring->head, head + (uint64_t)(int8_t)bump);
	}

	struct ipc_control_values v = {.target_period_ns = (int64_t)start,
	                               .policy_epoch = (uint64_t)now,
	                               .flags = BATON_CONTROL_VALID,
	                               .cap_ns_per_s = (uint32_t)now};
	ipc_control_write(shm.control, &v);
	struct ipc_control_values back;
	if (!ipc_control_read(shm.control, &back) ||
	    back.target_period_ns != v.target_period_ns ||
	    back.policy_epoch != v.policy_epoch ||
	    back.cap_ns_per_s != v.cap_ns_per_s)
		__builtin_trap();
	return 0;
}
