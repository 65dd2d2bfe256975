/* A fake /proc for the daemon's in-process tests: a temporary directory
 * holding PID/stat files whose CPU time a test sets, for the tenants'
 * CPU clocks (daemon/tick/proc_cpu.h, daemon.proc_root). */
#pragma once

#include <stdint.h>
#include <sys/types.h>

struct fake_proc {
	char root[64]; /* daemon.proc_root */
};

/* Creates the directory (asserts). */
void fake_proc_init(struct fake_proc *p);

/* Process pid has used cpu_ns of CPU time in all (in /proc's clock
 * ticks, rounded down, as the kernel shows it). */
void fake_proc_set(struct fake_proc *p, pid_t pid, int64_t cpu_ns);

/* Removes the directory and its files. */
void fake_proc_done(struct fake_proc *p);
