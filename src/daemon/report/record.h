/* The history file (record = "FILE" / --record FILE; docs/runtime.md,
 * "Recording"): one line of JSON per wall second with the GPU's figures
 * and every tenant's, for `baton report` to summarise and plot.
 *
 * The tick never waits on the disk: record_offer copies the snapshot into
 * a free slot of a bounded queue (RECORD_QUEUE_LEN lines) and returns; a
 * writer thread turns each slot into JSON and write(2)s it. When the queue
 * is full the second is dropped and counted; the count rides on every
 * later line ("dropped") and in a rate-limited log line. A failed write
 * (a full disk, an I/O error) is logged at most once a minute with the
 * lines lost since, and batond goes on. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/report/metrics.h"

#define RECORD_QUEUE_LEN 8
/* The format's version: the "v" of every line. */
#define RECORD_VERSION 1
/* Seconds between two log lines about the same trouble. */
#define RECORD_LOG_EVERY_S 60

struct record;

/* Opens path for appending, after checking its directory as the control
 * socket's is (safe_dir.h: root's or batond's user's, writable by no one
 * else, ancestors and symlinks included), so that no other user can put a
 * file or a symlink there. A new file is created 0600 with O_EXCL; an
 * existing one must be a regular file of root's or batond's user's with
 * one link and writable by no one else (O_NOFOLLOW, then fstat). NULL with
 * the reason, naming the file, in err. The writer thread waits for
 * record_start. */
struct record *record_open(const char *path, char *err, size_t errlen);

/* Starts the writer thread, which must come after the signal mask is set
 * (main.c). false with the reason in err. */
bool record_start(struct record *r, char *err, size_t errlen);

/* Called after every tick with the wall clock (CLOCK_REALTIME, ns): the
 * first snapshot of each wall second is queued, the others ignored.
 * Never blocks on I/O: the lock it takes is held by the writer only to
 * move an index. false when the second was dropped (queue full, or out
 * of memory copying it). */
bool record_offer(struct record *r, const struct metrics_snapshot *s,
                  int64_t wall_ns);

/* What a recorder has done so far. */
struct record_stats {
	uint64_t queued;  /* seconds handed to the writer */
	uint64_t dropped; /* seconds dropped, queue full or no memory */
	uint64_t written; /* lines written whole */
	uint64_t failed;  /* lines a write error lost */
	double offer_max_s, offer_sum_s; /* time in the queued offers */
};
void record_get_stats(struct record *r, struct record_stats *out);

/* Writes what is queued, stops the thread, closes the file, frees (NULL is
 * fine). */
void record_close(struct record *r);

/* One snapshot as a line of JSON, "\n" included, malloc'ed; NULL when out
 * of memory. time_s: unix seconds; dropped: the count so far. */
char *record_format(const struct metrics_snapshot *s, int64_t time_s,
                    uint64_t dropped, size_t *len);
