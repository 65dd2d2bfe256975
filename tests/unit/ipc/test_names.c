/* The names both sides of the contract write or check: the hello line's
 * JSON escaper and the quality area's name check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "ipc/json_escape.h"
#include "ipc/quality_name.h"
#include "ipc/shm.h"

static void test_json_escape(void **state)
{
	(void)state;
	char out[32];
	assert_int_equal(ipc_json_escape(out, sizeof(out), "a\"b\\c\n\x7f"),
	                 strlen("a\\\"b\\\\c\\u000a\\u007f"));
	assert_string_equal(out, "a\\\"b\\\\c\\u000a\\u007f");
	/* UTF-8 passes as is */
	assert_int_equal(ipc_json_escape(out, sizeof(out), "\xc3\xa9"), 2);
	/* exactly full (the NUL too) fits; one byte more does not */
	assert_int_equal(ipc_json_escape(out, 4, "abc"), 3);
	assert_int_equal(ipc_json_escape(out, 4, "abcd"), 0);
	assert_int_equal(ipc_json_escape(out, 4, "a\"b"), 0);
}

static void test_quality_name(void **state)
{
	(void)state;
	char field[BATON_QUALITY_NAME_SIZE];
	assert_true(ipc_quality_name_ok("my-game_2.0", true));
	assert_false(ipc_quality_name_ok("my game", true));
	assert_true(ipc_quality_name_ok("Ultra (RT on)", false));
	assert_false(ipc_quality_name_ok("tab\there", false));
	assert_false(ipc_quality_name_ok("\xc3\xa9", false));
	assert_false(ipc_quality_name_ok("", false));
	assert_false(ipc_quality_name_ok(NULL, false));
	/* 31 bytes fill the field; 32 leave no NUL in it */
	memset(field, 'a', sizeof(field));
	assert_false(ipc_quality_name_ok(field, true));
	field[sizeof(field) - 1] = '\0';
	assert_true(ipc_quality_name_ok(field, true));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_json_escape),
	    cmocka_unit_test(test_quality_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
