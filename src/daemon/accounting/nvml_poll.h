/* NVML's per-process figures of one device, read through the dlopen'ed
 * library (nvml_abi.h): utilization samples, the running processes'
 * memory, the device's utilization. Every call may block in the driver:
 * only nvml_account.c's worker thread makes them, never the tick. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/accounting/nvml_abi.h"
#include "daemon/accounting/nvml_table.h"

/* The most samples or processes one call is given room for. */
#define NVML_POLL_MAX 4096

struct nvml_api {
	void *lib;
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	nvml_ret (*count)(unsigned int *);
	nvml_ret (*handle)(unsigned int, nvml_dev *);
	nvml_ret (*uuid)(nvml_dev, char *, unsigned int);
	/* the newer call, preferred; NULL where the library lacks it (before
	 * NVML 12.x) or it answered that it is not supported */
	nvml_ret (*procs_util)(nvml_dev, struct nvml_processes_util_info *);
	nvml_ret (*proc_util)(nvml_dev, struct nvml_process_sample *,
	                      unsigned int *, unsigned long long);
	nvml_ret (*util)(nvml_dev, struct nvml_utilization *);
	/* _v3 where present, else _v2: the same layout */
	nvml_ret (*compute)(nvml_dev, unsigned int *,
	                    struct nvml_process_info *);
	nvml_ret (*graphics)(nvml_dev, unsigned int *,
	                     struct nvml_process_info *);
};

/* dlopens lib_path (NULL: the driver's libnvidia-ml.so.1), resolves the
 * calls and starts NVML. false when it is absent, lacks the device calls
 * or does not start. */
bool nvml_api_open(struct nvml_api *a, const char *lib_path);
void nvml_api_close(struct nvml_api *a);

/* Room for the calls' answers, grown when a call says it is too small
 * (NVML_ERROR_INSUFFICIENT_SIZE), up to NVML_POLL_MAX. */
struct nvml_bufs {
	struct nvml_process_util_info *info;
	struct nvml_process_sample *old;
	struct nvml_sample *samples;
	unsigned cap_samples;
	struct nvml_process_info *procs;
	struct nvml_proc_mem *mem;
	unsigned cap_procs;
	unsigned retries; /* calls made again with more room, in all */
};
void nvml_bufs_free(struct nvml_bufs *b);

/* One device's answers (pointing into the bufs). */
struct nvml_reading {
	bool samples_ok; /* a utilization call answered */
	struct nvml_sample *samples;
	unsigned n_samples;
	bool mem_ok; /* a running-process list answered */
	struct nvml_proc_mem *mem;
	unsigned n_mem;
	bool util_ok;
	double util;
};

/* Reads device dev: samples newer than last_seen_us (the newest one the
 * last reading gave; 0 = all the driver kept), its running processes,
 * its utilization. */
void nvml_poll_device(struct nvml_api *a, nvml_dev dev, uint64_t last_seen_us,
                      struct nvml_bufs *b, struct nvml_reading *r);
