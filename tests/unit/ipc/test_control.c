/* The control block's seqlock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "ipc/control.h"

static void test_round_trip(void **state)
{
	(void)state;
	struct baton_control c = {0};
	struct ipc_control_values v = {0};
	/* A zeroed block reads fine: no target yet (not VALID). */
	assert_true(ipc_control_read(&c, &v));
	assert_int_equal(v.flags, 0);
	ipc_control_write(&c, &(struct ipc_control_values){
	                          .target_period_ns = 33333333,
	                          .policy_epoch = 5,
	                          .flags = BATON_CONTROL_VALID,
	                          .cap_ns_per_s = 250000000,
	                          .quality_level = 3,
	                          .partition = BATON_PARTITION(1, 3),
	                      });
	assert_true(ipc_control_read(&c, &v));
	assert_int_equal(v.quality_level, 3);
	assert_int_equal(BATON_PARTITION_FIRST(v.partition), 1);
	assert_int_equal(BATON_PARTITION_COUNT(v.partition), 3);
	assert_int_equal(v.target_period_ns, 33333333);
	assert_int_equal(v.cap_ns_per_s, 250000000);
	assert_int_equal(v.policy_epoch, 5);
	assert_int_equal(v.flags, BATON_CONTROL_VALID);
	assert_int_equal(v.version, BATON_SHM_VERSION);
	assert_int_equal(atomic_load(&c.seq) % 2, 0);
}

static void test_write_in_progress_not_read(void **state)
{
	(void)state;
	struct baton_control c = {0};
	struct ipc_control_values v = {.policy_epoch = 77};
	atomic_store(&c.seq, 3); /* a writer stopped half-way */
	assert_false(ipc_control_read(&c, &v));
	assert_int_equal(v.policy_epoch, 77); /* untouched */
	/* The daemon recovers from a seq the tenant left odd. */
	ipc_control_write(&c, &(struct ipc_control_values){.policy_epoch = 1});
	assert_int_equal(atomic_load(&c.seq) % 2, 0);
	assert_true(ipc_control_read(&c, &v));
	assert_int_equal(v.policy_epoch, 1);
}

/* A writer hammering, a reader checking an invariant between two fields
 * that every complete write keeps: epoch == 3 * period.
 *
 * The writer works in rounds: a burst of back-to-back writes (reads race
 * them), then it waits until the reader has read the round's last value.
 * A writer that never paused would starve a seqlock reader on some
 * machines (every read refused while another core rewrites the line), and
 * how much a reader gets through in a fixed time depends on the machine;
 * the handshake makes the number of complete values checked the same
 * everywhere. */
#define ROUNDS 500
#define BURST  2000

struct hammer {
	struct baton_control c;
	atomic_uint_fast64_t round_done; /* the writer finished this round */
	atomic_uint_fast64_t round_seen; /* the reader read its last value */
	atomic_bool stop;
};

static void *writer(void *arg)
{
	struct hammer *h = arg;
	uint64_t k = 0;
	for (uint64_t r = 1; r <= ROUNDS; r++) {
		for (int j = 0; j < BURST; j++) {
			k++;
			ipc_control_write(&h->c,
			                  &(struct ipc_control_values){
			                      .target_period_ns = (int64_t)k,
			                      .policy_epoch = 3 * k,
			                      .flags = BATON_CONTROL_VALID,
			                  });
		}
		atomic_store(&h->round_done, r);
		while (atomic_load(&h->round_seen) < r &&
		       !atomic_load(&h->stop))
			sched_yield();
	}
	return NULL;
}

static void test_never_torn(void **state)
{
	(void)state;
	static struct hammer h;
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, writer, &h), 0);
	uint64_t ok = 0, refused = 0, distinct = 0, last = 0, seen = 0;
	uint64_t mid_round = 0; /* whole reads while the writer wrote */
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (seen < ROUNDS) {
		/* Loaded before the read: if the round was over, the writer
		 * is waiting and the read must see that round's last value. */
		uint64_t done = atomic_load(&h.round_done);
		struct ipc_control_values v;
		if (!ipc_control_read(&h.c, &v)) {
			refused++;
			if (done > seen) {
				atomic_store(&h.stop, true);
				fail_msg("read refused with the writer idle");
			}
			continue;
		}
		ok++;
		if (v.policy_epoch != 3 * (uint64_t)v.target_period_ns) {
			atomic_store(&h.stop, true);
			fail_msg("torn read: period %lld epoch %llu",
			         (long long)v.target_period_ns,
			         (unsigned long long)v.policy_epoch);
		}
		if (v.policy_epoch != last)
			distinct++;
		if (done == seen)
			mid_round++;
		last = v.policy_epoch;
		if (done > seen) {
			if (v.target_period_ns != (int64_t)(done * BURST)) {
				atomic_store(&h.stop, true);
				fail_msg("round %llu ended at %lld, not %llu",
				         (unsigned long long)done,
				         (long long)v.target_period_ns,
				         (unsigned long long)(done * BURST));
			}
			seen = done;
			atomic_store(&h.round_seen, seen);
		} else if (ok % 4096 == 0) {
			/* On one core the writer runs only if we let it. */
			sched_yield();
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 120) {
			atomic_store(&h.stop, true);
			fail_msg("no progress: round %llu of %d after 120 s",
			         (unsigned long long)seen, ROUNDS);
		}
	}
	pthread_join(th, NULL);
	/* Every round's last value was read whole, so the invariant was
	 * checked against at least ROUNDS different complete writes. */
	assert_true(distinct >= ROUNDS);
	print_message("%llu reads whole (%llu while the writer wrote), %llu "
	              "refused, %llu distinct values\n",
	              (unsigned long long)ok, (unsigned long long)mid_round,
	              (unsigned long long)refused,
	              (unsigned long long)distinct);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_write_in_progress_not_read),
	    cmocka_unit_test(test_never_torn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
