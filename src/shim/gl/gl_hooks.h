/* The OpenGL preload's hooks and how it finds the functions they wrap.
 *
 * The hooks are the only symbols libbaton_gl.so exports (libbaton_gl.map).
 * Applications reach them three ways, and each must lead to the same hook
 * and from there to the real function exactly once:
 *   - linked calls (glXSwapBuffers in the app's PLT): LD_PRELOAD order;
 *   - glXGetProcAddress/eglGetProcAddress: our versions of those;
 *   - dlopen + dlsym (SDL, glmark2, most engines): our dlsym.
 * GL types are spelled out here instead of taken from the GL headers, so
 * the preload builds without them and never links libGL. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef void (*gl_proc)(void);

enum gl_family {
	GL_FAMILY_GLX = 0,
	GL_FAMILY_EGL = 1,
};

/* Every function we hook, in the order of the table in gl_hooks.c. */
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

/* The hook for a function name, or -1 if we do not hook it. Cheap for the
 * names we do not hook (dlsym calls it for every lookup). */
int gl_hook_find(const char *name);
/* The hook's address and name. */
void *gl_hook_fn(int id);
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

/* The exported hooks (default visibility, see libbaton_gl.map). */
#define GL_EXPORT __attribute__((visibility("default")))
GL_EXPORT void glXSwapBuffers(void *dpy, unsigned long drawable);
GL_EXPORT int64_t glXSwapBuffersMscOML(void *dpy, unsigned long drawable,
                                       int64_t target_msc, int64_t divisor,
                                       int64_t remainder);
GL_EXPORT unsigned int eglSwapBuffers(void *dpy, void *surface);
GL_EXPORT unsigned int eglSwapBuffersWithDamageEXT(void *dpy, void *surface,
                                                   const int32_t *rects,
                                                   int32_t n_rects);
GL_EXPORT unsigned int eglSwapBuffersWithDamageKHR(void *dpy, void *surface,
                                                   const int32_t *rects,
                                                   int32_t n_rects);
GL_EXPORT gl_proc glXGetProcAddress(const unsigned char *name);
GL_EXPORT gl_proc glXGetProcAddressARB(const unsigned char *name);
GL_EXPORT gl_proc eglGetProcAddress(const char *name);
GL_EXPORT void glXDestroyContext(void *dpy, void *ctx);
GL_EXPORT unsigned int eglDestroyContext(void *dpy, void *ctx);
GL_EXPORT void *dlsym(void *handle, const char *name);
