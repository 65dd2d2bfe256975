/* NVIDIA GPUs' video encoders and decoders and their memory, through
 * NVML (dlopen'ed as in gpus_nvml.c; absent on most machines): per
 * device the encoder's and decoder's utilization, total and used memory,
 * and the encoder sessions with the pid that opened each. Opened once
 * (nvml_video_open), read by the tick once a second (NVML's utilization
 * is an average over its own sampling period, about a second). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NVML_VIDEO_MAX_SESSIONS 64

struct nvml_video_session {
	pid_t pid;
	double pixels_per_s; /* width x height x average FPS */
};

struct nvml_video_gpu {
	char uuid[96]; /* NVML's form, "GPU-..." */
	bool has_encoder, has_decoder, has_memory;
	double encoder_util, decoder_util;  /* [0, 1] */
	uint64_t memory_total, memory_used; /* bytes */
	struct nvml_video_session sessions[NVML_VIDEO_MAX_SESSIONS];
	unsigned n_sessions;
};

struct nvml_video;

/* NULL when the library (lib_path; NULL: the driver's libnvidia-ml.so.1)
 * is absent, lacks the calls or does not start. */
struct nvml_video *nvml_video_open(const char *lib_path);
void nvml_video_close(struct nvml_video *n);

/* Every device's figures into out[0..max); how many. A figure the device
 * does not support (NVML_ERROR_NOT_SUPPORTED) leaves its has_ flag
 * false. */
size_t nvml_video_read(struct nvml_video *n, struct nvml_video_gpu *out,
                       size_t max);
