/* The stub libnvidia-ml's per-process accounting calls (stub_nvml.c has
 * the devices): utilization samples, running processes and device
 * utilization, as a test's script says.
 *
 * Each call follows NVML's documented contract (nvml.h of the CUDA 12
 * toolkit and the NVML API reference, docs.nvidia.com/deploy/nvml-api):
 * - nvmlDeviceGetProcessUtilization(dev, samples, &count, lastSeen) and
 *   nvmlDeviceGetProcessesUtilizationInfo(dev, &info): the samples newer
 *   than lastSeenTimeStamp (CPU microseconds), one per process busy in
 *   each of the driver's sampling periods (an idle process has none);
 *   NVML_ERROR_INSUFFICIENT_SIZE (7) with the count needed when the
 *   array is NULL or too small; NVML_ERROR_NOT_FOUND (6) when no sample
 *   is newer; the newer call checks its struct's version
 *   (NVML_ERROR_ARGUMENT_VERSION_MISMATCH, 25).
 * - nvmlDevice{Compute,Graphics}RunningProcesses_v3 / _v2(dev, &count,
 *   infos): nvmlProcessInfo_t entries, NVML_ERROR_INSUFFICIENT_SIZE with
 *   the count needed when infos is too small.
 * - nvmlDeviceGetUtilizationRates(dev, &u).
 * Built twice: as a current driver's library, and with
 * STUB_NVML_OLD as one from before NVML 12 (no
 * nvmlDeviceGetProcessesUtilizationInfo, no _v3 lists).
 *
 * The script is the file BATON_STUB_NVML_SCRIPT names, read at every
 * call (a test rewrites it, by rename, as its load changes). Lines:
 *   period_us N            the driver's sampling period (default 100000)
 *   now_us N               the clock, pinned (default CLOCK_REALTIME)
 *   util DEV PCT           nvmlDeviceGetUtilizationRates' gpu
 *   proc DEV PID SM MEM KIND  a process on device DEV (0 or 1): its SM
 *                          percent in every period, its used bytes,
 *                          KIND compute or graphics
 *   newer_unsupported      nvmlDeviceGetProcessesUtilizationInfo answers
 *                          NVML_ERROR_NOT_SUPPORTED (3), as a driver may
 *                          for a GPU it does not sample that way
 * The same file carries stub_nvml_video.c's lines (they start with a
 * device index); each side skips the other's.
 * Sample instants are the multiples of period_us; the driver keeps the
 * last 10. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/accounting/nvml_abi.h"

#define API          __attribute__((visibility("default")))
#define MAX_PROCS    512
#define KEPT_PERIODS 10

struct script_proc {
	unsigned dev, pid, sm;
	unsigned long long mem;
	char kind[16];
};

struct script {
	unsigned long long period_us, now_us;
	int util[2];
	struct script_proc procs[MAX_PROCS];
	unsigned n;
	int newer_unsupported;
};

static unsigned long long clock_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ULL +
	       (unsigned long long)ts.tv_nsec / 1000ULL;
}

static void script_line(struct script *s, const char *line)
{
	struct script_proc p = {0};
	unsigned long long v;
	unsigned dev;
	int pct;
	if (strncmp(line, "newer_unsupported", 17) == 0)
		s->newer_unsupported = 1;
	else if (sscanf(line, "period_us %llu", &v) == 1 && v > 0)
		s->period_us = v;
	else if (sscanf(line, "now_us %llu", &v) == 1)
		s->now_us = v;
	else if (sscanf(line, "util %u %d", &dev, &pct) == 2 && dev < 2)
		s->util[dev] = pct;
	else if (sscanf(line, "proc %u %u %u %llu %15s", &p.dev, &p.pid, &p.sm,
	                &p.mem, p.kind) == 5 &&
	         s->n < MAX_PROCS)
		s->procs[s->n++] = p;
}

static void script_read(struct script *s)
{
	*s = (struct script){.period_us = 100000, .util = {-1, -1}};
	const char *path = getenv("BATON_STUB_NVML_SCRIPT");
	FILE *f = path ? fopen(path, "r") : NULL;
	char line[256];
	while (f && fgets(line, sizeof(line), f))
		script_line(s, line);
	if (f)
		fclose(f);
	if (s->now_us == 0)
		s->now_us = clock_us();
}

/* stub_nvml.c's handles: (void *)1 and (void *)2 */
static unsigned dev_index(void *dev)
{
	return (unsigned)(uintptr_t)dev - 1;
}

/* The samples newer than last on dev, in instant order, into out (up to
 * max); how many there are. */
static unsigned samples(void *dev, unsigned long long last,
                        struct nvml_process_sample *out, unsigned max)
{
	static struct script s;
	script_read(&s);
	unsigned long long p = s.period_us;
	unsigned long long newest = s.now_us / p * p;
	unsigned long long first = newest > (KEPT_PERIODS - 1) * p
	                               ? newest - (KEPT_PERIODS - 1) * p
	                               : p;
	if (last >= first)
		first = (last / p + 1) * p;
	unsigned n = 0;
	for (unsigned long long at = first; at <= newest; at += p)
		for (unsigned i = 0; i < s.n; i++) {
			const struct script_proc *q = &s.procs[i];
			if (q->dev != dev_index(dev) || q->sm == 0)
				continue; /* idle: no sample */
			if (out && n < max)
				out[n] = (struct nvml_process_sample){
				    .pid = q->pid,
				    .timeStamp = at,
				    .smUtil = q->sm,
				};
			n++;
		}
	return n;
}

API int nvmlDeviceGetProcessUtilization(void *dev,
                                        struct nvml_process_sample *out,
                                        unsigned int *count,
                                        unsigned long long last);

int nvmlDeviceGetProcessUtilization(void *dev, struct nvml_process_sample *out,
                                    unsigned int *count,
                                    unsigned long long last)
{
	if (!count || dev_index(dev) >= 2)
		return NVML_ERR_INVALID_ARGUMENT;
	unsigned n = samples(dev, last, out, out ? *count : 0);
	if (n == 0)
		return NVML_ERR_NOT_FOUND;
	if (!out || *count < n) {
		*count = n;
		return NVML_ERR_INSUFFICIENT_SIZE;
	}
	*count = n;
	return NVML_OK;
}

#ifndef STUB_NVML_OLD
API int
nvmlDeviceGetProcessesUtilizationInfo(void *dev,
                                      struct nvml_processes_util_info *q);

int nvmlDeviceGetProcessesUtilizationInfo(void *dev,
                                          struct nvml_processes_util_info *q)
{
	if (!q || dev_index(dev) >= 2)
		return NVML_ERR_INVALID_ARGUMENT;
	if (q->version != NVML_PROCESSES_UTIL_INFO_V1)
		return NVML_ERR_ARGUMENT_VERSION_MISMATCH;
	static struct script s;
	script_read(&s);
	if (s.newer_unsupported)
		return NVML_ERR_NOT_SUPPORTED;
	static struct nvml_process_sample old[4 * MAX_PROCS * KEPT_PERIODS];
	unsigned n = samples(dev, q->lastSeenTimeStamp, old,
	                     sizeof(old) / sizeof(old[0]));
	if (n == 0)
		return NVML_ERR_NOT_FOUND;
	if (!q->procUtilArray || q->processSamplesCount < n) {
		q->processSamplesCount = n;
		return NVML_ERR_INSUFFICIENT_SIZE;
	}
	for (unsigned i = 0; i < n; i++)
		q->procUtilArray[i] = (struct nvml_process_util_info){
		    .timeStamp = old[i].timeStamp,
		    .pid = old[i].pid,
		    .smUtil = old[i].smUtil,
		};
	q->processSamplesCount = n;
	return NVML_OK;
}
#endif

static int running(void *dev, const char *kind, unsigned int *count,
                   struct nvml_process_info *out)
{
	static struct script s;
	if (!count || dev_index(dev) >= 2)
		return NVML_ERR_INVALID_ARGUMENT;
	script_read(&s);
	unsigned n = 0;
	for (unsigned i = 0; i < s.n; i++) {
		const struct script_proc *q = &s.procs[i];
		if (q->dev != dev_index(dev) || strcmp(q->kind, kind) != 0)
			continue;
		if (out && n < *count)
			out[n] = (struct nvml_process_info){
			    .pid = q->pid, .usedGpuMemory = q->mem};
		n++;
	}
	int ret = out && *count >= n ? NVML_OK : NVML_ERR_INSUFFICIENT_SIZE;
	*count = n;
	return ret;
}

#ifdef STUB_NVML_OLD
#define RUNNING(name) name##_v2
#else
#define RUNNING(name) name##_v3
#endif

API int RUNNING(nvmlDeviceGetComputeRunningProcesses)(
    void *dev, unsigned int *count, struct nvml_process_info *out);
API int RUNNING(nvmlDeviceGetGraphicsRunningProcesses)(
    void *dev, unsigned int *count, struct nvml_process_info *out);
API int nvmlDeviceGetUtilizationRates(void *dev, struct nvml_utilization *u);

int RUNNING(nvmlDeviceGetComputeRunningProcesses)(void *dev,
                                                  unsigned int *count,
                                                  struct nvml_process_info *out)
{
	return running(dev, "compute", count, out);
}

int RUNNING(nvmlDeviceGetGraphicsRunningProcesses)(
    void *dev, unsigned int *count, struct nvml_process_info *out)
{
	return running(dev, "graphics", count, out);
}

int nvmlDeviceGetUtilizationRates(void *dev, struct nvml_utilization *u)
{
	static struct script s;
	if (!u || dev_index(dev) >= 2)
		return NVML_ERR_INVALID_ARGUMENT;
	script_read(&s);
	if (s.util[dev_index(dev)] < 0)
		return NVML_ERR_NOT_SUPPORTED;
	*u = (struct nvml_utilization){.gpu = (unsigned)s.util[dev_index(dev)]};
	return NVML_OK;
}
