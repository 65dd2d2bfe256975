/* The shim's control block, mapped from its own memfd as batond maps it:
 * how a benchmark (shim_frame_cost.c) and a unit test (test_shim_gate.c)
 * in the shim's own process play batond writing a cap (and, own_shm, read
 * the frame records). One copy, included by both. NULL / false if the shim
 * has none. */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ipc/shm_layout.h"

static inline bool own_shm(struct ipc_shm *out)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return NULL;
	struct dirent *e;
	void *base = NULL;
	while (!base && (e = readdir(d))) {
		char path[300], target[128];
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strncmp(target, "/memfd:baton-tenant", 19) != 0)
			continue;
		base = mmap(NULL, BATON_SHM_SIZE, PROT_READ | PROT_WRITE,
		            MAP_SHARED, atoi(e->d_name), 0);
		if (base == MAP_FAILED)
			base = NULL;
	}
	closedir(d);
	if (!base)
		return false;
	ipc_shm_view(base, out);
	return true;
}

static inline struct baton_control *own_control(void)
{
	struct ipc_shm shm;
	return own_shm(&shm) ? shm.control : NULL;
}
