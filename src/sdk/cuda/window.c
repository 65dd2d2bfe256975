/* Each stream's launches in flight (gate.h, cu_window_launch): the
 * asynchronous half of the gate.
 *
 * A stream's state is a slot of a fixed table, found by a hash of the
 * context's id (cuCtxGetId), the stream's handle and, for the per-thread
 * default stream, the thread: claimed with a compare-and-swap, then
 * used under the slot's own lock, so that threads launching into
 * different streams share no lock. A slot holds a ring of up to
 * cu_window_size() launches in flight, each between two events of the
 * slot's (made once, in the slot's context, and reused): a launch first
 * reads the ends of the stream's earlier launches (cuEventQuery, never
 * waiting), waits for the oldest one's end only when the ring is full
 * (the bound on best-effort work queued ahead of the games), records its
 * start event, launches and records its end event. An ended launch's
 * time (cuEventElapsedTime) is settled into its batch (admit.c).
 *
 * A destroyed context takes its events with it; its slots keep their
 * place, never used again (their id never comes back). With every slot
 * taken, or a driver without cuCtxGetId (before 12.0), a launch goes
 * synchronously between two events of its own (cu_timed_launch). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sdk/be_internal.h"
#include "sdk/cuda/gate.h"

#define STREAM_SLOTS     64
#define INFLIGHT_MAX     64
#define INFLIGHT_DEFAULT 4

typedef CUresult (*ctx_id_fn)(CUcontext, unsigned long long *);

struct in_flight {
	uint32_t gen;        /* its batch */
	int64_t launched_ns; /* when its call returned */
};

struct stream_slot {
	_Atomic uint64_t key; /* 0: free */
	pthread_mutex_t lock;
	bool ready, broken; /* events made; could not be */
	unsigned long long ctx;
	CUstream stream;
	long tid; /* the per-thread stream's thread, else 0 */
	CUevent start[INFLIGHT_MAX], end[INFLIGHT_MAX];
	struct in_flight q[INFLIGHT_MAX];
	unsigned head, n;
	int64_t last_ns; /* the last ended launch's device time */
};

static struct stream_slot slots[STREAM_SLOTS];
static unsigned window_size;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_once(void)
{
	for (size_t i = 0; i < STREAM_SLOTS; i++)
		pthread_mutex_init(&slots[i].lock, NULL);
	window_size = INFLIGHT_DEFAULT;
	const char *v = getenv("BATON_CUDA_INFLIGHT");
	if (v && *v) {
		char *end;
		long n = strtol(v, &end, 10);
		if (*end || n < 1 || n > INFLIGHT_MAX)
			be_log(BE_LOG_CALL,
			       "BATON_CUDA_INFLIGHT: '%s' is not a count from "
			       "1 to %d; using %d",
			       v, INFLIGHT_MAX, INFLIGHT_DEFAULT);
		else
			window_size = (unsigned)n;
	}
}

unsigned cu_window_size(void)
{
	pthread_once(&once, init_once);
	return window_size;
}

bool cu_ctx_id(unsigned long long *id)
{
	ctx_id_fn ctx_id = (ctx_id_fn)cu_real(CU_CTX_ID);
	/* NULL: the current context */
	return ctx_id && ctx_id(NULL, id) == CUDA_SUCCESS;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 1099511628211ull; /* FNV-1a, 64 bits */
	return h;
}

/* The slot of the launch's stream, claimed if new (its fields are set
 * under its lock: slot_ready); NULL with the table full or no id. */
static struct stream_slot *slot_find(CUstream s, unsigned long long *ctx,
                                     long *tid)
{
	if (!cu_ctx_id(ctx))
		return NULL;
	*tid = s == CU_STREAM_PER_THREAD ? (long)syscall(SYS_gettid) : 0;
	uint64_t key =
	    mix(mix(mix(14695981039346656037ull, *ctx), (uint64_t)(uintptr_t)s),
	        (uint64_t)*tid);
	key = key ? key : 1;
	for (size_t i = 0; i < STREAM_SLOTS; i++) {
		struct stream_slot *sl = &slots[(key + i) % STREAM_SLOTS];
		uint64_t k = atomic_load(&sl->key);
		if (k == key)
			return sl;
		if (k == 0 && atomic_compare_exchange_strong(&sl->key, &k, key))
			return sl;
		if (k == key)
			return sl; /* another thread claimed it for us */
	}
	return NULL;
}

/* Under the slot's lock: whether it is this stream's, with its events
 * made (on its first use, in the current context: the stream's). */
static bool slot_ready(struct stream_slot *sl, CUstream s,
                       unsigned long long ctx, long tid)
{
	if (sl->ready)
		return sl->ctx == ctx && sl->stream == s && sl->tid == tid;
	if (sl->broken)
		return false;
	sl->ctx = ctx;
	sl->stream = s;
	sl->tid = tid;
	cu_event_create_fn create =
	    (cu_event_create_fn)cu_real(CU_EVENT_CREATE);
	cu_event_fn destroy = (cu_event_fn)cu_real(CU_EVENT_DESTROY);
	unsigned n = cu_window_size(), made = 0;
	for (; create && destroy && made < n; made++)
		/* The end's wait may end blocked (cu_wait_end). */
		if (create(&sl->start[made], CU_EVENT_DEFAULT) != CUDA_SUCCESS)
			break;
		else if (create(&sl->end[made], CU_EVENT_BLOCKING_SYNC) !=
		         CUDA_SUCCESS) {
			destroy(sl->start[made]);
			break;
		}
	if (made < n) {
		while (made > 0) {
			made--;
			destroy(sl->start[made]);
			destroy(sl->end[made]);
		}
		sl->broken = true;
		return false;
	}
	sl->ready = true;
	return true;
}

/* Under the slot's lock: settles the oldest launch in flight, ended
 * (or failed: its context gone, say). */
static void retire_oldest(struct stream_slot *sl)
{
	cu_event_elapsed_fn elapsed =
	    (cu_event_elapsed_fn)cu_real(CU_EVENT_ELAPSED);
	unsigned i = sl->head;
	float ms;
	int64_t ns = CU_UNTIMED;
	if (elapsed && elapsed(&ms, sl->start[i], sl->end[i]) == CUDA_SUCCESS &&
	    ms >= 0.0f) {
		ns = (int64_t)((double)ms * 1e6);
		sl->last_ns = ns;
	}
	uint32_t gen = sl->q[i].gen;
	sl->head = (sl->head + 1) % cu_window_size();
	sl->n--;
	cu_settle(gen, ns);
}

/* Under the slot's lock: settles the launches that have ended, oldest
 * first; with wait, waits for those of batch gen too. */
static void retire(struct stream_slot *sl, bool wait, uint32_t gen)
{
	cu_event_fn query = (cu_event_fn)cu_real(CU_EVENT_QUERY);
	while (sl->n > 0) {
		struct in_flight *f = &sl->q[sl->head];
		CUresult r =
		    query ? query(sl->end[sl->head]) : CUDA_ERROR_NOT_READY;
		if (r == CUDA_ERROR_NOT_READY) {
			if (!wait || f->gen != gen)
				return;
			r = cu_wait_end(sl->end[sl->head], f->launched_ns,
			                sl->last_ns > 0 ? sl->last_ns : -1);
		}
		(void)r; /* ended or failed: settled either way */
		retire_oldest(sl);
	}
}

/* Under the slot's lock: the launch, between the next pair of events. */
static CUresult launch_in(struct stream_slot *sl, const struct launch *l,
                          CUstream s, uint32_t gen)
{
	cu_event_record_fn record =
	    (cu_event_record_fn)cu_real(CU_EVENT_RECORD);
	retire(sl, false, 0);
	if (sl->n >= cu_window_size()) {
		/* The bound: the oldest launch's end first. */
		struct in_flight *f = &sl->q[sl->head];
		cu_wait_end(sl->end[sl->head], f->launched_ns,
		            sl->last_ns > 0 ? sl->last_ns : -1);
		retire_oldest(sl);
	}
	unsigned i = (sl->head + sl->n) % cu_window_size();
	bool timed = record && record(sl->start[i], s) == CUDA_SUCCESS;
	CUresult ret = cu_call_real(l);
	if (ret != CUDA_SUCCESS) {
		cu_settle(gen, CU_FAILED);
		return ret;
	}
	if (!timed || record(sl->end[i], s) != CUDA_SUCCESS) {
		cu_stream_fn ssync = (cu_stream_fn)cu_real(CU_STREAM_SYNC);
		if (ssync)
			ssync(s); /* untimed: synchronous, as the fallback */
		cu_settle(gen, CU_UNTIMED);
		return ret;
	}
	sl->q[i] = (struct in_flight){gen, be_now_ns()};
	sl->n++;
	return ret;
}

CUresult cu_window_launch(const struct launch *l, uint32_t gen)
{
	pthread_once(&once, init_once);
	CUstream s = cu_launch_stream(l);
	unsigned long long ctx;
	long tid;
	struct stream_slot *sl = slot_find(s, &ctx, &tid);
	if (sl) {
		pthread_mutex_lock(&sl->lock);
		if (slot_ready(sl, s, ctx, tid)) {
			CUresult r = launch_in(sl, l, s, gen);
			pthread_mutex_unlock(&sl->lock);
			return r;
		}
		pthread_mutex_unlock(&sl->lock);
	}
	int64_t ns;
	CUresult r = cu_timed_launch(l, &ns);
	cu_settle(gen, r != CUDA_SUCCESS ? CU_FAILED
	               : ns >= 0         ? ns
	                                 : CU_UNTIMED);
	return r;
}

void cu_window_drain(uint32_t gen)
{
	pthread_once(&once, init_once);
	for (size_t i = 0; i < STREAM_SLOTS; i++) {
		struct stream_slot *sl = &slots[i];
		if (!atomic_load(&sl->key))
			continue;
		pthread_mutex_lock(&sl->lock);
		if (sl->ready)
			retire(sl, true, gen);
		pthread_mutex_unlock(&sl->lock);
	}
}

/* In a fork child: the parent's contexts are not the child's, and a
 * lock another thread held at the fork is held forever. */
void cu_window_forget(void)
{
	memset(slots, 0, sizeof(slots));
	for (size_t i = 0; i < STREAM_SLOTS; i++)
		pthread_mutex_init(&slots[i].lock, NULL);
}
