/* The game SDK's quality API (include/baton/baton.h): argument checks,
 * the declarations, the per-frame counts and the level batond chose. The
 * frame path (baton_frame_objects, baton_quality_level) takes no lock,
 * allocates nothing and makes no system call. */
#include <stdlib.h>
#include <string.h>

#include "baton/baton.h"
#include "ipc/control.h"
#include "ipc/quality_name.h"
#include "sdk/quality_internal.h"

struct quality_decl quality_decl = {.forced_level = -1};
/* The level the game drew at last (render thread only). */
static uint32_t current_level;
static bool driven;

/* BATON_QUALITY_LEVEL=N: the level forced for profiling, -1 if unset or
 * not a level. */
static int32_t forced_from_env(uint32_t n_levels)
{
	const char *s = getenv("BATON_QUALITY_LEVEL");
	if (!s || !*s)
		return -1;
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0 || v >= (long)n_levels) {
		quality_log(QLOG_CALL,
		            "BATON_QUALITY_LEVEL=%s is not a level (0 to %u); "
		            "ignored",
		            s, n_levels - 1);
		return -1;
	}
	return (int32_t)v;
}

int baton_quality_declare(const char *game_id, uint32_t n_levels,
                          const char *const *level_names,
                          uint32_t default_level)
{
	struct quality_decl *d = &quality_decl;
	if (atomic_load(&d->levels_done)) {
		quality_log(QLOG_CALL, "baton_quality_declare: called twice");
		return BATON_ESTATE;
	}
	if (!ipc_quality_name_ok(game_id, true)) {
		quality_log(QLOG_CALL,
		            "baton_quality_declare: game id must be 1 to %u "
		            "letters, digits, '-', '_' or '.'",
		            BATON_QUALITY_NAME_MAX);
		return BATON_EINVAL;
	}
	if (n_levels == 0 || n_levels > BATON_QUALITY_MAX_LEVELS ||
	    !level_names || default_level >= n_levels) {
		quality_log(QLOG_CALL,
		            "baton_quality_declare: %u levels (1 to %u), "
		            "default %u",
		            n_levels, BATON_QUALITY_MAX_LEVELS, default_level);
		return BATON_EINVAL;
	}
	for (uint32_t i = 0; i < n_levels; i++)
		if (!ipc_quality_name_ok(level_names[i], false)) {
			quality_log(QLOG_CALL,
			            "baton_quality_declare: level %u's name "
			            "must be 1 to %u printable bytes",
			            i, BATON_QUALITY_NAME_MAX);
			return BATON_EINVAL;
		}
	memset(d->game_id, 0, sizeof(d->game_id));
	memset(d->level_names, 0, sizeof(d->level_names));
	strcpy(d->game_id, game_id); /* checked: <= 31 bytes */
	for (uint32_t i = 0; i < n_levels; i++)
		strcpy(d->level_names[i], level_names[i]);
	d->n_levels = n_levels;
	d->default_level = default_level;
	d->forced_level = forced_from_env(n_levels);
	current_level = default_level;
	atomic_store(&d->levels_done, true);
	quality_publish();
	return BATON_OK;
}

int baton_objects_declare(uint32_t n_types,
                          const struct baton_object_type *types)
{
	struct quality_decl *d = &quality_decl;
	if (!atomic_load(&d->levels_done) || atomic_load(&d->objects_done)) {
		quality_log(QLOG_CALL, "baton_objects_declare: once, after "
		                       "baton_quality_declare");
		return BATON_ESTATE;
	}
	if (n_types == 0 || n_types > BATON_QUALITY_MAX_TYPES || !types) {
		quality_log(QLOG_CALL,
		            "baton_objects_declare: %u types (1 to %u)",
		            n_types, BATON_QUALITY_MAX_TYPES);
		return BATON_EINVAL;
	}
	for (uint32_t i = 0; i < n_types; i++)
		for (uint32_t j = 0; j < i; j++)
			if (types[i].id == types[j].id) {
				quality_log(QLOG_CALL,
				            "baton_objects_declare: type id %u "
				            "declared twice",
				            types[i].id);
				return BATON_EINVAL;
			}
	memset(d->types, 0, sizeof(d->types));
	for (uint32_t i = 0; i < n_types; i++)
		d->types[i] = (struct baton_quality_type){
		    .id = types[i].id, .vertices = types[i].vertices};
	d->n_types = n_types;
	atomic_store(&d->objects_done, true);
	quality_publish();
	return BATON_OK;
}

#define PUT(dst, v) __atomic_store_n(&(dst), (v), __ATOMIC_RELAXED)
#define GET(src)    __atomic_load_n(&(src), __ATOMIC_RELAXED)

int baton_frame_objects(const uint32_t *active, const uint32_t *potential,
                        uint32_t n)
{
	struct quality_decl *d = &quality_decl;
	if (!atomic_load_explicit(&d->objects_done, memory_order_acquire)) {
		quality_log(QLOG_CALL, "baton_frame_objects: before "
		                       "baton_objects_declare");
		return BATON_ESTATE;
	}
	if (n != d->n_types) {
		quality_log(QLOG_CALL,
		            "baton_frame_objects: n is %u, %u types declared",
		            n, d->n_types);
		return BATON_EINVAL;
	}
	struct baton_quality *q =
	    atomic_load_explicit(&quality_area, memory_order_acquire);
	if (!q)
		return BATON_OK;
	/* The only writer: odd, the sums, even. batond retries or keeps
	 * its last epoch; nobody waits. */
	uint32_t s = atomic_load_explicit(&q->obj_seq, memory_order_relaxed);
	uint32_t odd = (s + 1u) | 1u;
	atomic_store_explicit(&q->obj_seq, odd, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	for (uint32_t i = 0; i < n; i++) {
		if (active)
			PUT(q->active_sum[i],
			    GET(q->active_sum[i]) + active[i]);
		if (potential)
			PUT(q->potential_sum[i],
			    GET(q->potential_sum[i]) + potential[i]);
	}
	PUT(q->frames, GET(q->frames) + 1u);
	atomic_store_explicit(&q->obj_seq, odd + 1u, memory_order_release);
	return BATON_OK;
}

uint32_t baton_quality_level(void)
{
	struct quality_decl *d = &quality_decl;
	if (!atomic_load_explicit(&d->levels_done, memory_order_acquire))
		return 0;
	if (d->forced_level >= 0) {
		current_level = (uint32_t)d->forced_level;
	} else {
		struct baton_control *c = atomic_load_explicit(
		    &quality_control, memory_order_acquire);
		struct ipc_control_values v;
		/* One try: a torn read keeps the level of the last frame. */
		if (!c) {
			current_level = d->default_level;
		} else if (ipc_control_read(c, &v) &&
		           (v.flags & BATON_CONTROL_VALID)) {
			driven = true;
			if (v.quality_level == 0)
				current_level = d->default_level;
			else if (v.quality_level - 1u < d->n_levels)
				current_level = v.quality_level - 1u;
			else
				quality_log(QLOG_LEVEL,
				            "batond chose level %u of %u; "
				            "keeping %u",
				            v.quality_level - 1u, d->n_levels,
				            current_level);
		}
	}
	struct baton_quality *q =
	    atomic_load_explicit(&quality_area, memory_order_relaxed);
	if (q)
		PUT(q->level_in_use, current_level);
	return current_level;
}

int baton_quality_driven(void)
{
	return driven && atomic_load(&quality_area) &&
	               atomic_load(&quality_decl.objects_done)
	           ? 1
	           : 0;
}
