/* Space harvesting in the BE SDK (src/sdk/be_space.c) against the fake
 * batond: with cpu_device, a sub-launch outside the time slot runs on
 * the partition batond gave, the process confined to its CPU, and ends
 * by the next slot; in the slot the whole CPU set comes back; without
 * cpu_device, or once the partition is revoked, only the slot is used.
 * Needs two CPUs (skipped on one). */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "baton/be.h"
#include "fake_be_open.h"
#include "ipc/shm.h"

#define MS 1000000LL

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static cpu_set_t start_set;

static int setup(void **state)
{
	(void)state;
	return sched_getaffinity(0, sizeof(start_set), &start_set);
}

/* A failed test may leave the process confined. */
static int restore(void **state)
{
	(void)state;
	return sched_setaffinity(0, sizeof(start_set), &start_set);
}

/* The CPU of unit 1: the second CPU of the starting set. */
static int unit1(void)
{
	for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &start_set) && seen++ == 1)
			return cpu;
	return -1;
}

/* Where a release fell: in the slot (true) or outside it. */
static bool in_slot(int64_t t, int64_t start, int64_t len, int64_t period)
{
	return t >= start && (t - start) % period < len;
}

static void partition_outside_slot(void **state)
{
	(void)state;
	if (CPU_COUNT(&start_set) < 2)
		skip();
	struct fake_batond b;
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	baton_be *be = fake_be_open(&b, "space", 1, 5000);
	const int64_t len = 8 * MS, period = 50 * MS;
	int64_t start = now_ns() + 20 * MS;
	fake_batond_control_space(&b, 10 * MS, 1000000000u, start,
	                          (uint32_t)len, (uint32_t)period,
	                          BATON_PARTITION(1, 1));
	assert_int_equal(baton_be_task_begin(be, 1, 1000000000), BATON_OK);
	int part = 0, whole = 0;
	int64_t t_end = now_ns() + 400 * MS;
	while (now_ns() < t_end) {
		int64_t off, cnt;
		assert_int_equal(baton_be_next(be, &off, &cnt), 1);
		int64_t t = now_ns();
		struct baton_be_info before = {.size = sizeof before};
		struct baton_be_info after = {.size = sizeof after};
		baton_be_info(be, &before);
		cpu_set_t mine;
		assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
		if (CPU_COUNT(&mine) == 1) {
			/* on the partition: unit 1's CPU, never past the
			 * next slot's start (20 ms for a late wake-up on a busy
			 * machine) */
			assert_true(CPU_ISSET(unit1(), &mine));
			int64_t next =
			    t < start
			        ? start
			        : start + ((t - start) / period + 1) * period;
			assert_true(t + before.window_ns <= next + 20 * MS);
			part++;
		} else {
			assert_true(CPU_EQUAL(&mine, &start_set));
			whole++;
		}
		/* the fake device: 0.1 ms a block */
		int64_t dev = cnt * MS / 10;
		struct timespec ts = {0, dev < 50 * MS ? dev : 50 * MS};
		nanosleep(&ts, NULL);
		assert_int_equal(baton_be_done(be, off, cnt, dev), BATON_OK);
		baton_be_info(be, &after);
		assert_int_equal(after.partition_launches -
		                     before.partition_launches,
		                 CPU_COUNT(&mine) == 1 ? 1 : 0);
	}
	assert_true(part > 0);
	assert_true(whole > 0);

	/* Revoked: only the slot, on every CPU. */
	fake_batond_control_space(&b, 10 * MS, 1000000000u, start,
	                          (uint32_t)len, (uint32_t)period, 0);
	for (int i = 0; i < 3; i++) {
		int64_t off, cnt;
		assert_int_equal(baton_be_next(be, &off, &cnt), 1);
		int64_t t = now_ns();
		cpu_set_t mine;
		assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
		assert_true(CPU_EQUAL(&mine, &start_set));
		assert_true(
		    in_slot(t - 20 * MS, start, len + 20 * MS, period) ||
		    in_slot(t, start, len, period));
		assert_int_equal(baton_be_done(be, off, cnt, MS), BATON_OK);
	}
	baton_be_close(be);
	fake_batond_stop(&b);
}

/* Without cpu_device the partition is not ours to use: every release is
 * in the slot and the process keeps its CPUs. */
static void partition_needs_cpu_device(void **state)
{
	(void)state;
	if (CPU_COUNT(&start_set) < 2)
		skip();
	struct fake_batond b;
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	baton_be *be = fake_be_open(&b, "space", 0, 5000);
	const int64_t len = 8 * MS, period = 50 * MS;
	int64_t start = now_ns() + 20 * MS;
	fake_batond_control_space(&b, 10 * MS, 1000000000u, start,
	                          (uint32_t)len, (uint32_t)period,
	                          BATON_PARTITION(1, 1));
	assert_int_equal(baton_be_task_begin(be, 1, 1000000000), BATON_OK);
	for (int i = 0; i < 4; i++) {
		int64_t off, cnt;
		assert_int_equal(baton_be_next(be, &off, &cnt), 1);
		int64_t t = now_ns();
		cpu_set_t mine;
		assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
		assert_true(CPU_EQUAL(&mine, &start_set));
		assert_true(in_slot(t, start, len + 20 * MS, period));
		assert_int_equal(baton_be_done(be, off, cnt, MS), BATON_OK);
	}
	struct baton_be_info info = {.size = sizeof info};
	baton_be_info(be, &info);
	assert_int_equal(info.partition_launches, 0);
	baton_be_close(be);
	fake_batond_stop(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(partition_outside_slot, restore),
	    cmocka_unit_test_teardown(partition_needs_cpu_device, restore),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
