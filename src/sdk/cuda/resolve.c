/* How the CUDA gate finds the real driver and how programs find the gate.
 *
 * A program reaches cuLaunchKernel in one of three ways, and each must
 * land in the gate:
 * - linked against libcuda: the preload's definition comes first;
 * - through cuGetProcAddress("cuLaunchKernel", ...), as the CUDA runtime
 *   does for every driver call since 11.3: the gate's cuGetProcAddress
 *   and cuGetProcAddress_v2 ask the real one, remember its answer and
 *   return the gate's function instead;
 * - through dlsym on its own handle of libcuda.so.1: the runtime does
 *   exactly this (dlopen("libcuda.so.1"), then dlsym(handle,
 *   "cuGetProcAddress_v2")), and a lookup in a handle never sees a
 *   preload. So the gate exports dlsym too (see the end of this file).
 *
 * CUDA 13's cuda.h #defines cuGetProcAddress to cuGetProcAddress_v2 (five
 * arguments, the last a CUdriverProcAddressQueryResult *); libcuda.so
 * exports both cuGetProcAddress (11.3's four-argument form) and
 * cuGetProcAddress_v2. Asked for "cuGetProcAddress" itself, the driver
 * returns the first for versions below 12000 and the second from 12000.
 * Asked for "cuLaunchKernel" with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
 * it returns cuLaunchKernel_ptsz (cuda.h's inline cuGetProcAddress_v2_ptsz
 * adds that flag when a program is built for per-thread streams); the
 * same for cuLaunchKernelEx, cuLaunchCooperativeKernel and cuGraphLaunch.
 * The gate answers for every name before CU_INTERPOSED (gate.h). */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sdk/cuda/gate.h"

#define HIDDEN __attribute__((visibility("hidden")))

static const char *const fn_names[CU_FN_COUNT] = {
    [CU_LAUNCH] = "cuLaunchKernel",
    [CU_LAUNCH_PTSZ] = "cuLaunchKernel_ptsz",
    [CU_LAUNCH_EX] = "cuLaunchKernelEx",
    [CU_LAUNCH_EX_PTSZ] = "cuLaunchKernelEx_ptsz",
    [CU_COOP] = "cuLaunchCooperativeKernel",
    [CU_COOP_PTSZ] = "cuLaunchCooperativeKernel_ptsz",
    [CU_GRAPH] = "cuGraphLaunch",
    [CU_GRAPH_PTSZ] = "cuGraphLaunch_ptsz",
    [CU_STREAM_CREATE] = "cuStreamCreate",
    [CU_STREAM_CREATE_PRIO] = "cuStreamCreateWithPriority",
    [CU_GPA] = "cuGetProcAddress",
    [CU_GPA_V2] = "cuGetProcAddress_v2",
    [CU_EVENT_CREATE] = "cuEventCreate",
    [CU_EVENT_RECORD] = "cuEventRecord",
    [CU_EVENT_SYNC] = "cuEventSynchronize",
    /* 12.8 made the unversioned one a deprecated alias */
    [CU_EVENT_ELAPSED] = "cuEventElapsedTime_v2",
    [CU_EVENT_DESTROY] = "cuEventDestroy_v2",
    [CU_EVENT_QUERY] = "cuEventQuery",
    [CU_STREAM_SYNC] = "cuStreamSynchronize",
    [CU_STREAM_CAPTURING] = "cuStreamIsCapturing",
    [CU_MODULE_LOAD] = "cuModuleLoadData",
    [CU_MODULE_FUNCTION] = "cuModuleGetFunction",
    [CU_CTX_CURRENT] = "cuCtxGetCurrent",
    [CU_CTX_ID] = "cuCtxGetId", /* 12.0 */
    [CU_PRIO_RANGE] = "cuCtxGetStreamPriorityRange",
    [CU_CTX_EXEC_AFFINITY] = "cuCtxGetExecAffinity",
    [CU_CTX_DEVICE] = "cuCtxGetDevice",
    [CU_DEVICE_ATTRIBUTE] = "cuDeviceGetAttribute",
};

static _Atomic(void *) slots[CU_FN_COUNT];

typedef void *(*dlsym_fn)(void *, const char *);
/* glibc's dlsym. Read by the trampoline below, hence not static. */
HIDDEN _Atomic(dlsym_fn) baton_cuda_real_dlsym;

/* No sanitizer here: ASan's runtime looks its interceptors up with
 * dlsym(RTLD_NEXT, ...) before its shadow memory exists, and with the
 * gate preloaded that dlsym is ours. */
__attribute__((no_sanitize("address", "undefined"))) static dlsym_fn
real_dlsym(void)
{
	dlsym_fn fn =
	    atomic_load_explicit(&baton_cuda_real_dlsym, memory_order_acquire);
	if (fn)
		return fn;
	/* glibc 2.34 moved dlsym into libc under a new version; the old
	 * one (libdl's, or libc's compat symbol) answers the same. */
	fn = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!fn)
		fn = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	if (!fn)
		fn = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.17");
	atomic_store_explicit(&baton_cuda_real_dlsym, fn, memory_order_release);
	return fn;
}

void *cu_gate_fn(enum cu_fn f)
{
	switch (f) {
	case CU_LAUNCH:
		return (void *)cuLaunchKernel;
	case CU_LAUNCH_PTSZ:
		return (void *)cuLaunchKernel_ptsz;
	case CU_LAUNCH_EX:
		return (void *)cuLaunchKernelEx;
	case CU_LAUNCH_EX_PTSZ:
		return (void *)cuLaunchKernelEx_ptsz;
	case CU_COOP:
		return (void *)cuLaunchCooperativeKernel;
	case CU_COOP_PTSZ:
		return (void *)cuLaunchCooperativeKernel_ptsz;
	case CU_GRAPH:
		return (void *)cuGraphLaunch;
	case CU_GRAPH_PTSZ:
		return (void *)cuGraphLaunch_ptsz;
	case CU_STREAM_CREATE:
		return (void *)cuStreamCreate;
	case CU_STREAM_CREATE_PRIO:
		return (void *)cuStreamCreateWithPriority;
	case CU_GPA:
		return (void *)cuGetProcAddress;
	case CU_GPA_V2:
		return (void *)cuGetProcAddress_v2;
	default:
		return NULL;
	}
}

static bool is_gate_fn(const void *p)
{
	for (int f = 0; f < CU_INTERPOSED; f++)
		if (p == cu_gate_fn((enum cu_fn)f))
			return true;
	return false;
}

/* A real function found by a lookup through the gate; the wrapper calls
 * the latest (all are the driver's, for the same API). */
static void offer(enum cu_fn f, void *real)
{
	if (real && !is_gate_fn(real))
		atomic_store(&slots[f], real);
}

static void *lookup(dlsym_fn sym, const char *name)
{
	void *p = sym(RTLD_NEXT, name);
	if (!p) {
		/* The runtime loads libcuda.so.1 RTLD_LOCAL: not in the
		 * global scope, but loaded. The handle is kept: the
		 * functions must outlive this call. */
		void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
		if (h)
			p = sym(h, name);
	}
	return p;
}

void *cu_real(enum cu_fn f)
{
	void *p = atomic_load(&slots[f]);
	if (p)
		return p;
	dlsym_fn sym = real_dlsym();
	if (!sym)
		return NULL;
	p = lookup(sym, fn_names[f]);
	if (!p && f == CU_EVENT_ELAPSED)
		p = lookup(sym, "cuEventElapsedTime");
	if (p && !is_gate_fn(p)) {
		void *none = NULL;
		atomic_compare_exchange_strong(&slots[f], &none, p);
		return atomic_load(&slots[f]);
	}
	return NULL;
}

/* The gate's function for what a cuGetProcAddress call returned, or got
 * itself for any other symbol. */
static void *substitute(const char *symbol, void *got, int version,
                        cuuint64_t flags)
{
	if (!symbol || !got || strncmp(symbol, "cu", 2) != 0)
		return got;
	bool ptds = flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
	/* The names a program looks up, and their per-thread forms
	 * (cuda.h's __CUDA_API_PTSZ list: cuStreamCreate* have none). */
	static const struct {
		const char *name;
		enum cu_fn legacy, ptsz;
	} names[] = {
	    {"cuLaunchKernel", CU_LAUNCH, CU_LAUNCH_PTSZ},
	    {"cuLaunchKernelEx", CU_LAUNCH_EX, CU_LAUNCH_EX_PTSZ},
	    {"cuLaunchCooperativeKernel", CU_COOP, CU_COOP_PTSZ},
	    {"cuGraphLaunch", CU_GRAPH, CU_GRAPH_PTSZ},
	    {"cuStreamCreate", CU_STREAM_CREATE, CU_STREAM_CREATE},
	    {"cuStreamCreateWithPriority", CU_STREAM_CREATE_PRIO,
	     CU_STREAM_CREATE_PRIO},
	};
	int f = -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && f < 0; i++)
		if (!strcmp(symbol, names[i].name))
			f = (int)(ptds ? names[i].ptsz : names[i].legacy);
	if (f < 0 && !strcmp(symbol, "cuGetProcAddress"))
		f = version >= 12000 ? CU_GPA_V2 : CU_GPA;
	if (f < 0)
		return got;
	if (is_gate_fn(got))
		return got;
	offer((enum cu_fn)f, got);
	return cu_gate_fn((enum cu_fn)f);
}

#define EXPORT __attribute__((visibility("default")))

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn,
                                    int cuda_version, cuuint64_t flags,
                                    CUdriverProcAddressQueryResult *status)
{
	cu_gpa2_fn real = (cu_gpa2_fn)cu_real(CU_GPA_V2);
	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED; /* no driver after us */
	CUresult r = real(symbol, pfn, cuda_version, flags, status);
	if (r == CUDA_SUCCESS && pfn)
		*pfn = substitute(symbol, *pfn, cuda_version, flags);
	return r;
}

EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn,
                                 int cuda_version, cuuint64_t flags)
{
	cu_gpa_fn real = (cu_gpa_fn)cu_real(CU_GPA);
	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	CUresult r = real(symbol, pfn, cuda_version, flags);
	if (r == CUDA_SUCCESS && pfn)
		*pfn = substitute(symbol, *pfn, cuda_version, flags);
	return r;
}

/* dlsym. The trampoline asks the hook, which answers for the
 * interposed names and returns NULL for every other; then it jumps to
 * glibc's dlsym with the caller's return address still on the stack, so
 * that RTLD_NEXT means "after the caller", not "after the gate" (a C
 * wrapper would break every other interposer's RTLD_NEXT lookups). The
 * hook calls no sanitized code for the names it does not answer. */
__attribute__((no_sanitize("address", "undefined"))) HIDDEN void *
baton_cuda_dlsym_hook(void *handle, const char *name);

__attribute__((no_sanitize("address", "undefined"))) HIDDEN void *
baton_cuda_dlsym_hook(void *handle, const char *name)
{
	dlsym_fn sym = real_dlsym();
	/* RTLD_NEXT is an interposer asking for what comes after it (the
	 * GL shim's rule, src/shim/gl/gl_dlsym.c): glibc knows. */
	if (!sym || handle == RTLD_NEXT || !name || name[0] != 'c' ||
	    name[1] != 'u')
		return NULL;
	int f = -1;
	for (int i = 0; i < CU_INTERPOSED && f < 0; i++)
		if (!strcmp(name, fn_names[i]))
			f = i;
	if (f < 0)
		return NULL;
	void *real = sym(handle, name);
	if (!real || is_gate_fn(real))
		return NULL; /* glibc's dlsym answers, errors included */
	offer((enum cu_fn)f, real);
	return cu_gate_fn((enum cu_fn)f);
}

#if defined(__x86_64__)
__asm__(".pushsection .text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "\t.cfi_startproc\n"
        "\tendbr64\n"
        "\tpushq %rdi\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\tpushq %rsi\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\tsubq $8, %rsp\n" /* the call's 16-byte alignment */
        "\t.cfi_adjust_cfa_offset 8\n"
        "\tcall baton_cuda_dlsym_hook\n"
        "\taddq $8, %rsp\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\tpopq %rsi\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\tpopq %rdi\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\ttestq %rax, %rax\n"
        "\tjz 1f\n"
        "\tret\n"
        "1:\n"
        "\tjmp *baton_cuda_real_dlsym(%rip)\n"
        "\t.cfi_endproc\n"
        ".size dlsym, .-dlsym\n"
        ".popsection\n");
#else
/* Elsewhere, as the GL shim's dlsym: the pass-through is a tail call,
 * which GCC makes one when optimising (not a guarantee, hence the
 * trampoline where there is one). */
__attribute__((visibility("default"), optimize("O2"))) void *
dlsym(void *handle, const char *name)
{
	void *p = baton_cuda_dlsym_hook(handle, name);
	if (p)
		return p;
	return real_dlsym()(handle, name);
}
#endif
