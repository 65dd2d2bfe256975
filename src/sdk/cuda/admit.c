/* The CUDA gate's batches (gate.h): the SDK's windows turned into
 * permissions for asynchronous launches, with no lock on the launch
 * path while a window is open.
 *
 * One window of the SDK (baton_be_next, under batond's control block or
 * GPU grid's probe loop) is one batch: a task whose blocks are launches,
 * sized by the SDK's fit of a launch's device time (one kernel id for all
 * of the program's launches: the fit learns their mean), so the count
 * it gives is the number of launches that fill the window. The batch's
 * launches take their places with one compare-and-swap on admit_word
 * (generation and places left) and go to the driver at once
 * (window.c); the batch closes when its places are taken or its window's
 * length has passed since it opened, and is reported (baton_be_done,
 * one BATON_FRAME_BE record: its launches as blocks, their summed event
 * times as its device time) once every launch in it has ended. The rest
 * the SDK asks after a sub-launch then follows the batch.
 *
 * sdk_lock guards the SDK's handle: it is taken only where no batch is
 * open, to report the last one and wait for the next window, which every
 * launching thread then waits for anyway. A program that stops launching
 * leaves its last batch to the reaper, a thread that reports it shortly
 * after its window, so that batond never sees a finished batch as a
 * sub-launch still in flight. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "sdk/be_internal.h"
#include "sdk/cuda/gate.h"

/* The fit's kernel id for every launch of the program. */
#define BATCH_KERNEL 0x0ba7c4u
/* The most launches one window admits. */
#define BATCH_MAX 1024
/* The reaper reports an idle program's batch this long after its
 * window (a launching thread usually does it first). */
#define REAP_AFTER_NS 2000000LL

static pthread_mutex_t sdk_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reap_cv;
static baton_be *gate_be;
static bool opened, gate_off, reaper_on;

/* The open batch, under sdk_lock. */
static uint32_t batch_gen;
static bool batch_out;
static int64_t batch_off, batch_count;

/* Lock-free, for the launching threads: the open batch's generation
 * (high 32 bits) and places left (low), and when it closes. */
static _Atomic uint64_t admit_word;
static _Atomic int64_t close_ns;

/* Each batch's tally as its launches end, by generation parity: a batch
 * opens only once the one before it has settled. */
static struct tally {
	atomic_long settled, failed, untimed;
	_Atomic int64_t device_ns;
} tally[2];

static bool try_admit(uint32_t *gen)
{
	uint64_t w = atomic_load_explicit(&admit_word, memory_order_acquire);
	for (;;) {
		if ((uint32_t)w == 0 ||
		    be_now_ns() >=
		        atomic_load_explicit(&close_ns, memory_order_relaxed))
			return false;
		if (atomic_compare_exchange_weak_explicit(
		        &admit_word, &w, w - 1, memory_order_acq_rel,
		        memory_order_acquire)) {
			*gen = (uint32_t)(w >> 32);
			return true;
		}
	}
}

void cu_settle(uint32_t gen, int64_t ns)
{
	struct tally *t = &tally[gen & 1u];
	if (ns == CU_FAILED)
		atomic_fetch_add(&t->failed, 1);
	else if (ns < 0)
		atomic_fetch_add(&t->untimed, 1);
	else
		atomic_fetch_add(&t->device_ns, ns);
	atomic_fetch_add_explicit(&t->settled, 1, memory_order_release);
}

long cu_settled(uint32_t gen)
{
	return atomic_load_explicit(&tally[gen & 1u].settled,
	                            memory_order_acquire);
}

/* Under sdk_lock: closes the open batch, waits for its launches' ends
 * and reports it. */
static void finish_batch(void)
{
	if (!batch_out)
		return;
	batch_out = false;
	uint64_t old = atomic_exchange(&admit_word, (uint64_t)batch_gen << 32);
	long left =
	    (uint32_t)(old >> 32) == batch_gen ? (long)(uint32_t)old : 0;
	long admitted = (long)batch_count - left;
	/* A thread between its place and its launch settles soon after:
	 * drain again until every admitted launch has. */
	while (cu_settled(batch_gen) < admitted) {
		cu_window_drain(batch_gen);
		if (cu_settled(batch_gen) < admitted)
			be_sleep_until(be_now_ns() + 20000);
	}
	struct tally *t = &tally[batch_gen & 1u];
	long ran = admitted - atomic_load(&t->failed);
	if (ran <= 0) {
		/* Nothing ran: abandoning the task clears the stamp the
		 * stuck rule reads. */
		baton_be_task_begin(gate_be, BATCH_KERNEL, 1);
		return;
	}
	int64_t ns = atomic_load(&t->untimed) > 0 ? -1 /* the wall time */
	                                          : atomic_load(&t->device_ns);
	baton_be_done(gate_be, batch_off, ran, ns);
}

static void reap_deadline(struct timespec *ts)
{
	int64_t t = batch_out ? atomic_load(&close_ns) + REAP_AFTER_NS
	                      : be_now_ns() + 1000000000LL;
	ts->tv_sec = (time_t)(t / 1000000000LL);
	ts->tv_nsec = (long)(t % 1000000000LL);
}

static void *reaper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&sdk_lock);
	for (;;) {
		if (batch_out &&
		    be_now_ns() >= atomic_load(&close_ns) + REAP_AFTER_NS)
			finish_batch();
		struct timespec ts;
		reap_deadline(&ts);
		pthread_cond_timedwait(&reap_cv, &sdk_lock, &ts);
	}
	return NULL;
}

static void start_reaper(void)
{
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&reap_cv, &a);
	pthread_condattr_destroy(&a);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_t t;
	reaper_on = pthread_create(&t, &attr, reaper, NULL) == 0;
	pthread_attr_destroy(&attr);
	if (!reaper_on)
		be_log(BE_LOG_CALL,
		       "no reaper thread (%d): an idle program's "
		       "last batch is reported at its next "
		       "launch",
		       errno);
}

static void child_forgets(void)
{
	cu_admit_forget();
}

/* Under sdk_lock, at the first launch: the client, from the environment
 * `baton run --be` sets. */
static void gate_open(void)
{
	static bool atfork;
	if (!atfork)
		pthread_atfork(NULL, NULL, child_forgets);
	atfork = true;
	opened = true;
	if (be_gate_open("CUDA", "BATON_CUDA_MAX_WAIT_MS", cu_gate_probe, false,
	                 cu_space_fits(), &gate_be) != BATON_OK) {
		gate_off = true;
		return;
	}
	start_reaper();
}

/* Under sdk_lock, no batch open: the next window, as a batch whose
 * first place is the caller's. */
static enum cu_admit open_batch(const struct launch *l, uint32_t *gen)
{
	cu_probe_stream_set(cu_launch_stream(l));
	if (baton_be_task_begin(gate_be, BATCH_KERNEL, BATCH_MAX) != 0)
		return CU_ADMIT_ALONE;
	int64_t off = 0, count = 1;
	/* < 0: no window within the bound (the SDK logged it): this one
	 * launch goes now, unreported. */
	if (baton_be_next(gate_be, &off, &count) <= 0 || count < 1)
		return CU_ADMIT_ALONE;
	batch_gen++;
	struct tally *t = &tally[batch_gen & 1u];
	atomic_store(&t->settled, 0);
	atomic_store(&t->failed, 0);
	atomic_store(&t->untimed, 0);
	atomic_store(&t->device_ns, 0);
	batch_off = off;
	batch_count = count;
	batch_out = true;
	int64_t window = gate_be->window_ns > 0 ? gate_be->window_ns : 0;
	atomic_store(&close_ns, be_now_ns() + window);
	atomic_store_explicit(&admit_word,
	                      (uint64_t)batch_gen << 32 | (uint64_t)(count - 1),
	                      memory_order_release);
	if (reaper_on)
		pthread_cond_signal(&reap_cv);
	*gen = batch_gen;
	return CU_ADMIT_BATCH;
}

enum cu_admit cu_admit(const struct launch *l, uint32_t *gen)
{
	if (try_admit(gen))
		return CU_ADMIT_BATCH;
	pthread_mutex_lock(&sdk_lock);
	if (!opened)
		gate_open();
	enum cu_admit r;
	if (gate_off) {
		r = CU_ADMIT_OFF;
	} else if (try_admit(gen)) {
		r = CU_ADMIT_BATCH; /* another thread opened one */
	} else {
		finish_batch();
		r = open_batch(l, gen);
	}
	pthread_mutex_unlock(&sdk_lock);
	return r;
}

/* A fork child must not report into its parent's memfd nor hold its
 * connection, and has none of its threads: it opens its own client at
 * its first launch. */
void cu_admit_forget(void)
{
	if (gate_be)
		be_conn_close(gate_be); /* close(2) only */
	gate_be = NULL;
	opened = gate_off = reaper_on = batch_out = false;
	atomic_store(&admit_word, 0);
	cu_probe_forget();
	cu_window_forget();
	pthread_mutex_init(&sdk_lock, NULL);
}
