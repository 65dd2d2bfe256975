/* The idle-priority lane in the BE SDK (src/sdk/be_idle.c) against the
 * fake batond: a cpu_device client asks for it in its hello; in the lane
 * every thread of the process, one started before included, drops to
 * SCHED_IDLE and sub-launches follow each other with no slot; a thread
 * started later inherits it; when the lane closes the slot rules are back
 * and the threads stay at idle priority. Beside the games, out of the
 * lane, a cpu_device client's slot sub-launches lower them too. Without
 * cpu_device no lane is asked for and one written anyway is not followed,
 * and nothing is lowered. A process that may
 * not lower its threads (a seccomp filter here) registers again without
 * the lane and keeps to the slot. */
#include <dirent.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
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

/* How many of this process's live threads run under policy, and how
 * many in all. */
static int threads_under(int policy, int *all)
{
	DIR *dir = opendir("/proc/self/task");
	assert_non_null(dir);
	int n = 0;
	*all = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		int tid = atoi(e->d_name);
		/* a thread just joined may linger there, gone (ESRCH) */
		int p = tid > 0 ? sched_getscheduler(tid) : -1;
		if (p < 0)
			continue;
		(*all)++;
		n += p == policy;
	}
	closedir(dir);
	return n;
}

/* A thread that waits for the test to let it go, as a PoCL worker
 * waits for work. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static bool go;

static void *waiter(void *arg)
{
	int *policy = arg;
	if (policy)
		*policy = sched_getscheduler(0);
	pthread_mutex_lock(&mu);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void release_waiters(void)
{
	pthread_mutex_lock(&mu);
	go = true;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

/* One sub-launch on a fake device (0.1 ms a block, at most 5 ms); its
 * release time. */
static int64_t one(baton_be *be)
{
	int64_t off, cnt;
	assert_int_equal(baton_be_next(be, &off, &cnt), 1);
	int64_t t = now_ns();
	int64_t dev = cnt * MS / 10;
	struct timespec ts = {0, dev < 5 * MS ? dev : 5 * MS};
	nanosleep(&ts, NULL);
	assert_int_equal(baton_be_done(be, off, cnt, dev), BATON_OK);
	return t;
}

/* The daemon writes a slot (8 ms of each 50, no lane): three
 * sub-launches, each released in an occurrence (20 ms for a late
 * wake-up on a busy machine). */
static void three_in_slot(struct fake_batond *b, baton_be *be)
{
	const int64_t len = 8 * MS, period = 50 * MS;
	int64_t start = now_ns() + 10 * MS;
	fake_batond_control_slot(b, 10 * MS, 1000000000u, start, (uint32_t)len,
	                         (uint32_t)period);
	for (int i = 0; i < 3; i++) {
		int64_t t = one(be);
		assert_true(t >= start && (t - start) % period < len + 20 * MS);
	}
}

/* A waiting thread started first (as PoCL's workers are), then a fake
 * batond and a cpu_device client registered with it. */
static baton_be *waiter_then_client(pthread_t *before, struct fake_batond *b,
                                    const char *name)
{
	go = false;
	assert_int_equal(pthread_create(before, NULL, waiter, NULL), 0);
	assert_true(fake_batond_start(b, FAKE_WELCOME));
	return fake_be_open(b, name, 1, 2000);
}

/* Runs before the seccomp test, which cannot be undone: the lane, then
 * the slot again. */
static void lane_lowers_every_thread(void **state)
{
	(void)state;
	pthread_t before;
	struct fake_batond b;
	baton_be *be = waiter_then_client(&before, &b, "lane");
	assert_non_null(strstr(b.hello, "\"partition\":true"));
	assert_non_null(strstr(b.hello, "\"idle\":true"));
	int all;
	assert_int_equal(threads_under(SCHED_IDLE, &all), 0);

	fake_batond_control_idle(&b, 10 * MS, 1000000000u);
	assert_int_equal(baton_be_task_begin(be, 1, 1000000000), BATON_OK);
	for (int i = 0; i < 20; i++)
		one(be);
	struct baton_be_info info = {.size = sizeof info};
	assert_int_equal(baton_be_info(be, &info), BATON_OK);
	assert_int_equal(info.launches, 20);
	assert_int_equal(info.idle_launches, 20);
	assert_int_equal(info.window_ns, 10 * MS);
	/* every thread: the test's, the waiter started before, the fake
	 * batond's (the same process here) */
	int idle = threads_under(SCHED_IDLE, &all);
	assert_int_equal(idle, all);
	assert_true(all >= 3);
	/* a thread started now inherits it */
	int policy = -1;
	pthread_t after;
	assert_int_equal(pthread_create(&after, NULL, waiter, &policy), 0);

	/* The lane closes: the slot again, at idle priority still. */
	three_in_slot(&b, be);
	assert_int_equal(baton_be_info(be, &info), BATON_OK);
	assert_int_equal(info.idle_launches, 20);
	assert_int_equal(info.launches, 23);
	release_waiters();
	pthread_join(before, NULL);
	pthread_join(after, NULL);
	assert_int_equal(policy, SCHED_IDLE);
	idle = threads_under(SCHED_IDLE, &all);
	assert_int_equal(idle, all);
	baton_be_close(be);
	fake_batond_stop(&b);
}

/* Without cpu_device: no lane asked for, and one written anyway (a
 * confused daemon) is waited out, not followed. Runs before the first
 * test lowers the whole process. */
static void lane_needs_cpu_device(void **state)
{
	(void)state;
	struct fake_batond b;
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	baton_be *be = fake_be_open(&b, "lane", 0, 100);
	assert_null(strstr(b.hello, "\"idle\""));
	fake_batond_control_idle(&b, 10 * MS, 1000000000u);
	assert_int_equal(baton_be_task_begin(be, 1, 1000), BATON_OK);
	int64_t off, cnt;
	assert_int_equal(baton_be_next(be, &off, &cnt), BATON_ETIMEDOUT);
	int all;
	assert_int_equal(threads_under(SCHED_IDLE, &all), 0);
	/* nor beside the games: the device is not our CPUs */
	three_in_slot(&b, be);
	assert_int_equal(threads_under(SCHED_IDLE, &all), 0);
	baton_be_close(be);
	fake_batond_stop(&b);
}

/* Beside the games, not in the lane: a cpu_device client's periodical
 * sub-launches (the slot's) run at idle priority too, every thread
 * lowered; alone (continuous) it keeps its priority. Runs in a child:
 * the lowering is for good. */
static void slot_lowers_cpu_device(void **state)
{
	(void)state;
	pthread_t before;
	struct fake_batond b;
	baton_be *be = waiter_then_client(&before, &b, "slot");
	fake_batond_control(&b, 10 * MS, 1000000000u, true);
	assert_int_equal(baton_be_task_begin(be, 1, 1000000000), BATON_OK);
	for (int i = 0; i < 3; i++)
		one(be);
	int all;
	assert_int_equal(threads_under(SCHED_IDLE, &all), 0);
	three_in_slot(&b, be);
	assert_int_equal(threads_under(SCHED_IDLE, &all), all);
	assert_true(all >= 3);
	struct baton_be_info info = {.size = sizeof info};
	assert_int_equal(baton_be_info(be, &info), BATON_OK);
	assert_int_equal(info.idle_launches, 0);         /* not the lane's */
	assert_int_equal(atomic_load(&b.registered), 1); /* not again */
	release_waiters();
	pthread_join(before, NULL);
	baton_be_close(be);
	fake_batond_stop(&b);
}

/* sched_setscheduler fails with EPERM for this thread and those it
 * starts from now on (not for the fake batond's, started before). */
static bool forbid_sched_setscheduler(void)
{
#if defined(__x86_64__)
	const uint32_t arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
	const uint32_t arch = AUDIT_ARCH_AARCH64;
#else
	return false;
#endif
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	             offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	             offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sched_setscheduler, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

/* Lowering refused: the client registers again without "idle" and
 * keeps to the slot, at normal priority (lowering for the slot fails
 * too, and changes nothing else). Runs in a child, so the filter dies
 * with it. */
static void refused_registers_again(void **state)
{
	(void)state;
	struct fake_batond b;
	assert_true(fake_batond_start(&b, FAKE_WELCOME));
	if (!forbid_sched_setscheduler()) {
		fake_batond_stop(&b);
		skip();
	}
	baton_be *be = fake_be_open(&b, "lane", 1, 2000);
	assert_non_null(strstr(b.hello, "\"idle\":true"));
	fake_batond_control_idle(&b, 10 * MS, 1000000000u);
	assert_int_equal(baton_be_task_begin(be, 1, 1000000000), BATON_OK);
	int64_t off, cnt;
	/* no window: the lane is not ours, and the new registration has
	 * no control block yet */
	assert_int_equal(baton_be_next(be, &off, &cnt), BATON_ETIMEDOUT);
	assert_true(fake_batond_wait(&b, 2));
	assert_non_null(strstr(b.hello, "\"partition\":true"));
	assert_null(strstr(b.hello, "\"idle\""));
	three_in_slot(&b, be);
	struct baton_be_info info = {.size = sizeof info};
	baton_be_info(be, &info);
	assert_int_equal(info.idle_launches, 0);
	int all;
	assert_int_equal(threads_under(SCHED_IDLE, &all), 0);
	baton_be_close(be);
	fake_batond_stop(&b);
}

/* Runs one test in a child (a filter, or a lowering, that cannot be
 * undone); its failures, or 1 if it did not exit. */
static int in_child(const char *name, CMUnitTestFunction fn)
{
	pid_t pid = fork();
	if (pid == 0) {
		const struct CMUnitTest t[] = {
		    {name, fn, NULL, NULL, NULL},
		};
		_exit(cmocka_run_group_tests_name(name, t, NULL, NULL));
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(void)
{
	/* The refusal and the slot first, each in a child; then the lane,
	 * which lowers this process for good. */
	int failed =
	    in_child("refused_registers_again", refused_registers_again);
	failed += in_child("slot_lowers_cpu_device", slot_lowers_cpu_device);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(lane_needs_cpu_device),
	    cmocka_unit_test(lane_lowers_every_thread),
	};
	return failed + cmocka_run_group_tests(tests, NULL, NULL);
}
