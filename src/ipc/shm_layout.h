/* Creating, checking and viewing the tenant memfd laid out as in shm.h.
 *
 * Creation and the view are libc only (the shim creates the memfd at its
 * first Present); the checks are the daemon's, which must treat the memory
 * as hostile: ipc_shm_map refuses anything that is not exactly the layout
 * this version writes, with a reason fit for a log line. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipc/shm.h"

/* Pointers into one mapped tenant region. */
struct ipc_shm {
	void *base;
	size_t size;
	struct baton_shm_header *header;
	struct baton_control *control;
	struct baton_ring *ring;
	struct baton_frame *records;
	uint32_t capacity;
	/* NULL for a version-1 region (an older shim): no quality API. */
	struct baton_quality *quality;
};

/* Shim side. Creates a sealed memfd of BATON_SHM_SIZE bytes (MFD_CLOEXEC,
 * sealed against shrinking, growing and further sealing), maps it shared and
 * writes the header and a zeroed control block and ring. Returns the fd and
 * fills *out, or returns -errno. */
int ipc_shm_create(uint32_t pid, struct ipc_shm *out);

/* Fills *out with the fixed-offset view of a BATON_SHM_SIZE (version 2)
 * region at base.
 * Call only on memory whose header passed ipc_shm_check_header or that
 * ipc_shm_create wrote. */
void ipc_shm_view(void *base, struct ipc_shm *out);

/* Unmaps the region (NULL base is fine) and clears *shm. */
void ipc_shm_unmap(struct ipc_shm *shm);

/* Daemon side. Checks a header image of `size` bytes: size, magic, version
 * and every offset exactly as version 2 lays them out, or exactly as
 * version 1 did (BATON_SHM_SIZE_V1 bytes, no quality area). false with the
 * reason in err otherwise. */
bool ipc_shm_check_header(const void *base, size_t size, char *err,
                          size_t errlen);

/* Daemon side. Checks that fd is a memfd of exactly BATON_SHM_SIZE (or
 * BATON_SHM_SIZE_V1) bytes
 * sealed against shrinking and growing (else the tenant could truncate it
 * and SIGBUS the daemon), maps it read-write and checks the header. Does
 * not take ownership of fd. */
bool ipc_shm_map(int fd, struct ipc_shm *out, char *err, size_t errlen);
