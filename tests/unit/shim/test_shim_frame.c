/* The shim's frame path against a fake Present, pinned by BATON_FPS=100
 * (set by meson for this test; the shim reads it at the first frame).
 * BATON_SOCKET points nowhere: no daemon takes part. Timing checks are
 * loose enough for a busy machine yet fail on a pacer that does not pace,
 * bursts, or sleeps past a period. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "shim/shim.h"
#include "shim/shim_clock.h"
#include "shim/shim_sleep.h"

#define MS     1000000LL
#define PERIOD (10 * MS) /* 100 FPS */
/* Shorter than any paced interval, longer than a burst's (which has no
 * sleep at all): a frame preempted late makes the next interval short,
 * but not this short unless the delay was 8 ms. */
#define NOT_A_BURST (PERIOD / 5)

static void busy_for(int64_t ns)
{
	int64_t end = shim_now_ns() + ns;
	while (shim_now_ns() < end)
		;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* One frame: begin (the pacing sleep), a fake Present, end, then the
 * app's CPU work. Returns when Present was called. */
static int64_t frame(int64_t work_ns)
{
	uint64_t f = shim_frame_begin(SHIM_API_GL);
	assert_true(f > 0);
	int64_t present = shim_now_ns();
	shim_frame_end(f);
	busy_for(work_ns);
	return present;
}

static void test_paces_to_the_pinned_rate(void **state)
{
	(void)state;
	uint64_t a = shim_frame_begin(SHIM_API_GL);
	shim_frame_end(a);
	uint64_t b = shim_frame_begin(SHIM_API_GL);
	shim_frame_end(b);
	assert_int_equal(b, a + 1);

	/* The median interval: a busy machine may delay a few frames past
	 * their deadline, which costs the mean but not the median. */
	int64_t iv[101], prev = frame(MS);
	for (int i = 0; i < 101; i++) {
		int64_t p = frame(MS);
		iv[i] = p - prev;
		prev = p;
	}
	qsort(iv, 101, sizeof(iv[0]), cmp_i64);
	assert_true(iv[50] > PERIOD * 99 / 100 && iv[50] < PERIOD * 101 / 100);
}

static void test_no_burst_and_no_long_sleep_after_a_stall(void **state)
{
	(void)state;
	frame(0);
	busy_for(300 * MS); /* a hitch: the grid is far behind now */
	int64_t t0 = shim_now_ns();
	int64_t p0 = frame(0);
	/* Late: presented at once, not after a period. */
	assert_true(p0 - t0 < PERIOD);
	int64_t prev = p0;
	for (int i = 0; i < 5; i++) {
		int64_t p = frame(0);
		/* No sleep anywhere near the stall's length (generous slack:
		 * a loaded machine may wake us late). */
		assert_true(p - prev < PERIOD + 100 * MS);
		prev = p;
	}
	/* The grid was re-anchored at the late frame: five more frames take
	 * five periods. A pacer catching up with the old grid would burst
	 * them out in no time. A late wake-up on a busy machine shortens the
	 * next interval but not the sum, so this holds under load. */
	assert_true(prev - p0 >= 5 * PERIOD - NOT_A_BURST / 4);
}

static void test_a_nested_present_passes_through(void **state)
{
	(void)state;
	uint64_t outer = shim_frame_begin(SHIM_API_GL);
	assert_true(outer > 0);
	/* GL on Vulkan, or a hook reached twice: the inner Present is not
	 * paced again. */
	int64_t t = shim_now_ns();
	assert_int_equal(shim_frame_begin(SHIM_API_VULKAN), 0);
	assert_true(shim_now_ns() - t < MS);
	shim_frame_end(outer);
	assert_true(shim_frame_begin(SHIM_API_GL) == outer + 1);
	shim_frame_end(outer + 1);
}

static void *report(void *arg)
{
	(void)arg;
	for (uint64_t i = 1; i < 20000; i++)
		shim_gpu_time(i, (int64_t)i, i & 1);
	return NULL;
}

static void test_gpu_reports_from_another_thread(void **state)
{
	(void)state;
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, report, NULL), 0);
	for (int i = 0; i < 50; i++)
		frame(0);
	pthread_join(t, NULL);
	/* Out-of-range reports are dropped, not fed to the predictor: GPU
	 * times of 20 s would make every wake-up 20 s early, that is every
	 * frame late and unpaced. */
	/* Judged on the sum, as the stall test above: a wake-up delayed by a
	 * loaded machine shortens the next interval, not the sum, while a
	 * pacer fed those reports would not sleep at all. */
	int64_t first = 0, last = 0;
	for (int i = 0; i < 12; i++) {
		uint64_t f = shim_frame_begin(SHIM_API_GL);
		int64_t p = shim_now_ns();
		shim_frame_end(f);
		shim_gpu_time(f, 20000 * MS, false);
		if (i == 2)
			first = p;
		last = p;
	}
	assert_true(last - first >= 9 * PERIOD - NOT_A_BURST / 4);
}

static void test_sleeper_never_wakes_early(void **state)
{
	(void)state;
	struct shim_sleeper fixed, adaptive;
	shim_sleeper_init(&fixed, 100000);
	shim_sleeper_init(&adaptive, -1);
	for (int i = 0; i < 100; i++) {
		struct shim_sleeper *s = i & 1 ? &fixed : &adaptive;
		int64_t wake = shim_now_ns() + 2 * MS;
		int64_t back = shim_sleep_until(s, wake);
		assert_true(back >= wake);
		assert_true(shim_now_ns() >= wake);
		assert_true(adaptive.margin_ns >= SHIM_MARGIN_MIN_NS &&
		            adaptive.margin_ns <= SHIM_MARGIN_MAX_NS);
	}
	assert_int_equal(fixed.margin_ns, 100000);
	/* A wake time in the past returns at once. */
	int64_t t = shim_now_ns();
	assert_true(shim_sleep_until(&fixed, t - MS) - t < MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paces_to_the_pinned_rate),
	    cmocka_unit_test(test_no_burst_and_no_long_sleep_after_a_stall),
	    cmocka_unit_test(test_a_nested_present_passes_through),
	    cmocka_unit_test(test_gpu_reports_from_another_thread),
	    cmocka_unit_test(test_sleeper_never_wakes_early),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
