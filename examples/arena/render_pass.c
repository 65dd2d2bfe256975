/* The passes of one frame, frustum culling, the object counts, read-back
 * and GPU timing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mat.h"
#include "render_internal.h"

/* The six clip planes of viewproj (Gribb and Hartmann's extraction),
 * normalised so that a plane's value at a point is its distance. */
static void frustum_planes(const float m[16], float planes[6][4])
{
	for (int p = 0; p < 6; p++) {
		int axis = p / 2;
		float sign = (p % 2) ? -1.0f : 1.0f;
		for (int c = 0; c < 4; c++)
			planes[p][c] = m[c * 4 + 3] + sign * m[c * 4 + axis];
		float len = sqrtf(planes[p][0] * planes[p][0] +
		                  planes[p][1] * planes[p][1] +
		                  planes[p][2] * planes[p][2]);
		for (int c = 0; c < 4; c++)
			planes[p][c] /= len;
	}
}

static int sphere_visible(const float planes[6][4], const struct object *o)
{
	for (int p = 0; p < 6; p++)
		if (vec3_dot(planes[p], o->pos) + planes[p][3] < -o->radius)
			return 0;
	return 1;
}

static void draw_object(const struct renderer *r, const struct object *o,
                        int lod, int depth_only)
{
	float model[16];
	mat4_model(o->pos, o->yaw, o->scale, model);
	if (depth_only) {
		glUniformMatrix4fv(r->u_depth_model, 1, GL_FALSE, model);
	} else {
		float inv[3] = {1.0f / o->scale[0], 1.0f / o->scale[1],
		                1.0f / o->scale[2]};
		glUniformMatrix4fv(r->u_model, 1, GL_FALSE, model);
		glUniform3fv(r->u_inv_scale, 1, inv);
		glUniform3fv(r->u_color, 1, o->color);
	}
	const struct mesh_range *range = &r->meshes->range[o->type][lod];
	glDrawArrays(GL_TRIANGLES, (GLint)range->first, (GLsizei)range->count);
}

/* The sun's orthographic view over the ground ahead of the eye. */
static void light_view_proj(const struct camera *cam, float light_vp[16])
{
	float fwd[3], centre[3], from[3], view[16], proj[16];
	vec3_sub(cam->target, cam->eye, fwd);
	fwd[1] = 0.0f;
	vec3_normalize(fwd);
	float sun[3] = {0.4f, 1.0f, 0.3f};
	vec3_normalize(sun);
	for (int i = 0; i < 3; i++) {
		centre[i] = cam->eye[i] + fwd[i] * SHADOW_RANGE * 0.6f;
		from[i] = centre[i] + sun[i] * 150.0f;
	}
	centre[1] = from[1] - sun[1] * 150.0f;
	mat4_look_at(from, centre, view);
	mat4_ortho(SHADOW_RANGE, SHADOW_RANGE, 1.0f, 300.0f, proj);
	mat4_mul(proj, view, light_vp);
}

static void shadow_pass(const struct renderer *r, const struct world *world,
                        int lod, const float light_vp[16])
{
	float planes[6][4];
	frustum_planes(light_vp, planes);
	glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo);
	glViewport(0, 0, SHADOW_SIZE, SHADOW_SIZE);
	glClear(GL_DEPTH_BUFFER_BIT);
	glUseProgram(r->depth_prog);
	glUniformMatrix4fv(r->u_depth_vp, 1, GL_FALSE, light_vp);
	for (size_t i = 0; i < world->n_objects; i++)
		if (sphere_visible(planes, &world->objects[i]))
			draw_object(r, &world->objects[i], lod, 1);
}

/* The share of the screen that the bounding rectangle of o's projected
 * box (the unit cube, or the tile's quad, through its model matrix)
 * covers: 1 when a corner lies behind the near plane. */
static float screen_share(const struct object *o, const float viewproj[16])
{
	float model[16], mvp[16], lo[2] = {1.0f, 1.0f}, hi[2] = {-1.0f, -1.0f};
	mat4_model(o->pos, o->yaw, o->scale, model);
	mat4_mul(viewproj, model, mvp);
	for (int k = 0; k < 8; k++) {
		float p[3] = {(k & 1) ? 1.0f : -1.0f, (k & 2) ? 1.0f : -1.0f,
		              (k & 4) ? 1.0f : -1.0f};
		if (o->type == ARENA_TILE)
			p[1] = 0.0f;
		float c[4];
		for (int r = 0; r < 4; r++)
			c[r] = mvp[r] * p[0] + mvp[4 + r] * p[1] +
			       mvp[8 + r] * p[2] + mvp[12 + r];
		if (c[3] < ARENA_ZNEAR)
			return 1.0f;
		for (int i = 0; i < 2; i++) {
			lo[i] = fminf(lo[i], c[i] / c[3]);
			hi[i] = fmaxf(hi[i], c[i] / c[3]);
		}
	}
	float area = 1.0f;
	for (int i = 0; i < 2; i++)
		area *= fmaxf(fminf(hi[i], 1.0f) - fmaxf(lo[i], -1.0f), 0.0f);
	return area / 4.0f;
}

unsigned arena_counted_type(const struct object *o, const float viewproj[16])
{
	static const float min_share[ARENA_N_SIZES - 1] = {0.25f, 0.05f, 0.01f,
	                                                   0.002f};
	float share = screen_share(o, viewproj);
	unsigned size = 0;
	while (size < ARENA_N_SIZES - 1 && share < min_share[size])
		size++;
	return (unsigned)o->type * ARENA_COUNTS_PER_TYPE + size;
}

unsigned arena_counted_sun(const struct object *o)
{
	return (unsigned)o->type * ARENA_COUNTS_PER_TYPE +
	       (o->radius >= ARENA_SUN_LARGE ? ARENA_SUN_L : ARENA_SUN_S);
}

void arena_counted_name(unsigned counted, char *buf, size_t len)
{
	static const char *const sizes[ARENA_COUNTS_PER_TYPE] = {
	    "xl", "l", "m", "s", "xs", "sun_l", "sun_s"};
	snprintf(
	    buf, len, "%s_%s",
	    mesh_type_name((enum arena_type)(counted / ARENA_COUNTS_PER_TYPE)),
	    sizes[counted % ARENA_COUNTS_PER_TYPE]);
}

static int nearer(const void *a, const void *b)
{
	const struct draw_item *x = a, *y = b;
	if (x->dist2 != y->dist2)
		return x->dist2 < y->dist2 ? -1 : 1;
	return x->object < y->object ? -1 : x->object > y->object;
}

/* The opaque objects nearest first, as games order them so that the depth
 * test rejects hidden fragments before they are shaded: drawn in world
 * order, the cost of a view depended on whether the camera looked along
 * the order or against it (the town's streets differed 2x at the same
 * counts). Unsorted when out of memory. */
static void draw_sorted(struct renderer *r, const struct world *world, size_t n,
                        int lod)
{
	qsort(r->draw, n, sizeof(*r->draw), nearer);
	for (size_t i = 0; i < n; i++)
		draw_object(r, &world->objects[r->draw[i].object], lod, 0);
}

void render_frame(struct renderer *r, const struct world *world,
                  const struct camera *cam, int level,
                  uint32_t active[ARENA_N_COUNTED],
                  uint32_t potential[ARENA_N_COUNTED])
{
	const struct quality_preset *q = &arena_presets[level];
	const struct target *scene = &r->scene[level];
	float view[16], proj[16], viewproj[16], light_vp[16], planes[6][4],
	    sun_planes[6][4];
	mat4_look_at(cam->eye, cam->target, view);
	mat4_perspective(1.0f, (float)r->width / (float)r->height, ARENA_ZNEAR,
	                 cam->zfar, proj);
	mat4_mul(proj, view, viewproj);
	frustum_planes(viewproj, planes);
	light_view_proj(cam, light_vp);
	frustum_planes(light_vp, sun_planes);
	memset(active, 0, ARENA_N_COUNTED * sizeof(uint32_t));
	memset(potential, 0, ARENA_N_COUNTED * sizeof(uint32_t));

	glBeginQuery(GL_TIME_ELAPSED, r->queries[r->frames % QUERY_RING]);
	glEnable(GL_DEPTH_TEST);
	if (q->shadows)
		shadow_pass(r, world, q->lod, light_vp);
	glBindFramebuffer(GL_FRAMEBUFFER, scene->fbo);
	glViewport(0, 0, scene->w, scene->h);
	glClearColor(0.6f, 0.7f, 0.85f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
	glUseProgram(r->scene_prog);
	glActiveTexture(GL_TEXTURE0);
	glBindTexture(GL_TEXTURE_2D, r->shadow_tex);
	glUniformMatrix4fv(r->u_viewproj, 1, GL_FALSE, viewproj);
	glUniformMatrix4fv(r->u_light_vp, 1, GL_FALSE, light_vp);
	glUniform3fv(r->u_eye, 1, cam->eye);
	glUniform1i(r->u_shadows, q->shadows);
	glUniform1f(r->u_fog, 1.0f / cam->zfar);
	if (r->draw_cap < world->n_objects) {
		struct draw_item *d =
		    realloc(r->draw, world->n_objects * sizeof(*d));
		if (d) {
			r->draw = d;
			r->draw_cap = world->n_objects;
		}
	}
	int sort = r->draw_cap >= world->n_objects;
	size_t n_draw = 0;
	for (size_t i = 0; i < world->n_objects; i++) {
		const struct object *o = &world->objects[i];
		float d[3];
		vec3_sub(o->pos, cam->eye, d);
		int near =
		    sqrtf(vec3_dot(d, d)) - o->radius < ARENA_POTENTIAL_RADIUS;
		int seen = sphere_visible(planes, o);
		unsigned c = arena_counted_type(o, viewproj);
		if (seen && sort)
			r->draw[n_draw++] = (struct draw_item){
			    .dist2 = vec3_dot(d, d), .object = (uint32_t)i};
		else if (seen)
			draw_object(r, o, q->lod, 0);
		if (seen)
			active[c]++;
		if (seen || near)
			potential[c]++;
		if (sphere_visible(sun_planes, o)) { /* drawn at high */
			active[arena_counted_sun(o)]++;
			potential[arena_counted_sun(o)]++;
		}
	}
	if (sort)
		draw_sorted(r, world, n_draw, q->lod);
	/* Downsample: a linear blit averages each 2x2 block at 2x. */
	glBindFramebuffer(GL_READ_FRAMEBUFFER, scene->fbo);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->resolved.fbo);
	glBlitFramebuffer(0, 0, scene->w, scene->h, 0, 0, r->width, r->height,
	                  GL_COLOR_BUFFER_BIT,
	                  scene->w == r->width ? GL_NEAREST : GL_LINEAR);
	glBindFramebuffer(GL_READ_FRAMEBUFFER, r->resolved.fbo);
	glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
	glBlitFramebuffer(0, 0, r->width, r->height, 0, 0, r->width, r->height,
	                  GL_COLOR_BUFFER_BIT, GL_NEAREST);
	glEndQuery(GL_TIME_ELAPSED);
	r->frames++;
}

void render_read_rgb(struct renderer *r, uint8_t *rgb)
{
	size_t row = (size_t)r->width * 3;
	glBindFramebuffer(GL_READ_FRAMEBUFFER, r->resolved.fbo);
	glPixelStorei(GL_PACK_ALIGNMENT, 1);
	glReadPixels(0, 0, r->width, r->height, GL_RGB, GL_UNSIGNED_BYTE, rgb);
	/* GL's first row is the bottom one; PPM's is the top. */
	for (int y = 0; y < r->height / 2; y++) {
		uint8_t *a = rgb + (size_t)y * row;
		uint8_t *b = rgb + (size_t)(r->height - 1 - y) * row;
		for (size_t i = 0; i < row; i++) {
			uint8_t t = a[i];
			a[i] = b[i];
			b[i] = t;
		}
	}
}

void render_finish(struct renderer *r)
{
	(void)r;
	glFinish();
}

bool render_software(const struct renderer *r)
{
	(void)r;
	const char *name = (const char *)glGetString(GL_RENDERER);
	return name && (strstr(name, "llvmpipe") || strstr(name, "softpipe") ||
	                strstr(name, "swrast"));
}

void render_present(struct renderer *r)
{
	glx_window_swap(r->win);
}

double render_gpu_ms(struct renderer *r, unsigned lag, int wait)
{
	if (lag >= QUERY_RING || lag >= r->frames)
		return -1.0;
	GLuint q = r->queries[(r->frames - 1 - lag) % QUERY_RING];
	GLuint ready = 0;
	if (!wait) {
		glGetQueryObjectuiv(q, GL_QUERY_RESULT_AVAILABLE, &ready);
		if (!ready)
			return -1.0;
	}
	GLuint64 ns = 0;
	glGetQueryObjectui64v(q, GL_QUERY_RESULT, &ns);
	return (double)ns / 1e6;
}
