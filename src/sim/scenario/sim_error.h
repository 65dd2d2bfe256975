/* Where a scenario is wrong: file, line, field and message. */
#pragma once

#include <stddef.h>

struct sim_error {
	char file[256]; /* the scenario file, or "<builtin NAME>" */
	int line;       /* 0 if unknown */
	char field[96]; /* e.g. "tenants.[1].gpu_ms"; empty if none */
	char msg[256];
};

/* Formats "FILE:LINE: FIELD: MSG" (parts that are unknown left out). */
void sim_error_format(const struct sim_error *err, char *buf, size_t len);
