/* batond's reader of a game's quality area (daemon/quality/quality.h). */
#include "daemon/quality/quality.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/quality_name.h"

#define GET(src) __atomic_load_n(&(src), __ATOMIC_RELAXED)
/* Tries at the seqlock per tick: the game's update is a few hundred
 * stores, so a retry or two sees it finished; a writer stopped mid-update
 * costs this many reads, then the last epoch's means stand. */
#define SEQ_TRIES 4

void daemon_quality_init(struct daemon_quality *q)
{
	memset(q, 0, sizeof(*q));
	q->pinned = -1;
	q->chosen = -1;
}

void daemon_quality_release(struct daemon_quality *q)
{
	free(q->models);
	q->models = NULL;
}

bool daemon_quality_validate(const struct baton_quality *c, char *err,
                             size_t errlen)
{
	const char *bad = NULL;
	if (!ipc_quality_name_ok(c->game_id, true))
		bad = "game_id";
	else if (c->n_levels == 0 || c->n_levels > BATON_QUALITY_LEVELS_MAX)
		bad = "n_levels";
	else if (c->default_level >= c->n_levels)
		bad = "default_level";
	else if (c->n_types == 0 || c->n_types > BATON_QUALITY_TYPES_MAX)
		bad = "n_types";
	for (uint32_t i = 0; !bad && i < c->n_levels; i++)
		if (!ipc_quality_name_ok(c->level_names[i], false))
			bad = "level_names";
	for (uint32_t i = 0; !bad && i < c->n_types; i++)
		for (uint32_t j = 0; j < i; j++)
			if (c->types[i].id == c->types[j].id) {
				bad = "types (a duplicate id)";
				break;
			}
	if (bad) {
		snprintf(err, errlen, "invalid quality declaration: %s", bad);
		return false;
	}
	return true;
}

static enum daemon_quality_event take_decl(struct daemon_quality *q,
                                           struct baton_quality *area,
                                           char *err, size_t errlen)
{
	if (atomic_load_explicit(&area->decl_seq, memory_order_acquire) != 1u)
		return DAEMON_QUALITY_NONE;
	/* One copy of the declarations (a few KB, once per tenant): a game
	 * rewriting them cannot pass one check and use another value. */
	struct baton_quality copy;
	memcpy(&copy, area, offsetof(struct baton_quality, obj_seq));
	if (!daemon_quality_validate(&copy, err, errlen)) {
		q->rejected = true;
		return DAEMON_QUALITY_REJECTED;
	}
	memcpy(q->game_id, copy.game_id, sizeof(q->game_id));
	q->n_levels = copy.n_levels;
	q->default_level = copy.default_level;
	memcpy(q->level_names, copy.level_names, sizeof(q->level_names));
	q->n_types = copy.n_types;
	memcpy(q->types, copy.types, sizeof(q->types));
	q->declared = true;
	return DAEMON_QUALITY_DECLARED;
}

struct sums {
	uint64_t frames;
	uint64_t active[BATON_QUALITY_TYPES_MAX];
	uint64_t potential[BATON_QUALITY_TYPES_MAX];
};

/* One consistent image of the sums, or false after SEQ_TRIES. */
static bool read_sums(const struct baton_quality *a, uint32_t n,
                      struct sums *out)
{
	for (int k = 0; k < SEQ_TRIES; k++) {
		uint32_t s1 =
		    atomic_load_explicit(&a->obj_seq, memory_order_acquire);
		if (s1 & 1u)
			continue;
		out->frames = GET(a->frames);
		for (uint32_t i = 0; i < n; i++) {
			out->active[i] = GET(a->active_sum[i]);
			out->potential[i] = GET(a->potential_sum[i]);
		}
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&a->obj_seq, memory_order_relaxed) ==
		    s1)
			return true;
	}
	return false;
}

static void rebase(struct daemon_quality *q, const struct sums *s)
{
	q->have_base = true;
	q->frames_base = s->frames;
	memcpy(q->active_base, s->active, q->n_types * sizeof(uint64_t));
	memcpy(q->potential_base, s->potential, q->n_types * sizeof(uint64_t));
}

/* The epoch's means from the sums (dJay's AOL and POL per type). A
 * backwards step, too many frames, or a per-frame count above a uint32
 * (what baton_frame_objects can add) is a scribble: the last epoch's
 * means stand and the next epoch counts from here. */
static void take_means(struct daemon_quality *q, const struct sums *s)
{
	if (!q->have_base) {
		rebase(q, s);
		return;
	}
	uint64_t df = s->frames - q->frames_base;
	if (s->frames < q->frames_base ||
	    df > DAEMON_QUALITY_MAX_EPOCH_FRAMES) {
		rebase(q, s);
		return;
	}
	if (df == 0)
		return; /* no frame this epoch: keep the last means */
	/* df <= 1e5, so df * UINT32_MAX < 2^49: no overflow. */
	uint64_t most = df * (uint64_t)UINT32_MAX;
	for (uint32_t i = 0; i < q->n_types; i++) {
		if (s->active[i] < q->active_base[i] ||
		    s->potential[i] < q->potential_base[i] ||
		    s->active[i] - q->active_base[i] > most ||
		    s->potential[i] - q->potential_base[i] > most) {
			rebase(q, s);
			return;
		}
	}
	for (uint32_t i = 0; i < q->n_types; i++) {
		q->active_mean[i] =
		    (double)(s->active[i] - q->active_base[i]) / (double)df;
		q->potential_mean[i] =
		    (double)(s->potential[i] - q->potential_base[i]) /
		    (double)df;
	}
	q->epoch_frames = (uint32_t)df;
	rebase(q, s);
}

enum daemon_quality_event daemon_quality_tick(struct daemon_quality *q,
                                              struct baton_quality *area,
                                              char *err, size_t errlen)
{
	if (!area || q->rejected)
		return DAEMON_QUALITY_NONE;
	enum daemon_quality_event ev = DAEMON_QUALITY_NONE;
	if (!q->declared) {
		ev = take_decl(q, area, err, errlen);
		if (!q->declared)
			return ev;
	}
	struct sums s;
	if (read_sums(area, q->n_types, &s))
		take_means(q, &s);
	uint32_t in_use = GET(area->level_in_use);
	if (in_use < q->n_levels)
		q->level_in_use = in_use;
	return ev;
}

uint32_t daemon_quality_control_level(const struct daemon_quality *q)
{
	if (!q->declared)
		return 0;
	if (q->pinned >= 0)
		return (uint32_t)q->pinned + 1u;
	return q->chosen >= 0 ? (uint32_t)q->chosen + 1u : 0u;
}

int32_t daemon_quality_level(const struct daemon_quality *q)
{
	if (!q->declared)
		return -1;
	uint32_t ctl = daemon_quality_control_level(q);
	return ctl ? (int32_t)ctl - 1 : (int32_t)q->default_level;
}

bool daemon_quality_choose(struct daemon_quality *q, int32_t level)
{
	if (!q->declared || level < -1 || level >= (int32_t)q->n_levels)
		return false;
	q->chosen = level;
	return true;
}

bool daemon_quality_pin(struct daemon_quality *q, int32_t level)
{
	if (!q->declared || level < -1 || level >= (int32_t)q->n_levels)
		return false;
	q->pinned = level;
	return true;
}
