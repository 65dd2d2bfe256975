/* Frame capture (binary PPM) and the per-frame CSV log. */
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "mesh.h"

/* Writes dir/frame_%06d.ppm (P6). Returns 0, or -1 with a message. */
int capture_ppm(const char *dir, uint64_t frame, int width, int height,
                const uint8_t *rgb);

struct log_row {
	uint64_t frame;
	int level;
	const char *area;
	double cpu_ms;
	double cost_ms; /* frame start to glFinish; < 0 when not measured */
	uint32_t active[ARENA_N_TYPES];
};

void capture_log_header(FILE *log);
/* gpu_ms < 0 means not measured. */
void capture_log_row(FILE *log, const struct log_row *row, double gpu_ms);
