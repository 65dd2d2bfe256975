/* The CUDA launch gate's parts (docs/sdk.md): gate.c gates the launches,
 * resolve.c finds the real driver's entry points and hands the gate's own
 * out where a program looks launches up (cuGetProcAddress, dlsym). */
#pragma once

#include <stdbool.h>

#include <cuda.h>

/* cuda.h renames these to the versioned or per-thread symbols; the gate
 * defines the exported names themselves. */
#undef cuLaunchKernel
#undef cuLaunchKernelEx
#undef cuGetProcAddress
#undef cuGetProcAddress_v2

/* The driver's entry points the gate calls: each a slot holding the real
 * function. The first six are also the ones the gate interposes. */
enum cu_fn {
	CU_LAUNCH,         /* cuLaunchKernel */
	CU_LAUNCH_PTSZ,    /* cuLaunchKernel_ptsz */
	CU_LAUNCH_EX,      /* cuLaunchKernelEx */
	CU_LAUNCH_EX_PTSZ, /* cuLaunchKernelEx_ptsz */
	CU_GPA,            /* cuGetProcAddress (CUDA 11.3, four arguments) */
	CU_GPA_V2,         /* cuGetProcAddress_v2 (12.0, with symbolStatus) */
	CU_INTERPOSED,     /* the count of the above */
	CU_EVENT_CREATE = CU_INTERPOSED,
	CU_EVENT_RECORD,
	CU_EVENT_SYNC,
	CU_EVENT_ELAPSED,
	CU_EVENT_DESTROY,
	CU_EVENT_QUERY,
	CU_STREAM_SYNC,
	CU_STREAM_CAPTURING,
	CU_MODULE_LOAD,
	CU_MODULE_FUNCTION,
	CU_CTX_CURRENT,
	CU_CTX_ID,
	CU_FN_COUNT
};

typedef CUresult (*cu_launch_fn)(CUfunction, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, unsigned, unsigned,
                                 CUstream, void **, void **);
typedef CUresult (*cu_launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **,
                                    void **);
typedef CUresult (*cu_gpa_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*cu_gpa2_fn)(const char *, void **, int, cuuint64_t,
                               CUdriverProcAddressQueryResult *);

/* The real function of slot f: the one a lookup through the gate last
 * returned, else the next definition after the gate (RTLD_NEXT), else
 * libcuda.so.1's own if a program loaded it privately. NULL if none. */
void *cu_real(enum cu_fn f);

/* The gate's own function for an interposed slot (< CU_INTERPOSED). */
void *cu_gate_fn(enum cu_fn f);

/* The current context's id (cuCtxGetId, unique for the program's life,
 * where a handle may be reused); false where the driver cannot say. */
bool cu_ctx_id(unsigned long long *id);

/* A launch's two timing events (events.c), on the current context. */
struct cu_event_pair {
	CUevent start, end; /* end: CU_EVENT_BLOCKING_SYNC */
	bool own;           /* made for this launch: cu_events_put frees it */
};

/* The current context's pair, kept from one launch to the next; or, where
 * none can be kept, a pair of the launch's own. False if none could be
 * made. Under the gate's lock. */
bool cu_events_get(struct cu_event_pair *p);
/* After the launch: frees a pair of the launch's own. */
void cu_events_put(struct cu_event_pair *p);
/* In a fork child: the parent's contexts are not the child's. */
void cu_events_forget(void);

/* The exported wrappers (gate.c); named here for resolve.c's table. */
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shm,
                        CUstream s, void **params, void **extra);
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy,
                             unsigned gz, unsigned bx, unsigned by, unsigned bz,
                             unsigned shm, CUstream s, void **params,
                             void **extra);
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                          void **params, void **extra);
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f,
                               void **params, void **extra);
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cuda_version,
                          cuuint64_t flags);
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version,
                             cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status);
