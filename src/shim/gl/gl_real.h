/* The real functions behind the OpenGL preload's hooks (gl_hooks.h) and
 * the other window-system functions the preload calls, found without ever
 * finding our own hooks again. GL types are spelled out here instead of
 * taken from the GL headers, so the preload builds without them and never
 * links libGL. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef void (*gl_proc)(void);

enum gl_family {
	GL_FAMILY_GLX = 0,
	GL_FAMILY_EGL = 1,
};

/* Every function we hook. */
enum gl_hook_id {
	GL_HOOK_GLX_SWAP = 0,
	GL_HOOK_GLX_SWAP_MSC,
	GL_HOOK_EGL_SWAP,
	GL_HOOK_EGL_SWAP_DAMAGE_EXT,
	GL_HOOK_EGL_SWAP_DAMAGE_KHR,
	GL_HOOK_GLX_GPA,
	GL_HOOK_GLX_GPA_ARB,
	GL_HOOK_EGL_GPA,
	GL_HOOK_GLX_DESTROY_CONTEXT,
	GL_HOOK_EGL_DESTROY_CONTEXT,
	GL_HOOK_COUNT,
};

/* The name of the function behind hook id. */
const char *gl_hook_name(int id);

/* The real function behind hook id: found once (our caller's dlsym handle
 * if that is how the app reached us, else the next object after us, else
 * libGL.so.1/libEGL.so.1) and cached. NULL if there is none. Never one of
 * our own functions. */
void *gl_real(int id);
/* The app looked the name up through a handle of its own and got p: that
 * is the real function, unless p is ours or one is already known (the first
 * one found wins, so that two lookups cannot swap it under a running
 * frame). */
void gl_real_offer(int id, void *p);

/* Any other function of the window-system library of family (for the GPU
 * timer: glXGetCurrentContext, ...), looked up the same way, not cached. */
void *gl_real_lookup(enum gl_family family, const char *name);

/* glibc's dlsym, found with dlvsym so that our own dlsym is skipped. */
typedef void *(*gl_dlsym_fn)(void *handle, const char *name);
gl_dlsym_fn gl_real_dlsym(void);

/* True if p lies inside libbaton_gl.so. */
bool gl_is_ours(const void *p);
