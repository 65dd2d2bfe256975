/* The device filter's pure part (device_match.h). */
#include "sdk/cl/device_match.h"

#include <stdio.h>
#include <string.h>

/* v for a log line: its first SHOWN bytes, anything not printable ASCII
 * as '?' (the value is the environment's, not ours to print raw), "..."
 * after when cut short. */
#define SHOWN 40
static void printable(const char *v, char out[SHOWN + 4])
{
	size_t i = 0;
	for (; v[i] && i < SHOWN; i++)
		out[i] = v[i] >= 0x20 && v[i] < 0x7f ? v[i] : '?';
	strcpy(out + i, v[i] ? "..." : "");
}

/* Appends to why that variable name's value v is not the form it takes. */
static void say_malformed(char *why, size_t len, const char *name,
                          const char *v, const char *form)
{
	char shown[SHOWN + 4];
	printable(v, shown);
	size_t at = strlen(why);
	if (at < len)
		snprintf(why + at, len - at, "%s%s=\"%s\" is not %s; ignored",
		         at ? "; " : "", name, shown, form);
}

bool cl_device_want_parse(const char *uuid, const char *pci,
                          struct cl_device_ident *want, char *why,
                          size_t why_len)
{
	*want = (struct cl_device_ident){0};
	if (why_len)
		why[0] = '\0';
	if (uuid && *uuid) {
		want->has_uuid = ipc_device_uuid_parse(uuid, want->uuid);
		if (!want->has_uuid)
			say_malformed(
			    why, why_len, BATON_DEVICE_UUID_ENV, uuid,
			    "a device UUID (32 lowercase hex digits)");
	}
	if (pci && *pci) {
		want->has_pci = ipc_pci_slot_parse(pci, &want->pci);
		if (!want->has_pci)
			say_malformed(why, why_len, BATON_DEVICE_PCI_ENV, pci,
			              "a PCI slot (DDDD:BB:DD.F)");
	}
	return want->has_uuid || want->has_pci;
}

bool cl_device_is(const struct cl_device_ident *dev,
                  const struct cl_device_ident *want)
{
	if (dev->has_uuid && want->has_uuid)
		return memcmp(dev->uuid, want->uuid, sizeof(dev->uuid)) == 0;
	if (dev->has_pci && want->has_pci)
		return dev->pci.domain == want->pci.domain &&
		       dev->pci.bus == want->pci.bus &&
		       dev->pci.device == want->pci.device &&
		       dev->pci.function == want->pci.function;
	return false;
}
