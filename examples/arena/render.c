/* Passes per frame: (high only) a 2048^2 shadow map from the sun, the
 * scene into an FBO at supersample x the window size, a linear blit down
 * to a window-sized FBO (what is captured), and a blit to the window. One
 * GL_TIME_ELAPSED query spans the passes; a ring keeps a few frames in
 * flight so that reading one never stalls the pipeline. */
#include <stdio.h>
#include <stdlib.h>

#include "render_internal.h"

const struct quality_preset arena_presets[ARENA_N_LEVELS] = {
    {"low", 0, 1.0f, 0},
    {"medium", 1, 1.5f, 0},
    {"high", 2, 2.0f, 1},
};

static const char *scene_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec3 pos;\n"
    "layout(location = 1) in vec3 nrm;\n"
    "uniform mat4 model, viewproj, light_vp;\n"
    "uniform vec3 inv_scale;\n"
    "out vec3 wpos, wnrm;\n"
    "out vec4 lpos;\n"
    "void main() {\n"
    "  vec4 w = model * vec4(pos, 1.0);\n"
    "  wpos = w.xyz;\n"
    "  wnrm = mat3(model) * (nrm * inv_scale * inv_scale);\n"
    "  lpos = light_vp * w;\n"
    "  gl_Position = viewproj * w;\n"
    "}\n";

static const char *scene_fs =
    "#version 330 core\n"
    "in vec3 wpos, wnrm;\n"
    "in vec4 lpos;\n"
    "uniform vec3 color, eye;\n"
    "uniform int shadows;\n"
    "uniform float fog;\n"
    "uniform sampler2DShadow shadow_map;\n"
    "out vec4 frag;\n"
    "const vec3 sun = normalize(vec3(0.4, 1.0, 0.3));\n"
    "void main() {\n"
    "  vec3 n = normalize(wnrm);\n"
    "  float lit = 1.0;\n"
    "  if (shadows != 0) {\n"
    "    vec3 p = lpos.xyz / lpos.w * 0.5 + 0.5;\n"
    "    lit = 0.0;\n" /* 3x3 percentage-closer filter */
    "    for (int i = -1; i <= 1; i++)\n"
    "      for (int j = -1; j <= 1; j++)\n"
    "        lit += texture(shadow_map, p + vec3(vec2(i, j) / 2048.0,"
    " -0.002));\n"
    "    lit /= 9.0;\n"
    "  }\n"
    "  float diffuse = abs(dot(n, sun)) * lit;\n"
    "  vec3 c = color * (0.35 + 0.65 * diffuse);\n"
    "  float f = clamp(length(wpos - eye) * fog, 0.0, 1.0);\n"
    "  frag = vec4(mix(c, vec3(0.6, 0.7, 0.85), f), 1.0);\n"
    "}\n";

static const char *depth_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec3 pos;\n"
    "uniform mat4 model, viewproj;\n"
    "void main() { gl_Position = viewproj * model * vec4(pos, 1.0); }\n";

static const char *depth_fs = "#version 330 core\nvoid main() {}\n";

static GLuint compile(GLenum kind, const char *src)
{
	GLuint s = glCreateShader(kind);
	glShaderSource(s, 1, &src, NULL);
	glCompileShader(s);
	GLint ok = 0;
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[1024];
		glGetShaderInfoLog(s, sizeof(log), NULL, log);
		fprintf(stderr, "arena: shader: %s\n", log);
	}
	return s;
}

static GLuint link_program(const char *vs, const char *fs)
{
	GLuint p = glCreateProgram();
	GLuint v = compile(GL_VERTEX_SHADER, vs),
	       f = compile(GL_FRAGMENT_SHADER, fs);
	glAttachShader(p, v);
	glAttachShader(p, f);
	glLinkProgram(p);
	glDeleteShader(v);
	glDeleteShader(f);
	GLint ok = 0;
	glGetProgramiv(p, GL_LINK_STATUS, &ok);
	if (!ok) {
		glDeleteProgram(p);
		return 0;
	}
	return p;
}

static int make_target(struct target *t, int w, int h)
{
	t->w = w;
	t->h = h;
	glGenFramebuffers(1, &t->fbo);
	glGenRenderbuffers(1, &t->color);
	glGenRenderbuffers(1, &t->depth);
	glBindRenderbuffer(GL_RENDERBUFFER, t->color);
	glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
	glBindRenderbuffer(GL_RENDERBUFFER, t->depth);
	glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, w, h);
	glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
	glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
	                          GL_RENDERBUFFER, t->color);
	glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT,
	                          GL_RENDERBUFFER, t->depth);
	return glCheckFramebufferStatus(GL_FRAMEBUFFER) ==
	               GL_FRAMEBUFFER_COMPLETE
	           ? 0
	           : -1;
}

static int make_shadow_map(struct renderer *r)
{
	glGenTextures(1, &r->shadow_tex);
	glBindTexture(GL_TEXTURE_2D, r->shadow_tex);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, SHADOW_SIZE,
	             SHADOW_SIZE, 0, GL_DEPTH_COMPONENT, GL_FLOAT, NULL);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE,
	                GL_COMPARE_REF_TO_TEXTURE);
	glGenFramebuffers(1, &r->shadow_fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT,
	                       GL_TEXTURE_2D, r->shadow_tex, 0);
	glDrawBuffer(GL_NONE);
	glReadBuffer(GL_NONE);
	return glCheckFramebufferStatus(GL_FRAMEBUFFER) ==
	               GL_FRAMEBUFFER_COMPLETE
	           ? 0
	           : -1;
}

static void locate_uniforms(struct renderer *r)
{
	GLuint p = r->scene_prog;
	r->u_model = glGetUniformLocation(p, "model");
	r->u_inv_scale = glGetUniformLocation(p, "inv_scale");
	r->u_viewproj = glGetUniformLocation(p, "viewproj");
	r->u_light_vp = glGetUniformLocation(p, "light_vp");
	r->u_color = glGetUniformLocation(p, "color");
	r->u_eye = glGetUniformLocation(p, "eye");
	r->u_shadows = glGetUniformLocation(p, "shadows");
	r->u_fog = glGetUniformLocation(p, "fog");
	r->u_depth_model = glGetUniformLocation(r->depth_prog, "model");
	r->u_depth_vp = glGetUniformLocation(r->depth_prog, "viewproj");
	glUseProgram(p);
	glUniform1i(glGetUniformLocation(p, "shadow_map"), 0);
}

struct renderer *render_open(int width, int height,
                             const struct mesh_set *meshes)
{
	struct renderer *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->width = width;
	r->height = height;
	r->meshes = meshes;
	r->win = glx_window_open(width, height, "arena");
	if (!r->win) {
		free(r);
		return NULL;
	}
	r->scene_prog = link_program(scene_vs, scene_fs);
	r->depth_prog = link_program(depth_vs, depth_fs);
	if (!r->scene_prog || !r->depth_prog) {
		fprintf(stderr, "arena: cannot link the shaders\n");
		render_close(r);
		return NULL;
	}
	locate_uniforms(r);
	glGenVertexArrays(1, &r->vao);
	glBindVertexArray(r->vao);
	glGenBuffers(1, &r->vbo);
	glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
	glBufferData(
	    GL_ARRAY_BUFFER,
	    (GLsizeiptr)(meshes->n_vertices * ARENA_VERTEX_F * sizeof(float)),
	    meshes->vertices, GL_STATIC_DRAW);
	GLsizei stride = ARENA_VERTEX_F * sizeof(float);
	glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, (void *)0);
	glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, stride,
	                      (void *)(3 * sizeof(float)));
	glEnableVertexAttribArray(0);
	glEnableVertexAttribArray(1);
	int err = make_shadow_map(r);
	for (int l = 0; l < ARENA_N_LEVELS; l++) {
		float s = arena_presets[l].supersample;
		err |= make_target(&r->scene[l], (int)((float)width * s + 0.5f),
		                   (int)((float)height * s + 0.5f));
	}
	err |= make_target(&r->resolved, width, height);
	glGenQueries(QUERY_RING, r->queries);
	/* Mesa's llvmpipe reports garbage (hours) for the first
	 * GL_TIME_ELAPSED query that spans rendering; spend it here, on a
	 * clear, not on frame 0. */
	GLuint64 ignored;
	for (int i = 0; i < 2; i++) {
		glBeginQuery(GL_TIME_ELAPSED, r->queries[i]);
		glBindFramebuffer(GL_FRAMEBUFFER, r->resolved.fbo);
		glClear(GL_COLOR_BUFFER_BIT);
		glEndQuery(GL_TIME_ELAPSED);
		glGetQueryObjectui64v(r->queries[i], GL_QUERY_RESULT, &ignored);
	}
	if (err || glGetError() != GL_NO_ERROR) {
		fprintf(stderr, "arena: cannot create the framebuffers\n");
		render_close(r);
		return NULL;
	}
	glEnable(GL_DEPTH_TEST);
	return r;
}

void render_close(struct renderer *r)
{
	if (!r)
		return;
	if (r->win) {
		struct target *ts[ARENA_N_LEVELS + 1] = {
		    &r->scene[0], &r->scene[1], &r->scene[2], &r->resolved};
		for (int i = 0; i < ARENA_N_LEVELS + 1; i++) {
			glDeleteFramebuffers(1, &ts[i]->fbo);
			glDeleteRenderbuffers(1, &ts[i]->color);
			glDeleteRenderbuffers(1, &ts[i]->depth);
		}
		glDeleteQueries(QUERY_RING, r->queries);
		glDeleteFramebuffers(1, &r->shadow_fbo);
		glDeleteTextures(1, &r->shadow_tex);
		glDeleteBuffers(1, &r->vbo);
		glDeleteVertexArrays(1, &r->vao);
		glDeleteProgram(r->scene_prog);
		glDeleteProgram(r->depth_prog);
		glx_window_close(r->win);
	}
	free(r->draw);
	free(r);
}
