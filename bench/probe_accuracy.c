/* GPU grid's probe loop on its own, for bench/probe_accuracy.py (the
 * probe's cost and accuracy against shim telemetry).
 *
 *   probe_accuracy [--seconds S] [--period-ms P] [--probes M] [--pct Q]
 *                  [--factor F] [--alpha-ns A]
 *
 * On the first OpenCL device: builds the SDK's empty kernel, calibrates
 * alpha with the SDK's own be_probe_calibrate (M probes, the Q
 * percentile times F; defaults 32, 95, 1.5, as baton_be_open), then for
 * S seconds probes every P ms on a fixed grid (sleeping between; a probe
 * that overruns its slot skips to the next) with the SDK's be_probe_once,
 * and feeds each verdict (k < alpha, as the SDK's probe loop) to the
 * core's core_harvest_observe with the default parameters (3 quiet in a
 * row enter continuous mode, one busy one leaves it). --alpha-ns A uses A
 * instead of the calibration (which still runs and is printed).
 *
 * Prints, one per line:
 *   device NAME
 *   alpha CALIBRATED_NS USED_NS
 *   probe START_NS K_NS QUIET CONTINUOUS   (START: CLOCK_MONOTONIC;
 *                                          K -1: the probe failed)
 *   cost PROBES CPU_NS_PER_PROBE WALL_S    (getrusage over the loop: the
 *                                          process's user + system time,
 *                                          PoCL's threads included)
 * Exit 0, 1 on an OpenCL failure, 2 on a usage error. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sdk/be_internal.h"

static const char *src = "__kernel void baton_probe(void) {}\n";

struct cl {
	cl_context ctx;
	cl_command_queue q;
	cl_kernel k;
};

/* The probe be-matmul gives the SDK: launched and finished. */
static int probe(void *user)
{
	struct cl *c = user;
	size_t one = 1;
	if (clEnqueueNDRangeKernel(c->q, c->k, 1, NULL, &one, NULL, 0, NULL,
	                           NULL) != CL_SUCCESS)
		return -1;
	return clFinish(c->q) == CL_SUCCESS ? 0 : -1;
}

static int cl_setup(struct cl *c)
{
	cl_platform_id plat;
	cl_device_id dev;
	cl_int e;
	if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
	    clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) !=
	        CL_SUCCESS) {
		fprintf(stderr, "probe_accuracy: no OpenCL device\n");
		return -1;
	}
	char name[256] = "?";
	clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(name) - 1, name, NULL);
	printf("device %s\n", name);
	c->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
	if (e != CL_SUCCESS)
		goto fail;
	c->q = clCreateCommandQueue(c->ctx, dev, 0, &e);
	if (e != CL_SUCCESS)
		goto fail;
	cl_program p = clCreateProgramWithSource(c->ctx, 1, &src, NULL, &e);
	if (e != CL_SUCCESS)
		goto fail;
	e = clBuildProgram(p, 1, &dev, NULL, NULL, NULL);
	if (e != CL_SUCCESS)
		goto fail;
	c->k = clCreateKernel(p, "baton_probe", &e);
	clReleaseProgram(p);
	if (e != CL_SUCCESS)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "probe_accuracy: OpenCL setup failed (%d)\n", e);
	return -1;
}

static int64_t cpu_ns(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
	           1000000000LL +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: probe_accuracy [--seconds S] [--period-ms P] "
	           "[--probes M]\n"
	           "                      [--pct Q] [--factor F] "
	           "[--alpha-ns A]\n"
	           "GPU grid's probe loop (the BE SDK's, without batond) on "
	           "the first OpenCL\ndevice: one line per probe (start ns, k "
	           "ns, quiet, continuous).\n"
	           "  --seconds S    how long to probe (default 20)\n"
	           "  --period-ms P  one probe every P ms (default 5)\n"
	           "  --probes M     calibration probes (default 32)\n"
	           "  --pct Q        alpha's percentile (default 95)\n"
	           "  --factor F     alpha's factor (default 1.5)\n"
	           "  --alpha-ns A   use A as alpha (the calibration is still "
	           "printed)\n");
}

/* A number in [lo, hi] from opt's argument s, else exits 2 naming it. */
static double num(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr,
		        "probe_accuracy: %s '%s': want a number in [%g, %g]\n",
		        opt, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	double seconds = 20.0, period_ms = 5.0, pct = 95.0, factor = 1.5;
	double probes = 32, alpha_opt = 0;
	static const struct option opts[] = {
	    {"seconds", required_argument, NULL, 's'},
	    {"period-ms", required_argument, NULL, 'p'},
	    {"probes", required_argument, NULL, 'm'},
	    {"pct", required_argument, NULL, 'q'},
	    {"factor", required_argument, NULL, 'f'},
	    {"alpha-ns", required_argument, NULL, 'a'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int o;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			seconds = num("--seconds", optarg, 0.1, 86400);
			break;
		case 'p':
			period_ms = num("--period-ms", optarg, 0.1, 10000);
			break;
		case 'm':
			probes = num("--probes", optarg, 1, 100000);
			break;
		case 'q':
			pct = num("--pct", optarg, 0.001, 100);
			break;
		case 'f':
			factor = num("--factor", optarg, 0.001, 1000);
			break;
		case 'a':
			alpha_opt = num("--alpha-ns", optarg, 1, 1e12);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "probe_accuracy: %s needs a value\n",
			        argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr,
			        "probe_accuracy: unknown "
			        "option '%s'\n",
			        argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "probe_accuracy: unexpected argument '%s'\n",
		        argv[optind]);
		usage(stderr);
		return 2;
	}

	struct cl c = {0};
	if (cl_setup(&c) != 0)
		return 1;
	/* The SDK's handle with only what its probe functions read. */
	static struct baton_be be;
	be.opt.probe = probe;
	be.opt.probe_user = &c;
	int64_t calibrated =
	    be_probe_calibrate(&be, (uint32_t)probes, pct, factor);
	if (calibrated < 0) {
		fprintf(stderr, "probe_accuracy: the probe failed while "
		                "calibrating\n");
		return 1;
	}
	int64_t alpha = alpha_opt > 0 ? (int64_t)alpha_opt : calibrated;
	printf("alpha %lld %lld\n", (long long)calibrated, (long long)alpha);

	struct core_harvest_params hp = core_harvest_params_default();
	struct core_be_tenant t = {.probe = true};
	int64_t period = (int64_t)(period_ms * 1e6);
	/* Kept in memory, printed after the loop: the printing is not the
	 * probe's cost. */
	size_t cap = (size_t)(seconds * 1e3 / period_ms) + 2;
	struct row {
		int64_t start, k;
		bool quiet, cont;
	} *rows = malloc(cap * sizeof(*rows));
	if (!rows) {
		fprintf(stderr,
		        "probe_accuracy: out of memory for %zu probes\n", cap);
		return 1;
	}
	int64_t t0 = be_now_ns(), end = t0 + (int64_t)(seconds * 1e9);
	int64_t cpu0 = cpu_ns();
	size_t n = 0;
	for (int64_t next = t0; next < end && n < cap; next += period) {
		if (be_now_ns() > next)
			continue; /* overran: the next slot */
		be_sleep_until(next);
		int64_t start = be_now_ns();
		int64_t k = be_probe_once(&be);
		/* The SDK's rule: a failed probe counts busy. */
		bool quiet = k >= 0 && k < alpha;
		enum core_harvest_mode m = core_harvest_observe(&hp, &t, quiet);
		rows[n++] =
		    (struct row){start, k, quiet, m == CORE_HARVEST_CONTINUOUS};
	}
	int64_t cpu = cpu_ns() - cpu0;
	double wall = (double)(be_now_ns() - t0) * 1e-9;
	for (size_t i = 0; i < n; i++)
		printf("probe %lld %lld %d %d\n", (long long)rows[i].start,
		       (long long)rows[i].k, rows[i].quiet, rows[i].cont);
	printf("cost %zu %lld %.3f\n", n, (long long)(n ? cpu / (int64_t)n : 0),
	       wall);
	free(rows);
	clReleaseKernel(c.k);
	clReleaseCommandQueue(c.q);
	clReleaseContext(c.ctx);
	return 0;
}
