/* The environment that makes a program render (or compute) on one of
 * batond's GPUs (run_gpu.c applies it; docs/runtime.md, "Several GPUs"):
 *   every GPU     BATON_GPU=NAME (the shim names it in its hello);
 *   a UUID known  BATON_VK_DEVICE_UUID (Baton's Vulkan layer shows the
 *                 game that physical device only, the OpenCL gate that
 *                 device: ipc/device_id.h);
 *   a PCI slot    BATON_DEVICE_PCI (the OpenCL gate's filter, for a
 *                 device that reports no UUID);
 *   NVIDIA        (its UUID is NVML's): CUDA_VISIBLE_DEVICES=GPU-<uuid>
 *                 (CUDA, and NVIDIA's OpenCL, see that GPU only), and
 *                 the PRIME render offload variables of NVIDIA's driver
 *                 README (__NV_PRIME_RENDER_OFFLOAD=1,
 *                 __GLX_VENDOR_LIBRARY_NAME=nvidia,
 *                 __VK_LAYER_NV_optimus=NVIDIA_only);
 *   another GPU   with a PCI slot: Mesa's DRI_PRIME=pci-DDDD_BB_DD_F
 *                 (Mesa's environment-variable docs: its GLX, EGL and
 *                 Vulkan loaders pick the device of that slot);
 *   a core set    nothing: the process is confined to its CPUs. */
#pragma once

#include <stddef.h>

/* A GPU as batond's gpus and place replies describe it. */
struct run_gpu_target {
	const char *name;
	const char *pci;  /* "0000:01:00.0", "" */
	const char *uuid; /* 32 lowercase hex digits, "" */
	const char *kind; /* "hardware", "cpus", "unknown" */
};

#define RUN_GPU_ENV_MAX 8

struct run_gpu_env {
	size_t n;
	struct {
		const char *key;
		char value[64];
	} v[RUN_GPU_ENV_MAX];
};

/* The variables for t into out (malformed pci or uuid values are left
 * out, not passed on). */
void run_gpu_env_for(const struct run_gpu_target *t, struct run_gpu_env *out);
