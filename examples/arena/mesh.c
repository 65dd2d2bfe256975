/* Procedural meshes: boxes with subdivided faces, a roof, cylinders and
 * displaced spheres. Vertex counts span four orders of magnitude, from a
 * 6-vertex tile to a ~49k-vertex statue at the best level. */
#include "mesh.h"

#include <math.h>
#include <stdlib.h>

#include "mat.h"

struct builder {
	float *v;
	size_t n, cap; /* vertices */
	int failed;
};

static void push_vertex(struct builder *b, const float p[3], const float n[3])
{
	if (b->failed)
		return;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		float *v = realloc(b->v, cap * ARENA_VERTEX_F * sizeof(float));
		if (!v) {
			b->failed = 1;
			return;
		}
		b->v = v;
		b->cap = cap;
	}
	float *dst = b->v + b->n * ARENA_VERTEX_F;
	for (int i = 0; i < 3; i++) {
		dst[i] = p[i];
		dst[3 + i] = n[i];
	}
	b->n++;
}

/* One triangle with its face normal (counter-clockwise is the front). */
static void push_triangle(struct builder *b, const float p0[3],
                          const float p1[3], const float p2[3])
{
	float e1[3], e2[3], n[3];
	vec3_sub(p1, p0, e1);
	vec3_sub(p2, p0, e2);
	vec3_cross(e1, e2, n);
	vec3_normalize(n);
	push_vertex(b, p0, n);
	push_vertex(b, p1, n);
	push_vertex(b, p2, n);
}

static void push_quad(struct builder *b, const float p0[3], const float p1[3],
                      const float p2[3], const float p3[3])
{
	push_triangle(b, p0, p1, p2);
	push_triangle(b, p0, p2, p3);
}

/* A box face split into subdiv x subdiv quads; origin + u*s + v*t. */
static void push_face(struct builder *b, const float origin[3],
                      const float u[3], const float v[3], int subdiv,
                      const float lo[3], const float hi[3])
{
	for (int i = 0; i < subdiv; i++)
		for (int j = 0; j < subdiv; j++) {
			float q[4][3];
			float s[4] = {(float)i, (float)(i + 1), (float)(i + 1),
			              (float)i};
			float t[4] = {(float)j, (float)j, (float)(j + 1),
			              (float)(j + 1)};
			for (int k = 0; k < 4; k++)
				for (int c = 0; c < 3; c++) {
					float x = origin[c] +
					          (u[c] * s[k] + v[c] * t[k]) /
					              (float)subdiv;
					q[k][c] = lo[c] + (hi[c] - lo[c]) * x;
				}
			push_quad(b, q[0], q[1], q[2], q[3]);
		}
}

/* The box lo..hi (corner coordinates in [-1, 1]) with each face
 * subdivided; six faces of subdiv^2 quads, 36 * subdiv^2 vertices. */
static void push_box(struct builder *b, const float lo[3], const float hi[3],
                     int subdiv)
{
	/* In unit-cube coordinates 0..1: origin, u, v with u x v outward. */
	static const float faces[6][3][3] = {
	    {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, /* +x */
	    {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}}, /* -x */
	    {{0, 1, 0}, {0, 0, 1}, {1, 0, 0}}, /* +y */
	    {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}, /* -y */
	    {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}, /* +z */
	    {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}}, /* -z */
	};
	for (int f = 0; f < 6; f++)
		push_face(b, faces[f][0], faces[f][1], faces[f][2], subdiv, lo,
		          hi);
}

/* A sphere of segs x rings quads around (0, cy, 0) with radius r, its
 * radius modulated by bump * sin(k*theta) * sin(k*phi) ripples. */
static void push_blob(struct builder *b, float cy, float r, int segs, int rings,
                      float bump, float k)
{
	const float pi = 3.14159265358979f;
	for (int i = 0; i < segs; i++)
		for (int j = 0; j < rings; j++) {
			float q[4][3];
			int di[4] = {0, 0, 1, 1}, dj[4] = {0, 1, 1, 0};
			for (int c = 0; c < 4; c++) {
				float th = 2.0f * pi * (float)(i + di[c]) /
				           (float)segs;
				float ph =
				    pi * (float)(j + dj[c]) / (float)rings;
				float rr = r * (1.0f + bump * sinf(k * th) *
				                           sinf(k * ph));
				q[c][0] = rr * sinf(ph) * cosf(th);
				q[c][1] = cy + rr * cosf(ph);
				q[c][2] = rr * sinf(ph) * sinf(th);
			}
			push_quad(b, q[0], q[1], q[2], q[3]);
		}
}

static void push_cylinder(struct builder *b, float r, float y0, float y1,
                          int segs)
{
	const float pi = 3.14159265358979f;
	for (int i = 0; i < segs; i++) {
		float a0 = 2.0f * pi * (float)i / (float)segs;
		float a1 = 2.0f * pi * (float)(i + 1) / (float)segs;
		float p0[3] = {r * cosf(a0), y0, r * sinf(a0)};
		float p1[3] = {r * cosf(a1), y0, r * sinf(a1)};
		float p2[3] = {r * cosf(a1), y1, r * sinf(a1)};
		float p3[3] = {r * cosf(a0), y1, r * sinf(a0)};
		push_quad(b, p0, p3, p2, p1);
	}
}

static void build_type(struct builder *b, enum arena_type type, int lod)
{
	static const int house_subdiv[ARENA_N_LODS] = {1, 2, 4};
	static const int wall_subdiv[ARENA_N_LODS] = {2, 4, 6};
	static const int tree_segs[ARENA_N_LODS] = {8, 16, 32};
	static const int statue_segs[ARENA_N_LODS] = {32, 64, 128};
	switch (type) {
	case ARENA_TILE: {
		float p0[3] = {-1, 0, -1}, p1[3] = {-1, 0, 1},
		      p2[3] = {1, 0, 1}, p3[3] = {1, 0, -1};
		push_quad(b, p0, p1, p2, p3);
		break;
	}
	case ARENA_CRATE: {
		float lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
		push_box(b, lo, hi, 1);
		break;
	}
	case ARENA_HOUSE: {
		float lo[3] = {-1, -1, -1}, hi[3] = {1, 0.3f, 1};
		push_box(b, lo, hi, house_subdiv[lod]);
		float apex[3] = {0, 1, 0}, c[4][3] = {{-1, 0.3f, -1},
		                                      {-1, 0.3f, 1},
		                                      {1, 0.3f, 1},
		                                      {1, 0.3f, -1}};
		for (int i = 0; i < 4; i++)
			push_triangle(b, c[i], c[(i + 1) % 4], apex);
		break;
	}
	case ARENA_WALL: {
		float lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
		push_box(b, lo, hi, wall_subdiv[lod]);
		break;
	}
	case ARENA_TREE:
		push_cylinder(b, 0.12f, -1.0f, -0.2f, 8);
		push_blob(b, 0.3f, 0.65f, tree_segs[lod],
		          tree_segs[lod] * 3 / 4, 0.15f, 5.0f);
		break;
	case ARENA_STATUE: {
		float lo[3] = {-0.6f, -1, -0.6f}, hi[3] = {0.6f, -0.7f, 0.6f};
		push_box(b, lo, hi, 1);
		push_blob(b, 0.15f, 0.75f, statue_segs[lod],
		          statue_segs[lod] / 2, 0.25f, 7.0f);
		break;
	}
	case ARENA_N_TYPES:
		break;
	}
}

const char *mesh_type_name(enum arena_type type)
{
	static const char *const names[ARENA_N_TYPES] = {
	    "tile", "crate", "house", "wall", "tree", "statue"};
	return (unsigned)type < ARENA_N_TYPES ? names[type] : "?";
}

int mesh_set_build(struct mesh_set *set)
{
	struct builder b = {0};
	for (int t = 0; t < ARENA_N_TYPES; t++)
		for (int l = 0; l < ARENA_N_LODS; l++) {
			size_t first = b.n;
			build_type(&b, (enum arena_type)t, l);
			set->range[t][l].first = (uint32_t)first;
			set->range[t][l].count = (uint32_t)(b.n - first);
		}
	if (b.failed) {
		free(b.v);
		return -1;
	}
	set->vertices = b.v;
	set->n_vertices = b.n;
	return 0;
}

void mesh_set_free(struct mesh_set *set)
{
	free(set->vertices);
	set->vertices = NULL;
	set->n_vertices = 0;
}
