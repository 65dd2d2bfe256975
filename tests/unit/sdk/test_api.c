/* What both SDKs share (include/baton/common.h), against libbaton.so as a
 * program links it: the version the library reports is the headers', every
 * return code has its own text, the BE SDK's old names still build and
 * mean the same, and the structs that carry their size follow the rule in
 * common.h (a smaller info is written only up to its size; options under
 * the first release's size, or larger with a field set that this library
 * does not know, are refused). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "baton/baton.h"
#include "baton/be.h"

/* The old names are the new values (be.h's deprecated aliases). */
_Static_assert(BATON_BE_OK == BATON_OK && BATON_BE_EINVAL == BATON_EINVAL &&
                   BATON_BE_ESTATE == BATON_ESTATE &&
                   BATON_BE_ENOMEM == BATON_ENOMEM &&
                   BATON_BE_ESYS == BATON_ESYS &&
                   BATON_BE_ETIMEDOUT == BATON_ETIMEDOUT,
               "deprecated BE codes keep their values");

static void version_is_the_headers(void **state)
{
	(void)state;
	int major = -1, minor = -1, patch = -1;
	assert_string_equal(baton_version(&major, &minor, &patch),
	                    BATON_VERSION);
	assert_int_equal(major, BATON_VERSION_MAJOR);
	assert_int_equal(minor, BATON_VERSION_MINOR);
	assert_int_equal(patch, BATON_VERSION_PATCH);
	assert_string_equal(baton_version(NULL, NULL, NULL), BATON_VERSION);
}

static void each_code_has_its_text(void **state)
{
	(void)state;
	const int codes[] = {BATON_OK,     BATON_EINVAL, BATON_ESTATE,
	                     BATON_ENOMEM, BATON_ESYS,   BATON_ETIMEDOUT};
	const size_t n = sizeof(codes) / sizeof(codes[0]);
	const char *unknown = baton_strerror(-1000);
	assert_string_equal(baton_strerror(1), unknown);
	for (size_t i = 0; i < n; i++) {
		assert_string_not_equal(baton_strerror(codes[i]), unknown);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(baton_strerror(codes[i]),
			                        baton_strerror(codes[j]));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
		assert_string_equal(baton_be_strerror(codes[i]),
		                    baton_strerror(codes[i]));
#pragma GCC diagnostic pop
	}
}

static int open_with(const struct baton_be_options *o)
{
	baton_be *be = NULL;
	int r = baton_be_open("api", o, &be);
	baton_be_close(be);
	return r;
}

static void options_follow_the_size_rule(void **state)
{
	(void)state;
	struct baton_be_options o;
	baton_be_options_init(&o);
	assert_int_equal(o.size, sizeof(o));
	o.no_daemon = 1;
	assert_int_equal(open_with(&o), BATON_OK);
	o.weight = 0.0; /* read: out of range */
	assert_int_equal(open_with(&o), BATON_EINVAL);

	/* A newer caller's larger struct: its unknown tail must be zero. */
	struct {
		struct baton_be_options o;
		uint64_t newer_option;
	} big;
	memset(&big, 0, sizeof(big));
	baton_be_options_init(&big.o);
	big.o.size = sizeof(big);
	big.o.no_daemon = 1;
	assert_int_equal(open_with(&big.o), BATON_OK);
	big.newer_option = 1;
	assert_int_equal(open_with(&big.o), BATON_EINVAL);

	/* Not filled by baton_be_options_init, or cut short. */
	baton_be_options_init(&o);
	o.size = 0;
	assert_int_equal(open_with(&o), BATON_EINVAL);
	o.size = offsetof(struct baton_be_options, cpu_device);
	assert_int_equal(open_with(&o), BATON_EINVAL);
}

static void info_is_written_up_to_its_size(void **state)
{
	(void)state;
	struct baton_be_options o;
	baton_be_options_init(&o);
	o.no_daemon = 1;
	o.alpha_ns = 12345;
	baton_be *be = NULL;
	assert_int_equal(baton_be_open("api", &o, &be), BATON_OK);

	struct baton_be_info info;
	memset(&info, 0, sizeof(info));
	assert_int_equal(baton_be_info(be, &info), BATON_EINVAL);

	/* An older caller's info, through `continuous` only. */
	memset(&info, 0xab, sizeof(info));
	info.size = offsetof(struct baton_be_info, alpha_ns);
	assert_int_equal(baton_be_info(be, &info), BATON_OK);
	assert_int_equal(info.size, offsetof(struct baton_be_info, alpha_ns));
	assert_int_equal(info.connected, 0);
	const unsigned char *tail = (const unsigned char *)&info + info.size;
	for (size_t i = 0; i < sizeof(info) - info.size; i++)
		assert_int_equal(tail[i], 0xab);

	info.size = sizeof(info);
	assert_int_equal(baton_be_info(be, &info), BATON_OK);
	assert_int_equal(info.size, sizeof(info));
	assert_int_equal(info.alpha_ns, 12345);
	baton_be_close(be);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(version_is_the_headers),
	    cmocka_unit_test(each_code_has_its_text),
	    cmocka_unit_test(options_follow_the_size_rule),
	    cmocka_unit_test(info_is_written_up_to_its_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
