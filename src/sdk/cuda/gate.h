/* The CUDA launch gate's parts (docs/sdk.md): gate.c gates the launches,
 * admit.c opens and closes the batches of launches the SDK's windows
 * allow, window.c keeps each stream's launches in flight and reads their
 * ends from events, prio.c puts the program's new streams at the lowest
 * priority, resolve.c finds the real driver's entry points and hands the
 * gate's own out where a program looks them up (cuGetProcAddress,
 * dlsym). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <cuda.h>

#include "sdk/be_internal.h"

/* cuda.h renames these to the versioned or per-thread symbols; the gate
 * defines the exported names themselves. */
#undef cuLaunchKernel
#undef cuLaunchKernelEx
#undef cuLaunchCooperativeKernel
#undef cuGraphLaunch
#undef cuGetProcAddress
#undef cuGetProcAddress_v2
#undef cuStreamGetPriority

/* The driver's entry points the gate calls: each a slot holding the real
 * function. Those before CU_INTERPOSED are also the ones the gate
 * interposes (and answers for in cuGetProcAddress and dlsym). */
enum cu_fn {
	CU_LAUNCH,         /* cuLaunchKernel */
	CU_LAUNCH_PTSZ,    /* cuLaunchKernel_ptsz */
	CU_LAUNCH_EX,      /* cuLaunchKernelEx */
	CU_LAUNCH_EX_PTSZ, /* cuLaunchKernelEx_ptsz */
	CU_COOP,           /* cuLaunchCooperativeKernel */
	CU_COOP_PTSZ,      /* cuLaunchCooperativeKernel_ptsz */
	CU_GRAPH,          /* cuGraphLaunch */
	CU_GRAPH_PTSZ,     /* cuGraphLaunch_ptsz */
	CU_LAUNCH_KINDS,   /* the count of the launches above */
	CU_STREAM_CREATE = CU_LAUNCH_KINDS, /* cuStreamCreate */
	CU_STREAM_CREATE_PRIO,              /* cuStreamCreateWithPriority */
	CU_GPA,        /* cuGetProcAddress (CUDA 11.3, four arguments) */
	CU_GPA_V2,     /* cuGetProcAddress_v2 (12.0, with symbolStatus) */
	CU_INTERPOSED, /* the count of the above */
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
	CU_PRIO_RANGE,        /* cuCtxGetStreamPriorityRange */
	CU_CTX_EXEC_AFFINITY, /* cuCtxGetExecAffinity (11.4) */
	CU_CTX_DEVICE,        /* cuCtxGetDevice */
	CU_DEVICE_ATTRIBUTE,  /* cuDeviceGetAttribute */
	CU_FN_COUNT
};

/* The signatures, as CUDA 13.0's cuda.h declares them (the driver API
 * reference, "Execution Control" and "Graph Management"). */
typedef CUresult (*cu_launch_fn)(CUfunction, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, unsigned, unsigned,
                                 CUstream, void **, void **);
typedef CUresult (*cu_launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **,
                                    void **);
typedef CUresult (*cu_coop_fn)(CUfunction, unsigned, unsigned, unsigned,
                               unsigned, unsigned, unsigned, unsigned, CUstream,
                               void **);
typedef CUresult (*cu_graph_fn)(CUgraphExec, CUstream);
typedef CUresult (*cu_gpa_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*cu_gpa2_fn)(const char *, void **, int, cuuint64_t,
                               CUdriverProcAddressQueryResult *);
typedef CUresult (*cu_event_create_fn)(CUevent *, unsigned);
typedef CUresult (*cu_event_record_fn)(CUevent, CUstream);
typedef CUresult (*cu_event_fn)(CUevent);
typedef CUresult (*cu_event_elapsed_fn)(float *, CUevent, CUevent);
typedef CUresult (*cu_stream_fn)(CUstream);

/* One launch as the program made it. */
struct launch {
	enum cu_fn kind; /* < CU_LAUNCH_KINDS */
	CUfunction f;
	unsigned grid[3], block[3], shm;
	CUstream stream;
	const CUlaunchConfig *config; /* the Ex forms */
	CUgraphExec graph;            /* the graph forms */
	void **params, **extra;
};

/* The real function of slot f: the one a lookup through the gate last
 * returned, else the next definition after the gate (RTLD_NEXT), else
 * libcuda.so.1's own if a program loaded it privately. NULL if none. */
void *cu_real(enum cu_fn f);

/* The gate's own function for an interposed slot (< CU_INTERPOSED). */
void *cu_gate_fn(enum cu_fn f);

/* The current context's id (cuCtxGetId, 12.0: unique for the program's
 * life, where a handle may be reused); false where the driver cannot
 * say. */
bool cu_ctx_id(unsigned long long *id);

/* gate.c. The launch, passed to the driver as the program made it. */
CUresult cu_call_real(const struct launch *l);
/* The stream the launch went to: a _ptsz launch's NULL stream is the
 * thread's own (CU_STREAM_PER_THREAD). */
CUstream cu_launch_stream(const struct launch *l);
/* Waits for the end event e of a launch whose call returned at
 * launched_ns and whose kernel is expected to take expect_ns (< 0: no
 * idea): slept through, polled near its end, then blocked. */
CUresult cu_wait_end(CUevent e, int64_t launched_ns, int64_t expect_ns);
/* Launches l with a pair of events of its own around it and waits for
 * its end: its device time in *ns, -1 where the events failed. */
CUresult cu_timed_launch(const struct launch *l, int64_t *ns);
/* The probe of GPU grid's loop (the SDK calls it under admit.c's lock):
 * an empty kernel on cu_probe_stream's stream. */
int cu_gate_probe(void *user);
void cu_probe_stream_set(CUstream s);
void cu_probe_forget(void);

/* admit.c. A launch's place in a batch: the window the SDK opened
 * (baton_be_next) admits up to its count of launches, as many as the
 * fit says fit the window; the batch is reported (baton_be_done) once
 * every launch in it has ended. */
enum cu_admit {
	CU_ADMIT_BATCH, /* in batch *gen: window.c launches it */
	CU_ADMIT_ALONE, /* no window within the bound: it goes, unreported */
	CU_ADMIT_OFF,   /* the SDK could not start: every launch goes */
};
enum cu_admit cu_admit(const struct launch *l, uint32_t *gen);
/* A launch of batch gen has ended: its device time (ns), CU_UNTIMED
 * where no events timed it, CU_FAILED where the driver refused it (it
 * ran nothing). */
#define CU_UNTIMED (-1)
#define CU_FAILED  (-2)
void cu_settle(uint32_t gen, int64_t ns);
/* The launches of batch gen settled so far. */
long cu_settled(uint32_t gen);
/* In a fork child: no batch, no client, no helper thread. */
void cu_admit_forget(void);

/* space.c. The SMs this process's context is limited to (MPS), read
 * once in the current context: be_space.c's gpu_fits, or NULL where the
 * process may use every SM (it never runs on a partition). */
be_gpu_fits_fn cu_space_fits(void);

/* window.c. Launches l, admitted into batch gen, on its stream's window:
 * asynchronously, at most cu_window_size() launches of the stream in
 * flight (past that, the oldest's end is waited for first); each end is
 * read from its event at a later launch on the stream or by
 * cu_window_drain, and settled. */
CUresult cu_window_launch(const struct launch *l, uint32_t gen);
/* Reads, and waits for, the ends of every launch of batch gen in
 * flight on any stream. */
void cu_window_drain(uint32_t gen);
unsigned cu_window_size(void);
void cu_window_forget(void);

/* The exported wrappers; named here for resolve.c's table. */
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
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy,
                                   unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned shm, CUstream s,
                                   void **params);
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy,
                                        unsigned gz, unsigned bx, unsigned by,
                                        unsigned bz, unsigned shm, CUstream s,
                                        void **params);
CUresult cuGraphLaunch(CUgraphExec g, CUstream s);
CUresult cuGraphLaunch_ptsz(CUgraphExec g, CUstream s);
CUresult cuStreamCreate(CUstream *s, unsigned flags);
CUresult cuStreamCreateWithPriority(CUstream *s, unsigned flags, int priority);
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cuda_version,
                          cuuint64_t flags);
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version,
                             cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status);
