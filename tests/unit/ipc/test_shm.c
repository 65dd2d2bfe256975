/* The tenant memfd: what the shim creates passes; what a hostile or buggy
 * tenant could hand over does not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ipc/shm_layout.h"

static char err[256];

static void test_create_then_map(void **state)
{
	(void)state;
	struct ipc_shm shim;
	int fd = ipc_shm_create(4242, &shim);
	assert_true(fd >= 0);
	assert_int_equal(shim.header->magic, BATON_SHM_MAGIC);
	assert_int_equal(shim.header->pid, 4242);
	/* The shim cannot undo its seals. */
	int seals = fcntl(fd, F_GET_SEALS);
	assert_true(seals & F_SEAL_SHRINK);
	assert_true(seals & F_SEAL_GROW);
	assert_true(seals & F_SEAL_SEAL);
	assert_true(ftruncate(fd, 4096) < 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);

	struct ipc_shm d;
	assert_true(ipc_shm_map(fd, &d, err, sizeof(err)));
	assert_int_equal(d.capacity, BATON_RING_CAPACITY);
	/* Two mappings of one memory: a ring push shows on the other side. */
	atomic_store(&shim.ring->head, 3);
	assert_int_equal(atomic_load(&d.ring->head), 3);
	shim.control->policy_epoch = 9;
	assert_int_equal(d.control->policy_epoch, 9);
	assert_ptr_equal((char *)d.records - (char *)d.base,
	                 d.header->records_offset);
	ipc_shm_unmap(&d);
	assert_null(d.base);
	ipc_shm_unmap(&shim);
	close(fd);
}

/* A memfd with the header the shim writes, sealed as asked. */
static int make_memfd(size_t size, int seals)
{
	int fd = memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	struct ipc_shm good;
	int src = ipc_shm_create(1, &good);
	assert_true(src >= 0);
	size_t n = size < BATON_SHM_SIZE ? size : BATON_SHM_SIZE;
	assert_int_equal(pwrite(fd, good.base, n, 0), (ssize_t)n);
	ipc_shm_unmap(&good);
	close(src);
	if (seals)
		assert_int_equal(fcntl(fd, F_ADD_SEALS, seals), 0);
	return fd;
}

static void expect_rejected(int fd, const char *why)
{
	struct ipc_shm d;
	err[0] = '\0';
	assert_false(ipc_shm_map(fd, &d, err, sizeof(err)));
	assert_null(d.base);
	if (!strstr(err, why))
		fail_msg("expected \"%s\" in \"%s\"", why, err);
	close(fd);
}

static void test_unsealed_rejected(void **state)
{
	(void)state;
	expect_rejected(make_memfd(BATON_SHM_SIZE, 0), "not sealed");
	/* Half the seals is no better: it could still shrink. */
	expect_rejected(make_memfd(BATON_SHM_SIZE, F_SEAL_GROW), "not sealed");
}

static void test_write_sealed_rejected(void **state)
{
	(void)state;
	expect_rejected(make_memfd(BATON_SHM_SIZE,
	                           F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE),
	                "write-sealed");
}

static void test_wrong_size_rejected(void **state)
{
	(void)state;
	expect_rejected(
	    make_memfd(BATON_SHM_SIZE - 64, F_SEAL_SHRINK | F_SEAL_GROW),
	    "bytes");
	expect_rejected(
	    make_memfd(BATON_SHM_SIZE * 2, F_SEAL_SHRINK | F_SEAL_GROW),
	    "bytes");
}

static void test_not_a_memfd_rejected(void **state)
{
	(void)state;
	char path[] = "/tmp/baton-shm-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(ftruncate(fd, BATON_SHM_SIZE), 0);
	expect_rejected(fd, "memfd");
	int p[2];
	assert_int_equal(pipe(p), 0);
	close(p[1]);
	expect_rejected(p[0], "memfd");
}

/* Header fields, each wrong in turn, in a correctly sized and sealed fd. */
static void test_bad_header_rejected(void **state)
{
	(void)state;
	struct {
		size_t offset;
		uint64_t value;
		size_t width;
		const char *why;
	} cases[] = {
	    {offsetof(struct baton_shm_header, magic), 0x1234, 8, "magic"},
	    {offsetof(struct baton_shm_header, version), 3, 4, "version"},
	    /* A version-1 header in a version-2 region. */
	    {offsetof(struct baton_shm_header, version), 1, 4, "version 1"},
	    {offsetof(struct baton_shm_header, header_size), 32, 4,
	     "header_size"},
	    {offsetof(struct baton_shm_header, total_size), 1 << 20, 8,
	     "total_size"},
	    {offsetof(struct baton_shm_header, control_offset), 0, 4,
	     "control_offset"},
	    {offsetof(struct baton_shm_header, ring_offset), 64, 4,
	     "ring_offset"},
	    {offsetof(struct baton_shm_header, records_offset), 128, 4,
	     "records_offset"},
	    {offsetof(struct baton_shm_header, record_size), 32, 4,
	     "record_size"},
	    {offsetof(struct baton_shm_header, capacity), 512, 4, "capacity"},
	    {offsetof(struct baton_shm_header, quality_offset), 64, 4,
	     "quality_offset"},
	    {offsetof(struct baton_shm_header, quality_size), 8, 4,
	     "quality_size"},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int fd = make_memfd(BATON_SHM_SIZE, 0);
		assert_int_equal(pwrite(fd, &cases[k].value, cases[k].width,
		                        (off_t)cases[k].offset),
		                 (ssize_t)cases[k].width);
		assert_int_equal(
		    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
		expect_rejected(fd, cases[k].why);
	}
	/* pid and the reserved fields are informative: anything goes. */
	int fd = make_memfd(BATON_SHM_SIZE, 0);
	uint64_t junk[3] = {~0ULL, ~0ULL, ~0ULL};
	assert_int_equal(
	    pwrite(fd, junk, 4, offsetof(struct baton_shm_header, pid)), 4);
	assert_int_equal(
	    pwrite(fd, junk, 8, offsetof(struct baton_shm_header, reserved)),
	    8);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW),
	                 0);
	struct ipc_shm d;
	assert_true(ipc_shm_map(fd, &d, err, sizeof(err)));
	ipc_shm_unmap(&d);
	close(fd);
}

/* What a version-1 shim hands over: the region without the quality area,
 * version 1, the quality fields reserved (ignored). Mapped, no quality. */
static int make_v1_memfd(uint32_t version, uint64_t total)
{
	int fd = make_memfd(BATON_SHM_SIZE_V1, 0);
	uint32_t junk[2] = {~0u, ~0u};
	assert_int_equal(
	    pwrite(fd, &version, 4, offsetof(struct baton_shm_header, version)),
	    4);
	assert_int_equal(pwrite(fd, &total, 8,
	                        offsetof(struct baton_shm_header, total_size)),
	                 8);
	assert_int_equal(
	    pwrite(fd, junk, 8,
	           offsetof(struct baton_shm_header, quality_offset)),
	    8);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW),
	                 0);
	return fd;
}

static void test_version_1_accepted(void **state)
{
	(void)state;
	int fd = make_v1_memfd(1, BATON_SHM_SIZE_V1);
	struct ipc_shm d;
	assert_true(ipc_shm_map(fd, &d, err, sizeof(err)));
	assert_null(d.quality);
	assert_int_equal(d.size, BATON_SHM_SIZE_V1);
	assert_int_equal(d.capacity, BATON_RING_CAPACITY);
	ipc_shm_unmap(&d);
	close(fd);
	/* A version-2 header without the room for its quality area. */
	expect_rejected(make_v1_memfd(2, BATON_SHM_SIZE_V1), "version 2");
	/* Version 1 claiming the version-2 size. */
	expect_rejected(make_v1_memfd(1, BATON_SHM_SIZE), "total_size");

	/* A version-2 region has its quality area at the end. */
	struct ipc_shm s;
	fd = ipc_shm_create(1, &s);
	assert_true(fd >= 0);
	assert_true(ipc_shm_map(fd, &d, err, sizeof(err)));
	assert_non_null(d.quality);
	assert_int_equal((char *)d.quality - (char *)d.base,
	                 BATON_SHM_QUALITY_OFFSET);
	s.quality->n_levels = 3;
	assert_int_equal(d.quality->n_levels, 3);
	ipc_shm_unmap(&d);
	ipc_shm_unmap(&s);
	close(fd);
}

static void test_check_header_image(void **state)
{
	(void)state;
	struct ipc_shm s;
	int fd = ipc_shm_create(1, &s);
	assert_true(
	    ipc_shm_check_header(s.base, BATON_SHM_SIZE, err, sizeof(err)));
	assert_false(
	    ipc_shm_check_header(s.base, BATON_SHM_SIZE - 1, err, sizeof(err)));
	ipc_shm_unmap(&s);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_then_map),
	    cmocka_unit_test(test_unsealed_rejected),
	    cmocka_unit_test(test_write_sealed_rejected),
	    cmocka_unit_test(test_wrong_size_rejected),
	    cmocka_unit_test(test_not_a_memfd_rejected),
	    cmocka_unit_test(test_bad_header_rejected),
	    cmocka_unit_test(test_check_header_image),
	    cmocka_unit_test(test_version_1_accepted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
