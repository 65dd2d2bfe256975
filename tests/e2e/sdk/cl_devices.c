/* cl-devices: an unmodified OpenCL program that says which devices it
 * is shown, for the gate's device-filter tests (cl_devices_e2e.py). One
 * line of JSON on stdout:
 *   {"platforms": [{"name": P, "devices": [D...], "context": [D...]}],
 *    "default": D}
 * for each platform clGetPlatformIDs lists: the devices
 * clGetDeviceIDs(CL_DEVICE_TYPE_ALL) gives, and those of a context
 * clCreateContextFromType(CL_DEVICE_TYPE_ALL) makes on it ("error N" in
 * place of a name where a call fails); "default" is the device
 * clGetDeviceIDs(NULL, CL_DEVICE_TYPE_DEFAULT) gives. Exit 0, 1 when
 * OpenCL lists no platform. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

#define MAX 16

/* A device's name as a JSON string (quotes and backslashes as '?'). */
static void put_name(cl_device_id d)
{
	char name[128] = "";
	clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof(name), name, NULL);
	name[sizeof(name) - 1] = '\0';
	for (char *c = name; *c; c++)
		if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
			*c = '?';
	printf("\"%s\"", name);
}

static void put_list(const cl_device_id *d, cl_uint n, cl_int err)
{
	printf("[");
	if (err != CL_SUCCESS)
		printf("\"error %d\"", err);
	for (cl_uint i = 0; err == CL_SUCCESS && i < n && i < MAX; i++) {
		printf(i ? ", " : "");
		put_name(d[i]);
	}
	printf("]");
}

static void put_context(cl_platform_id p)
{
	cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
	                                 (cl_context_properties)p, 0};
	cl_int err;
	cl_context c = clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, NULL,
	                                       NULL, &err);
	cl_device_id d[MAX];
	size_t size = 0;
	if (c)
		err = clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof(d), d,
		                       &size);
	put_list(d, (cl_uint)(size / sizeof(d[0])), err);
	if (c)
		clReleaseContext(c);
}

int main(void)
{
	cl_platform_id p[MAX];
	cl_uint np = 0;
	if (clGetPlatformIDs(MAX, p, &np) != CL_SUCCESS || np == 0) {
		fprintf(stderr, "cl-devices: no OpenCL platform\n");
		return 1;
	}
	printf("{\"platforms\": [");
	for (cl_uint i = 0; i < np && i < MAX; i++) {
		char name[128] = "";
		clGetPlatformInfo(p[i], CL_PLATFORM_NAME, sizeof(name), name,
		                  NULL);
		name[sizeof(name) - 1] = '\0';
		printf("%s{\"name\": \"%s\", \"devices\": ", i ? ", " : "",
		       strchr(name, '"') ? "?" : name);
		cl_device_id d[MAX];
		cl_uint n = 0;
		cl_int err =
		    clGetDeviceIDs(p[i], CL_DEVICE_TYPE_ALL, MAX, d, &n);
		put_list(d, n, err);
		printf(", \"context\": ");
		put_context(p[i]);
		printf("}");
	}
	cl_device_id def;
	cl_int err =
	    clGetDeviceIDs(NULL, CL_DEVICE_TYPE_DEFAULT, 1, &def, NULL);
	printf("], \"default\": ");
	if (err == CL_SUCCESS)
		put_name(def);
	else
		printf("\"error %d\"", err);
	printf("}\n");
	return 0;
}
