/* be_overhead's CUDA modes: the CUDA gate's own CPU cost per launch, on
 * the stub driver of the gate's test (tests/unit/sdk/stub_cuda.c, built
 * as libcuda.so.1 in build/tests/unit/sdk, which must come first on
 * LD_LIBRARY_PATH). The stub's kernels take the time their first
 * parameter asks (here none) and its calls do no device work, so gated
 * minus plain is the gate's work: the SDK's next + done, the context id,
 * the kept event pair, two records, the end poll, the elapsed time, the
 * kernel's hash and its past. What a driver charges for those calls on a
 * GPU is bench/cuda_gate_check.sh's to measure. The async modes time the
 * launch call alone (the gate's launches are asynchronous: a program
 * that queues kernels pays this), and synchronise once at the end.
 *
 * The program reaches the driver as the CUDA runtime does:
 * dlopen("libcuda.so.1"), cuGetProcAddress_v2, every entry point by name
 * (the gate interposes both lookups). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "be_overhead.h"
#include "stub_cuda.h"

typedef CUresult (*gpa2_fn)(const char *, void **, int, uint64_t, int *);
typedef CUresult (*init_fn)(unsigned);
typedef CUresult (*load_fn)(CUmodule *, const void *);
typedef CUresult (*get_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned,
                              unsigned, unsigned, unsigned, unsigned, CUstream,
                              void **, void **);
typedef CUresult (*sync_fn)(CUstream);

struct driver {
	stub_cuda_counts_fn counts;
	launch_fn launch;
	sync_fn sync;
	CUfunction kernel;
};

static void *proc(gpa2_fn gpa2, const char *name)
{
	void *p = NULL;
	int st = -1;
	if (gpa2(name, &p, 13000, 0, &st) != 0 || st != 0 || !p) {
		fprintf(stderr, "be_overhead: the driver has no %s\n", name);
		return NULL;
	}
	return p;
}

static bool open_driver(void *arg)
{
	struct driver *d = arg;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr,
		        "be_overhead: %s: put the stub driver's folder "
		        "(build/tests/unit/sdk) first on LD_LIBRARY_PATH\n",
		        dlerror());
		return false;
	}
	d->counts = (stub_cuda_counts_fn)dlsym(h, "stub_cuda_counts");
	gpa2_fn gpa2 = (gpa2_fn)dlsym(h, "cuGetProcAddress_v2");
	if (!d->counts || !gpa2) {
		fprintf(stderr,
		        "be_overhead: the libcuda.so.1 found is not the "
		        "stub driver; on a GPU, bench/cuda_gate_check.sh "
		        "measures the gate\n");
		return false;
	}
	init_fn init = (init_fn)proc(gpa2, "cuInit");
	load_fn load = (load_fn)proc(gpa2, "cuModuleLoadData");
	get_fn get = (get_fn)proc(gpa2, "cuModuleGetFunction");
	d->launch = (launch_fn)proc(gpa2, "cuLaunchKernel");
	d->sync = (sync_fn)proc(gpa2, "cuStreamSynchronize");
	CUmodule m;
	return init && load && get && d->launch && d->sync && init(0) == 0 &&
	       load(&m, "stub: the sleep kernel") == 0 &&
	       get(&d->kernel, m, "sleep") == 0;
}

/* The stub's kernel for 0 us, then the stream's end. */
static bool launch_and_sync(void *arg)
{
	struct driver *d = arg;
	int64_t no_time = 0;
	void *params[] = {&no_time};
	CUresult r =
	    d->launch(d->kernel, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL);
	return r == 0 && d->sync(NULL) == 0;
}

/* The stub's kernel for 0 us, not waited for. */
static bool launch_only(void *arg)
{
	struct driver *d = arg;
	int64_t no_time = 0;
	void *params[] = {&no_time};
	return d->launch(d->kernel, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL) ==
	       0;
}

static bool sync_all(void *arg)
{
	struct driver *d = arg;
	return d->sync(NULL) == 0;
}

static long stub_launches(void *arg)
{
	struct driver *d = arg;
	if (!d->counts)
		return -1;
	struct stub_cuda_counts c;
	d->counts(&c);
	return c.launches[0] + c.launches[1] + c.launches[2] + c.launches[3];
}

int bench_cuda(int n, int64_t *t, bool fake, bool async)
{
	struct driver d = {0};
	const struct bo_launcher l = {
	    .what =
	        async ? "cuda launch, async (stub)" : "cuda launch+sync (stub)",
	    .env = "BATON_CUDA_MAX_WAIT_MS",
	    .open = open_driver,
	    .launch_and_wait = async ? launch_only : launch_and_sync,
	    .stub_launches = stub_launches,
	    .arg = &d,
	    .batched = true,
	    .finish = sync_all};
	return bo_time_launches(&l, n, t, fake);
}
