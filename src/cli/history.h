/* `baton report`'s reader of batond's history file (src/daemon/report/record.h,
 * docs/runtime.md "Recording"): one JSON object a line. Lines that do not
 * parse are skipped and counted, so a file torn by a crash or a full disk
 * still reads. Needs only jansson (tests/fuzz/fuzz_history.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_NAME_MAX 64

/* The figures a line may give, generously past anything batond writes: a
 * line with a figure outside them is made up and skipped as bad (an axis
 * from 0 to a level of 1e300 is no plot). Levels are whole numbers below
 * BATON_QUALITY_LEVELS_MAX (ipc/shm.h), caps shares of one GPU in [0, 1]. */
#define HIST_FPS_MAX   1e6  /* fps, sla, target_fps: a frame a microsecond */
#define HIST_UNITS_MAX 1e12 /* a best-effort tenant's work units a second */
#define HIST_T_MAX     253402300799LL /* "t": 9999-12-31 23:59:59 UTC */

/* One tenant in one second. Figures a line does not give are NAN. */
struct hist_point {
	int64_t t; /* unix seconds */
	double fps, sla, target_fps, cap, level, p99_ms;
	double units_s, gpu_share, wait; /* best-effort tenants */
};

/* One tenant over the file: batond's id, its pid and name (a restarted
 * batond numbers its tenants from 1 again, so all three make the key). */
struct hist_series {
	uint64_t id;
	int64_t pid;
	char name[HIST_NAME_MAX];
	bool be;
	struct hist_point *p;
	size_t n, cap;
};

struct hist {
	struct hist_series *s;
	size_t n, cap;
	size_t lines;     /* records read (kept or filtered out by time) */
	size_t kept;      /* records within [from, to] */
	size_t bad;       /* lines skipped */
	size_t first_bad; /* line number of the first, 1-based; 0 = none */
	char bad_why[96]; /* what was wrong with it */
	bool torn;        /* the last line has no newline and did not parse */
	uint64_t dropped; /* the largest "dropped" seen (batond's count) */
	int64_t t_min, t_max; /* of the records kept */
};

/* What to keep: records with from <= t <= to, tenants matching `tenant`
 * (a name, or an id written as a number; NULL = all). */
struct hist_filter {
	int64_t from, to;
	const char *tenant;
};

/* Parses one line (no newline needed) into h, adding a point to each
 * tenant's series that passes f. false, with why, when the line is not a
 * record (a figure out of its bounds above included): then h is as it was but
 * for series created empty. false with why "out of memory" when that is the
 * trouble. */
bool hist_parse_line(struct hist *h, const char *line, size_t len,
                     const struct hist_filter *f, char *why, size_t whylen);

/* Reads every line of in. false only when reading or memory fails (errno
 * set); bad lines are counted in h. */
bool hist_read(struct hist *h, FILE *in, const struct hist_filter *f);

void hist_free(struct hist *h);
