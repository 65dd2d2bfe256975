/* The CUDA launch gate: libbaton_cuda.so, preloaded by
 * `baton run --be` into a program that knows nothing of Baton, as the
 * OpenCL gate (../cl/gate.c) is. Every kernel launch (cuLaunchKernel,
 * cuLaunchKernelEx, cuLaunchCooperativeKernel, each with its
 * per-thread-stream _ptsz form) and every graph launch (cuGraphLaunch,
 * _ptsz) waits for a window batond opens (or, with no batond, GPU grid's
 * probe loop): the window admits a batch of launches (admit.c), which go
 * to the driver asynchronously, a bounded number in flight per stream,
 * each between two events whose elapsed time is read after its end, off
 * the launch path (window.c); a batch is reported as one BATON_FRAME_BE
 * record once its launches have ended. The BE SDK (be.h) does the
 * waiting, the sizing and the reporting. resolve.c makes lookups by name
 * (cuGetProcAddress, dlsym) land here; prio.c creates the program's
 * streams at the lowest priority.
 *
 * No splitting: a CUDA kernel has no launch offset (docs/sdk.md), so a
 * launch is one block, whole.
 *
 * Not gated: a launch into a stream being captured (it runs later, as a
 * graph, which is gated when launched; waiting on the stream would break
 * the capture), cuLaunchCooperativeKernelMultiDevice (deprecated since
 * CUDA 11.3), and the runtime's launches if it reaches the driver by a
 * path other than these names.
 *
 * Fail-open, as the shim: an internal error lets the launch go as the
 * program made it. A shut window is waited for at most
 * BATON_CUDA_MAX_WAIT_MS (default 1000) per launch, then that one launch
 * goes and the SDK logs a line: the gate never hangs a program forever.
 *
 * Written against CUDA 13's cuda.h and tested in CI on a stub driver
 * (tests/unit/sdk/stub_cuda.c); its synchronous predecessor was measured
 * on an NVIDIA H100 with driver 580 (docs/sdk.md, "On a real GPU"). */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdk/be_internal.h"
#include "sdk/cuda/gate.h"

#define EXPORT __attribute__((visibility("default")))

typedef CUresult (*stream_capturing_fn)(CUstream, CUstreamCaptureStatus *);
typedef CUresult (*module_load_fn)(CUmodule *, const void *);
typedef CUresult (*module_function_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*ctx_current_fn)(CUcontext *);

/* The probe: an empty kernel from a PTX module loaded into the context
 * current at the launch, on the launch's stream. Used under admit.c's
 * lock only (the SDK probes while a thread opens a batch). */
static CUstream probe_stream;
static CUcontext probe_ctx;
static unsigned long long probe_ctx_id; /* cu_ctx_id's, 0 without */
static CUfunction probe_fn;
static bool probe_ptx_failed;

/* The probe kernel. PTX, not a cubin: the driver compiles it for whatever
 * device the context is on (.target names a minimum; CUDA 13.0's ptxas
 * compiles this for sm_75 and sm_90). */
static const char probe_ptx[] = ".version 7.0\n"
                                ".target sm_52\n"
                                ".address_size 64\n"
                                ".visible .entry baton_probe()\n"
                                "{\n"
                                "\tret;\n"
                                "}\n";

CUresult cu_call_real(const struct launch *l)
{
	void *fn = cu_real(l->kind);
	if (!fn)
		return CUDA_ERROR_NOT_INITIALIZED; /* no driver after us */
	switch (l->kind) {
	case CU_LAUNCH_EX:
	case CU_LAUNCH_EX_PTSZ:
		return ((cu_launch_ex_fn)fn)(l->config, l->f, l->params,
		                             l->extra);
	case CU_COOP:
	case CU_COOP_PTSZ:
		return ((cu_coop_fn)fn)(
		    l->f, l->grid[0], l->grid[1], l->grid[2], l->block[0],
		    l->block[1], l->block[2], l->shm, l->stream, l->params);
	case CU_GRAPH:
	case CU_GRAPH_PTSZ:
		return ((cu_graph_fn)fn)(l->graph, l->stream);
	default:
		return ((cu_launch_fn)fn)(l->f, l->grid[0], l->grid[1],
		                          l->grid[2], l->block[0], l->block[1],
		                          l->block[2], l->shm, l->stream,
		                          l->params, l->extra);
	}
}

CUstream cu_launch_stream(const struct launch *l)
{
	bool ptsz = l->kind == CU_LAUNCH_PTSZ || l->kind == CU_LAUNCH_EX_PTSZ ||
	            l->kind == CU_COOP_PTSZ || l->kind == CU_GRAPH_PTSZ;
	return !l->stream && ptsz ? CU_STREAM_PER_THREAD : l->stream;
}

void cu_probe_stream_set(CUstream s)
{
	probe_stream = s;
}

void cu_probe_forget(void)
{
	probe_ctx = NULL;
	probe_fn = NULL;
}

/* A round trip on the stream: what the probe is when no module loads. It
 * sees the stream's queue, not the SMs, so it reads a busy device as
 * quieter than an empty kernel would. */
static int round_trip(CUstream s)
{
	cu_event_create_fn create =
	    (cu_event_create_fn)cu_real(CU_EVENT_CREATE);
	cu_event_record_fn record =
	    (cu_event_record_fn)cu_real(CU_EVENT_RECORD);
	cu_event_fn sync = (cu_event_fn)cu_real(CU_EVENT_SYNC);
	cu_event_fn destroy = (cu_event_fn)cu_real(CU_EVENT_DESTROY);
	CUevent e;
	if (!create || !record || !sync || !destroy ||
	    create(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
		return -1;
	int r =
	    record(e, s) == CUDA_SUCCESS && sync(e) == CUDA_SUCCESS ? 0 : -1;
	destroy(e);
	return r;
}

/* Loads the probe's module into the current context ctx (id) if it is
 * new. */
static void probe_module(CUcontext ctx, unsigned long long id)
{
	if (ctx == probe_ctx && id == probe_ctx_id)
		return;
	/* A new context (a new one at an old handle has a new id): its
	 * own module, left loaded (a few bytes; the context's end unloads
	 * it). */
	probe_ctx = ctx;
	probe_ctx_id = id;
	probe_fn = NULL;
	module_load_fn load = (module_load_fn)cu_real(CU_MODULE_LOAD);
	module_function_fn get =
	    (module_function_fn)cu_real(CU_MODULE_FUNCTION);
	CUmodule m;
	if (!load || !get || load(&m, probe_ptx) != CUDA_SUCCESS ||
	    get(&probe_fn, m, "baton_probe") != CUDA_SUCCESS) {
		probe_fn = NULL;
		if (!probe_ptx_failed)
			be_log(BE_LOG_PROBE,
			       "the probe kernel did not load; "
			       "the probe is a stream round trip");
		probe_ptx_failed = true;
	}
}

int cu_gate_probe(void *user)
{
	(void)user;
	ctx_current_fn current = (ctx_current_fn)cu_real(CU_CTX_CURRENT);
	CUcontext ctx = NULL;
	if (!current || current(&ctx) != CUDA_SUCCESS || !ctx)
		return -1;
	unsigned long long id = 0;
	cu_ctx_id(&id);
	probe_module(ctx, id);
	if (!probe_fn)
		return round_trip(probe_stream);
	cu_launch_fn launch = (cu_launch_fn)cu_real(CU_LAUNCH);
	cu_stream_fn sync = (cu_stream_fn)cu_real(CU_STREAM_SYNC);
	if (!launch || !sync ||
	    launch(probe_fn, 1, 1, 1, 1, 1, 1, 0, probe_stream, NULL, NULL) !=
	        CUDA_SUCCESS) {
		probe_ctx = NULL; /* load it again next time */
		return -1;
	}
	return sync(probe_stream) == CUDA_SUCCESS ? 0 : -1;
}

/* How the gate waits for a launch's end (cu_wait_end). Blocked, the wait's
 * wake-up cost an H100 15-34 us a launch (docs/sdk.md, "On a real GPU"),
 * more than a short kernel takes; polling (cuEventQuery) catches the end
 * within a query's time but spins a core, the BE program's own, on a
 * host whose cores the games also use. So the gate sleeps through most
 * of the time the kernel took before, wakes END_EARLY_NS ahead of its
 * expected end (the sleep's overshoot is the thread's timer slack, 50 us
 * by default), polls up to END_SPIN_NS past it, and only then blocks. A
 * kernel with no past, or shorter than SLEEP_MIN_NS, is polled from its
 * launch. */
#define END_SPIN_NS  50000
#define END_EARLY_NS 100000
#define SLEEP_MIN_NS (2 * END_EARLY_NS)

/* Waits for the end event e of a launch whose call returned at
 * launched_ns (its kernel cannot have started later) and whose kernel is
 * expected to take expect_ns (< 0: no idea). */
CUresult cu_wait_end(CUevent e, int64_t launched_ns, int64_t expect_ns)
{
	cu_event_fn query = (cu_event_fn)cu_real(CU_EVENT_QUERY);
	cu_event_fn sync = (cu_event_fn)cu_real(CU_EVENT_SYNC);
	if (query) {
		int64_t end = launched_ns + (expect_ns > 0 ? expect_ns : 0);
		if (expect_ns >= SLEEP_MIN_NS)
			be_sleep_until(end - END_EARLY_NS);
		int64_t now = be_now_ns();
		int64_t until = (end > now ? end : now) + END_SPIN_NS;
		/* The clock before the query: a thread preempted past
		 * `until` still asks once more before it blocks. */
		for (bool last = false; !last;) {
			last = be_now_ns() >= until;
			CUresult r = query(e);
			if (r != CUDA_ERROR_NOT_READY)
				return r;
		}
	}
	/* none: the caller synchronises the stream */
	return sync ? sync(e) : CUDA_ERROR_NOT_FOUND;
}

CUresult cu_timed_launch(const struct launch *l, int64_t *ns)
{
	cu_event_create_fn create =
	    (cu_event_create_fn)cu_real(CU_EVENT_CREATE);
	cu_event_record_fn record =
	    (cu_event_record_fn)cu_real(CU_EVENT_RECORD);
	cu_event_elapsed_fn elapsed =
	    (cu_event_elapsed_fn)cu_real(CU_EVENT_ELAPSED);
	cu_event_fn destroy = (cu_event_fn)cu_real(CU_EVENT_DESTROY);
	cu_stream_fn ssync = (cu_stream_fn)cu_real(CU_STREAM_SYNC);
	CUstream s = cu_launch_stream(l);
	CUevent ev[2];
	int made = 0;
	if (create && record && elapsed && destroy)
		for (; made < 2; made++)
			if (create(&ev[made], made ? CU_EVENT_BLOCKING_SYNC
			                           : CU_EVENT_DEFAULT) !=
			    CUDA_SUCCESS)
				break;
	bool timed = made == 2 && record(ev[0], s) == CUDA_SUCCESS;
	CUresult ret = cu_call_real(l);
	int64_t launched = be_now_ns();
	*ns = -1;
	if (ret == CUDA_SUCCESS) {
		float ms;
		if (timed && record(ev[1], s) == CUDA_SUCCESS &&
		    cu_wait_end(ev[1], launched, -1) == CUDA_SUCCESS &&
		    elapsed(&ms, ev[0], ev[1]) == CUDA_SUCCESS && ms >= 0.0f)
			*ns = (int64_t)((double)ms * 1e6);
		else if (ssync)
			ssync(s); /* synchronous still */
	}
	while (made > 0)
		destroy(ev[--made]);
	return ret;
}

/* True unless the launch's stream is being captured into a graph. */
static bool runs_now(const struct launch *l)
{
	stream_capturing_fn capturing =
	    (stream_capturing_fn)cu_real(CU_STREAM_CAPTURING);
	CUstreamCaptureStatus st;
	return capturing &&
	       capturing(cu_launch_stream(l), &st) == CUDA_SUCCESS &&
	       st == CU_STREAM_CAPTURE_STATUS_NONE;
}

static CUresult gate_launch(const struct launch *l)
{
	if (!cu_real(l->kind))
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!runs_now(l))
		return cu_call_real(l);
	uint32_t gen;
	switch (cu_admit(l, &gen)) {
	case CU_ADMIT_BATCH:
		return cu_window_launch(l, gen);
	case CU_ADMIT_ALONE:
	case CU_ADMIT_OFF:
		break;
	}
	return cu_call_real(l);
}

static CUresult launch_plain(enum cu_fn kind, CUfunction f, unsigned gx,
                             unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned shm, CUstream s,
                             void **params, void **extra)
{
	struct launch l = {
	    .kind = kind,
	    .f = f,
	    .grid = {gx, gy, gz},
	    .block = {bx, by, bz},
	    .shm = shm,
	    .stream = s,
	    .params = params,
	    .extra = extra,
	};
	return gate_launch(&l);
}

static CUresult launch_ex(enum cu_fn kind, const CUlaunchConfig *config,
                          CUfunction f, void **params, void **extra)
{
	struct launch l = {
	    .kind = kind,
	    .f = f,
	    .stream = config ? config->hStream : NULL,
	    .config = config,
	    .params = params,
	    .extra = extra,
	};
	if (!config) /* the driver's error, not ours */
		return cu_call_real(&l);
	return gate_launch(&l);
}

static CUresult launch_graph(enum cu_fn kind, CUgraphExec g, CUstream s)
{
	struct launch l = {.kind = kind, .graph = g, .stream = s};
	return gate_launch(&l);
}

EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                               unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shm, CUstream s,
                               void **params, void **extra)
{
	return launch_plain(CU_LAUNCH, f, gx, gy, gz, bx, by, bz, shm, s,
	                    params, extra);
}

EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy,
                                    unsigned gz, unsigned bx, unsigned by,
                                    unsigned bz, unsigned shm, CUstream s,
                                    void **params, void **extra)
{
	return launch_plain(CU_LAUNCH_PTSZ, f, gx, gy, gz, bx, by, bz, shm, s,
	                    params, extra);
}

EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                                 void **params, void **extra)
{
	return launch_ex(CU_LAUNCH_EX, config, f, params, extra);
}

EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config,
                                      CUfunction f, void **params, void **extra)
{
	return launch_ex(CU_LAUNCH_EX_PTSZ, config, f, params, extra);
}

EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx,
                                          unsigned gy, unsigned gz, unsigned bx,
                                          unsigned by, unsigned bz,
                                          unsigned shm, CUstream s,
                                          void **params)
{
	return launch_plain(CU_COOP, f, gx, gy, gz, bx, by, bz, shm, s, params,
	                    NULL);
}

EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx,
                                               unsigned gy, unsigned gz,
                                               unsigned bx, unsigned by,
                                               unsigned bz, unsigned shm,
                                               CUstream s, void **params)
{
	return launch_plain(CU_COOP_PTSZ, f, gx, gy, gz, bx, by, bz, shm, s,
	                    params, NULL);
}

EXPORT CUresult cuGraphLaunch(CUgraphExec g, CUstream s)
{
	return launch_graph(CU_GRAPH, g, s);
}

EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec g, CUstream s)
{
	return launch_graph(CU_GRAPH_PTSZ, g, s);
}
