/* The arena's calls into Baton's game SDK (include/baton/baton.h). */
#pragma once

#include <stdint.h>

#include "render.h"

/* Declares the game, its levels and its object types. */
void arena_sdk_declare(const char *const *level_names, uint32_t n_levels,
                       uint32_t default_level, const struct mesh_set *meshes);
/* The level to draw at: batond's choice, BATON_QUALITY_LEVEL's, else the
 * default. */
uint32_t arena_sdk_level(void);
/* The frame's counts, ARENA_N_COUNTED each. */
void arena_sdk_frame(const uint32_t *active, const uint32_t *potential);
