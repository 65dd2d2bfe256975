/* The arena's world: objects generated from a seed in three areas of
 * different load, and a camera path through them driven by the frame
 * number alone (fixed dt, no clock), so that frame N of seed S is always
 * the same view. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "mesh.h"

enum arena_area {
	AREA_TOWN,     /* many small and medium objects, street level */
	AREA_PANORAMA, /* few very heavy objects, high and far view */
	AREA_DUNGEON,  /* enclosed corridor, few objects */
	AREA_N
};

#define ARENA_FRAMES_PER_AREA 200u
#define ARENA_LOOP_FRAMES     (ARENA_FRAMES_PER_AREA * AREA_N)
/* The potential object list's radius around the camera (world units,
 * about metres), in every direction (dJay's 360-degree visibility). */
#define ARENA_POTENTIAL_RADIUS 50.0f

struct object {
	enum arena_type type;
	float pos[3];   /* centre of its unit cube */
	float scale[3]; /* half extents */
	float yaw;
	float color[3];
	float radius; /* bounding sphere around pos */
};

struct world {
	struct object *objects;
	size_t n_objects, cap;
};

struct camera {
	enum arena_area area;
	float eye[3];
	float target[3];
	float zfar;
};

const char *world_area_name(enum arena_area area);
/* Returns 0, or -1 when out of memory. */
int world_generate(struct world *world, uint64_t seed);
void world_free(struct world *world);
/* The camera at frame (any uint64; the path loops every
 * ARENA_LOOP_FRAMES). */
void world_camera(uint64_t frame, struct camera *cam);
