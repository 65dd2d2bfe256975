/* The CUDA launch gate (src/sdk/cuda/), preloaded into this test as into
 * an unmodified program, on the stub driver (stub_cuda.c as libcuda.so.1
 * on LD_LIBRARY_PATH), against the fake batond. The test reaches the
 * driver as the CUDA runtime does: dlopen("libcuda.so.1") RTLD_LOCAL,
 * dlsym(handle, "cuGetProcAddress_v2"), then every entry point by name.
 * It checks:
 * - lookups: dlsym on the handle and cuGetProcAddress (both forms, legacy
 *   and per-thread) give the gate's launch and lookup functions, any
 *   other name the driver's own; RTLD_NEXT still means "after the caller";
 * - registered with no window: a launch goes after BATON_CUDA_MAX_WAIT_MS
 *   with a log line, unreported;
 * - a window: the launch goes and its record carries the kernel's event
 *   time, within the wall time around the launch;
 * - a shut window holds a launch (another thread) until it opens;
 * - the _ptsz and Ex forms are gated, the per-thread stream is timed, and
 *   each launch's end is polled (cuEventQuery);
 * - a kernel with a past is slept through, then polled, never waited for
 *   blocked; one without is waited for blocked after a short poll;
 * - the timing events: one pair per context, kept across launches; a new
 *   context at the old one's handle gets its own, the dead context's are
 *   never touched again, and past the gate's table a launch makes and
 *   frees its own;
 * - a launch the driver refuses: its error, no record, nothing left
 *   stamped in flight;
 * - a launch into a capturing stream goes at once, ungated;
 * - batond gone, and never there (a fork child): launches go, each after a
 *   probe of the PTX module (the probe loop, never free); a new context
 *   at the old one's handle gets the module loaded again. */
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
typedef CUresult (*load_fn)(CUmodule *, const void *);
typedef CUresult (*get_fn)(CUfunction *, CUmodule, const char *);

static gpa2_fn gpa2;
static stub_cuda_counts_fn counts;
static stub_cuda_new_context_fn new_context;
static CUfunction kernel;

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
	CHECK(st == 0);
	return p;
}

static long launched(void)
{
	struct stub_cuda_counts c;
	counts(&c);
	return c.launches[0] + c.launches[1] + c.launches[2] + c.launches[3];
}

/* A launch of the sleep kernel through fn (the gate's cuLaunchKernel or
 * _ptsz) for us microseconds, on a grid that grows with us (as a real
 * kernel's time grows with its grid: the gate keeps a past per shape);
 * its wall time in *wall_ns. */
static CUresult launch_us(launch_fn fn, int64_t us, CUstream s,
                          int64_t *wall_ns)
{
	void *params[] = {&us};
	unsigned grid = (unsigned)(us / 100 + 1);
	int64_t t0 = now_ns();
	CUresult r = fn(kernel, grid, 1, 1, 32, 1, 1, 0, s, params, NULL);
	if (wall_ns)
		*wall_ns = now_ns() - t0;
	return r;
}

/* The lookups, before any launch. */
static void check_lookups(void *h)
{
	gpa_fn gpa1 = (gpa_fn)dlsym(h, "cuGetProcAddress");
	CHECK(in_gate((void *)gpa2) && in_gate((void *)gpa1));
	CHECK(in_gate(dlsym(h, "cuLaunchKernel")));
	CHECK(in_gate(dlsym(h, "cuLaunchKernelEx_ptsz")));
	CHECK(in_stub(dlsym(h, "cuEventCreate")));
	CHECK(dlsym(h, "cuNoSuchFunction") == NULL && dlerror() != NULL);

	void *legacy = proc("cuLaunchKernel", 13000, 0);
	void *ptsz = proc("cuLaunchKernel", 13000, PER_THREAD);
	CHECK(in_gate(legacy) && in_gate(ptsz) && legacy != ptsz);
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

struct held {
	CUresult r;
	int64_t wall_ns;
	int64_t end_ns; /* when the launch returned */
};

static void *held_launch(void *arg)
{
	struct held *h = arg;
	h->r = launch_us(gated_launch, 1000, NULL, &h->wall_ns);
	h->end_ns = now_ns();
	return NULL;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The end of a launch, window open. A 5-ms kernel's first launch has no
 * past: polled briefly, then waited for blocked. The next ones are slept
 * through and polled near their end: no blocking wait, and the thread
 * spends a fraction of the kernels' time on the CPU (spinning, it would
 * spend all of it). */
static void check_end_wait(struct fake_batond *b)
{
	struct stub_cuda_counts c0, c1;
	struct baton_frame rec[64];
	int64_t wall[4];
	counts(&c0);
	CHECK(launch_us(gated_launch, 5000, NULL, &wall[0]) == 0);
	counts(&c1);
	CHECK(c1.syncs == c0.syncs + 1);
	int64_t cpu0 = thread_cpu_ns(), walls = 0;
	for (int i = 1; i < 4; i++) {
		CHECK(launch_us(gated_launch, 5000, NULL, &wall[i]) == 0);
		CHECK(wall[i] >= 5 * MS);
		walls += wall[i];
	}
	int64_t cpu = thread_cpu_ns() - cpu0;
	counts(&c0);
	fprintf(stderr,
	        "3 x 5 ms kernels, slept through: wall %lld us, "
	        "thread cpu %lld us, %ld queries\n",
	        (long long)(walls / 1000), (long long)(cpu / 1000),
	        c0.queries - c1.queries);
	CHECK(c0.syncs == c1.syncs);
	CHECK(cpu < walls / 2);
	CHECK(fake_batond_records(b, rec, 64) == 4);
	for (int i = 0; i < 4; i++)
		CHECK(rec[i].gpu_ns >= 5 * MS && rec[i].gpu_ns <= wall[i]);
}

/* One gated 1-ms launch: it went and was timed (dead events would fail
 * the launch's timing; the stub counts their use). */
static void timed_1ms(struct fake_batond *b)
{
	struct baton_frame rec[64];
	int64_t wall;
	CHECK(launch_us(gated_launch, 1000, NULL, &wall) == 0);
	CHECK(fake_batond_records(b, rec, 64) == 1);
	CHECK(rec[0].gpu_ns >= 1 * MS && rec[0].gpu_ns <= wall);
}

/* The timing events, kept per context (events.c). */
static void check_events(struct fake_batond *b)
{
	struct stub_cuda_counts c0, c1;
	counts(&c0);
	for (int i = 0; i < 3; i++)
		timed_1ms(b);
	counts(&c1);
	CHECK(c1.creates == c0.creates && c1.destroys == c0.destroys);
	/* A new context at the same handle: its own pair, kept. */
	new_context();
	timed_1ms(b);
	timed_1ms(b);
	counts(&c0);
	CHECK(c0.creates == c1.creates + 2 && c0.destroys == c1.destroys);
	/* Past the table (8 contexts, two used so far): a pair per launch,
	 * freed after it. */
	for (int i = 0; i < 6; i++) {
		new_context();
		timed_1ms(b);
	}
	counts(&c1);
	CHECK(c1.creates == c0.creates + 12 && c1.destroys == c0.destroys);
	new_context();
	timed_1ms(b);
	timed_1ms(b);
	counts(&c0);
	CHECK(c0.creates == c1.creates + 4 && c0.destroys == c1.destroys + 4);
	CHECK(c0.dead_uses == 0);
}

/* Launches n through the probe loop (no batond): each goes, after a
 * probe of the PTX module. */
static void probe_loop(int n)
{
	struct stub_cuda_counts c0, c1;
	counts(&c0);
	for (int i = 0; i < n; i++)
		CHECK(launch_us(gated_launch, 1000, NULL, NULL) == 0);
	counts(&c1);
	CHECK(c1.launches[0] == c0.launches[0] + n);
	CHECK(c1.probes - c0.probes >= n);
	CHECK(c1.probe_modules >= 1);
}

int main(void)
{
	struct fake_batond b;
	CHECK(fake_batond_start(&b, FAKE_WELCOME));
	setenv("BATON_SOCKET", b.sock, 1);
	setenv("BATON_NAME", "cudatest", 1);
	char wait[16];
	snprintf(wait, sizeof(wait), "%d", WAIT_MS);
	setenv("BATON_CUDA_MAX_WAIT_MS", wait, 1);

	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	CHECK(h);
	gpa2 = (gpa2_fn)dlsym(h, "cuGetProcAddress_v2");
	counts = (stub_cuda_counts_fn)dlsym(h, "stub_cuda_counts");
	stub_cuda_capturing_fn capture =
	    (stub_cuda_capturing_fn)dlsym(h, "stub_cuda_capturing");
	new_context =
	    (stub_cuda_new_context_fn)dlsym(h, "stub_cuda_new_context");
	CHECK(gpa2 && counts && capture && new_context);
	check_lookups(h);

	load_fn load = (load_fn)proc("cuModuleLoadData", 13000, 0);
	get_fn get = (get_fn)proc("cuModuleGetFunction", 13000, 0);
	CUmodule m;
	CHECK(load(&m, "stub: the sleep kernel") == 0);
	CHECK(get(&kernel, m, "sleep") == 0);
	gated_launch = (launch_fn)proc("cuLaunchKernel", 13000, 0);
	launch_fn ptsz = (launch_fn)proc("cuLaunchKernel", 13000, PER_THREAD);
	launch_ex_fn ex = (launch_ex_fn)proc("cuLaunchKernelEx", 13000, 0);
	launch_ex_fn ex_ptsz =
	    (launch_ex_fn)proc("cuLaunchKernelEx", 13000, PER_THREAD);

	/* Registered, no window: it goes after the bound, said on stderr,
	 * with no record (it ran outside any window). */
	CHECK(stderr_has(first_launch, "no window within 1000 ms"));
	CHECK(first_r == 0 && first_count == 1);
	CHECK(first_wall >= WAIT_MS * MS);
	CHECK(fake_batond_wait(&b, 1));
	CHECK(strstr(b.hello, "\"name\":\"cudatest\""));
	struct baton_frame rec[64];
	CHECK(fake_batond_records(&b, rec, 64) == 0);

	/* A window: it goes, and its record has the kernel's event time. */
	fake_batond_control(&b, 50 * MS, 1000000000u, false);
	int64_t wall;
	CHECK(launch_us(gated_launch, 20000, NULL, &wall) == 0);
	CHECK(fake_batond_records(&b, rec, 64) == 1);
	fprintf(stderr, "20 ms kernel: record gpu_ns %lld, wall %lld\n",
	        (long long)rec[0].gpu_ns, (long long)wall);
	CHECK(rec[0].flags == FLAG_BE && rec[0].cpu_ns == 1);
	CHECK(rec[0].gpu_ns >= 20 * MS && rec[0].gpu_ns <= wall);

	/* Shut: a launch from another thread is held until it opens. */
	fake_batond_control(&b, 0, 1000000000u, false);
	long before = launched();
	struct held hl;
	pthread_t t;
	CHECK(pthread_create(&t, NULL, held_launch, &hl) == 0);
	sleep_ms(100);
	CHECK(launched() == before);
	int64_t opened = now_ns();
	fake_batond_control(&b, 50 * MS, 1000000000u, false);
	pthread_join(t, NULL);
	CHECK(hl.r == 0 && launched() == before + 1);
	/* held until the window opened (not "100 ms from its own start":
	 * the thread may start late on a busy machine) */
	CHECK(hl.end_ns >= opened);
	/* reported: it went in the window, not at the bound */
	CHECK(fake_batond_records(&b, rec, 64) == 1);

	/* The other forms: gated, and timed on the stream they used. */
	struct stub_cuda_counts c0, c1;
	counts(&c0);
	CHECK(launch_us(ptsz, 1000, NULL, NULL) == 0);
	counts(&c1);
	CHECK(c1.launches[1] == c0.launches[1] + 1);
	CHECK(c1.last_record_stream == STUB_STREAM_PER_THREAD);
	int64_t us = 1000;
	void *params[] = {&us};
	stub_launch_config cfg = {{1, 1, 1}, {32, 1, 1}, 0, NULL, NULL, 0};
	CHECK(ex(&cfg, kernel, params, NULL) == 0);
	CHECK(ex_ptsz(&cfg, kernel, params, NULL) == 0);
	counts(&c1);
	CHECK(c1.launches[2] == c0.launches[2] + 1);
	CHECK(c1.launches[3] == c0.launches[3] + 1);
	CHECK(fake_batond_records(&b, rec, 64) == 3);
	/* each end polled */
	CHECK(c1.queries >= c0.queries + 3);

	check_end_wait(&b);
	check_events(&b);

	/* A launch the driver refuses (no parameters): its error back, no
	 * record, and no sub-launch left stamped in flight for the stuck
	 * rule to take for a hung kernel. */
	CHECK(gated_launch(kernel, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) !=
	      0);
	CHECK(fake_batond_records(&b, rec, 64) == 0);
	CHECK(atomic_load(&b.shm.ring->be_inflight_ns) == 0);

	/* Capturing: no wait with the window shut, no record. */
	fake_batond_control(&b, 0, 1000000000u, false);
	capture(1);
	CHECK(launch_us(gated_launch, 1000, NULL, &wall) == 0);
	capture(0);
	CHECK(wall < WAIT_MS * MS);
	CHECK(fake_batond_records(&b, rec, 64) == 0);

	/* batond gone: the probe loop. */
	fake_batond_stop(&b);
	probe_loop(5);
	/* A new context at the same handle: the probe's module is loaded
	 * into it, not taken from the dead one. */
	struct stub_cuda_counts p0, p1;
	counts(&p0);
	new_context();
	probe_loop(1);
	counts(&p1);
	CHECK(p1.probe_modules == p0.probe_modules + 1);

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
	dlclose(h);
	return 0;
}
