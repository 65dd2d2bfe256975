/* The gate of a rate-limited log line: at most one line per gap, the lines
 * held back counted into the next. Pure (the caller reads its clock) and
 * header-only, so that batond and libbaton (which links no log module)
 * share it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct log_gate {
	int64_t last_ns; /* when the last line went out; 0: never */
	unsigned held;   /* lines held back since */
};

/* Whether to write a line at now_ns: false (and one more held back) within
 * gap_ns of the last; else true with *held the count held back since,
 * which starts again from 0. */
static inline bool log_gate_take(struct log_gate *g, int64_t now_ns,
                                 int64_t gap_ns, unsigned *held)
{
	if (g->last_ns && now_ns - g->last_ns < gap_ns) {
		g->held++;
		return false;
	}
	*held = g->held;
	g->held = 0;
	g->last_ns = now_ns;
	return true;
}
