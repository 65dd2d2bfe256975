/* NVIDIA GPUs through NVML (gpus.h), where the driver installs it.
 *
 * dlopen'ed, never linked: batond runs on machines with no NVIDIA driver,
 * and Debian has no NVML development package to build against. The few
 * declarations below are NVML's documented C ABI (nvml.h: nvmlReturn_t is
 * an int, NVML_SUCCESS 0, a device is an opaque pointer, nvmlPciInfo_t
 * starts with busIdLegacy[16] then domain, bus, device as unsigned ints). */
#include "daemon/gpus.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "util/log.h"

typedef int nvml_return;
typedef struct nvml_device *nvml_device;
struct nvml_pci_info {
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

struct nvml {
	nvml_return (*init)(void);
	nvml_return (*shutdown)(void);
	nvml_return (*count)(unsigned int *);
	nvml_return (*handle)(unsigned int, nvml_device *);
	nvml_return (*uuid)(nvml_device, char *, unsigned int);
	nvml_return (*pci)(nvml_device, struct nvml_pci_info *);
};

static bool resolve(void *lib, struct nvml *n)
{
	/* The _v2 / _v3 entry points are the ones nvml.h maps the plain
	 * names to since NVML 8 and 11. */
	*(void **)&n->init = dlsym(lib, "nvmlInit_v2");
	*(void **)&n->shutdown = dlsym(lib, "nvmlShutdown");
	*(void **)&n->count = dlsym(lib, "nvmlDeviceGetCount_v2");
	*(void **)&n->handle = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&n->uuid = dlsym(lib, "nvmlDeviceGetUUID");
	*(void **)&n->pci = dlsym(lib, "nvmlDeviceGetPciInfo_v3");
	return n->init && n->shutdown && n->count && n->handle && n->uuid;
}

void daemon_gpus_uuid_norm(const char *in, char *out, size_t len)
{
	/* "GPU-6a1c...-..." (NVML) and 32 hex digits (Vulkan's deviceUUID
	 * as the shim sends it) name the same 16 bytes */
	size_t o = 0;
	if (strncmp(in, "GPU-", 4) == 0)
		in += 4;
	for (; *in && o + 1 < len; in++)
		if (isxdigit((unsigned char)*in))
			out[o++] = (char)tolower((unsigned char)*in);
	out[o] = '\0';
}

size_t daemon_gpus_nvml(struct daemon_gpu *gpus, size_t n, size_t max,
                        const char *lib_path)
{
	void *lib = dlopen(lib_path ? lib_path : "libnvidia-ml.so.1",
	                   RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return n;
	struct nvml api;
	unsigned int count = 0;
	if (!resolve(lib, &api) || api.init() != 0) {
		log_warn("NVML is installed but does not start: NVIDIA GPUs "
		         "are the render nodes' only");
		dlclose(lib);
		return n;
	}
	if (api.count(&count) != 0)
		count = 0;
	for (unsigned int i = 0; i < count; i++) {
		nvml_device dev;
		char uuid[96] = "";
		if (api.handle(i, &dev) != 0 ||
		    api.uuid(dev, uuid, sizeof(uuid)) != 0)
			continue;
		char slot[32] = "";
		struct nvml_pci_info pci;
		if (api.pci && api.pci(dev, &pci) == 0)
			snprintf(slot, sizeof(slot), "%04x:%02x:%02x.0",
			         pci.domain & 0xffffu, pci.bus & 0xffu,
			         pci.device & 0x1fu);
		/* the render node of the same PCI slot, else a new GPU */
		size_t at = n;
		for (size_t g = 0; g < n && slot[0]; g++)
			if (strcasecmp(gpus[g].pci, slot) == 0)
				at = g;
		if (at == n) {
			if (n >= max)
				break;
			gpus[n] = (struct daemon_gpu){0};
			snprintf(gpus[n].name, sizeof(gpus[n].name), "gpu%zu",
			         n);
			snprintf(gpus[n].device, sizeof(gpus[n].device), "%s",
			         uuid);
			snprintf(gpus[n].pci, sizeof(gpus[n].pci), "%s", slot);
			n++;
		}
		daemon_gpus_uuid_norm(uuid, gpus[at].uuid,
		                      sizeof(gpus[at].uuid));
	}
	api.shutdown();
	dlclose(lib);
	return n;
}
