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
 * the intervals the cases use apart (4 ms apart at least). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc/control.h"
#include "ipc/shm_layout.h"
#include "shim/shim.h"

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

/* The median of N_MEDIAN intervals of `stride` frames each, after a few
 * frames to take up what was just set. */
static int64_t median_interval(int stride, int report_every)
{
	int64_t iv[N_MEDIAN], prev = 0;
	for (int i = 0; i < 3; i++)
		prev = frame(report_every);
	for (int i = 0; i < N_MEDIAN; i++) {
		int64_t p = 0;
		for (int k = 0; k < stride; k++)
			p = frame(report_every);
		iv[i] = p - prev;
		prev = p;
	}
	qsort(iv, N_MEDIAN, sizeof(iv[0]), cmp_i64);
	return iv[N_MEDIAN / 2];
}

static bool near(int64_t got, int64_t want)
{
	return got > want * 99 / 100 && got < want * 125 / 100;
}

/* The shim's control block, mapped from its memfd as batond maps it. */
static struct baton_control *own_control(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return NULL;
	struct dirent *e;
	void *base = NULL;
	while (!base && (e = readdir(d))) {
		char path[300], target[128];
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strncmp(target, "/memfd:baton-tenant", 19) != 0)
			continue;
		base = mmap(NULL, BATON_SHM_SIZE, PROT_READ | PROT_WRITE,
		            MAP_SHARED, atoi(e->d_name), 0);
		if (base == MAP_FAILED)
			base = NULL;
	}
	closedir(d);
	if (!base)
		return NULL;
	struct ipc_shm shm;
	ipc_shm_view(base, &shm);
	return shm.control;
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
	CHECK(near(median_interval(1, 1), 2 * COST));
	return 0;
}

/* Only every other frame's GPU time arrives: the lost one is charged at
 * the predicted cost, so two frames still cost 8 ms and take 16. */
static int case_lost_reports_charged(void)
{
	setenv("BATON_CAP", "0.5", 1);
	CHECK(near(median_interval(2, 2), 4 * COST));
	return 0;
}

/* With a pacing target too the later of the two holds: pacing at 50 FPS
 * (20 ms) over the gate's 8 ms; the gate's 8 ms over 200 FPS (5 ms). */
static int case_pacing_and_cap_slow_pacer(void)
{
	setenv("BATON_CAP", "0.5", 1);
	setenv("BATON_FPS", "50", 1);
	CHECK(near(median_interval(1, 1), 20 * MS));
	return 0;
}

static int case_pacing_and_cap_slow_gate(void)
{
	setenv("BATON_CAP", "0.5", 1);
	setenv("BATON_FPS", "200", 1);
	CHECK(near(median_interval(1, 1), 2 * COST));
	return 0;
}

/* The daemon's cap from the control block; with BATON_CAP too the
 * smaller one; an out-of-range value keeps the cap in force; 0 = none. */
static int case_daemon_cap(void)
{
	frame(1);
	struct baton_control *c = own_control();
	CHECK(c != NULL);
	CHECK(median_interval(1, 1) < COST / 2);
	write_cap(c, 250000000u);
	CHECK(near(median_interval(1, 1), 4 * COST));
	write_cap(c, BATON_CAP_MAX_NS_PER_S + 1u);
	CHECK(near(median_interval(1, 1), 4 * COST));
	write_cap(c, 0u);
	CHECK(median_interval(1, 1) < COST / 2);
	return 0;
}

static int case_daemon_and_local_cap(void)
{
	setenv("BATON_CAP", "0.5", 1);
	frame(1);
	struct baton_control *c = own_control();
	CHECK(c != NULL);
	write_cap(c, 250000000u); /* tighter than the local cap: holds */
	CHECK(near(median_interval(1, 1), 4 * COST));
	write_cap(c, 750000000u); /* looser: the local cap holds */
	CHECK(near(median_interval(1, 1), 2 * COST));
	return 0;
}

/* A bad BATON_CAP is ignored (fail open): no cap. */
static int case_bad_local_cap_ignored(void)
{
	static const char *const bad[] = {"1.5", "0", "nan", "-0.5", "0,5", ""};
	const char *v = getenv("GATE_TEST_BAD");
	CHECK(v != NULL);
	setenv("BATON_CAP", bad[atoi(v)], 1);
	CHECK(median_interval(1, 1) < COST / 2);
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
