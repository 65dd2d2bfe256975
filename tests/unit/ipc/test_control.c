/* The control block's seqlock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
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
	                      });
	assert_true(ipc_control_read(&c, &v));
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
 * that every complete write keeps: epoch == 3 * period. */
struct hammer {
	struct baton_control c;
	atomic_bool stop;
};

static void *writer(void *arg)
{
	struct hammer *h = arg;
	for (uint64_t k = 1; !atomic_load(&h->stop); k++)
		ipc_control_write(&h->c, &(struct ipc_control_values){
		                             .target_period_ns = (int64_t)k,
		                             .policy_epoch = 3 * k,
		                             .flags = BATON_CONTROL_VALID,
		                         });
	return NULL;
}

static void test_never_torn(void **state)
{
	(void)state;
	static struct hammer h;
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, writer, &h), 0);
	uint64_t ok = 0, refused = 0, distinct = 0, last = 0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 10000; i++) {
			struct ipc_control_values v;
			if (!ipc_control_read(&h.c, &v)) {
				refused++;
				continue;
			}
			ok++;
			if (v.policy_epoch != 3 * (uint64_t)v.target_period_ns)
				fail_msg("torn read: period %lld epoch %llu",
				         (long long)v.target_period_ns,
				         (unsigned long long)v.policy_epoch);
			if (v.policy_epoch != last)
				distinct++;
			last = v.policy_epoch;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((distinct < 1000 || ok < 100000) && t.tv_sec - t0.tv_sec < 10);
	atomic_store(&h.stop, true);
	pthread_join(th, NULL);
	/* The reader saw many different complete writes, so the invariant
	 * was checked against a live writer. */
	assert_true(distinct >= 1000);
	assert_true(ok >= 100000);
	(void)refused;
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
