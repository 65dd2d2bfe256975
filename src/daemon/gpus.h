/* batond's GPUs (issue 13 item 1): one controller per GPU, each with the
 * core tick's per-GPU state, and the rules that put a tenant on one.
 *
 * Where they come from (daemon_gpus_setup): the config's `gpus` list
 * (a name each, and the CPUs of a logical GPU on a software rasterizer,
 * or the device a hardware GPU is: a render node, a PCI slot, an NVML
 * UUID), else the DRM render nodes under /sys/class/drm, else one GPU,
 * "gpu0", the machine's only device (a software rasterizer or a driver
 * Baton cannot enumerate).
 *
 * Which GPU a tenant renders on (daemon_gpu_for): the GPU its hello
 * names (`baton run --gpu NAME` sets BATON_GPU), matched by name or
 * device; else the GPU whose PCI slot its Vulkan device reports; else the
 * logical GPU whose CPUs hold every CPU the tenant may run on (a game
 * pinned to a core set renders there on llvmpipe); else the first. */
#pragma once

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/harvest.h"
#include "core/harvest_space.h"
#include "core/policy.h"
#include "daemon/host_load.h"

#define DAEMON_MAX_GPUS     16
#define DAEMON_GPU_NAME_MAX 32

/* One `gpus` entry of the config. */
struct daemon_gpu_conf {
	char name[DAEMON_GPU_NAME_MAX];
	char cpus[128];   /* a CPU list ("0-3,8"); "" = not a core set */
	char device[128]; /* "/dev/dri/renderD128", "0000:01:00.0", an
	                     NVML UUID...; "" = none */
};

struct daemon_gpu {
	char name[DAEMON_GPU_NAME_MAX];
	char device[128]; /* what identifies it ("" = none) */
	char pci[32];     /* its PCI slot, when known ("" = none) */
	bool has_cpus;    /* a logical GPU: a core set */
	cpu_set_t cpus;
	unsigned n_cpus;
	/* the core tick's per-GPU state, and what stage 6 found */
	struct core_gpu gpu;
	struct core_harvest_gpu harvest_gpu;
	struct core_space_gpu space;
	struct core_harvest_params params; /* stage 6's, its units set */
	struct host_load host;  /* its CPUs' load (software rasterizer) */
	size_t n_tenants, n_be; /* on it now */
};

/* Fills gpus[0..*n) from the config's entries (n_conf > 0), else from the
 * render nodes under sysfs_root ("/sys" unless a test says otherwise),
 * else one "gpu0". false with the reason in err (a CPU list that does
 * not parse). */
bool daemon_gpus_setup(struct daemon_gpu *gpus, size_t *n,
                       const struct daemon_gpu_conf *conf, size_t n_conf,
                       const char *sysfs_root, char *err, size_t errlen);

/* The GPU a tenant renders on (see above): gpu is the hello's "gpu" (""
 * = none), pci its "gpu_pci", allowed the CPUs the tenant may run on
 * (NULL = unknown). -1 when gpu names no GPU. */
int daemon_gpu_for(const struct daemon_gpu *gpus, size_t n, const char *gpu,
                   const char *pci, const cpu_set_t *allowed);

/* The CPUs process pid may run on (from its main thread); false when it
 * cannot be read. */
bool daemon_gpus_allowed(pid_t pid, cpu_set_t *out);
