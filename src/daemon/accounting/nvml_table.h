/* What NVML says of one device's processes, turned into counters the
 * tick can take growth of, as it does of the kernel's (gpu_account.h).
 * Pure arithmetic: nvml_poll.c feeds it what the calls returned.
 *
 * Utilization samples (nvmlDeviceGetProcessUtilization and its newer
 * form) give a process's SM percent over one of the driver's sampling
 * periods, stamped with the period's end in CPU microseconds; a call
 * returns the samples newer than the lastSeenTimeStamp it is passed, and
 * a process that was idle in a period has no sample for it. A sample's
 * period is the time since the sample instant before it (any process's;
 * the driver samples all of them at once), or since the newest one the
 * last call returned, at most the shortest such gap seen (the driver's
 * period: a gap in which every process was idle has no instant): its SM
 * share of that period is the process's busy time. The first call only takes
 * the newest timestamp as the base: the samples it returns are whatever the
 * driver had kept, of unknown age.
 *
 * A process is known to NVML on the device while it has a context there
 * (the running-process lists) or a sample, within NVML_TABLE_KEEP_NS: a
 * known process without samples was idle (0 busy); an unknown one is not
 * NVML's to count. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define NVML_TABLE_MAX_PIDS 256
#define NVML_TABLE_KEEP_NS  2000000000LL
/* A sample's period is at most this: a gap with no sample of any
 * process (all idle, or the device was not polled) is not one period. */
#define NVML_TABLE_MAX_PERIOD_US 1000000ULL

struct nvml_pid {
	uint32_t pid;
	uint64_t busy_ns;    /* its SM-busy time, counted since it was seen */
	uint64_t used_bytes; /* device memory, as of the last list */
	int64_t seen_ns;     /* when a list or a sample last named it */
};

/* One sample, from either call's layout. */
struct nvml_sample {
	uint32_t pid;
	uint64_t ts_us;
	unsigned sm; /* percent */
};

/* One running process (compute or graphics list). */
struct nvml_proc_mem {
	uint32_t pid;
	uint64_t used_bytes;
};

struct nvml_table {
	struct nvml_pid pids[NVML_TABLE_MAX_PIDS];
	unsigned n;
	uint64_t last_seen_us; /* the newest sample's; 0 = none yet */
	uint64_t period_us;    /* the shortest gap between instants; 0 =
	                          none seen yet */
	bool sampled;          /* process samples were read */
	bool has_util;
	double util; /* nvmlDeviceGetUtilizationRates' gpu, as a fraction */
};

/* Counts samples s[0..n) (reordered by timestamp) taken at now_ns. */
void nvml_table_samples(struct nvml_table *t, struct nvml_sample *s, unsigned n,
                        int64_t now_ns);

/* The running processes m[0..n) (compute and graphics; a pid in both
 * counts its larger figure) as of now_ns. */
void nvml_table_memory(struct nvml_table *t, const struct nvml_proc_mem *m,
                       unsigned n, int64_t now_ns);

/* Forgets the processes not named for NVML_TABLE_KEEP_NS. */
void nvml_table_expire(struct nvml_table *t, int64_t now_ns);

/* pid's entry; NULL when NVML does not know it on this device. */
const struct nvml_pid *nvml_table_find(const struct nvml_table *t,
                                       uint32_t pid);
