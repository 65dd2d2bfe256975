/* The quality models' loader thread (src/daemon/quality/model_loader.h):
 * loads off the caller's thread, hands each result back once, bounds what
 * it holds, and frees what was never taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/quality/model_loader.h"
#include "quality/model_file.h"

static char dir[] = "/tmp/baton-model-loader-XXXXXX";

/* Two levels, one object type, baton mode (docs/quality.md's format). */
static void write_model(const char *game)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s.json", dir, game);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f,
	        "{\"version\": 1, \"game\": \"%s\", \"mode\": \"baton\", "
	        "\"n_types\": 1, \"levels\": [",
	        game);
	for (int l = 0; l < 2; l++)
		fprintf(
		    f,
		    "%s{\"cost\": {\"intercept\": 0.00%d, \"weights\": [0], "
		    "\"kept\": [false]}, \"benefit\": {\"intercept\": 0.%d, "
		    "\"weights\": [0], \"kept\": [false]}}",
		    l ? ", " : "", l + 1, l);
	fprintf(f, "]}\n");
	fclose(f);
}

static struct daemon_quality declared(const char *game)
{
	struct daemon_quality q;
	daemon_quality_init(&q);
	q.declared = true;
	snprintf(q.game_id, sizeof(q.game_id), "%s", game);
	q.n_levels = 2;
	q.n_types = 1;
	return q;
}

/* Takes one result, waiting up to 5 s for the worker. */
static struct model_loader_done take_one(struct model_loader *l)
{
	struct model_loader_done d = {0};
	for (int i = 0; i < 500; i++) {
		if (model_loader_take(l, &d, 1) == 1)
			return d;
		nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
	}
	fail_msg("no result from the loader in 5 s");
	return d;
}

static int setup(void **state)
{
	assert_non_null(mkdtemp(dir));
	write_model("arena");
	char fifo[256];
	snprintf(fifo, sizeof(fifo), "%s/fifo.json", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_loads_each_request_once(void **state)
{
	struct model_loader *l = model_loader_start(dir);
	assert_non_null(l);
	struct daemon_quality q = declared("arena");
	assert_true(model_loader_request(l, 7, &q, "tenant 7"));
	struct model_loader_done d = take_one(l);
	assert_int_equal(d.tenant_id, 7);
	assert_non_null(d.models);
	assert_int_equal(d.models->n_levels, 2);
	free(d.models);
	/* Nothing more: a result is handed back once. */
	assert_int_equal(model_loader_take(l, &d, 1), 0);
	model_loader_stop(l);
}

/* A missing file, and a FIFO that would block a reader forever: no models,
 * and the loader goes on to the next request. */
static void test_missing_and_fifo(void **state)
{
	struct model_loader *l = model_loader_start(dir);
	struct daemon_quality none = declared("nosuchgame");
	struct daemon_quality fifo = declared("fifo");
	struct daemon_quality good = declared("arena");
	assert_true(model_loader_request(l, 1, &none, "tenant 1"));
	assert_true(model_loader_request(l, 2, &fifo, "tenant 2"));
	assert_true(model_loader_request(l, 3, &good, "tenant 3"));
	bool seen[4] = {0};
	for (int i = 0; i < 3; i++) {
		struct model_loader_done d = take_one(l);
		assert_true(d.tenant_id >= 1 && d.tenant_id <= 3);
		seen[d.tenant_id] = true;
		if (d.tenant_id == 3)
			assert_non_null(d.models);
		else
			assert_null(d.models);
		free(d.models);
	}
	assert_true(seen[1] && seen[2] && seen[3]);
	model_loader_stop(l);
}

/* Results not taken hold their slots: the queue refuses the request past
 * MODEL_LOADER_SLOTS, whatever the worker's speed, and stop frees them
 * (the ASan build checks that nothing leaks). */
static void test_bounded_and_freed(void **state)
{
	struct model_loader *l = model_loader_start(dir);
	struct daemon_quality q = declared("arena");
	for (unsigned i = 0; i < MODEL_LOADER_SLOTS; i++)
		assert_true(model_loader_request(l, i + 1, &q, "tenant"));
	assert_false(model_loader_request(l, 999, &q, "tenant"));
	struct model_loader_done d = take_one(l);
	free(d.models);
	assert_true(model_loader_request(l, 1000, &q, "tenant"));
	model_loader_stop(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loads_each_request_once),
	    cmocka_unit_test(test_missing_and_fifo),
	    cmocka_unit_test(test_bounded_and_freed),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
