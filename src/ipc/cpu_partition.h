/* The mechanism of space harvesting on a software rasterizer (llvmpipe,
 * lavapipe, PoCL): the compute units batond's control block assigns
 * (shm.h, BATON_PARTITION) are the CPUs this process could run on when it
 * started, in order, and a partition confines every thread of the process
 * to its units by CPU affinity. The policy is in core/harvest_space.h;
 * this only carries it out, for the game's shim and the BE SDK alike.
 *
 * libc only and no allocation (the shim links it into games): the threads
 * are listed with getdents64 on /proc/self/task into a stack buffer. A
 * thread created while the list is read keeps its creator's affinity;
 * cpu_partition_apply is called again now and then to catch it. Fails
 * open: a partition that cannot be applied leaves the process as it was. */
#pragma once

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t, sched_setaffinity */
#endif
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

struct cpu_partition {
	cpu_set_t base;   /* the CPUs at cpu_partition_init */
	int n_base;       /* how many; 0: unknown (nothing is applied) */
	uint32_t applied; /* the partition in force (0: the whole base) */
};

/* Takes the process's current CPU set as the units to divide. */
void cpu_partition_init(struct cpu_partition *cp);

/* The CPU set of partition p (BATON_PARTITION(first, count); 0 or a count
 * of 0: the whole base): the base's CPUs of index first to first + count -
 * 1, clamped to the base. false when nothing of the base is left. */
bool cpu_partition_set(const struct cpu_partition *cp, uint32_t p,
                       cpu_set_t *out);

/* Confines every thread of the process to partition p. Returns how many
 * threads took it, -1 when p names no CPU of the base or /proc cannot be
 * read (cp->applied unchanged then). */
int cpu_partition_apply(struct cpu_partition *cp, uint32_t p);
