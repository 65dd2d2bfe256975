/* /proc/stat's aggregate line, and the busy fraction between samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "daemon/tick/host_load.h"

static void test_parse(void **state)
{
	(void)state;
	uint64_t busy, total;
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	assert_true(
	    host_load_parse("cpu  100 2 30 500 7 1 2 40 9 9\n", &busy, &total));
	assert_int_equal(busy, 100 + 2 + 30 + 1 + 2 + 40); /* steal is busy */
	assert_int_equal(total, busy + 500 + 7);
	/* an old kernel's shorter line */
	assert_true(host_load_parse("cpu 10 0 5 85\n", &busy, &total));
	assert_int_equal(busy, 15);
	assert_int_equal(total, 100);
	/* a per-CPU line, garbage, too few fields */
	assert_false(host_load_parse("cpu0 1 2 3 4 5 6 7 8\n", &busy, &total));
	assert_false(host_load_parse("intr 1 2 3\n", &busy, &total));
	assert_false(host_load_parse("cpu  1 2\n", &busy, &total));
	assert_false(host_load_parse("cpu  x y z w\n", &busy, &total));
}

static void write_stat(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_sample(void **state)
{
	(void)state;
	char path[] = "/tmp/baton-test-stat-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct host_load h;
	host_load_init(&h, path);
	double b = -1.0;

	write_stat(path, "cpu  100 0 0 100 0 0 0 0 0 0\n");
	assert_false(host_load_sample(&h, &b)); /* the first: nothing yet */
	write_stat(path, "cpu  130 0 0 170 0 0 0 0 0 0\n");
	assert_true(host_load_sample(&h, &b));
	assert_float_equal(b, 0.3, 1e-12);
	/* no time passed */
	assert_false(host_load_sample(&h, &b));
	/* counters that went back start over, then measure again */
	write_stat(path, "cpu  10 0 0 10 0 0 0 0 0 0\n");
	assert_false(host_load_sample(&h, &b));
	write_stat(path, "cpu  20 0 0 10 0 0 10 0 0 0\n");
	assert_true(host_load_sample(&h, &b));
	assert_float_equal(b, 1.0, 1e-12);
	/* garbage and a missing file are errors, not numbers */
	write_stat(path, "not a stat file\n");
	assert_false(host_load_sample(&h, &b));
	unlink(path);
	assert_false(host_load_sample(&h, &b));

	/* the real one reads */
	host_load_init(&h, NULL);
	assert_false(host_load_sample(&h, &b));
	usleep(20000);
	if (host_load_sample(&h, &b)) /* 20 ms may be under one jiffy */
		assert_true(b >= 0.0 && b <= 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_sample),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
