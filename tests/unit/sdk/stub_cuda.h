/* A stub CUDA driver for the CUDA gate's test (stub_cuda.c, built as
 * libcuda.so.1 in the test's build folder). Just the types and calls the
 * gate and test_cuda_gate.c use, with cuda.h's ABI, declared here (not
 * from cuda.h) so that the exported names are the symbols themselves, not
 * cuda.h's versioned renames.
 *
 * Its device is one queue in CLOCK_MONOTONIC time, as a GPU that runs
 * kernels in order: a launch returns at once and its kernel ends "its
 * first parameter (an int64_t) microseconds" after the queue's previous
 * end or the launch, whichever is later ("sleep"; the PTX module's
 * "baton_probe" takes no time). An event completes at the queue's end
 * when it was recorded: cuEventQuery says CUDA_ERROR_NOT_READY until
 * then, cuEventSynchronize and cuStreamSynchronize sleep until then.
 *
 * One context is current, always at the same handle; the test can
 * replace it with a new one (stub_cuda_new_context: the old destroyed, a
 * new id, the handle reused, as a driver may). An event belongs to the
 * context it was created in, and a call on an event whose context is
 * gone is counted (dead_uses) and refused.
 *
 * Streams (cuStreamCreate, cuStreamCreateWithPriority) keep the priority
 * they were made with, clamped to the range cuCtxGetStreamPriorityRange
 * reports (least 0, greatest -5 as on an H100, or what
 * stub_cuda_priority_range sets), and count the kernels they have in
 * flight (launched, not yet ended) at each launch. A graph
 * (stub_cuda_graph) is one kernel of the time it was made with. The
 * probe kernel takes stub_cuda_probe_us microseconds (0 at first), as an
 * empty kernel on a busy device would.
 *
 * The device has STUB_SMS SMs (cuDeviceGetAttribute,
 * CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT). As an MPS client, the
 * context is limited to CUDA_MPS_ACTIVE_THREAD_PERCENTAGE of them, read
 * from the environment at the first call that asks (the context's
 * creation), rounded up to whole SMs (the driver rounds up to what the
 * hardware supports): cuCtxGetExecAffinity(CU_EXEC_AFFINITY_TYPE_SM_COUNT)
 * reports that count; without the variable, every SM. */
#pragma once

#include <stdint.h>

typedef int CUresult;
typedef struct stub_function *CUfunction;
typedef struct stub_module *CUmodule;
typedef struct stub_event *CUevent;
typedef void *CUstream;
typedef void *CUcontext;

/* cuda.h's CUlaunchConfig. */
typedef struct {
	unsigned grid[3], block[3], shm;
	CUstream stream;
	void *attrs;
	unsigned num_attrs;
} stub_launch_config;

#define STUB_SMS               132 /* an H100 SXM's */
#define STUB_PER_THREAD_FLAG   2u  /* CU_GET_PROC_ADDRESS_PER_THREAD_... */
#define STUB_STREAM_PER_THREAD ((CUstream)0x2)

typedef struct stub_graph *CUgraphExec;

/* What the stub saw, for the test (read through dlsym). */
struct stub_cuda_counts {
	long launches[4];   /* cuLaunchKernel, _ptsz, Ex, Ex_ptsz */
	long coop[2];       /* cuLaunchCooperativeKernel, _ptsz */
	long graphs[2];     /* cuGraphLaunch, _ptsz */
	long probes;        /* launches of baton_probe (any form) */
	long probe_modules; /* PTX images with ".entry baton_probe" */
	long queries;       /* cuEventQuery calls */
	long syncs;         /* cuEventSynchronize calls: blocking waits */
	long creates;       /* cuEventCreate calls that made an event */
	long destroys;      /* cuEventDestroy calls that freed one */
	long dead_uses;     /* calls on an event of a destroyed context */
	CUstream last_record_stream;
};
typedef void (*stub_cuda_counts_fn)(struct stub_cuda_counts *out);
/* Nonzero: cuStreamIsCapturing says every stream is capturing. */
typedef void (*stub_cuda_capturing_fn)(int on);
/* Destroys the current context and makes a new one current at the same
 * handle. */
typedef void (*stub_cuda_new_context_fn)(void);
/* What a stream saw: its priority, launches and the most kernels it had
 * in flight at once. NULL and the per-thread stream are the defaults. */
struct stub_cuda_stream {
	int priority;
	long launches, max_in_flight;
};
typedef int (*stub_cuda_stream_info_fn)(CUstream s,
                                        struct stub_cuda_stream *out);
typedef void (*stub_cuda_priority_range_fn)(int least, int greatest);
typedef CUgraphExec (*stub_cuda_graph_fn)(int64_t us);
typedef void (*stub_cuda_probe_us_fn)(int64_t us);
