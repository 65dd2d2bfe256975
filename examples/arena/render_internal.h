/* The renderer's state, shared by render.c (setup) and render_pass.c (the
 * passes of each frame). */
#pragma once

#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>

#include "glx_window.h"
#include "render.h"

#define SHADOW_SIZE  2048
#define ARENA_ZNEAR  0.3f /* the near plane, world units */
#define QUERY_RING   4
#define SHADOW_RANGE 60.0f /* half width of the sun's view, world units */

struct target {
	GLuint fbo, color, depth;
	int w, h;
};

struct renderer {
	struct glx_window *win;
	const struct mesh_set *meshes;
	int width, height;
	GLuint vao, vbo, scene_prog, depth_prog;
	GLint u_model, u_inv_scale, u_viewproj, u_light_vp, u_color, u_eye,
	    u_shadows, u_fog, u_depth_model, u_depth_vp;
	GLuint shadow_fbo, shadow_tex;
	struct target scene[ARENA_N_LEVELS], resolved;
	GLuint queries[QUERY_RING];
	uint64_t frames; /* frames drawn */
	/* The main pass's draw list, nearest first (render_pass.c). */
	struct draw_item {
		float dist2; /* squared distance from the eye */
		uint32_t object;
	} * draw;
	size_t draw_cap;
};
