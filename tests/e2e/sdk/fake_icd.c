/* A fake OpenCL driver (an ICD) for the gate's device-filter tests
 * (cl_devices_e2e.py): one platform, "Baton fake ICD", with three GPU
 * devices that identify themselves as real GPUs do, which PoCL here
 * does not:
 *   fake-a  cl_khr_device_uuid a0a1...af, cl_khr_pci_bus_info 0000:0a:00.0
 *   fake-b  cl_khr_device_uuid b0b1...bf, cl_khr_pci_bus_info 0000:0b:00.0
 *   fake-c  no UUID query;                cl_khr_pci_bus_info 0000:0c:00.0
 * It can list them, answer their queries and make contexts of them;
 * nothing runs on them.
 *
 * Where the format comes from:
 * - the Khronos OpenCL Extension Specification, cl_khr_icd: a driver
 *   exports clIcdGetPlatformIDsKHR, its platforms list cl_khr_icd in
 *   CL_PLATFORM_EXTENSIONS and answer CL_PLATFORM_ICD_SUFFIX_KHR, and
 *   every object it hands out begins with a pointer to its dispatch
 *   table, struct _cl_icd_dispatch of CL/cl_icd.h (Khronos's
 *   OpenCL-Headers, Debian's opencl-c-headers), through which the
 *   loader calls it;
 * - ocl-icd's libOpenCL(7): the loader reads the .icd files (one line,
 *   the library's path) of the folder OCL_ICD_VENDORS names; it looks
 *   up clIcdGetPlatformIDsKHR and clGetPlatformInfo by name;
 * - cl_khr_device_uuid (CL_DEVICE_UUID_KHR: CL_UUID_SIZE_KHR bytes) and
 *   cl_khr_pci_bus_info (CL_DEVICE_PCI_BUS_INFO_KHR: struct
 *   cl_device_pci_bus_info_khr) in the same specification; a query a
 *   device does not support is CL_INVALID_VALUE, as PoCL answers. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define N_DEV  3

static struct _cl_icd_dispatch dispatch;

struct _cl_platform_id {
	struct _cl_icd_dispatch *d;
};
struct _cl_device_id {
	struct _cl_icd_dispatch *d;
	const char *name, *extensions;
	cl_uchar uuid[CL_UUID_SIZE_KHR];
	cl_device_pci_bus_info_khr pci;
};
struct _cl_context {
	struct _cl_icd_dispatch *d;
	cl_uint refs, n;
	cl_device_id dev[N_DEV];
};

static struct _cl_platform_id platform = {&dispatch};
static struct _cl_device_id devices[N_DEV] = {
    {&dispatch,
     "fake-a",
     "cl_khr_device_uuid cl_khr_pci_bus_info",
     {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab,
      0xac, 0xad, 0xae, 0xaf},
     {0, 0x0a, 0, 0}},
    {&dispatch,
     "fake-b",
     "cl_khr_device_uuid cl_khr_pci_bus_info",
     {0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb,
      0xbc, 0xbd, 0xbe, 0xbf},
     {0, 0x0b, 0, 0}},
    {&dispatch, "fake-c", "cl_khr_pci_bus_info", {0}, {0, 0x0c, 0, 0}},
};

/* One answer of a clGet*Info: size bytes of v. */
static cl_int info(const void *v, size_t size, size_t room, void *out,
                   size_t *size_out)
{
	if (out && room < size)
		return CL_INVALID_VALUE;
	if (out)
		memcpy(out, v, size);
	if (size_out)
		*size_out = size;
	return CL_SUCCESS;
}

static cl_int CL_API_CALL get_platform_ids(cl_uint room, cl_platform_id *out,
                                           cl_uint *n)
{
	if ((room == 0 && out) || (!out && !n))
		return CL_INVALID_VALUE;
	if (out)
		out[0] = &platform;
	if (n)
		*n = 1;
	return CL_SUCCESS;
}

EXPORT CL_API_ENTRY cl_int CL_API_CALL
clIcdGetPlatformIDsKHR(cl_uint room, cl_platform_id *out, cl_uint *n)
{
	return get_platform_ids(room, out, n);
}

static cl_int CL_API_CALL get_platform_info(cl_platform_id p,
                                            cl_platform_info what, size_t room,
                                            void *out, size_t *size)
{
	const char *s;
	if (p != &platform)
		return CL_INVALID_PLATFORM;
	switch (what) {
	case CL_PLATFORM_PROFILE:
		s = "FULL_PROFILE";
		break;
	case CL_PLATFORM_VERSION:
		s = "OpenCL 1.2 Baton fake";
		break;
	case CL_PLATFORM_NAME:
		s = "Baton fake ICD";
		break;
	case CL_PLATFORM_VENDOR:
		s = "Baton tests";
		break;
	case CL_PLATFORM_EXTENSIONS:
		s = "cl_khr_icd";
		break;
	case CL_PLATFORM_ICD_SUFFIX_KHR:
		s = "BatonFake";
		break;
	default:
		return CL_INVALID_VALUE;
	}
	return info(s, strlen(s) + 1, room, out, size);
}

/* Exported for the loader, which looks it up by name: the dispatch
 * table points at the static function, never at this name, which
 * resolves to the loader's own entry point from inside this library. */
EXPORT CL_API_ENTRY cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id p,
                                                         cl_platform_info what,
                                                         size_t room, void *out,
                                                         size_t *size)
{
	return get_platform_info(p, what, room, out, size);
}

static cl_int CL_API_CALL get_device_ids(cl_platform_id p, cl_device_type type,
                                         cl_uint room, cl_device_id *out,
                                         cl_uint *n)
{
	if (p != &platform)
		return CL_INVALID_PLATFORM;
	if ((room == 0 && out) || (!out && !n))
		return CL_INVALID_VALUE;
	/* all three are GPUs; the default is the first */
	cl_uint k = type == CL_DEVICE_TYPE_DEFAULT ? 1
	            : type & CL_DEVICE_TYPE_GPU    ? N_DEV
	                                           : 0;
	for (cl_uint i = 0; out && i < k && i < room; i++)
		out[i] = &devices[i];
	if (n)
		*n = k;
	return k ? CL_SUCCESS : CL_DEVICE_NOT_FOUND;
}

static bool has(cl_device_id d, const char *ext)
{
	return strstr(d->extensions, ext) != NULL;
}

static cl_int CL_API_CALL get_device_info(cl_device_id d, cl_device_info what,
                                          size_t room, void *out, size_t *size)
{
	cl_device_type gpu = CL_DEVICE_TYPE_GPU;
	cl_bool yes = CL_TRUE;
	cl_platform_id p = &platform;
	switch (what) {
	case CL_DEVICE_TYPE:
		return info(&gpu, sizeof(gpu), room, out, size);
	case CL_DEVICE_AVAILABLE:
		return info(&yes, sizeof(yes), room, out, size);
	case CL_DEVICE_PLATFORM:
		return info(&p, sizeof(p), room, out, size);
	case CL_DEVICE_NAME:
		return info(d->name, strlen(d->name) + 1, room, out, size);
	case CL_DEVICE_VENDOR:
		return info("Baton tests", 12, room, out, size);
	case CL_DEVICE_VERSION:
		return info("OpenCL 1.2 Baton fake", 22, room, out, size);
	case CL_DEVICE_EXTENSIONS:
		return info(d->extensions, strlen(d->extensions) + 1, room, out,
		            size);
	case CL_DEVICE_UUID_KHR:
		if (!has(d, "cl_khr_device_uuid"))
			return CL_INVALID_VALUE;
		return info(d->uuid, sizeof(d->uuid), room, out, size);
	case CL_DEVICE_PCI_BUS_INFO_KHR:
		if (!has(d, "cl_khr_pci_bus_info"))
			return CL_INVALID_VALUE;
		return info(&d->pci, sizeof(d->pci), room, out, size);
	default:
		return CL_INVALID_VALUE;
	}
}

static bool ours(cl_device_id d)
{
	return d >= devices && d < devices + N_DEV;
}

static cl_context CL_API_CALL create_context(
    const cl_context_properties *props, cl_uint n, const cl_device_id *dev,
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
    void *user, cl_int *err)
{
	(void)props, (void)notify, (void)user;
	cl_int e = n && n <= N_DEV && dev ? CL_SUCCESS : CL_INVALID_VALUE;
	for (cl_uint i = 0; e == CL_SUCCESS && i < n; i++)
		if (!ours(dev[i]))
			e = CL_INVALID_DEVICE;
	struct _cl_context *c = e == CL_SUCCESS ? calloc(1, sizeof(*c)) : NULL;
	if (c) {
		*c = (struct _cl_context){.d = &dispatch, .refs = 1, .n = n};
		memcpy(c->dev, dev, n * sizeof(*dev));
	} else if (e == CL_SUCCESS) {
		e = CL_OUT_OF_HOST_MEMORY;
	}
	if (err)
		*err = e;
	return c;
}

static cl_context CL_API_CALL create_context_from_type(
    const cl_context_properties *props, cl_device_type type,
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
    void *user, cl_int *err)
{
	cl_device_id dev[N_DEV];
	cl_uint n = 0;
	cl_int e = get_device_ids(&platform, type, N_DEV, dev, &n);
	if (e != CL_SUCCESS) {
		if (err)
			*err = e;
		return NULL;
	}
	return create_context(props, n, dev, notify, user, err);
}

static cl_int CL_API_CALL retain_context(cl_context c)
{
	c->refs++;
	return CL_SUCCESS;
}

static cl_int CL_API_CALL release_context(cl_context c)
{
	if (--c->refs == 0)
		free(c);
	return CL_SUCCESS;
}

static cl_int CL_API_CALL get_context_info(cl_context c, cl_context_info what,
                                           size_t room, void *out, size_t *size)
{
	switch (what) {
	case CL_CONTEXT_REFERENCE_COUNT:
		return info(&c->refs, sizeof(c->refs), room, out, size);
	case CL_CONTEXT_NUM_DEVICES:
		return info(&c->n, sizeof(c->n), room, out, size);
	case CL_CONTEXT_DEVICES:
		return info(c->dev, c->n * sizeof(c->dev[0]), room, out, size);
	default:
		return CL_INVALID_VALUE;
	}
}

static cl_int CL_API_CALL retain_device(cl_device_id d)
{
	return ours(d) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

/* The loader calls through this table; what it leaves NULL the fake
 * does not do. */
static struct _cl_icd_dispatch dispatch = {
    .clGetPlatformIDs = get_platform_ids,
    .clGetPlatformInfo = get_platform_info,
    .clGetDeviceIDs = get_device_ids,
    .clGetDeviceInfo = get_device_info,
    .clCreateContext = create_context,
    .clCreateContextFromType = create_context_from_type,
    .clRetainContext = retain_context,
    .clReleaseContext = release_context,
    .clGetContextInfo = get_context_info,
    .clRetainDevice = retain_device,
    .clReleaseDevice = retain_device,
};

EXPORT CL_API_ENTRY void *CL_API_CALL
clGetExtensionFunctionAddress(const char *name)
{
	if (name && strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
		return (void *)clIcdGetPlatformIDsKHR;
	return NULL;
}
