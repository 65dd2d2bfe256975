/* The CUDA launch gate: libbaton_cuda.so, preloaded by
 * `baton run --be` into a program that knows nothing of Baton, as the
 * OpenCL gate (../cl/gate.c) is. Every cuLaunchKernel and
 * cuLaunchKernelEx (and their per-thread-stream _ptsz forms) waits for the
 * window batond opens (or, with no batond, GPU grid's probe loop), runs
 * synchronously (an event recorded after it, waited for), is timed by a
 * pair of events on its stream (kept per context: events.c) and reported
 * as a BATON_FRAME_BE record: the BE SDK (be.h) does the waiting, the
 * sizing and the reporting. resolve.c makes lookups by name
 * (cuGetProcAddress, dlsym) land here.
 *
 * No splitting: a CUDA kernel has no launch offset (docs/sdk.md), so a
 * launch is one block, whole.
 *
 * Not gated: a launch into a stream being captured (it runs later, as a
 * graph; waiting on the stream would break the capture), graph launches,
 * cooperative and multi-device launches, and the runtime's launches if
 * it reaches the driver by a path other than these names.
 *
 * Fail-open, as the shim: an internal error lets the launch go as the
 * program made it. A shut window is waited for at most
 * BATON_CUDA_MAX_WAIT_MS (default 1000) per launch, then the launch goes
 * and the SDK logs a line: the gate never hangs a program forever.
 *
 * Written against CUDA 13's cuda.h and tested in CI on a stub driver
 * (tests/unit/sdk/stub_cuda.c); measured on an NVIDIA H100 with driver
 * 580 (docs/sdk.md, "On a real GPU"). */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdk/be_internal.h"
#include "sdk/cuda/gate.h"

#define EXPORT __attribute__((visibility("default")))

typedef CUresult (*event_create_fn)(CUevent *, unsigned);
typedef CUresult (*event_record_fn)(CUevent, CUstream);
typedef CUresult (*event_fn)(CUevent);
typedef CUresult (*event_elapsed_fn)(float *, CUevent, CUevent);
typedef CUresult (*stream_sync_fn)(CUstream);
typedef CUresult (*stream_capturing_fn)(CUstream, CUstreamCaptureStatus *);
typedef CUresult (*module_load_fn)(CUmodule *, const void *);
typedef CUresult (*module_function_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*ctx_current_fn)(CUcontext *);

/* One launch as the program made it. */
struct launch {
	enum cu_fn kind; /* CU_LAUNCH .. CU_LAUNCH_EX_PTSZ */
	CUfunction f;
	unsigned grid[3], block[3], shm;
	CUstream stream;
	const CUlaunchConfig *config; /* the Ex forms */
	void **params, **extra;
};

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static baton_be *gate_be;
static bool gate_off; /* the SDK could not start: every launch goes */
/* The probe: an empty kernel from a PTX module loaded into the context
 * current at the launch, on the launch's stream. */
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

static CUresult call_real(const struct launch *l)
{
	void *fn = cu_real(l->kind);
	if (!fn)
		return CUDA_ERROR_NOT_INITIALIZED; /* no driver after us */
	if (l->kind == CU_LAUNCH_EX || l->kind == CU_LAUNCH_EX_PTSZ)
		return ((cu_launch_ex_fn)fn)(l->config, l->f, l->params,
		                             l->extra);
	return ((cu_launch_fn)fn)(l->f, l->grid[0], l->grid[1], l->grid[2],
	                          l->block[0], l->block[1], l->block[2], l->shm,
	                          l->stream, l->params, l->extra);
}

/* The stream the launch went to, as the legacy calls name it: a _ptsz
 * launch's NULL stream is the thread's own. */
static CUstream launch_stream(const struct launch *l)
{
	bool ptsz = l->kind == CU_LAUNCH_PTSZ || l->kind == CU_LAUNCH_EX_PTSZ;
	return !l->stream && ptsz ? CU_STREAM_PER_THREAD : l->stream;
}

/* A round trip on the stream: what the probe is when no module loads. It
 * sees the stream's queue, not the SMs, so it reads a busy device as
 * quieter than an empty kernel would. */
static int round_trip(CUstream s)
{
	event_create_fn create = (event_create_fn)cu_real(CU_EVENT_CREATE);
	event_record_fn record = (event_record_fn)cu_real(CU_EVENT_RECORD);
	event_fn sync = (event_fn)cu_real(CU_EVENT_SYNC);
	event_fn destroy = (event_fn)cu_real(CU_EVENT_DESTROY);
	CUevent e;
	if (!create || !record || !sync || !destroy ||
	    create(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
		return -1;
	int r =
	    record(e, s) == CUDA_SUCCESS && sync(e) == CUDA_SUCCESS ? 0 : -1;
	destroy(e);
	return r;
}

static int gate_probe(void *user)
{
	(void)user;
	ctx_current_fn current = (ctx_current_fn)cu_real(CU_CTX_CURRENT);
	CUcontext ctx = NULL;
	if (!current || current(&ctx) != CUDA_SUCCESS || !ctx)
		return -1;
	/* A new context at an old one's handle has a new id. */
	unsigned long long id = 0;
	cu_ctx_id(&id);
	if (ctx != probe_ctx || id != probe_ctx_id) {
		/* A new context: its own module (left loaded: it is a few
		 * bytes, and the context's end unloads it). */
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
				       "the probe kernel did not load; the "
				       "probe is a stream round trip");
			probe_ptx_failed = true;
		}
	}
	if (!probe_fn)
		return round_trip(probe_stream);
	cu_launch_fn launch = (cu_launch_fn)cu_real(CU_LAUNCH);
	stream_sync_fn sync = (stream_sync_fn)cu_real(CU_STREAM_SYNC);
	if (!launch || !sync ||
	    launch(probe_fn, 1, 1, 1, 1, 1, 1, 0, probe_stream, NULL, NULL) !=
	        CUDA_SUCCESS) {
		probe_ctx = NULL; /* load it again next time */
		return -1;
	}
	return sync(probe_stream) == CUDA_SUCCESS ? 0 : -1;
}

/* A fork child must not report into its parent's memfd nor hold its
 * connection: it opens its own client at its first launch. */
static void forget_in_child(void)
{
	if (gate_be)
		be_conn_close(gate_be); /* close(2) only */
	gate_be = NULL;
	gate_off = false;
	probe_ctx = NULL;
	probe_fn = NULL;
	cu_events_forget();
	pthread_mutex_init(&gate_lock, NULL);
}

/* Under gate_lock, at the first launch: the client, from the environment
 * `baton run --be` sets. */
static void gate_open(void)
{
	static bool atfork;
	if (!atfork)
		pthread_atfork(NULL, NULL, forget_in_child);
	atfork = true;
	if (be_gate_open("CUDA", "BATON_CUDA_MAX_WAIT_MS", gate_probe, false,
	                 &gate_be) != BATON_OK)
		gate_off = true;
}

/* A kernel's fit: by its handle (which lives as long as its module) and
 * its launch's shape, since one function launched on a larger grid runs
 * longer and the gate's wait (wait_end) goes by what this launch took
 * before. FNV-1a over the words. */
static uint32_t kernel_id(const struct launch *l)
{
	uint64_t v = (uint64_t)(uintptr_t)l->f;
	uint32_t w[] = {(uint32_t)v, (uint32_t)(v >> 32), l->grid[0],
	                l->grid[1],  l->grid[2],          l->block[0],
	                l->block[1], l->block[2]};
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		h = (h ^ w[i]) * 16777619u;
	return h;
}

/* How the gate waits for a launch's end (wait_end). Blocked, the wait's
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
static CUresult wait_end(CUevent e, int64_t launched_ns, int64_t expect_ns)
{
	event_fn query = (event_fn)cu_real(CU_EVENT_QUERY);
	event_fn sync = (event_fn)cu_real(CU_EVENT_SYNC);
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

/* Launches l and waits for it; its device time in *ns (events around it
 * on its stream), -1 where the events failed (the SDK then takes the
 * wall time since the release). expect_ns: wait_end's. */
static CUresult timed_launch(const struct launch *l, int64_t expect_ns,
                             int64_t *ns)
{
	event_record_fn record = (event_record_fn)cu_real(CU_EVENT_RECORD);
	event_elapsed_fn elapsed = (event_elapsed_fn)cu_real(CU_EVENT_ELAPSED);
	stream_sync_fn ssync = (stream_sync_fn)cu_real(CU_STREAM_SYNC);
	CUstream s = launch_stream(l);
	struct cu_event_pair ev;
	bool have = record && elapsed && cu_events_get(&ev);
	bool timed = have && record(ev.start, s) == CUDA_SUCCESS;
	CUresult ret = call_real(l);
	int64_t launched = be_now_ns();
	*ns = -1;
	if (ret == CUDA_SUCCESS) {
		float ms;
		if (timed && record(ev.end, s) == CUDA_SUCCESS &&
		    wait_end(ev.end, launched, expect_ns) == CUDA_SUCCESS &&
		    elapsed(&ms, ev.start, ev.end) == CUDA_SUCCESS &&
		    ms >= 0.0f)
			*ns = (int64_t)((double)ms * 1e6);
		else if (ssync)
			ssync(s); /* synchronous still */
	}
	if (have)
		cu_events_put(&ev);
	return ret;
}

/* True unless the launch's stream is being captured into a graph. */
static bool runs_now(const struct launch *l)
{
	stream_capturing_fn capturing =
	    (stream_capturing_fn)cu_real(CU_STREAM_CAPTURING);
	CUstreamCaptureStatus st;
	return capturing && capturing(launch_stream(l), &st) == CUDA_SUCCESS &&
	       st == CU_STREAM_CAPTURE_STATUS_NONE;
}

/* One launch through the gate, under gate_lock. */
static CUresult gated(const struct launch *l)
{
	if (!runs_now(l))
		return call_real(l);
	probe_stream = launch_stream(l);
	if (baton_be_task_begin(gate_be, kernel_id(l), 1) != 0)
		return call_real(l);
	int64_t off = 0, cnt = 1;
	/* < 0: no window within the bound (the SDK logged it): it goes
	 * now, unreported. 0 cannot happen for a task of one block. */
	int r = baton_be_next(gate_be, &off, &cnt);
	if (r == 0)
		return call_real(l);
	int64_t ns;
	CUresult ret = timed_launch(l, be_kernel_shortest_ns(gate_be, 1), &ns);
	if (ret == CUDA_SUCCESS && r > 0)
		baton_be_done(gate_be, off, cnt, ns);
	else if (r > 0)
		/* A failed launch ran nothing: nothing to report, but the
		 * SDK must not go on showing it in flight (the stuck rule
		 * would take it for a hung kernel). Abandoning the task
		 * clears it. */
		baton_be_task_begin(gate_be, kernel_id(l), 1);
	return ret;
}

static CUresult gate_launch(const struct launch *l)
{
	if (!cu_real(l->kind))
		return CUDA_ERROR_NOT_INITIALIZED;
	pthread_mutex_lock(&gate_lock);
	if (!gate_be && !gate_off) {
		probe_stream = launch_stream(l);
		gate_open();
	}
	CUresult ret = gate_off ? call_real(l) : gated(l);
	pthread_mutex_unlock(&gate_lock);
	return ret;
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
		return call_real(&l);
	/* the shape, for kernel_id */
	l.grid[0] = config->gridDimX;
	l.grid[1] = config->gridDimY;
	l.grid[2] = config->gridDimZ;
	l.block[0] = config->blockDimX;
	l.block[1] = config->blockDimY;
	l.block[2] = config->blockDimZ;
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
