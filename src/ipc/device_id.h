/* How a device batond placed a program on is named to that program's
 * graphics and compute APIs (set by baton run, src/cli/run_gpu_env.c;
 * docs/runtime.md, "Several GPUs"): its UUID, the one Vulkan's
 * VkPhysicalDeviceIDProperties.deviceUUID and OpenCL's
 * CL_DEVICE_UUID_KHR report for it (both defined to be the same across
 * APIs and processes), and its PCI slot. Read by the Vulkan layer's and
 * the OpenCL gate's device filters. libc only. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define BATON_DEVICE_UUID_ENV "BATON_VK_DEVICE_UUID"
#define BATON_DEVICE_PCI_ENV  "BATON_DEVICE_PCI"

#define IPC_DEVICE_UUID_SIZE 16

/* A PCI slot, sysfs's PCI_SLOT_NAME "DDDD:BB:DD.F" in numbers. */
struct ipc_pci_slot {
	uint32_t domain;
	uint8_t bus, device, function;
};

/* Parses s, exactly 32 lowercase hex digits (the form baton run writes),
 * into out (may be NULL: only checks). False for anything else. */
bool ipc_device_uuid_parse(const char *s, uint8_t out[IPC_DEVICE_UUID_SIZE]);

/* Parses s, a PCI slot "DDDD:BB:DD.F" in hex of either case (the domain
 * 4 to 8 digits, the device under 0x20, the function a digit 0-7), into
 * out (may be NULL). False for anything else. */
bool ipc_pci_slot_parse(const char *s, struct ipc_pci_slot *out);
