/* The OpenCL launch gate (src/sdk/cl/gate.c), preloaded into this test as
 * into an unmodified program, on PoCL, against the fake batond: a launch
 * with no window still goes after BATON_CL_MAX_WAIT_MS (never hung), a
 * kernel named in BATON_CL_SPLIT is cut into several sub-launches whose
 * records add up to its rows and whose product is right (a launch that
 * went without a window reported too), any other kernel
 * goes whole, and every launch leaves one BATON_FRAME_BE record per
 * sub-launch; on a CPU device the periodical sub-launches lower every
 * thread to SCHED_IDLE; a split launch with no local size goes in
 * work-groups of one fixed shape. Skipped (77) where no OpenCL device exists.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dirent.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_batond.h"

#define N  64
#define MS 1000000LL

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__,       \
			        __LINE__, #c);                                 \
			exit(1);                                               \
		}                                                              \
	} while (0)

static const char *src =
    "__kernel void matmul(__global const float *a, __global const float *b,\n"
    "                     __global float *c, int n) {\n"
    "  int col = get_global_id(0), row = get_global_id(1);\n"
    "  float acc = 0.0f;\n"
    "  for (int k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];\n"
    "  c[row * n + col] = acc;\n"
    "}\n"
    "__kernel void fill(__global float *c, float v) {\n"
    "  c[get_global_id(0)] = v;\n"
    "}\n"
    "__kernel void square(__global uint *o) {\n"
    "  uint i = get_global_id(0);\n"
    "  o[i] = i * i;\n"
    "}\n";

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Live threads of this process not at SCHED_IDLE. */
static int threads_not_idle(void)
{
	DIR *dir = opendir("/proc/self/task");
	CHECK(dir);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		int tid = atoi(e->d_name);
		int p = tid > 0 ? sched_getscheduler(tid) : -1;
		n += p >= 0 && p != SCHED_IDLE;
	}
	closedir(dir);
	return n;
}

/* A split kernel launched with no local size, 4096 work-items in a 2-ms
 * window: its sub-launches go in work-groups of 64 (one shape for all,
 * so PoCL compiles it once), their blocks adding up to 64 groups, not
 * to 4096 work-items each a size of its own, each sub-launch but the
 * last a whole number of rounds over the device's compute units; every
 * item written. */
static void split_in_fixed_groups(cl_context ctx, cl_command_queue q,
                                  cl_program p, struct fake_batond *b)
{
	enum { ITEMS = 4096 };
	cl_int e;
	cl_kernel sq = clCreateKernel(p, "square", &e);
	CHECK(e == CL_SUCCESS);
	cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE,
	                            ITEMS * sizeof(cl_uint), NULL, &e);
	CHECK(e == CL_SUCCESS);
	clSetKernelArg(sq, 0, sizeof(cl_mem), &out);
	struct baton_frame rec[256];
	fake_batond_records(b, rec, 256);
	fake_batond_control(b, 2 * MS, 1000000000u, false);
	size_t items = ITEMS;
	CHECK(clEnqueueNDRangeKernel(q, sq, 1, NULL, &items, NULL, 0, NULL,
	                             NULL) == CL_SUCCESS);
	CHECK(clFinish(q) == CL_SUCCESS);
	static cl_uint got[ITEMS];
	CHECK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(got), got, 0, NULL,
	                          NULL) == CL_SUCCESS);
	for (cl_uint i = 0; i < ITEMS; i++)
		CHECK(got[i] == i * i);
	int n = fake_batond_records(b, rec, 256);
	int64_t groups = 0;
	cl_device_id dev;
	cl_uint units = 1;
	clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(dev), &dev, NULL);
	clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units), &units,
	                NULL);
	for (int i = 0; i < n; i++) {
		groups += rec[i].cpu_ns;
		/* a whole number of rounds over the compute units, but the
		 * last (the task's end) and one of a round or less */
		if (i + 1 < n && rec[i].cpu_ns > units)
			CHECK(rec[i].cpu_ns % units == 0);
	}
	fprintf(stderr, "square: %d items in %lld groups, %d sub-launches\n",
	        ITEMS, (long long)groups, n);
	CHECK(groups == ITEMS / 64);
	clReleaseMemObject(out);
	clReleaseKernel(sq);
}

int main(void)
{
	struct fake_batond b;
	CHECK(fake_batond_start(&b, FAKE_WELCOME));
	setenv("BATON_SOCKET", b.sock, 1);
	setenv("BATON_NAME", "gatetest", 1);
	setenv("BATON_CL_SPLIT", "other,matmul,square", 1);
	setenv("BATON_CL_MAX_WAIT_MS", "100", 1);

	cl_platform_id plat;
	cl_device_id dev;
	cl_uint np = 0;
	if (clGetPlatformIDs(1, &plat, &np) != CL_SUCCESS || np == 0 ||
	    clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) !=
	        CL_SUCCESS) {
		fprintf(stderr, "no OpenCL device: skipped\n");
		fake_batond_stop(&b);
		return 77;
	}
	cl_int e;
	cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
	CHECK(e == CL_SUCCESS);
	cl_command_queue q =
	    clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e);
	CHECK(e == CL_SUCCESS);
	cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
	CHECK(e == CL_SUCCESS);
	CHECK(clBuildProgram(p, 1, &dev, NULL, NULL, NULL) == CL_SUCCESS);
	cl_kernel mm = clCreateKernel(p, "matmul", &e);
	CHECK(e == CL_SUCCESS);
	cl_kernel fill = clCreateKernel(p, "fill", &e);
	CHECK(e == CL_SUCCESS);
	static float a[N * N], bm[N * N], c[N * N];
	for (int i = 0; i < N * N; i++) {
		a[i] = (float)(i % 5) - 2.0f;
		bm[i] = (float)(i % 7) - 3.0f;
	}
	cl_mem da = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(a), a, &e);
	cl_mem db =
	    clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(bm), bm, &e);
	cl_mem dc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(c), NULL, &e);
	int n = N;
	clSetKernelArg(mm, 0, sizeof(cl_mem), &da);
	clSetKernelArg(mm, 1, sizeof(cl_mem), &db);
	clSetKernelArg(mm, 2, sizeof(cl_mem), &dc);
	clSetKernelArg(mm, 3, sizeof(int), &n);
	float sentinel = -12345.0f;
	clSetKernelArg(fill, 0, sizeof(cl_mem), &dc);
	clSetKernelArg(fill, 1, sizeof(float), &sentinel);

	/* First launch: registered, but no window yet: it goes after the
	 * bound, not never. */
	size_t cells = N * N;
	int64_t t0 = now_ns();
	CHECK(clEnqueueNDRangeKernel(q, fill, 1, NULL, &cells, NULL, 0, NULL,
	                             NULL) == CL_SUCCESS);
	CHECK(now_ns() - t0 >= 100 * MS);
	CHECK(fake_batond_wait(&b, 1));
	CHECK(strstr(b.hello, "\"name\":\"gatetest\""));
	/* a CPU device (PoCL) asks for a partition and the idle lane */
	cl_device_type type = 0;
	clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
	bool cpu = type & CL_DEVICE_TYPE_CPU;
	CHECK(!strstr(b.hello, "\"idle\":true") == !cpu);
	CHECK(!strstr(b.hello, "\"partition\":true") == !cpu);
	struct baton_frame rec[256];
	/* it went without a window, and is counted all the same: one
	 * record, so batond does not take its work for someone else's
	 * load */
	CHECK(fake_batond_records(&b, rec, 256) == 1);
	CHECK(rec[0].cpu_ns == 1 && rec[0].gpu_ns > 0);
	CHECK(rec[0].sleep_ns >= 100 * MS);

	/* A window of 2 ms: the 64 rows go in several sub-launches. They
	 * are periodical (games on the device): on a CPU device this
	 * thread and PoCL's drop to SCHED_IDLE, for good. */
	if (cpu)
		CHECK(threads_not_idle() > 0);
	fake_batond_control(&b, 2 * MS, 1000000000u, false);
	size_t gsz[2] = {N, N}, lsz[2] = {8, 1};
	cl_event ev;
	CHECK(clEnqueueNDRangeKernel(q, mm, 2, NULL, gsz, lsz, 0, NULL, &ev) ==
	      CL_SUCCESS);
	CHECK(clWaitForEvents(1, &ev) == CL_SUCCESS);
	clReleaseEvent(ev);
	CHECK(clEnqueueReadBuffer(q, dc, CL_TRUE, 0, sizeof(c), c, 0, NULL,
	                          NULL) == CL_SUCCESS);
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			float want = 0.0f;
			for (int k = 0; k < N; k++)
				want += a[i * N + k] * bm[k * N + j];
			if (c[i * N + j] != want) {
				fprintf(stderr, "C[%d][%d] = %g, want %g\n", i,
				        j, c[i * N + j], want);
				return 1;
			}
		}
	int got = fake_batond_records(&b, rec, 256);
	int64_t rows = 0;
	for (int i = 0; i < got; i++) {
		CHECK(rec[i].flags == 4u); /* BATON_FRAME_BE */
		CHECK(rec[i].cpu_ns >= 1);
		CHECK(rec[i].gpu_ns >= 0);
		rows += rec[i].cpu_ns;
	}
	fprintf(stderr, "matmul %d rows in %d sub-launches\n", N, got);
	CHECK(rows == N);
	CHECK(got >= 2);
	if (cpu)
		CHECK(threads_not_idle() == 0);

	/* Not named in BATON_CL_SPLIT: one launch, one record. */
	CHECK(clEnqueueNDRangeKernel(q, fill, 1, NULL, &cells, NULL, 0, NULL,
	                             NULL) == CL_SUCCESS);
	CHECK(fake_batond_records(&b, rec, 256) == 1);
	CHECK(rec[0].cpu_ns == 1);

	/* A launch the driver refuses (no dimensions):
	 * its error back, no record, and no sub-launch left in flight for
	 * the stuck rule to take for a hung kernel. */
	CHECK(clEnqueueNDRangeKernel(q, fill, 0, NULL, &cells, NULL, 0, NULL,
	                             NULL) == CL_INVALID_WORK_DIMENSION);
	CHECK(fake_batond_records(&b, rec, 256) == 0);
	CHECK(atomic_load(&b.shm.ring->be_inflight_ns) == 0);

	/* The idle lane: the launch runs, every thread still at
	 * SCHED_IDLE (the lane's own lowering: test_be_idle). */
	if (cpu) {
		fake_batond_control_idle(&b, 2 * MS, 1000000000u);
		CHECK(clEnqueueNDRangeKernel(q, mm, 2, NULL, gsz, lsz, 0, NULL,
		                             NULL) == CL_SUCCESS);
		CHECK(clFinish(q) == CL_SUCCESS);
		got = fake_batond_records(&b, rec, 256);
		rows = 0;
		for (int i = 0; i < got; i++)
			rows += rec[i].cpu_ns;
		CHECK(rows == N);
		CHECK(threads_not_idle() == 0);
		fprintf(stderr,
		        "idle lane: %d rows, every thread at "
		        "SCHED_IDLE\n",
		        N);
	}
	split_in_fixed_groups(ctx, q, p, &b);
	/* Everything released, so that the ASan build's leak check sees
	 * only what the gate itself might hold. */
	clReleaseMemObject(da);
	clReleaseMemObject(db);
	clReleaseMemObject(dc);
	clReleaseKernel(mm);
	clReleaseKernel(fill);
	clReleaseProgram(p);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	fake_batond_stop(&b);
	return 0;
}
