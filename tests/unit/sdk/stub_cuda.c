/* The stub CUDA driver of stub_cuda.h: libcuda.so.1 for test_cuda_gate.c.
 * Every call succeeds when its arguments make sense; kernels are queued
 * on one device timeline and end later (stub_cuda.h). Thread-safe: one
 * lock over the timeline and the events, atomic counters. Events come
 * from a fixed pool, so that those a destroyed context takes with it are
 * not reported as leaks. */
#include "stub_cuda.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The exports are the driver's ABI, looked up by name: no header. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT      __attribute__((visibility("default")))
#define OK          0
#define E_INVALID   1   /* CUDA_ERROR_INVALID_VALUE */
#define E_NOMEM     2   /* CUDA_ERROR_OUT_OF_MEMORY */
#define E_NOTFOUND  500 /* CUDA_ERROR_NOT_FOUND */
#define E_NOTREADY  600 /* CUDA_ERROR_NOT_READY */
#define E_DESTROYED 709 /* CUDA_ERROR_CONTEXT_IS_DESTROYED */
#define STUB_EVENTS 256

struct stub_function {
	int probe; /* baton_probe, else sleep */
};
struct stub_module {
	int probe; /* the image held ".entry baton_probe" */
};
struct stub_event {
	bool used;
	unsigned long long ctx; /* the id of the context it was made in */
	int64_t t_ns;           /* when it completes */
};

struct stub_graph {
	int64_t us;
};
/* A stream: its priority and its kernels' ends (a ring of the last 64). */
#define STUB_STREAMS 64
#define STUB_ENDS    64
struct stub_stream {
	bool used;
	int priority;
	int64_t ends[STUB_ENDS];
	unsigned next_end;
	long launches, max_in_flight;
};

static struct stub_function sleep_fn = {0}, probe_fn = {1};
static struct stub_graph graphs_made[16];
static atomic_int n_graphs;
static struct stub_stream streams[STUB_STREAMS];
static struct stub_stream default_stream, per_thread_stream;
static int prio_least = 0, prio_greatest = -5;
static _Atomic int64_t probe_us;
static atomic_long coop[2], graph_launches[2];
static struct stub_module sleep_mod = {0}, probe_mod = {1};
static atomic_long launches[4], probes, probe_modules, queries, syncs, creates,
    destroys, dead_uses;
static _Atomic(CUstream) last_record_stream;
static atomic_int capturing;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t queue_end_ns;          /* the device's last kernel's end */
static unsigned long long ctx_id = 1; /* the current context's */
static struct stub_event events[STUB_EVENTS];
static int ctx_handle; /* what cuCtxGetCurrent returns: its address */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A time already past returns at once: clock_nanosleep would still
 * take tens of us to come back (bench/be_overhead's cuda mode times
 * it). */
static void sleep_until(int64_t t_ns)
{
	if (t_ns <= now_ns())
		return;
	struct timespec ts = {(time_t)(t_ns / 1000000000LL),
	                      (long)(t_ns % 1000000000LL)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* Under lock: the end of the work queued so far, not before now. */
static int64_t queue_end(void)
{
	int64_t now = now_ns();
	return queue_end_ns > now ? queue_end_ns : now;
}

/* The stream behind a handle; NULL for one the stub did not make. */
static struct stub_stream *stream_of(CUstream s)
{
	if (!s || s == (CUstream)0x1)
		return &default_stream;
	if (s == STUB_STREAM_PER_THREAD)
		return &per_thread_stream;
	struct stub_stream *st = s;
	if (st < streams || st >= streams + STUB_STREAMS || !st->used)
		return NULL;
	return st;
}

/* Queues a kernel of us microseconds on stream s. */
static CUresult queue(CUstream s, int64_t us)
{
	pthread_mutex_lock(&lock);
	struct stub_stream *st = stream_of(s);
	if (!st) {
		pthread_mutex_unlock(&lock);
		return E_INVALID;
	}
	int64_t now = now_ns();
	queue_end_ns = queue_end() + (us > 0 ? us * 1000 : 0);
	st->ends[st->next_end++ % STUB_ENDS] = queue_end_ns;
	long n = 0;
	for (unsigned i = 0; i < STUB_ENDS; i++)
		n += st->ends[i] > now;
	st->launches++;
	if (n > st->max_in_flight)
		st->max_in_flight = n;
	pthread_mutex_unlock(&lock);
	return OK;
}

static CUresult run(atomic_long *count, CUfunction f, CUstream s, void **params)
{
	if (!f)
		return E_INVALID;
	if (f->probe) {
		atomic_fetch_add(&probes, 1);
		int64_t us = atomic_load(&probe_us);
		if (us > 0) {
			pthread_mutex_lock(&lock);
			queue_end_ns = queue_end() + us * 1000;
			pthread_mutex_unlock(&lock);
		}
		return OK;
	}
	if (!params || !params[0])
		return E_INVALID;
	CUresult r = queue(s, *(const int64_t *)params[0]);
	if (r == OK)
		atomic_fetch_add(count, 1);
	return r;
}

/* Under lock: whether e may be used (it is, and its context lives); a
 * use of a dead context's event is counted. */
static bool event_ok(CUevent e)
{
	if (!e || !e->used)
		return false;
	if (e->ctx != ctx_id) {
		atomic_fetch_add(&dead_uses, 1);
		return false;
	}
	return true;
}

EXPORT CUresult cuInit(unsigned flags)
{
	return flags == 0 ? OK : E_INVALID;
}

EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                               unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shm, CUstream s,
                               void **params, void **extra)
{
	return run(&launches[0], f, s, params);
}

EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy,
                                    unsigned gz, unsigned bx, unsigned by,
                                    unsigned bz, unsigned shm, CUstream s,
                                    void **params, void **extra)
{
	return run(&launches[1], f, s ? s : STUB_STREAM_PER_THREAD, params);
}

EXPORT CUresult cuLaunchKernelEx(const stub_launch_config *c, CUfunction f,
                                 void **params, void **extra)
{
	return c ? run(&launches[2], f, c->stream, params) : E_INVALID;
}

EXPORT CUresult cuLaunchKernelEx_ptsz(const stub_launch_config *c, CUfunction f,
                                      void **params, void **extra)
{
	return c ? run(&launches[3], f,
	               c->stream ? c->stream : STUB_STREAM_PER_THREAD, params)
	         : E_INVALID;
}

EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx,
                                          unsigned gy, unsigned gz, unsigned bx,
                                          unsigned by, unsigned bz,
                                          unsigned shm, CUstream s,
                                          void **params)
{
	return run(&coop[0], f, s, params);
}

EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx,
                                               unsigned gy, unsigned gz,
                                               unsigned bx, unsigned by,
                                               unsigned bz, unsigned shm,
                                               CUstream s, void **params)
{
	return run(&coop[1], f, s ? s : STUB_STREAM_PER_THREAD, params);
}

static CUresult graph_launch(int ptsz, CUgraphExec g, CUstream s)
{
	if (!g)
		return E_INVALID;
	CUresult r = queue(ptsz && !s ? STUB_STREAM_PER_THREAD : s, g->us);
	if (r == OK)
		atomic_fetch_add(&graph_launches[ptsz], 1);
	return r;
}

EXPORT CUresult cuGraphLaunch(CUgraphExec g, CUstream s)
{
	return graph_launch(0, g, s);
}

EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec g, CUstream s)
{
	return graph_launch(1, g, s);
}

EXPORT CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest)
{
	pthread_mutex_lock(&lock);
	if (least)
		*least = prio_least;
	if (greatest)
		*greatest = prio_greatest;
	pthread_mutex_unlock(&lock);
	return OK;
}

EXPORT CUresult cuStreamCreateWithPriority(CUstream *s, unsigned flags,
                                           int priority)
{
	if (!s || flags > 1) /* CU_STREAM_DEFAULT, CU_STREAM_NON_BLOCKING */
		return E_INVALID;
	pthread_mutex_lock(&lock);
	/* The driver clamps a priority outside the range to it. */
	int p = priority > prio_least      ? prio_least
	        : priority < prio_greatest ? prio_greatest
	                                   : priority;
	*s = NULL;
	for (int i = 0; i < STUB_STREAMS && !*s; i++)
		if (!streams[i].used) {
			streams[i] =
			    (struct stub_stream){.used = true, .priority = p};
			*s = &streams[i];
		}
	pthread_mutex_unlock(&lock);
	return *s ? OK : E_NOMEM;
}

EXPORT CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
	return cuStreamCreateWithPriority(s, flags, 0);
}

/* The context's SM limit as an MPS client (stub_cuda.h). */
static int sm_limit(void)
{
	static atomic_int limit;
	int n = atomic_load(&limit);
	if (n)
		return n;
	const char *v = getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
	double pct = v && *v ? strtod(v, NULL) : 100.0;
	if (!(pct > 0.0) || pct > 100.0)
		pct = 100.0;
	n = (int)((STUB_SMS * pct + 99.999) / 100.0);
	n = n < 1 ? 1 : n > STUB_SMS ? STUB_SMS : n;
	atomic_store(&limit, n);
	return n;
}

/* cuda.h's CUexecAffinityParam: a type (0: SM count), then the count. */
struct stub_affinity {
	int type;
	unsigned sm_count;
};

EXPORT CUresult cuCtxGetExecAffinity(struct stub_affinity *p, int type)
{
	if (!p || type != 0)
		return E_INVALID;
	p->type = 0;
	p->sm_count = (unsigned)sm_limit();
	return OK;
}

EXPORT CUresult cuCtxGetDevice(int *dev)
{
	if (!dev)
		return E_INVALID;
	*dev = 0;
	return OK;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, int attr, int dev)
{
	if (!v || dev != 0)
		return E_INVALID;
	if (attr != 16) /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
		return E_INVALID;
	*v = STUB_SMS;
	return OK;
}

EXPORT CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	if (!m || !image)
		return E_INVALID;
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
		return E_INVALID;
	if (m->probe ? strcmp(name, "baton_probe") : strcmp(name, "sleep"))
		return E_NOTFOUND;
	*f = m->probe ? &probe_fn : &sleep_fn;
	return OK;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *ctx)
{
	if (!ctx)
		return E_INVALID;
	*ctx = (CUcontext)&ctx_handle;
	return OK;
}

EXPORT CUresult cuCtxGetId(CUcontext ctx, unsigned long long *id)
{
	if (!id || (ctx && ctx != (CUcontext)&ctx_handle))
		return E_INVALID;
	pthread_mutex_lock(&lock);
	*id = ctx_id;
	pthread_mutex_unlock(&lock);
	return OK;
}

EXPORT CUresult cuEventCreate(CUevent *e, unsigned flags)
{
	if (!e || flags > 0xf)
		return E_INVALID;
	pthread_mutex_lock(&lock);
	*e = NULL;
	for (int i = 0; i < STUB_EVENTS && !*e; i++)
		if (!events[i].used) {
			events[i] = (struct stub_event){true, ctx_id, 0};
			*e = &events[i];
		}
	pthread_mutex_unlock(&lock);
	if (!*e)
		return E_NOMEM;
	atomic_fetch_add(&creates, 1);
	return OK;
}

EXPORT CUresult cuEventRecord(CUevent e, CUstream s)
{
	pthread_mutex_lock(&lock);
	bool ok = event_ok(e);
	if (ok)
		e->t_ns = queue_end();
	pthread_mutex_unlock(&lock);
	if (!ok)
		return e && e->used ? E_DESTROYED : E_INVALID;
	atomic_store(&last_record_stream, s);
	return OK;
}

/* When e completes; < 0 if it may not be used. */
static int64_t event_end(CUevent e)
{
	pthread_mutex_lock(&lock);
	int64_t t = event_ok(e) ? e->t_ns : -1;
	pthread_mutex_unlock(&lock);
	return t;
}

EXPORT CUresult cuEventSynchronize(CUevent e)
{
	int64_t t = event_end(e);
	if (t < 0)
		return E_INVALID;
	atomic_fetch_add(&syncs, 1);
	sleep_until(t);
	return OK;
}

EXPORT CUresult cuEventQuery(CUevent e)
{
	int64_t t = event_end(e);
	if (t < 0)
		return E_INVALID;
	atomic_fetch_add(&queries, 1);
	return now_ns() >= t ? OK : E_NOTREADY;
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
	int64_t ta = event_end(a), tb = event_end(b);
	if (!ms || ta < 0 || tb < 0)
		return E_INVALID;
	int64_t now = now_ns();
	if (ta > now || tb > now)
		return E_NOTREADY;
	*ms = (float)((double)(tb - ta) / 1e6);
	return OK;
}

EXPORT CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	return cuEventElapsedTime_v2(ms, a, b);
}

EXPORT CUresult cuEventDestroy_v2(CUevent e)
{
	pthread_mutex_lock(&lock);
	bool ok = event_ok(e);
	if (ok)
		e->used = false;
	pthread_mutex_unlock(&lock);
	if (!ok)
		return E_INVALID;
	atomic_fetch_add(&destroys, 1);
	return OK;
}

EXPORT CUresult cuStreamSynchronize(CUstream s)
{
	pthread_mutex_lock(&lock);
	int64_t t = queue_end_ns;
	pthread_mutex_unlock(&lock);
	sleep_until(t);
	return OK;
}

EXPORT CUresult cuStreamIsCapturing(CUstream s, int *status)
{
	if (!status)
		return E_INVALID;
	*status = atomic_load(&capturing) ? 1 : 0; /* ACTIVE : NONE */
	return OK;
}

static void *find(const char *symbol, int version, uint64_t flags);

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                                    uint64_t flags, int *status)
{
	if (!symbol || !pfn)
		return E_INVALID;
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
	if (!strcmp(symbol, "cuLaunchCooperativeKernel"))
		return ptds ? (void *)cuLaunchCooperativeKernel_ptsz
		            : (void *)cuLaunchCooperativeKernel;
	if (!strcmp(symbol, "cuGraphLaunch"))
		return ptds ? (void *)cuGraphLaunch_ptsz
		            : (void *)cuGraphLaunch;
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
	    {"cuCtxGetCurrent", (void *)cuCtxGetCurrent},
	    {"cuCtxGetId", (void *)cuCtxGetId},
	    {"cuCtxGetStreamPriorityRange",
	     (void *)cuCtxGetStreamPriorityRange},
	    {"cuStreamCreate", (void *)cuStreamCreate},
	    {"cuStreamCreateWithPriority", (void *)cuStreamCreateWithPriority},
	    {"cuStreamIsCapturing", (void *)cuStreamIsCapturing},
	    {"cuCtxGetExecAffinity", (void *)cuCtxGetExecAffinity},
	    {"cuCtxGetDevice", (void *)cuCtxGetDevice},
	    {"cuDeviceGetAttribute", (void *)cuDeviceGetAttribute},
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
	for (int i = 0; i < 2; i++) {
		out->coop[i] = atomic_load(&coop[i]);
		out->graphs[i] = atomic_load(&graph_launches[i]);
	}
	out->probes = atomic_load(&probes);
	out->probe_modules = atomic_load(&probe_modules);
	out->queries = atomic_load(&queries);
	out->syncs = atomic_load(&syncs);
	out->creates = atomic_load(&creates);
	out->destroys = atomic_load(&destroys);
	out->dead_uses = atomic_load(&dead_uses);
	out->last_record_stream = atomic_load(&last_record_stream);
}

EXPORT void stub_cuda_capturing(int on)
{
	atomic_store(&capturing, on);
}

/* The current context destroyed (its events with it, the pool's slots
 * kept: a driver frees them, the program's handles are dead) and a new
 * one made current at the same handle. */
EXPORT void stub_cuda_new_context(void)
{
	pthread_mutex_lock(&lock);
	ctx_id++;
	pthread_mutex_unlock(&lock);
}

EXPORT int stub_cuda_stream_info(CUstream s, struct stub_cuda_stream *out)
{
	pthread_mutex_lock(&lock);
	struct stub_stream *st = stream_of(s);
	if (st)
		*out = (struct stub_cuda_stream){st->priority, st->launches,
		                                 st->max_in_flight};
	pthread_mutex_unlock(&lock);
	return st ? 0 : -1;
}

EXPORT void stub_cuda_priority_range(int least, int greatest)
{
	pthread_mutex_lock(&lock);
	prio_least = least;
	prio_greatest = greatest;
	pthread_mutex_unlock(&lock);
}

/* A graph whose launch is one kernel of us microseconds. */
EXPORT CUgraphExec stub_cuda_graph(int64_t us)
{
	int i = atomic_fetch_add(&n_graphs, 1);
	if (i >= 16)
		return NULL;
	graphs_made[i].us = us;
	return &graphs_made[i];
}

EXPORT void stub_cuda_probe_us(int64_t us)
{
	atomic_store(&probe_us, us);
}
