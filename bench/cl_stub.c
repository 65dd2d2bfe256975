/* A fake OpenCL runtime for bench/be_overhead: libOpenCL.so.1, built in
 * its own folder (bench/cl_stub/) so that putting that folder first on
 * LD_LIBRARY_PATH loads it in place of the ICD loader.
 *
 * Why: the OpenCL gate's CPU cost per launch is a few microseconds, and a
 * real runtime's launch + finish (PoCL's 36-82 us medians on this
 * machine, from one run to the next) hides it. Here every call returns at
 * once, so gated minus plain is the gate's own work. A bench tool, not a
 * test double: it checks almost nothing and runs no kernel.
 *
 * It has what be_overhead and the gate call on the launch path: one
 * platform, one device (a GPU), and static context, queue, program,
 * kernel and event handles. clGetEventProfilingInfo reports a 1 us
 * kernel, even on a queue made without CL_QUEUE_PROFILING_ENABLE, so the
 * gate takes its profiling path (two calls) as on a profiled GPU queue. */
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* Opaque to the caller; only their addresses matter. */
struct _cl_platform_id {
	int unused;
};
struct _cl_device_id {
	int unused;
};
struct _cl_context {
	int unused;
};
struct _cl_command_queue {
	int unused;
};
struct _cl_program {
	int unused;
};
struct _cl_kernel {
	int unused;
};
struct _cl_event {
	int unused;
};

static struct _cl_platform_id platform;
static struct _cl_device_id device;
static struct _cl_context context;
static struct _cl_command_queue queue;
static struct _cl_program program;
static struct _cl_kernel kernel;
static struct _cl_event event;
static char kernel_name[64] = "nothing";
static atomic_long launches;

#define PLATFORM_NAME "Baton CL stub"

/* Copies a value out as clGet*Info does. */
static cl_int info(const void *v, size_t n, size_t size, void *out,
                   size_t *size_ret)
{
	if (size_ret)
		*size_ret = n;
	if (out) {
		if (size < n)
			return CL_INVALID_VALUE;
		memcpy(out, v, n);
	}
	return CL_SUCCESS;
}

static void set_err(cl_int *err, cl_int e)
{
	if (err)
		*err = e;
}

/* The launches the stub took: be_overhead checks that its own reached
 * here (dlsym(RTLD_DEFAULT, ...); no header). */
EXPORT long baton_cl_stub_launches(void);
EXPORT long baton_cl_stub_launches(void)
{
	return atomic_load(&launches);
}

EXPORT cl_int clGetPlatformIDs(cl_uint n, cl_platform_id *out, cl_uint *num)
{
	if (num)
		*num = 1;
	if (out && n)
		out[0] = &platform;
	return out && !n ? CL_INVALID_VALUE : CL_SUCCESS;
}

EXPORT cl_int clGetPlatformInfo(cl_platform_id p, cl_platform_info what,
                                size_t size, void *out, size_t *size_ret)
{
	if (p != &platform)
		return CL_INVALID_PLATFORM;
	switch (what) {
	case CL_PLATFORM_NAME:
	case CL_PLATFORM_VENDOR:
		return info(PLATFORM_NAME, sizeof(PLATFORM_NAME), size, out,
		            size_ret);
	case CL_PLATFORM_VERSION:
		return info("OpenCL 1.2 stub", sizeof("OpenCL 1.2 stub"), size,
		            out, size_ret);
	default:
		return info("", 1, size, out, size_ret);
	}
}

EXPORT cl_int clGetDeviceIDs(cl_platform_id p, cl_device_type type, cl_uint n,
                             cl_device_id *out, cl_uint *num)
{
	(void)type;
	if (p != &platform)
		return CL_INVALID_PLATFORM;
	if (num)
		*num = 1;
	if (out && n)
		out[0] = &device;
	return out && !n ? CL_INVALID_VALUE : CL_SUCCESS;
}

/* A GPU, so that the gate neither asks for the idle lane nor a space
 * partition (those are for CPU runtimes): its launch path as on a GPU. */
EXPORT cl_int clGetDeviceInfo(cl_device_id d, cl_device_info what, size_t size,
                              void *out, size_t *size_ret)
{
	if (d != &device)
		return CL_INVALID_DEVICE;
	if (what != CL_DEVICE_TYPE)
		return CL_INVALID_VALUE;
	cl_device_type gpu = CL_DEVICE_TYPE_GPU;
	return info(&gpu, sizeof(gpu), size, out, size_ret);
}

EXPORT cl_context clCreateContext(
    const cl_context_properties *props, cl_uint n, const cl_device_id *devs,
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
    void *user, cl_int *err)
{
	(void)props, (void)notify, (void)user;
	if (n != 1 || !devs || devs[0] != &device) {
		set_err(err, CL_INVALID_DEVICE);
		return NULL;
	}
	set_err(err, CL_SUCCESS);
	return &context;
}

EXPORT cl_int clReleaseContext(cl_context c)
{
	return c == &context ? CL_SUCCESS : CL_INVALID_CONTEXT;
}

EXPORT cl_command_queue clCreateCommandQueue(cl_context c, cl_device_id d,
                                             cl_command_queue_properties p,
                                             cl_int *err)
{
	(void)p;
	if (c != &context || d != &device) {
		set_err(err, CL_INVALID_VALUE);
		return NULL;
	}
	set_err(err, CL_SUCCESS);
	return &queue;
}

EXPORT cl_int clReleaseCommandQueue(cl_command_queue q)
{
	return q == &queue ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

EXPORT cl_int clGetCommandQueueInfo(cl_command_queue q,
                                    cl_command_queue_info what, size_t size,
                                    void *out, size_t *size_ret)
{
	if (q != &queue)
		return CL_INVALID_COMMAND_QUEUE;
	cl_context c = &context;
	cl_device_id d = &device;
	switch (what) {
	case CL_QUEUE_CONTEXT:
		return info(&c, sizeof(c), size, out, size_ret);
	case CL_QUEUE_DEVICE:
		return info(&d, sizeof(d), size, out, size_ret);
	default:
		return CL_INVALID_VALUE;
	}
}

EXPORT cl_program clCreateProgramWithSource(cl_context c, cl_uint n,
                                            const char **src, const size_t *len,
                                            cl_int *err)
{
	(void)len;
	if (c != &context || !n || !src) {
		set_err(err, CL_INVALID_VALUE);
		return NULL;
	}
	set_err(err, CL_SUCCESS);
	return &program;
}

EXPORT cl_int clBuildProgram(cl_program p, cl_uint n, const cl_device_id *devs,
                             const char *opts,
                             void(CL_CALLBACK *notify)(cl_program, void *),
                             void *user)
{
	(void)n, (void)devs, (void)opts, (void)notify, (void)user;
	return p == &program ? CL_SUCCESS : CL_INVALID_PROGRAM;
}

EXPORT cl_int clReleaseProgram(cl_program p)
{
	return p == &program ? CL_SUCCESS : CL_INVALID_PROGRAM;
}

/* One kernel object: the last name asked for (the gate's probe asks for
 * baton_probe, which it never does on this path: the window is open). */
EXPORT cl_kernel clCreateKernel(cl_program p, const char *name, cl_int *err)
{
	if (p != &program || !name || strlen(name) >= sizeof(kernel_name)) {
		set_err(err, CL_INVALID_VALUE);
		return NULL;
	}
	strcpy(kernel_name, name);
	set_err(err, CL_SUCCESS);
	return &kernel;
}

EXPORT cl_int clReleaseKernel(cl_kernel k)
{
	return k == &kernel ? CL_SUCCESS : CL_INVALID_KERNEL;
}

EXPORT cl_int clGetKernelInfo(cl_kernel k, cl_kernel_info what, size_t size,
                              void *out, size_t *size_ret)
{
	if (k != &kernel)
		return CL_INVALID_KERNEL;
	if (what != CL_KERNEL_FUNCTION_NAME)
		return CL_INVALID_VALUE;
	return info(kernel_name, strlen(kernel_name) + 1, size, out, size_ret);
}

EXPORT cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k,
                                     cl_uint dim, const size_t *goff,
                                     const size_t *gsz, const size_t *lsz,
                                     cl_uint nwait, const cl_event *wait,
                                     cl_event *ev)
{
	(void)goff, (void)lsz, (void)wait;
	if (q != &queue)
		return CL_INVALID_COMMAND_QUEUE;
	if (k != &kernel)
		return CL_INVALID_KERNEL;
	if (dim < 1 || dim > 3 || !gsz || (nwait && !wait))
		return CL_INVALID_VALUE;
	atomic_fetch_add_explicit(&launches, 1, memory_order_relaxed);
	if (ev)
		*ev = &event;
	return CL_SUCCESS;
}

EXPORT cl_int clFinish(cl_command_queue q)
{
	return q == &queue ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

EXPORT cl_int clReleaseEvent(cl_event e)
{
	return e == &event ? CL_SUCCESS : CL_INVALID_EVENT;
}

/* A 1-us kernel that started at 1 ms of device time. */
EXPORT cl_int clGetEventProfilingInfo(cl_event e, cl_profiling_info what,
                                      size_t size, void *out, size_t *size_ret)
{
	if (e != &event)
		return CL_INVALID_EVENT;
	cl_ulong t;
	switch (what) {
	case CL_PROFILING_COMMAND_QUEUED:
	case CL_PROFILING_COMMAND_SUBMIT:
	case CL_PROFILING_COMMAND_START:
		t = 1000000;
		break;
	case CL_PROFILING_COMMAND_END:
		t = 1001000;
		break;
	default:
		return CL_INVALID_VALUE;
	}
	return info(&t, sizeof(t), size, out, size_ret);
}

/* No extensions: the gate answers clEnqueueNDRangeKernel itself. */
EXPORT void *clGetExtensionFunctionAddress(const char *name)
{
	(void)name;
	return NULL;
}

EXPORT void *clGetExtensionFunctionAddressForPlatform(cl_platform_id p,
                                                      const char *name)
{
	(void)p, (void)name;
	return NULL;
}
