/* Who owns a uid (daemon/server/owners.h): the subuid(5) parser on malformed
 * lines, names, overlapping ranges, huge counts and wrap-around, the
 * range cap, the file's owner and mode, and batond's tenants counted
 * against the owner (what ESA and the tenant cap see). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "daemon/server/owners.h"
#include "ipc/shm_layout.h"

/* The tests' passwd: alice 1000, bob 1001. */
static bool resolve(const char *name, uid_t *uid)
{
	if (strcmp(name, "alice") == 0)
		*uid = 1000;
	else if (strcmp(name, "bob") == 0)
		*uid = 1001;
	else
		return false;
	return true;
}

/* Parses text with stderr captured; what was logged in log (size n). */
static size_t parse_logged(struct owner_map *m, const char *text, char *log,
                           size_t n)
{
	fflush(stderr);
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	int saved = dup(2);
	dup2(fileno(tmp), 2);
	size_t skipped = 99;
	assert_true(owner_map_parse(m, text, strlen(text), "subuid", resolve,
	                            &skipped));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t got = fread(log, 1, n - 1, tmp);
	log[got] = '\0';
	fclose(tmp);
	return skipped;
}

static void test_names_and_uids(void **state)
{
	(void)state;
	struct owner_map m = {0};
	char log[4096];
	const char *text = "# rootless containers\n"
	                   "alice:100000:65536\n"
	                   "\n"
	                   "1001:165536:65536\n"
	                   "bob:300000:1"; /* no final newline */
	assert_int_equal(parse_logged(&m, text, log, sizeof(log)), 0);
	assert_string_equal(log, "");
	assert_int_equal(m.n, 3);
	assert_int_equal(owner_of(&m, 100000), 1000);
	assert_int_equal(owner_of(&m, 165535), 1000);
	assert_int_equal(owner_of(&m, 165536), 1001);
	assert_int_equal(owner_of(&m, 231071), 1001);
	assert_int_equal(owner_of(&m, 231072), 231072);
	assert_int_equal(owner_of(&m, 300000), 1001);
	assert_int_equal(owner_of(&m, 300001), 300001);
	assert_int_equal(owner_of(&m, 99999), 99999);
	assert_int_equal(owner_of(&m, 0), 0);
	assert_int_equal(owner_of(&m, 1000), 1000);
	assert_int_equal(owner_of(&m, (uid_t)-1), (uid_t)-1);
	owner_map_free(&m);
	/* no map at all: everyone is their own owner */
	assert_int_equal(owner_of(&m, 100000), 100000);
}

static void test_malformed(void **state)
{
	(void)state;
	struct owner_map m = {0};
	char log[8192];
	const char *text = "alice:100000:65536\n"  /* 1: kept */
	                   "carol:200000:10\n"     /* 2: no such user */
	                   "alice:200000\n"        /* 3: two fields */
	                   "alice:1:2:3\n"         /* 4: four fields */
	                   ":200000:10\n"          /* 5: no owner */
	                   "alice:+5:10\n"         /* 6: a sign */
	                   "alice:-5:10\n"         /* 7 */
	                   "alice: 5:10\n"         /* 8: a space */
	                   "alice:200000:0\n"      /* 9: count 0 */
	                   "alice:0:10\n"          /* 10: holds uid 0 */
	                   "alice:0x10:10\n"       /* 11: not decimal */
	                   "alice:200000:10 \n"    /* 12: trailing space */
	                   "alice:12345678901:1\n" /* 13: 11 digits */
	                   "bob:200000:10\n";      /* 14: kept */
	size_t skipped = parse_logged(&m, text, log, sizeof(log));
	assert_int_equal(skipped, 12);
	assert_int_equal(m.n, 2);
	assert_int_equal(owner_of(&m, 200005), 1001);
	for (int line = 2; line <= 13; line++) {
		char want[32];
		snprintf(want, sizeof(want), "subuid:%d: ", line);
		if (!strstr(log, want))
			fail_msg("no warning naming line %d in:\n%s", line,
			         log);
	}
	assert_null(strstr(log, "subuid:1: "));
	assert_null(strstr(log, "subuid:14: "));
	assert_non_null(strstr(log, "subuid:2: no user of that name"));
	assert_non_null(strstr(log, "subuid:9: a COUNT of 0"));
	assert_non_null(strstr(log, "subuid:10: the range holds uid 0"));
	/* a NUL byte and an over-long line */
	char bad[600];
	memset(bad, '1', sizeof(bad));
	memcpy(bad, "alice:5", 7);
	bad[sizeof(bad) - 1] = '\0';
	assert_int_equal(parse_logged(&m, bad, log, sizeof(log)), 1);
	assert_non_null(strstr(log, "subuid:1: longer than 256 bytes"));
	const char nul[] = "alice:5\0:10\nbob:7:1\n";
	size_t skipped2 = 0;
	assert_true(
	    owner_map_parse(&m, nul, sizeof(nul) - 1, "x", resolve, &skipped2));
	assert_int_equal(skipped2, 1);
	assert_int_equal(m.n, 1);
	assert_int_equal(owner_of(&m, 7), 1001);
	owner_map_free(&m);
}

static void test_overlap(void **state)
{
	(void)state;
	struct owner_map m = {0};
	char log[4096];
	const char *text = "alice:1000000:100\n"  /* 1000000..1000099 */
	                   "bob:1000050:100\n"    /* 2: overlaps its end */
	                   "bob:999950:51\n"      /* 3: ends on its first */
	                   "bob:999950:50\n"      /* 4: adjacent below: kept */
	                   "bob:1000100:1\n"      /* 5: adjacent above: kept */
	                   "bob:1000010:5\n"      /* 6: inside */
	                   "bob:900000:200000\n"  /* 7: holds it whole */
	                   "alice:1000000:100\n"; /* 8: the same again */
	assert_int_equal(parse_logged(&m, text, log, sizeof(log)), 5);
	assert_int_equal(m.n, 3);
	for (int line = 2; line <= 8; line++) {
		char want[64];
		snprintf(want, sizeof(want), "subuid:%d: the range overlaps",
		         line);
		if ((line == 4 || line == 5) != !strstr(log, want))
			fail_msg("line %d wrongly judged:\n%s", line, log);
	}
	assert_int_equal(owner_of(&m, 999949), 999949);
	assert_int_equal(owner_of(&m, 999950), 1001);
	assert_int_equal(owner_of(&m, 999999), 1001);
	assert_int_equal(owner_of(&m, 1000000), 1000);
	assert_int_equal(owner_of(&m, 1000099), 1000);
	assert_int_equal(owner_of(&m, 1000100), 1001);
	assert_int_equal(owner_of(&m, 1000101), 1000101);
	/* sorted whatever the file's order */
	for (size_t i = 1; i < m.n; i++)
		assert_true(m.ranges[i - 1].last < m.ranges[i].first);
	owner_map_free(&m);
}

static void test_huge_and_wrap(void **state)
{
	(void)state;
	struct owner_map m = {0};
	char log[4096];
	/* every uid but 0 and (uid_t)-1: the largest range there is */
	assert_int_equal(
	    parse_logged(&m, "alice:1:4294967294\n", log, sizeof(log)), 0);
	assert_int_equal(owner_of(&m, 1), 1000);
	assert_int_equal(owner_of(&m, 4294967294u), 1000);
	assert_int_equal(owner_of(&m, (uid_t)-1), (uid_t)-1);
	const char *text = "alice:4294967294:1\n" /* 1: the last uid: kept */
	                   "alice:4294967294:2\n" /* 2: past it */
	                   "alice:4000000000:4000000000\n" /* 3: wraps */
	                   "alice:4294967295:1\n"          /* 4: no uid */
	                   "alice:1:4294967295\n" /* 5: a count too big */
	                   "4294967295:5:1\n"     /* 6: owner (uid_t)-1 */
	                   "bob:2:9999999999\n";  /* 7: 10 digits, too big */
	assert_int_equal(parse_logged(&m, text, log, sizeof(log)), 6);
	assert_int_equal(m.n, 1);
	assert_non_null(strstr(log, "subuid:2: the range goes past uid"));
	assert_non_null(strstr(log, "subuid:3: the range goes past uid"));
	assert_non_null(strstr(log, "subuid:4: START and COUNT"));
	assert_non_null(strstr(log, "subuid:6: no user of that name"));
	owner_map_free(&m);
}

/* More lines than OWNERS_MAX_RANGES: the first are kept, one warning. */
static void test_range_cap(void **state)
{
	(void)state;
	size_t n = OWNERS_MAX_RANGES + 10, at = 0;
	char *text = malloc(n * 32);
	assert_non_null(text);
	for (size_t i = 0; i < n; i++)
		at += (size_t)sprintf(text + at, "alice:%zu:10\n",
		                      100000 + 10 * i);
	struct owner_map m = {0};
	char log[4096];
	assert_int_equal(parse_logged(&m, text, log, sizeof(log)), 0);
	assert_int_equal(m.n, OWNERS_MAX_RANGES);
	assert_non_null(strstr(log, "more than 4096 ranges; line 4097"));
	assert_int_equal(owner_of(&m, 100000 + 10 * 4095), 1000);
	assert_int_equal(owner_of(&m, 100000 + 10 * 4096), 100000 + 10 * 4096);
	owner_map_free(&m);
	free(text);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* The file is trusted as root's, writable by root alone; anything else
 * is refused with no ranges. The ownership cases need root. */
static void test_load_checks(void **state)
{
	(void)state;
	char dir[] = "/tmp/baton-owners-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof(path), "%s/subuid", dir);
	struct owner_map m = {0};
	/* root's own account name may differ: a uid is enough here */
	write_file(path, "1000:100000:65536\n", 0644);
	assert_true(owner_map_load(&m, path));
	if (geteuid() == 0) {
		assert_int_equal(m.n, 1);
		assert_int_equal(owner_of(&m, 100001), 1000);
		assert_int_equal(chown(path, 65534, 0), 0);
		assert_true(owner_map_load(&m, path));
		assert_int_equal(m.n, 0);
		assert_int_equal(chown(path, 0, 0), 0);
	} else {
		assert_int_equal(m.n, 0); /* not root's */
	}
	assert_int_equal(chmod(path, 0664), 0);
	assert_true(owner_map_load(&m, path));
	assert_int_equal(m.n, 0);
	assert_int_equal(chmod(path, 0646), 0);
	assert_true(owner_map_load(&m, path));
	assert_int_equal(m.n, 0);
	assert_true(owner_map_load(&m, dir)); /* a directory */
	assert_int_equal(m.n, 0);
	unlink(path);
	assert_true(owner_map_load(&m, path)); /* missing: none */
	assert_int_equal(m.n, 0);
	assert_true(owner_map_load(&m, "")); /* off */
	assert_int_equal(m.n, 0);
	rmdir(dir);
}

/* batond's tenants: each counted against its owner at registration, and
 * again after the file is read anew (SIGHUP); the core sees the owner
 * (ESA's per-owner share), the rest sees the real uid. */
static void test_daemon_owners(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* the file must be root's */
	char dir[] = "/tmp/baton-owners-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct daemon_config cfg;
	daemon_config_defaults(&cfg);
	cfg.metrics_on = false;
	snprintf(cfg.subuid_path, sizeof(cfg.subuid_path), "%s/subuid", dir);
	write_file(cfg.subuid_path, "1000:100000:65536\n", 0644);
	struct daemon d;
	assert_true(daemon_init(&d, &cfg));
	assert_true(daemon_load_owners(&d));
	const uid_t uids[] = {100000, 165535, 2000, 165536};
	struct tenant *t[4];
	int fds[4];
	for (int i = 0; i < 4; i++) {
		struct ipc_shm shim, mine;
		char err[160];
		fds[i] = ipc_shm_create(1, &shim);
		assert_true(fds[i] >= 0);
		assert_true(ipc_shm_map(fds[i], &mine, err, sizeof(err)));
		ipc_shm_unmap(&shim);
		t[i] = daemon_add_tenant(&d, "g", 10 + i, uids[i], 30, 0, &mine,
		                         daemon_now_ns());
		assert_non_null(t[i]);
	}
	assert_int_equal(t[0]->owner, 1000);
	assert_int_equal(t[1]->owner, 1000);
	assert_int_equal(t[2]->owner, 2000);
	assert_int_equal(t[3]->owner, 165536);
	assert_int_equal(t[0]->uid, 100000);
	daemon_tick(&d, daemon_now_ns());
	daemon_tick(&d, daemon_now_ns() + 100000000);
	assert_int_equal(t[0]->core.owner, 1000);
	assert_int_equal(t[1]->core.owner, 1000);
	assert_int_equal(t[3]->core.owner, 165536);
	/* the range moves to 2000 and grows: read again */
	write_file(cfg.subuid_path, "2000:100000:65537\n", 0644);
	assert_true(daemon_load_owners(&d));
	assert_int_equal(t[0]->owner, 2000);
	assert_int_equal(t[3]->owner, 2000);
	for (int i = 0; i < 4; i++)
		close(fds[i]);
	daemon_finish(&d);
	unlink(cfg.subuid_path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_and_uids),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_overlap),
	    cmocka_unit_test(test_huge_and_wrap),
	    cmocka_unit_test(test_range_cap),
	    cmocka_unit_test(test_load_checks),
	    cmocka_unit_test(test_daemon_owners),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
