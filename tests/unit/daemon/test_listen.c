/* The control socket's creation (listen.h): which socket directories batond
 * refuses, and that the socket is born connectable by every user without a
 * chmod() by path. The cases about other owners need root (to chown to
 * uid 65534); elsewhere they are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/server/listen.h"

#define NOBODY 65534

/* Every chmod() by path the code under test makes: it must make none (the
 * path could name someone else's file by then). This definition wins over
 * libc's for the daemon library linked in here. */
static int chmod_calls;

int chmod(const char *path, mode_t mode)
{
	chmod_calls++;
	return fchmodat(AT_FDCWD, path, mode, 0);
}

/* A private directory (0700, ours) in /tmp for each test. */
struct scratch {
	char top[48];
	char dir[64];   /* top/run: the socket directory */
	char sock[108]; /* dir/batond.sock */
};

static int setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	snprintf(s->top, sizeof(s->top), "/tmp/baton-listen-XXXXXX");
	if (!mkdtemp(s->top)) {
		free(s);
		return -1;
	}
	snprintf(s->dir, sizeof(s->dir), "%s/run", s->top);
	snprintf(s->sock, sizeof(s->sock), "%s/batond.sock", s->dir);
	*state = s;
	chmod_calls = 0;
	return 0;
}

static int teardown(void **state)
{
	struct scratch *s = *state;
	unlink(s->sock);
	unlink(s->dir); /* when it is a symlink */
	rmdir(s->dir);
	rmdir(s->top);
	free(s);
	return 0;
}

static void make_run_dir(const struct scratch *s, mode_t mode)
{
	assert_int_equal(mkdir(s->dir, 0700), 0);
	assert_int_equal(fchmodat(AT_FDCWD, s->dir, mode, 0), 0);
}

static void skip_unless_root(void)
{
	if (geteuid() != 0) {
		print_message("needs root to chown to uid %d\n", NOBODY);
		skip();
	}
}

/* listener_open() must fail with an error naming the directory and
 * containing want, and leave no socket behind. */
static void expect_refused(const struct scratch *s, const char *want)
{
	struct listener l;
	char err[512] = "";
	assert_false(listener_open(&l, s->sock, err, sizeof(err)));
	assert_int_equal(l.fd, -1);
	if (!strstr(err, s->dir) || !strstr(err, want))
		fail_msg("error \"%s\" does not name %s and \"%s\"", err,
		         s->dir, want);
	struct stat st;
	assert_int_equal(lstat(s->sock, &st), -1);
	assert_int_equal(chmod_calls, 0);
}

static void test_writable_by_others_refused(void **state)
{
	struct scratch *s = *state;
	make_run_dir(s, 0777);
	expect_refused(s, "writable by group or others (owner uid");
	expect_refused(s, "mode 0777");
	/* Refused without touching it. */
	struct stat st;
	assert_int_equal(stat(s->dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0777);
	/* Sticky is not enough for the socket directory itself. */
	assert_int_equal(fchmodat(AT_FDCWD, s->dir, 01777, 0), 0);
	expect_refused(s, "mode 1777");
	/* Group-writable is refused too. */
	assert_int_equal(fchmodat(AT_FDCWD, s->dir, 0775, 0), 0);
	expect_refused(s, "mode 0775");
}

static void test_ancestor_writable_refused(void **state)
{
	struct scratch *s = *state;
	/* Tells gcc -O2 with the sanitizers that s->top below is a string
	 * (it warns that a NULL s would make it NULL). */
	if (!s)
		abort();
	make_run_dir(s, 0755);
	assert_int_equal(fchmodat(AT_FDCWD, s->top, 0777, 0), 0);
	char want[128];
	snprintf(want, sizeof(want), "its ancestor %s is writable", s->top);
	expect_refused(s, want);
	/* A sticky ancestor (as /tmp) is fine. */
	assert_int_equal(fchmodat(AT_FDCWD, s->top, 01777, 0), 0);
	struct listener l;
	char err[512] = "";
	if (!listener_open(&l, s->sock, err, sizeof(err)))
		fail_msg("%s", err);
	listener_close(&l);
}

static void test_other_owner_refused(void **state)
{
	struct scratch *s = *state;
	skip_unless_root();
	/* As if uid 65534 had created it before batond could (mkdir's
	 * EEXIST): the ownership check decides. */
	make_run_dir(s, 0755);
	assert_int_equal(chown(s->dir, NOBODY, NOBODY), 0);
	expect_refused(s, "owned by uid 65534 (mode 0755)");
}

static void test_symlink_of_other_refused(void **state)
{
	struct scratch *s = *state;
	skip_unless_root();
	/* A symlink a user planted, to a directory that passes every check
	 * itself (the scratch directory). */
	assert_int_equal(symlink(s->top, s->dir), 0);
	assert_int_equal(lchown(s->dir, NOBODY, NOBODY), 0);
	expect_refused(s, "the symlink");
	expect_refused(s, "owned by uid 65534");
}

/* Connects to sock as uid 65534 in a child: its exit status is 0 if the
 * connection was accepted, else the errno. */
static int connect_as_nobody(const char *sock)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
			_exit(100);
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			_exit(errno & 0x7f);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_good_dir(void **state)
{
	struct scratch *s = *state;
	make_run_dir(s, 0755);
	/* Even the narrowest umask of the caller. */
	mode_t old = umask(0077);
	struct listener l;
	char err[512] = "";
	bool ok = listener_open(&l, s->sock, err, sizeof(err));
	mode_t after = umask(old);
	if (!ok)
		fail_msg("%s", err);
	assert_int_equal(after, 0077); /* restored */
	struct stat st;
	assert_int_equal(lstat(s->sock, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0666);
	assert_int_equal(chmod_calls, 0);
	if (geteuid() == 0) {
		/* The top directory is 0700: let others reach run/. */
		assert_int_equal(fchmodat(AT_FDCWD, s->top, 0755, 0), 0);
		assert_int_equal(connect_as_nobody(s->sock), 0);
	}
	listener_close(&l);
	assert_int_equal(lstat(s->sock, &st), -1);
}

static void test_missing_dir_created(void **state)
{
	struct scratch *s = *state;
	unsetenv("XDG_RUNTIME_DIR");
	mode_t old = umask(0077);
	struct listener l;
	char err[512] = "";
	bool ok = listener_open(&l, s->sock, err, sizeof(err));
	umask(old);
	if (!ok)
		fail_msg("%s", err);
	/* 0755 whatever the umask, and without a chmod by path. */
	struct stat st;
	assert_int_equal(lstat(s->dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(chmod_calls, 0);
	listener_close(&l);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_writable_by_others_refused),
	    T(test_ancestor_writable_refused),
	    T(test_other_owner_refused),
	    T(test_symlink_of_other_refused),
	    T(test_good_dir),
	    T(test_missing_dir_created),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
