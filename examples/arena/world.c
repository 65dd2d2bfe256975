/* World generation (seeded splitmix64, no libc rand) and the scripted
 * camera path. The areas lie 1000 units apart on the x axis so that each
 * view holds one area only. */
#include "world.h"

#include <math.h>
#include <stdlib.h>

static const float area_origin_x[AREA_N] = {0.0f, 1000.0f, 2000.0f};
static const float pi = 3.14159265358979f;

struct rng {
	uint64_t state;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static float rng_range(struct rng *r, float lo, float hi)
{
	float u = (float)(rng_next(r) >> 40) / (float)(1u << 24);
	return lo + (hi - lo) * u;
}

static int add(struct world *w, enum arena_type type, float x, float y, float z,
               float sx, float sy, float sz, float yaw, const float color[3])
{
	if (w->n_objects == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 1024;
		struct object *o = realloc(w->objects, cap * sizeof(*o));
		if (!o)
			return -1;
		w->objects = o;
		w->cap = cap;
	}
	struct object *o = &w->objects[w->n_objects++];
	*o = (struct object){
	    .type = type, .pos = {x, y, z}, .scale = {sx, sy, sz}, .yaw = yaw};
	for (int i = 0; i < 3; i++)
		o->color[i] = color[i];
	o->radius = sqrtf(sx * sx + sy * sy + sz * sz);
	return 0;
}

static void tint(struct rng *r, const float base[3], float out[3])
{
	float k = rng_range(r, 0.8f, 1.2f);
	for (int i = 0; i < 3; i++)
		out[i] = fminf(base[i] * k, 1.0f);
}

static int gen_town(struct world *w, struct rng *r, float ox)
{
	static const float grass[3] = {0.35f, 0.55f, 0.25f};
	static const float wall[3] = {0.75f, 0.65f, 0.5f};
	static const float wood[3] = {0.55f, 0.38f, 0.2f};
	static const float leaf[3] = {0.2f, 0.5f, 0.2f};
	float c[3];
	int err = 0;
	for (int i = 0; i < 24; i++) /* 96 x 96 ground of 4 x 4 tiles */
		for (int j = 0; j < 24; j++) {
			tint(r, grass, c);
			err |=
			    add(w, ARENA_TILE, ox - 46.0f + 4.0f * (float)i,
			        0.0f, -46.0f + 4.0f * (float)j, 2, 1, 2, 0, c);
		}
	for (int i = 0; i < 8; i++) /* houses on blocks, streets between */
		for (int j = 0; j < 8; j++) {
			if ((i == 3 || i == 4) && (j == 3 || j == 4))
				continue; /* the square */
			float sy = rng_range(r, 2.5f, 5.0f);
			tint(r, wall, c);
			err |= add(
			    w, ARENA_HOUSE, ox - 42.0f + 12.0f * (float)i, sy,
			    -42.0f + 12.0f * (float)j, rng_range(r, 3, 4.5f),
			    sy, rng_range(r, 3, 4.5f),
			    0.5f * pi * (float)(rng_next(r) & 3), c);
		}
	for (int k = 0; k < 240; k++) { /* crates along the streets */
		float s = rng_range(r, 0.3f, 0.7f);
		float x = -48.0f + 12.0f * (float)(rng_next(r) % 9) +
		          rng_range(r, -1.5f, 1.5f);
		float z = rng_range(r, -48.0f, 48.0f);
		if (rng_next(r) & 1) {
			float t = x;
			x = z;
			z = t;
		}
		tint(r, wood, c);
		err |= add(w, ARENA_CRATE, ox + x, s, z, s, s, s,
		           rng_range(r, 0, pi), c);
	}
	for (int k = 0; k < 40; k++) {
		float s = rng_range(r, 1.5f, 3.0f);
		float a = rng_range(r, 0, 2 * pi), d = rng_range(r, 2, 9);
		tint(r, leaf, c);
		err |= add(w, ARENA_TREE, ox + d * cosf(a), s, d * sinf(a), s,
		           s, s, a, c);
	}
	return err;
}

static int gen_panorama(struct world *w, struct rng *r, float ox)
{
	static const float rock[3] = {0.5f, 0.5f, 0.45f};
	static const float stone[3] = {0.85f, 0.82f, 0.75f};
	static const float leaf[3] = {0.15f, 0.4f, 0.18f};
	float c[3];
	int err = 0;
	for (int i = 0; i < 16; i++) /* 640 x 640 of 40 x 40 tiles */
		for (int j = 0; j < 16; j++) {
			tint(r, rock, c);
			err |= add(w, ARENA_TILE,
			           ox - 300.0f + 40.0f * (float)i, 0.0f,
			           -300.0f + 40.0f * (float)j, 20, 1, 20, 0, c);
		}
	for (int k = 0; k < 8; k++) { /* colossi on a ring */
		float a =
		    2.0f * pi * (float)k / 8.0f + rng_range(r, -0.2f, 0.2f);
		float d = rng_range(r, 120, 180), s = rng_range(r, 14, 22);
		tint(r, stone, c);
		err |= add(w, ARENA_STATUE, ox + d * cosf(a), s, d * sinf(a), s,
		           s, s, a, c);
	}
	for (int k = 0; k < 24; k++) {
		float a = rng_range(r, 0, 2 * pi), d = rng_range(r, 60, 260);
		float s = rng_range(r, 4, 8);
		tint(r, leaf, c);
		err |= add(w, ARENA_TREE, ox + d * cosf(a), s, d * sinf(a), s,
		           s, s, a, c);
	}
	return err;
}

static int gen_dungeon(struct world *w, struct rng *r, float ox)
{
	static const float floor_c[3] = {0.4f, 0.35f, 0.3f};
	static const float wall_c[3] = {0.45f, 0.42f, 0.4f};
	static const float wood[3] = {0.5f, 0.32f, 0.15f};
	static const float stone[3] = {0.7f, 0.7f, 0.75f};
	float c[3];
	int err = 0;
	for (int i = 0; i < 30; i++) { /* a 120 x 4 corridor, 3 high */
		float x = ox + 2.0f + 4.0f * (float)i;
		tint(r, floor_c, c);
		err |= add(w, ARENA_TILE, x, 0.0f, 0.0f, 2, 1, 2, 0, c);
		err |= add(w, ARENA_TILE, x, 3.0f, 0.0f, 2, 1, 2, 0, c);
		tint(r, wall_c, c);
		err |= add(w, ARENA_WALL, x, 1.5f, -2.5f, 2, 1.5f, 0.5f, 0, c);
		err |= add(w, ARENA_WALL, x, 1.5f, 2.5f, 2, 1.5f, 0.5f, 0, c);
	}
	tint(r, wall_c, c);
	err |= add(w, ARENA_WALL, ox - 0.5f, 1.5f, 0, 0.5f, 1.5f, 2, 0, c);
	err |= add(w, ARENA_WALL, ox + 120.5f, 1.5f, 0, 0.5f, 1.5f, 2, 0, c);
	for (int k = 0; k < 12; k++) {
		float s = rng_range(r, 0.25f, 0.5f);
		tint(r, wood, c);
		err |= add(w, ARENA_CRATE, ox + rng_range(r, 6, 116), s,
		           (rng_next(r) & 1) ? 1.4f : -1.4f, s, s, s,
		           rng_range(r, 0, pi), c);
	}
	tint(r, stone, c);
	err |= add(w, ARENA_STATUE, ox + 60.0f, 1.0f, 1.2f, 0.6f, 1.0f, 0.6f, 0,
	           c);
	return err;
}

int world_generate(struct world *world, uint64_t seed)
{
	struct rng r = {.state = seed};
	*world = (struct world){0};
	int err = gen_town(world, &r, area_origin_x[AREA_TOWN]);
	err |= gen_panorama(world, &r, area_origin_x[AREA_PANORAMA]);
	err |= gen_dungeon(world, &r, area_origin_x[AREA_DUNGEON]);
	if (err) {
		world_free(world);
		return -1;
	}
	return 0;
}

void world_free(struct world *world)
{
	free(world->objects);
	*world = (struct world){0};
}

const char *world_area_name(enum arena_area area)
{
	static const char *const names[AREA_N] = {"town", "panorama",
	                                          "dungeon"};
	return (unsigned)area < AREA_N ? names[area] : "?";
}

/* The point s units along the street loop x, z = +-12 round the town
 * square (96 units long), at height y. */
static void town_street(float ox, float s, float y, float out[3])
{
	static const float corner[4][2] = {
	    {12, 12}, {-12, 12}, {-12, -12}, {12, -12}};
	s = fmodf(s, 96.0f);
	int side = (int)(s / 24.0f) % 4;
	float t = (s - 24.0f * (float)side) / 24.0f;
	const float *a = corner[side], *b = corner[(side + 1) % 4];
	out[0] = ox + a[0] + (b[0] - a[0]) * t;
	out[1] = y;
	out[2] = a[1] + (b[1] - a[1]) * t;
}

void world_camera(uint64_t frame, struct camera *cam)
{
	uint32_t f = (uint32_t)(frame % ARENA_LOOP_FRAMES);
	enum arena_area area = (enum arena_area)(f / ARENA_FRAMES_PER_AREA);
	float u =
	    (float)(f % ARENA_FRAMES_PER_AREA) / (float)ARENA_FRAMES_PER_AREA;
	float ox = area_origin_x[area];
	cam->area = area;
	if (area == AREA_TOWN) { /* a walk round the square's streets */
		town_street(ox, 96.0f * u, 2.0f, cam->eye);
		town_street(ox, 96.0f * u + 8.0f, 1.5f, cam->target);
		cam->zfar = 150.0f;
	} else if (area == AREA_PANORAMA) { /* a slow pan from a hill */
		float a = 1.5f * pi * u;
		cam->eye[0] = ox;
		cam->eye[1] = 35.0f;
		cam->eye[2] = 0.0f;
		cam->target[0] = ox + 100.0f * cosf(a);
		cam->target[1] = 20.0f;
		cam->target[2] = 100.0f * sinf(a);
		cam->zfar = 800.0f;
	} else { /* down the corridor, swaying */
		float x = ox + 3.0f + 110.0f * u;
		cam->eye[0] = x;
		cam->eye[1] = 1.6f;
		cam->eye[2] = 0.5f * sinf(6.0f * pi * u);
		cam->target[0] = x + 10.0f;
		cam->target[1] = 1.4f;
		cam->target[2] = 1.5f * sinf(6.0f * pi * u + 1.0f);
		cam->zfar = 150.0f;
	}
}
