/* The OpenCL gate's device filter, its pure part (src/sdk/cl/
 * device_match.c): the device wanted from BATON_VK_DEVICE_UUID and
 * BATON_DEVICE_PCI, a malformed value named and left out, and which
 * devices are that one (by UUID where both sides have one, else by
 * slot; a device nothing identifies never). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sdk/cl/device_match.h"

#define UUID_A "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
#define UUID_B "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf"

static struct cl_device_ident dev(const char *uuid, const char *pci)
{
	struct cl_device_ident d = {0};
	d.has_uuid = uuid && ipc_device_uuid_parse(uuid, d.uuid);
	d.has_pci = pci && ipc_pci_slot_parse(pci, &d.pci);
	return d;
}

static void want_parsed(void **state)
{
	(void)state;
	struct cl_device_ident w;
	char why[256];
	assert_false(cl_device_want_parse(NULL, NULL, &w, why, sizeof(why)));
	assert_string_equal(why, "");
	assert_false(cl_device_want_parse("", "", &w, why, sizeof(why)));
	assert_string_equal(why, "");
	assert_true(cl_device_want_parse(UUID_A, NULL, &w, why, sizeof(why)));
	assert_true(w.has_uuid && !w.has_pci);
	assert_int_equal(w.uuid[15], 0xaf);
	assert_true(
	    cl_device_want_parse(NULL, "0000:0b:00.0", &w, why, sizeof(why)));
	assert_true(!w.has_uuid && w.has_pci && w.pci.bus == 0x0b);
	assert_string_equal(why, "");
}

static void malformed_named(void **state)
{
	(void)state;
	struct cl_device_ident w;
	char why[256];
	/* a bad UUID beside a good slot: the slot alone */
	assert_true(cl_device_want_parse("GPU-1234", "0000:0b:00.0", &w, why,
	                                 sizeof(why)));
	assert_true(!w.has_uuid && w.has_pci);
	assert_non_null(strstr(why, "BATON_VK_DEVICE_UUID=\"GPU-1234\""));
	/* both bad: no filter, both named; control bytes not printed, a
	 * long value cut short */
	char long_v[200];
	memset(long_v, 'x', sizeof(long_v) - 1);
	long_v[sizeof(long_v) - 1] = '\0';
	assert_false(
	    cl_device_want_parse("a\x1b[2Jb", long_v, &w, why, sizeof(why)));
	assert_non_null(strstr(why, "BATON_VK_DEVICE_UUID=\"a?[2Jb\""));
	assert_non_null(strstr(why, "BATON_DEVICE_PCI=\"xxxx"));
	assert_non_null(strstr(why, "x...\" is not a PCI slot"));
	assert_null(strchr(why, '\x1b'));
	/* a short buffer is never overrun */
	char tiny[8];
	cl_device_want_parse(long_v, long_v, &w, tiny, sizeof(tiny));
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

static void matched_by_uuid_then_slot(void **state)
{
	(void)state;
	struct cl_device_ident want = dev(UUID_B, NULL);
	struct cl_device_ident a = dev(UUID_A, "0000:0a:00.0");
	struct cl_device_ident b = dev(UUID_B, "0000:0b:00.0");
	struct cl_device_ident c = dev(NULL, "0000:0b:00.0");
	struct cl_device_ident none = dev(NULL, NULL);
	assert_false(cl_device_is(&a, &want));
	assert_true(cl_device_is(&b, &want));
	assert_false(cl_device_is(&c, &want)); /* nothing to compare */
	assert_false(cl_device_is(&none, &want));
	/* by slot: the UUID where both have one still decides */
	want = dev(UUID_A, "0000:0b:00.0");
	assert_false(cl_device_is(&b, &want));
	assert_true(cl_device_is(&c, &want));
	assert_true(cl_device_is(&a, &want));
	want = dev(NULL, "0000:0a:00.0");
	assert_true(cl_device_is(&a, &want));
	assert_false(cl_device_is(&b, &want));
	want = dev(NULL, "0000:0b:00.1"); /* another function */
	assert_false(cl_device_is(&c, &want));
	assert_false(cl_device_is(&none, &want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(want_parsed),
	    cmocka_unit_test(malformed_named),
	    cmocka_unit_test(matched_by_uuid_then_slot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
