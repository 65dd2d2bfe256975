/* Best-effort streams at the lowest priority the device offers.
 *
 * cuStreamCreate and cuStreamCreateWithPriority (the driver API
 * reference, "Stream Management": cuStreamCreateWithPriority(CUstream *,
 * unsigned int flags, int priority); cuCtxGetStreamPriorityRange(int
 * *leastPriority, int *greatestPriority), lower numbers meaning higher
 * priority) are answered by creating the stream with the context's
 * least priority, whatever the program asked: the CUDA runtime's
 * cudaStreamCreate* reach them through cuGetProcAddress, which the gate
 * answers (resolve.c). The device's scheduler then prefers every other
 * stream's pending blocks over these, in this process and among the
 * clients of an MPS server.
 *
 * What it does not cover: the default streams (the legacy NULL stream
 * and the per-thread one) are the context's, made by the driver at
 * priority 0, which no call changes; 0 is the least priority on every
 * device to date (the range is [0, -5] on an H100), so they run at the
 * lowest too, and the gate says so in a log line if a device ever
 * reports a least priority other than 0. Streams made by a green
 * context (cuGreenCtxStreamCreate) keep the priority asked for. And a
 * priority orders work within one context or MPS server: a game in a
 * context of its own is time-sliced against this process whatever the
 * priority, which is what the launch gate's windows are for. */
#include <stdatomic.h>
#include <stdbool.h>

#include "sdk/be_internal.h"
#include "sdk/cuda/gate.h"

#define EXPORT __attribute__((visibility("default")))

typedef CUresult (*stream_create_fn)(CUstream *, unsigned);
typedef CUresult (*stream_create_prio_fn)(CUstream *, unsigned, int);
typedef CUresult (*prio_range_fn)(int *, int *);

/* The current context's least priority; false if the driver cannot
 * say. */
static bool least_priority(int *least)
{
	prio_range_fn range = (prio_range_fn)cu_real(CU_PRIO_RANGE);
	int greatest;
	if (!range || range(least, &greatest) != CUDA_SUCCESS)
		return false;
	static atomic_bool said;
	if (*least != 0 && !atomic_exchange(&said, true))
		be_log(BE_LOG_CALL,
		       "this device's least stream priority is %d: the "
		       "default streams run at 0, above it",
		       *least);
	return true;
}

/* A stream at the least priority; the program's own call where that
 * cannot be made. */
static CUresult create_least(CUstream *s, unsigned flags, bool asked_prio,
                             int prio)
{
	stream_create_prio_fn with_prio =
	    (stream_create_prio_fn)cu_real(CU_STREAM_CREATE_PRIO);
	int least;
	if (with_prio && least_priority(&least))
		return with_prio(s, flags, least);
	if (asked_prio)
		return with_prio ? with_prio(s, flags, prio)
		                 : CUDA_ERROR_NOT_INITIALIZED;
	stream_create_fn plain = (stream_create_fn)cu_real(CU_STREAM_CREATE);
	return plain ? plain(s, flags) : CUDA_ERROR_NOT_INITIALIZED;
}

EXPORT CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
	return create_least(s, flags, false, 0);
}

EXPORT CUresult cuStreamCreateWithPriority(CUstream *s, unsigned flags,
                                           int priority)
{
	return create_least(s, flags, true, priority);
}
