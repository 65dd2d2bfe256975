/* A device's UUID and PCI slot as baton run passes them to the Vulkan
 * layer and the OpenCL gate (ipc/device_id.h): the forms taken, and
 * everything else refused whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "ipc/device_id.h"

static void uuid_parsed(void **state)
{
	(void)state;
	uint8_t u[IPC_DEVICE_UUID_SIZE];
	assert_true(
	    ipc_device_uuid_parse("00112233445566778899aabbccddeeff", u));
	for (int i = 0; i < IPC_DEVICE_UUID_SIZE; i++)
		assert_int_equal(u[i], i * 0x11);
	assert_true(
	    ipc_device_uuid_parse("00112233445566778899aabbccddeeff", NULL));
}

static void uuid_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
	    "",
	    "0011223344556677889aabbccddeeff",   /* 31 digits */
	    "00112233445566778899aabbccddeeff0", /* 33 */
	    "00112233445566778899AABBCCDDEEFF",  /* capitals: not our form */
	    "GPU-00112233-4455-6677-8899-aabbccddeeff",
	    "00112233445566778899aabbccddeefg",
	    " 0112233445566778899aabbccddeeff",
	    "0x112233445566778899aabbccddeeff",
	};
	uint8_t u[IPC_DEVICE_UUID_SIZE];
	memset(u, 0x5a, sizeof(u));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ipc_device_uuid_parse(bad[i], u))
			fail_msg("took \"%s\"", bad[i]);
	assert_false(ipc_device_uuid_parse(NULL, u));
	for (int i = 0; i < IPC_DEVICE_UUID_SIZE; i++)
		assert_int_equal(u[i], 0x5a); /* untouched */
}

static void pci_parsed(void **state)
{
	(void)state;
	struct ipc_pci_slot p;
	assert_true(ipc_pci_slot_parse("0000:01:00.0", &p));
	assert_int_equal(p.domain, 0);
	assert_int_equal(p.bus, 1);
	assert_int_equal(p.device, 0);
	assert_int_equal(p.function, 0);
	assert_true(ipc_pci_slot_parse("0000:C1:1F.7", &p));
	assert_int_equal(p.bus, 0xc1);
	assert_int_equal(p.device, 0x1f);
	assert_int_equal(p.function, 7);
	/* a domain past 16 bits (Intel VMD's 10000) */
	assert_true(ipc_pci_slot_parse("10000:e1:00.1", &p));
	assert_int_equal(p.domain, 0x10000);
	assert_true(ipc_pci_slot_parse("ffffffff:ff:1f.7", NULL));
}

static void pci_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
	    "",
	    "000:01:00.0",
	    "0000:1:00.0",
	    "0000:001:00.0",
	    "0000:01:0.0",
	    "0000:01:20.0",
	    "0000:01:00.8",
	    "0000:01:00.00",
	    "0000:01:00",
	    "0000:01:00.",
	    "0000-01-00.0",
	    "0000:01:00.0 ",
	    "100000000:01:00.0",
	    "0000:g1:00.0",
	    "pci-0000_01_00_0",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ipc_pci_slot_parse(bad[i], NULL))
			fail_msg("took \"%s\"", bad[i]);
	assert_false(ipc_pci_slot_parse(NULL, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(uuid_parsed),
	    cmocka_unit_test(uuid_refused),
	    cmocka_unit_test(pci_parsed),
	    cmocka_unit_test(pci_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
