/* The stub libnvidia-ml's video-engine and memory calls (beside
 * stub_nvml.c's device list), for batond's nvml_video.c. What each
 * device reports is scripted: the file named by BATON_STUB_NVML_SCRIPT,
 * read at every call, one figure a line:
 *
 *   INDEX encoder PERCENT        nvmlDeviceGetEncoderUtilization
 *   INDEX decoder PERCENT        nvmlDeviceGetDecoderUtilization
 *   INDEX memory TOTAL USED      nvmlDeviceGetMemoryInfo (bytes)
 *   INDEX session PID W H FPS    one of nvmlDeviceGetEncoderSessions
 *
 * The same file carries stub_nvml_procs.c's lines (they start with a
 * word, these with a number); each side skips the other's.
 * A figure a device has no line for answers NVML_ERROR_NOT_SUPPORTED, as
 * a GPU without that engine or a driver without the query does.
 *
 * Signatures, structs and return codes follow nvml.h and the NVML API
 * Reference ("Device Queries"): nvmlReturn_t NVML_SUCCESS 0,
 * NVML_ERROR_INVALID_ARGUMENT 2, NVML_ERROR_NOT_SUPPORTED 3,
 * NVML_ERROR_INSUFFICIENT_SIZE 7; utilization in percent with its
 * sampling period in microseconds; nvmlMemory_t { unsigned long long
 * total, free, used; }; nvmlEncoderSessionInfo_t { unsigned sessionId,
 * pid, vgpuInstance; nvmlEncoderType_t codecType; unsigned hResolution,
 * vResolution, averageFps, averageLatency; }; GetEncoderSessions with
 * *sessionCount 0 returns the count, with too small an array
 * INSUFFICIENT_SIZE and the count needed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

#define NVML_SUCCESS                 0
#define NVML_ERROR_INVALID_ARGUMENT  2
#define NVML_ERROR_NOT_SUPPORTED     3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define SAMPLING_US                  1000000u
#define MAX_SESSIONS                 256

struct memory {
	unsigned long long total, free, used;
};

struct session_info {
	unsigned int session_id, pid, vgpu_instance;
	int codec_type; /* nvmlEncoderType_t: 0 H.264 */
	unsigned int h_resolution, v_resolution, average_fps, average_latency;
};

API int nvmlDeviceGetEncoderUtilization(void *dev, unsigned int *util,
                                        unsigned int *period_us);
API int nvmlDeviceGetDecoderUtilization(void *dev, unsigned int *util,
                                        unsigned int *period_us);
API int nvmlDeviceGetMemoryInfo(void *dev, struct memory *m);
API int nvmlDeviceGetEncoderSessions(void *dev, unsigned int *count,
                                     struct session_info *out);

/* The script's lines for device dev and key, each handed to fn; how
 * many. */
static int each_line(void *dev, const char *key,
                     void (*fn)(const char *rest, void *arg), void *arg)
{
	const char *path = getenv("BATON_STUB_NVML_SCRIPT");
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return 0;
	unsigned want = (unsigned)(uintptr_t)dev - 1u;
	char line[256];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned idx;
		char k[32];
		int used;
		if (sscanf(line, "%u %31s %n", &idx, k, &used) != 2 ||
		    idx != want || strcmp(k, key) != 0)
			continue;
		fn(line + used, arg);
		n++;
	}
	fclose(f);
	return n;
}

static void take_uint(const char *rest, void *arg)
{
	*(unsigned int *)arg = (unsigned int)strtoul(rest, NULL, 10);
}

static int utilization(void *dev, const char *key, unsigned int *util,
                       unsigned int *period_us)
{
	if (!dev || !util || !period_us)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!each_line(dev, key, take_uint, util))
		return NVML_ERROR_NOT_SUPPORTED;
	*period_us = SAMPLING_US;
	return NVML_SUCCESS;
}

int nvmlDeviceGetEncoderUtilization(void *dev, unsigned int *util,
                                    unsigned int *period_us)
{
	return utilization(dev, "encoder", util, period_us);
}

int nvmlDeviceGetDecoderUtilization(void *dev, unsigned int *util,
                                    unsigned int *period_us)
{
	return utilization(dev, "decoder", util, period_us);
}

static void take_memory(const char *rest, void *arg)
{
	struct memory *m = arg;
	if (sscanf(rest, "%llu %llu", &m->total, &m->used) == 2)
		m->free = m->used < m->total ? m->total - m->used : 0;
}

int nvmlDeviceGetMemoryInfo(void *dev, struct memory *m)
{
	if (!dev || !m)
		return NVML_ERROR_INVALID_ARGUMENT;
	*m = (struct memory){0};
	if (!each_line(dev, "memory", take_memory, m))
		return NVML_ERROR_NOT_SUPPORTED;
	return NVML_SUCCESS;
}

struct sessions {
	struct session_info s[MAX_SESSIONS];
	unsigned int n;
};

static void take_session(const char *rest, void *arg)
{
	struct sessions *all = arg;
	struct session_info *s = &all->s[all->n];
	if (all->n < MAX_SESSIONS &&
	    sscanf(rest, "%u %u %u %u", &s->pid, &s->h_resolution,
	           &s->v_resolution, &s->average_fps) == 4) {
		s->session_id = all->n + 1;
		s->average_latency = 2000;
		all->n++;
	}
}

int nvmlDeviceGetEncoderSessions(void *dev, unsigned int *count,
                                 struct session_info *out)
{
	if (!dev || !count)
		return NVML_ERROR_INVALID_ARGUMENT;
	static struct sessions all;
	all.n = 0;
	each_line(dev, "session", take_session, &all);
	if (*count == 0) {
		*count = all.n;
		return NVML_SUCCESS;
	}
	if (*count < all.n) {
		*count = all.n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	memcpy(out, all.s, all.n * sizeof(*out));
	*count = all.n;
	return NVML_SUCCESS;
}
