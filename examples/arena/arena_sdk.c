#include "arena_sdk.h"

#include <baton/baton.h>

/* libbaton works without batond and without the shim: the calls succeed
 * and baton_quality_level() returns the default level (or the one
 * BATON_QUALITY_LEVEL forces). */
void arena_sdk_declare(const char *const *level_names, uint32_t n_levels,
                       uint32_t default_level, const struct mesh_set *meshes)
{
	/* The counted types (render.h): a mesh type's sizes share its
	 * vertex count. */
	struct baton_object_type types[ARENA_N_COUNTED];
	for (uint32_t c = 0; c < ARENA_N_COUNTED; c++)
		types[c] = (struct baton_object_type){
		    .id = c + 1,
		    .vertices =
		        meshes
		            ->range[c / ARENA_COUNTS_PER_TYPE][ARENA_N_LODS - 1]
		            .count};
	baton_quality_declare("arena", n_levels, level_names, default_level);
	baton_objects_declare(ARENA_N_COUNTED, types);
}

uint32_t arena_sdk_level(void)
{
	return baton_quality_level();
}

void arena_sdk_frame(const uint32_t *active, const uint32_t *potential)
{
	baton_frame_objects(active, potential, ARENA_N_COUNTED);
}
