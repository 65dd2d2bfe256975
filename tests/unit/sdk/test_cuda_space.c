/* Space harvesting through the CUDA gate (src/sdk/cuda/space.c), on the
 * stub driver as an MPS client (stub_cuda.h): a process whose context is
 * limited to 25 % of the device's 132 SMs (33, from
 * CUDA_MPS_ACTIVE_THREAD_PERCENTAGE) says "partition" in its hello and,
 * with batond's time window shut, launches on a partition of 33 SMs or
 * more at once, asynchronously and reported, but not on one of 22 (the
 * games grew: its work waits for the time windows, here past the bound)
 * nor with none. The same program with every SM (no MPS limit, run again
 * by exec) never says "partition" and never runs on one. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_batond.h"
#include "stub_cuda.h"

#define MS      1000000LL
#define WAIT_MS 300 /* BATON_CUDA_MAX_WAIT_MS */

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__,       \
			        __LINE__, #c);                                 \
			exit(1);                                               \
		}                                                              \
	} while (0)

typedef CUresult (*gpa2_fn)(const char *, void **, int, uint64_t, int *);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned,
                              unsigned, unsigned, unsigned, unsigned, CUstream,
                              void **, void **);
typedef CUresult (*load_fn)(CUmodule *, const void *);
typedef CUresult (*get_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*sync_fn)(CUstream);

static gpa2_fn gpa2;
static launch_fn launch;
static sync_fn stream_sync;
static CUfunction kernel;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static void *proc(const char *name)
{
	void *p = NULL;
	int st = -1;
	CHECK(gpa2(name, &p, 13000, 0, &st) == 0 && st == 0);
	return p;
}

static void open_driver(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	CHECK(h);
	gpa2 = (gpa2_fn)dlsym(h, "cuGetProcAddress_v2");
	CHECK(gpa2);
	load_fn load = (load_fn)proc("cuModuleLoadData");
	get_fn get = (get_fn)proc("cuModuleGetFunction");
	launch = (launch_fn)proc("cuLaunchKernel");
	stream_sync = (sync_fn)proc("cuStreamSynchronize");
	CUmodule m;
	CHECK(load(&m, "stub: the sleep kernel") == 0);
	CHECK(get(&kernel, m, "sleep") == 0);
}

/* One 1-ms launch; its call's wall time. */
static int64_t launch_1ms(void)
{
	int64_t us = 1000;
	void *params[] = {&us};
	int64_t t0 = now_ns();
	CHECK(launch(kernel, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL) == 0);
	return now_ns() - t0;
}

static uint64_t reported(struct fake_batond *b)
{
	return atomic_load(&b->shm.ring->be_blocks_total);
}

/* Time shut (window 0, budget 0) and partition p: n launches, the
 * longest call's wall time. */
static int64_t launches_on(struct fake_batond *b, uint32_t p, int n)
{
	fake_batond_control_space(b, 0, 0, 0, 0, 0, p);
	sleep_ms(20);
	int64_t longest = 0;
	for (int i = 0; i < n; i++) {
		int64_t w = launch_1ms();
		longest = w > longest ? w : longest;
	}
	CHECK(stream_sync(NULL) == 0);
	return longest;
}

/* Registers (the first launch waits out the bound: no window yet). */
static void start(struct fake_batond *b)
{
	CHECK(fake_batond_start(b, FAKE_WELCOME));
	setenv("BATON_SOCKET", b->sock, 1);
	setenv("BATON_NAME", "cudaspace", 1);
	char wait[16];
	snprintf(wait, sizeof(wait), "%d", WAIT_MS);
	setenv("BATON_CUDA_MAX_WAIT_MS", wait, 1);
	open_driver();
	launch_1ms();
	CHECK(fake_batond_wait(b, 1));
}

/* No MPS limit: no "partition", and a partition is never run on. */
static int full_device(void)
{
	struct fake_batond b;
	start(&b);
	CHECK(!strstr(b.hello, "\"partition\":true"));
	int64_t w = launches_on(&b, BATON_PARTITION(33, 99), 1);
	CHECK(w >= WAIT_MS * MS);
	fake_batond_stop(&b);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "full"))
		return full_device();
	setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "25", 1);
	struct fake_batond b;
	start(&b);
	CHECK(strstr(b.hello, "\"partition\":true"));

	/* 33 SMs given, 33 held to: at once, asynchronously, reported. */
	uint64_t r0 = reported(&b);
	int64_t w = launches_on(&b, BATON_PARTITION(99, 33), 5);
	fprintf(stderr, "on 33 SMs of 132: the longest call %lld us\n",
	        (long long)(w / 1000));
	CHECK(w < WAIT_MS * MS / 2);
	for (int i = 0; i < 2000 && reported(&b) < r0 + 5; i++)
		sleep_ms(1);
	CHECK(reported(&b) == r0 + 5);
	/* 22 given: smaller than what the process may use: held. */
	sleep_ms(50);
	w = launches_on(&b, BATON_PARTITION(110, 22), 1);
	CHECK(w >= WAIT_MS * MS);
	/* none: held */
	w = launches_on(&b, 0, 1);
	CHECK(w >= WAIT_MS * MS);
	fake_batond_stop(&b);

	/* The same program with every SM: exec'd without the limit. */
	unsetenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
	char *args[] = {argv[0], "full", NULL};
	execv("/proc/self/exe", args);
	perror("execv");
	return 1;
}
