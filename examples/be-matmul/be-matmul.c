/* be-matmul: an OpenCL matrix multiply run as Baton best-effort work
 * (include/baton/be.h, docs/sdk.md). C = A x B, n x n floats; a task is
 * one product, its blocks are the rows of C. Each sub-launch the SDK
 * gives is one clEnqueueNDRangeKernel over rows [offset, offset + count)
 * (global_work_offset on dimension 1: the kernel indexes with
 * get_global_id, which includes the offset), then clFinish; its device
 * time comes from queue profiling. The SDK's probe (used with no batond)
 * is an empty kernel, launched and finished on the same queue.
 *
 *   be-matmul [--n N] [--tasks T] [--seconds S] [--name NAME] [--weight W]
 *             [--cap C] [--units U] [--naive] [--check] [--progress]
 *             [--trace FILE] [--quiet]
 *
 * --naive launches each product whole, without the SDK (the ungated
 * baseline); --check compares every element of C with a product computed
 * on the host, so a row skipped or misplaced by a split fails. Prints rows
 * (work units) per second. --seconds S runs products back to back (no
 * task limit) and stops at the first launch boundary after S seconds,
 * or while waiting for a window that has not come by then, counting
 * the rows of a product left unfinished (so it takes no --check); --progress
 * prints `be-matmul: progress T ROWS` after the first launch past each whole
 * second, T in CLOCK_MONOTONIC seconds and ROWS the rows done so far, for a
 * benchmark to take the rate over its own window (bench/harvest_real.py).
 * --trace FILE writes one CSV line per SDK sub-launch (when it started and
 * ended, its rows, device time, the window it was given and whether it ran on a
 * partition), for seeing where the idle time went. --units U runs on a
 * sub-device of U compute units (clCreateSubDevices by counts): the partition
 * space harvesting gives best-effort work (on PoCL, U cores). Exit status 0, 1
 * on an OpenCL or SDK error, 3 when --check finds a wrong element, 77 with no
 * OpenCL device (the skip status of the tests). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <baton/be.h>

static const char *src =
    "__kernel void matmul(__global const float *a, __global const float *b,\n"
    "                     __global float *c, int n) {\n"
    "  int col = get_global_id(0), row = get_global_id(1);\n"
    "  float acc = 0.0f;\n"
    "  for (int k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];\n"
    "  c[row * n + col] = acc;\n"
    "}\n"
    "__kernel void baton_probe(void) {}\n";

struct cl {
	cl_context ctx;
	cl_command_queue q;
	cl_kernel mm, probe;
	cl_mem a, b, c;
	int n;
	unsigned units;   /* > 0: a sub-device of this many compute units */
	cl_device_id sub; /* that sub-device, released at the end */
	bool cpu;         /* a CPU device (PoCL): batond's space partition
	                     applies (baton_be_options.cpu_device) */
};

#define CHECK_CL(call, what)                                                   \
	do {                                                                   \
		cl_int e_ = (call);                                            \
		if (e_ != CL_SUCCESS) {                                        \
			fprintf(stderr, "be-matmul: %s failed (%d)\n", what,   \
			        e_);                                           \
			return -1;                                             \
		}                                                              \
	} while (0)

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cl_setup(struct cl *c, const float *a, const float *b)
{
	cl_platform_id plat;
	cl_device_id dev;
	cl_int e;
	if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
	    clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) !=
	        CL_SUCCESS) {
		fprintf(stderr, "be-matmul: no OpenCL device\n");
		return -2;
	}
	cl_device_type type = 0;
	c->cpu = clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof(type), &type,
	                         NULL) == CL_SUCCESS &&
	         (type & CL_DEVICE_TYPE_CPU);
	if (c->units > 0) {
		cl_device_partition_property by[] = {
		    CL_DEVICE_PARTITION_BY_COUNTS,
		    (cl_device_partition_property)c->units,
		    CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
		cl_device_id sub;
		cl_uint got = 0;
		e = clCreateSubDevices(dev, by, 1, &sub, &got);
		if (e != CL_SUCCESS || got != 1) {
			cl_uint cu = 0;
			clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS,
			                sizeof(cu), &cu, NULL);
			fprintf(stderr,
			        "be-matmul: --units %u: the device (%u compute "
			        "units) gives no sub-device of that many "
			        "(clCreateSubDevices by counts: %d)\n",
			        c->units, cu, e);
			return -1;
		}
		dev = c->sub = sub;
	}
	c->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
	CHECK_CL(e, "clCreateContext");
	c->q = clCreateCommandQueue(c->ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e);
	CHECK_CL(e, "clCreateCommandQueue");
	cl_program p = clCreateProgramWithSource(c->ctx, 1, &src, NULL, &e);
	CHECK_CL(e, "clCreateProgramWithSource");
	CHECK_CL(clBuildProgram(p, 1, &dev, NULL, NULL, NULL),
	         "clBuildProgram");
	c->mm = clCreateKernel(p, "matmul", &e);
	CHECK_CL(e, "clCreateKernel matmul");
	c->probe = clCreateKernel(p, "baton_probe", &e);
	CHECK_CL(e, "clCreateKernel baton_probe");
	clReleaseProgram(p);
	size_t bytes = (size_t)c->n * (size_t)c->n * sizeof(float);
	c->a = clCreateBuffer(c->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
	                      bytes, (void *)a, &e);
	CHECK_CL(e, "clCreateBuffer a");
	c->b = clCreateBuffer(c->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
	                      bytes, (void *)b, &e);
	CHECK_CL(e, "clCreateBuffer b");
	c->c = clCreateBuffer(c->ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &e);
	CHECK_CL(e, "clCreateBuffer c");
	CHECK_CL(clSetKernelArg(c->mm, 0, sizeof(cl_mem), &c->a), "arg a");
	CHECK_CL(clSetKernelArg(c->mm, 1, sizeof(cl_mem), &c->b), "arg b");
	CHECK_CL(clSetKernelArg(c->mm, 2, sizeof(cl_mem), &c->c), "arg c");
	CHECK_CL(clSetKernelArg(c->mm, 3, sizeof(int), &c->n), "arg n");
	return 0;
}

/* C's rows [off, off + cnt), synchronously; *ns the device time from
 * the event (START to END), or -1 if the queue cannot say. -1 on an
 * OpenCL error. */
static int launch_rows(struct cl *c, int64_t off, int64_t cnt, int64_t *ns)
{
	size_t goff[2] = {0, (size_t)off};
	size_t gsz[2] = {(size_t)c->n, (size_t)cnt};
	/* A fixed work-group shape: with none, PoCL picks one per global
	 * size and compiles the kernel again for each new row count. */
	size_t lsz[2] = {1, 1};
	while (lsz[0] < 64 && c->n % (int)(lsz[0] * 2) == 0)
		lsz[0] *= 2;
	cl_event ev;
	CHECK_CL(clEnqueueNDRangeKernel(c->q, c->mm, 2, goff, gsz, lsz, 0, NULL,
	                                &ev),
	         "clEnqueueNDRangeKernel");
	CHECK_CL(clFinish(c->q), "clFinish");
	cl_ulong t0 = 0, t1 = 0;
	*ns = -1;
	if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t0),
	                            &t0, NULL) == CL_SUCCESS &&
	    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t1),
	                            &t1, NULL) == CL_SUCCESS &&
	    t1 >= t0)
		*ns = (int64_t)(t1 - t0);
	clReleaseEvent(ev);
	return 0;
}

/* The SDK's probe: GPU grid's empty kernel, launched and finished. */
static int probe(void *user)
{
	struct cl *c = user;
	size_t one = 1;
	if (clEnqueueNDRangeKernel(c->q, c->probe, 1, NULL, &one, NULL, 0, NULL,
	                           NULL) != CL_SUCCESS)
		return -1;
	return clFinish(c->q) == CL_SUCCESS ? 0 : -1;
}

/* Releases what cl_setup made. PoCL's worker threads drop their own
 * reference to a finished command's event after clFinish has returned;
 * when the program exits in that window with a sub-device released, the
 * worker reads the freed sub-device and crashes (PoCL 3.1, seen under
 * load with a cold kernel cache). Every event holds a reference to its
 * queue, so the queue's count falling back to ours says the workers are
 * done; the wait is bounded (1 s) in case a runtime counts otherwise. */
static void cl_teardown(struct cl *c)
{
	if (c->q) {
		clFinish(c->q);
		for (int i = 0; i < 1000; i++) {
			cl_uint refs = 0;
			if (clGetCommandQueueInfo(
			        c->q, CL_QUEUE_REFERENCE_COUNT, sizeof(refs),
			        &refs, NULL) != CL_SUCCESS ||
			    refs <= 1)
				break;
			nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
		}
	}
	clReleaseMemObject(c->a);
	clReleaseMemObject(c->b);
	clReleaseMemObject(c->c);
	clReleaseKernel(c->mm);
	clReleaseKernel(c->probe);
	clReleaseCommandQueue(c->q);
	if (c->sub)
		clReleaseDevice(c->sub);
	clReleaseContext(c->ctx);
}

/* Every element against the host's product; the first wrong one said. */
static int check(const struct cl *c, const float *a, const float *b)
{
	int n = c->n;
	size_t cells = (size_t)n * (size_t)n;
	float *got = malloc(cells * sizeof(float));
	double *row = malloc((size_t)n * sizeof(double));
	if (!got || !row ||
	    clEnqueueReadBuffer(c->q, c->c, CL_TRUE, 0, cells * sizeof(float),
	                        got, 0, NULL, NULL) != CL_SUCCESS) {
		fprintf(stderr, "be-matmul: cannot read C back\n");
		free(got);
		free(row);
		return 1;
	}
	int bad = 0;
	for (int i = 0; i < n && !bad; i++) {
		for (int j = 0; j < n; j++)
			row[j] = 0.0;
		for (int k = 0; k < n; k++)
			for (int j = 0; j < n; j++)
				row[j] += (double)a[i * n + k] * b[k * n + j];
		for (int j = 0; j < n && !bad; j++) {
			double d = fabs(got[i * n + j] - row[j]);
			if (!(d <= 1e-3 * (1.0 + fabs(row[j])))) {
				fprintf(stderr,
				        "be-matmul: C[%d][%d] = %g, want %g\n",
				        i, j, got[i * n + j], row[j]);
				bad = 3;
			}
		}
	}
	free(got);
	free(row);
	return bad;
}

static const char usage[] =
    "Usage: be-matmul [OPTION]...\n"
    "Multiplies N x N matrices TASKS times on OpenCL as best-effort work:\n"
    "each product is a task of N row blocks handed out by the BE SDK\n"
    "(batond's window, or GPU grid's probe loop without batond).\n"
    "\n"
    "  --n N          matrix size, 1 to 8192 (default 512)\n"
    "  --tasks T      products to compute, 1 to 1000000 (default 5)\n"
    "  --seconds S    stop after S seconds, (0, 86400], a product left\n"
    "                 unfinished counted in part (not with --check)\n"
    "  --name NAME    the name batond shows (default be-matmul)\n"
    "  --weight W     share among best-effort tenants, (0, 1000]\n"
    "  --cap C        GPU cap, (0, 1]\n"
    "  --units U      run on a sub-device of U compute units (a\n"
    "                 partition of the device; on PoCL, U cores)\n"
    "  --naive        whole products, no SDK, no gate (the baseline)\n"
    "  --no-space     only batond's time slots, never a partition of\n"
    "                 the CPU's cores beside the games' (space\n"
    "                 harvesting) nor the idle-priority lane, on a\n"
    "                 CPU device; the slots at normal priority\n"
    "  --check        verify the last product on the CPU\n"
    "  --quiet        no summary lines\n"
    "  --progress     a line each second: time and rows done\n"
    "  --trace FILE   a CSV line per sub-launch: start_s, end_s, rows,\n"
    "                 device_ms, window_ms, partition\n"
    "  -h, --help     this help\n"
    "\n"
    "Exit status: 0 done (and checked), 1 OpenCL, SDK or check failure,\n"
    "2 usage error.\n";

/* A number option's value in [lo, hi] (lo excluded if lo_open), or a
 * message naming the option and false. */
static bool number_arg(const char *opt, const char *s, double lo, bool lo_open,
                       double hi, double *out)
{
	char *end;
	double v = s ? strtod(s, &end) : 0.0;
	if (!s || end == s || *end || !(lo_open ? v > lo : v >= lo) ||
	    !(v <= hi)) {
		fprintf(stderr,
		        "be-matmul: %s: '%s' is not a number in %c%g, %g]\n",
		        opt, s ? s : "", lo_open ? '(' : '[', lo, hi);
		return false;
	}
	*out = v;
	return true;
}

/* How long one wait for a window may last under --seconds before the
 * deadline is checked again. */
#define SECONDS_WAIT_MS 250

/* --seconds and --progress, checked after each launch. */
struct pace {
	double t0, seconds, next_s;
	bool progress;
};

static bool pace_stop(struct pace *p, double rows)
{
	double now = now_s();
	if (p->progress && now >= p->next_s) {
		printf("be-matmul: progress %.6f %.0f\n", now, rows);
		fflush(stdout);
		while (p->next_s <= now)
			p->next_s += 1.0;
	}
	return p->seconds > 0 && now - p->t0 >= p->seconds;
}

/* One --trace line for the sub-launch just reported; *parts is the
 * partition launches counted before it. */
static void trace_launch(FILE *f, baton_be *be, uint64_t *parts, double start,
                         int64_t rows, int64_t ns)
{
	struct baton_be_info i = {.size = sizeof i};
	baton_be_info(be, &i);
	fprintf(f, "%.6f,%.6f,%lld,%.3f,%.3f,%d\n", start, now_s(),
	        (long long)rows, (double)ns * 1e-6, (double)i.window_ns * 1e-6,
	        i.partition_launches > *parts);
	*parts = i.partition_launches;
}

int main(int argc, char **argv)
{
	int n = 512, tasks = 5;
	double seconds = 0.0;
	bool naive = false, want_check = false, quiet = false, progress = false;
	bool no_space = false;
	unsigned units = 0;
	const char *name = "be-matmul", *trace_path = NULL;
	struct baton_be_options o;
	baton_be_options_init(&o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		double x = 0.0;
		bool takes = !strcmp(a, "--n") || !strcmp(a, "--tasks") ||
		             !strcmp(a, "--name") || !strcmp(a, "--weight") ||
		             !strcmp(a, "--cap") || !strcmp(a, "--seconds") ||
		             !strcmp(a, "--units") || !strcmp(a, "--trace");
		if (takes)
			i++;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--n")) {
			if (!number_arg(a, v, 1, false, 8192, &x))
				return 2;
			n = (int)x;
		} else if (!strcmp(a, "--tasks")) {
			if (!number_arg(a, v, 1, false, 1000000, &x))
				return 2;
			tasks = (int)x;
		} else if (!strcmp(a, "--seconds")) {
			if (!number_arg(a, v, 0, true, 86400, &seconds))
				return 2;
		} else if (!strcmp(a, "--name") && v) {
			name = v;
		} else if (!strcmp(a, "--trace") && v) {
			trace_path = v;
		} else if (!strcmp(a, "--weight")) {
			if (!number_arg(a, v, 0, true, 1000, &o.weight))
				return 2;
		} else if (!strcmp(a, "--cap")) {
			if (!number_arg(a, v, 0, true, 1, &o.cap))
				return 2;
		} else if (!strcmp(a, "--units")) {
			if (!number_arg(a, v, 1, false, 4096, &x))
				return 2;
			units = (unsigned)x;
		} else if (!strcmp(a, "--naive")) {
			naive = true;
		} else if (!strcmp(a, "--check")) {
			want_check = true;
		} else if (!strcmp(a, "--no-space")) {
			no_space = true;
		} else if (!strcmp(a, "--quiet")) {
			quiet = true;
		} else if (!strcmp(a, "--progress")) {
			progress = true;
		} else {
			fprintf(stderr,
			        "be-matmul: %s: %s\nTry 'be-matmul --help'.\n",
			        a, takes ? "needs a value" : "unknown option");
			return 2;
		}
	}
	FILE *trace = NULL;
	if (trace_path && !naive) {
		trace = fopen(trace_path, "w");
		if (!trace) {
			perror(trace_path);
			return 2;
		}
		fputs("start_s,end_s,rows,device_ms,window_ms,partition\n",
		      trace);
	}
	if (seconds < 0.0 || seconds > 86400.0 || (seconds > 0 && want_check)) {
		fprintf(stderr, "be-matmul: --seconds cannot go "
		                "with --check (a product may be left "
		                "unfinished)\n");
		return 2;
	}
	size_t cells = (size_t)n * (size_t)n;
	float *a = malloc(cells * sizeof(float)),
	      *b = malloc(cells * sizeof(float));
	if (!a || !b)
		return 1;
	/* Small integers: exact in float for the sums the check makes. */
	for (size_t i = 0; i < cells; i++) {
		a[i] = (float)((i * 7 + 3) % 5) - 2.0f;
		b[i] = (float)((i * 11 + 1) % 7) - 3.0f;
	}
	struct cl c = {.n = n, .units = units};
	int setup = cl_setup(&c, a, b);
	if (setup < 0) {
		free(a);
		free(b);
		return setup == -2 ? 77 : 1;
	}
	/* Warm-up, untimed and outside the SDK: PoCL compiles the kernel
	 * at its first launch, which would read as a very slow block. */
	int64_t warm;
	if (launch_rows(&c, 0, 1, &warm) < 0)
		return 1;
	baton_be *be = NULL;
	if (!naive) {
		o.probe = probe;
		o.probe_user = &c;
		o.cpu_device = c.cpu && !no_space;
		/* With --seconds, a shut window must not hold the program
		 * past its time: batond may give best-effort work nothing
		 * for as long as other load fills the device. */
		if (seconds > 0)
			o.max_wait_ms = SECONDS_WAIT_MS;
		int r = baton_be_open(name, &o, &be);
		if (r != BATON_OK) {
			fprintf(stderr, "be-matmul: baton_be_open: %s\n",
			        baton_strerror(r));
			return 1;
		}
	}
	double t0 = now_s(), dev_s = 0.0, rows = 0.0;
	uint64_t launches = 0, trace_parts = 0;
	struct pace pc = {.t0 = t0,
	                  .seconds = seconds,
	                  .progress = progress,
	                  .next_s = t0 + 1.0};
	for (int t = 0; seconds > 0 || t < tasks; t++) {
		if (naive) {
			int64_t ns;
			if (launch_rows(&c, 0, n, &ns) < 0)
				return 1;
			dev_s += ns > 0 ? (double)ns * 1e-9 : 0.0;
			launches++;
			rows += n;
			if (pace_stop(&pc, rows))
				break;
			continue;
		}
		baton_be_task_begin(be, 1, n);
		int64_t off, cnt;
		int r = 0;
		bool stop = false;
		while (!stop) {
			r = baton_be_next(be, &off, &cnt);
			if (r == BATON_ETIMEDOUT && seconds > 0) {
				stop = pace_stop(&pc, rows);
				continue;
			}
			if (r <= 0)
				break;
			int64_t ns;
			double start = trace ? now_s() : 0.0;
			if (launch_rows(&c, off, cnt, &ns) < 0)
				return 1;
			dev_s += ns > 0 ? (double)ns * 1e-9 : 0.0;
			launches++;
			rows += (double)cnt;
			if (baton_be_done(be, off, cnt, ns) != BATON_OK)
				return 1;
			if (trace)
				trace_launch(trace, be, &trace_parts, start,
				             cnt, ns);
			stop = pace_stop(&pc, rows);
		}
		if (stop)
			break;
		if (r < 0) {
			fprintf(stderr, "be-matmul: baton_be_next: %s\n",
			        baton_strerror(r));
			return 1;
		}
	}
	double el = now_s() - t0;
	struct baton_be_info info = {.size = sizeof info};
	if (be)
		baton_be_info(be, &info);
	if (!quiet)
		printf("be-matmul: n %d, %.2f tasks, %.0f rows in %.3f s: "
		       "%.1f rows/s (work units/s), %.2f GFLOP/s, %llu "
		       "launches (%llu on a partition, %llu in the idle "
		       "lane), device busy %.1f %%, "
		       "alpha %.3f ms, %s%s\n",
		       n, rows / n, rows, el, rows / el,
		       2.0 * n * (double)n * rows / el * 1e-9,
		       (unsigned long long)launches,
		       (unsigned long long)info.partition_launches,
		       (unsigned long long)info.idle_launches,
		       100.0 * dev_s / el, (double)info.alpha_ns * 1e-6,
		       naive            ? "naive"
		       : info.connected ? "batond"
		                        : "probe",
		       info.continuous ? ", continuous" : "");
	int rc = want_check ? check(&c, a, b) : 0;
	if (want_check && !quiet)
		printf("be-matmul: check %s\n", rc ? "FAILED" : "ok");
	baton_be_close(be);
	if (trace)
		fclose(trace);
	cl_teardown(&c);
	free(a);
	free(b);
	return rc;
}
