/* A CUDA best-effort job for the end-to-end tests (tests/e2e/sdk/
 * cuda_e2e.py), on the stub driver (stub_cuda.c as libcuda.so.1): it
 * knows nothing of Baton and reaches the driver as the CUDA runtime does
 * (dlopen, cuGetProcAddress_v2), makes two streams and launches kernels
 * of US microseconds into them, alternately, as fast as it may, without
 * waiting for them (the gate under `baton run --be` keeps its windows),
 * for SECONDS (0: until killed). Prints "launched N" once a second.
 *
 *   cuda_be_job US SECONDS */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stub_cuda.h"

typedef CUresult (*gpa2_fn)(const char *, void **, int, uint64_t, int *);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned,
                              unsigned, unsigned, unsigned, unsigned, CUstream,
                              void **, void **);
typedef CUresult (*load_fn)(CUmodule *, const void *);
typedef CUresult (*get_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*stream_fn)(CUstream *, unsigned);

static gpa2_fn gpa2;

static void *proc(const char *name)
{
	void *p = NULL;
	int st = -1;
	if (gpa2(name, &p, 13000, 0, &st) != 0 || st != 0 || !p) {
		fprintf(stderr, "cuda_be_job: the driver has no %s\n", name);
		exit(1);
	}
	return p;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: cuda_be_job US SECONDS\n");
		return 2;
	}
	int64_t us = atoll(argv[1]);
	double seconds = atof(argv[2]);
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h || !(gpa2 = (gpa2_fn)dlsym(h, "cuGetProcAddress_v2"))) {
		fprintf(stderr, "cuda_be_job: no driver: %s\n", dlerror());
		return 1;
	}
	load_fn load = (load_fn)proc("cuModuleLoadData");
	get_fn get = (get_fn)proc("cuModuleGetFunction");
	launch_fn launch = (launch_fn)proc("cuLaunchKernel");
	stream_fn create = (stream_fn)proc("cuStreamCreate");
	CUmodule m;
	CUfunction k;
	CUstream s[2];
	if (load(&m, "stub: the sleep kernel") != 0 ||
	    get(&k, m, "sleep") != 0 || create(&s[0], 0) != 0 ||
	    create(&s[1], 0) != 0) {
		fprintf(stderr, "cuda_be_job: setup failed\n");
		return 1;
	}
	void *params[] = {&us};
	long n = 0;
	double t0 = now_s(), said = t0;
	while (seconds <= 0 || now_s() - t0 < seconds) {
		if (launch(k, 1, 1, 1, 32, 1, 1, 0, s[n % 2], params, NULL) !=
		    0) {
			fprintf(stderr, "cuda_be_job: a launch failed\n");
			return 1;
		}
		n++;
		if (now_s() - said >= 1.0) {
			printf("launched %ld\n", n);
			fflush(stdout);
			said = now_s();
		}
	}
	printf("launched %ld\n", n);
	return 0;
}
