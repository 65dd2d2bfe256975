/* The Vulkan layer's video-memory accounting (shim/vulkan/vram_table.h)
 * and the SIZE grammar of BATON_VRAM_LIMIT (ipc/vram_size.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ipc/vram_size.h"
#include "shim/shim_config.h"
#include "shim/vulkan/vram_table.h"

static void test_size_grammar(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		uint64_t bytes;
	} good[] = {
	    {"1", 1},
	    {"4096", 4096},
	    {"512K", 512ull << 10},
	    {"512KiB", 512ull << 10},
	    {"200M", 200ull << 20},
	    {"2G", 2ull << 30},
	    {"2GiB", 2ull << 30},
	    {"1.5G", 3ull << 29},
	    {"0.25T", 1ull << 38},
	    {"4194304T", 1ull << 62},
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = 0;
		assert_true(vram_size_parse(good[i].s, &v));
		assert_int_equal(v, good[i].bytes);
	}
	const char *bad[] = {"",     "0",        "0M",
	                     "-1",   "+1",       " 1G",
	                     "1G ",  "1 G",      "1g",
	                     "1GB",  "1Gi",      "1Q",
	                     "12Q",  "1.G",      ".5G",
	                     "0x10", "1e9",      "1,5G",
	                     "nan",  "4194305T", "99999999999999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 7;
		assert_false(vram_size_parse(bad[i], &v));
		assert_int_equal(v, 7); /* untouched */
	}
	uint64_t v = 7;
	assert_false(vram_size_parse(NULL, &v));
}

static void test_limit_from_env(void **state)
{
	(void)state;
	setenv("BATON_VRAM_LIMIT", "1.5G", 1);
	assert_int_equal(shim_vram_limit_read(), 3ull << 29);
	setenv("BATON_VRAM_LIMIT", "lots", 1);
	assert_int_equal(shim_vram_limit_read(), 0); /* ignored: unlimited */
	unsetenv("BATON_VRAM_LIMIT");
	assert_int_equal(shim_vram_limit_read(), 0);
}

static void test_table_add_take(void **state)
{
	(void)state;
	static struct vram_table t = VRAM_TABLE_INIT;
	uint64_t size = 0;
	uint32_t heap = 9;
	/* Unknown handles, VK_NULL_HANDLE, an empty table: nothing. */
	assert_false(vram_table_take(&t, 0x1000, 42, &size, &heap));
	assert_true(vram_table_add(&t, 0x1000, 42, 100, 1));
	assert_false(vram_table_add(&t, 0x1000, 42, 5, 0)); /* twice */
	assert_false(vram_table_add(&t, 0x1000, 0, 5, 0));  /* null */
	/* The same handle value on another device is another entry. */
	assert_true(vram_table_add(&t, 0x2000, 42, 7, 0));
	assert_false(vram_table_take(&t, 0x1000, 0, &size, &heap));
	assert_false(vram_table_take(&t, 0x1000, 43, &size, &heap));
	assert_true(vram_table_take(&t, 0x1000, 42, &size, &heap));
	assert_int_equal(size, 100);
	assert_int_equal(heap, 1);
	assert_false(vram_table_take(&t, 0x1000, 42, &size, &heap));
	assert_true(vram_table_take(&t, 0x2000, 42, &size, &heap));
	assert_int_equal(size, 7);
	assert_int_equal(t.count, 0);
	free(t.slot);
}

static void sum(uint64_t size, uint32_t heap, void *ctx)
{
	(void)heap;
	*(uint64_t *)ctx += size;
}

/* Bounded: full at VRAM_TABLE_MAX; and after any number of adds and
 * takes every live entry is still found (deletion keeps probe runs
 * whole). */
static void test_table_bounded_and_churn(void **state)
{
	(void)state;
	static struct vram_table t = VRAM_TABLE_INIT;
	for (uint64_t h = 1; h <= VRAM_TABLE_MAX; h++)
		assert_true(vram_table_add(&t, 0x1000, h, h, 0));
	assert_false(vram_table_add(&t, 0x1000, VRAM_TABLE_MAX + 1, 1, 0));
	uint64_t size;
	uint32_t heap;
	/* Free the odd ones, add as many new ones, three times over. */
	for (uint64_t round = 0; round < 3; round++) {
		uint64_t base = (round + 1) << 32;
		for (uint64_t h = 1; h <= VRAM_TABLE_MAX; h += 2) {
			uint64_t old = round ? (round << 32) + h : h;
			assert_true(
			    vram_table_take(&t, 0x1000, old, &size, &heap));
			assert_int_equal(size, h);
			assert_true(vram_table_add(&t, 0x1000, base + h, h, 0));
		}
	}
	for (uint64_t h = 2; h <= VRAM_TABLE_MAX; h += 2) {
		assert_true(vram_table_take(&t, 0x1000, h, &size, &heap));
		assert_int_equal(size, h);
	}
	/* What is left is the last round's odd ones: dropped at once. */
	uint64_t total = 0, want = 0;
	for (uint64_t h = 1; h <= VRAM_TABLE_MAX; h += 2)
		want += h;
	vram_table_drop_owner(&t, 0x1000, sum, &total);
	assert_int_equal(total, want);
	assert_int_equal(t.count, 0);
	free(t.slot);
}

static void test_drop_owner_leaves_others(void **state)
{
	(void)state;
	static struct vram_table t = VRAM_TABLE_INIT;
	for (uint64_t h = 1; h <= 1000; h++) {
		assert_true(vram_table_add(&t, 0x1000, h, 1, 0));
		assert_true(vram_table_add(&t, 0x2000, h, 2, 0));
	}
	uint64_t total = 0;
	vram_table_drop_owner(&t, 0x1000, sum, &total);
	assert_int_equal(total, 1000);
	assert_int_equal(t.count, 1000);
	uint64_t size;
	uint32_t heap;
	for (uint64_t h = 1; h <= 1000; h++) {
		assert_false(vram_table_take(&t, 0x1000, h, &size, &heap));
		assert_true(vram_table_take(&t, 0x2000, h, &size, &heap));
	}
	free(t.slot);
}

static void test_budget(void **state)
{
	(void)state;
	struct vram_budget b = {.limit = 1000};
	assert_true(vram_budget_reserve(&b, 0, 600));
	assert_false(vram_budget_reserve(&b, 1, 401)); /* one byte past */
	assert_true(vram_budget_reserve(&b, 1, 400));  /* exactly to it */
	assert_false(vram_budget_reserve(&b, 0, 1));
	assert_false(vram_budget_reserve(&b, 0, UINT64_MAX)); /* no wrap */
	assert_false(vram_budget_reserve(&b, VRAM_HEAPS, 0));
	/* heap 0 may hold the limit less heap 1's 400; the driver's own
	 * lower figure wins. */
	assert_int_equal(vram_budget_heap(&b, 0, 5000), 600);
	assert_int_equal(vram_budget_heap(&b, 1, 5000), 400);
	assert_int_equal(vram_budget_heap(&b, 0, 300), 300);
	assert_int_equal(vram_budget_heap(&b, 2, 5000), 0);
	vram_budget_release(&b, 0, 600);
	assert_int_equal(vram_budget_heap(&b, 0, 5000), 600);
	assert_true(vram_budget_reserve(&b, 0, 600));
}

/* Four threads allocate and free at once, as a game's loader threads do:
 * the limit is never passed and every byte comes back. */
#define RACERS      4
#define RACE_ROUNDS 20000
static struct vram_table race_table = VRAM_TABLE_INIT;
static struct vram_budget race_budget = {.limit = 1000};
static _Atomic(uint64_t) race_granted;

static void *racer(void *arg)
{
	uintptr_t owner = 0x1000 * ((uintptr_t)arg + 1);
	for (uint64_t h = 1; h <= RACE_ROUNDS; h++) {
		uint64_t size = 1 + h % 100;
		if (!vram_budget_reserve(&race_budget, 0, size))
			continue;
		atomic_fetch_add(&race_granted, 1);
		/* Nobody may see more than the limit taken. */
		if (atomic_load(&race_budget.used) > race_budget.limit)
			return (void *)1;
		if (!vram_table_add(&race_table, owner, h, size, 0))
			return (void *)2;
		uint64_t got;
		uint32_t heap;
		if (!vram_table_take(&race_table, owner, h, &got, &heap) ||
		    got != size)
			return (void *)3;
		vram_budget_release(&race_budget, heap, got);
	}
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	pthread_t t[RACERS];
	for (uintptr_t i = 0; i < RACERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, racer, (void *)i),
		                 0);
	for (int i = 0; i < RACERS; i++) {
		void *rc;
		pthread_join(t[i], &rc);
		assert_null(rc);
	}
	assert_true(atomic_load(&race_granted) > RACE_ROUNDS);
	assert_int_equal(atomic_load(&race_budget.used), 0);
	assert_int_equal(atomic_load(&race_budget.heap_used[0]), 0);
	assert_int_equal(race_table.count, 0);
	free(race_table.slot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_size_grammar),
	    cmocka_unit_test(test_limit_from_env),
	    cmocka_unit_test(test_table_add_take),
	    cmocka_unit_test(test_table_bounded_and_churn),
	    cmocka_unit_test(test_drop_owner_leaves_others),
	    cmocka_unit_test(test_budget),
	    cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
