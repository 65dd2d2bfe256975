/* The daemon's half of shm_layout.h: every check a hostile tenant could
 * make necessary, before the daemon touches a byte it did not copy. */
#include "ipc/shm_layout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

static bool fail(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(char *err, size_t len, const char *fmt, ...)
{
	if (err && len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return false;
}

#define EXPECT(field, want)                                                    \
	do {                                                                   \
		if ((uint64_t)h.field != (uint64_t)(want))                     \
			return fail(err, errlen,                               \
			            "header " #field                           \
			            " is %llu, expected %llu",                 \
			            (unsigned long long)h.field,               \
			            (unsigned long long)(want));               \
	} while (0)

bool ipc_shm_check_header(const void *base, size_t size, char *err,
                          size_t errlen)
{
	if (size != BATON_SHM_SIZE && size != BATON_SHM_SIZE_V1)
		return fail(err, errlen, "region is %zu bytes, expected %zu",
		            size, (size_t)BATON_SHM_SIZE);
	/* One copy, so that a tenant rewriting the header concurrently
	 * cannot pass one check with one value and another with another. */
	struct baton_shm_header h;
	memcpy(&h, base, sizeof(h));
	if (h.magic != BATON_SHM_MAGIC)
		return fail(err, errlen, "bad magic 0x%016llx",
		            (unsigned long long)h.magic);
	bool v1 = h.version == BATON_SHM_VERSION_V1;
	if (h.version != BATON_SHM_VERSION && !v1)
		return fail(err, errlen,
		            "shm version %u, this daemon speaks %u and %u",
		            h.version, BATON_SHM_VERSION_V1, BATON_SHM_VERSION);
	size_t want = v1 ? BATON_SHM_SIZE_V1 : BATON_SHM_SIZE;
	if (size != want)
		return fail(err, errlen,
		            "region is %zu bytes, version %u needs %zu", size,
		            h.version, want);
	EXPECT(header_size, sizeof(struct baton_shm_header));
	EXPECT(total_size, want);
	EXPECT(control_offset, sizeof(struct baton_shm_header));
	EXPECT(ring_offset,
	       sizeof(struct baton_shm_header) + sizeof(struct baton_control));
	EXPECT(records_offset, sizeof(struct baton_shm_header) +
	                           sizeof(struct baton_control) +
	                           sizeof(struct baton_ring));
	EXPECT(record_size, sizeof(struct baton_frame));
	EXPECT(capacity, BATON_RING_CAPACITY);
	/* Version 1 wrote these as reserved zeros; ignored there. */
	if (!v1) {
		EXPECT(quality_offset, BATON_SHM_QUALITY_OFFSET);
		EXPECT(quality_size, sizeof(struct baton_quality));
	}
	return true;
}

bool ipc_shm_map(int fd, struct ipc_shm *out, char *err, size_t errlen)
{
	*out = (struct ipc_shm){0};
	/* F_GET_SEALS first: it succeeds only on a memfd (shmem or
	 * hugetlbfs) and touches nothing else, whereas even fstat on a
	 * peer's descriptor of another kind (a FUSE file) can block. */
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0)
		return fail(err, errlen, "not a sealable memfd: %s",
		            strerror(errno));
	const int need = F_SEAL_SHRINK | F_SEAL_GROW;
	if ((seals & need) != need)
		return fail(err, errlen,
		            "memfd not sealed against shrink and grow "
		            "(seals 0x%x)",
		            seals);
	/* The daemon writes the control block: a write seal would make the
	 * shared mapping fail (or be read-only) on some kernels. */
	if (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))
		return fail(err, errlen, "memfd is write-sealed (seals 0x%x)",
		            seals);
	struct stat st;
	if (fstat(fd, &st) < 0)
		return fail(err, errlen, "fstat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(err, errlen, "not a memfd (not a regular file)");
	/* Sealed, so this size is final. */
	if (st.st_size != (off_t)BATON_SHM_SIZE &&
	    st.st_size != (off_t)BATON_SHM_SIZE_V1)
		return fail(err, errlen, "memfd is %lld bytes, expected %zu",
		            (long long)st.st_size, (size_t)BATON_SHM_SIZE);
	size_t size = (size_t)st.st_size;
	void *base =
	    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return fail(err, errlen, "mmap: %s", strerror(errno));
	if (!ipc_shm_check_header(base, size, err, errlen)) {
		munmap(base, size);
		return false;
	}
	ipc_shm_view(base, out);
	if (size == BATON_SHM_SIZE_V1) { /* an older shim: no quality area */
		out->size = size;
		out->quality = NULL;
	}
	return true;
}
