/* A device's UUID and PCI slot as baton run passes them (device_id.h). */
#include "ipc/device_id.h"

#include <string.h>

/* The value of hex digit c, -1 for anything else; lower: lowercase only. */
static int hex_digit(char c, bool lower)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (!lower && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool ipc_device_uuid_parse(const char *s, uint8_t out[IPC_DEVICE_UUID_SIZE])
{
	if (!s || strlen(s) != 2 * IPC_DEVICE_UUID_SIZE)
		return false;
	uint8_t v[IPC_DEVICE_UUID_SIZE];
	for (int i = 0; i < IPC_DEVICE_UUID_SIZE; i++) {
		int hi = hex_digit(s[2 * i], true);
		int lo = hex_digit(s[2 * i + 1], true);
		if (hi < 0 || lo < 0)
			return false;
		v[i] = (uint8_t)(hi << 4 | lo);
	}
	if (out)
		memcpy(out, v, sizeof(v));
	return true;
}

/* Reads min to max hex digits from *s up to the character end (NUL for
 * the last field) into *v; false if they are not all there. */
static bool hex_field(const char **s, int min, int max, char end, uint32_t *v)
{
	int n = 0;
	*v = 0;
	for (int d; n < max && (d = hex_digit((*s)[n], false)) >= 0; n++)
		*v = *v << 4 | (uint32_t)d;
	if (n < min || (*s)[n] != end)
		return false;
	*s += n + (end ? 1 : 0);
	return true;
}

bool ipc_pci_slot_parse(const char *s, struct ipc_pci_slot *out)
{
	uint32_t dom, bus, dev, fn;
	if (!s || !hex_field(&s, 4, 8, ':', &dom) ||
	    !hex_field(&s, 2, 2, ':', &bus) ||
	    !hex_field(&s, 2, 2, '.', &dev) || dev >= 0x20 ||
	    !hex_field(&s, 1, 1, '\0', &fn) || fn > 7)
		return false;
	if (out)
		*out = (struct ipc_pci_slot){.domain = dom,
		                             .bus = (uint8_t)bus,
		                             .device = (uint8_t)dev,
		                             .function = (uint8_t)fn};
	return true;
}
