/* The models file: a round trip keeps every bit, and corrupt files fail
 * with a message naming the file and the field. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "quality/model_file.h"

static struct quality_model_set sample_set(void)
{
	struct quality_model_set s = {.game = "doom3",
	                              .mode = CORE_QM_BATON,
	                              .n_types = 3,
	                              .n_levels = 2};
	for (size_t l = 0; l < 2; l++) {
		s.level[l] =
		    (struct core_qm_level){.mode = CORE_QM_BATON, .n_types = 3};
		s.level[l].cost = (struct core_qm_linear){
		    .intercept = 0.0021 + (double)l * 1e-3,
		    .weight = {1.0 / 3.0 * 1e-4, 0.0, 7.25e-6},
		    .kept = 0x5};
		s.level[l].benefit = (struct core_qm_linear){
		    .intercept = -0.01, .weight = {0.0, 0.1, 0.2}, .kept = 0x6};
	}
	return s;
}

static void round_trip(void **state)
{
	char path[64], err[256];
	snprintf(path, sizeof(path), "/tmp/baton-qmodel-%d.json",
	         (int)getpid());
	struct quality_model_set s = sample_set(), back;
	assert_true(quality_model_save(path, &s, err, sizeof(err)));
	assert_true(quality_model_load(path, 2, 3, &back, err, sizeof(err)));
	assert_string_equal(back.game, "doom3");
	assert_int_equal(back.n_levels, 2);
	for (size_t l = 0; l < 2; l++) {
		assert_memory_equal(&back.level[l].cost, &s.level[l].cost,
		                    sizeof(s.level[l].cost));
		assert_memory_equal(&back.level[l].benefit, &s.level[l].benefit,
		                    sizeof(s.level[l].benefit));
	}
	/* the declaration changed since: wrong counts are refused */
	assert_false(quality_model_load(path, 3, 3, &back, err, sizeof(err)));
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "levels: 2, but the game declares 3"));
	assert_false(quality_model_load(path, 2, 4, &back, err, sizeof(err)));
	assert_non_null(strstr(err, "n_types"));
	unlink(path);
	/* the writer refuses what the reader would */
	s.level[1].cost.weight[1] = NAN;
	s.level[1].cost.kept |= 0x2;
	assert_false(quality_model_save(path, &s, err, sizeof(err)));
	assert_non_null(strstr(err, "levels[1].cost.weights[1]: not finite"));
	assert_int_equal(access(path, F_OK), -1);
	/* nowhere to write: a clear error, no leftovers */
	s = sample_set();
	assert_false(quality_model_save("/nonexistent-baton/m.json", &s, err,
	                                sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent-baton/m.json: cannot write"));
	/* nothing there at all */
	assert_false(quality_model_load("/nonexistent-baton/m.json", 0, 0,
	                                &back, err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent-baton/m.json: "));
}

#define LIN_OK                                                                 \
	"{\"intercept\":0.001,\"weights\":[1e-5,0],\"kept\":[true,false]}"
#define LEVEL_OK "{\"cost\":" LIN_OK ",\"benefit\":" LIN_OK "}"
#define HEAD     "\"version\":1,\"game\":\"g\",\"n_types\":2,"

static void corrupt_files(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"{" HEAD "\"mode\":\"baton\",\"levels\":[" LEVEL_OK "]}", NULL},
	    {"{" HEAD "\"mode\":\"baton\",\"levels\":[" LEVEL_OK "]", "line"},
	    {"{\"version\":2,\"game\":\"g\",\"n_types\":2,\"mode\":\"baton\","
	     "\"levels\":[" LEVEL_OK "]}",
	     "version: not 1"},
	    {"{" HEAD "\"mode\":\"fast\",\"levels\":[" LEVEL_OK "]}", "mode"},
	    {"{" HEAD "\"mode\":\"baton\",\"levels\":[]}", "levels"},
	    {"{" HEAD "\"mode\":\"baton\",\"extra\":1,\"levels\":[" LEVEL_OK
	     "]}",
	     "extra: unknown key"},
	    {"{" HEAD "\"mode\":\"baton\",\"levels\":[{\"cost\":" LIN_OK
	     ",\"benefit\":{\"intercept\":0,\"weights\":[-1e-3,0],"
	     "\"kept\":[true,false]}}]}",
	     "levels[0].benefit.weights[0]: negative"},
	    {"{" HEAD "\"mode\":\"baton\",\"levels\":[{\"cost\":" LIN_OK
	     ",\"benefit\":{\"intercept\":0,\"weights\":[1e-3],"
	     "\"kept\":[true,false]}}]}",
	     "levels[0].benefit.weights: not an array"},
	    {"{" HEAD "\"mode\":\"baton\",\"levels\":[{\"cost\":" LIN_OK
	     ",\"benefit\":{\"intercept\":0,\"weights\":[1e-3,2],"
	     "\"kept\":[true,false]}}]}",
	     "weights[1]: nonzero for a dropped type"},
	    {"{" HEAD "\"mode\":\"baton\",\"levels\":[{\"cost\":" LIN_OK
	     ",\"benefit\":{\"intercept\":\"x\",\"weights\":[1e-3,0],"
	     "\"kept\":[true,false]}}]}",
	     "levels[0].benefit.intercept: not a number"},
	    {"{" HEAD "\"mode\":\"paper\",\"levels\":[" LEVEL_OK "]}",
	     "levels[0].cost.intercept: must be 0 in paper mode"},
	    {"{" HEAD "\"mode\":\"baton\",\"levels\":[" LEVEL_OK "," LEVEL_OK
	     "]}",
	     "levels: 2, but the game declares 1"},
	    {"{\"version\":1,\"game\":\"g\",\"n_types\":65,\"mode\":\"baton\","
	     "\"levels\":[" LEVEL_OK "]}",
	     "n_types: not in 1..64"},
	    {"{" HEAD "\"version\":1,\"mode\":\"baton\",\"levels\":[" LEVEL_OK
	     "]}",
	     "duplicate"},
	    {"[]", "top level"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct quality_model_set s;
		char err[256] = "";
		bool ok =
		    quality_model_parse(cases[i].text, strlen(cases[i].text),
		                        "m.json", 1, 2, &s, err, sizeof(err));
		if (!cases[i].want) {
			assert_true(ok);
			continue;
		}
		if (ok || strncmp(err, "m.json: ", 8) != 0 ||
		    !strstr(err, cases[i].want))
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, err,
			         cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(round_trip),
	    cmocka_unit_test(corrupt_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
