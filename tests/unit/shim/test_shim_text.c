/* What the shim reads from the environment and writes to the daemon:
 * frame rates, tenant names and the hello line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "shim/shim_config.h"
#include "shim/shim_hello.h"

static void test_fps_grammar(void **state)
{
	(void)state;
	double v = -1;
	assert_true(shim_parse_fps("45", &v));
	assert_float_equal(v, 45.0, 0.0);
	assert_true(shim_parse_fps("59.94", &v));
	assert_float_equal(v, 59.94, 1e-9);
	assert_true(shim_parse_fps("1", &v));
	assert_true(shim_parse_fps("1000", &v));
	v = -1;
	/* strtod would take all of these; the shim must not. */
	const char *bad[] = {"",      " 45",   "45 ",  "+45",  "-45",
	                     "4.5e1", "0x2d",  "45.",  ".5",   "nan",
	                     "inf",   "0",     "0.05", "1001", "45,5",
	                     "45fps", "1e999", "0.1",  "0.999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(shim_parse_fps(bad[i], &v));
		assert_float_equal(v, -1, 0.0); /* untouched */
	}
	assert_false(shim_parse_fps(NULL, &v));
}

static void copy(const char *src, size_t len, const char *want)
{
	char buf[64];
	memset(buf, 'x', sizeof(buf));
	shim_utf8_copy(buf, len, src);
	assert_string_equal(buf, want);
}

static void test_names_become_valid_utf8(void **state)
{
	(void)state;
	copy("glxgears", 64, "glxgears");
	copy("caf\xc3\xa9", 64, "caf\xc3\xa9"); /* é kept */
	copy("caf\xe9", 64, "caf?");            /* Latin-1 é */
	copy("a\tb\x7f", 64, "a?b?");           /* control characters */
	copy("\xc0\xaf", 64, "??");             /* overlong '/' */
	copy("\xed\xa0\x80", 64, "???");        /* a surrogate */
	copy("\xf4\x90\x80\x80", 64, "????");   /* past U+10FFFF */
	copy("\xe2\x82", 64, "??");             /* truncated */
	copy("\xf0\x9f\x8e\xae!", 64, "\xf0\x9f\x8e\xae!"); /* emoji */
	/* Cut at a character boundary, never mid-sequence. */
	copy("ab\xc3\xa9", 4, "ab");
	copy("ab\xc3\xa9", 5, "ab\xc3\xa9");
	copy("abcdef", 1, "");
}

static void test_program_name_from_argv0(void **state)
{
	(void)state;
	assert_string_equal(shim_program_name("glxgears"), "glxgears");
	assert_string_equal(shim_program_name("/usr/bin/glxgears"), "glxgears");
	/* Wine's processes: argv[0] as Wine rewrites it */
	assert_string_equal(shim_program_name("game.exe"), "game.exe");
	assert_string_equal(
	    shim_program_name("C:\\windows\\system32\\services.exe"),
	    "services.exe");
	assert_string_equal(shim_program_name("Z:\\games/My Game\\run.exe"),
	                    "run.exe");
	/* a trailing separator leaves nothing after it: keep the rest */
	assert_string_equal(shim_program_name("/opt/game/"), "game/");
	assert_string_equal(shim_program_name("/"), "/");
	assert_string_equal(shim_program_name(""), "");
}

static void test_hello_line(void **state)
{
	(void)state;
	struct shim_config cfg = {.sla_fps = 59.94, .fixed_fps = 0};
	strcpy(cfg.name, "say \"hi\" \\ \xc3\xa9");
	char buf[4096];
	size_t n = shim_hello_format(buf, sizeof(buf), &cfg, SHIM_API_GL);
	const char *want =
	    "{\"type\":\"hello\",\"version\":1,\"role\":\"tenant\","
	    "\"name\":\"say \\\"hi\\\" \\\\ \xc3\xa9\",\"sla_fps\":59.940,"
	    "\"fixed_fps\":0.000,\"api\":\"gl\"}\n";
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));

	cfg.fixed_fps = 45;
	shim_hello_format(buf, sizeof(buf), &cfg, SHIM_API_VULKAN);
	assert_non_null(strstr(buf, "\"fixed_fps\":45.000,\"api\":\"vulkan\""));

	/* BATON_CAP goes to batond too, in the C locale's notation; and
	 * the daemon's parser takes the line. */
	cfg.cap = 0.25;
	shim_hello_format(buf, sizeof(buf), &cfg, SHIM_API_GL);
	assert_non_null(strstr(buf, "\"api\":\"gl\",\"cap\":0.250000}\n"));
	cfg.cap = 1.0;
	shim_hello_format(buf, sizeof(buf), &cfg, SHIM_API_GL);
	assert_non_null(strstr(buf, ",\"cap\":1.000000}\n"));
	cfg.cap = 0.0;
	shim_hello_format(buf, sizeof(buf), &cfg, SHIM_API_GL);
	assert_null(strstr(buf, "cap"));

	/* BATON_GPU (baton run --gpu) and the device's UUID (the Vulkan
	 * layer's; all zeros is none, and the first one set stays) */
	strcpy(cfg.gpu, "right \"x\"");
	static const unsigned char zero[16] = {0};
	shim_set_gpu_uuid(zero);
	shim_hello_format(buf, sizeof(buf), &cfg, SHIM_API_VULKAN);
	assert_non_null(strstr(buf, ",\"gpu\":\"right \\\"x\\\"\"}\n"));
	const unsigned char uuid[16] = {0x6a, 0x1c, 0x4f, 0x2e, 0,    0,
	                                0x11, 0x11, 0x22, 0x22, 0x33, 0x33,
	                                0x44, 0x44, 0x55, 0x52};
	shim_set_gpu_uuid(uuid);
	unsigned char other[16] = {1};
	shim_set_gpu_uuid(other);
	shim_hello_format(buf, sizeof(buf), &cfg, SHIM_API_VULKAN);
	assert_non_null(
	    strstr(buf, ",\"gpu_uuid\":\"6a1c4f2e000011112222333344445552\"}"));
	cfg.gpu[0] = '\0';

	/* An empty name would be refused by the daemon. */
	cfg.name[0] = '\0';
	shim_hello_format(buf, sizeof(buf), &cfg, SHIM_API_GL);
	assert_non_null(strstr(buf, "\"name\":\"?\""));

	/* Too small a buffer: nothing, rather than a cut line. */
	assert_int_equal(shim_hello_format(buf, 40, &cfg, SHIM_API_GL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fps_grammar),
	    cmocka_unit_test(test_names_become_valid_utf8),
	    cmocka_unit_test(test_hello_line),
	    cmocka_unit_test(test_program_name_from_argv0),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
