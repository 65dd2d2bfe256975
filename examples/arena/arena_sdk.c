#include "arena_sdk.h"

#include <baton/baton.h>

/* TEMPORARY (remove once src/sdk's libbaton exports the quality API):
 * weak references, so that the arena links and runs against a libbaton
 * without these symbols; a NULL one means "no SDK" and the arena keeps its
 * own default. Delete this block and the `if (!fn)` checks below. */
#pragma weak baton_quality_declare
#pragma weak baton_objects_declare
#pragma weak baton_frame_objects
#pragma weak baton_quality_level
#define ARENA_SDK_MISSING(fn) ((fn) == NULL)
/* END TEMPORARY */

void arena_sdk_declare(const char *const *level_names, uint32_t n_levels,
                       uint32_t default_level, const struct mesh_set *meshes)
{
	if (ARENA_SDK_MISSING(baton_quality_declare) ||
	    ARENA_SDK_MISSING(baton_objects_declare))
		return;
	struct baton_object_type types[ARENA_N_TYPES];
	for (uint32_t t = 0; t < ARENA_N_TYPES; t++)
		types[t] = (struct baton_object_type){
		    .id = t + 1,
		    .vertices = meshes->range[t][ARENA_N_LODS - 1].count};
	baton_quality_declare("arena", n_levels, level_names, default_level);
	baton_objects_declare(ARENA_N_TYPES, types);
}

uint32_t arena_sdk_level(uint32_t fallback)
{
	if (ARENA_SDK_MISSING(baton_quality_level))
		return fallback;
	return baton_quality_level();
}

void arena_sdk_frame(const uint32_t *active, const uint32_t *potential)
{
	if (ARENA_SDK_MISSING(baton_frame_objects))
		return;
	baton_frame_objects(active, potential, ARENA_N_TYPES);
}
