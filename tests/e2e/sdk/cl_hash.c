/* cl-hash: an unmodified OpenCL program (it knows nothing of Baton) that
 * the launch-gate tests and the harvesting benchmark run as best-effort
 * work of a shape be-matmul is not: a 1-D kernel in which each work-item
 * runs an integer hash chain of --steps steps, launched over --items
 * work-items again and again (clEnqueueNDRangeKernel with no local size,
 * then clFinish), each launch salted with its number. Few long items
 * (4096 x 15000 steps, the default: about 0.1 s a launch on two cores)
 * or many short ones (65536 x 200) are the two shapes the tests use.
 * The kernel indexes with get_global_id, so the OpenCL gate may split it
 * (BATON_CL_SPLIT=hash_chain).
 *
 *   cl-hash [--items N] [--steps S] [--seconds T | --launches L]
 *           [--progress] [--progress-every S] [--check] [--quiet]
 *
 * --progress prints `cl-hash: progress T ITEMS` after the first launch
 * past each whole second (T in CLOCK_MONOTONIC seconds, ITEMS the
 * work-items done), for a caller to take the rate over its own window;
 * --progress-every S does so every S seconds instead.
 * --check compares the last launch's every item with the chain computed
 * on the host (a split that skipped or misplaced items fails). The last
 * line: `cl-hash: R items/s, L launches in T s`. Exit status 0, 1 on an
 * OpenCL error or bad argument, 3 when --check finds a wrong item, 77
 * with no OpenCL device (the tests' skip status). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The step is the same here and in the kernel: lowbias32's mixer plus
 * the step number, so no two steps are alike. */
#define HASH_STEP(x, s)                                                        \
	do {                                                                   \
		(x) ^= (x) >> 16;                                              \
		(x) *= 0x7feb352dU;                                            \
		(x) ^= (x) >> 15;                                              \
		(x) *= 0x846ca68bU;                                            \
		(x) ^= (x) >> 16;                                              \
		(x) += (s);                                                    \
	} while (0)

static const char *src =
    "__kernel void hash_chain(__global uint *out, uint steps, uint salt) {\n"
    "  uint i = get_global_id(0);\n"
    "  uint x = i ^ salt;\n"
    "  for (uint s = 0; s < steps; s++) {\n"
    "    x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15;\n"
    "    x *= 0x846ca68bU; x ^= x >> 16; x += s;\n"
    "  }\n"
    "  out[i] = x;\n"
    "}\n";

struct args {
	unsigned items, steps, launches;
	double seconds, every;
	bool progress, check, quiet;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool parse_uint(const char *opt, const char *s, unsigned lo, unsigned hi,
                       unsigned *out)
{
	char *end;
	unsigned long v = s ? strtoul(s, &end, 10) : 0;
	if (!s || end == s || *end || v < lo || v > hi) {
		fprintf(stderr,
		        "cl-hash: %s: '%s' is not an integer in [%u, %u]\n",
		        opt, s ? s : "", lo, hi);
		return false;
	}
	*out = (unsigned)v;
	return true;
}

static bool parse_seconds(const char *opt, const char *s, double *out)
{
	char *end;
	*out = s ? strtod(s, &end) : 0.0;
	if (s && end != s && !*end && *out > 0.0 && *out <= 86400.0)
		return true;
	fprintf(stderr, "cl-hash: %s: '%s' is not a number in (0, 86400]\n",
	        opt, s ? s : "");
	return false;
}

static int parse(int argc, char **argv, struct args *a)
{
	*a = (struct args){.items = 4096, .steps = 15000, .every = 1.0};
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool ok = true;
		if (!strcmp(o, "--items"))
			ok = parse_uint(o, v, 1, 1u << 26, &a->items), i++;
		else if (!strcmp(o, "--steps"))
			ok = parse_uint(o, v, 1, 1u << 30, &a->steps), i++;
		else if (!strcmp(o, "--launches"))
			ok = parse_uint(o, v, 1, 1u << 30, &a->launches), i++;
		else if (!strcmp(o, "--seconds"))
			ok = parse_seconds(o, v, &a->seconds), i++;
		else if (!strcmp(o, "--progress-every"))
			ok = parse_seconds(o, v, &a->every), i++,
			a->progress = true;
		else if (!strcmp(o, "--progress"))
			a->progress = true;
		else if (!strcmp(o, "--check"))
			a->check = true;
		else if (!strcmp(o, "--quiet"))
			a->quiet = true;
		else {
			fprintf(stderr,
			        "usage: cl-hash [--items N] [--steps S] "
			        "[--seconds T | --launches L] [--progress] "
			        "[--progress-every S] [--check] [--quiet]\n%s",
			        strcmp(o, "--help") ? ""
			                            : "(see the source's "
			                              "header)\n");
			return strcmp(o, "--help") ? 1 : 0;
		}
		if (!ok)
			return 1;
	}
	if (!a->launches && !(a->seconds > 0.0))
		a->launches = 10;
	return -1;
}

struct cl {
	cl_context ctx;
	cl_command_queue q;
	cl_kernel k;
	cl_mem out;
};

#define CHECK_CL(call, what)                                                   \
	do {                                                                   \
		cl_int e_ = (call);                                            \
		if (e_ != CL_SUCCESS) {                                        \
			fprintf(stderr, "cl-hash: %s failed (%d)\n", what,     \
			        e_);                                           \
			return 1;                                              \
		}                                                              \
	} while (0)

/* 0, 77 with no device, 1 on an error. */
static int cl_setup(struct cl *c, const struct args *a)
{
	cl_platform_id plat;
	cl_device_id dev;
	cl_int e;
	if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
	    clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) !=
	        CL_SUCCESS) {
		fprintf(stderr, "cl-hash: no OpenCL device\n");
		return 77;
	}
	c->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
	CHECK_CL(e, "clCreateContext");
	c->q = clCreateCommandQueue(c->ctx, dev, 0, &e);
	CHECK_CL(e, "clCreateCommandQueue");
	cl_program p = clCreateProgramWithSource(c->ctx, 1, &src, NULL, &e);
	CHECK_CL(e, "clCreateProgramWithSource");
	CHECK_CL(clBuildProgram(p, 1, &dev, NULL, NULL, NULL),
	         "clBuildProgram");
	c->k = clCreateKernel(p, "hash_chain", &e);
	CHECK_CL(e, "clCreateKernel hash_chain");
	clReleaseProgram(p);
	c->out = clCreateBuffer(c->ctx, CL_MEM_WRITE_ONLY,
	                        (size_t)a->items * sizeof(cl_uint), NULL, &e);
	CHECK_CL(e, "clCreateBuffer");
	CHECK_CL(clSetKernelArg(c->k, 0, sizeof(cl_mem), &c->out), "arg out");
	cl_uint steps = a->steps;
	CHECK_CL(clSetKernelArg(c->k, 1, sizeof(steps), &steps), "arg steps");
	return 0;
}

/* Every item of the launch salted salt, against the host's chain. */
static int check_items(struct cl *c, const struct args *a, cl_uint salt)
{
	cl_uint *got = malloc((size_t)a->items * sizeof(*got));
	if (!got)
		return 1;
	CHECK_CL(clEnqueueReadBuffer(c->q, c->out, CL_TRUE, 0,
	                             (size_t)a->items * sizeof(*got), got, 0,
	                             NULL, NULL),
	         "clEnqueueReadBuffer");
	for (cl_uint i = 0; i < a->items; i++) {
		uint32_t x = i ^ salt;
		for (uint32_t s = 0; s < a->steps; s++)
			HASH_STEP(x, s);
		if (got[i] != x) {
			fprintf(stderr, "cl-hash: item %u is %u, not %u\n", i,
			        got[i], x);
			free(got);
			return 3;
		}
	}
	free(got);
	return 0;
}

int main(int argc, char **argv)
{
	struct args a;
	int r = parse(argc, argv, &a);
	if (r >= 0)
		return r;
	struct cl c;
	r = cl_setup(&c, &a);
	if (r)
		return r;
	size_t global = a.items;
	double t0 = now_s(), next = t0 + a.every, items = 0.0, now = t0;
	cl_uint salt = 0;
	for (unsigned n = 0;; n++) {
		if (a.launches ? n >= a.launches : now - t0 >= a.seconds)
			break;
		salt = n + 1;
		CHECK_CL(clSetKernelArg(c.k, 2, sizeof(salt), &salt),
		         "arg salt");
		CHECK_CL(clEnqueueNDRangeKernel(c.q, c.k, 1, NULL, &global,
		                                NULL, 0, NULL, NULL),
		         "clEnqueueNDRangeKernel");
		CHECK_CL(clFinish(c.q), "clFinish");
		items += a.items;
		now = now_s();
		if (a.progress && now >= next) {
			printf("cl-hash: progress %.6f %.0f\n", now, items);
			fflush(stdout);
			while (next <= now)
				next += a.every;
		}
	}
	r = a.check ? check_items(&c, &a, salt) : 0;
	if (r == 0 && a.check && !a.quiet)
		printf("cl-hash: check ok\n");
	if (!a.quiet)
		printf("cl-hash: %.0f items/s, %.0f launches in %.3f s\n",
		       items / (now - t0), items / a.items, now - t0);
	return r;
}
