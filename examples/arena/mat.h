/* Column-major 4x4 matrices and 3-vectors for the arena (OpenGL's layout:
 * m[col * 4 + row]). Header-only, small on purpose. */
#pragma once

#include <math.h>

static inline void vec3_sub(const float a[3], const float b[3], float out[3])
{
	for (int i = 0; i < 3; i++)
		out[i] = a[i] - b[i];
}

static inline void vec3_normalize(float v[3])
{
	float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	if (len > 0.0f)
		for (int i = 0; i < 3; i++)
			v[i] /= len;
}

static inline void vec3_cross(const float a[3], const float b[3], float out[3])
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline float vec3_dot(const float a[3], const float b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void mat4_mul(const float a[16], const float b[16], float out[16])
{
	float r[16];
	for (int c = 0; c < 4; c++)
		for (int row = 0; row < 4; row++) {
			float s = 0.0f;
			for (int k = 0; k < 4; k++)
				s += a[k * 4 + row] * b[c * 4 + k];
			r[c * 4 + row] = s;
		}
	for (int i = 0; i < 16; i++)
		out[i] = r[i];
}

static inline void mat4_perspective(float fovy, float aspect, float znear,
                                    float zfar, float m[16])
{
	float f = 1.0f / tanf(fovy * 0.5f);
	for (int i = 0; i < 16; i++)
		m[i] = 0.0f;
	m[0] = f / aspect;
	m[5] = f;
	m[10] = (zfar + znear) / (znear - zfar);
	m[11] = -1.0f;
	m[14] = 2.0f * zfar * znear / (znear - zfar);
}

static inline void mat4_ortho(float half_w, float half_h, float znear,
                              float zfar, float m[16])
{
	for (int i = 0; i < 16; i++)
		m[i] = 0.0f;
	m[0] = 1.0f / half_w;
	m[5] = 1.0f / half_h;
	m[10] = -2.0f / (zfar - znear);
	m[14] = -(zfar + znear) / (zfar - znear);
	m[15] = 1.0f;
}

static inline void mat4_look_at(const float eye[3], const float target[3],
                                float m[16])
{
	float f[3], s[3], u[3], up[3] = {0.0f, 1.0f, 0.0f};
	vec3_sub(target, eye, f);
	vec3_normalize(f);
	vec3_cross(f, up, s);
	vec3_normalize(s);
	vec3_cross(s, f, u);
	for (int i = 0; i < 16; i++)
		m[i] = 0.0f;
	for (int i = 0; i < 3; i++) {
		m[i * 4 + 0] = s[i];
		m[i * 4 + 1] = u[i];
		m[i * 4 + 2] = -f[i];
	}
	m[12] = -vec3_dot(s, eye);
	m[13] = -vec3_dot(u, eye);
	m[14] = vec3_dot(f, eye);
	m[15] = 1.0f;
}

/* translate(pos) * rotate_y(yaw) * scale(scale) */
static inline void mat4_model(const float pos[3], float yaw,
                              const float scale[3], float m[16])
{
	float c = cosf(yaw), s = sinf(yaw);
	for (int i = 0; i < 16; i++)
		m[i] = 0.0f;
	m[0] = c * scale[0];
	m[2] = -s * scale[0];
	m[5] = scale[1];
	m[8] = s * scale[2];
	m[10] = c * scale[2];
	m[12] = pos[0];
	m[13] = pos[1];
	m[14] = pos[2];
	m[15] = 1.0f;
}
