/* The OpenCL gate's device filter, its pure part (devices.c asks the
 * runtime): which device batond placed the program on, as baton run
 * names it (ipc/device_id.h), and whether a device the runtime lists is
 * that one. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipc/device_id.h"

/* What identifies a device: its UUID (cl_khr_device_uuid) and its PCI
 * slot (cl_khr_pci_bus_info), each where known. */
struct cl_device_ident {
	bool has_uuid, has_pci;
	uint8_t uuid[IPC_DEVICE_UUID_SIZE];
	struct ipc_pci_slot pci;
};

/* The device to show, from the values of BATON_VK_DEVICE_UUID and
 * BATON_DEVICE_PCI (NULL or "": unset) into *want: true when either
 * names one. A value set but malformed is left out, and why says so,
 * naming the variable and (printable, cut short) the value; why is ""
 * when both are well formed or unset. */
bool cl_device_want_parse(const char *uuid, const char *pci,
                          struct cl_device_ident *want, char *why,
                          size_t why_len);

/* Whether dev is the device wanted: by UUID where both have one, else by
 * PCI slot where both have one; a device neither identifies is not. */
bool cl_device_is(const struct cl_device_ident *dev,
                  const struct cl_device_ident *want);
