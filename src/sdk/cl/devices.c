/* The OpenCL gate's device filter: where baton run placed the program on
 * a GPU (BATON_VK_DEVICE_UUID, BATON_DEVICE_PCI; or the user set them),
 * clGetDeviceIDs and clCreateContextFromType show it only that device,
 * and clGetPlatformIDs only the platforms that hold it, so that a
 * program taking the first platform's first device computes where batond
 * admitted it. A device is that one when its CL_DEVICE_UUID_KHR
 * (cl_khr_device_uuid: the same UUID Vulkan's deviceUUID is) is the
 * UUID, or, where it reports none, its CL_DEVICE_PCI_BUS_INFO_KHR
 * (cl_khr_pci_bus_info) is the slot (device_match.h). Every other
 * device is hidden, a CPU runtime's beside it too.
 *
 * Fail-open, as the rest of the gate: the filter is worked out once, at
 * the first of these calls; when no device is that one (no device
 * reports a UUID or a slot, as PoCL's do not, or the placed GPU has no
 * OpenCL driver here), nothing is hidden and one line says so; a
 * malformed value is ignored with a line naming it. The gate never
 * leaves a program with no device for Baton's sake. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdk/be_internal.h"
#include "sdk/cl/device_match.h"

#define EXPORT __attribute__((visibility("default")))

typedef cl_int(CL_API_CALL *platforms_fn)(cl_uint, cl_platform_id *, cl_uint *);
typedef cl_int(CL_API_CALL *devices_fn)(cl_platform_id, cl_device_type, cl_uint,
                                        cl_device_id *, cl_uint *);
typedef void(CL_CALLBACK *notify_fn)(const char *, const void *, size_t,
                                     void *);
typedef cl_context(CL_API_CALL *from_type_fn)(const cl_context_properties *,
                                              cl_device_type, notify_fn, void *,
                                              cl_int *);

/* Set once (filter_setup), read-only after. */
static struct {
	platforms_fn platforms;
	devices_fn devices;
	from_type_fn from_type;
	bool on;              /* some device is the one placed on */
	cl_uint n_kept;       /* the devices shown, */
	cl_device_id *kept;   /* in the loader's order, */
	cl_platform_id *home; /* each one's platform */
	cl_uint n_shown;      /* the platforms shown */
	cl_platform_id *shown;
} filt;
static pthread_once_t filt_once = PTHREAD_ONCE_INIT;
/* This thread is in filter_setup: a driver that calls an entry point by
 * its name while the loader starts it reaches these wrappers, which
 * must pass it on rather than wait for the setup they are part of. */
static _Thread_local bool in_setup;

/* Whether d lists extension ext in CL_DEVICE_EXTENSIONS. */
static bool has_ext(cl_device_id d, const char *ext)
{
	size_t len = 0;
	if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &len) !=
	        CL_SUCCESS ||
	    len == 0)
		return false;
	char *s = malloc(len + 2);
	bool found = false;
	if (s && clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, len, s + 1, NULL) ==
	             CL_SUCCESS) {
		/* " list " against " ext ": a whole name, not a prefix */
		s[0] = ' ';
		s[len] = ' ';
		s[len + 1] = '\0';
		for (char *p = s; *p; p++)
			if (*p == '\t' || *p == '\n')
				*p = ' ';
		char key[64];
		snprintf(key, sizeof(key), " %s ", ext);
		found = strstr(s, key) != NULL;
	}
	free(s);
	return found;
}

static struct cl_device_ident ident_of(cl_device_id d)
{
	struct cl_device_ident id = {0};
	cl_device_pci_bus_info_khr pci;
	id.has_uuid = has_ext(d, "cl_khr_device_uuid") &&
	              clGetDeviceInfo(d, CL_DEVICE_UUID_KHR, sizeof(id.uuid),
	                              id.uuid, NULL) == CL_SUCCESS;
	if (has_ext(d, "cl_khr_pci_bus_info") &&
	    clGetDeviceInfo(d, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof(pci), &pci,
	                    NULL) == CL_SUCCESS) {
		id.has_pci = true;
		id.pci = (struct ipc_pci_slot){
		    .domain = pci.pci_domain,
		    .bus = (uint8_t)pci.pci_bus,
		    .device = (uint8_t)pci.pci_device,
		    .function = (uint8_t)pci.pci_function};
	}
	return id;
}

/* Every platform the loader lists, malloc'd, in *n; NULL with *n 0 for
 * none or an error. */
static cl_platform_id *all_platforms(cl_uint *n)
{
	*n = 0;
	cl_platform_id *p = NULL;
	if (filt.platforms(0, NULL, n) != CL_SUCCESS || *n == 0 ||
	    !(p = calloc(*n, sizeof(*p))) ||
	    filt.platforms(*n, p, NULL) != CL_SUCCESS) {
		free(p);
		*n = 0;
		return NULL;
	}
	return p;
}

/* The devices of type on p the loader lists, malloc'd, in *n; none is
 * not an error (NULL, *n 0, *err CL_SUCCESS), the loader's errors are
 * in *err. */
static cl_device_id *devices_of(cl_platform_id p, cl_device_type type,
                                cl_uint *n, cl_int *err)
{
	*n = 0;
	cl_device_id *d = NULL;
	*err = filt.devices(p, type, 0, NULL, n);
	if (*err == CL_DEVICE_NOT_FOUND || (*err == CL_SUCCESS && *n == 0)) {
		*err = CL_SUCCESS;
		*n = 0;
		return NULL;
	}
	if (*err == CL_SUCCESS && !(d = calloc(*n, sizeof(*d))))
		*err = CL_OUT_OF_HOST_MEMORY;
	if (*err == CL_SUCCESS)
		*err = filt.devices(p, type, *n, d, NULL);
	if (*err != CL_SUCCESS) {
		free(d);
		*n = 0;
		return NULL;
	}
	return d;
}

/* Appends d, of platform p, to the devices shown; false when out of
 * memory (then it is not). */
static bool keep(cl_device_id d, cl_platform_id p)
{
	cl_uint n = filt.n_kept + 1;
	cl_device_id *kept = realloc(filt.kept, n * sizeof(*kept));
	if (kept)
		filt.kept = kept;
	cl_platform_id *home = realloc(filt.home, n * sizeof(*home));
	if (home)
		filt.home = home;
	if (!kept || !home)
		return false;
	filt.kept[filt.n_kept] = d;
	filt.home[filt.n_kept++] = p;
	return true;
}

/* Adds platform p's devices that are the one wanted to filt; counts
 * those that report a UUID and a slot. */
static void keep_matches(cl_platform_id p, const struct cl_device_ident *want,
                         unsigned counts[3])
{
	cl_uint n;
	cl_int err;
	cl_device_id *d = devices_of(p, CL_DEVICE_TYPE_ALL, &n, &err);
	bool any = false;
	for (cl_uint i = 0; i < n; i++) {
		struct cl_device_ident id = ident_of(d[i]);
		counts[0]++;
		counts[1] += id.has_uuid;
		counts[2] += id.has_pci;
		if (cl_device_is(&id, want) && keep(d[i], p))
			any = true;
	}
	if (any)
		filt.shown[filt.n_shown++] = p;
	free(d);
}

/* Once, at the first call the filter answers (filter_setup): the real
 * entry points, the device wanted, and the devices and platforms shown;
 * one line says what came of it (a malformed value in the same line:
 * be_log lets one a second through). */
static void work_out_filter(void)
{
	filt.platforms = (platforms_fn)dlsym(RTLD_NEXT, "clGetPlatformIDs");
	filt.devices = (devices_fn)dlsym(RTLD_NEXT, "clGetDeviceIDs");
	filt.from_type =
	    (from_type_fn)dlsym(RTLD_NEXT, "clCreateContextFromType");
	const char *uuid = getenv(BATON_DEVICE_UUID_ENV);
	const char *pci = getenv(BATON_DEVICE_PCI_ENV);
	struct cl_device_ident want;
	char why[256];
	bool asked = cl_device_want_parse(uuid, pci, &want, why, sizeof(why));
	if (!asked || !filt.platforms || !filt.devices) {
		if (why[0])
			be_log(BE_LOG_DEVICE, "OpenCL: %s", why);
		return;
	}
	char named[96];
	snprintf(named, sizeof(named), "%s%s%s%s%s",
	         want.has_uuid ? "UUID " : "", want.has_uuid ? uuid : "",
	         want.has_uuid && want.has_pci ? ", " : "",
	         want.has_pci ? "PCI slot " : "", want.has_pci ? pci : "");
	cl_uint np;
	cl_platform_id *p = all_platforms(&np);
	filt.shown = calloc(np ? np : 1, sizeof(*filt.shown));
	unsigned counts[3] = {0, 0, 0}; /* devices, with a UUID, a slot */
	for (cl_uint i = 0; filt.shown && i < np; i++)
		keep_matches(p[i], &want, counts);
	free(p);
	filt.on = filt.n_kept > 0;
	if (filt.on)
		be_log(BE_LOG_DEVICE,
		       "OpenCL: showing the program only the device placed "
		       "on (%s): %u of %u devices%s%s",
		       named, filt.n_kept, counts[0], why[0] ? "; " : "", why);
	else
		be_log(BE_LOG_DEVICE,
		       "OpenCL: no device is the GPU placed on (%s): of %u "
		       "devices %u report a UUID (cl_khr_device_uuid), %u a "
		       "PCI slot (cl_khr_pci_bus_info); every device stays "
		       "visible%s%s",
		       named, counts[0], counts[1], counts[2],
		       why[0] ? "; " : "", why);
}

static void filter_setup(void)
{
	in_setup = true;
	work_out_filter();
	in_setup = false;
}

/* Whether the filter decides this call (else it goes to the loader as
 * made): worked out once, by whichever call comes first. */
static bool filtering(void)
{
	if (in_setup)
		return false;
	pthread_once(&filt_once, filter_setup);
	return filt.on;
}

static bool is_kept(cl_device_id d)
{
	for (cl_uint i = 0; i < filt.n_kept; i++)
		if (filt.kept[i] == d)
			return true;
	return false;
}

/* The devices of type on platform p (NULL: the first shown device's)
 * that the filter shows, malloc'd, in *n (CL_DEVICE_TYPE_DEFAULT: the
 * first shown, the platform's own default may be hidden). */
static cl_device_id *shown_devices(cl_platform_id p, cl_device_type type,
                                   cl_uint *n, cl_int *err)
{
	bool one = type == CL_DEVICE_TYPE_DEFAULT;
	cl_device_id *d = devices_of(p ? p : filt.home[0],
	                             one ? CL_DEVICE_TYPE_ALL : type, n, err);
	cl_uint k = 0;
	for (cl_uint i = 0; i < *n && !(one && k); i++)
		if (is_kept(d[i]))
			d[k++] = d[i];
	*n = k;
	return d;
}

/* Hands out the n items of size sz at src as clGet*IDs do. */
static cl_int hand_out(const void *src, cl_uint n, size_t sz, cl_uint room,
                       void *out, cl_uint *count, cl_int none)
{
	if (count)
		*count = n;
	if (n == 0)
		return none;
	if (out)
		memcpy(out, src, (room < n ? room : n) * sz);
	return CL_SUCCESS;
}

EXPORT CL_API_ENTRY cl_int CL_API_CALL clGetPlatformIDs(cl_uint room,
                                                        cl_platform_id *out,
                                                        cl_uint *count)
{
	bool on = filtering();
	if (!filt.platforms)
		return CL_OUT_OF_RESOURCES; /* no loader after us */
	if (!on)
		return filt.platforms(room, out, count);
	if ((room == 0 && out) || (!out && !count))
		return CL_INVALID_VALUE;
	return hand_out(filt.shown, filt.n_shown, sizeof(*out), room, out,
	                count, CL_PLATFORM_NOT_FOUND_KHR);
}

EXPORT CL_API_ENTRY cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id p,
                                                      cl_device_type type,
                                                      cl_uint room,
                                                      cl_device_id *out,
                                                      cl_uint *count)
{
	bool on = filtering();
	if (!filt.devices)
		return CL_OUT_OF_RESOURCES;
	if (!on)
		return filt.devices(p, type, room, out, count);
	if ((room == 0 && out) || (!out && !count))
		return CL_INVALID_VALUE;
	cl_uint n;
	cl_int err;
	cl_device_id *d = shown_devices(p, type, &n, &err);
	if (err == CL_SUCCESS)
		err = hand_out(d, n, sizeof(*out), room, out, count,
		               CL_DEVICE_NOT_FOUND);
	free(d);
	return err;
}

/* The platform props names (CL_CONTEXT_PLATFORM), NULL when none. */
static cl_platform_id platform_named(const cl_context_properties *props)
{
	for (size_t i = 0; props && props[i]; i += 2)
		if (props[i] == CL_CONTEXT_PLATFORM)
			return (cl_platform_id)props[i + 1];
	return NULL;
}

/* The same devices clGetDeviceIDs shows, in a context made by
 * clCreateContext. */
EXPORT CL_API_ENTRY cl_context CL_API_CALL
clCreateContextFromType(const cl_context_properties *props, cl_device_type type,
                        notify_fn notify, void *user, cl_int *errcode)
{
	if (!filtering()) {
		if (filt.from_type)
			return filt.from_type(props, type, notify, user,
			                      errcode);
		if (errcode)
			*errcode = CL_OUT_OF_RESOURCES;
		return NULL;
	}
	cl_uint n;
	cl_int err;
	cl_device_id *d = shown_devices(platform_named(props), type, &n, &err);
	cl_context c = NULL;
	if (err == CL_SUCCESS && n == 0)
		err = CL_DEVICE_NOT_FOUND;
	if (err == CL_SUCCESS)
		c = clCreateContext(props, n, d, notify, user, &err);
	free(d);
	if (errcode)
		*errcode = err;
	return c;
}
