/* The OpenGL preload's hooks and how it finds the functions they wrap.
 *
 * The hooks are the only symbols libbaton_gl.so exports (libbaton_gl.map).
 * Applications reach them three ways, and each must lead to the same hook
 * and from there to the real function exactly once:
 *   - linked calls (glXSwapBuffers in the app's PLT): LD_PRELOAD order;
 *   - glXGetProcAddress/eglGetProcAddress: our versions of those;
 *   - dlopen + dlsym (SDL, glmark2, most engines): our dlsym.
 * How each hook finds the function it wraps: gl_real.h. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "shim/gl/gl_real.h"

/* The hook for a function name, or -1 if we do not hook it. Cheap for the
 * names we do not hook (dlsym calls it for every lookup). */
int gl_hook_find(const char *name);
/* The hook's address. */
void *gl_hook_fn(int id);

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
/* Not a GL hook: gl_mutex_drain.c, against a race in Mesa's llvmpipe. */
GL_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m);
