/* The frame-time probes' output file (bench/swap_probe.c for GL,
 * tests/e2e/daemon/xcb_probe.c for Vulkan on lavapipe): the file named by
 * BATON_PROBE_OUT holds a uint64 count and then int64 CLOCK_MONOTONIC times
 * in ns, in a shared mapping that survives the process being killed, so the
 * tests and benchmarks read both probes alike. Each probe library gets its
 * own copy of these statics. */
#pragma once

#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAMES (1u << 20)

struct probe_file {
	_Atomic uint64_t count;
	int64_t t[MAX_FRAMES];
};

/* Maps the file named by the environment variable env, or NULL. */
static struct probe_file *probe_map(const char *env)
{
	const char *path = getenv(env);
	if (!path)
		return NULL;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return NULL;
	struct probe_file *f = NULL;
	if (ftruncate(fd, sizeof(*f)) == 0) {
		void *p = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE,
		               MAP_SHARED, fd, 0);
		if (p != MAP_FAILED)
			f = p;
	}
	close(fd);
	return f;
}

/* BATON_PROBE_OUT: the probe's frame times. */
static struct probe_file *out;

__attribute__((constructor)) static void probe_open(void)
{
	out = probe_map("BATON_PROBE_OUT");
}

static void stamp_to(struct probe_file *f)
{
	if (!f)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t i = atomic_load_explicit(&f->count, memory_order_relaxed);
	if (i < MAX_FRAMES) {
		f->t[i] = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		atomic_store_explicit(&f->count, i + 1, memory_order_release);
	}
}

static void stamp(void)
{
	stamp_to(out);
}
