/* The environment for a GPU (run_gpu_env.h). */
#include "cli/run_gpu_env.h"

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

static bool hex_uuid(const char *u)
{
	return u && strlen(u) == 32 && strspn(u, "0123456789abcdef") == 32;
}

/* "0000:01:00.0" as Mesa's "pci-0000_01_00_0" (the udev ID_PATH_TAG
 * form DRI_PRIME takes); false for anything not shaped like a slot. */
static bool dri_prime_tag(const char *pci, char *out, size_t len)
{
	static const char shape[] = "xxxx:xx:xx.x";
	if (!pci || strlen(pci) != sizeof(shape) - 1 || len < sizeof(shape) + 4)
		return false;
	memcpy(out, "pci-", 4);
	for (size_t i = 0; shape[i]; i++) {
		char c = pci[i];
		if (shape[i] == 'x' ? !strchr("0123456789abcdefABCDEF", c) || !c
		                    : c != shape[i])
			return false;
		out[4 + i] = shape[i] == 'x' ? c : '_';
	}
	out[4 + sizeof(shape) - 1] = '\0';
	return true;
}

void run_gpu_env_for(const struct run_gpu_target *t, struct run_gpu_env *out)
{
	out->n = 0;
	put(out, "BATON_GPU", t->name);
	bool hardware = t->kind && strcmp(t->kind, "hardware") == 0;
	if (hex_uuid(t->uuid)) {
		put(out, "BATON_VK_DEVICE_UUID", t->uuid);
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
	if (hardware && dri_prime_tag(t->pci, tag, sizeof(tag)))
		put(out, "DRI_PRIME", tag);
}
