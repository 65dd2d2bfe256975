/* A frame-time probe that sits outside every frame limiter: preloaded
 * after it, it timestamps the moment Mesa's software GLX path hands a
 * finished frame to the X server (XShmPutImage, or XPutImage without
 * MIT-SHM). That is the frame's real presentation time on Xvfb, whoever
 * hooked glXSwapBuffers and however they reached it: MangoHud calls the
 * real glXSwapBuffers through its own dlopen handle, past any preload
 * placed after it, but Mesa's calls into libX11/libXext still bind to us.
 *
 * EGL on X11 (glmark2-es2, any GLES client) takes another path: Mesa's
 * EGL software platform hands frames to the X server through libxcb
 * (xcb_put_image, or xcb_shm_put_image with MIT-SHM in newer Mesa), never
 * through Xlib, so those are stamped too. A GLX client never reaches them
 * (Xlib's XPutImage/XShmPutImage write their requests themselves), so no
 * frame is stamped twice.
 *
 * Timestamps (CLOCK_MONOTONIC ns) go to the file named by
 * BATON_PROBE_OUT: a uint64 count followed by int64 times, in a shared
 * mapping, so they survive the process being killed.
 *
 * With BATON_PROBE_RELEASE_OUT set it also stamps each call of
 * glXSwapBuffers that reaches it into that file: preloaded after Baton's
 * shim, which finds the real swap with dlsym(RTLD_NEXT), that is the
 * moment the limiter lets the frame go, before llvmpipe rasterizes it.
 * (MangoHud reaches the real swap through its own dlopen handle, past this
 * hook, so for MangoHud that file stays empty.) */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "probe_file.h"

#define EXPORT __attribute__((visibility("default")))

/* dlsym(RTLD_NEXT, name) through glibc's own dlsym: `mangohud --dlsym`
 * (libMangoHud_dlsym.so, which clients that load GL with dlopen/dlsym,
 * glmark2 among them, need) replaces dlsym, and a RTLD_NEXT lookup made
 * through its replacement is relative to MangoHud, not to us, and finds
 * this probe again: endless recursion. */
static void *next_sym(const char *name)
{
	static void *(*real)(void *, const char *);
	if (!real) {
		void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
		if (libc)
			real = (void *(*)(void *, const char *))dlvsym(
			    libc, "dlsym", "GLIBC_2.34");
		if (libc && !real)
			real = (void *(*)(void *, const char *))dlvsym(
			    libc, "dlsym", "GLIBC_2.2.5");
		if (!real)
			real = dlsym;
	}
	return real(RTLD_NEXT, name);
}

typedef int (*shm_put_fn)(void *, unsigned long, void *, void *, int, int, int,
                          int, unsigned, unsigned, int);
typedef int (*put_fn)(void *, unsigned long, void *, void *, int, int, int, int,
                      unsigned, unsigned);

EXPORT int XShmPutImage(void *dpy, unsigned long d, void *gc, void *image,
                        int sx, int sy, int dx, int dy, unsigned w, unsigned h,
                        int send_event);
EXPORT int XShmPutImage(void *dpy, unsigned long d, void *gc, void *image,
                        int sx, int sy, int dx, int dy, unsigned w, unsigned h,
                        int send_event)
{
	static shm_put_fn real;
	if (!real)
		real = (shm_put_fn)next_sym("XShmPutImage");
	stamp();
	return real(dpy, d, gc, image, sx, sy, dx, dy, w, h, send_event);
}

EXPORT int XPutImage(void *dpy, unsigned long d, void *gc, void *image, int sx,
                     int sy, int dx, int dy, unsigned w, unsigned h);
EXPORT int XPutImage(void *dpy, unsigned long d, void *gc, void *image, int sx,
                     int sy, int dx, int dy, unsigned w, unsigned h)
{
	static put_fn real;
	if (!real)
		real = (put_fn)next_sym("XPutImage");
	stamp();
	return real(dpy, d, gc, image, sx, sy, dx, dy, w, h);
}

#define PROBE_NEXT(name) next_sym(name)
#include "xcb_put_hooks.h"

typedef void (*glx_swap_fn)(void *, unsigned long);
static struct probe_file *release_out;

__attribute__((constructor)) static void release_open(void)
{
	release_out = probe_map("BATON_PROBE_RELEASE_OUT");
}

EXPORT void glXSwapBuffers(void *dpy, unsigned long drawable);
EXPORT void glXSwapBuffers(void *dpy, unsigned long drawable)
{
	static glx_swap_fn real;
	if (!real)
		real = (glx_swap_fn)next_sym("glXSwapBuffers");
	stamp_to(release_out);
	if (real)
		real(dpy, drawable);
}
