/* The shim's half of shm_layout.h: libc only, runs once per process. */
#include "ipc/shm_layout.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HDR_SIZE       sizeof(struct baton_shm_header)
#define CONTROL_OFFSET HDR_SIZE
#define RING_OFFSET    (CONTROL_OFFSET + sizeof(struct baton_control))
#define RECORDS_OFFSET (RING_OFFSET + sizeof(struct baton_ring))

void ipc_shm_view(void *base, struct ipc_shm *out)
{
	char *p = base;
	*out = (struct ipc_shm){
	    .base = base,
	    .size = BATON_SHM_SIZE,
	    .header = (struct baton_shm_header *)p,
	    .control = (struct baton_control *)(p + CONTROL_OFFSET),
	    .ring = (struct baton_ring *)(p + RING_OFFSET),
	    .records = (struct baton_frame *)(p + RECORDS_OFFSET),
	    .capacity = BATON_RING_CAPACITY,
	    .quality = (struct baton_quality *)(p + BATON_SHM_QUALITY_OFFSET),
	};
}

void ipc_shm_unmap(struct ipc_shm *shm)
{
	if (shm->base)
		munmap(shm->base, shm->size);
	*shm = (struct ipc_shm){0};
}

int ipc_shm_create(uint32_t pid, struct ipc_shm *out)
{
	int fd = memfd_create("baton-tenant", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	int err;
	if (ftruncate(fd, (off_t)BATON_SHM_SIZE) < 0)
		goto fail;
	/* Seal before anyone else can see the fd: from here on neither the
	 * game nor a hostile peer can change the size under the daemon. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) <
	    0)
		goto fail;
	void *base = mmap(NULL, BATON_SHM_SIZE, PROT_READ | PROT_WRITE,
	                  MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		goto fail;
	ipc_shm_view(base, out);
	/* ftruncate zero-filled the rest: ring head 0, control seq 0 and not
	 * VALID, every reserved field 0. */
	*out->header = (struct baton_shm_header){
	    .magic = BATON_SHM_MAGIC,
	    .version = BATON_SHM_VERSION,
	    .header_size = HDR_SIZE,
	    .total_size = BATON_SHM_SIZE,
	    .control_offset = CONTROL_OFFSET,
	    .ring_offset = RING_OFFSET,
	    .records_offset = RECORDS_OFFSET,
	    .record_size = sizeof(struct baton_frame),
	    .capacity = BATON_RING_CAPACITY,
	    .pid = pid,
	    .quality_offset = BATON_SHM_QUALITY_OFFSET,
	    .quality_size = sizeof(struct baton_quality),
	};
	out->control->version = BATON_SHM_VERSION;
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}
