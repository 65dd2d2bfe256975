/* The stub CUDA driver of stub_cuda.h: libcuda.so.1 for test_cuda_gate.c.
 * Every call succeeds when its arguments make sense; kernels run inside
 * the launch call. Thread-safe enough for the test: counters are atomic,
 * and handles are never shared between threads while being freed. */
#include "stub_cuda.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The exports are the driver's ABI, looked up by name: no header. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT    __attribute__((visibility("default")))
#define OK        0
#define EINVAL    1   /* CUDA_ERROR_INVALID_VALUE */
#define ENOTFOUND 500 /* CUDA_ERROR_NOT_FOUND */

struct stub_function {
	int probe; /* baton_probe, else sleep */
};
struct stub_module {
	int probe; /* the image held ".entry baton_probe" */
};
struct stub_event {
	int64_t t_ns;
};

static struct stub_function sleep_fn = {0}, probe_fn = {1};
static struct stub_module sleep_mod = {0}, probe_mod = {1};
static atomic_long launches[4], probes, probe_modules, queries;
static _Atomic(CUstream) last_record_stream;
static atomic_int capturing;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static CUresult run(int kind, CUfunction f, void **params)
{
	if (!f)
		return EINVAL;
	if (f->probe) {
		atomic_fetch_add(&probes, 1);
		return OK;
	}
	if (!params || !params[0])
		return EINVAL;
	int64_t us = *(const int64_t *)params[0];
	struct timespec ts = {(time_t)(us / 1000000),
	                      (long)(us % 1000000) * 1000};
	while (us > 0 && nanosleep(&ts, &ts) != 0)
		;
	atomic_fetch_add(&launches[kind], 1);
	return OK;
}

EXPORT CUresult cuInit(unsigned flags)
{
	return flags == 0 ? OK : EINVAL;
}

EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                               unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shm, CUstream s,
                               void **params, void **extra)
{
	return run(0, f, params);
}

EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy,
                                    unsigned gz, unsigned bx, unsigned by,
                                    unsigned bz, unsigned shm, CUstream s,
                                    void **params, void **extra)
{
	return run(1, f, params);
}

EXPORT CUresult cuLaunchKernelEx(const stub_launch_config *c, CUfunction f,
                                 void **params, void **extra)
{
	return c ? run(2, f, params) : EINVAL;
}

EXPORT CUresult cuLaunchKernelEx_ptsz(const stub_launch_config *c, CUfunction f,
                                      void **params, void **extra)
{
	return c ? run(3, f, params) : EINVAL;
}

EXPORT CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	if (!m || !image)
		return EINVAL;
	if (strstr(image, ".entry baton_probe")) {
		atomic_fetch_add(&probe_modules, 1);
		*m = &probe_mod;
	} else {
		*m = &sleep_mod;
	}
	return OK;
}

EXPORT CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	if (!f || !m || !name)
		return EINVAL;
	if (m->probe ? strcmp(name, "baton_probe") : strcmp(name, "sleep"))
		return ENOTFOUND;
	*f = m->probe ? &probe_fn : &sleep_fn;
	return OK;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *ctx)
{
	if (!ctx)
		return EINVAL;
	*ctx = (CUcontext)&sleep_mod; /* any stable non-NULL handle */
	return OK;
}

EXPORT CUresult cuEventCreate(CUevent *e, unsigned flags)
{
	if (!e || flags > 0xf)
		return EINVAL;
	*e = calloc(1, sizeof(**e));
	return *e ? OK : 2; /* CUDA_ERROR_OUT_OF_MEMORY */
}

EXPORT CUresult cuEventRecord(CUevent e, CUstream s)
{
	if (!e)
		return EINVAL;
	e->t_ns = now_ns();
	atomic_store(&last_record_stream, s);
	return OK;
}

EXPORT CUresult cuEventSynchronize(CUevent e)
{
	return e ? OK : EINVAL;
}

/* Launches run to their end before they return here: an event is always
 * reached. */
EXPORT CUresult cuEventQuery(CUevent e)
{
	if (!e)
		return EINVAL;
	atomic_fetch_add(&queries, 1);
	return OK;
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
	if (!ms || !a || !b)
		return EINVAL;
	*ms = (float)((double)(b->t_ns - a->t_ns) / 1e6);
	return OK;
}

EXPORT CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	return cuEventElapsedTime_v2(ms, a, b);
}

EXPORT CUresult cuEventDestroy_v2(CUevent e)
{
	if (!e)
		return EINVAL;
	free(e);
	return OK;
}

EXPORT CUresult cuStreamSynchronize(CUstream s)
{
	return OK;
}

EXPORT CUresult cuStreamIsCapturing(CUstream s, int *status)
{
	if (!status)
		return EINVAL;
	*status = atomic_load(&capturing) ? 1 : 0; /* ACTIVE : NONE */
	return OK;
}

static void *find(const char *symbol, int version, uint64_t flags);

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                                    uint64_t flags, int *status)
{
	if (!symbol || !pfn)
		return EINVAL;
	*pfn = find(symbol, version, flags);
	if (status)
		*status = *pfn ? 0 : 1; /* SUCCESS : SYMBOL_NOT_FOUND */
	return OK;
}

EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version,
                                 uint64_t flags)
{
	return cuGetProcAddress_v2(symbol, pfn, version, flags, NULL);
}

/* The driver's rules (resolve.c): per-thread forms on request, the
 * cuGetProcAddress form by version. */
static void *find(const char *symbol, int version, uint64_t flags)
{
	int ptds = (flags & STUB_PER_THREAD_FLAG) != 0;
	if (!strcmp(symbol, "cuLaunchKernel"))
		return ptds ? (void *)cuLaunchKernel_ptsz
		            : (void *)cuLaunchKernel;
	if (!strcmp(symbol, "cuLaunchKernelEx"))
		return ptds ? (void *)cuLaunchKernelEx_ptsz
		            : (void *)cuLaunchKernelEx;
	if (!strcmp(symbol, "cuGetProcAddress"))
		return version >= 12000 ? (void *)cuGetProcAddress_v2
		                        : (void *)cuGetProcAddress;
	static const struct {
		const char *name;
		void *fn;
	} plain[] = {
	    {"cuInit", (void *)cuInit},
	    {"cuModuleLoadData", (void *)cuModuleLoadData},
	    {"cuModuleGetFunction", (void *)cuModuleGetFunction},
	    {"cuEventCreate", (void *)cuEventCreate},
	    {"cuEventRecord", (void *)cuEventRecord},
	    {"cuEventSynchronize", (void *)cuEventSynchronize},
	    {"cuEventQuery", (void *)cuEventQuery},
	    {"cuEventElapsedTime", (void *)cuEventElapsedTime_v2},
	    {"cuEventDestroy", (void *)cuEventDestroy_v2},
	    {"cuStreamSynchronize", (void *)cuStreamSynchronize},
	};
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!strcmp(symbol, plain[i].name))
			return plain[i].fn;
	return NULL;
}

EXPORT void stub_cuda_counts(struct stub_cuda_counts *out)
{
	for (int i = 0; i < 4; i++)
		out->launches[i] = atomic_load(&launches[i]);
	out->probes = atomic_load(&probes);
	out->probe_modules = atomic_load(&probe_modules);
	out->queries = atomic_load(&queries);
	out->last_record_stream = atomic_load(&last_record_stream);
}

EXPORT void stub_cuda_capturing(int on)
{
	atomic_store(&capturing, on);
}
