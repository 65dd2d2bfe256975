/* The environment for a GPU (run_gpu_env.h). */
#include "cli/run_gpu_env.h"

#include "ipc/device_id.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void put(struct run_gpu_env *e, const char *key, const char *value)
{
	if (e->n >= RUN_GPU_ENV_MAX)
		return;
	e->v[e->n].key = key;
	snprintf(e->v[e->n].value, sizeof(e->v[e->n].value), "%s", value);
	e->n++;
}

/* "0000:01:00.0" as Mesa's "pci-0000_01_00_0" (the udev ID_PATH_TAG
 * form DRI_PRIME takes). */
static void dri_prime_tag(const struct ipc_pci_slot *p, char *out, size_t len)
{
	snprintf(out, len, "pci-%04x_%02x_%02x_%x", (unsigned)p->domain,
	         (unsigned)p->bus, (unsigned)p->device, (unsigned)p->function);
}

void run_gpu_env_for(const struct run_gpu_target *t, struct run_gpu_env *out)
{
	out->n = 0;
	put(out, "BATON_GPU", t->name);
	bool hardware = t->kind && strcmp(t->kind, "hardware") == 0;
	struct ipc_pci_slot pci;
	bool has_pci = ipc_pci_slot_parse(t->pci, &pci);
	if (has_pci)
		put(out, BATON_DEVICE_PCI_ENV, t->pci);
	if (ipc_device_uuid_parse(t->uuid, NULL)) {
		put(out, BATON_DEVICE_UUID_ENV, t->uuid);
		if (!hardware)
			return;
		/* NVML's form: GPU-8-4-4-4-12 hex digits */
		char cuda[48];
		const char *u = t->uuid;
		snprintf(cuda, sizeof(cuda), "GPU-%.8s-%.4s-%.4s-%.4s-%.12s", u,
		         u + 8, u + 12, u + 16, u + 20);
		put(out, "CUDA_VISIBLE_DEVICES", cuda);
		put(out, "__NV_PRIME_RENDER_OFFLOAD", "1");
		put(out, "__GLX_VENDOR_LIBRARY_NAME", "nvidia");
		put(out, "__VK_LAYER_NV_optimus", "NVIDIA_only");
		return;
	}
	char tag[32];
	if (hardware && has_pci) {
		dri_prime_tag(&pci, tag, sizeof(tag));
		put(out, "DRI_PRIME", tag);
	}
}
