/* A game's quality API state in batond (include/baton/baton.h, shm.h's
 * struct baton_quality): the declarations, copied once and validated, the
 * last epoch's mean object counts per type, and the level written into
 * the control block (a pin from `baton set --level`, else the level the
 * optimizer chose, else none: the game's default).
 *
 * The area lives in the tenant's memory: every read is of hostile bytes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipc/shm.h"

/* More frames than this between two ticks (a tick is well under a
 * second; no game presents 100 000 frames a second) is a scribble. */
#define DAEMON_QUALITY_MAX_EPOCH_FRAMES 100000u

struct daemon_quality {
	bool declared; /* declarations taken and valid */
	bool rejected; /* declarations invalid: quality ignored */
	char game_id[BATON_QUALITY_NAME_SIZE];
	uint32_t n_levels;
	uint32_t default_level;
	char level_names[BATON_QUALITY_LEVELS_MAX][BATON_QUALITY_NAME_SIZE];
	uint32_t n_types;
	struct baton_quality_type types[BATON_QUALITY_TYPES_MAX];

	/* The sums at the last good read (have_base) and the means of the
	 * epoch before it: objects per frame of each type. */
	bool have_base;
	uint64_t frames_base;
	uint64_t active_base[BATON_QUALITY_TYPES_MAX];
	uint64_t potential_base[BATON_QUALITY_TYPES_MAX];
	uint32_t epoch_frames; /* frames in the epoch the means are of */
	double active_mean[BATON_QUALITY_TYPES_MAX];
	double potential_mean[BATON_QUALITY_TYPES_MAX];
	uint32_t level_in_use; /* as the game reports it (informative) */

	int32_t pinned; /* -1: none */
	int32_t chosen; /* the optimizer's choice, -1: none */

	/* Its models, from the models directory (quality_models.h); NULL:
	 * none. Owned: daemon_quality_release frees them. */
	struct quality_model_set *models;
	/* Its models are to be asked of the loader (model_loader.h): set
	 * when the game declared, cleared once the request is queued. */
	bool models_wanted;
};

void daemon_quality_init(struct daemon_quality *q);
/* Frees what init and the tick took (the models). */
void daemon_quality_release(struct daemon_quality *q);

/* Checks a copy of the declarations; false with the field in err. */
bool daemon_quality_validate(const struct baton_quality *copy, char *err,
                             size_t errlen);

enum daemon_quality_event {
	DAEMON_QUALITY_NONE,     /* nothing new */
	DAEMON_QUALITY_DECLARED, /* declarations taken this tick */
	DAEMON_QUALITY_REJECTED, /* declarations invalid (err says why) */
};

/* Once per tick: takes the declarations once decl_seq is 1, then each
 * tick the epoch's mean counts (a torn, backwards or oversized read keeps
 * the last epoch's). area may be NULL (a version-1 shim). */
enum daemon_quality_event daemon_quality_tick(struct daemon_quality *q,
                                              struct baton_quality *area,
                                              char *err, size_t errlen);

/* The level to publish: the pin, else the choice, as the control block's
 * quality_level (level + 1, 0 = none). */
uint32_t daemon_quality_control_level(const struct daemon_quality *q);

/* The level in force, as `baton status` shows it: the pin, else batond's
 * choice, else the game's default; -1 while undeclared. */
int32_t daemon_quality_level(const struct daemon_quality *q);

/* For the optimizer: the level batond chooses for this game, -1 = none.
 * false (nothing changed) when undeclared or out of range. */
bool daemon_quality_choose(struct daemon_quality *q, int32_t level);

/* `baton set --level`: pins a level, -1 unpins. false (nothing changed)
 * when the game declared no levels or level is not one of them. */
bool daemon_quality_pin(struct daemon_quality *q, int32_t level);
