/* The swap hooks: pace before the real swap, measure around it. */
#include "shim/gl/gl_hooks.h"

#include <string.h>

#include "shim/gl/gl_timer.h"
#include "shim/shim.h"

/* Our hook for each function. */
static void *const hooks[GL_HOOK_COUNT] = {
    [GL_HOOK_GLX_SWAP] = (void *)glXSwapBuffers,
    [GL_HOOK_GLX_SWAP_MSC] = (void *)glXSwapBuffersMscOML,
    [GL_HOOK_EGL_SWAP] = (void *)eglSwapBuffers,
    [GL_HOOK_EGL_SWAP_DAMAGE_EXT] = (void *)eglSwapBuffersWithDamageEXT,
    [GL_HOOK_EGL_SWAP_DAMAGE_KHR] = (void *)eglSwapBuffersWithDamageKHR,
    [GL_HOOK_GLX_GPA] = (void *)glXGetProcAddress,
    [GL_HOOK_GLX_GPA_ARB] = (void *)glXGetProcAddressARB,
    [GL_HOOK_EGL_GPA] = (void *)eglGetProcAddress,
    [GL_HOOK_GLX_DESTROY_CONTEXT] = (void *)glXDestroyContext,
    [GL_HOOK_EGL_DESTROY_CONTEXT] = (void *)eglDestroyContext,
};

int gl_hook_find(const char *name)
{
	/* Every hooked name starts "glX" or "egl": one compare turns away
	 * nearly every other lookup a process makes. */
	if (!name ||
	    (strncmp(name, "glX", 3) != 0 && strncmp(name, "egl", 3) != 0))
		return -1;
	for (int i = 0; i < GL_HOOK_COUNT; i++) {
		if (strcmp(name, gl_hook_name(i)) == 0)
			return i;
	}
	return -1;
}

void *gl_hook_fn(int id)
{
	return hooks[id];
}

/* Begin a paced frame: the pacing sleep, then the end stamp of the frame's
 * GPU work right before the real swap. */
static uint64_t begin(enum gl_family family)
{
	gl_timer_first_frame(family);
	uint64_t f = shim_frame_begin(SHIM_API_GL);
	if (f)
		gl_timer_before_swap(family, f);
	return f;
}

static void end(enum gl_family family, uint64_t f)
{
	if (!f)
		return;
	gl_timer_after_swap(family, f);
	shim_frame_end(f);
}

void glXSwapBuffers(void *dpy, unsigned long drawable)
{
	void (*real)(void *, unsigned long) = gl_real(GL_HOOK_GLX_SWAP);
	if (!real)
		return;
	uint64_t f = begin(GL_FAMILY_GLX);
	real(dpy, drawable);
	end(GL_FAMILY_GLX, f);
}

int64_t glXSwapBuffersMscOML(void *dpy, unsigned long drawable,
                             int64_t target_msc, int64_t divisor,
                             int64_t remainder)
{
	int64_t (*real)(void *, unsigned long, int64_t, int64_t, int64_t) =
	    gl_real(GL_HOOK_GLX_SWAP_MSC);
	if (!real)
		return -1;
	uint64_t f = begin(GL_FAMILY_GLX);
	int64_t r = real(dpy, drawable, target_msc, divisor, remainder);
	end(GL_FAMILY_GLX, f);
	return r;
}

unsigned int eglSwapBuffers(void *dpy, void *surface)
{
	unsigned (*real)(void *, void *) = gl_real(GL_HOOK_EGL_SWAP);
	if (!real)
		return 0; /* EGL_FALSE */
	uint64_t f = begin(GL_FAMILY_EGL);
	unsigned r = real(dpy, surface);
	end(GL_FAMILY_EGL, f);
	return r;
}

static unsigned swap_damage(int id, void *dpy, void *surface,
                            const int32_t *rects, int32_t n)
{
	unsigned (*real)(void *, void *, const int32_t *, int32_t) =
	    gl_real(id);
	if (!real)
		return 0;
	uint64_t f = begin(GL_FAMILY_EGL);
	unsigned r = real(dpy, surface, rects, n);
	end(GL_FAMILY_EGL, f);
	return r;
}

unsigned int eglSwapBuffersWithDamageEXT(void *dpy, void *surface,
                                         const int32_t *rects, int32_t n_rects)
{
	return swap_damage(GL_HOOK_EGL_SWAP_DAMAGE_EXT, dpy, surface, rects,
	                   n_rects);
}

unsigned int eglSwapBuffersWithDamageKHR(void *dpy, void *surface,
                                         const int32_t *rects, int32_t n_rects)
{
	return swap_damage(GL_HOOK_EGL_SWAP_DAMAGE_KHR, dpy, surface, rects,
	                   n_rects);
}

/* GetProcAddress: the real answer, except that a name we hook (and the
 * real library has) gets our hook, and the real function is noted. */
static gl_proc get_proc(int gpa_id, const char *name)
{
	gl_proc (*real)(const char *) = gl_real(gpa_id);
	if (!real)
		return NULL;
	gl_proc p = real(name);
	int id = gl_hook_find(name);
	if (!p || id < 0)
		return p;
	gl_real_offer(id, (void *)p);
	return (gl_proc)gl_hook_fn(id);
}

gl_proc glXGetProcAddress(const unsigned char *name)
{
	return get_proc(GL_HOOK_GLX_GPA, (const char *)name);
}

gl_proc glXGetProcAddressARB(const unsigned char *name)
{
	return get_proc(GL_HOOK_GLX_GPA_ARB, (const char *)name);
}

gl_proc eglGetProcAddress(const char *name)
{
	return get_proc(GL_HOOK_EGL_GPA, name);
}

void glXDestroyContext(void *dpy, void *ctx)
{
	void (*real)(void *, void *) = gl_real(GL_HOOK_GLX_DESTROY_CONTEXT);
	gl_timer_forget_context(ctx);
	if (real)
		real(dpy, ctx);
}

unsigned int eglDestroyContext(void *dpy, void *ctx)
{
	unsigned (*real)(void *, void *) = gl_real(GL_HOOK_EGL_DESTROY_CONTEXT);
	gl_timer_forget_context(ctx);
	return real ? real(dpy, ctx) : 0;
}
