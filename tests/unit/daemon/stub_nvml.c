/* A stand-in for the NVIDIA driver's libnvidia-ml.so.1 (daemon_gpus):
 * two GPUs, with NVML's UUID form and PCI slots 0000:41:00.0 and
 * 0000:81:00.0, through the entry points gpus_nvml.c looks up. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#define API __attribute__((visibility("default")))

struct pci {
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

static int started;

API int nvmlInit_v2(void);
API int nvmlShutdown(void);
API int nvmlDeviceGetCount_v2(unsigned int *n);
API int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev);
API int nvmlDeviceGetUUID(void *dev, char *out, unsigned int len);
API int nvmlDeviceGetPciInfo_v3(void *dev, struct pci *p);

int nvmlInit_v2(void)
{
	started = 1;
	return 0;
}

int nvmlShutdown(void)
{
	started = 0;
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
	if (!started)
		return 1; /* NVML_ERROR_UNINITIALIZED */
	*n = 2;
	return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev)
{
	if (i >= 2)
		return 2; /* NVML_ERROR_INVALID_ARGUMENT */
	*dev = (void *)(uintptr_t)(i + 1);
	return 0;
}

int nvmlDeviceGetUUID(void *dev, char *out, unsigned int len)
{
	unsigned i = (unsigned)(uintptr_t)dev;
	snprintf(out, len, "GPU-6a1c4f2e-0000-1111-2222-33334444555%u", i);
	return 0;
}

int nvmlDeviceGetPciInfo_v3(void *dev, struct pci *p)
{
	memset(p, 0, sizeof(*p));
	p->bus = (uintptr_t)dev == 1 ? 0x41 : 0x81;
	snprintf(p->bus_id, sizeof(p->bus_id), "00000000:%02X:00.0", p->bus);
	return 0;
}
