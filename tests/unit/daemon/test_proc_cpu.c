/* A tenant process's CPU clock from /proc/PID/stat: hostile names, a pid
 * reused by another process, a process that exits, and a real sample. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/tick/proc_cpu.h"

/* fields 3..22 after "(comm)": state, then 17 numbers; utime is the
 * 12th number after the state, stime the 13th, starttime the 19th. */
#define TAIL(ut, st, start)                                                    \
	" S 1 2 3 4 5 6 7 8 9 10 " #ut " " #st " 0 0 20 0 1 0 " #start " 99 "  \
	"7\n"

static void test_parse(void **state)
{
	(void)state;
	int64_t ns;
	uint64_t start;
	assert_true(proc_cpu_parse("42 (glxgears)" TAIL(150, 50, 777), 100, &ns,
	                           &start));
	assert_int_equal(ns, 2000000000); /* 200 ticks at 100 Hz */
	assert_int_equal(start, 777);
	/* a name with spaces and parentheses that mimic fields */
	assert_true(proc_cpu_parse(
	    "42 (a) R 1 2 3 4 5 6 7 8 9 10 999 999 ( x)" TAIL(1, 2, 5), 100,
	    &ns, &start));
	assert_int_equal(ns, 30000000);
	assert_int_equal(start, 5);
	/* no ')', too few fields, garbage, bad tick rate, overflow */
	assert_false(proc_cpu_parse("42 glxgears S 1 2", 100, &ns, &start));
	assert_false(proc_cpu_parse("42 (x) S 1 2 3", 100, &ns, &start));
	assert_false(proc_cpu_parse("42 (x)" TAIL(a, b, c), 100, &ns, &start));
	assert_false(proc_cpu_parse("42 (x)" TAIL(1, 1, 1), 0, &ns, &start));
	assert_false(proc_cpu_parse("42 (x)" TAIL(18446744073709551615, 1, 1),
	                            100, &ns, &start));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A fake /proc: the same pid's file with another start time is another
 * process; counts that go backwards are not this process either. */
static void test_reused_pid(void **state)
{
	(void)state;
	char root[] = "/tmp/baton-proc-cpu-XXXXXX";
	assert_non_null(mkdtemp(root));
	char dir[128], path[160];
	snprintf(dir, sizeof(dir), "%s/4242", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/stat", dir);
	long hz = sysconf(_SC_CLK_TCK);
	write_file(path, "4242 (game)" TAIL(10, 0, 100));

	struct proc_cpu p;
	assert_true(proc_cpu_open(&p, root, 4242));
	write_file(path, "4242 (game)" TAIL(15, 5, 100));
	int64_t used;
	assert_true(proc_cpu_sample(&p, &used));
	assert_int_equal(used, 10 * (1000000000 / hz));
	/* backwards */
	write_file(path, "4242 (game)" TAIL(1, 0, 100));
	assert_false(proc_cpu_sample(&p, &used));
	assert_false(p.ok);
	/* reused */
	assert_true(proc_cpu_open(&p, root, 4242));
	write_file(path, "4242 (other)" TAIL(50, 0, 101));
	assert_false(proc_cpu_sample(&p, &used));
	assert_false(proc_cpu_sample(&p, &used)); /* and stays refused */
	unlink(path);
	rmdir(dir);
	rmdir(root);
	assert_false(proc_cpu_open(&p, root, 4242)); /* gone */
	assert_false(proc_cpu_open(&p, root, 0));
}

/* The real /proc: our own CPU time grows while we spin; a child that
 * exited and was reaped cannot be sampled. */
static void test_real_process(void **state)
{
	(void)state;
	struct proc_cpu p;
	assert_true(proc_cpu_open(&p, NULL, getpid()));
	struct timespec t0, t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) <
	       200000000L);
	int64_t used;
	assert_true(proc_cpu_sample(&p, &used));
	assert_true(used > 0);

	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	struct proc_cpu c;
	bool opened = proc_cpu_open(&c, NULL, child);
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	if (opened)
		assert_false(proc_cpu_sample(&c, &used));
}

/* A start time after the peer connected is a reused pid: the stat's
 * start is in ticks, rounded down, so only a tick wholly after the
 * connection counts as after it. */
static void test_started_after(void **state)
{
	(void)state;
	char root[] = "/tmp/baton-proc-cpu-XXXXXX";
	assert_non_null(mkdtemp(root));
	char dir[128], path[160];
	snprintf(dir, sizeof(dir), "%s/4242", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/stat", dir);
	int64_t tick = 1000000000 / sysconf(_SC_CLK_TCK);
	write_file(path, "4242 (game)" TAIL(10, 0, 100));
	struct proc_cpu p;
	assert_true(proc_cpu_open(&p, root, 4242));
	assert_true(proc_cpu_started_after(&p, 99 * tick));
	assert_true(proc_cpu_started_after(&p, 100 * tick - 1));
	assert_false(proc_cpu_started_after(&p, 100 * tick));
	assert_false(proc_cpu_started_after(&p, 100 * tick + tick / 2));
	assert_false(proc_cpu_started_after(&p, 500 * tick));
	p.ok = false; /* not open: nothing to say */
	assert_false(proc_cpu_started_after(&p, 0));
	unlink(path);
	rmdir(dir);
	rmdir(root);
}

/* The real /proc's start times against CLOCK_BOOTTIME: we started before
 * now; a child forked two ticks after a reading started after it. */
static void test_real_start_times(void **state)
{
	(void)state;
	struct timespec ts;
	assert_int_equal(clock_gettime(CLOCK_BOOTTIME, &ts), 0);
	int64_t before = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	struct proc_cpu self;
	assert_true(proc_cpu_open(&self, NULL, getpid()));
	assert_false(proc_cpu_started_after(&self, before));
	usleep(2 * 1000000 / sysconf(_SC_CLK_TCK));
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		char c;
		close(fds[1]);
		(void)!read(fds[0], &c, 1); /* until the parent has looked */
		_exit(0);
	}
	close(fds[0]);
	struct proc_cpu c;
	bool opened = proc_cpu_open(&c, NULL, child);
	close(fds[1]);
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(opened);
	assert_true(proc_cpu_started_after(&c, before));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_reused_pid),
	    cmocka_unit_test(test_real_process),
	    cmocka_unit_test(test_started_after),
	    cmocka_unit_test(test_real_start_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
