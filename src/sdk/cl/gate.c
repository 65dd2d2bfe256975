/* The OpenCL launch gate: libbaton_cl.so, preloaded by
 * `baton run --be` into a program that knows nothing of Baton. Every
 * clEnqueueNDRangeKernel waits for the window batond opens (or, with no
 * batond, GPU grid's probe loop), runs synchronously (clFinish), is timed
 * by queue profiling when the queue has it (else by the wall clock around
 * launch and finish) and reported as a BATON_FRAME_BE record: the BE SDK
 * (be.h) does the waiting, the sizing and the reporting.
 *
 * Splitting: a kernel named in BATON_CL_SPLIT (comma-separated) has its
 * NDRange cut along its last dimension, in work-groups, into sub-launches
 * the SDK sizes, with global_work_offset. Opt-in, because get_group_id
 * (unlike get_global_id) ignores the offset: a kernel that uses it would
 * compute the first groups again. A launch with no local size gets one
 * fixed work-group shape for all its sub-launches (fixed_local): left to
 * the runtime, the shape follows each sub-launch's size, and PoCL
 * compiles the kernel again for every new shape (45-95 ms each on two
 * cores, against sub-launches of 17 ms).
 *
 * Fail-open, as the shim: an internal error lets the launch go as the
 * program made it. A shut window is waited for at most
 * BATON_CL_MAX_WAIT_MS (default 1000) per launch, then the launch goes,
 * is reported as any other, and a line is logged: the gate never hangs a
 * program forever.
 *
 * Device enumeration (clGetPlatformIDs, clGetDeviceIDs,
 * clCreateContextFromType) is the device filter's, in devices.c. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdk/be_internal.h"

#define EXPORT __attribute__((visibility("default")))

typedef cl_int(CL_API_CALL *enqueue_fn)(cl_command_queue, cl_kernel, cl_uint,
                                        const size_t *, const size_t *,
                                        const size_t *, cl_uint,
                                        const cl_event *, cl_event *);
typedef void *(CL_API_CALL *ext_fn)(const char *);
typedef void *(CL_API_CALL *ext_plat_fn)(cl_platform_id, const char *);

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static baton_be *gate_be;
static bool gate_off; /* the SDK could not start: every launch goes */
static char split_list[1024];
/* The probe: an empty kernel built in the context of the queue the
 * current launch uses. */
static cl_command_queue probe_queue;
static cl_context probe_ctx;
static cl_kernel probe_kernel;

static enqueue_fn real_enqueue(void)
{
	static enqueue_fn fn;
	if (!fn)
		fn = (enqueue_fn)dlsym(RTLD_NEXT, "clEnqueueNDRangeKernel");
	return fn;
}

static int gate_probe(void *user)
{
	(void)user;
	cl_context ctx;
	if (clGetCommandQueueInfo(probe_queue, CL_QUEUE_CONTEXT, sizeof(ctx),
	                          &ctx, NULL) != CL_SUCCESS)
		return -1;
	if (ctx != probe_ctx || !probe_kernel) {
		if (probe_kernel)
			clReleaseKernel(probe_kernel);
		probe_kernel = NULL;
		probe_ctx = ctx;
		static const char *src = "__kernel void baton_probe(void) {}";
		cl_int e;
		cl_program p =
		    clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
		if (e != CL_SUCCESS)
			return -1;
		if (clBuildProgram(p, 0, NULL, NULL, NULL, NULL) == CL_SUCCESS)
			probe_kernel = clCreateKernel(p, "baton_probe", &e);
		clReleaseProgram(p);
		if (!probe_kernel)
			return -1;
	}
	size_t one = 1;
	enqueue_fn real = real_enqueue();
	if (!real || real(probe_queue, probe_kernel, 1, NULL, &one, NULL, 0,
	                  NULL, NULL) != CL_SUCCESS)
		return -1;
	return clFinish(probe_queue) == CL_SUCCESS ? 0 : -1;
}

/* A fork child must not report into its parent's memfd nor hold its
 * connection: it opens its own client at its first launch. */
static void forget_in_child(void)
{
	if (gate_be)
		be_conn_close(gate_be); /* close(2) only */
	gate_be = NULL;
	gate_off = false;
	probe_kernel = NULL;
	probe_ctx = NULL;
	pthread_mutex_init(&gate_lock, NULL);
}

/* Whether q's device is a CPU device: an OpenCL CPU runtime (PoCL)
 * computes on this process's threads, so the client may take a space
 * partition or the idle lane (baton_be_options.cpu_device). */
static bool queue_on_cpu(cl_command_queue q)
{
	cl_device_id dev;
	cl_device_type type;
	return clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(dev), &dev,
	                             NULL) == CL_SUCCESS &&
	       clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof(type), &type,
	                       NULL) == CL_SUCCESS &&
	       (type & CL_DEVICE_TYPE_CPU);
}

/* Under gate_lock, at the first launch (on probe_queue): the client,
 * from the environment `baton run --be` sets. */
static void gate_open(void)
{
	static bool atfork;
	if (!atfork)
		pthread_atfork(NULL, NULL, forget_in_child);
	atfork = true;
	const char *split = getenv("BATON_CL_SPLIT");
	snprintf(split_list, sizeof(split_list), ",%s,", split ? split : "");
	if (be_gate_open("OpenCL", "BATON_CL_MAX_WAIT_MS", gate_probe,
	                 queue_on_cpu(probe_queue), NULL, &gate_be) != BATON_OK)
		gate_off = true;
}

/* FNV-1a of the kernel's name: one fit per kernel. */
static uint32_t kernel_id(const char *name)
{
	uint32_t h = 2166136261u;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

static bool splittable(const char *name)
{
	char key[260];
	int n = snprintf(key, sizeof(key), ",%s,", name);
	return name[0] && n > 0 && (size_t)n < sizeof(key) &&
	       strstr(split_list, key);
}

/* The work-group shape a split launch of k on q's device runs in when
 * the program gave none: FIXED_LOCAL work-items along dimension 0 (the
 * largest power of two up to it that divides the global size and the
 * kernel allows), 1 along the others; the kernel's own
 * reqd_work_group_size if it has one. False (the launch goes in
 * work-items, as given) when the runtime does not say what it allows. */
#define FIXED_LOCAL 64
static bool fixed_local(cl_command_queue q, cl_kernel k, cl_uint dim,
                        const size_t *gsz, size_t loc[3])
{
	cl_device_id dev;
	size_t most = 0, reqd[3] = {0, 0, 0};
	if (dim < 1 || dim > 3 || !gsz ||
	    clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(dev), &dev,
	                          NULL) != CL_SUCCESS ||
	    clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE,
	                             sizeof(most), &most, NULL) != CL_SUCCESS ||
	    clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
	                             sizeof(reqd), reqd, NULL) != CL_SUCCESS)
		return false;
	if (reqd[0] && reqd[1] && reqd[2]) {
		for (cl_uint i = 0; i < dim; i++)
			if (gsz[i] % reqd[i])
				return false;
		memcpy(loc, reqd, sizeof(reqd));
		return true;
	}
	loc[0] = loc[1] = loc[2] = 1;
	while (loc[0] < FIXED_LOCAL && loc[0] * 2 <= most &&
	       gsz[0] % (loc[0] * 2) == 0)
		loc[0] *= 2;
	return true;
}

/* The blocks a split launch's sub-launches come in whole numbers of
 * (be_internal.h, granule): the compute units of q's device when a
 * block (a slice of the last dimension) is one work-group, so that every
 * unit has one in each round; else 1. */
static uint64_t rounds_of(cl_command_queue q, cl_uint dim, const size_t *gsz,
                          const size_t *lsz)
{
	for (cl_uint i = 0; i + 1 < dim; i++)
		if (!lsz || gsz[i] != lsz[i])
			return 1;
	cl_device_id dev;
	cl_uint units = 0;
	if (clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(dev), &dev,
	                          NULL) != CL_SUCCESS ||
	    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units),
	                    &units, NULL) != CL_SUCCESS)
		return 1;
	return units > 1 ? units : 1;
}

/* Device time of ev (START to END), else the wall time given. */
static int64_t launch_time(cl_event ev, int64_t wall_ns)
{
	cl_ulong t0, t1;
	if (ev &&
	    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t0),
	                            &t0, NULL) == CL_SUCCESS &&
	    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t1),
	                            &t1, NULL) == CL_SUCCESS &&
	    t1 >= t0)
		return (int64_t)(t1 - t0);
	return wall_ns;
}

/* The record of a sub-launch that took t_ns, released at release_ns:
 * given by the SDK (r > 0), or sent after the wait for a window timed
 * out. */
static void report(int r, int64_t off, int64_t cnt, int64_t t_ns,
                   int64_t release_ns)
{
	if (r > 0)
		baton_be_done(gate_be, off, cnt, t_ns);
	else
		be_report_unwindowed(gate_be, cnt, t_ns, release_ns);
}

/* One launch through the gate, under gate_lock. */
static cl_int gated(enqueue_fn real, cl_command_queue q, cl_kernel k,
                    cl_uint dim, const size_t *goff, const size_t *gsz,
                    const size_t *lsz, cl_uint nwait, const cl_event *wait,
                    cl_event *event)
{
	char name[256] = "";
	clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL);
	name[sizeof(name) - 1] = '\0';
	/* Blocks: work-groups (work-items if the runtime would not say
	 * what shape to fix) along the last dimension, when the kernel may
	 * be split; else one. */
	cl_uint d = dim ? dim - 1 : 0;
	size_t loc[3];
	if (!lsz && splittable(name) && fixed_local(q, k, dim, gsz, loc))
		lsz = loc;
	size_t unit = lsz && lsz[d] ? lsz[d] : 1;
	bool split = dim >= 1 && dim <= 3 && gsz && gsz[d] % unit == 0 &&
	             splittable(name);
	int64_t blocks = split ? (int64_t)(gsz[d] / unit) : 1;
	gate_be->granule = split ? rounds_of(q, dim, gsz, lsz) : 1;
	probe_queue = q;
	if (baton_be_task_begin(gate_be, kernel_id(name), blocks) != 0)
		return real(q, k, dim, goff, gsz, lsz, nwait, wait, event);
	size_t off_v[3] = {0, 0, 0}, gsz_v[3] = {0, 0, 0};
	for (cl_uint i = 0; split && i < dim; i++) {
		off_v[i] = goff ? goff[i] : 0;
		gsz_v[i] = gsz[i];
	}
	int64_t done = 0, off, cnt;
	cl_int ret = CL_SUCCESS;
	for (;;) {
		int r = baton_be_next(gate_be, &off, &cnt);
		if (r == 0)
			break;
		bool last;
		if (r < 0) {
			/* No window within the bound: the rest goes now. */
			off = done;
			cnt = blocks - done;
			last = true;
		} else {
			last = off + cnt >= blocks;
		}
		cl_event ev = NULL;
		const size_t *o = goff, *g = gsz;
		if (split) {
			off_v[d] = (goff ? goff[d] : 0) + (size_t)off * unit;
			gsz_v[d] = (size_t)cnt * unit;
			o = off_v;
			g = gsz_v;
		}
		int64_t t0 = be_now_ns();
		/* The program's wait list holds for the first sub-launch
		 * (the later ones follow it on a finished queue); its event
		 * is the last one's. */
		ret = real(q, k, dim, o, g, lsz, done ? 0 : nwait,
		           done ? NULL : wait, &ev);
		if (ret != CL_SUCCESS) {
			/* Nothing ran: nothing to report, but the SDK must
			 * not go on showing the sub-launch as in flight (the
			 * stuck rule would take it for a hung kernel).
			 * Abandoning the task clears it. */
			if (r > 0)
				baton_be_task_begin(gate_be, kernel_id(name),
				                    1);
			break;
		}
		clFinish(q);
		int64_t t = launch_time(ev, be_now_ns() - t0);
		report(r, off, cnt, t, t0);
		done = off + cnt;
		if (last && event)
			*event = ev;
		else
			clReleaseEvent(ev);
		if (r < 0 || last)
			break;
	}
	return ret;
}

EXPORT CL_API_ENTRY cl_int CL_API_CALL
clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim,
                       const size_t *goff, const size_t *gsz, const size_t *lsz,
                       cl_uint nwait, const cl_event *wait, cl_event *event)
{
	enqueue_fn real = real_enqueue();
	if (!real)
		return CL_OUT_OF_RESOURCES; /* no loader after us */
	pthread_mutex_lock(&gate_lock);
	if (!gate_be && !gate_off) {
		probe_queue = q;
		gate_open();
	}
	cl_int ret =
	    gate_off
	        ? real(q, k, dim, goff, gsz, lsz, nwait, wait, event)
	        : gated(real, q, k, dim, goff, gsz, lsz, nwait, wait, event);
	pthread_mutex_unlock(&gate_lock);
	return ret;
}

/* A program that looks the launch up by name gets the gate too. */
EXPORT CL_API_ENTRY void *CL_API_CALL
clGetExtensionFunctionAddress(const char *fname)
{
	if (fname && !strcmp(fname, "clEnqueueNDRangeKernel"))
		return (void *)clEnqueueNDRangeKernel;
	ext_fn real = (ext_fn)dlsym(RTLD_NEXT, "clGetExtensionFunctionAddress");
	return real ? real(fname) : NULL;
}

EXPORT CL_API_ENTRY void *CL_API_CALL
clGetExtensionFunctionAddressForPlatform(cl_platform_id p, const char *fname)
{
	if (fname && !strcmp(fname, "clEnqueueNDRangeKernel"))
		return (void *)clEnqueueNDRangeKernel;
	ext_plat_fn real = (ext_plat_fn)dlsym(
	    RTLD_NEXT, "clGetExtensionFunctionAddressForPlatform");
	return real ? real(p, fname) : NULL;
}
