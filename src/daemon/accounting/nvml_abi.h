/* The part of NVML's C ABI that per-process accounting calls
 * (nvml_poll.c), declared here because NVML is dlopen'ed, never linked,
 * and Debian has no package with its header. Every declaration follows
 * nvml.h as the CUDA 12 toolkit ships it and the NVML API reference
 * (docs.nvidia.com/deploy/nvml-api): nvmlReturn_t is an int, a device an
 * opaque pointer, and the structs below have nvml.h's field order. */
#pragma once

#include <stdint.h>

typedef int nvml_ret;
typedef struct nvml_device_opaque *nvml_dev;

/* nvmlReturn_t values */
enum {
	NVML_OK = 0,
	NVML_ERR_UNINITIALIZED = 1,
	NVML_ERR_INVALID_ARGUMENT = 2,
	NVML_ERR_NOT_SUPPORTED = 3,
	NVML_ERR_NOT_FOUND = 6,
	NVML_ERR_INSUFFICIENT_SIZE = 7,
	NVML_ERR_FUNCTION_NOT_FOUND = 13,
	NVML_ERR_ARGUMENT_VERSION_MISMATCH = 25,
};

/* nvmlProcessUtilizationSample_t (nvmlDeviceGetProcessUtilization): a
 * process's utilization over one of the driver's sampling periods,
 * timeStamp in microseconds of the CPU's clock. */
struct nvml_process_sample {
	unsigned int pid;
	unsigned long long timeStamp;
	unsigned int smUtil, memUtil, encUtil, decUtil;
};

/* nvmlProcessUtilizationInfo_v1_t and nvmlProcessesUtilizationInfo_v1_t
 * (nvmlDeviceGetProcessesUtilizationInfo, NVML 12.x): the same sample in
 * the newer call's layout, and its versioned container. */
struct nvml_process_util_info {
	unsigned long long timeStamp;
	unsigned int pid;
	unsigned int smUtil, memUtil, encUtil, decUtil, jpgUtil, ofaUtil;
};
struct nvml_processes_util_info {
	unsigned int version;
	unsigned int processSamplesCount;
	unsigned long long lastSeenTimeStamp;
	struct nvml_process_util_info *procUtilArray;
};
/* NVML_STRUCT_VERSION(ProcessesUtilizationInfo, 1): the struct's size
 * with the version in the top byte */
#define NVML_PROCESSES_UTIL_INFO_V1                                            \
	((unsigned int)sizeof(struct nvml_processes_util_info) | (1u << 24))

/* nvmlProcessInfo_t as nvmlDeviceGet{Compute,Graphics}RunningProcesses_v3
 * and _v2 fill it (nvmlProcessInfo_v2_t's layout; usedGpuMemory is
 * NVML_VALUE_NOT_AVAILABLE where the driver cannot tell, e.g. on
 * Windows WDDM) */
struct nvml_process_info {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
};
#define NVML_VALUE_NOT_AVAILABLE_ULL (~0ULL)

/* nvmlUtilization_t (nvmlDeviceGetUtilizationRates): the percent of the
 * last sampling period in which one or more kernels ran, and in which
 * device memory was read or written. */
struct nvml_utilization {
	unsigned int gpu, memory;
};
