/* The history file (src/daemon/report/record.h): a line's JSON, one line per
 * wall second, the queue's accounting, refusing symlinks, FIFOs, files and
 * directories other users own or may write, and a write that fails
 * (RLIMIT_FSIZE) without stopping the recorder. Prints the median time
 * of a queued offer over a run, as measured here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/report/record.h"

#define NS 1000000000LL

static char dir[64];

static struct metrics_tenant games[2] = {
    {.id = 1,
     .uid = 1000,
     .name = "glxgears",
     .pid = 10,
     .sla_fps = 30,
     .target_fps = 30.5,
     .fps = 30.2,
     .frame_s = {0.03, 0.034, 0.036},
     .cap = 0.25,
     .has_quality = true,
     .quality_level = 2},
    {.id = 3,
     .uid = 1001,
     .name = "quoted \"name\"\n",
     .pid = 12,
     .sla_fps = 45,
     .fps = NAN},
};
static struct metrics_be bes[1] = {
    {.id = 2,
     .name = "matmul",
     .pid = 11,
     .units_s = 123.5,
     .gpu_share = 0.2,
     .wait_ratio = 0.1},
};

static struct metrics_snapshot snapshot(void)
{
	return (struct metrics_snapshot){
	    .policy = "sa",
	    .gpus = {{.name = "gpu0",
	              .util = 0.5,
	              .overload = 1.0,
	              .total_load = 0.7},
	             {.name = "gpu1", .util = 0.25}},
	    .n_gpus = 2,
	    .tenants = games,
	    .n = 2,
	    .be = bes,
	    .n_be = 1,
	};
}

static void test_format(void **state)
{
	struct metrics_snapshot s = snapshot();
	size_t len = 0;
	char *line = record_format(&s, 1700000000, 4, &len);
	assert_non_null(line);
	assert_int_equal(len, strlen(line));
	/* one line, ended */
	assert_ptr_equal(strchr(line, '\n'), line + len - 1);
	json_error_t e;
	json_t *o = json_loads(line, 0, &e);
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "v")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "t")),
	                 1700000000);
	assert_int_equal(json_integer_value(json_object_get(o, "dropped")), 4);
	json_t *gpus = json_object_get(o, "gpus");
	assert_int_equal(json_array_size(gpus), 2);
	json_t *gpu = json_array_get(gpus, 0);
	assert_true(json_is_true(json_object_get(gpu, "overload")));
	assert_true(json_real_value(json_object_get(gpu, "util")) == 0.5);
	gpu = json_array_get(gpus, 1);
	assert_string_equal(json_string_value(json_object_get(gpu, "name")),
	                    "gpu1");
	assert_true(json_real_value(json_object_get(gpu, "util")) == 0.25);
	json_t *t = json_object_get(o, "tenants");
	assert_int_equal(json_array_size(t), 2);
	json_t *g = json_array_get(t, 0);
	assert_string_equal(json_string_value(json_object_get(g, "name")),
	                    "glxgears");
	assert_true(json_real_value(json_object_get(g, "sla")) == 30.0);
	assert_true(json_real_value(json_object_get(g, "level")) == 2.0);
	assert_true(fabs(json_real_value(json_object_get(g, "p99_ms")) - 36.0) <
	            1e-6);
	assert_true(json_real_value(json_object_get(g, "cap")) == 0.25);
	/* no levels declared: null; a frame rate that is not finite: null */
	json_t *q = json_array_get(t, 1);
	assert_true(json_is_null(json_object_get(q, "level")));
	assert_true(json_is_null(json_object_get(q, "fps")));
	assert_string_equal(json_string_value(json_object_get(q, "name")),
	                    "quoted \"name\"\n");
	json_t *b = json_array_get(json_object_get(o, "be"), 0);
	assert_true(json_real_value(json_object_get(b, "units_s")) == 123.5);
	json_decref(o);
	free(line);
}

static size_t count_lines(const char *path, json_t **last)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *buf = NULL;
	size_t cap = 0, n = 0;
	while (getline(&buf, &cap, f) > 0) {
		n++;
		if (last) {
			json_decref(*last);
			*last = json_loads(buf, 0, NULL);
		}
	}
	free(buf);
	fclose(f);
	return n;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* record_open and record_start, as batond does. */
static struct record *open_started(const char *path)
{
	char err[512];
	struct record *r = record_open(path, err, sizeof(err));
	if (!r)
		fail_msg("record_open %s: %s", path, err);
	assert_true(record_start(r, err, sizeof(err)));
	return r;
}

/* Waits (10 s at most) until the writer has dealt with every queued line. */
static struct record_stats drain(struct record *r)
{
	struct record_stats st;
	for (int i = 0; i < 10000; i++) {
		record_get_stats(r, &st);
		if (st.written + st.failed == st.queued)
			break;
		usleep(1000);
	}
	return st;
}

static void test_one_a_second(void **state)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/one.jsonl", dir);
	struct record *r = open_started(path);
	struct metrics_snapshot s = snapshot();
	/* ten ticks a second for three seconds: three lines */
	for (int64_t t = 0; t < 30; t++)
		assert_true(record_offer(r, &s, 1000 * NS + t * NS / 10));
	struct record_stats st = drain(r);
	assert_int_equal(st.queued, 3);
	record_close(r);
	json_t *last = NULL;
	assert_int_equal(count_lines(path, &last), 3);
	assert_int_equal(json_integer_value(json_object_get(last, "t")), 1002);
	json_decref(last);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	/* appended to, not truncated */
	r = open_started(path);
	record_offer(r, &s, 2000 * NS);
	record_close(r);
	assert_int_equal(count_lines(path, NULL), 4);
	unlink(path);
}

/* Offers as fast as it can: whatever the writer keeps up with, every
 * offered second is queued or dropped, every queued one written, and the
 * lines carry the drop count as it grew. */
static void test_accounting(void **state)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/fast.jsonl", dir);
	struct record *r = open_started(path);
	struct metrics_snapshot s = snapshot();
	enum { BURST = 2000, PACED = 200 };
	size_t ok = 0;
	for (int64_t i = 0; i < BURST; i++)
		ok += record_offer(r, &s, i * NS);
	struct record_stats st = drain(r);
	assert_int_equal(st.queued, ok);
	assert_int_equal(st.queued + st.dropped, BURST);
	assert_int_equal(st.written, st.queued);
	uint64_t burst_dropped = st.dropped;
	/* Then paced, as batond's ticks are, with the writer keeping up:
	 * what one queued offer costs the tick. */
	static double cost[PACED];
	size_t m = 0;
	for (int64_t i = 0; i < PACED; i++) {
		double t0 = now_s();
		bool queued = record_offer(r, &s, (BURST + i) * NS);
		double dt = now_s() - t0;
		ok += queued;
		if (queued)
			cost[m++] = dt;
		usleep(500);
	}
	st = drain(r);
	assert_int_equal(st.queued + st.dropped, BURST + PACED);
	assert_true(m > 0);
	qsort(cost, m, sizeof(*cost), cmp);
	printf("record_offer: median %.2f us, max %.2f us over %zu paced "
	       "offers (2 games, 1 BE); %llu of a %d burst dropped\n",
	       cost[m / 2] * 1e6, cost[m - 1] * 1e6, m,
	       (unsigned long long)burst_dropped, BURST);
	record_close(r);
	json_t *last = NULL;
	assert_int_equal(count_lines(path, &last), ok);
	assert_true(json_integer_value(json_object_get(last, "dropped")) <=
	            (json_int_t)st.dropped);
	json_decref(last);
	unlink(path);
}

static void test_refused(void **state)
{
	char path[128], link[128], err[256];
	snprintf(path, sizeof(path), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_null(record_open(link, err, sizeof(err)));
	assert_non_null(strstr(err, link));
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(access(path, F_OK), -1); /* not created through it */
	unlink(link);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_null(record_open(path, err, sizeof(err)));
	assert_non_null(strstr(err, "not a regular file"));
	unlink(path);
	assert_null(record_open("/nonexistent-dir/h.jsonl", err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent-dir/h.jsonl"));
}

/* record_open(path) fails with an error naming path and containing why,
 * and leaves path's size at size (-1: missing). */
static void refused(const char *path, const char *why, off_t size)
{
	char err[512];
	assert_null(record_open(path, err, sizeof(err)));
	if (!strstr(err, path) || !strstr(err, why))
		fail_msg("\"%s\" does not name %s and \"%s\"", err, path, why);
	struct stat st;
	if (size < 0) {
		assert_int_equal(lstat(path, &st), -1);
	} else {
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_size, size);
	}
}

/* A file or a directory others could have put there or may write:
 * refused, nothing written. The owner cases need root (to chown to uid
 * 65534). */
static void test_refused_others(void **state)
{
	char pub[96], path[128], other[160], priv[96], sym[96];
	snprintf(pub, sizeof(pub), "%s/pub", dir);
	snprintf(path, sizeof(path), "%s/h.jsonl", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	/* a directory every user may write, sticky as /tmp */
	assert_int_equal(mkdir(pub, 0700), 0);
	assert_int_equal(chmod(pub, 01777), 0);
	char in_pub[160];
	snprintf(in_pub, sizeof(in_pub), "%s/h.jsonl", pub);
	refused(in_pub, "writable by group or others", -1);
	/* a file others may write, or with a second name */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(path, 0620), 0);
	refused(path, "writable by group or others (mode 0620)", 0);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(link(path, other), 0);
	refused(path, "2 hard links", 0);
	unlink(other);
	if (geteuid() == 0) {
		/* uid 65534's file, and its symlink to a private directory */
		assert_int_equal(chown(path, 65534, 65534), 0);
		refused(path, "owned by uid 65534", 0);
		snprintf(priv, sizeof(priv), "%s/priv", dir);
		snprintf(sym, sizeof(sym), "%s/link", dir);
		assert_int_equal(mkdir(priv, 0700), 0);
		assert_int_equal(symlink(priv, sym), 0);
		assert_int_equal(lchown(sym, 65534, 65534), 0);
		snprintf(in_pub, sizeof(in_pub), "%s/h.jsonl", sym);
		refused(in_pub, "the symlink", -1);
		snprintf(other, sizeof(other), "%s/h.jsonl", priv);
		assert_int_equal(access(other, F_OK), -1);
		unlink(sym);
		rmdir(priv);
	}
	unlink(path);
	rmdir(pub);
}

/* A file that cannot grow (EFBIG here, as ENOSPC on a full disk): the
 * lines fail and are counted, the recorder goes on, and once there is room
 * again the cut line is ended so that only it is lost. */
static void test_write_fails(void **state)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/full.jsonl", dir);
	struct record *r = open_started(path);
	struct metrics_snapshot s = snapshot();
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	size_t len;
	char *one = record_format(&s, 1, 0, &len);
	free(one);
	/* room for two lines and a half */
	lim = old;
	lim.rlim_cur = (rlim_t)(2 * len + len / 2);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (int64_t i = 0; i < 5; i++)
		assert_true(record_offer(r, &s, (1 + i) * NS));
	struct record_stats st = drain(r);
	assert_int_equal(st.written, 2);
	assert_int_equal(st.failed, 3);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_true(record_offer(r, &s, 10 * NS));
	st = drain(r);
	record_close(r);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(st.written, 3);
	/* two whole lines, the cut one ended, and the last whole */
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *buf = NULL;
	size_t cap = 0, n = 0, good = 0;
	while (getline(&buf, &cap, f) > 0) {
		json_t *o = json_loads(buf, 0, NULL);
		good += o != NULL;
		json_decref(o);
		n++;
	}
	free(buf);
	fclose(f);
	assert_int_equal(n, 4);
	assert_int_equal(good, 3);
	unlink(path);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/baton-record-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format),
	    cmocka_unit_test(test_one_a_second),
	    cmocka_unit_test(test_accounting),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_refused_others),
	    cmocka_unit_test(test_write_fails),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return rc;
}
