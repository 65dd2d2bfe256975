/* Space harvesting's mechanism on a software rasterizer
 * (src/ipc/cpu_partition.c): the units of a partition are the starting
 * CPU set's CPUs in order, and applying one confines every thread of the
 * process, the ones started before it included; the whole set comes back
 * with partition 0. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "ipc/cpu_partition.h"
#include "ipc/shm.h"

/* A base of CPUs 1, 4, 5 and 9: units are indices into it. */
static void test_units_in_order(void **state)
{
	(void)state;
	struct cpu_partition cp = {.n_base = 4};
	CPU_ZERO(&cp.base);
	int cpus[] = {1, 4, 5, 9};
	for (size_t i = 0; i < 4; i++)
		CPU_SET(cpus[i], &cp.base);
	cpu_set_t s;
	assert_true(cpu_partition_set(&cp, BATON_PARTITION(1, 2), &s));
	assert_int_equal(CPU_COUNT(&s), 2);
	assert_true(CPU_ISSET(4, &s) && CPU_ISSET(5, &s));
	/* 0 and a count of 0: the whole base */
	assert_true(cpu_partition_set(&cp, 0, &s));
	assert_true(CPU_EQUAL(&s, &cp.base));
	assert_true(cpu_partition_set(&cp, BATON_PARTITION(3, 0), &s));
	assert_true(CPU_EQUAL(&s, &cp.base));
	/* clamped to the base; past it, nothing */
	assert_true(cpu_partition_set(&cp, BATON_PARTITION(3, 100), &s));
	assert_int_equal(CPU_COUNT(&s), 1);
	assert_true(CPU_ISSET(9, &s));
	assert_false(cpu_partition_set(&cp, BATON_PARTITION(4, 1), &s));
	assert_false(
	    cpu_partition_set(&cp, BATON_PARTITION(0xffff, 0xffff), &s));
	/* an unknown base applies nothing */
	struct cpu_partition none = {0};
	assert_int_equal(cpu_partition_apply(&none, 0), -1);
}

static pthread_barrier_t ready, done;

static void *sleeper(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&done);
	cpu_set_t *mine = malloc(sizeof(*mine));
	if (mine && sched_getaffinity(0, sizeof(*mine), mine) != 0)
		CPU_ZERO(mine);
	return mine;
}

/* The real process: a thread started before the partition is confined
 * too. Needs two CPUs to divide (skipped on one). */
static void test_apply_confines_threads(void **state)
{
	(void)state;
	struct cpu_partition cp;
	cpu_partition_init(&cp);
	if (cp.n_base < 2)
		skip();
	pthread_t t;
	pthread_barrier_init(&ready, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	assert_int_equal(pthread_create(&t, NULL, sleeper, NULL), 0);
	pthread_barrier_wait(&ready);
	assert_true(cpu_partition_apply(&cp, BATON_PARTITION(1, 1)) >= 2);
	assert_int_equal(cp.applied, BATON_PARTITION(1, 1));
	cpu_set_t want, got;
	assert_true(cpu_partition_set(&cp, BATON_PARTITION(1, 1), &want));
	assert_int_equal(sched_getaffinity(0, sizeof(got), &got), 0);
	assert_true(CPU_EQUAL(&got, &want));
	pthread_barrier_wait(&done);
	cpu_set_t *theirs;
	assert_int_equal(pthread_join(t, (void **)&theirs), 0);
	assert_non_null(theirs);
	assert_true(CPU_EQUAL(theirs, &want));
	free(theirs);
	/* back to the whole set */
	assert_true(cpu_partition_apply(&cp, 0) >= 1);
	assert_int_equal(cp.applied, 0);
	assert_int_equal(sched_getaffinity(0, sizeof(got), &got), 0);
	assert_true(CPU_EQUAL(&got, &cp.base));
	/* a partition past the base changes nothing */
	assert_int_equal(cpu_partition_apply(&cp, BATON_PARTITION(64, 1)), -1);
	assert_int_equal(cp.applied, 0);
	pthread_barrier_destroy(&ready);
	pthread_barrier_destroy(&done);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_units_in_order),
	    cmocka_unit_test(test_apply_confines_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
