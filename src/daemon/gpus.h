/* batond's GPUs: one controller per GPU, each with the
 * core tick's per-GPU state, and the rules that put a tenant on one.
 *
 * Where they come from (daemon_gpus_setup): the config's `gpus` list
 * (a name each, and the CPUs of a logical GPU on a software rasterizer,
 * or the device a hardware GPU is: a render node, a PCI slot, an NVML
 * UUID), else the DRM render nodes under /sys/class/drm with NVML's
 * UUIDs where NVML is installed, else one GPU, "gpu0", the machine's only
 * device (a software rasterizer or a driver Baton cannot enumerate).
 *
 * Which GPU a tenant renders on (daemon_gpu_for): the GPU its hello
 * names (`baton run --gpu NAME` sets BATON_GPU), matched by name or
 * device; else the GPU whose UUID its Vulkan or OpenGL device reports
 * (deviceUUID; GL_EXT_memory_object's GL_DEVICE_UUID_EXT); else the
 * logical GPU whose CPUs hold every CPU the tenant may run on (a game
 * pinned to a core set renders there on llvmpipe); else the first, until
 * the drm-pdev of its DRM clients names another (tick/tick_account.c,
 * accounting/gpu_pdev.h). */
#pragma once

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/harvest.h"
#include "daemon/accounting/gpu_res.h"
#include "core/harvest_space.h"
#include "core/policy.h"
#include "daemon/tick/host_load.h"
#include "daemon/tick/space_mps.h"

#define DAEMON_MAX_GPUS     16
#define DAEMON_GPU_NAME_MAX 32

/* One `gpus` entry of the config. */
struct daemon_gpu_conf {
	char name[DAEMON_GPU_NAME_MAX];
	char cpus[128];   /* a CPU list ("0-3,8"); "" = not a core set */
	char device[128]; /* "/dev/dri/renderD128", "0000:01:00.0", an
	                     NVML UUID...; "" = none */
	double vram_mb;   /* its VRAM where neither NVML nor sysfs tells
	                     (gpu_res.h); 0 = unknown */
};

struct daemon_gpu {
	char name[DAEMON_GPU_NAME_MAX];
	char device[128]; /* what identifies it ("" = none) */
	char pci[32];     /* its PCI slot, when known ("" = none) */
	char uuid[40];    /* its UUID as 32 lowercase hex digits (NVML),
	                     "" = unknown */
	bool has_cpus;    /* a logical GPU: a core set */
	cpu_set_t cpus;
	unsigned n_cpus; /* the cores it has as a CPU device: a logical GPU's
	                    set, else the host's online CPUs (/proc/stat's
	                    aggregate line, other_util's, counts them all) */
	/* the core tick's per-GPU state, and what stage 6 found */
	struct core_gpu gpu;
	struct core_harvest_gpu harvest_gpu;
	struct core_space_gpu space;
	struct core_harvest_params params; /* stage 6's, its units set */
	uint64_t be_holder;     /* the tenant (id) whose frames shut the
	                           best-effort windows (harvest_gpu.hold); 0 =
	                           none */
	struct host_load host;  /* its CPUs' load (software rasterizer) */
	struct daemon_mps mps;  /* space harvesting through MPS */
	size_t n_tenants, n_be; /* on it now */
	struct gpu_res res;     /* its encoder and VRAM (gpu_res.h) */
};

/* What batond knows a GPU to be, whatever its tenants' records say: a
 * CPU device (a logical GPU: the config gave its CPUs), hardware (a render
 * node, a PCI slot or an NVML UUID identifies it), or unknown (the
 * fallback "gpu0", a config entry with a name only). On an unknown one a
 * tenant's software flag decides, while its measured CPU time covers
 * what it reports (tenant_seen.h). */
enum daemon_gpu_kind {
	DAEMON_GPU_UNKNOWN,
	DAEMON_GPU_HARDWARE,
	DAEMON_GPU_CPUS,
};
enum daemon_gpu_kind daemon_gpu_kind(const struct daemon_gpu *g);

/* Fills gpus[0..*n) from the config's entries (n_conf > 0), else from the
 * render nodes under sysfs_root ("/sys" unless a test says otherwise)
 * and NVML (nvml_lib, NULL: the driver's; daemon_gpus_nvml), else one
 * "gpu0". false with the reason in err (a CPU list that does
 * not parse). */
bool daemon_gpus_setup(struct daemon_gpu *gpus, size_t *n,
                       const struct daemon_gpu_conf *conf, size_t n_conf,
                       const char *sysfs_root, const char *nvml_lib, char *err,
                       size_t errlen);

/* The GPU a tenant renders on (see above): gpu is the hello's "gpu" (""
 * = none), uuid its "gpu_uuid" (its Vulkan device's), pci a PCI slot,
 * allowed the CPUs the tenant may run on (NULL = unknown). -1 when gpu
 * names no GPU. */
int daemon_gpu_for(const struct daemon_gpu *gpus, size_t n, const char *gpu,
                   const char *uuid, const char *pci, const cpu_set_t *allowed);
/* daemon_gpu_for, and whether its answer is the last rule's, the first
 * GPU by default (*fallback): a GPU nothing about the tenant named, which
 * its DRM clients may still decide (accounting/gpu_pdev.h). */
int daemon_gpu_choose(const struct daemon_gpu *gpus, size_t n, const char *gpu,
                      const char *uuid, const char *pci,
                      const cpu_set_t *allowed, bool *fallback);

/* NVIDIA GPUs from NVML (gpus_nvml.c; lib_path NULL: the driver's
 * libnvidia-ml.so.1): each one's UUID onto the render node of its PCI
 * slot among gpus[0..n), or appended (up to max) when none is. Returns
 * the new count; n when NVML is absent or does not start. */
size_t daemon_gpus_nvml(struct daemon_gpu *gpus, size_t n, size_t max,
                        const char *lib_path);

/* A GPU UUID ("GPU-6a1c4f..-.." or hex digits) as 32 lowercase hex
 * digits into out (len). */
void daemon_gpus_uuid_norm(const char *in, char *out, size_t len);

/* The CPUs process pid may run on (from its main thread); false when it
 * cannot be read. */
bool daemon_gpus_allowed(pid_t pid, cpu_set_t *out);
