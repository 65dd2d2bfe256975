/* The CUDA launch gate (src/sdk/cuda/), preloaded into this test as into
 * an unmodified program, on the stub driver (stub_cuda.c as libcuda.so.1
 * on LD_LIBRARY_PATH), against the fake batond. The test reaches the
 * driver as the CUDA runtime does: dlopen("libcuda.so.1") RTLD_LOCAL,
 * dlsym(handle, "cuGetProcAddress_v2"), then every entry point by name.
 * It checks:
 * - lookups: dlsym on the handle and cuGetProcAddress (both forms, legacy
 *   and per-thread) give the gate's launch, graph, cooperative, stream
 *   and lookup functions, any other name the driver's own; RTLD_NEXT
 *   still means "after the caller";
 * - registered with no window: a launch goes after BATON_CUDA_MAX_WAIT_MS
 *   with a log line, unreported;
 * - a window: the launch returns before its kernel ends (asynchronous),
 *   and its batch's record carries the kernel's event time;
 * - a shut window holds a launch (another thread) until it opens;
 * - the _ptsz, Ex, cooperative and graph forms are gated and reported;
 * - the asynchronous window: launches into one stream return at once
 *   until BATON_CUDA_INFLIGHT of them are in flight, never more;
 * - streams the program creates get the least priority the context
 *   reports, whatever it asked;
 * - eight threads launching at once into streams of their own: every
 *   launch reported once, each stream's bound kept;
 * - a launch the driver refuses: its error, no record, nothing left
 *   stamped in flight;
 * - a launch into a capturing stream goes at once, ungated;
 * - batond gone: the probe loop, never running free (a busy device keeps
 *   the loop periodical: the launches' device time stays well under the
 *   wall time), and never a batond (a fork child) the same. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_batond.h"
#include "stub_cuda.h"

#define MS         1000000LL
#define WAIT_MS    1000 /* BATON_CUDA_MAX_WAIT_MS: well above the 100 ms hold */
#define INFLIGHT   3    /* BATON_CUDA_INFLIGHT */
#define FLAG_BE    4u   /* BATON_FRAME_BE */
#define PER_THREAD STUB_PER_THREAD_FLAG

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__,       \
			        __LINE__, #c);                                 \
			exit(1);                                               \
		}                                                              \
	} while (0)

typedef CUresult (*gpa2_fn)(const char *, void **, int, uint64_t, int *);
typedef CUresult (*gpa_fn)(const char *, void **, int, uint64_t);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned,
                              unsigned, unsigned, unsigned, unsigned, CUstream,
                              void **, void **);
typedef CUresult (*launch_ex_fn)(const stub_launch_config *, CUfunction,
                                 void **, void **);
typedef CUresult (*coop_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                            unsigned, unsigned, unsigned, CUstream, void **);
typedef CUresult (*graph_fn)(CUgraphExec, CUstream);
typedef CUresult (*stream_create_fn)(CUstream *, unsigned);
typedef CUresult (*stream_create_prio_fn)(CUstream *, unsigned, int);
typedef CUresult (*stream_sync_fn)(CUstream);
typedef CUresult (*load_fn)(CUmodule *, const void *);
typedef CUresult (*get_fn)(CUfunction *, CUmodule, const char *);

static gpa2_fn gpa2;
static stub_cuda_counts_fn counts;
static stub_cuda_new_context_fn new_context;
static CUfunction kernel;
static stub_cuda_stream_info_fn stream_info;
static stream_create_fn stream_create;
static stream_sync_fn stream_sync;
static struct fake_batond *bd;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The file of the object holding p. */
static const char *where(const void *p)
{
	Dl_info di;
	return p && dladdr(p, &di) && di.dli_fname ? di.dli_fname : "(none)";
}

static bool in_gate(const void *p)
{
	return strstr(where(p), "libbaton_cuda.so") != NULL;
}

static bool in_stub(const void *p)
{
	return strstr(where(p), "libcuda.so") != NULL;
}

static void *proc(const char *name, int version, uint64_t flags)
{
	void *p = NULL;
	int st = -1;
	CHECK(gpa2(name, &p, version, flags, &st) == 0);
	if (st != 0)
		fprintf(stderr, "the driver has no %s\n", name);
	CHECK(st == 0);
	return p;
}

static long launched(void)
{
	struct stub_cuda_counts c;
	counts(&c);
	return c.launches[0] + c.launches[1] + c.launches[2] + c.launches[3] +
	       c.coop[0] + c.coop[1] + c.graphs[0] + c.graphs[1];
}

/* The launches reported so far: the blocks of the gate's records (the
 * ring header's running total, which batond counts from). */
static uint64_t reported(void)
{
	return atomic_load(&bd->shm.ring->be_blocks_total);
}

/* Waits up to 2 s for the reported launches to reach want. */
static bool reported_reach(uint64_t want)
{
	for (int i = 0; i < 2000 && reported() < want; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return reported() == want;
}

/* A launch of the sleep kernel through fn (the gate's cuLaunchKernel or
 * _ptsz) for us microseconds; the call's wall time in *wall_ns. */
static CUresult launch_us(launch_fn fn, int64_t us, CUstream s,
                          int64_t *wall_ns)
{
	void *params[] = {&us};
	int64_t t0 = now_ns();
	CUresult r = fn(kernel, 1, 1, 1, 32, 1, 1, 0, s, params, NULL);
	if (wall_ns)
		*wall_ns = now_ns() - t0;
	return r;
}

/* The lookups, before any launch. */
static void check_lookups(void *h)
{
	gpa_fn gpa1 = (gpa_fn)dlsym(h, "cuGetProcAddress");
	CHECK(in_gate((void *)gpa2) && in_gate((void *)gpa1));
	const char *gated[] = {"cuLaunchKernel",
	                       "cuLaunchKernelEx_ptsz",
	                       "cuLaunchCooperativeKernel",
	                       "cuLaunchCooperativeKernel_ptsz",
	                       "cuGraphLaunch",
	                       "cuGraphLaunch_ptsz",
	                       "cuStreamCreate",
	                       "cuStreamCreateWithPriority"};
	for (size_t i = 0; i < sizeof(gated) / sizeof(gated[0]); i++) {
		CHECK(in_gate(dlsym(h, gated[i])));
		/* cuGetProcAddress takes the base names only */
		if (!strstr(gated[i], "_ptsz"))
			CHECK(in_gate(proc(gated[i], 13000, 0)));
	}
	CHECK(in_stub(dlsym(h, "cuEventCreate")));
	CHECK(dlsym(h, "cuNoSuchFunction") == NULL && dlerror() != NULL);

	void *legacy = proc("cuLaunchKernel", 13000, 0);
	void *ptsz = proc("cuLaunchKernel", 13000, PER_THREAD);
	CHECK(in_gate(legacy) && in_gate(ptsz) && legacy != ptsz);
	CHECK(proc("cuGraphLaunch", 13000, PER_THREAD) ==
	      dlsym(h, "cuGraphLaunch_ptsz"));
	CHECK(proc("cuLaunchCooperativeKernel", 13000, PER_THREAD) ==
	      dlsym(h, "cuLaunchCooperativeKernel_ptsz"));
	/* The global scope finds the preload first, as a linked program. */
	CHECK(legacy == dlsym(RTLD_DEFAULT, "cuLaunchKernel"));
	CHECK(in_gate(proc("cuLaunchKernelEx", 13000, 0)));
	CHECK(proc("cuGetProcAddress", 13000, 0) == (void *)gpa2);
	CHECK(proc("cuGetProcAddress", 11030, 0) == (void *)gpa1);
	CHECK(in_stub(proc("cuEventRecord", 13000, 0)));
	void *p = (void *)1;
	CHECK(gpa1("cuLaunchKernel", &p, 12000, PER_THREAD) == 0);
	CHECK(p == ptsz);

	/* The gate's dlsym keeps the caller: from here, the next dlsym
	 * after this program is the gate's own, not glibc's. */
	CHECK(in_gate(dlsym(RTLD_NEXT, "dlsym")));
	CHECK(dlsym(RTLD_NEXT, "fopen") != NULL);
}

/* Runs fn with stderr sent to a file; whether its text holds want. */
static bool stderr_has(void (*fn)(void), const char *want)
{
	char path[] = "/tmp/baton-cuda-err-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	CHECK(saved >= 0 && dup2(fd, 2) == 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char buf[4096] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	unlink(path);
	buf[n > 0 ? n : 0] = '\0';
	fputs(buf, stderr);
	return strstr(buf, want) != NULL;
}

static launch_fn gated_launch;

/* Checked after stderr is back: a failed CHECK here would print into the
 * file. */
static CUresult first_r;
static int64_t first_wall;
static long first_count;

static void first_launch(void)
{
	long before = launched();
	first_r = launch_us(gated_launch, 5000, NULL, &first_wall);
	first_count = launched() - before;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

/* A window: the launch returns before its kernel ends, and the batch's
 * record has the kernel's event time once it has ended. */
static void check_async_record(void)
{
	struct baton_frame rec[64];
	fake_batond_control(bd, 50 * MS, 1000000000u, false);
	int64_t wall, t0 = now_ns();
	CHECK(launch_us(gated_launch, 20000, NULL, &wall) == 0);
	CHECK(wall < 20 * MS);
	CHECK(stream_sync(NULL) == 0);
	int n = 0;
	for (int i = 0; i < 1000 && n == 0; i++, sleep_ms(1))
		n = fake_batond_records(bd, rec, 64);
	int64_t span = now_ns() - t0;
	fprintf(stderr, "20 ms kernel: call %lld us, record gpu_ns %lld\n",
	        (long long)(wall / 1000), (long long)rec[0].gpu_ns);
	CHECK(n == 1);
	CHECK(rec[0].flags == FLAG_BE && rec[0].cpu_ns == 1);
	CHECK(rec[0].gpu_ns >= 20 * MS && rec[0].gpu_ns <= span);
}

struct held {
	CUresult r;
	int64_t end_ns; /* when the launch returned */
};

static void *held_launch(void *arg)
{
	struct held *h = arg;
	h->r = launch_us(gated_launch, 1000, NULL, NULL);
	h->end_ns = now_ns();
	return NULL;
}

/* Shut: a launch from another thread is held until it opens. */
static void check_held(void)
{
	fake_batond_control(bd, 0, 1000000000u, false);
	sleep_ms(60); /* the last batch's window has passed */
	uint64_t r0 = reported();
	long before = launched();
	struct held hl;
	pthread_t t;
	CHECK(pthread_create(&t, NULL, held_launch, &hl) == 0);
	sleep_ms(100);
	CHECK(launched() == before);
	int64_t opened = now_ns();
	fake_batond_control(bd, 50 * MS, 1000000000u, false);
	pthread_join(t, NULL);
	CHECK(hl.r == 0 && launched() == before + 1);
	/* held until the window opened (not "100 ms from its own start":
	 * the thread may start late on a busy machine) */
	CHECK(hl.end_ns >= opened);
	/* reported: it went in the window, not at the bound */
	CHECK(reported_reach(r0 + 1));
}

/* The other forms: gated, in flight on the stream they used, reported. */
static void check_forms(void *h)
{
	launch_fn ptsz = (launch_fn)proc("cuLaunchKernel", 13000, PER_THREAD);
	launch_ex_fn ex = (launch_ex_fn)proc("cuLaunchKernelEx", 13000, 0);
	launch_ex_fn ex_ptsz =
	    (launch_ex_fn)proc("cuLaunchKernelEx", 13000, PER_THREAD);
	coop_fn coop = (coop_fn)proc("cuLaunchCooperativeKernel", 13000, 0);
	coop_fn coop_ptsz =
	    (coop_fn)proc("cuLaunchCooperativeKernel", 13000, PER_THREAD);
	graph_fn graph = (graph_fn)proc("cuGraphLaunch", 13000, 0);
	graph_fn graph_ptsz =
	    (graph_fn)proc("cuGraphLaunch", 13000, PER_THREAD);
	stub_cuda_graph_fn make_graph =
	    (stub_cuda_graph_fn)dlsym(h, "stub_cuda_graph");
	CHECK(make_graph);
	CUgraphExec g = make_graph(1000);
	fake_batond_control(bd, 100 * MS, 1000000000u, true);
	uint64_t r0 = reported();
	struct stub_cuda_counts c0, c1;
	counts(&c0);
	int64_t us = 1000;
	void *params[] = {&us};
	stub_launch_config cfg = {{1, 1, 1}, {32, 1, 1}, 0, NULL, NULL, 0};
	CHECK(launch_us(ptsz, 1000, NULL, NULL) == 0);
	CHECK(ex(&cfg, kernel, params, NULL) == 0);
	CHECK(ex_ptsz(&cfg, kernel, params, NULL) == 0);
	CHECK(coop(kernel, 1, 1, 1, 32, 1, 1, 0, NULL, params) == 0);
	CHECK(coop_ptsz(kernel, 1, 1, 1, 32, 1, 1, 0, NULL, params) == 0);
	CHECK(graph(g, NULL) == 0);
	CHECK(graph_ptsz(g, NULL) == 0);
	counts(&c1);
	CHECK(c1.launches[1] == c0.launches[1] + 1);
	CHECK(c1.launches[2] == c0.launches[2] + 1);
	CHECK(c1.launches[3] == c0.launches[3] + 1);
	CHECK(c1.coop[0] == c0.coop[0] + 1 && c1.coop[1] == c0.coop[1] + 1);
	CHECK(c1.graphs[0] == c0.graphs[0] + 1);
	CHECK(c1.graphs[1] == c0.graphs[1] + 1);
	/* timed on the per-thread stream, where the _ptsz forms went */
	struct stub_cuda_stream st;
	CHECK(stream_info(STUB_STREAM_PER_THREAD, &st) == 0 &&
	      st.launches >= 3);
	CHECK(reported_reach(r0 + 7));
}

/* The asynchronous window on one stream the program made: launches
 * return at once until INFLIGHT are in flight; never more. */
static void check_window(void)
{
	fake_batond_control(bd, 200 * MS, 1000000000u, true);
	CUstream s;
	CHECK(stream_create(&s, 0) == 0);
	uint64_t r0 = reported();
	int64_t wall[12];
	for (int i = 0; i < 12; i++)
		CHECK(launch_us(gated_launch, 3000, s, &wall[i]) == 0);
	struct stub_cuda_stream st;
	CHECK(stream_info(s, &st) == 0);
	fprintf(stderr,
	        "12 x 3 ms on one stream: calls %lld, %lld, %lld us ... "
	        "%lld us; at most %ld in flight\n",
	        (long long)wall[0] / 1000, (long long)wall[1] / 1000,
	        (long long)wall[2] / 1000, (long long)wall[11] / 1000,
	        st.max_in_flight);
	CHECK(st.launches == 12);
	CHECK(st.max_in_flight == INFLIGHT);
	/* the first INFLIGHT went at once; the next waited for an end */
	for (int i = 0; i < INFLIGHT; i++)
		CHECK(wall[i] < 2 * MS);
	CHECK(wall[INFLIGHT] >= 1 * MS);
	CHECK(reported_reach(r0 + 12));
}

/* Streams the program makes run at the least priority. */
static void check_priorities(void *h)
{
	stream_create_prio_fn with_prio =
	    (stream_create_prio_fn)proc("cuStreamCreateWithPriority", 13000, 0);
	stub_cuda_priority_range_fn range =
	    (stub_cuda_priority_range_fn)dlsym(h, "stub_cuda_priority_range");
	CHECK(range);
	CUstream a, b2, c;
	struct stub_cuda_stream st;
	CHECK(with_prio(&a, 0, -5) == 0); /* the greatest, on [0, -5] */
	CHECK(stream_info(a, &st) == 0 && st.priority == 0);
	range(2, -3); /* a device whose least is not 0 */
	CHECK(stream_create(&b2, 0) == 0);
	CHECK(stream_info(b2, &st) == 0 && st.priority == 2);
	CHECK(with_prio(&c, 1, -3) == 0);
	CHECK(stream_info(c, &st) == 0 && st.priority == 2);
	range(0, -5);
}

struct worker {
	CUstream s;
	int fails;
};

#define THREADS         8
#define THREAD_LAUNCHES 30

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	if (stream_create(&w->s, 0) != 0)
		w->fails++;
	for (int i = 0; i < THREAD_LAUNCHES; i++)
		w->fails += launch_us(gated_launch, 200, w->s, NULL) != 0;
	return NULL;
}

/* Eight threads launching at once: every launch goes and is reported
 * once, and each stream keeps its bound. */
static void check_threads(void)
{
	fake_batond_control(bd, 20 * MS, 1000000000u, true);
	uint64_t r0 = reported();
	long l0 = launched();
	struct worker w[THREADS] = {0};
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker_run, &w[i]) == 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < THREADS; i++) {
		struct stub_cuda_stream st;
		CHECK(w[i].fails == 0);
		CHECK(stream_info(w[i].s, &st) == 0);
		CHECK(st.launches == THREAD_LAUNCHES);
		CHECK(st.max_in_flight <= INFLIGHT);
	}
	CHECK(launched() == l0 + THREADS * THREAD_LAUNCHES);
	CHECK(reported_reach(r0 + THREADS * THREAD_LAUNCHES));
}

/* batond gone, the device busy (each probe 2 ms): the probe loop keeps
 * the launches periodical, never free. A program launching 1-ms kernels
 * as fast as it can for 400 ms gets well under 400 ms of them (free, it
 * would queue thousands), each batch after a probe. */
static void check_lost_daemon(void *h)
{
	stub_cuda_probe_us_fn busy =
	    (stub_cuda_probe_us_fn)dlsym(h, "stub_cuda_probe_us");
	CHECK(busy);
	busy(2000);
	struct stub_cuda_counts c0, c1;
	counts(&c0);
	long l0 = launched();
	int64_t t0 = now_ns();
	while (now_ns() - t0 < 400 * MS)
		CHECK(launch_us(gated_launch, 1000, NULL, NULL) == 0);
	CHECK(stream_sync(NULL) == 0);
	int64_t span = now_ns() - t0;
	counts(&c1);
	long n = launched() - l0;
	fprintf(stderr,
	        "batond lost, device busy: %ld x 1 ms launches in %lld ms, "
	        "%ld probes\n",
	        n, (long long)(span / MS), c1.probes - c0.probes);
	CHECK(n > 0);
	CHECK(n * MS < span * 6 / 10);
	CHECK(c1.probes - c0.probes >= 2);
	busy(0);
}

/* Launches n through the probe loop (no batond), after the last batch's
 * window has passed: each goes, the first after a probe of the PTX
 * module. */
static void probe_loop(int n)
{
	struct stub_cuda_counts c0, c1;
	sleep_ms(50);
	counts(&c0);
	for (int i = 0; i < n; i++)
		CHECK(launch_us(gated_launch, 1000, NULL, NULL) == 0);
	counts(&c1);
	CHECK(c1.launches[0] == c0.launches[0] + n);
	CHECK(c1.probes - c0.probes >= 1);
	CHECK(c1.probe_modules >= 1);
}

/* A launch the driver refuses (no parameters): its error back, no
 * launch reported, and no batch left stamped in flight for the stuck
 * rule to take for a hung kernel. Then a launch into a capturing
 * stream: no wait with the window shut, nothing reported. */
static void check_refused_and_captured(stub_cuda_capturing_fn capture)
{
	/* A launch the driver refuses (no parameters): its error back, no
	 * launch reported, and no batch left stamped in flight for the
	 * stuck rule to take for a hung kernel. */
	fake_batond_control(bd, 20 * MS, 1000000000u, false);
	sleep_ms(50);
	uint64_t r0 = reported();
	CHECK(gated_launch(kernel, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) !=
	      0);
	sleep_ms(100); /* the reaper's */
	CHECK(reported() == r0);
	CHECK(atomic_load(&bd->shm.ring->be_inflight_ns) == 0);

	fake_batond_control(bd, 0, 1000000000u, false);
	sleep_ms(50);
	capture(1);
	int64_t wall;
	CHECK(launch_us(gated_launch, 1000, NULL, &wall) == 0);
	capture(0);
	CHECK(wall < WAIT_MS * MS);
	CHECK(reported() == r0);
}

/* batond gone: the probe loop; a new context gets the probe's module;
 * never a batond (a fork child) the same. */
static void check_no_daemon(void *h)
{
	check_lost_daemon(h);
	/* A new context at the same handle: the probe's module is loaded
	 * into it, not taken from the dead one. */
	struct stub_cuda_counts p0, p1;
	sleep_ms(50); /* the reaper reports the last batch */
	counts(&p0);
	new_context();
	probe_loop(1);
	counts(&p1);
	CHECK(p1.probe_modules == p0.probe_modules + 1);
	CHECK(p1.dead_uses == 0);

	/* Never a batond: a fork child opens its own client. */
	setenv("BATON_SOCKET", "/nonexistent/batond.sock", 1);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		probe_loop(3);
		_exit(0);
	}
	int status;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	struct fake_batond b;
	bd = &b;
	CHECK(fake_batond_start(&b, FAKE_WELCOME));
	setenv("BATON_SOCKET", b.sock, 1);
	setenv("BATON_NAME", "cudatest", 1);
	char wait[16];
	snprintf(wait, sizeof(wait), "%d", WAIT_MS);
	setenv("BATON_CUDA_MAX_WAIT_MS", wait, 1);
	snprintf(wait, sizeof(wait), "%d", INFLIGHT);
	setenv("BATON_CUDA_INFLIGHT", wait, 1);

	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	CHECK(h);
	gpa2 = (gpa2_fn)dlsym(h, "cuGetProcAddress_v2");
	counts = (stub_cuda_counts_fn)dlsym(h, "stub_cuda_counts");
	stub_cuda_capturing_fn capture =
	    (stub_cuda_capturing_fn)dlsym(h, "stub_cuda_capturing");
	new_context =
	    (stub_cuda_new_context_fn)dlsym(h, "stub_cuda_new_context");
	stream_info =
	    (stub_cuda_stream_info_fn)dlsym(h, "stub_cuda_stream_info");
	CHECK(gpa2 && counts && capture && new_context && stream_info);
	check_lookups(h);

	load_fn load = (load_fn)proc("cuModuleLoadData", 13000, 0);
	get_fn get = (get_fn)proc("cuModuleGetFunction", 13000, 0);
	stream_create = (stream_create_fn)proc("cuStreamCreate", 13000, 0);
	stream_sync = (stream_sync_fn)proc("cuStreamSynchronize", 13000, 0);
	CUmodule m;
	CHECK(load(&m, "stub: the sleep kernel") == 0);
	CHECK(get(&kernel, m, "sleep") == 0);
	gated_launch = (launch_fn)proc("cuLaunchKernel", 13000, 0);

	/* Registered, no window: it goes after the bound, said on stderr,
	 * with no record (it ran outside any window). */
	CHECK(stderr_has(first_launch, "no window within 1000 ms"));
	CHECK(first_r == 0 && first_count == 1);
	CHECK(first_wall >= WAIT_MS * MS);
	CHECK(fake_batond_wait(&b, 1));
	CHECK(strstr(b.hello, "\"name\":\"cudatest\""));
	struct baton_frame rec[64];
	CHECK(fake_batond_records(&b, rec, 64) == 0);

	check_async_record();
	check_held();
	check_forms(h);
	check_window();
	check_priorities(h);
	check_threads();

	check_refused_and_captured(capture);
	fake_batond_stop(&b);
	check_no_daemon(h);
	dlclose(h);
	return 0;
}
