/* The telemetry ring: the producer, and a consumer that trusts nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipc/ring.h"

#define CAP BATON_RING_CAPACITY
#define NOW 1000000000000LL /* "now" for validation: 1000 s */

struct fixture {
	struct baton_ring ring;
	struct baton_frame records[CAP];
	struct ipc_ring_reader rd;
	struct baton_frame out[CAP];
	char err[160];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	ipc_ring_reader_init(&f->rd, &f->ring, f->records, CAP, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

/* Frame i (0-based) of a steady 100 FPS game. */
static struct baton_frame frame(uint64_t i)
{
	return (struct baton_frame){
	    .present_ns = NOW - 10000000000LL + (int64_t)i * 10000000,
	    .cpu_ns = 2000000,
	    .sleep_ns = 5000000,
	    .target_period_ns = 10000000,
	    .gpu_ns = 3000000,
	    .gpu_frame = i + 1,
	    .flags = BATON_FRAME_GPU_FENCE,
	    .gate_us = 2000, /* 2 ms of the 5-ms wait were the gate's */
	};
}

static void push(struct fixture *f, uint64_t from, uint64_t n)
{
	for (uint64_t i = from; i < from + n; i++) {
		struct baton_frame fr = frame(i);
		assert_int_equal(ipc_ring_push(&f->ring, f->records, &fr),
		                 i + 1);
	}
}

static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)), 0);
	push(f, 0, 10);
	ssize_t n =
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err));
	assert_int_equal(n, 10);
	for (uint64_t i = 0; i < 10; i++) {
		struct baton_frame want = frame(i);
		want.seq = i + 1;
		assert_memory_equal(&f->out[i], &want, sizeof(want));
	}
	/* Nothing new: nothing read, nothing lost. */
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)), 0);
	assert_int_equal(f->rd.lost, 0);
	/* max bounds one read; the rest comes next time. */
	push(f, 10, 5);
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, 3, NOW, f->err, sizeof(f->err)), 3);
	assert_int_equal(f->out[0].seq, 11);
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)), 2);
	assert_int_equal(f->out[1].seq, 15);
}

static void test_overrun_counts_lost(void **state)
{
	struct fixture *f = *state;
	push(f, 0, CAP + 40);
	ssize_t n =
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err));
	/* The 40 oldest were overrun; of the CAP left, the oldest shares its
	 * slot with the next record the producer writes, so it is dropped
	 * too rather than risk a torn copy. */
	assert_int_equal(n, CAP - 1);
	assert_int_equal(f->rd.lost, 41);
	assert_int_equal(f->out[0].seq, 42);
	assert_int_equal(f->out[n - 1].seq, CAP + 40);
	assert_int_equal(f->rd.tail, CAP + 40);
}

static void test_overwritten_mid_read(void **state)
{
	struct fixture *f = *state;
	push(f, 0, 20);
	ssize_t n =
	    ipc_ring_snapshot(&f->rd, f->out, CAP, f->err, sizeof(f->err));
	assert_int_equal(n, 20);
	/* While the copies are "in flight", the producer laps the ring:
	 * records 0..14 get their slots rewritten (head reaches 15 + CAP). */
	push(f, 20, CAP - 5);
	ssize_t kept = ipc_ring_commit(&f->rd, f->out, (size_t)n, NOW, f->err,
	                               sizeof(f->err));
	/* Record i is safe only while head < i + CAP: i > 15 survive. */
	assert_int_equal(kept, 4);
	assert_int_equal(f->rd.lost, 16);
	assert_int_equal(f->out[0].seq, 17);
	assert_int_equal(f->out[3].seq, 20);
	/* The next read picks up right after the snapshot. */
	n = ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err));
	assert_int_equal(n, CAP - 5);
	assert_int_equal(f->out[0].seq, 21);
}

/* Each way a record can be wrong, applied to record 0 of a fresh ring. */
struct corruption {
	const char *what;
	void (*apply)(struct baton_frame *r);
};

#define CORRUPT(name, stmt)                                                    \
	static void corrupt_##name(struct baton_frame *r)                      \
	{                                                                      \
		stmt;                                                          \
	}
CORRUPT(seq, r->seq = 7)
CORRUPT(present_negative, r->present_ns = -1)
CORRUPT(present_future, r->present_ns = NOW + 1000000001LL)
CORRUPT(cpu_negative, r->cpu_ns = -5)
CORRUPT(cpu_huge, r->cpu_ns = IPC_FRAME_MAX_CPU_NS + 1)
CORRUPT(sleep_negative, r->sleep_ns = -1)
CORRUPT(sleep_huge, r->sleep_ns = IPC_FRAME_MAX_PERIOD_NS + 1)
CORRUPT(period_negative, r->target_period_ns = -1)
CORRUPT(period_huge, r->target_period_ns = IPC_FRAME_MAX_PERIOD_NS + 1)
CORRUPT(gpu_huge, r->gpu_ns = IPC_FRAME_MAX_GPU_NS)
CORRUPT(gpu_frame_zero, r->gpu_frame = 0)
CORRUPT(gpu_frame_future, r->gpu_frame = 2)
CORRUPT(flags, r->flags = 0x80)
/* The gate's share of a 5-ms wait: 5000 us at most. */
CORRUPT(gate_beyond_sleep, r->gate_us = 5001)
CORRUPT(gate_huge, r->gate_us = UINT32_MAX)

static const struct corruption corruptions[] = {
#define C(name)                                                                \
	{                                                                      \
#name, corrupt_##name                                          \
	}
    C(seq),          C(present_negative),  C(present_future),
    C(cpu_negative), C(cpu_huge),          C(sleep_negative),
    C(sleep_huge),   C(period_negative),   C(period_huge),
    C(gpu_huge),     C(gpu_frame_zero),    C(gpu_frame_future),
    C(flags),        C(gate_beyond_sleep), C(gate_huge),
#undef C
};

static void test_each_corrupt_field_rejected(void **state)
{
	struct fixture *f = *state;
	for (size_t k = 0; k < sizeof(corruptions) / sizeof(corruptions[0]);
	     k++) {
		memset(f, 0, sizeof(*f));
		ipc_ring_reader_init(&f->rd, &f->ring, f->records, CAP, 0);
		push(f, 0, 1);
		corruptions[k].apply(&f->records[0]);
		f->err[0] = '\0';
		ssize_t n = ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err,
		                          sizeof(f->err));
		if (n != -EBADMSG)
			fail_msg("%s: accepted", corruptions[k].what);
		assert_true(strlen(f->err) > 0);
	}
	/* The same record, untouched, passes; no measured GPU time is
	 * fine whatever gpu_frame says. */
	memset(f, 0, sizeof(*f));
	ipc_ring_reader_init(&f->rd, &f->ring, f->records, CAP, 0);
	push(f, 0, 1);
	f->records[0].gpu_ns = -1;
	f->records[0].gpu_frame = 99;
	f->records[0].gate_us = 5000; /* the whole wait was the gate's */
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)), 1);
}

/* A best-effort record (shm.h BATON_FRAME_BE) is a known kind: its wait
 * for a window may pass a frame's 10 s bound (batond bounds what it counts
 * of it), but not be negative; its other fields keep their bounds. Which
 * registration may write it is batond's check, not the reader's. */
static void test_be_record(void **state)
{
	struct fixture *f = *state;
	struct baton_frame be = frame(0);
	be.flags = BATON_FRAME_BE;
	be.gate_us = 0;
	be.target_period_ns = 0;
	be.cpu_ns = 12; /* work units */
	be.sleep_ns = 3600LL * 1000000000LL;
	ipc_ring_push(&f->ring, f->records, &be);
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)), 1);
	assert_int_equal(f->out[0].flags, BATON_FRAME_BE);

	/* a frame's wait keeps its bound */
	struct baton_frame fr = frame(1);
	fr.sleep_ns = IPC_FRAME_MAX_PERIOD_NS + 1;
	fr.gate_us = 0;
	ipc_ring_push(&f->ring, f->records, &fr);
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)),
	    -EBADMSG);

	memset(f, 0, sizeof(*f));
	ipc_ring_reader_init(&f->rd, &f->ring, f->records, CAP, 0);
	be.sleep_ns = -1;
	ipc_ring_push(&f->ring, f->records, &be);
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)),
	    -EBADMSG);
	memset(f, 0, sizeof(*f));
	ipc_ring_reader_init(&f->rd, &f->ring, f->records, CAP, 0);
	be.sleep_ns = 0;
	be.gpu_ns = IPC_FRAME_MAX_GPU_NS;
	ipc_ring_push(&f->ring, f->records, &be);
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)),
	    -EBADMSG);
	/* an unknown flag beside it is still refused */
	memset(f, 0, sizeof(*f));
	ipc_ring_reader_init(&f->rd, &f->ring, f->records, CAP, 0);
	be.gpu_ns = 1000;
	be.flags = BATON_FRAME_BE | 8u;
	ipc_ring_push(&f->ring, f->records, &be);
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)),
	    -EBADMSG);
}

static void test_present_not_monotonic(void **state)
{
	struct fixture *f = *state;
	push(f, 0, 3);
	f->records[2].present_ns = f->records[1].present_ns - 1;
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)),
	    -EBADMSG);
	/* Across reads too: the reader remembers the last present. */
	memset(f, 0, sizeof(*f));
	ipc_ring_reader_init(&f->rd, &f->ring, f->records, CAP, 0);
	push(f, 0, 2);
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)), 2);
	struct baton_frame old = frame(0);
	ipc_ring_push(&f->ring, f->records, &old);
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)),
	    -EBADMSG);
}

static void test_head_backwards_is_corruption(void **state)
{
	struct fixture *f = *state;
	push(f, 0, 10);
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)),
	    10);
	atomic_store(&f->ring.head, 5);
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)),
	    -EBADMSG);
	assert_non_null(strstr(f->err, "backwards"));
}

static void test_head_backwards_during_read(void **state)
{
	struct fixture *f = *state;
	push(f, 0, 10);
	assert_int_equal(
	    ipc_ring_snapshot(&f->rd, f->out, CAP, f->err, sizeof(f->err)), 10);
	atomic_store(&f->ring.head, 9);
	assert_int_equal(
	    ipc_ring_commit(&f->rd, f->out, 10, NOW, f->err, sizeof(f->err)),
	    -EBADMSG);
}

static void test_head_jump_is_corruption(void **state)
{
	struct fixture *f = *state;
	atomic_store(&f->ring.head, IPC_RING_MAX_JUMP + 1);
	assert_int_equal(
	    ipc_ring_read(&f->rd, f->out, CAP, NOW, f->err, sizeof(f->err)),
	    -EBADMSG);
	assert_non_null(strstr(f->err, "jumped"));
	/* Exactly 2^32 is an (implausible but possible) overrun. */
	ipc_ring_reader_init(&f->rd, &f->ring, f->records, CAP, 0);
	atomic_store(&f->ring.head, IPC_RING_MAX_JUMP);
	ssize_t n =
	    ipc_ring_snapshot(&f->rd, f->out, CAP, f->err, sizeof(f->err));
	assert_int_equal(n, CAP);
	assert_int_equal(f->rd.lost, IPC_RING_MAX_JUMP - CAP);
}

/* A real producer thread racing the reader: every record the reader keeps
 * must be exactly what was pushed (fields derive from the index), and a
 * torn copy would fail validation or this check. The producer works in
 * rounds of bursts from one record to 64 rings' worth, pushed flat out
 * while the reader reads, then waits until the reader has caught up; a
 * producer that never paused would, on some machines, overwrite every
 * record before the reader could keep it, and how much a reader keeps in
 * a fixed time depends on the machine. */
#define RACE_ROUNDS 400

struct race {
	struct fixture *f;
	atomic_uint_fast64_t pushed;     /* records, after round_done rounds */
	atomic_uint_fast64_t round_done; /* the producer finished this round */
	atomic_uint_fast64_t round_read; /* the reader caught up with it */
	atomic_bool stop;
};

static uint64_t race_burst(uint64_t round)
{
	static const uint64_t sizes[] = {1, CAP / 2, CAP, 3 * CAP, 64 * CAP};
	return sizes[round % 5];
}

static void *producer(void *arg)
{
	struct race *r = arg;
	uint64_t i = 0;
	for (uint64_t round = 1; round <= RACE_ROUNDS; round++) {
		for (uint64_t end = i + race_burst(round); i < end; i++) {
			struct baton_frame fr = frame(i);
			fr.present_ns = (int64_t)i;
			fr.cpu_ns = (int64_t)(i % 1000);
			fr.gpu_frame = i + 1;
			ipc_ring_push(&r->f->ring, r->f->records, &fr);
		}
		atomic_store(&r->pushed, i);
		atomic_store(&r->round_done, round);
		while (atomic_load(&r->round_read) < round &&
		       !atomic_load(&r->stop))
			sched_yield();
	}
	return NULL;
}

static void test_concurrent_producer(void **state)
{
	struct fixture *f = *state;
	static struct race r;
	r = (struct race){.f = f};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, producer, &r), 0);
	uint64_t kept = 0, caught_up = 0, kept_mid_round = 0, idle = 0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (caught_up < RACE_ROUNDS) {
		/* Loaded before the read: if the round was over, one read
		 * reaches the head it published. */
		uint64_t done = atomic_load(&r.round_done);
		uint64_t pushed = atomic_load(&r.pushed);
		ssize_t n = ipc_ring_read(&f->rd, f->out, CAP, INT64_MAX / 2,
		                          f->err, sizeof(f->err));
		if (n < 0) {
			atomic_store(&r.stop, true);
			fail_msg("read: %s", f->err);
		}
		for (ssize_t k = 0; k < n; k++) {
			uint64_t i = f->out[k].seq - 1;
			if (f->out[k].present_ns != (int64_t)i ||
			    f->out[k].cpu_ns != (int64_t)(i % 1000) ||
			    f->out[k].gpu_frame != i + 1) {
				atomic_store(&r.stop, true);
				fail_msg("record %llu kept but not as pushed",
				         (unsigned long long)i);
			}
		}
		kept += (uint64_t)n;
		if (done == caught_up)
			kept_mid_round += (uint64_t)n;
		if (done > caught_up) {
			if (f->rd.tail != pushed) {
				atomic_store(&r.stop, true);
				fail_msg(
				    "round %llu: read to %llu, pushed %llu",
				    (unsigned long long)done,
				    (unsigned long long)f->rd.tail,
				    (unsigned long long)pushed);
			}
			caught_up = done;
			atomic_store(&r.round_read, caught_up);
		} else if (n == 0 && ++idle % 4096 == 0) {
			sched_yield(); /* on one core, let the producer run */
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 120) {
			atomic_store(&r.stop, true);
			fail_msg("no progress: round %llu of %d after 120 s",
			         (unsigned long long)caught_up, RACE_ROUNDS);
		}
	}
	pthread_join(th, NULL);
	/* Every record pushed was either kept whole or counted lost, and
	 * each round's newest record at least was kept. */
	uint64_t pushed = atomic_load(&r.pushed);
	assert_int_equal(kept + f->rd.lost, pushed);
	assert_true(kept >= RACE_ROUNDS);
	print_message("%llu records pushed: %llu kept (%llu while the "
	              "producer pushed), %llu lost\n",
	              (unsigned long long)pushed, (unsigned long long)kept,
	              (unsigned long long)kept_mid_round,
	              (unsigned long long)f->rd.lost);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_overrun_counts_lost, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_overwritten_mid_read, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_each_corrupt_field_rejected,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_present_not_monotonic, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_head_backwards_is_corruption,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_head_backwards_during_read,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_head_jump_is_corruption, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_be_record, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_concurrent_producer, setup,
	                                    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
