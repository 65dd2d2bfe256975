/* NVML's video-engine and memory figures (nvml_video.h).
 *
 * The declarations are NVML's documented C ABI (nvml.h, NVML API
 * Reference, "Device Queries"): every call returns nvmlReturn_t (an
 * int, NVML_SUCCESS 0, NVML_ERROR_INSUFFICIENT_SIZE 7);
 *   nvmlDeviceGetEncoderUtilization(dev, unsigned *util, unsigned *us)
 *   nvmlDeviceGetDecoderUtilization(dev, unsigned *util, unsigned *us)
 *       util in percent over the last sampling period of us microseconds;
 *   nvmlDeviceGetMemoryInfo(dev, nvmlMemory_t *) with nvmlMemory_t
 *       { unsigned long long total, free, used; } in bytes;
 *   nvmlDeviceGetEncoderSessions(dev, unsigned *count,
 *       nvmlEncoderSessionInfo_t *) with nvmlEncoderSessionInfo_t
 *       { unsigned sessionId, pid, vgpuInstance; int codecType;
 *         unsigned hResolution, vResolution, averageFps, averageLatency; }
 *       (a count of 0 asks for the count). */
#include "daemon/accounting/nvml_video.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

#define NVML_OK 0

typedef int nvml_ret;
typedef struct nvml_device *nvml_dev;

struct nvml_memory {
	unsigned long long total, free, used;
};

struct nvml_encoder_session {
	unsigned int session_id, pid, vgpu_instance;
	int codec_type;
	unsigned int h_resolution, v_resolution, average_fps, average_latency;
};

struct nvml_video {
	void *lib;
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	nvml_ret (*count)(unsigned int *);
	nvml_ret (*handle)(unsigned int, nvml_dev *);
	nvml_ret (*uuid)(nvml_dev, char *, unsigned int);
	nvml_ret (*enc_util)(nvml_dev, unsigned int *, unsigned int *);
	nvml_ret (*dec_util)(nvml_dev, unsigned int *, unsigned int *);
	nvml_ret (*memory)(nvml_dev, struct nvml_memory *);
	nvml_ret (*sessions)(nvml_dev, unsigned int *,
	                     struct nvml_encoder_session *);
};

static void resolve(struct nvml_video *n)
{
	void *l = n->lib;
	*(void **)&n->init = dlsym(l, "nvmlInit_v2");
	*(void **)&n->shutdown = dlsym(l, "nvmlShutdown");
	*(void **)&n->count = dlsym(l, "nvmlDeviceGetCount_v2");
	*(void **)&n->handle = dlsym(l, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&n->uuid = dlsym(l, "nvmlDeviceGetUUID");
	*(void **)&n->enc_util = dlsym(l, "nvmlDeviceGetEncoderUtilization");
	*(void **)&n->dec_util = dlsym(l, "nvmlDeviceGetDecoderUtilization");
	*(void **)&n->memory = dlsym(l, "nvmlDeviceGetMemoryInfo");
	*(void **)&n->sessions = dlsym(l, "nvmlDeviceGetEncoderSessions");
}

struct nvml_video *nvml_video_open(const char *lib_path)
{
	void *lib = dlopen(lib_path ? lib_path : "libnvidia-ml.so.1",
	                   RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return NULL;
	struct nvml_video *n = calloc(1, sizeof(*n));
	if (!n) {
		dlclose(lib);
		return NULL;
	}
	n->lib = lib;
	resolve(n);
	if (!n->init || !n->shutdown || !n->count || !n->handle || !n->uuid ||
	    n->init() != NVML_OK) {
		log_warn("NVML does not start: no encoder or VRAM figures "
		         "from it");
		dlclose(lib);
		free(n);
		return NULL;
	}
	return n;
}

void nvml_video_close(struct nvml_video *n)
{
	if (!n)
		return;
	n->shutdown();
	dlclose(n->lib);
	free(n);
}

/* The encoder sessions of dev into g. More than NVML_VIDEO_MAX_SESSIONS
 * (NVML_ERROR_INSUFFICIENT_SIZE: the array is not filled) leave the list
 * empty: the device's utilization still counts, no tenant is named. */
static void read_sessions(struct nvml_video *n, nvml_dev dev,
                          struct nvml_video_gpu *g)
{
	struct nvml_encoder_session s[NVML_VIDEO_MAX_SESSIONS];
	unsigned int count = NVML_VIDEO_MAX_SESSIONS;
	if (n->sessions(dev, &count, s) != NVML_OK)
		return;
	if (count > NVML_VIDEO_MAX_SESSIONS)
		count = NVML_VIDEO_MAX_SESSIONS;
	for (unsigned int i = 0; i < count; i++)
		g->sessions[g->n_sessions++] = (struct nvml_video_session){
		    .pid = (pid_t)s[i].pid,
		    .pixels_per_s = (double)s[i].h_resolution *
		                    (double)s[i].v_resolution *
		                    (double)s[i].average_fps,
		};
}

static void read_device(struct nvml_video *n, nvml_dev dev,
                        struct nvml_video_gpu *g)
{
	unsigned int util, period_us;
	if (n->enc_util && n->enc_util(dev, &util, &period_us) == NVML_OK &&
	    util <= 100) {
		g->has_encoder = true;
		g->encoder_util = util / 100.0;
	}
	if (n->dec_util && n->dec_util(dev, &util, &period_us) == NVML_OK &&
	    util <= 100) {
		g->has_decoder = true;
		g->decoder_util = util / 100.0;
	}
	struct nvml_memory m;
	if (n->memory && n->memory(dev, &m) == NVML_OK && m.total > 0) {
		g->has_memory = true;
		g->memory_total = m.total;
		g->memory_used = m.used < m.total ? m.used : m.total;
	}
	if (n->sessions)
		read_sessions(n, dev, g);
}

size_t nvml_video_read(struct nvml_video *n, struct nvml_video_gpu *out,
                       size_t max)
{
	unsigned int count = 0;
	if (!n || n->count(&count) != NVML_OK)
		return 0;
	size_t k = 0;
	for (unsigned int i = 0; i < count && k < max; i++) {
		nvml_dev dev;
		struct nvml_video_gpu *g = &out[k];
		*g = (struct nvml_video_gpu){0};
		if (n->handle(i, &dev) != NVML_OK ||
		    n->uuid(dev, g->uuid, sizeof(g->uuid)) != NVML_OK)
			continue;
		g->uuid[sizeof(g->uuid) - 1] = '\0';
		read_device(n, dev, g);
		k++;
	}
	return k;
}
