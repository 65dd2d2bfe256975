/* The arena's renderer: an X11 window with an OpenGL 3.3 core context
 * through GLX, the quality presets' passes (shadow map, supersampled
 * scene, downsample) and per-frame GPU timing. */
#pragma once

#include <stdbool.h>

#include <stddef.h>
#include <stdint.h>

#include "mesh.h"
#include "world.h"

#define ARENA_N_LEVELS 3

/* What each level changes: the mesh level of detail, the scene's
 * supersampling factor and the shadow-map pass. */
struct quality_preset {
	const char *name;
	int lod;
	float supersample;
	int shadows;
};

extern const struct quality_preset arena_presets[ARENA_N_LEVELS];

/* The object types the SDK and the log count (dJay's types, §4.1, are the
 * game's to define): each mesh type split by the object's size on the
 * screen, the share of the screen that the bounding rectangle of its
 * projected box covers (all of it when the box reaches behind the eye). On
 * a fill-bound renderer (llvmpipe) an object's cost follows the pixels it
 * covers, which a per-type count alone does not carry: a wall beside the
 * camera and one down the corridor cost very differently (README
 * "Profiled"). Sizes from the largest: xl (>= 1/4 of the screen), l (>=
 * 1/20), m (>= 1/100), s (>= 1/500) and xs.
 * Two more counts per mesh type: the objects in the sun's view (those the
 * shadow pass draws at high), large (radius >= ARENA_SUN_LARGE) or small,
 * counted at every level like the others so that the estimate of high's
 * cost can be made while running another level. */
enum arena_size {
	ARENA_SIZE_XL,
	ARENA_SIZE_L,
	ARENA_SIZE_M,
	ARENA_SIZE_S,
	ARENA_SIZE_XS,
	ARENA_N_SIZES,
	ARENA_SUN_L = ARENA_N_SIZES,
	ARENA_SUN_S,
	ARENA_COUNTS_PER_TYPE
};
#define ARENA_SUN_LARGE 12.0f /* world units: a fifth of the sun's view */
#define ARENA_N_COUNTED (ARENA_N_TYPES * ARENA_COUNTS_PER_TYPE)

/* The counted type of o seen through viewproj, type *
 * ARENA_COUNTS_PER_TYPE + size, and that of o in the sun's view. */
unsigned arena_counted_type(const struct object *o, const float viewproj[16]);
unsigned arena_counted_sun(const struct object *o);
/* Its name, "<mesh type>_<size>" (e.g. wall_xl, house_sun_s). */
void arena_counted_name(unsigned counted, char *buf, size_t len);

struct renderer;

/* Opens the window and builds every GL object; NULL with a message on
 * stderr on failure. */
struct renderer *render_open(int width, int height,
                             const struct mesh_set *meshes);
void render_close(struct renderer *r);
/* A software rasterizer (llvmpipe, softpipe): its "GPU" is the CPU cores. */
bool render_software(const struct renderer *r);

/* Draws one frame of world seen by cam at level, counting (per counted
 * type) the objects
 * the main pass drew (active, after frustum culling) and those within
 * ARENA_POTENTIAL_RADIUS of the eye (potential, which also includes the
 * active ones). Does not present. */
void render_frame(struct renderer *r, const struct world *world,
                  const struct camera *cam, int level,
                  uint32_t active[ARENA_N_COUNTED],
                  uint32_t potential[ARENA_N_COUNTED]);
/* Reads the displayed image (width * height * 3 bytes, top row first). */
void render_read_rgb(struct renderer *r, uint8_t *rgb);
/* Waits until the GPU has drawn everything submitted (glFinish). */
void render_finish(struct renderer *r);
/* Presents the frame (swap). */
void render_present(struct renderer *r);
/* GPU time of the frame drawn `lag` frames ago, in ms: waits for the
 * query when wait, else -1 while not available; -1 when timing is off. */
double render_gpu_ms(struct renderer *r, unsigned lag, int wait);
