/* The budget gate in the shim's frame path (shim_core.c): a frame waits
 * before Present while the cap's bucket is in debt, charged with the GPU
 * times the front-end reports (lost reports at the predicted cost); with a
 * pacing target too, the later of the two; the cap from BATON_CAP, from
 * the control block, or the smaller of both; a bad BATON_CAP ignored.
 *
 * The shim reads its environment once per process, so each case runs in a
 * child of its own. No daemon: the control block is written by the test
 * itself, through the shim's own memfd found in /proc/self/fd, as batond
 * would write it. Fake Presents report 4 ms of GPU time each, so a cap C
 * spaces frames 4 ms / C apart. Medians are checked with bounds a busy
 * machine cannot break: a gated interval is never shorter than cost / cap
 * (less the time to read the clock), and the bounds only have to tell
 * the intervals the cases use apart (4 ms apart at least): see spaced().
 * The records' gate_us (shm.h) says which waits the gate decided. Last,
 * the control block's other pacing input: the Present phase batond asks
 * for (BATON_CONTROL_PHASE). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc/control.h"
#include "ipc/shm_layout.h"
#include "shim/shim.h"
#include "shim/shim_clock.h"
#include "../../../bench/shim_own_control.h"

#define MS       1000000LL
#define COST     (4 * MS)
#define N_MEDIAN 25

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__,       \
			        __LINE__, #c);                                 \
			return 1;                                              \
		}                                                              \
	} while (0)

/* report_every: a GPU time for one frame in that many (1: every frame),
 * the others' lost as a report overwritten before it was taken. */
static int64_t frame(int report_every)
{
	uint64_t f = shim_frame_begin(SHIM_API_GL);
	int64_t present = shim_now_ns();
	shim_frame_end(f);
	if (f % (uint64_t)report_every == 0)
		shim_gpu_time(f, COST, false);
	return present;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Over N_MEDIAN intervals of `stride` frames each, after a few frames to
 * take up what was just set: true if they come `want` apart. The mean may
 * not be shorter by a tenth: the gate holds the rate whatever the machine
 * does, but a preemption between the gate and the first time stamp
 * shortens the window by its length and leaves credit behind (a tenth of
 * 25 intervals of 8 ms is a 20-ms preemption). The median may not be longer by
 * a quarter: a late wake-up lengthens one interval and, the bucket having
 * filled meanwhile, shortens the next, so only a busy machine's stalls on
 * most frames could move it that far. Prints the numbers otherwise. */
static bool spaced(int stride, int report_every, int64_t want)
{
	int64_t iv[N_MEDIAN], first = 0, prev = 0;
	for (int i = 0; i < 3; i++)
		prev = frame(report_every);
	first = prev;
	for (int i = 0; i < N_MEDIAN; i++) {
		int64_t p = 0;
		for (int k = 0; k < stride; k++)
			p = frame(report_every);
		iv[i] = p - prev;
		prev = p;
	}
	int64_t mean = (prev - first) / N_MEDIAN;
	qsort(iv, N_MEDIAN, sizeof(iv[0]), cmp_i64);
	int64_t median = iv[N_MEDIAN / 2];
	if (mean >= want * 90 / 100 && median < want * 125 / 100)
		return true;
	fprintf(stderr, "want %lld ns apart: mean %lld, median %lld\n",
	        (long long)want, (long long)mean, (long long)median);
	return false;
}

/* Uncapped: the fake frames come at once. */
static int64_t median_interval(void)
{
	int64_t iv[N_MEDIAN], prev = frame(1);
	for (int i = 0; i < N_MEDIAN; i++) {
		int64_t p = frame(1);
		iv[i] = p - prev;
		prev = p;
	}
	qsort(iv, N_MEDIAN, sizeof(iv[0]), cmp_i64);
	return iv[N_MEDIAN / 2];
}

static void write_cap(struct baton_control *c, uint32_t cap_ns_per_s)
{
	ipc_control_write(c, &(struct ipc_control_values){
	                         .target_period_ns = 0, /* unpaced */
	                         .policy_epoch = 1,
	                         .flags = BATON_CONTROL_VALID,
	                         .cap_ns_per_s = cap_ns_per_s,
	                     });
}

/* BATON_CAP=0.5, 4-ms frames: 8 ms apart; uncapped they come at once. */
static int case_local_cap(void)
{
	setenv("BATON_CAP", "0.5", 1);
	CHECK(spaced(1, 1, 2 * COST));
	return 0;
}

/* Only every other frame's GPU time arrives: the lost one is charged at
 * the predicted cost, so two frames still cost 8 ms and take 16. */
static int case_lost_reports_charged(void)
{
	setenv("BATON_CAP", "0.5", 1);
	CHECK(spaced(2, 2, 4 * COST));
	return 0;
}

/* With a pacing target too the later of the two holds: pacing at 50 FPS
 * (20 ms) over the gate's 8 ms; the gate's 8 ms over 200 FPS (5 ms). */
static int case_pacing_and_cap_slow_pacer(void)
{
	setenv("BATON_CAP", "0.5", 1);
	setenv("BATON_FPS", "50", 1);
	CHECK(spaced(1, 1, 20 * MS));
	return 0;
}

static int case_pacing_and_cap_slow_gate(void)
{
	setenv("BATON_CAP", "0.5", 1);
	setenv("BATON_FPS", "200", 1);
	CHECK(spaced(1, 1, 2 * COST));
	return 0;
}

/* The daemon's cap from the control block; with BATON_CAP too the
 * smaller one; an out-of-range value keeps the cap in force; 0 = none. */
static int case_daemon_cap(void)
{
	frame(1);
	struct baton_control *c = own_control();
	CHECK(c != NULL);
	CHECK(median_interval() < COST / 2);
	write_cap(c, 250000000u);
	CHECK(spaced(1, 1, 4 * COST));
	write_cap(c, BATON_CAP_MAX_NS_PER_S + 1u);
	CHECK(spaced(1, 1, 4 * COST));
	write_cap(c, 0u);
	CHECK(median_interval() < COST / 2);
	return 0;
}

static int case_daemon_and_local_cap(void)
{
	setenv("BATON_CAP", "0.5", 1);
	frame(1);
	struct baton_control *c = own_control();
	CHECK(c != NULL);
	write_cap(c, 250000000u); /* tighter than the local cap: holds */
	CHECK(spaced(1, 1, 4 * COST));
	write_cap(c, 750000000u); /* looser: the local cap holds */
	CHECK(spaced(1, 1, 2 * COST));
	return 0;
}

/* The last n records the shim wrote (n <= the ring's capacity). */
static bool last_records(struct baton_frame *out, uint32_t n)
{
	struct ipc_shm shm;
	if (!own_shm(&shm))
		return false;
	uint64_t head = atomic_load(&shm.ring->head);
	if (head < n)
		return false;
	for (uint32_t k = 0; k < n; k++)
		out[k] = shm.records[(head - n + k) & (shm.capacity - 1)];
	return true;
}

/* How many of n records the gate held (gate_us > 0), and how many of
 * those the gate alone held: gate_us is the whole wait (to the
 * microsecond, rounded up). */
static void count_gated(const struct baton_frame *r, uint32_t n,
                        uint32_t *gated, uint32_t *whole)
{
	*gated = *whole = 0;
	for (uint32_t k = 0; k < n; k++) {
		if (r[k].gate_us == 0)
			continue;
		(*gated)++;
		int64_t g = (int64_t)r[k].gate_us * 1000;
		if (g >= r[k].sleep_ns && g < r[k].sleep_ns + 1000)
			(*whole)++;
	}
}

/* Unpaced under BATON_CAP=0.5: every wait is the gate's, and the record
 * says so (gate_us is the whole sleep). Frames come 8 ms apart, so every
 * frame after the first few waits. */
static int case_gate_share_gate_only(void)
{
	setenv("BATON_CAP", "0.5", 1);
	CHECK(spaced(1, 1, 2 * COST));
	struct baton_frame r[N_MEDIAN];
	CHECK(last_records(r, N_MEDIAN));
	uint32_t gated, whole;
	count_gated(r, N_MEDIAN, &gated, &whole);
	CHECK(gated >= N_MEDIAN * 9 / 10);
	CHECK(whole == gated);
	return 0;
}

/* Paced at 200 FPS, no cap: the pacer sleeps and the gate never holds. */
static int case_gate_share_pacer_only(void)
{
	setenv("BATON_FPS", "200", 1);
	CHECK(spaced(1, 1, 5 * MS));
	struct baton_frame r[N_MEDIAN];
	CHECK(last_records(r, N_MEDIAN));
	uint32_t gated, whole, slept = 0;
	count_gated(r, N_MEDIAN, &gated, &whole);
	for (uint32_t k = 0; k < N_MEDIAN; k++)
		slept += r[k].sleep_ns > 0;
	CHECK(slept >= N_MEDIAN * 9 / 10);
	CHECK(gated == 0);
	return 0;
}

/* Paced at 50 FPS with a cap of 0.5 that 4-ms frames 20 ms apart never
 * reach: the pacer sleeps, the gate (full of credit) never holds. */
static int case_gate_share_cap_not_binding(void)
{
	setenv("BATON_CAP", "0.5", 1);
	setenv("BATON_FPS", "50", 1);
	CHECK(spaced(1, 1, 20 * MS));
	struct baton_frame r[N_MEDIAN];
	CHECK(last_records(r, N_MEDIAN));
	uint32_t gated, whole;
	count_gated(r, N_MEDIAN, &gated, &whole);
	CHECK(gated == 0);
	return 0;
}

/* Paced at 50 FPS (20 ms) under a cap that spaces 4-ms frames 21 ms
 * apart: the pacer sleeps to its grid and the gate a little longer, so
 * the gate's share is part of the wait, not all of it. (Under a tighter
 * cap every frame is late for the pacer's grid, which then re-anchors
 * and does not sleep: the whole wait is the gate's.) */
static int case_gate_share_both(void)
{
	setenv("BATON_CAP", "0.19", 1);
	setenv("BATON_FPS", "50", 1);
	CHECK(spaced(1, 1, COST * 100 / 19));
	struct baton_frame r[N_MEDIAN];
	CHECK(last_records(r, N_MEDIAN));
	uint32_t gated, whole;
	count_gated(r, N_MEDIAN, &gated, &whole);
	CHECK(gated >= N_MEDIAN * 9 / 10);
	CHECK(whole <= gated / 2);
	return 0;
}

/* |t - (phase + m period)| for the nearest m. */
static int64_t off_phase(int64_t t, int64_t phase, int64_t period)
{
	int64_t e = (t - phase) % period;
	if (e < 0)
		e += period;
	return e > period / 2 ? period - e : e;
}

/* Paced at 50 FPS by the control block, then given a phase half a period
 * from the grid the pacer anchored (core/harvest_phase.h): within 16
 * frames and a few the Presents fall on it (the median of the last 10
 * within 2 ms: the dead band is 0.25 ms, the rest is room for a busy
 * machine's late wake-ups). */
static int case_daemon_phase(void)
{
	frame(1);
	struct baton_control *c = own_control();
	CHECK(c != NULL);
	const int64_t period = 20 * MS;
	struct ipc_control_values v = {.target_period_ns = period,
	                               .policy_epoch = 1,
	                               .flags = BATON_CONTROL_VALID};
	ipc_control_write(c, &v);
	int64_t p = 0;
	for (int i = 0; i < 5; i++)
		p = frame(1);
	v.present_phase_ns = p + 10 * period + period / 2;
	v.flags |= BATON_CONTROL_PHASE;
	ipc_control_write(c, &v);
	for (int i = 0; i < 30; i++)
		frame(1);
	int64_t e[10];
	for (int i = 0; i < 10; i++)
		e[i] = off_phase(frame(1), v.present_phase_ns, period);
	qsort(e, 10, sizeof(e[0]), cmp_i64);
	if (e[5] >= 2 * MS)
		fprintf(stderr, "median %lld ns off the phase\n",
		        (long long)e[5]);
	CHECK(e[5] < 2 * MS);
	return 0;
}

/* A bad BATON_CAP is ignored (fail open): no cap. */
static int case_bad_local_cap_ignored(void)
{
	static const char *const bad[] = {"1.5", "0", "nan", "-0.5", "0,5", ""};
	const char *v = getenv("GATE_TEST_BAD");
	CHECK(v != NULL);
	setenv("BATON_CAP", bad[atoi(v)], 1);
	CHECK(median_interval() < COST / 2);
	return 0;
}

static void run_in_child(int (*fn)(void))
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		unsetenv("BATON_FPS");
		unsetenv("BATON_CAP");
		unsetenv("BATON_SLA");
		setenv("BATON_SOCKET", "/nonexistent/baton.sock", 1);
		_exit(fn());
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

#define CASE(name)                                                             \
	static void test_##name(void **state)                                  \
	{                                                                      \
		(void)state;                                                   \
		run_in_child(case_##name);                                     \
	}
CASE(local_cap)
CASE(lost_reports_charged)
CASE(pacing_and_cap_slow_pacer)
CASE(pacing_and_cap_slow_gate)
CASE(daemon_cap)
CASE(daemon_and_local_cap)
CASE(gate_share_gate_only)
CASE(gate_share_pacer_only)
CASE(gate_share_cap_not_binding)
CASE(gate_share_both)
CASE(daemon_phase)

static void test_bad_local_cap_ignored(void **state)
{
	(void)state;
	for (int i = 0; i < 6; i++) {
		char v[4];
		snprintf(v, sizeof(v), "%d", i);
		setenv("GATE_TEST_BAD", v, 1);
		run_in_child(case_bad_local_cap_ignored);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_local_cap),
	    cmocka_unit_test(test_lost_reports_charged),
	    cmocka_unit_test(test_pacing_and_cap_slow_pacer),
	    cmocka_unit_test(test_pacing_and_cap_slow_gate),
	    cmocka_unit_test(test_daemon_cap),
	    cmocka_unit_test(test_daemon_and_local_cap),
	    cmocka_unit_test(test_bad_local_cap_ignored),
	    cmocka_unit_test(test_gate_share_gate_only),
	    cmocka_unit_test(test_gate_share_pacer_only),
	    cmocka_unit_test(test_gate_share_cap_not_binding),
	    cmocka_unit_test(test_gate_share_both),
	    cmocka_unit_test(test_daemon_phase),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
