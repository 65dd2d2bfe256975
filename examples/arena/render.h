/* The arena's renderer: an X11 window with an OpenGL 3.3 core context
 * through GLX, the quality presets' passes (shadow map, supersampled
 * scene, downsample) and per-frame GPU timing. */
#pragma once

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
 * game's to define): each mesh type split by the object's apparent size,
 * its bounding sphere's radius over its distance from the eye. On a
 * fill-bound renderer (llvmpipe) an object's cost follows the pixels it
 * covers, which a per-type count alone does not carry: a wall beside the
 * camera and one down the corridor cost very differently (README
 * "Profiled"). Sizes from the largest: xl (radius / distance >= 0.6, it
 * can fill the screen), l (>= 0.2), m (>= 0.06) and s. */
enum arena_size {
	ARENA_SIZE_XL,
	ARENA_SIZE_L,
	ARENA_SIZE_M,
	ARENA_SIZE_S,
	ARENA_N_SIZES
};
#define ARENA_N_COUNTED (ARENA_N_TYPES * ARENA_N_SIZES)

/* The counted type of o seen from eye: type * ARENA_N_SIZES + size. */
unsigned arena_counted_type(const struct object *o, const float eye[3]);
/* Its name, "<mesh type>_<size>" (e.g. wall_xl). */
void arena_counted_name(unsigned counted, char *buf, size_t len);

struct renderer;

/* Opens the window and builds every GL object; NULL with a message on
 * stderr on failure. */
struct renderer *render_open(int width, int height,
                             const struct mesh_set *meshes);
void render_close(struct renderer *r);

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
