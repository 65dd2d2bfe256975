#include "arena_sdk.h"

#include <baton/baton.h>

/* libbaton works without batond and without the shim: the calls succeed
 * and baton_quality_level() returns the default level (or the one
 * BATON_QUALITY_LEVEL forces). */
void arena_sdk_declare(const char *const *level_names, uint32_t n_levels,
                       uint32_t default_level, const struct mesh_set *meshes)
{
	struct baton_object_type types[ARENA_N_TYPES];
	for (uint32_t t = 0; t < ARENA_N_TYPES; t++)
		types[t] = (struct baton_object_type){
		    .id = t + 1,
		    .vertices = meshes->range[t][ARENA_N_LODS - 1].count};
	baton_quality_declare("arena", n_levels, level_names, default_level);
	baton_objects_declare(ARENA_N_TYPES, types);
}

uint32_t arena_sdk_level(void)
{
	return baton_quality_level();
}

void arena_sdk_frame(const uint32_t *active, const uint32_t *potential)
{
	baton_frame_objects(active, potential, ARENA_N_TYPES);
}
