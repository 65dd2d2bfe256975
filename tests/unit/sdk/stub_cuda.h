/* A stub CUDA driver for the CUDA gate's test (stub_cuda.c, built as
 * libcuda.so.1 in the test's build folder). Just the types and calls the
 * gate and test_cuda_gate.c use, with cuda.h's ABI, declared here (not
 * from cuda.h) so that the exported names are the symbols themselves, not
 * cuda.h's versioned renames.
 *
 * Its kernels run on the CPU, inside the launch call: "sleep" sleeps the
 * microseconds its first parameter (an int64_t) gives; the PTX module's
 * "baton_probe" returns at once. An event records the CLOCK_MONOTONIC
 * time of its record call, so two events around a launch time it. */
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

#define STUB_PER_THREAD_FLAG   2u /* CU_GET_PROC_ADDRESS_PER_THREAD_... */
#define STUB_STREAM_PER_THREAD ((CUstream)0x2)

/* What the stub saw, for the test (read through dlsym). */
struct stub_cuda_counts {
	long launches[4];   /* cuLaunchKernel, _ptsz, Ex, Ex_ptsz */
	long probes;        /* launches of baton_probe (any form) */
	long probe_modules; /* PTX images with ".entry baton_probe" */
	long queries;       /* cuEventQuery calls */
	CUstream last_record_stream;
};
typedef void (*stub_cuda_counts_fn)(struct stub_cuda_counts *out);
/* Nonzero: cuStreamIsCapturing says every stream is capturing. */
typedef void (*stub_cuda_capturing_fn)(int on);
