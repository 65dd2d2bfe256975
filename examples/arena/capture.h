/* Frame capture (binary PPM) and the per-frame CSV log. */
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "render.h"

/* Writes dir/frame_%06d.ppm (P6). Returns 0, or -1 with a message. */
int capture_ppm(const char *dir, uint64_t frame, int width, int height,
                const uint8_t *rgb);

/* Captures held in memory and written later, so that a capture's file
 * write does not disturb the next frames' measured cost (README
 * "Profiled"): written when CAPTURE_QUEUE_BYTES are held, and by
 * capture_queue_flush. */
#define CAPTURE_QUEUE_BYTES (1024ull << 20)
struct capture_queue {
	const char *dir;
	int width, height;
	size_t n, cap;
	uint64_t *frame;
	uint8_t **rgb;
};
/* Copies rgb (width * height * 3 bytes). Returns 0, or -1 with a message
 * (out of memory, or a write failed). */
int capture_queue_push(struct capture_queue *q, uint64_t frame,
                       const uint8_t *rgb);
/* Writes and frees the held captures. Returns 0, or -1 with a message. */
int capture_queue_flush(struct capture_queue *q);
void capture_queue_free(struct capture_queue *q);

struct log_row {
	uint64_t frame;
	int level;
	const char *area;
	double cpu_ms;
	double cost_ms;   /* the frame's GPU cost (main.c); < 0: not measured */
	double finish_ms; /* frame start to glFinish, wall; < 0: not measured */
	/* The process's CPU time (all its threads, llvmpipe's rasterisers
	 * included) over the same span: the work, without the waits that
	 * other processes on the machine cause; < 0 when not measured. */
	double proc_cpu_ms;
	uint32_t active[ARENA_N_COUNTED];
};

void capture_log_header(FILE *log);
/* gpu_ms < 0 means not measured. */
void capture_log_row(FILE *log, const struct log_row *row, double gpu_ms);
