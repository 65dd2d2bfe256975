/* A GPU's video engines and video memory, and each tenant's share of
 * them: what admission's second and third resources are measured from
 * (core/admit_res.h; docs/capacity.md, "The encoder and VRAM").
 *
 * Sources, best first, per GPU:
 *   encoder load: NVML's encoder utilization (nvml_video.h); else the
 *                 sum of its tenants' video engines' busy share (their
 *                 DRM clients' drm-engine-<video class>, gpu_account.h);
 *   VRAM:         NVML's memory info; else amdgpu's sysfs
 *                 mem_info_vram_total / mem_info_vram_used; else the
 *                 config's vram_mb for its total, its tenants' resident
 *                 memory for what is used.
 * and per tenant: its DRM clients' video busy share and resident memory;
 * on NVIDIA, the encoder utilization split over the sessions of
 * nvmlDeviceGetEncoderSessions by their pixel rate. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "core/admit_res.h"

/* One GPU's, as of the last tick. */
struct gpu_res {
	struct core_res_gpu core; /* what admission reads */
	double encoder_util;      /* = core.encoder_load, 0 when unmeasured */
	double decoder_util;      /* NVML's only; 0 otherwise */
	bool has_decoder;
	const char *encoder_source; /* "nvml", "fdinfo", "none" */
	const char *vram_source;    /* "nvml", "sysfs", "config", "none" */
	int64_t nvml_read_ns;       /* the last NVML read (once a second) */
	uint64_t config_vram;       /* the config's vram_mb, in bytes */
};

/* One tenant's, as of the last tick. */
struct gpu_res_tenant {
	double video_share;  /* its video engines' busy share, smoothed */
	uint64_t vram_bytes; /* its resident video memory */
};

/* amdgpu's VRAM size and use, in bytes, from
 * sysfs_root/bus/pci/devices/PCI/mem_info_vram_total and _used (the
 * amdgpu driver's sysfs attributes, Documentation/gpu/amdgpu/
 * driver-core.rst: each a decimal byte count and a newline). false when
 * pci is "" or either file is absent or malformed. */
bool gpu_res_sysfs_vram(const char *sysfs_root, const char *pci,
                        uint64_t *total, uint64_t *used);
