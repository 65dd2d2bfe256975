/* The per-frame CSV of the profiling protocol (docs/quality.md): what a
 * game writes to $BATON_PROFILE_DIR/frames.csv when `baton profile` runs it
 * at one quality level.
 *
 * The first line is a header of comma-separated column names; every later
 * line is one frame with as many fields as the header. Columns, in any
 * order:
 *   frame           required: the frame number, an unsigned integer,
 *                   strictly increasing from line to line
 *   cost_s          required: the frame's measured cost in seconds (finite,
 *                   >= 0)
 *   active_<type>   one or more (at most CORE_QM_MAX_TYPES): the objects of
 *                   that type the frame drew (dJay's active object list),
 *                   finite and >= 0; the types in the order of the columns
 *   area            optional: the area or section of the game the frame is
 *                   in (1 to PROFILE_CSV_NAME_MAX - 1 bytes, at most
 *                   PROFILE_CSV_MAX_AREAS different names)
 *   level           optional: the level the frame was drawn at (an
 *                   integer, the same on every line)
 * Any other column is ignored. Fields are not quoted (no commas inside). A
 * trailing "\r" is dropped; a last line without "\n" counts. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/quality_model.h"

#define PROFILE_CSV_NAME_MAX  32
#define PROFILE_CSV_MAX_AREAS 32
#define PROFILE_CSV_LINE_MAX  4096

struct profile_csv {
	size_t rows, n_types;
	char type[CORE_QM_MAX_TYPES][PROFILE_CSV_NAME_MAX]; /* without
	                                                       "active_" */
	bool has_area;
	size_t n_areas;
	char area[PROFILE_CSV_MAX_AREAS][PROFILE_CSV_NAME_MAX];
	int64_t level;     /* the level column's value; -1 without one */
	uint64_t *frame;   /* rows */
	double *cost_s;    /* rows */
	double *counts;    /* rows x n_types, row-major */
	unsigned *area_of; /* rows: index into area (0 without the column) */
};

/* Parses len bytes (no NUL needed); name is the file name for messages.
 * On failure returns false, leaves *out empty and writes "NAME:LINE:
 * problem" (or "NAME: problem") into err. */
bool profile_csv_parse(const char *text, size_t len, const char *name,
                       struct profile_csv *out, char *err, size_t err_len);
/* Reads and parses path. A missing file fails with errno ENOENT left set
 * (the message says "no such file"), so that callers can tell it apart. */
bool profile_csv_read(const char *path, struct profile_csv *out, char *err,
                      size_t err_len);
void profile_csv_free(struct profile_csv *csv);
