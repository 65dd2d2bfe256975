/* The CUDA best-effort job of bench/gpu/check: a kernel written for the
 * check (the PTX below, a chain of FMAs per thread, loaded with
 * cuModuleLoadData, so that no nvcc is needed where it runs), launched
 * through the driver API as the CUDA runtime reaches it: dlopen of
 * libcuda.so.1, cuGetProcAddress_v2, every entry point by name (the CUDA
 * gate interposes both lookups).
 *
 *   gpu_be naive SECONDS [LAUNCH_MS]  launches of about LAUNCH_MS
 *        (default 2) back to back, each waited for; under `baton run
 *        --be` every one goes through the launch gate
 *   gpu_be sdk SECONDS [NAME]  the same work through the BE SDK: one task
 *        of units, sub-launches sized to batond's window
 *   gpu_be latency N  N launches of an empty kernel (one block), each
 *        followed by cuStreamSynchronize; the median and p99 per launch
 *
 * naive and sdk print `gpu_be: progress T UNITS` (T CLOCK_MONOTONIC
 * seconds) four times a second and end with
 * `gpu_be: MODE UNITS units in S s: R units/s`; latency prints
 * `gpu_be: latency N launches, median X us, p99 Y us`.
 *
 * A unit is UNIT_ITERS FMAs by every thread of the grid (SMs x 8 blocks
 * of 256 threads, to fill the GPU). On the stub driver of the gate's test
 * (tests/unit/sdk/stub_cuda.c) the kernel is the stub's "sleep", whose
 * first parameter is its length in us (stub_cuda.h): there a unit is
 * STUB_UNIT_US of device time, so time stays linear in units on both. */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baton/be.h"

/* cuda.h's ABI for the calls used here (declared, not included: the
 * check builds where no CUDA toolkit is installed). */
typedef int CUresult;
typedef void *CUmodule, *CUfunction, *CUstream, *CUcontext;
typedef unsigned long long CUdeviceptr;
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16

#define UNIT_ITERS   256
#define STUB_UNIT_US 50
#define BLOCK        256

static const char kernel_ptx[] =
    ".version 7.0\n"
    ".target sm_52\n"
    ".address_size 64\n"
    ".visible .entry baton_check_fma(.param .u64 work, .param .u64 out)\n"
    "{\n"
    "  .reg .pred %p<3>;\n"
    "  .reg .f32 %f<2>;\n"
    "  .reg .b32 %r<4>;\n"
    "  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [work];\n"
    "  ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  cvt.rn.f32.u32 %f1, %r1;\n"
    "  mov.u64 %rd3, 0;\n"
    "  setp.eq.u64 %p1, %rd1, 0;\n"
    "  @%p1 bra DONE;\n"
    "LOOP:\n"
    "  fma.rn.f32 %f1, %f1, 0f3F7FF000, 0f3F800000;\n"
    "  add.u64 %rd3, %rd3, 1;\n"
    "  setp.lt.u64 %p2, %rd3, %rd1;\n"
    "  @%p2 bra LOOP;\n"
    "DONE:\n"
    /* the result is stored, so that the loop is not optimised away */
    "  setp.eq.u64 %p1, %rd2, 0;\n"
    "  @%p1 bra END;\n"
    "  mov.u32 %r2, %ctaid.x;\n"
    "  mov.u32 %r3, %ntid.x;\n"
    "  mad.lo.u32 %r2, %r2, %r3, %r1;\n"
    "  mul.wide.u32 %rd4, %r2, 4;\n"
    "  add.u64 %rd5, %rd2, %rd4;\n"
    "  st.global.f32 [%rd5], %f1;\n"
    "END:\n"
    "  ret;\n"
    "}\n";

typedef CUresult (*gpa2_fn)(const char *, void **, int, uint64_t, int *);

struct gpu {
	bool stub;
	unsigned blocks;
	CUdeviceptr out;
	CUfunction kernel;
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned,
	                   unsigned, unsigned, unsigned, CUstream, void **,
	                   void **);
	CUresult (*sync)(CUstream);
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *proc(gpa2_fn gpa2, const char *name, bool required)
{
	void *p = NULL;
	int st = -1;
	if (gpa2(name, &p, 12000, 0, &st) != 0 || st != 0 || !p) {
		if (required)
			fprintf(stderr, "gpu_be: the driver has no %s\n", name);
		return NULL;
	}
	return p;
}

static bool ok(CUresult r, const char *what)
{
	if (r != 0)
		fprintf(stderr, "gpu_be: %s failed (CUresult %d)\n", what, r);
	return r == 0;
}

/* A real driver: device 0's primary context made current, its SM count
 * and an output buffer for the kernel. The stub has one context, always
 * current, and none of these calls. */
static bool open_device(gpa2_fn gpa2, struct gpu *g)
{
	CUresult (*dev_get)(int *, int) = proc(gpa2, "cuDeviceGet", true);
	CUresult (*retain)(CUcontext *, int) =
	    proc(gpa2, "cuDevicePrimaryCtxRetain", true);
	CUresult (*set)(CUcontext) = proc(gpa2, "cuCtxSetCurrent", true);
	CUresult (*attr)(int *, int, int) =
	    proc(gpa2, "cuDeviceGetAttribute", true);
	CUresult (*alloc)(CUdeviceptr *, size_t) =
	    proc(gpa2, "cuMemAlloc", true);
	int dev, sms = 0;
	CUcontext ctx;
	if (!dev_get || !retain || !set || !attr || !alloc ||
	    !ok(dev_get(&dev, 0), "cuDeviceGet") ||
	    !ok(retain(&ctx, dev), "cuDevicePrimaryCtxRetain") ||
	    !ok(set(ctx), "cuCtxSetCurrent") ||
	    !ok(attr(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
	        "cuDeviceGetAttribute"))
		return false;
	g->blocks = (unsigned)(sms > 0 ? sms : 1) * 8;
	return ok(alloc(&g->out, (size_t)g->blocks * BLOCK * sizeof(float)),
	          "cuMemAlloc");
}

static bool open_gpu(struct gpu *g)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "gpu_be: %s\n", dlerror());
		return false;
	}
	g->stub = dlsym(h, "stub_cuda_counts") != NULL;
	gpa2_fn gpa2 = (gpa2_fn)dlsym(h, "cuGetProcAddress_v2");
	if (!gpa2) {
		fprintf(stderr, "gpu_be: libcuda.so.1 has no "
		                "cuGetProcAddress_v2 (a driver before 12.0)\n");
		return false;
	}
	CUresult (*init)(unsigned) = proc(gpa2, "cuInit", true);
	CUresult (*load)(CUmodule *, const void *) =
	    proc(gpa2, "cuModuleLoadData", true);
	CUresult (*get)(CUfunction *, CUmodule, const char *) =
	    proc(gpa2, "cuModuleGetFunction", true);
	g->launch = proc(gpa2, "cuLaunchKernel", true);
	g->sync = proc(gpa2, "cuStreamSynchronize", true);
	if (!init || !load || !get || !g->launch || !g->sync ||
	    !ok(init(0), "cuInit"))
		return false;
	g->blocks = 1;
	if (!g->stub && !open_device(gpa2, g))
		return false;
	CUmodule m;
	if (!ok(load(&m, kernel_ptx), "cuModuleLoadData") ||
	    !ok(get(&g->kernel, m, g->stub ? "sleep" : "baton_check_fma"),
	        "cuModuleGetFunction"))
		return false;
	printf("gpu_be: driver %s, grid %u x %d\n",
	       g->stub ? "stub (tests/unit/sdk)" : "real", g->blocks, BLOCK);
	return true;
}

/* Launches `units` units of work (0: an empty one-block kernel) and
 * waits for them; the wall time in seconds, or a negative value. */
static double run_units(const struct gpu *g, int64_t units)
{
	uint64_t work = (uint64_t)units * (g->stub ? STUB_UNIT_US : UNIT_ITERS);
	CUdeviceptr out = g->out;
	void *params[] = {&work, &out};
	double t0 = now_s();
	unsigned grid = units ? g->blocks : 1, block = units ? BLOCK : 32;
	if (!ok(g->launch(g->kernel, grid, 1, 1, block, 1, 1, 0, NULL, params,
	                  NULL),
	        "cuLaunchKernel") ||
	    !ok(g->sync(NULL), "cuStreamSynchronize"))
		return -1.0;
	return now_s() - t0;
}

struct progress {
	double start, next, units;
};

static void progress_add(struct progress *p, double units)
{
	p->units += units;
	double t = now_s();
	if (t >= p->next) {
		printf("gpu_be: progress %.6f %.0f\n", t, p->units);
		fflush(stdout);
		p->next = t + 0.25;
	}
}

static int summary(const char *mode, const struct progress *p)
{
	double s = now_s() - p->start;
	printf("gpu_be: %s %.0f units in %.2f s: %.1f units/s\n", mode,
	       p->units, s, p->units / s);
	return 0;
}

/* Units per launch for launch_ms: from one timed launch of 64 units
 * (after a warm-up one). */
static int64_t calibrate(const struct gpu *g, double launch_ms)
{
	if (run_units(g, 1) < 0)
		return -1;
	double t = run_units(g, 64);
	if (t < 0)
		return -1;
	int64_t n = (int64_t)(64 * launch_ms * 1e-3 / (t > 1e-6 ? t : 1e-6));
	return n < 1 ? 1 : n;
}

static int naive(const struct gpu *g, double seconds, double launch_ms)
{
	int64_t per = calibrate(g, launch_ms);
	if (per < 0)
		return 1;
	printf("gpu_be: %lld units a launch (about %.1f ms)\n", (long long)per,
	       launch_ms);
	struct progress p = {.start = now_s()};
	while (now_s() - p.start < seconds) {
		if (run_units(g, per) < 0)
			return 1;
		progress_add(&p, (double)per);
	}
	return summary("naive", &p);
}

static int probe(void *user)
{
	return run_units(user, 0) < 0 ? -1 : 0;
}

static int sdk(struct gpu *g, double seconds, const char *name)
{
	struct baton_be_options o;
	baton_be_options_init(&o);
	o.probe = probe;
	o.probe_user = g;
	o.max_wait_ms = 500; /* to see the end of the run while shut out */
	baton_be *be;
	int rc = baton_be_open(name, &o, &be);
	if (rc != BATON_OK) {
		fprintf(stderr, "gpu_be: baton_be_open: %s\n",
		        baton_strerror(rc));
		return 1;
	}
	struct progress p = {.start = now_s()};
	while (now_s() - p.start < seconds) {
		/* a task longer than any run: its end is the run's */
		baton_be_task_begin(be, 1, INT64_C(1) << 40);
		int64_t off, cnt;
		while (now_s() - p.start < seconds &&
		       (rc = baton_be_next(be, &off, &cnt)) != 0) {
			if (rc == BATON_ETIMEDOUT)
				continue;
			double t = rc > 0 ? run_units(g, cnt) : -1.0;
			if (t < 0) {
				baton_be_close(be);
				return 1;
			}
			baton_be_done(be, off, cnt, -1);
			progress_add(&p, (double)cnt);
		}
	}
	baton_be_close(be);
	return summary("sdk", &p);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int latency(const struct gpu *g, int n)
{
	double *t = malloc(sizeof(*t) * (size_t)n);
	if (!t)
		return 1;
	for (int i = 0; i < 10; i++) /* warm-up: first launches, the gate's
	                                registration */
		if (run_units(g, 0) < 0)
			return 1;
	for (int i = 0; i < n; i++)
		if ((t[i] = run_units(g, 0)) < 0)
			return 1;
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	printf("gpu_be: latency %d launches, median %.2f us, p99 %.2f us\n", n,
	       t[n / 2] * 1e6, t[(size_t)n * 99 / 100] * 1e6);
	free(t);
	return 0;
}

static bool number(const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "gpu_be: %s is not a number in [%g, %g]\n", s,
		        lo, hi);
		return false;
	}
	*out = v;
	return true;
}

static int usage(void)
{
	fprintf(stderr, "usage: gpu_be naive SECONDS [LAUNCH_MS] | sdk "
	                "SECONDS [NAME] | latency N\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4 || (!strcmp(argv[1], "latency") && argc != 3))
		return usage();
	const char *mode = argv[1];
	double a, b = 2.0;
	if (strcmp(mode, "naive") && strcmp(mode, "sdk") &&
	    strcmp(mode, "latency"))
		return usage();
	if (!number(argv[2], 1, 1e6, &a) ||
	    (argc == 4 && !strcmp(mode, "naive") &&
	     !number(argv[3], 0.05, 1000, &b)))
		return 2;
	struct gpu g = {0};
	if (!open_gpu(&g))
		return 1;
	if (!strcmp(mode, "latency"))
		return latency(&g, (int)a);
	if (!strcmp(mode, "naive"))
		return naive(&g, a, b);
	return sdk(&g, a, argc == 4 ? argv[3] : "gpu-be");
}
