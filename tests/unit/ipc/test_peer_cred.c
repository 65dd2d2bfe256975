/* Whom a client trusts as its daemon (peer_cred.h), on a made-up file
 * system and user namespace: the uids root and we run as, the overflow uid
 * that every uid unmapped in a namespace reads as, and the socket paths
 * that make such a peer root's or an impostor's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ipc/peer_cred.h"

#define OVERFLOW 65534u

struct fake_file {
	const char *path;
	uid_t uid;
	mode_t mode; /* type and permissions */
};

/* / and /run as a namespace sees the host's root (the overflow uid); /tmp
 * 1777; /run/baton root's 0755 with the socket; an impostor's 0755
 * directory under /tmp; a home of mapped uid 1000; a group-writable
 * directory of root's; symlinks of root's and of uid 1000. */
static const struct fake_file fake_fs[] = {
    {"/", OVERFLOW, S_IFDIR | 0755},
    {"/run", OVERFLOW, S_IFDIR | 0755},
    {"/run/baton", OVERFLOW, S_IFDIR | 0755},
    {"/run/baton/batond.sock", OVERFLOW, S_IFSOCK | 0666},
    {"/run/nsroot", 0, S_IFDIR | 0755},
    {"/run/nsroot/batond.sock", 0, S_IFSOCK | 0666},
    {"/run/group", 0, S_IFDIR | 0775},
    {"/run/group/batond.sock", OVERFLOW, S_IFSOCK | 0666},
    {"/run/notsock", OVERFLOW, S_IFREG | 0644},
    {"/run/link", OVERFLOW, S_IFLNK | 0777},
    {"/run/badlink", 1000, S_IFLNK | 0777},
    {"/run/totmp", OVERFLOW, S_IFLNK | 0777},
    {"/tmp", OVERFLOW, S_IFDIR | 01777},
    {"/tmp/imp", OVERFLOW, S_IFDIR | 0755},
    {"/tmp/imp/batond.sock", OVERFLOW, S_IFSOCK | 0755},
    {"/home", OVERFLOW, S_IFDIR | 0755},
    {"/home/u", 1000, S_IFDIR | 0755},
    {"/home/u/batond.sock", OVERFLOW, S_IFSOCK | 0666},
};

/* The symlinks under /run and where they lead. */
static const char *const fake_links[][2] = {
    {"/run/link/", "/run/baton/"},
    {"/run/badlink/", "/run/baton/"},
    {"/run/totmp/", "/tmp/imp/"},
};

/* path with a symlink among its directories replaced by its target, as
 * the kernel follows them (all but the last component), into buf. */
static const char *follow(const char *path, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(fake_links) / sizeof(fake_links[0]);
	     i++) {
		size_t n = strlen(fake_links[i][0]);
		if (strncmp(path, fake_links[i][0], n) == 0) {
			snprintf(buf, len, "%s%s", fake_links[i][1], path + n);
			return buf;
		}
	}
	return path;
}

static int fake_lstat(const char *path, struct stat *st)
{
	char buf[4096];
	path = follow(path, buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(fake_fs) / sizeof(fake_fs[0]); i++) {
		if (strcmp(fake_fs[i].path, path) == 0) {
			*st = (struct stat){.st_uid = fake_fs[i].uid,
			                    .st_mode = fake_fs[i].mode};
			return 0;
		}
	}
	errno = ENOENT;
	return -1;
}

static char *fake_realpath(const char *path, char *resolved)
{
	char buf[4096];
	if (fake_lstat(path, &(struct stat){0}) != 0)
		return NULL;
	snprintf(resolved, 4096, "%s", follow(path, buf, sizeof(buf)));
	return resolved;
}

static struct ipc_trust_env env_of(uid_t me, bool namespaced)
{
	return (struct ipc_trust_env){.uid = me,
	                              .euid = me,
	                              .namespaced = namespaced,
	                              .overflow_uid = OVERFLOW,
	                              .lstat = fake_lstat,
	                              .realpath = fake_realpath};
}

static bool trusted(uid_t me, bool ns, uid_t peer, const char *path, char *why)
{
	struct ipc_trust_env env = env_of(me, ns);
	why[0] = '\0';
	return ipc_daemon_uid_trusted(&env, peer, path, why, 512);
}

static void test_root_and_self(void **state)
{
	(void)state;
	char why[512];
	/* Root, as we read it, anywhere: the namespace's root already
	 * controls every process in it. */
	assert_true(trusted(1000, false, 0, "/tmp/imp/batond.sock", why));
	assert_true(trusted(1000, true, 0, "/tmp/imp/batond.sock", why));
	assert_true(trusted(1000, false, 1000, "/tmp/imp/batond.sock", why));
	assert_true(trusted(1000, true, 1000, "/tmp/imp/batond.sock", why));
	/* Outside any namespace 65534 is a uid like another. */
	assert_true(
	    trusted(OVERFLOW, false, OVERFLOW, "/tmp/imp/batond.sock", why));
	struct ipc_trust_env env = env_of(1000, true);
	env.euid = 1001;
	assert_true(ipc_daemon_uid_trusted(&env, 1001, "/x", why, 512));
}

static void test_other_uid_refused(void **state)
{
	(void)state;
	char why[512];
	assert_false(trusted(1000, false, 1002, "/run/baton/batond.sock", why));
	assert_string_equal(why, "runs as uid 1002, not root or you");
	/* A mapped uid in a namespace: a user of the namespace. */
	assert_false(trusted(1000, true, 1002, "/run/baton/batond.sock", why));
	assert_string_equal(why, "runs as uid 1002, not root or you");
	/* Outside a namespace, the overflow uid is just another user's. */
	assert_false(
	    trusted(1000, false, OVERFLOW, "/run/baton/batond.sock", why));
	assert_string_equal(why, "runs as uid 65534, not root or you");
}

static void test_outsider_on_roots_path(void **state)
{
	(void)state;
	char why[512];
	/* The host's root batond seen through a namespace. */
	assert_true(trusted(0, true, OVERFLOW, "/run/baton/batond.sock", why));
	assert_true(
	    trusted(1000, true, OVERFLOW, "/run/baton/batond.sock", why));
	/* Owned by the namespace's root: fine as well. */
	assert_true(
	    trusted(1000, true, OVERFLOW, "/run/nsroot/batond.sock", why));
	/* Through a symlink of root's to root's directory. */
	assert_true(
	    trusted(1000, true, OVERFLOW, "/run/link/batond.sock", why));
	/* We run as the overflow uid ourselves: still root's path only. */
	assert_true(
	    trusted(OVERFLOW, true, OVERFLOW, "/run/baton/batond.sock", why));
}

static void test_outsider_elsewhere_refused(void **state)
{
	(void)state;
	char why[512];
	/* The impostor: a 0755 directory of its own under /tmp. */
	assert_false(
	    trusted(OVERFLOW, true, OVERFLOW, "/tmp/imp/batond.sock", why));
	assert_string_equal(why, "runs as the overflow uid 65534 (outside "
	                         "this user namespace) and its socket "
	                         "/tmp/imp/batond.sock is in a directory "
	                         "others can write (/tmp: owner uid 65534, "
	                         "mode 1777)");
	assert_false(trusted(1000, true, OVERFLOW, "/home/u/batond.sock", why));
	assert_non_null(strstr(why, "its socket /home/u/batond.sock is under "
	                            "/home/u, which belongs to uid 1000, not "
	                            "root"));
	assert_false(
	    trusted(1000, true, OVERFLOW, "/run/group/batond.sock", why));
	assert_non_null(strstr(why, "(/run/group: owner uid 0, mode 0775)"));
	assert_false(trusted(1000, true, OVERFLOW, "/run/notsock", why));
	assert_non_null(strstr(why, "is not a socket"));
	assert_false(
	    trusted(1000, true, OVERFLOW, "/run/gone/batond.sock", why));
	assert_non_null(strstr(why, "cannot be examined (/run/gone: "));
	/* A symlink someone else owns, or one that leads into /tmp. */
	assert_false(
	    trusted(1000, true, OVERFLOW, "/run/badlink/batond.sock", why));
	assert_non_null(strstr(why, "/run/badlink, which belongs to uid 1000"));
	assert_false(
	    trusted(1000, true, OVERFLOW, "/run/totmp/batond.sock", why));
	assert_non_null(strstr(why, "(/tmp: owner uid 65534, mode 1777)"));
	assert_false(trusted(1000, true, OVERFLOW, "", why));
}

static void test_uid_map(void **state)
{
	(void)state;
	assert_true(
	    ipc_uid_map_is_initial("         0          0 4294967295\n"));
	assert_true(ipc_uid_map_is_initial("0 0 4294967295"));
	assert_false(
	    ipc_uid_map_is_initial("         0      65534          1\n"));
	assert_false(ipc_uid_map_is_initial("0 100000 65536\n"));
	assert_false(ipc_uid_map_is_initial("0 0 4294967294\n"));
	assert_false(ipc_uid_map_is_initial("0 0 4294967295\n0 0 1\n"));
	assert_false(ipc_uid_map_is_initial(""));
	assert_false(ipc_uid_map_is_initial("0 0"));
}

/* This process: its own uids, and a namespace verdict that agrees with
 * its uid_map. */
static void test_self(void **state)
{
	(void)state;
	struct ipc_trust_env env = ipc_trust_env_self();
	assert_int_equal(env.uid, getuid());
	assert_int_equal(env.euid, geteuid());
	char map[512] = "";
	FILE *f = fopen("/proc/self/uid_map", "r");
	size_t n = f ? fread(map, 1, sizeof(map) - 1, f) : 0;
	if (f)
		fclose(f);
	map[n] = '\0';
	assert_int_equal(env.namespaced, !ipc_uid_map_is_initial(map));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_root_and_self),
	    cmocka_unit_test(test_other_uid_refused),
	    cmocka_unit_test(test_outsider_on_roots_path),
	    cmocka_unit_test(test_outsider_elsewhere_refused),
	    cmocka_unit_test(test_uid_map),
	    cmocka_unit_test(test_self),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
