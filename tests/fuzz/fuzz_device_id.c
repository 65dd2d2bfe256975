/* libFuzzer target: the device a program is placed on, as the Vulkan
 * layer and the OpenCL gate read it from their environment
 * (ipc/device_id.h; sdk/cl/device_match.h). The input is two values,
 * BATON_VK_DEVICE_UUID up to the first newline and BATON_DEVICE_PCI
 * after it. Whatever the bytes: a UUID taken prints back as the same 32
 * digits, a slot taken has its fields in range, and the gate's line
 * about malformed values is NUL-terminated printable ASCII within its
 * buffer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/device_id.h"
#include "sdk/cl/device_match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_uuid(const char *s)
{
	uint8_t u[IPC_DEVICE_UUID_SIZE];
	if (!ipc_device_uuid_parse(s, u))
		return;
	char back[2 * IPC_DEVICE_UUID_SIZE + 1];
	for (int i = 0; i < IPC_DEVICE_UUID_SIZE; i++)
		snprintf(back + 2 * i, 3, "%02x", u[i]);
	if (strcmp(back, s) != 0)
		abort();
}

static void check_pci(const char *s)
{
	struct ipc_pci_slot p;
	if (ipc_pci_slot_parse(s, &p) && (p.device >= 0x20 || p.function > 7))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[512];
	size_t n = size < sizeof(in) - 1 ? size : sizeof(in) - 1;
	memcpy(in, data, n);
	in[n] = '\0';
	char *nl = strchr(in, '\n');
	const char *pci = "";
	if (nl) {
		*nl = '\0';
		pci = nl + 1;
	}
	check_uuid(in);
	check_pci(pci);
	struct cl_device_ident want;
	char why[160];
	memset(why, 'z', sizeof(why));
	cl_device_want_parse(in, pci, &want, why, sizeof(why));
	size_t len = strnlen(why, sizeof(why));
	if (len == sizeof(why))
		abort();
	for (size_t i = 0; i < len; i++)
		if (why[i] < 0x20 || why[i] >= 0x7f)
			abort();
	return 0;
}
