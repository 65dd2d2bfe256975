/* The profiling protocol's frames.csv reader: a good file in every shape
 * the protocol allows, and each malformed line refused with its number. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "quality/profile_csv.h"

static bool parse(const char *text, struct profile_csv *c, char *err)
{
	return profile_csv_parse(text, strlen(text), "f.csv", c, err, 256);
}

static void good(void **state)
{
	(void)state;
	struct profile_csv c;
	char err[256];
	/* any column order, an ignored column, CRLF, no final newline */
	const char *t = "gpu_ms,active_tile,frame,area,cost_s,level,"
	                "active_statue\r\n"
	                "1.5,10,7,town,0.012,1,0\r\n"
	                "-1,12,8,town,0.013,1,2\n"
	                "9,3,10,dungeon,0.5,1,1";
	assert_true(parse(t, &c, err));
	assert_int_equal(c.rows, 3);
	assert_int_equal(c.n_types, 2);
	assert_string_equal(c.type[0], "tile");
	assert_string_equal(c.type[1], "statue");
	assert_true(c.has_area);
	assert_int_equal(c.n_areas, 2);
	assert_string_equal(c.area[c.area_of[2]], "dungeon");
	assert_int_equal(c.area_of[0], c.area_of[1]);
	assert_int_equal(c.level, 1);
	assert_int_equal(c.frame[2], 10);
	assert_true(c.cost_s[1] == 0.013);
	assert_true(c.counts[1 * 2 + 1] == 2.0);
	profile_csv_free(&c);
	/* the optional columns left out */
	assert_true(parse("frame,cost_s,active_a\n0,0,0\n", &c, err));
	assert_false(c.has_area);
	assert_int_equal(c.level, -1);
	assert_int_equal(c.rows, 1);
	profile_csv_free(&c);
}

static void refused(const char *text, const char *want)
{
	struct profile_csv c;
	char err[256] = "";
	assert_false(parse(text, &c, err));
	if (!strstr(err, want))
		fail_msg("'%s': got '%s', expected '%s'", text, err, want);
	assert_null(c.frame); /* nothing left allocated */
}

static void malformed(void **state)
{
	(void)state;
	const char *h = "frame,area,cost_s,active_a,active_b\n";
	char t[512];
	static const struct {
		const char *rows, *want;
	} cases[] = {
	    {"1,x,0.1,1\n", "f.csv:2: 4 fields, but the header has 5"},
	    {"1,x,0.1,1,2,3\n", "f.csv:2: 6 fields"},
	    {"1,x,0.1,1,2\n2,x,oops,1,2\n", "f.csv:3: cost_s 'oops'"},
	    {"1,x,-0.1,1,2\n", "f.csv:2: cost_s '-0.1'"},
	    {"1,x,nan,1,2\n", "f.csv:2: cost_s 'nan'"},
	    {"1,x,inf,1,2\n", "f.csv:2: cost_s 'inf'"},
	    {"1,x,,1,2\n", "f.csv:2: cost_s ''"},
	    {"1,x,0.1,-1,2\n", "f.csv:2: active_a '-1'"},
	    {"1,x,0.1,1,2x\n", "f.csv:2: active_b '2x'"},
	    {"-1,x,0.1,1,2\n", "f.csv:2: frame '-1'"},
	    {"1.5,x,0.1,1,2\n", "f.csv:2: frame '1.5'"},
	    {"2,x,0.1,1,2\n2,x,0.1,1,2\n", "f.csv:3: frame 2 does not follow"},
	    {"1,,0.1,1,2\n", "f.csv:2: area must be"},
	    {"1,x,0.1,1,2\n\n", "f.csv:3: 1 fields"},
	    {"", "f.csv: no frames after the header"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(t, sizeof(t), "%s%s", h, cases[i].rows);
		refused(t, cases[i].want);
	}
	refused("", "f.csv: empty");
	refused("frame,active_a\n1,2\n", "f.csv:1: the header needs");
	refused("frame,cost_s\n1,2\n", "f.csv:1: the header needs");
	refused("frame,frame,cost_s,active_a\n", "f.csv:1: column 'frame' "
	                                         "appears twice");
	refused("frame,cost_s,active_a,active_a\n", "appears twice");
	refused("frame,cost_s,active_\n", "f.csv:1: column 'active_'");
	refused("frame,cost_s,active_a,level\n1,0,0,1\n2,0,0,2\n",
	        "f.csv:3: level 2, but the first frame's is 1");
	char nul[] = "frame,cost_s,active_a\n1,0,0\n";
	nul[24] = '\0';
	struct profile_csv c;
	char err[256];
	assert_false(profile_csv_parse(nul, sizeof(nul) - 1, "f.csv", &c, err,
	                               sizeof(err)));
	assert_non_null(strstr(err, "f.csv:2: a NUL byte"));
}

static void missing_file(void **state)
{
	(void)state;
	struct profile_csv c;
	char err[256];
	assert_false(
	    profile_csv_read("/nonexistent/frames.csv", &c, err, sizeof(err)));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, "/nonexistent/frames.csv"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(good),
	    cmocka_unit_test(malformed),
	    cmocka_unit_test(missing_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
