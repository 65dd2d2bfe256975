/* The shim's side of the quality API (quality_internal.h): the attach, and
 * the copy of the declarations into the tenant memory. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "baton/baton.h"
#include "sdk/quality_internal.h"

_Atomic(struct baton_quality *) quality_area;
_Atomic(struct baton_control *) quality_control;
static atomic_flag published = ATOMIC_FLAG_INIT;

void quality_publish(void)
{
	/* Sequentially consistent on both sides: of a declare and an
	 * attach that race, at least one sees the other's store. */
	struct baton_quality *q = atomic_load(&quality_area);
	if (!q || !atomic_load(&quality_decl.levels_done) ||
	    !atomic_load(&quality_decl.objects_done))
		return;
	if (atomic_flag_test_and_set(&published))
		return;
	const struct quality_decl *d = &quality_decl;
	memcpy(q->game_id, d->game_id, sizeof(q->game_id));
	q->n_levels = d->n_levels;
	q->default_level = d->default_level;
	memcpy(q->level_names, d->level_names, sizeof(q->level_names));
	q->n_types = d->n_types;
	memcpy(q->types, d->types, sizeof(q->types));
	/* batond reads the declarations only after it sees 1. */
	atomic_store_explicit(&q->decl_seq, 1u, memory_order_release);
}

BATON_API int baton__quality_attach_v1(struct baton_quality *q,
                                       struct baton_control *c);

int baton__quality_attach_v1(struct baton_quality *q, struct baton_control *c)
{
	atomic_store(&quality_control, c);
	atomic_store(&quality_area, q);
	/* A fork child attaches its own memory: copy again. */
	atomic_flag_clear(&published);
	quality_publish();
	return 0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A race between threads can only let an extra line through. */
static int64_t log_last_ns[QLOG_KEYS];

void quality_log(int key, const char *fmt, ...)
{
	int64_t now = mono_ns();
	if (log_last_ns[key] && now - log_last_ns[key] < 1000000000LL)
		return;
	log_last_ns[key] = now;
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "baton: %s\n", line);
}
