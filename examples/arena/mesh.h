/* Procedural meshes of the arena's object types at each level of detail:
 * flat-shaded triangle lists (x, y, z, nx, ny, nz per vertex) inside the
 * unit cube [-1, 1]^3, so an object's transform alone places and sizes
 * it. */
#pragma once

#include <stddef.h>
#include <stdint.h>

enum arena_type {
	ARENA_TILE,   /* ground and ceiling quad */
	ARENA_CRATE,  /* a cube */
	ARENA_HOUSE,  /* subdivided walls and a roof */
	ARENA_WALL,   /* dungeon wall slab, finely subdivided */
	ARENA_TREE,   /* trunk and a bumpy crown */
	ARENA_STATUE, /* pedestal and a heavily sculpted body */
	ARENA_N_TYPES
};

#define ARENA_N_LODS   3 /* one per quality level: low, medium, high */
#define ARENA_VERTEX_F 6 /* floats per vertex */

struct mesh_range {
	uint32_t first; /* first vertex in the shared buffer */
	uint32_t count; /* vertices (a multiple of 3) */
};

struct mesh_set {
	float *vertices; /* all meshes, one after the other */
	size_t n_vertices;
	struct mesh_range range[ARENA_N_TYPES][ARENA_N_LODS];
};

const char *mesh_type_name(enum arena_type type);

/* Builds every type at every level of detail. Returns 0, or -1 when out of
 * memory. */
int mesh_set_build(struct mesh_set *set);
void mesh_set_free(struct mesh_set *set);
