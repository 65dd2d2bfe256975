/* Baton's game SDK: quality levels batond may choose between, and the
 * objects each frame draws (dJay, Grizan et al. 2015;
 * docs/sdk.md).
 *
 * A game declares its quality levels (cheapest first, best last) and the
 * object types it draws, then reports each frame how many objects of each
 * type it drew (the active object list, AOL) and how many may become
 * visible soon (the potential object list, POL). batond learns what each
 * type costs and is worth at each level, and picks the level of every game
 * on the GPU so that all of them hold their frame-rate SLAs with the most
 * quality in total. The game reads the level at the start of each frame:
 *
 *     static const char *levels[] = {"low", "medium", "high"};
 *     static const struct baton_object_type types[] = {
 *         {.id = 1, .vertices = 24}, {.id = 2, .vertices = 12000}};
 *     baton_quality_declare("arena", 3, levels, 2);
 *     baton_objects_declare(2, types);
 *     for (;;) {
 *         uint32_t level = baton_quality_level();
 *         ... draw at `level`, counting objects per declared type ...
 *         baton_frame_objects(active, potential, 2);
 *         ... present ...
 *     }
 *
 * The SDK talks to batond through the frame shim that `baton run` loads
 * (the OpenGL preload or the Vulkan layer): one registration and one
 * shared memory per process. Without the shim or without batond every call
 * still succeeds and baton_quality_level() returns the default level.
 *
 * The frame path (baton_quality_level, baton_frame_objects) takes no lock,
 * allocates nothing and makes no system call. Declarations are copied; the
 * caller's arrays may be freed after the call. Calls from one thread (the
 * render thread) at a time.
 *
 * Every call checks its arguments; a malformed call returns a negative
 * BATON_E* code (common.h), changes nothing, and logs one line on stderr
 * (rate-limited). */
#pragma once

#include <stdint.h>

#include "baton/common.h" /* BATON_API, BATON_E*, baton_strerror */

#ifdef __cplusplus
extern "C" {
#endif

#define BATON_QUALITY_MAX_LEVELS 8u
#define BATON_QUALITY_MAX_TYPES  256u
#define BATON_QUALITY_NAME_MAX   31u /* bytes of a level name or game id */

/* One of an array: it does not grow (common.h); a new field would come
 * with a new declaring call. */
struct baton_object_type {
	uint32_t id;       /* the game's own id, unique among the declared */
	uint32_t vertices; /* vertex count of one object of this type at the
	                      best level (dJay's coarse filter uses it) */
};

/* Declares the game (an id naming its models on disk: letters, digits,
 * '-', '_' and '.'), its levels from cheapest to best (1 to
 * BATON_QUALITY_MAX_LEVELS names of 1 to BATON_QUALITY_NAME_MAX printable
 * bytes) and the level it runs at when nobody chooses (its default).
 * Once per process; a second call returns BATON_ESTATE. */
BATON_API int baton_quality_declare(const char *game_id, uint32_t n_levels,
                                    const char *const *level_names,
                                    uint32_t default_level);

/* Declares the object types (1 to BATON_QUALITY_MAX_TYPES, unique ids).
 * After baton_quality_declare, once per process. Reports index types by
 * their position in this array. */
BATON_API int baton_objects_declare(uint32_t n_types,
                                    const struct baton_object_type *types);

/* Once per frame, before Present: the count of objects of each declared
 * type drawn this frame (active) and that may be visible within a short
 * horizon (potential, a superset of active in the paper's use). n must be
 * the declared number of types; either array may be NULL (all zero). */
BATON_API int baton_frame_objects(const uint32_t *active,
                                  const uint32_t *potential, uint32_t n);

/* The level to draw the next frame at: batond's choice when a daemon
 * drives this game, else the default. Call at a frame boundary. Never
 * fails: before baton_quality_declare it returns 0. */
BATON_API uint32_t baton_quality_level(void);

/* 1 while batond chooses this game's level (the shim is loaded, a daemon
 * has taken the declaration), else 0. Informative. */
BATON_API int baton_quality_driven(void);

#ifdef __cplusplus
}
#endif
