/* The CPU time a tenant's process really used, as the kernel counts it
 * (/proc/PID/stat, proc(5)): what batond can see for itself of a tenant
 * on a software rasterizer (llvmpipe, lavapipe), where the "GPU" is the
 * host's cores and the rasterizer's threads render inside the tenant's
 * own process. A tenant's reported GPU time is a claim; on such a device
 * this clock bounds it.
 *
 * The process is hostile: its name (the comm field, set with
 * PR_SET_NAME) may hold spaces and parentheses, and its pid may be reused
 * by another process once it exits. The start time read at registration
 * tells the two apart: a sample of a different process is refused. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_cpu {
	char path[64];        /* "/proc/PID/stat" (or a test's file) */
	uint64_t start_ticks; /* the process's start time (field 22) */
	int64_t last_ns;      /* utime + stime at the last sample */
	bool ok;              /* opened, and still the same process */
};

/* The fields of one /proc/PID/stat line that matter here: utime + stime
 * (fields 14 and 15) in ns, given the clock ticks per second, and the
 * start time (field 22) in ticks. false if the line is not one. */
bool proc_cpu_parse(const char *line, long ticks_per_s, int64_t *cpu_ns,
                    uint64_t *start_ticks);

/* Starts the clock of process pid, read from proc_root ("/proc" unless a
 * test says otherwise). false (p->ok false) if the process cannot be
 * read: it has exited, or /proc is hidden from us. */
bool proc_cpu_open(struct proc_cpu *p, const char *proc_root, pid_t pid);

/* true if the process p opened was started after boot_ns (CLOCK_BOOTTIME,
 * the clock of its start time): it cannot be a peer that connected at
 * boot_ns, only a process that took that peer's pid once the peer exited.
 * false when p is not open. */
bool proc_cpu_started_after(const struct proc_cpu *p, int64_t boot_ns);

/* The CPU time the process used since the last sample (or the open), in
 * ns, >= 0. false, and p->ok false from then on, when it has exited, its
 * pid now names another process, or its file no longer parses. */
bool proc_cpu_sample(struct proc_cpu *p, int64_t *used_ns);
