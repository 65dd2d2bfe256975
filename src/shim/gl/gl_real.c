/* Finding the real functions behind our hooks without ever finding
 * ourselves again. Runs once per function, off the frame path. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

#include "shim/gl/gl_real.h"

static const char *const names[GL_HOOK_COUNT] = {
    [GL_HOOK_GLX_SWAP] = "glXSwapBuffers",
    [GL_HOOK_GLX_SWAP_MSC] = "glXSwapBuffersMscOML",
    [GL_HOOK_EGL_SWAP] = "eglSwapBuffers",
    [GL_HOOK_EGL_SWAP_DAMAGE_EXT] = "eglSwapBuffersWithDamageEXT",
    [GL_HOOK_EGL_SWAP_DAMAGE_KHR] = "eglSwapBuffersWithDamageKHR",
    [GL_HOOK_GLX_GPA] = "glXGetProcAddress",
    [GL_HOOK_GLX_GPA_ARB] = "glXGetProcAddressARB",
    [GL_HOOK_EGL_GPA] = "eglGetProcAddress",
    [GL_HOOK_GLX_DESTROY_CONTEXT] = "glXDestroyContext",
    [GL_HOOK_EGL_DESTROY_CONTEXT] = "eglDestroyContext",
};

const char *gl_hook_name(int id)
{
	return names[id];
}

static _Atomic(gl_dlsym_fn) real_dlsym_fn;
static _Atomic(void *) real_fns[GL_HOOK_COUNT];

gl_dlsym_fn gl_real_dlsym(void)
{
	gl_dlsym_fn f =
	    atomic_load_explicit(&real_dlsym_fn, memory_order_acquire);
	if (f)
		return f;
	/* dlvsym is not hooked, so this finds libc's dlsym behind ours.
	 * GLIBC_2.34 is where dlsym moved into libc; older systems only have
	 * the original version. */
	f = (gl_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!f)
		f = (gl_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	atomic_store_explicit(&real_dlsym_fn, f, memory_order_release);
	return f;
}

bool gl_is_ours(const void *p)
{
	static _Atomic(void *) self_base;
	void *base = atomic_load_explicit(&self_base, memory_order_relaxed);
	if (!base) {
		Dl_info self;
		if (!dladdr((void *)gl_is_ours, &self))
			return false;
		base = self.dli_fbase;
		atomic_store_explicit(&self_base, base, memory_order_relaxed);
	}
	Dl_info info;
	return p && dladdr(p, &info) && info.dli_fbase == base;
}

static void *lookup_in(void *handle, const char *name)
{
	gl_dlsym_fn real_dlsym = gl_real_dlsym();
	if (!real_dlsym || !handle)
		return NULL;
	void *p = real_dlsym(handle, name);
	return gl_is_ours(p) ? NULL : p;
}

void *gl_real_lookup(enum gl_family family, const char *name)
{
	/* The next definition after us: the real library, or another
	 * interposer that comes after us in LD_PRELOAD. */
	void *p = lookup_in(RTLD_NEXT, name);
	if (p)
		return p;
	/* The app did not link the library (it dlopens it, privately):
	 * use its copy if loaded, else load one. */
	const char *lib =
	    family == GL_FAMILY_EGL ? "libEGL.so.1" : "libGL.so.1";
	void *h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		h = dlopen(lib, RTLD_LAZY);
	/* The handle stays open: the functions we return live in it. */
	return lookup_in(h, name);
}

void gl_real_offer(int id, void *p)
{
	if (!p || gl_is_ours(p))
		return;
	void *none = NULL;
	atomic_compare_exchange_strong(&real_fns[id], &none, p);
}

void *gl_real(int id)
{
	void *p = atomic_load_explicit(&real_fns[id], memory_order_acquire);
	if (p)
		return p;
	static const enum gl_family family[GL_HOOK_COUNT] = {
	    [GL_HOOK_GLX_SWAP] = GL_FAMILY_GLX,
	    [GL_HOOK_GLX_SWAP_MSC] = GL_FAMILY_GLX,
	    [GL_HOOK_EGL_SWAP] = GL_FAMILY_EGL,
	    [GL_HOOK_EGL_SWAP_DAMAGE_EXT] = GL_FAMILY_EGL,
	    [GL_HOOK_EGL_SWAP_DAMAGE_KHR] = GL_FAMILY_EGL,
	    [GL_HOOK_GLX_GPA] = GL_FAMILY_GLX,
	    [GL_HOOK_GLX_GPA_ARB] = GL_FAMILY_GLX,
	    [GL_HOOK_EGL_GPA] = GL_FAMILY_EGL,
	    [GL_HOOK_GLX_DESTROY_CONTEXT] = GL_FAMILY_GLX,
	    [GL_HOOK_EGL_DESTROY_CONTEXT] = GL_FAMILY_EGL,
	};
	const char *name = gl_hook_name(id);
	p = gl_real_lookup(family[id], name);
	/* Extension entry points (eglSwapBuffersWithDamageEXT, often
	 * glXSwapBuffersMscOML) are not exported by the libraries, only
	 * handed out by GetProcAddress. */
	if (!p && id != GL_HOOK_GLX_GPA_ARB && id != GL_HOOK_EGL_GPA) {
		gl_proc (*gpa)(const char *) =
		    gl_real(family[id] == GL_FAMILY_EGL ? GL_HOOK_EGL_GPA
		                                        : GL_HOOK_GLX_GPA_ARB);
		if (gpa)
			p = (void *)gpa(name);
	}
	gl_real_offer(id, p);
	return atomic_load_explicit(&real_fns[id], memory_order_acquire);
}
