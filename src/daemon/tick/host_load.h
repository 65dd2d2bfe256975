/* How busy the host's CPUs are, from /proc/stat. On a software rasterizer
 * (llvmpipe, lavapipe) the "GPU" is the CPU cores, and the tenants' own
 * CPU time is not all of the load on it: the X server's copy of each frame,
 * other processes, batond itself, and the time a hypervisor gives our vCPUs
 * to someone else (steal) all take capacity no tenant accounts for. ESA
 * must leave that out of its budget or aim at a rate the cores cannot
 * give (docs/runtime.md). */
#pragma once

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

struct host_load {
	const char *path;     /* "/proc/stat" unless a test says otherwise */
	uint64_t busy, total; /* jiffies at the last sample */
	bool primed;          /* a first sample was taken */
	bool has_cpus;        /* only these CPUs (a logical GPU's) */
	cpu_set_t cpus;
};

void host_load_init(struct host_load *h, const char *path);

/* From now on, the load of these CPUs only (the "cpuN" lines), not of
 * all of them: a logical GPU's cores (daemon/gpus.h). */
void host_load_set_cpus(struct host_load *h, const cpu_set_t *cpus);

/* The busy fraction of all CPUs (steal counted as busy) since the last
 * call, in [0, 1]. false on the first call, when the file cannot be read or
 * parsed, or when no time passed; the next call then measures from this
 * one. */
bool host_load_sample(struct host_load *h, double *busy_fraction);

/* Parses the aggregate "cpu " line of /proc/stat. false if it is not one. */
bool host_load_parse(const char *line, uint64_t *busy, uint64_t *total);
