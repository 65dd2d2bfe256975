/* A tenant's GPU time as NVML counts it (docs/runtime.md, "Accounting
 * sources", the `nvml` item): on an NVIDIA GPU, the SM-busy time of the
 * tenant's process from NVML's per-process utilization samples, its used
 * device memory from the running-process lists, and the device's own
 * utilization (what of it belongs to no tenant is the GPU's other_util,
 * tick.c).
 *
 * NVML's calls may block in the driver for milliseconds: a worker thread
 * makes them, once per poll period, for every device whose UUID is one
 * of batond's GPUs' (gpus.h), and keeps the counters (nvml_table.h) under
 * a lock the tick takes only to copy one process's figures. A machine
 * without NVML, or whose NVIDIA GPUs are none of batond's, starts no
 * thread and loses nothing. The pids are the host's, as batond's peers'
 * are: NVML reports the host pid of a process in a container. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct nvml_account;

/* Starts NVML (lib_path NULL: the driver's libnvidia-ml.so.1) for the
 * GPUs whose UUIDs are uuids[0..n_gpus) (32 lowercase hex digits, ""
 * for none; daemon_gpus_uuid_norm's form), polled every period_ns by a
 * worker thread (period_ns 0: no thread, nvml_account_poll only). NULL
 * when NVML is absent, does not start or has none of these GPUs. */
struct nvml_account *nvml_account_start(const char *lib_path,
                                        const char (*uuids)[40], size_t n_gpus,
                                        int64_t period_ns);
void nvml_account_stop(struct nvml_account *a);

/* One poll of every device, at now_ns (the worker's; tests and the
 * bench call it themselves). */
void nvml_account_poll(struct nvml_account *a, int64_t now_ns);

/* What NVML says of process pid on GPU gpu: its SM-busy ns counter and
 * its used memory. false when NVML does not know it there. */
bool nvml_account_pid(struct nvml_account *a, size_t gpu, pid_t pid,
                      uint64_t *busy_ns, uint64_t *used_bytes);

/* GPU gpu's utilization (nvmlDeviceGetUtilizationRates' gpu percent, as
 * a fraction); false when NVML gives none for it. */
bool nvml_account_util(struct nvml_account *a, size_t gpu, double *util);

/* Calls made again with more room (NVML_ERROR_INSUFFICIENT_SIZE). */
unsigned nvml_account_retries(struct nvml_account *a);

/* A tenant's state: its counter's base and what arrived past an epoch. */
struct nvml_tenant {
	bool based;
	uint64_t base_ns;
	double carry_s; /* counted, not yet given to an epoch */
	double busy_s;  /* last epoch's */
	uint64_t used_bytes;
	bool logged; /* batond logged that NVML counts it */
};

/* One epoch of length dt: t->busy_s from the growth of pid's counter
 * since the last epoch. The worker polls on its own clock, so an epoch
 * may see two polls' growth and the next none: what is past dt carries
 * to the next epoch. true when NVML counted pid this epoch (it knows
 * the pid, and a base from the epoch before); a known pid without
 * samples was idle and counts 0. A zeroed nvml_tenant is a tenant's
 * start. */
bool nvml_tenant_epoch(struct nvml_tenant *t, struct nvml_account *a,
                       size_t gpu, pid_t pid, double dt);
