/* NVML's per-process accounting (src/daemon/accounting/nvml_*): through
 * the stub libnvidia-ml (stub_nvml_procs.c, its clock pinned by the
 * script), each process's SM time from the samples of the periods since
 * the last call, an idle process (no samples) counting 0, no sample
 * counted twice, the running-process lists' memory, the retry when a
 * call's array is too small, a library without the newer calls or whose
 * newer call says it is unsupported, the
 * device's utilization, the GPUs found by UUID; the table's arithmetic on
 * samples out of order and stale; a tenant's epochs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/accounting/nvml_account.h"
#include "daemon/accounting/nvml_table.h"
#include "nvml_script.h"

/* The stub's second device (stub_nvml.c's UUIDs), as batond's GPU 0. */
static const char uuids[2][40] = {"6a1c4f2e000011112222333344445552", ""};

static struct nvml_account *start(const char *lib_env)
{
	const char *lib = getenv(lib_env);
	assert_non_null(lib);
	return nvml_account_start(lib, uuids, 2, 0);
}

static uint64_t busy_of(struct nvml_account *a, pid_t pid)
{
	uint64_t busy = 0, used = 0;
	assert_true(nvml_account_pid(a, 0, pid, &busy, &used));
	return busy;
}

/* 5 periods of 0.1 s after the base: pid 100 at 50 %, pid 300 at 25 %,
 * pid 200 idle; the script's device 1 is batond's GPU 0. */
static void samples_of(const char *lib_env, const char *extra)
{
	struct nvml_account *a = start(lib_env);
	assert_non_null(a);
	const char *procs = "period_us 100000\n"
	                    "util 1 70\n"
	                    "proc 1 100 50 1048576 graphics\n"
	                    "proc 1 200 0 2097152 graphics\n"
	                    "proc 1 300 25 0 compute\n"
	                    "proc 0 400 90 0 compute\n";
	char text[512];
	snprintf(text, sizeof(text), "now_us 1000000000\n%s%s", extra, procs);
	nvml_script_write(text);
	nvml_account_poll(a, 1);
	/* the base: what the driver kept counts nothing */
	assert_int_equal(busy_of(a, 100), 0);
	snprintf(text, sizeof(text), "now_us 1000500000\n%s%s", extra, procs);
	nvml_script_write(text);
	nvml_account_poll(a, 2);
	assert_int_equal(busy_of(a, 100), 250000000ULL);
	assert_int_equal(busy_of(a, 300), 125000000ULL);
	/* known (a context on the device), never sampled: idle */
	assert_int_equal(busy_of(a, 200), 0);
	/* the same clock: no sample newer than the last seen */
	nvml_account_poll(a, 3);
	assert_int_equal(busy_of(a, 100), 250000000ULL);
	uint64_t busy, used;
	assert_true(nvml_account_pid(a, 0, 200, &busy, &used));
	assert_int_equal(used, 2097152);
	/* another device's process, and one NVML does not know */
	assert_false(nvml_account_pid(a, 0, 400, &busy, &used));
	assert_false(nvml_account_pid(a, 0, 999, &busy, &used));
	assert_false(nvml_account_pid(a, 1, 100, &busy, &used));
	double util;
	assert_true(nvml_account_util(a, 0, &util));
	assert_true(util > 0.69 && util < 0.71);
	assert_false(nvml_account_util(a, 1, &util));
	nvml_account_stop(a);
}

static void test_samples(void **state)
{
	(void)state;
	samples_of("BATON_STUB_NVML", "");
}

/* The newer call there but unsupported on the device: the older one
 * from then on, the same counts. */
static void test_newer_unsupported(void **state)
{
	(void)state;
	samples_of("BATON_STUB_NVML", "newer_unsupported\n");
}

/* A library from before NVML 12: nvmlDeviceGetProcessUtilization and the
 * _v2 lists give the same counts. */
static void test_older_library(void **state)
{
	(void)state;
	samples_of("BATON_STUB_NVML_OLD", "");
}

/* 100 busy processes over 10 kept periods: 1000 samples and 100 list
 * entries, past the first arrays' room: the calls are made again with
 * the size NVML asked for, and every sample counts. */
static void test_insufficient_size(void **state)
{
	(void)state;
	struct nvml_account *a = start("BATON_STUB_NVML");
	assert_non_null(a);
	static char text[8192];
	for (unsigned long long now = 2000000000; now <= 2001000000;
	     now += 1000000) {
		int len = snprintf(text, sizeof(text), "now_us %llu\n", now);
		for (int p = 0; p < 100; p++)
			len +=
			    snprintf(text + len, sizeof(text) - (size_t)len,
			             "proc 1 %d 10 4096 graphics\n", 1000 + p);
		nvml_script_write(text);
		nvml_account_poll(a, (int64_t)now * 1000);
	}
	assert_true(nvml_account_retries(a) >= 2);
	/* 10 periods of 0.1 s at 10 % after the base */
	for (int p = 0; p < 100; p++)
		assert_int_equal(busy_of(a, 1000 + p), 100000000ULL);
	nvml_account_stop(a);
}

/* Batond's epochs: the base first, then at most the epoch, the rest
 * carried; a pid NVML forgot is not counted. */
static void test_tenant_epochs(void **state)
{
	(void)state;
	struct nvml_account *a = start("BATON_STUB_NVML");
	assert_non_null(a);
	struct nvml_tenant t = {0};
	nvml_script_write("now_us 3000000000\nproc 1 100 100 0 graphics\n");
	nvml_account_poll(a, 1);
	assert_false(nvml_tenant_epoch(&t, a, 0, 100, 0.1));
	/* two polls' worth (0.2 s busy) in one epoch of 0.1 s */
	nvml_script_write("now_us 3000200000\nproc 1 100 100 0 graphics\n");
	nvml_account_poll(a, 2);
	assert_true(nvml_tenant_epoch(&t, a, 0, 100, 0.1));
	assert_float_equal(t.busy_s, 0.1, 1e-9);
	assert_true(nvml_tenant_epoch(&t, a, 0, 100, 0.1));
	assert_float_equal(t.busy_s, 0.1, 1e-9);
	assert_true(nvml_tenant_epoch(&t, a, 0, 100, 0.1));
	assert_float_equal(t.busy_s, 0.0, 1e-9);
	/* gone from the lists and unsampled past the keep time */
	nvml_script_write("now_us 3000300000\n");
	nvml_account_poll(a, 2 + NVML_TABLE_KEEP_NS + 1);
	assert_false(nvml_tenant_epoch(&t, a, 0, 100, 0.1));
	assert_false(t.based);
	nvml_account_stop(a);
}

/* The table: samples out of order, one not newer than the last seen, a
 * gap of 5 s after idle instants counted as the driver's period (the
 * shortest gap seen), and a first gap as at most
 * NVML_TABLE_MAX_PERIOD_US. */
static void test_table(void **state)
{
	(void)state;
	static struct nvml_table t;
	struct nvml_sample base[] = {{7, 1000, 50}};
	nvml_table_samples(&t, base, 1, 1);
	assert_int_equal(t.last_seen_us, 1000);
	struct nvml_sample s[] = {
	    {7, 1300, 100}, {7, 1100, 100}, {8, 1200, 40}, {7, 900, 100}};
	nvml_table_samples(&t, s, 4, 2);
	/* pid 7: 100 us at 1100 and 100 us at 1300; pid 8: 40 % of 100 us */
	assert_int_equal(nvml_table_find(&t, 7)->busy_ns, 200000);
	assert_int_equal(nvml_table_find(&t, 8)->busy_ns, 40000);
	assert_int_equal(t.last_seen_us, 1300);
	assert_int_equal(t.period_us, 100);
	struct nvml_sample late[] = {{7, 1300 + 5000000, 100}};
	nvml_table_samples(&t, late, 1, 3);
	assert_int_equal(nvml_table_find(&t, 7)->busy_ns, 300000);
	static struct nvml_table fresh;
	nvml_table_samples(&fresh, base, 1, 1);
	struct nvml_sample first[] = {{7, 1000 + 5000000, 100}};
	nvml_table_samples(&fresh, first, 1, 2);
	assert_int_equal(nvml_table_find(&fresh, 7)->busy_ns,
	                 NVML_TABLE_MAX_PERIOD_US * 1000);
}

/* No NVML, or none of batond's GPUs among its devices: nothing starts,
 * and every question has no answer. */
static void test_without_nvml(void **state)
{
	(void)state;
	assert_null(
	    nvml_account_start("/nonexistent/libnvidia-ml.so.1", uuids, 2, 0));
	static const char other[1][40] = {"00000000000000000000000000000000"};
	assert_null(nvml_account_start(getenv("BATON_STUB_NVML"), other, 1, 0));
	uint64_t busy, used;
	double util;
	assert_false(nvml_account_pid(NULL, 0, 100, &busy, &used));
	assert_false(nvml_account_util(NULL, 0, &util));
	struct nvml_tenant t = {0};
	assert_false(nvml_tenant_epoch(&t, NULL, 0, 100, 0.1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_samples),
	    cmocka_unit_test(test_newer_unsupported),
	    cmocka_unit_test(test_older_library),
	    cmocka_unit_test(test_insufficient_size),
	    cmocka_unit_test(test_tenant_epochs),
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_without_nvml),
	};
	return cmocka_run_group_tests(tests, nvml_script_setup,
	                              nvml_script_teardown);
}
