/* NVML's calls for per-process accounting (nvml_poll.h). */
#include "daemon/accounting/nvml_poll.h"

#include <dlfcn.h>
#include <stdlib.h>

static void *sym(void *lib, const char *name, const char *older)
{
	void *f = dlsym(lib, name);
	return f || !older ? f : dlsym(lib, older);
}

bool nvml_api_open(struct nvml_api *a, const char *lib_path)
{
	*a = (struct nvml_api){0};
	a->lib = dlopen(lib_path ? lib_path : "libnvidia-ml.so.1",
	                RTLD_NOW | RTLD_LOCAL);
	if (!a->lib)
		return false;
	void *l = a->lib;
	*(void **)&a->init = sym(l, "nvmlInit_v2", NULL);
	*(void **)&a->shutdown = sym(l, "nvmlShutdown", NULL);
	*(void **)&a->count = sym(l, "nvmlDeviceGetCount_v2", NULL);
	*(void **)&a->handle = sym(l, "nvmlDeviceGetHandleByIndex_v2", NULL);
	*(void **)&a->uuid = sym(l, "nvmlDeviceGetUUID", NULL);
	*(void **)&a->procs_util =
	    sym(l, "nvmlDeviceGetProcessesUtilizationInfo", NULL);
	*(void **)&a->proc_util =
	    sym(l, "nvmlDeviceGetProcessUtilization", NULL);
	*(void **)&a->util = sym(l, "nvmlDeviceGetUtilizationRates", NULL);
	*(void **)&a->compute =
	    sym(l, "nvmlDeviceGetComputeRunningProcesses_v3",
	        "nvmlDeviceGetComputeRunningProcesses_v2");
	*(void **)&a->graphics =
	    sym(l, "nvmlDeviceGetGraphicsRunningProcesses_v3",
	        "nvmlDeviceGetGraphicsRunningProcesses_v2");
	if (!a->init || !a->shutdown || !a->count || !a->handle || !a->uuid ||
	    a->init() != NVML_OK) {
		dlclose(a->lib);
		*a = (struct nvml_api){0};
		return false;
	}
	return true;
}

void nvml_api_close(struct nvml_api *a)
{
	if (!a->lib)
		return;
	a->shutdown();
	dlclose(a->lib);
	*a = (struct nvml_api){0};
}

void nvml_bufs_free(struct nvml_bufs *b)
{
	free(b->info);
	free(b->old);
	free(b->samples);
	free(b->procs);
	free(b->mem);
	*b = (struct nvml_bufs){0};
}

static bool grow(void **p, unsigned n, size_t size)
{
	void *q = realloc(*p, n * size);
	if (q)
		*p = q;
	return q != NULL;
}

/* Room for want samples (at least 64); false past NVML_POLL_MAX. */
static bool room_samples(struct nvml_bufs *b, unsigned want)
{
	want = want < 64 ? 64 : want;
	if (want <= b->cap_samples)
		return true;
	if (want > NVML_POLL_MAX ||
	    !grow((void **)&b->info, want, sizeof(*b->info)) ||
	    !grow((void **)&b->old, want, sizeof(*b->old)) ||
	    !grow((void **)&b->samples, want, sizeof(*b->samples)))
		return false;
	b->cap_samples = want;
	return true;
}

static bool room_procs(struct nvml_bufs *b, unsigned want)
{
	want = want < 64 ? 64 : want;
	if (want <= b->cap_procs)
		return true;
	if (want > NVML_POLL_MAX ||
	    !grow((void **)&b->procs, want, sizeof(*b->procs)) ||
	    !grow((void **)&b->mem, 2 * want, sizeof(*b->mem)))
		return false;
	b->cap_procs = want;
	return true;
}

/* Whether a call answered that it cannot serve this library or device:
 * the caller then uses the older call. */
static bool unsupported(nvml_ret r)
{
	return r == NVML_ERR_NOT_SUPPORTED ||
	       r == NVML_ERR_FUNCTION_NOT_FOUND ||
	       r == NVML_ERR_ARGUMENT_VERSION_MISMATCH;
}

/* nvmlDeviceGetProcessesUtilizationInfo; NVML_ERR_NOT_FOUND is "no
 * sample newer than lastSeenTimeStamp". */
static nvml_ret samples_newer(struct nvml_api *a, nvml_dev dev, uint64_t last,
                              struct nvml_bufs *b, unsigned *n)
{
	nvml_ret r = NVML_ERR_INSUFFICIENT_SIZE;
	for (int tries = 0; tries < 3 && r == NVML_ERR_INSUFFICIENT_SIZE;
	     tries++) {
		struct nvml_processes_util_info q = {
		    .version = NVML_PROCESSES_UTIL_INFO_V1,
		    .processSamplesCount = b->cap_samples,
		    .lastSeenTimeStamp = last,
		    .procUtilArray = b->info,
		};
		r = a->procs_util(dev, &q);
		*n = q.processSamplesCount;
		if (r == NVML_ERR_INSUFFICIENT_SIZE) {
			if (!room_samples(b, q.processSamplesCount))
				return r;
			b->retries++;
		}
	}
	if (r == NVML_OK)
		for (unsigned i = 0; i < *n && i < b->cap_samples; i++)
			b->samples[i] = (struct nvml_sample){
			    b->info[i].pid, b->info[i].timeStamp,
			    b->info[i].smUtil};
	return r;
}

/* nvmlDeviceGetProcessUtilization, the same way. */
static nvml_ret samples_older(struct nvml_api *a, nvml_dev dev, uint64_t last,
                              struct nvml_bufs *b, unsigned *n)
{
	nvml_ret r = NVML_ERR_INSUFFICIENT_SIZE;
	for (int tries = 0; tries < 3 && r == NVML_ERR_INSUFFICIENT_SIZE;
	     tries++) {
		*n = b->cap_samples;
		r = a->proc_util(dev, b->old, n, last);
		if (r == NVML_ERR_INSUFFICIENT_SIZE) {
			if (!room_samples(b, *n))
				return r;
			b->retries++;
		}
	}
	if (r == NVML_OK)
		for (unsigned i = 0; i < *n && i < b->cap_samples; i++)
			b->samples[i] = (struct nvml_sample){
			    b->old[i].pid, b->old[i].timeStamp,
			    b->old[i].smUtil};
	return r;
}

static void read_samples(struct nvml_api *a, nvml_dev dev, uint64_t last,
                         struct nvml_bufs *b, struct nvml_reading *r)
{
	unsigned n = 0;
	nvml_ret ret = NVML_ERR_NOT_SUPPORTED;
	if (!room_samples(b, 0))
		return;
	if (a->procs_util) {
		ret = samples_newer(a, dev, last, b, &n);
		if (unsupported(ret))
			a->procs_util = NULL; /* the older call from now on */
	}
	if (!a->procs_util && a->proc_util)
		ret = samples_older(a, dev, last, b, &n);
	r->samples_ok = ret == NVML_OK || ret == NVML_ERR_NOT_FOUND;
	r->samples = b->samples;
	r->n_samples = ret == NVML_OK && n <= b->cap_samples ? n : 0;
}

/* One running-process list appended to r->mem. */
static bool read_list(nvml_ret (*call)(nvml_dev, unsigned int *,
                                       struct nvml_process_info *),
                      nvml_dev dev, struct nvml_bufs *b, struct nvml_reading *r)
{
	nvml_ret ret = NVML_ERR_INSUFFICIENT_SIZE;
	unsigned n = 0;
	for (int tries = 0;
	     call && tries < 3 && ret == NVML_ERR_INSUFFICIENT_SIZE; tries++) {
		n = b->cap_procs;
		ret = call(dev, &n, b->procs);
		if (ret == NVML_ERR_INSUFFICIENT_SIZE) {
			/* a process may start between the calls: some room */
			if (!room_procs(b, n + n / 4 + 4))
				return false;
			b->retries++;
		}
	}
	if (ret != NVML_OK || n > b->cap_procs)
		return false;
	for (unsigned i = 0; i < n; i++) {
		uint64_t used = b->procs[i].usedGpuMemory;
		b->mem[r->n_mem++] = (struct nvml_proc_mem){
		    b->procs[i].pid,
		    used == NVML_VALUE_NOT_AVAILABLE_ULL ? 0 : used};
	}
	return true;
}

void nvml_poll_device(struct nvml_api *a, nvml_dev dev, uint64_t last_seen_us,
                      struct nvml_bufs *b, struct nvml_reading *r)
{
	*r = (struct nvml_reading){0};
	read_samples(a, dev, last_seen_us, b, r);
	if (room_procs(b, 0)) {
		bool c = read_list(a->compute, dev, b, r);
		/* b->mem holds both lists: grown for the graphics list,
		 * it keeps the compute list's entries */
		bool g = read_list(a->graphics, dev, b, r);
		r->mem = b->mem;
		r->mem_ok = c || g;
	}
	struct nvml_utilization u;
	if (a->util && a->util(dev, &u) == NVML_OK && u.gpu <= 100) {
		r->util_ok = true;
		r->util = u.gpu / 100.0;
	}
}
