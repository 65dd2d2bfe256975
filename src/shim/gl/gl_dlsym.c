/* Our dlsym. Applications that dlopen libGL/libEGL and look the swap up
 * with dlsym never call an LD_PRELOAD'ed glXSwapBuffers by name; this is
 * where they meet the hook instead.
 *
 * Everything except a hooked name looked up through a real handle is
 * passed to glibc's dlsym as a tail call. That matters for RTLD_NEXT: glibc
 * resolves it relative to the object its caller's return address lies in.
 * Through a tail call that is still our caller; through an ordinary call
 * it would be us, and an interposer loaded after us asking RTLD_NEXT for
 * its own function would get itself back and recurse forever. */
#include <dlfcn.h>
#include <stddef.h>

#include "shim/gl/gl_hooks.h"

/* GCC only turns the pass-through into a jump when optimising; this file
 * must be, even in a -O0 build. Clang has a guarantee for it. */
#if defined(__clang__) && defined(__has_attribute)
#if __has_attribute(musttail)
#define TAIL __attribute__((musttail))
#endif
#endif
#ifndef TAIL
#define TAIL
#endif
#if defined(__GNUC__) && !defined(__clang__)
#define OPTIMIZE __attribute__((optimize("O2")))
#else
#define OPTIMIZE
#endif

/* A hooked name through a real handle (or RTLD_DEFAULT): the handle's own
 * answer is the real function, the app gets the hook. Not found stays not
 * found, so that probing for an extension still says no. */
static void *hooked(int id, void *handle, const char *name)
{
	void *p = gl_real_dlsym()(handle, name);
	if (!p)
		return NULL;
	if (!gl_is_ours(p))
		gl_real_offer(id, p);
	return gl_hook_fn(id);
}

OPTIMIZE void *dlsym(void *handle, const char *name)
{
	gl_dlsym_fn real = gl_real_dlsym();
	/* RTLD_NEXT is an interposer asking for what comes after it: that
	 * is the real function or us, and glibc knows which. */
	if (handle != RTLD_NEXT) {
		int id = gl_hook_find(name);
		if (id >= 0)
			return hooked(id, handle, name);
	}
	TAIL return real(handle, name);
}
