/* What batond sees of a tenant's GPU time (daemon/tick/tenant_seen.h), on a
 * fake /proc: the bounds by the epoch, the presents and the process's CPU
 * time; a process two tenants share; one that cannot be read; the
 * software flag borne out or not; an honest tenant's CPU time arriving in
 * /proc's 10 ms clock ticks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <unistd.h>

#include "daemon/tick/tenant_seen.h"
#include "fake_proc.h"

#define MS 1000000LL
#define DT 0.1 /* the epoch, s */
#define T0 (1000 * 1000 * MS)

static int setup(void **state)
{
	static struct fake_proc p;
	fake_proc_init(&p);
	*state = &p;
	return 0;
}

static int teardown(void **state)
{
	fake_proc_done(*state);
	return 0;
}

/* A game presenting every 10 ms until now, claiming gpu_s this epoch. */
static struct tenant_seen_claim game(double gpu_s, int64_t now, bool sw)
{
	return (struct tenant_seen_claim){.gpu_s = gpu_s,
	                                  .records = 10,
	                                  .software = sw,
	                                  .last_present_ns = now,
	                                  .game = true};
}

/* Two tenants of one process that uses 50 ms of CPU an epoch, each
 * claiming 90 ms on a CPU device: together they count the process's CPU
 * time (and the slack), not twice it. */
static void test_one_process_two_tenants(void **state)
{
	struct fake_proc *p = *state;
	struct tenant_seen a, b;
	fake_proc_set(p, 7, 0);
	tenant_seen_open(&a, p->root, 7, T0);
	tenant_seen_open(&b, p->root, 7, T0);
	a.same_pid = b.same_pid = 2;
	double sum = 0;
	for (int e = 1; e <= 20; e++) {
		int64_t now = T0 + e * 100 * MS;
		fake_proc_set(p, 7, e * 50 * MS);
		struct tenant_seen_claim c = game(0.09, now, false);
		sum += tenant_seen_epoch(&a, &c, true, DT);
		sum += tenant_seen_epoch(&b, &c, true, DT);
	}
	assert_float_equal(sum, 20 * 0.05, 0.05);
	assert_float_equal(a.claimed_s, 0.09, 1e-12);
}

/* A process batond cannot read counts nothing on a CPU device, or when
 * its records say software; elsewhere its presents bound it. */
static void test_unmeasured(void **state)
{
	struct fake_proc *p = *state;
	struct tenant_seen s;
	tenant_seen_open(&s, p->root, 4242, T0); /* no such file */
	assert_true(s.unmeasured);
	struct tenant_seen_claim c = game(0.05, T0 + 100 * MS, false);
	assert_float_equal(tenant_seen_epoch(&s, &c, true, DT), 0.0, 0.0);
	c = game(0.05, T0 + 200 * MS, true);
	assert_float_equal(tenant_seen_epoch(&s, &c, false, DT), 0.0, 0.0);
	assert_false(s.software);
	c = game(0.05, T0 + 300 * MS, false);
	assert_float_equal(tenant_seen_epoch(&s, &c, false, DT), 0.05, 1e-12);
}

/* A process that started after the tenant's peer connected holds a
 * reused pid: the tenant is unmeasured, not measured by its CPU time
 * (fake_proc's processes start at tick 4242). */
static void test_reused_pid_unmeasured(void **state)
{
	struct fake_proc *p = *state;
	int64_t tick = 1000000000 / sysconf(_SC_CLK_TCK);
	struct tenant_seen s;
	fake_proc_set(p, 11, 0);
	tenant_seen_open(&s, p->root, 11, T0);
	tenant_seen_check_peer(&s, 4242 * tick); /* connected in its tick */
	assert_false(s.unmeasured);
	tenant_seen_check_peer(&s, 4241 * tick); /* before it started */
	assert_true(s.unmeasured);
	fake_proc_set(p, 11, 500 * MS); /* it burns CPU time: none counts */
	struct tenant_seen_claim c = game(0.05, T0 + 100 * MS, false);
	assert_float_equal(tenant_seen_epoch(&s, &c, true, DT), 0.0, 0.0);
}

/* A game's frames take no more GPU time than the time between their
 * presents: one claiming 90 ms an epoch whose presents span 20 ms counts
 * about 20 ms (a first epoch's carry aside), on any GPU. */
static void test_presents_bound(void **state)
{
	struct fake_proc *p = *state;
	struct tenant_seen s;
	fake_proc_set(p, 8, 0);
	tenant_seen_open(&s, p->root, 8, T0);
	double sum = 0;
	int64_t last = T0;
	for (int e = 1; e <= 20; e++) {
		last += 20 * MS; /* 20 ms of presents an epoch */
		struct tenant_seen_claim c = game(0.09, last, false);
		sum += tenant_seen_epoch(&s, &c, false, DT);
	}
	assert_float_equal(sum, 20 * 0.02, 1e-9);
	/* a best-effort tenant has no presents: the epoch bounds it */
	struct tenant_seen_claim be = {.gpu_s = 0.5, .records = 1};
	assert_float_equal(tenant_seen_epoch(&s, &be, false, DT), DT, 1e-12);
}

/* The software flag holds while the process's CPU time covers the claim;
 * an honest one-core tenant whose CPU time arrives in whole 10 ms ticks
 * (0, 10, 0, 10... ms an epoch) for 5 ms of claims an epoch loses
 * nothing; an idle process claiming the same does not bear it out. */
static void test_software_flag(void **state)
{
	struct fake_proc *p = *state;
	struct tenant_seen honest, idle;
	fake_proc_set(p, 9, 0);
	fake_proc_set(p, 10, 0);
	tenant_seen_open(&honest, p->root, 9, T0);
	tenant_seen_open(&idle, p->root, 10, T0);
	double sum = 0;
	for (int e = 1; e <= 40; e++) {
		int64_t now = T0 + e * 100 * MS;
		fake_proc_set(p, 9, (e / 2) * 10 * MS);
		struct tenant_seen_claim c = game(0.005, now, true);
		sum += tenant_seen_epoch(&honest, &c, true, DT);
		assert_true(honest.software);
		tenant_seen_epoch(&idle, &c, true, DT);
	}
	assert_float_equal(sum, 40 * 0.005, 1e-9);
	assert_false(idle.software);
	assert_float_equal(idle.seen_s, 0.0, 0.0);
}

/* A heavy scene on a CPU device: a frame of 0.2 s of the device (0.4 s
 * of CPU over two cores) every 0.6 s, its cost in one record. It counts
 * in full over the run, never more than an epoch in one epoch; before,
 * each frame counted one epoch of it (half). */
static void test_frames_longer_than_an_epoch(void **state)
{
	struct fake_proc *p = *state;
	struct tenant_seen s;
	fake_proc_set(p, 12, 0);
	tenant_seen_open(&s, p->root, 12, T0);
	double sum = 0;
	int64_t cpu = 0, last = T0;
	for (int e = 1; e <= 62; e++) { /* ten frames, two epochs after */
		int64_t now = T0 + e * 100 * MS;
		cpu += e <= 60 ? 66 * MS : 0; /* 0.4 s of CPU a 0.6-s frame */
		fake_proc_set(p, 12, cpu);
		struct tenant_seen_claim c = {.game = true};
		if (e % 6 == 0 && e <= 60) { /* the frame's record */
			last = now;
			c = game(0.2, last, true);
			c.records = 1;
		}
		c.last_present_ns = last;
		double got = tenant_seen_epoch(&s, &c, true, DT);
		assert_true(got <= DT + 1e-12);
		sum += got;
	}
	assert_float_equal(sum, 10 * 0.2, 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_one_process_two_tenants, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_unmeasured, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reused_pid_unmeasured, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_presents_bound, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_software_flag, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_frames_longer_than_an_epoch,
	                                    setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
