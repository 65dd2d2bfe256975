/* The BE SDK's and the launch gates' cost per launch (target: under
 * 5 us, docs/benchmarks.md).
 *
 *   be_overhead sdk [N]  baton_be_next + baton_be_done under a fake batond
 *                        whose window is always open (budget 1, so no
 *                        rest): the SDK's own work per sub-launch (one
 *                        poll, a control read, the fit, a record)
 *   be_overhead cl [N]   an empty 1-work-item kernel, launched and
 *                        finished N times on the first OpenCL device:
 *                        run it with and without libbaton_cl.so in
 *                        LD_PRELOAD and take the difference
 *   be_overhead clfake [N]  the same under an in-process fake batond
 *                        whose window is always open (preload the gate);
 *                        fails unless each timed launch gave one record
 *   be_overhead cuda|cudafake [N]  the same for the CUDA gate
 *                        (libbaton_cuda.so), on the stub driver only
 *                        (be_overhead_cuda.c)
 *   be_overhead cudaasync|cudaasyncfake [N]  the CUDA gate's launch
 *                        call alone, no synchronise: what a program that
 *                        queues kernels pays per launch
 *
 * Prints the mean, the median and the p99 per launch in microseconds,
 * and the OpenCL platform's name. On the stub runtime (cl_stub.c, whose
 * folder goes first on LD_LIBRARY_PATH) it also checks that the stub
 * took every launch. bench/gate_overhead.py runs cl and clfake (or cuda
 * and cudafake) alternately, on the stub or on the real runtime, and
 * takes the difference. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baton/be.h"
#include "be_overhead.h"
#include "fake_batond.h"

void bo_sleep_us(int us)
{
	struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
	nanosleep(&ts, NULL);
}

int64_t bo_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

void bo_report(const char *what, int64_t *t, int n)
{
	int64_t sum = 0;
	for (int i = 0; i < n; i++)
		sum += t[i];
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%s: %d launches, mean %.2f us, median %.2f us, p99 %.2f us\n",
	       what, n, (double)sum / n * 1e-3, (double)t[n / 2] * 1e-3,
	       (double)t[n * 99 / 100] * 1e-3);
}

static int bench_sdk(int n, int64_t *t)
{
	struct fake_batond b;
	if (!fake_batond_start(&b, FAKE_WELCOME))
		return 1;
	struct baton_be_options o;
	baton_be_options_init(&o);
	o.socket_path = b.sock;
	baton_be *be;
	if (baton_be_open("overhead", &o, &be) != BATON_OK ||
	    !fake_batond_wait(&b, 1))
		return 1;
	fake_batond_control(&b, 1000000000LL, 1000000000u, true);
	baton_be_task_begin(be, 1, (int64_t)n * 1000);
	for (int i = 0; i < n; i++) {
		int64_t off, cnt, t0 = bo_now_ns();
		if (baton_be_next(be, &off, &cnt) != 1)
			return 1;
		baton_be_done(be, off, 1, 1000);
		t[i] = bo_now_ns() - t0;
	}
	struct baton_be_info info = {.size = sizeof info};
	baton_be_info(be, &info);
	if (!info.connected)
		fprintf(stderr, "be_overhead: not registered\n");
	baton_be_close(be);
	fake_batond_stop(&b);
	bo_report("sdk next+done", t, n);
	return 0;
}

/* The timed loop of bo_time_launches; false at the first failure. */
static bool time_loop(const struct bo_launcher *l, int n, int64_t *t,
                      struct fake_batond *b, long *stub0, uint64_t *head0)
{
	for (int i = -10; i < n; i++) {
		if (i == 0 && *stub0 >= 0)
			*stub0 = l->stub_launches(l->arg);
		if (i == 0 && b)
			*head0 = atomic_load(&b->shm.ring->head);
		int64_t t0 = bo_now_ns();
		if (!l->launch_and_wait(l->arg))
			return false;
		if (i >= 0)
			t[i] = bo_now_ns() - t0;
		if (b && i == -10) {
			if (!fake_batond_wait(b, 1)) {
				fprintf(stderr,
				        "be_overhead: no gate registered "
				        "within 5 s (is it in "
				        "LD_PRELOAD?)\n");
				return false;
			}
			fake_batond_control(b, 1000000000LL, 1000000000u, true);
		}
	}
	return true;
}

int bo_time_launches(const struct bo_launcher *l, int n, int64_t *t, bool fake)
{
	struct fake_batond b;
	if (fake) {
		if (!fake_batond_start(&b, FAKE_WELCOME))
			return 1;
		setenv("BATON_SOCKET", b.sock, 1);
		setenv(l->env, "10", 1);
	}
	long stub0 = -1;
	uint64_t head0 = 0;
	long blocks0 = 0; /* a new ring starts at 0 */
	bool ran = l->open(l->arg) &&
	           ((stub0 = l->stub_launches(l->arg)), true) &&
	           time_loop(l, n, t, fake ? &b : NULL, &stub0, &head0);
	/* The gate's records of the timed launches: one each, with the
	 * window open; fewer means the gate was not on the path. (A ran
	 * loop with the fake batond saw the gate register: its ring is
	 * mapped.) */
	if (ran && l->finish)
		ran = l->finish(l->arg);
	long records = -1;
	if (fake && ran && l->batched) {
		/* every batch reported: the last one by the gate's reaper,
		 * shortly after its window. The untimed launches but the
		 * first (which registered, and went outside any window
		 * when the bound passed) count too. */
		for (int i = 0;
		     i < 3000 &&
		     (long)(atomic_load(&b.shm.ring->be_blocks_total) -
		            blocks0) < n + 9;
		     i++)
			bo_sleep_us(1000);
		records = (long)(atomic_load(&b.shm.ring->be_blocks_total) -
		                 blocks0) -
		          9;
	} else if (fake && ran) {
		records = (long)(atomic_load(&b.shm.ring->head) - head0);
	}
	bool counted = stub0 >= 0;
	long taken = counted && ran ? l->stub_launches(l->arg) - stub0 : -1;
	if (fake)
		fake_batond_stop(&b);
	if (!ran)
		return 1;
	char what[256];
	snprintf(what, sizeof(what), "%s, %s", l->what,
	         !getenv("LD_PRELOAD") ? "plain"
	         : fake                ? "gated, fake batond"
	                               : "gated");
	bo_report(what, t, n);
	if (fake)
		printf("gate records: %ld of %d launches\n", records, n);
	if (counted)
		printf("stub launches: %ld of %d\n", taken, n);
	if ((fake && records != n) || (counted && taken != n)) {
		fprintf(stderr,
		        "be_overhead: %d launches timed, but %s %ld: the "
		        "%s was not on the path\n",
		        n,
		        fake && records != n ? "gate records" : "stub launches",
		        fake && records != n ? records : taken,
		        fake && records != n ? "gate" : "stub");
		return 1;
	}
	return 0;
}

/* An empty 1-work-item kernel on the first OpenCL device. */
struct cl_run {
	cl_command_queue q;
	cl_kernel k;
	char what[160];
	long (*stub_launches)(void);
};

static bool cl_open(void *arg)
{
	struct cl_run *r = arg;
	cl_platform_id plat;
	cl_device_id dev;
	cl_int e;
	if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
	    clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) !=
	        CL_SUCCESS)
		return false;
	cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
	r->q = clCreateCommandQueue(ctx, dev, 0, &e);
	const char *src = "__kernel void nothing(void) {}";
	cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
	if (clBuildProgram(p, 1, &dev, NULL, NULL, NULL) != CL_SUCCESS)
		return false;
	r->k = clCreateKernel(p, "nothing", &e);
	char plat_name[128] = "?";
	clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof(plat_name), plat_name,
	                  NULL);
	plat_name[sizeof(plat_name) - 1] = '\0';
	snprintf(r->what, sizeof(r->what), "cl launch+finish (%s)", plat_name);
	/* The stub counts launches; a real runtime has no such symbol. */
	r->stub_launches =
	    (long (*)(void))dlsym(RTLD_DEFAULT, "baton_cl_stub_launches");
	return true;
}

static bool cl_launch_and_wait(void *arg)
{
	struct cl_run *r = arg;
	size_t one = 1;
	return clEnqueueNDRangeKernel(r->q, r->k, 1, NULL, &one, NULL, 0, NULL,
	                              NULL) == CL_SUCCESS &&
	       clFinish(r->q) == CL_SUCCESS;
}

static long cl_stub_launches(void *arg)
{
	struct cl_run *r = arg;
	return r->stub_launches ? r->stub_launches() : -1;
}

static int bench_cl(int n, int64_t *t, bool fake)
{
	struct cl_run r = {.what = "cl launch+finish"};
	const struct bo_launcher l = {.what = r.what,
	                              .env = "BATON_CL_MAX_WAIT_MS",
	                              .open = cl_open,
	                              .launch_and_wait = cl_launch_and_wait,
	                              .stub_launches = cl_stub_launches,
	                              .arg = &r};
	return bo_time_launches(&l, n, t, fake);
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 10000;
	if (argc < 2 || n < 1 ||
	    (strcmp(argv[1], "sdk") && strcmp(argv[1], "cl") &&
	     strcmp(argv[1], "clfake") && strcmp(argv[1], "cuda") &&
	     strcmp(argv[1], "cudafake") && strcmp(argv[1], "cudaasync") &&
	     strcmp(argv[1], "cudaasyncfake"))) {
		fprintf(stderr,
		        "usage: be_overhead sdk|cl|clfake|cuda|cudafake|"
		        "cudaasync|cudaasyncfake [N]\n");
		return 2;
	}
	int64_t *t = malloc((size_t)n * sizeof(*t));
	if (!t)
		return 1;
	size_t len = strlen(argv[1]);
	bool fake = len > 4 && !strcmp(argv[1] + len - 4, "fake");
	bool async = !strncmp(argv[1], "cudaasync", 9);
	int rc = !strcmp(argv[1], "sdk")        ? bench_sdk(n, t)
	         : !strncmp(argv[1], "cuda", 4) ? bench_cuda(n, t, fake, async)
	                                        : bench_cl(n, t, fake);
	free(t);
	if (rc)
		fprintf(stderr, "be_overhead %s failed\n", argv[1]);
	return rc;
}
